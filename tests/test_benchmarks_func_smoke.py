"""benchmarks/bench_func.py runs, and its implementations compute the same per-example
gradients (so the ratios compare equal work). No timing is asserted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import leafgrad

from ._torch import require_torch

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH_DIR))

import bench_func as bench  # noqa: E402

torch = require_torch()


def test_per_example_gradients_agree():
    x, y, params = bench.data()
    expected = bench.per_example_numpy(params, x, y)
    looped = bench.per_example_numpy_loop(params, x, y)
    for want, got in zip(expected, looped):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    for lib in (leafgrad, torch):
        tensors = tuple(lib.tensor(p) for p in params)
        for run in (bench.per_example_vmap, bench.per_example_loop):
            got = run(lib, tensors, lib.tensor(x), lib.tensor(y))
            assert len(got) == len(expected)
            for g, want in zip(got, expected):
                assert tuple(g.shape) == want.shape
                np.testing.assert_allclose(g.numpy(), want, rtol=1e-4, atol=1e-6)


def test_quick_run(tmp_path):
    out_json = tmp_path / "bench.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, str(BENCH_DIR / "bench_func.py"), "--quick", "--json", str(out_json)],
        capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "loop / vmap, leafgrad" in proc.stdout
    payload = json.loads(out_json.read_text())
    assert set(payload["cases"]) == {"vmap", "loop"}
