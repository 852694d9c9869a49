"""benchmarks/bench_compile.py runs, and its implementations compute the same numbers: the
hand-written NumPy chain gives torch's gradients, and the compiled steps give eager's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH_DIR))

import bench_compile  # noqa: E402

torch = require_torch()


def test_quick_run_reports_every_target():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, str(BENCH_DIR / "bench_compile.py"), "--quick"],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr
    for label in ("chain fwd+bwd, 1 elem", "mlp step, batch 512", "digits CNN Adam step",
                  "digits CNN+BatchNorm Adam step", "LSTM SGD step",
                  "mlp step, b32, model compiled", "digits CNN step, model compiled"):
        assert label in proc.stdout
    assert proc.stdout.count("target <=") == 4
    # every compiled column timed replays, not the eager fallback
    assert proc.stdout.count("the compiled step was captured 1x") == 9
    assert "replayed 0x" not in proc.stdout


def test_numpy_chain_gradients_are_torchs():
    x, w, b = bench_compile.chain_data(64)
    y, grad_w, grad_b = bench_compile.chain_numpy(x, w, b, 40)
    wt, bt = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    out = bench_compile.chain_step(torch, wt, bt, 40)(torch.tensor(x))
    np.testing.assert_allclose(y, out.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(grad_w, wt.grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(grad_b, bt.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_compiled_chain_is_captured_and_equals_eager():
    x, w, b = bench_compile.chain_data(64)
    grads = []
    for compiled in (False, True):
        wt = leafgrad.tensor(w, requires_grad=True)
        bt = leafgrad.tensor(b, requires_grad=True)
        step = bench_compile.chain_step(leafgrad, wt, bt, 40)
        run = leafgrad.compile(step) if compiled else step
        for _ in range(3):
            y = run(leafgrad.tensor(x))
        grads.append((y.detach().numpy(), wt.grad.numpy(), bt.grad.numpy()))
        if compiled:
            assert run.replays == 2
    for a, b_ in zip(*grads):
        np.testing.assert_array_equal(a, b_)


@pytest.mark.parametrize("batch_norm", [False, True])
def test_compiled_digits_step_is_captured_and_equals_eager(batch_norm):
    losses = []
    for compiled in (False, True):
        step, args = bench_compile.digits_step(leafgrad, batch_norm)
        run = leafgrad.compile(step) if compiled else step
        losses.append([run(*args).item() for _ in range(3)])
        if compiled:
            assert run.replays == 2
    assert losses[0] == losses[1]


def test_compiled_lstm_step_is_captured_and_equals_eager():
    import bench_train

    losses = []
    for compiled in (False, True):
        step = bench_train.lstm_lib(leafgrad)
        run = leafgrad.compile(step) if compiled else step
        losses.append([run().item() for _ in range(3)])
        if compiled:
            assert run.replays == 2
    assert losses[0] == losses[1]
