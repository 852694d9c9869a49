"""benchmarks/bench_large.py runs, and its three implementations compute the same gradients
(so its ratios compare equal work). No timing is asserted."""

from __future__ import annotations

import json
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

import bench_large as bench  # noqa: E402

torch = require_torch()


@pytest.mark.parametrize("name", sorted(bench.CASES))
def test_the_three_columns_compute_the_same_gradient(name):
    forward, np_forward, np_backward = bench.CASES[name]
    data = np.random.default_rng(3).standard_normal(bench.QUICK_SHAPE).astype(np.float32)
    grads = {}
    for lib in (leafgrad, torch):
        a = lib.tensor(data, requires_grad=True)
        y = forward(lib, a)
        y.backward(lib.ones_like(y) * 0.5)
        grads[lib.__name__] = a.grad.numpy()
        if np_forward is not None:
            np.testing.assert_allclose(y.detach().numpy(), np_forward(data), rtol=2e-5,
                                       atol=2e-5)
    np.testing.assert_allclose(grads["leafgrad"], grads["torch"], rtol=2e-5, atol=2e-6)
    if np_backward is not None:
        g = np.ones(np.shape(np_forward(data)), np.float32) * np.float32(0.5)
        np.testing.assert_allclose(np_backward(g, data, np_forward(data)), grads["torch"],
                                   rtol=2e-5, atol=2e-6)


def test_quick_run(tmp_path):
    out_json = tmp_path / "bench.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, str(BENCH_DIR / "bench_large.py"), "--quick", "--cases",
         "sigmoid,sum_rows", "--json", str(out_json)], capture_output=True, text=True, env=env,
        timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "leafgrad/torch" in proc.stdout
    payload = json.loads(out_json.read_text())
    assert set(payload["cases"]) == {"sigmoid", "sum_rows"}
    assert set(payload["cases"]["sigmoid"]["timings"]) == {"leafgrad", "torch", "numpy"}
