"""benchmarks/bench_functional.py runs, and its three implementations compute the same Hessian
(so the ratios compare equal work). No timing is asserted."""

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

import bench_functional as bench  # noqa: E402

torch = require_torch()


@pytest.mark.parametrize("vectorize", (False, True))
def test_hessians_agree(vectorize):
    a, x = bench.data()
    expected = bench.hessian_numpy(a, x)
    for lib in (leafgrad, torch):
        got = bench.hessian_lib(lib, lib.tensor(a), lib.tensor(x), vectorize)
        assert tuple(got.shape) == (bench.SIZE, bench.SIZE)
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_quick_run(tmp_path):
    out_json = tmp_path / "bench.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, str(BENCH_DIR / "bench_functional.py"), "--quick", "--json",
         str(out_json)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "leafgrad/torch" in proc.stdout
    payload = json.loads(out_json.read_text())
    assert set(payload["cases"]) == {"hessian", "hessian_vec"}
