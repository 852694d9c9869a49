"""benchmarks/bench_train.py runs, and its hand-written NumPy steps do the same work as the
torch steps (same loss, same updated parameters), so the ratios compare equal work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from ._torch import require_torch

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH_DIR))

import bench_train  # noqa: E402

torch = require_torch()


def test_quick_run_reports_every_target():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, str(BENCH_DIR / "bench_train.py"), "--quick",
                           "--cases", "mlp32,lstm,memory"], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "MLP SGD step, batch 32" in proc.stdout and "leafgrad/torch" in proc.stdout
    assert "peak memory, MLP batch 512" in proc.stdout


def _torch_params(module):
    return [p.detach().numpy().copy() for p in module.parameters()]


def test_numpy_lstm_gradients_are_torchs():
    _, forward_backward = bench_train.lstm_numpy()
    loss, grads = forward_backward()
    x, params = bench_train.lstm_data()
    model = torch.nn.LSTM(bench_train.HIDDEN, bench_train.HIDDEN)
    with torch.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(torch.tensor(value))
    out, _ = model(torch.tensor(x))
    torch_loss = (out * out).mean()
    torch_loss.backward()
    np.testing.assert_allclose(loss, torch_loss.item(), rtol=1e-5)
    for grad, p in zip(grads, model.parameters()):
        np.testing.assert_allclose(grad, p.grad.numpy(), rtol=1e-3, atol=1e-7)


def test_numpy_mlp_step_matches_torch():
    numpy_step, forward_backward = bench_train.mlp_numpy(32)
    loss, grads = forward_backward()
    x, labels, params = bench_train.mlp_data(32)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                          nn.Linear(128, 10))
    with torch.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(torch.tensor(value))
    torch_loss = torch.nn.functional.cross_entropy(model(torch.tensor(x)), torch.tensor(labels))
    torch_loss.backward()
    np.testing.assert_allclose(loss, torch_loss.item(), rtol=1e-5)
    for grad, p in zip(grads, model.parameters()):
        np.testing.assert_allclose(grad, p.grad.numpy(), rtol=1e-4, atol=1e-6)
