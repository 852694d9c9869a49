"""benchmarks/bench_ops.py runs, and each of its cases computes the same values in leafgrad,
torch and NumPy (so its ratios compare equal work). No timing is asserted."""

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

import bench_ops as bench  # noqa: E402

torch = require_torch()

_RANDOM = {"rand", "randn"}  # the two libraries' streams agree; NumPy has no column


def _values(result):
    result = result[0] if isinstance(result, tuple) else result
    if isinstance(result, (leafgrad.Tensor, torch.Tensor)):
        return result.detach().numpy()
    return np.asarray(result)


def test_every_case_computes_the_same_values():
    data = bench._data()
    for name, (_, fn, numpy_fn) in bench.OPS.items():
        seen = []
        for lib in (leafgrad, torch):
            if name in _RANDOM:
                lib.manual_seed(0)
            seen.append(_values(fn(lib, lib.nn.functional, bench._Tensors(lib, data, False))))
        if numpy_fn is not None:
            seen.append(_values(numpy_fn(data)))
        for other in seen[1:]:
            assert other.shape == seen[0].shape, name
            np.testing.assert_allclose(other, seen[0], rtol=1e-5, atol=1e-6, err_msg=name)


def test_quick_run(tmp_path):
    out_json = tmp_path / "bench.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, str(BENCH_DIR / "bench_ops.py"), "--quick", "--ops", "sum,mm,topk",
         "--json", str(out_json)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "geometric mean leafgrad/torch" in proc.stdout
    payload = json.loads(out_json.read_text())
    assert set(payload["cases"]) == {"sum/fwd", "mm/fwd", "topk/fwd", "sum/fwd+bwd",
                                     "mm/fwd+bwd"}
