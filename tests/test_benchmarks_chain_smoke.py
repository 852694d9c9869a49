"""benchmarks/bench_chain.py runs, and its three implementations compute the same numbers.

No timing is asserted. The agreement tests make the NumPy baseline honest: its hand-written
reverse pass must give torch's values and gradients, so a ratio against it compares equal work.
"""

from __future__ import annotations

import json
import os
import re
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

import bench_chain  # noqa: E402

torch = require_torch()


def test_quick_run_reports_every_target(tmp_path):
    out_json = tmp_path / "chain.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, str(BENCH_DIR / "bench_chain.py"), "--quick", "--json", str(out_json)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    for label in ("chain fwd+bwd, 1 elem", "chain fwd+bwd, 64 elem", "hessian by rows, n=64"):
        assert re.search(re.escape(label) + r".*\d\.\d\dx\s+\d+\.\d\dx\s*$", text, re.M), label
    assert re.search(r"^leafgrad .* MiB +\d+\.\d MiB$", text, re.M)
    assert re.search(r"^torch .* MiB +n/a$", text, re.M)
    verdicts = re.findall(r"target <= [\d.]+x\s+(PASS|MISS)$", text, re.M)
    assert len(verdicts) == 5  # chain1, chain64, hessian, big time, big memory
    payload = json.loads(out_json.read_text())
    assert set(payload["cases"]) == set(bench_chain.CASE_KEYS)
    for impl in ("leafgrad", "torch", "numpy"):
        big = payload["cases"]["big"][impl]
        assert big["total_s"] > 0 and big["rss"] >= 0


@pytest.mark.parametrize("size", bench_chain.CHAIN_SIZES)
def test_chain_implementations_agree(size):
    x, w, b = bench_chain.chain_data(size)
    total_np, *grads_np = bench_chain.chain_numpy(x, w, b, 200)
    for lib in (torch, leafgrad):
        leaves = [lib.tensor(v, requires_grad=True) for v in (x, w, b)]
        for _ in range(2):  # the second call resets .grad instead of accumulating
            total = bench_chain.chain_lib(lib, *leaves, 200)
        np.testing.assert_allclose(total.item(), total_np, rtol=1e-4, atol=1e-5)
        for leaf, grad_np in zip(leaves, grads_np):
            assert leaf.grad.numpy().dtype == grad_np.dtype == np.float32
            np.testing.assert_allclose(leaf.grad.numpy(), grad_np, rtol=1e-4, atol=1e-5)
    # not a vanishing chain: the leaves' gradients are far from zero
    assert np.abs(grads_np[1]).min() > 1e-2


def test_hessian_implementations_agree():
    a, x = bench_chain.hessian_data()
    expected = bench_chain.hessian_numpy(a, x)
    np.testing.assert_allclose(expected, expected.T, rtol=1e-12, atol=1e-12)
    for lib in (torch, leafgrad):
        got = bench_chain.hessian_lib(lib, lib.tensor(a), lib.tensor(x, requires_grad=True))
        np.testing.assert_allclose(got.detach().numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cpu_time", [False, True])
def test_big_child_measures_one_library(cpu_time):
    result = bench_chain.big_child("leafgrad", 400, traced=False, cpu_time=cpu_time)
    assert result["rss_peak_growth"] >= 0 and result["forward_s"] > 0
    assert result["total_s"] >= result["forward_s"]
    traced = bench_chain.big_child("leafgrad", 400, traced=True)
    assert traced["traced_peak"] > 0
