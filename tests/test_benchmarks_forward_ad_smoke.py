"""benchmarks/bench_forward_ad.py runs, and its three implementations compute the same values
and tangents (so the ratios compare equal work). No timing is asserted."""

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

import bench_forward_ad as bench  # noqa: E402

torch = require_torch()


def _numpy(pair):
    return [np.asarray(t.detach().numpy() if hasattr(t, "detach") else t) for t in pair]


def test_chain_agrees():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, 5).astype(np.float32)
    v = rng.standard_normal(5).astype(np.float32)
    expected = bench.chain_numpy(x, v, 40)
    for lib in (leafgrad, torch):
        got = _numpy(bench.chain_lib(lib, lib.tensor(x), lib.tensor(v), 40))
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_mlp_jvp_agrees():
    x, v, params = bench.mlp_data()
    expected = bench.mlp_jvp_numpy(x, v, params)
    for lib in (leafgrad, torch):
        got = _numpy(bench.mlp_jvp_lib(lib, lib.tensor(x), lib.tensor(v),
                                       [lib.tensor(p) for p in params]))
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_hvp_agrees():
    a, x, v = bench.hvp_data()
    expected = bench.hvp_numpy(a, x, v)
    for lib in (leafgrad, torch):
        got = bench.hvp_lib(lib, lib.tensor(a), lib.tensor(x, requires_grad=True), lib.tensor(v))
        np.testing.assert_allclose(got.detach().numpy(), expected, rtol=1e-10, atol=1e-12)


def test_quick_run(tmp_path):
    out_json = tmp_path / "bench.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, str(BENCH_DIR / "bench_forward_ad.py"), "--quick", "--json",
         str(out_json)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "leafgrad/torch" in proc.stdout
    payload = json.loads(out_json.read_text())
    assert set(payload["cases"]) == {"chain1", "chain64", "jvp", "hvp"}
