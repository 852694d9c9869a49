"""benchmarks/bench_checkpoint.py runs (--quick), and its implementations compute the same
gradients with and without checkpointing (so the time and memory ratios compare equal work).
No timing or memory figure is asserted."""

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

import bench_checkpoint as bench  # noqa: E402

require_torch()


def _as_arrays(result):
    grad_x, grads = result
    if isinstance(grads, dict):  # the NumPy version: {layer: (weight grad, bias grad)}
        flat = [g for index in sorted(grads) for g in grads[index]]
    else:
        flat = [g.numpy() for g in grads]
    grad_x = grad_x if isinstance(grad_x, np.ndarray) else grad_x.numpy()
    return [grad_x] + flat


def test_every_implementation_and_mode_agrees():
    expected = None
    for impl in ("numpy", "leafgrad", "torch"):
        for mode in bench.MODES:
            got = _as_arrays(bench.build(impl, mode, width=8, batch=4, threads=1)())
            if expected is None:
                expected = got
            for a, b in zip(got, expected, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_quick_run():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    run = subprocess.run([sys.executable, str(BENCH_DIR / "bench_checkpoint.py"), "--quick"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "peak memory of forward+backward" in run.stdout
