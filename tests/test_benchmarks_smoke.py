"""benchmarks/bench_core.py runs, and its three implementations compute the same numbers.

No timing is asserted. The agreement tests are what make the NumPy baseline honest: the
hand-written forward/backward must produce torch's loss and gradients, so a ratio against it
compares equal work.
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
sys.path.insert(0, str(BENCH_DIR))  # bench_core imports its sibling _harness by plain name

import bench_core  # noqa: E402

torch = require_torch()

RTOL, ATOL = 1e-4, 1e-6  # float32; observed differences are ~1e-7 relative


def test_quick_run_prints_ratios_and_writes_json(tmp_path):
    out_json = tmp_path / "bench.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, str(BENCH_DIR / "bench_core.py"), "--quick", "--json", str(out_json)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "leafgrad/torch" in text and "leafgrad/numpy" in text
    for label in ("chain fwd+bwd, 1 elem", "chain fwd+bwd, 64 elem", "mlp step, batch 32",
                  "mlp step, batch 512"):
        # every case gets a table row with two numeric ratios
        assert re.search(re.escape(label) + r".*\d\.\d\dx\s+\d+\.\d\dx\s*$", text, re.M), label
    verdicts = re.findall(r"target <= [\d.]+x\s+(PASS|MISS)$", text, re.M)
    assert len(verdicts) == len(bench_core.TARGETS)

    payload = json.loads(out_json.read_text())
    assert set(payload["cases"]) == {"chain1", "chain64", "mlp32", "mlp512"}
    for case in payload["cases"].values():
        for impl in ("leafgrad", "torch", "numpy"):
            assert case["timings"][impl]["median_s"] > 0
    assert [v["verdict"] in ("PASS", "MISS") for v in payload["targets"]] == [True] * 3


@pytest.mark.parametrize("size", bench_core.CHAIN_SIZES)
def test_chain_implementations_agree(size):
    start = bench_core.chain_input(size)
    n_ops = 200
    total_np, grad_np = bench_core.chain_numpy(start, n_ops)
    for lib in (torch, leafgrad):
        leaf = lib.tensor(start, requires_grad=True)
        total = bench_core.chain_lib(lib, leaf, n_ops)
        np.testing.assert_allclose(total.item(), total_np, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(leaf.grad.numpy(), grad_np, rtol=RTOL, atol=ATOL)
        assert leaf.grad.numpy().dtype == grad_np.dtype == np.float32
    # a second call resets .grad rather than accumulating, so every timed call does equal work
    again = torch.tensor(start, requires_grad=True)
    bench_core.chain_lib(torch, again, n_ops)
    bench_core.chain_lib(torch, again, n_ops)
    np.testing.assert_allclose(again.grad.numpy(), grad_np, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("batch", [32])
def test_mlp_step_implementations_agree(batch):
    x, onehot, params = bench_core.mlp_data(batch)
    numpy_params = [p.copy() for p in params]
    loss_np, grads_np = bench_core.mlp_step_numpy(x, onehot, numpy_params)
    assert np.isfinite(loss_np)
    for lib in (torch, leafgrad):
        lib_params = [lib.tensor(p, requires_grad=True) for p in params]
        loss, grads = bench_core.mlp_step_lib(lib, lib.tensor(x), lib.tensor(onehot), lib_params)
        np.testing.assert_allclose(loss.item(), loss_np, rtol=RTOL, atol=ATOL)
        for grad, grad_np in zip(grads, grads_np):
            assert grad.shape == grad_np.shape
            np.testing.assert_allclose(grad.numpy(), grad_np, rtol=RTOL, atol=ATOL)
        # the SGD update happened, identically, and .grad was reset for the next step
        for p, p_np in zip(lib_params, numpy_params):
            np.testing.assert_allclose(p.detach().numpy(), p_np, rtol=RTOL, atol=ATOL)
            assert p.grad is None
    # not a vacuous update: the parameters moved away from their init
    assert not np.allclose(numpy_params[0], params[0], rtol=0, atol=0)
