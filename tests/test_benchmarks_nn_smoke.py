"""benchmarks/bench_nn.py runs, and its implementations compute the same numbers.

No timing is asserted. The agreement tests make the ratios honest: leafgrad, torch and the
hand-written NumPy baseline must produce the same loss, gradients and SGD update for one CNN
step and the same cross-entropy loss, logits gradient and softmax, so each timed call is the
same work.
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
sys.path.insert(0, str(BENCH_DIR))  # bench_nn imports its sibling _harness by plain name

import bench_nn  # noqa: E402

torch = require_torch()

RTOL, ATOL = 1e-4, 1e-6  # float32; observed differences are ~1e-6 relative or less

LIBS = pytest.mark.parametrize("lib", [torch, leafgrad], ids=["torch", "leafgrad"])


def test_quick_run_prints_ratios_and_writes_json(tmp_path):
    out_json = tmp_path / "bench_nn.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, str(BENCH_DIR / "bench_nn.py"), "--quick", "--json", str(out_json)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "leafgrad/torch" in text and "leafgrad/numpy" in text
    for label in ("cnn step, batch 64", "cross_entropy fwd+bwd 512x1000", "softmax fwd 512x1000"):
        # every case gets a table row with two numeric ratios
        assert re.search(re.escape(label) + r".*\d\.\d\dx\s+\d+\.\d\dx\s*$", text, re.M), label
    verdict_line = r"leafgrad/torch\s+\d+\.\d\dx.*target <= 2\.0x\s+(PASS|MISS)$"
    verdicts = re.findall(verdict_line, text, re.M)
    assert len(verdicts) == len(bench_nn.TARGETS) == 2

    payload = json.loads(out_json.read_text())
    assert set(payload["cases"]) == set(bench_nn.CASE_KEYS)
    for case in payload["cases"].values():
        for impl in ("leafgrad", "torch", "numpy"):
            assert case["timings"][impl]["median_s"] > 0
    assert [v["verdict"] for v in payload["targets"]] == verdicts


def test_unknown_case_is_rejected():
    assert bench_nn.main(["--cases", "nope"]) == 2


def test_cnn_shapes_follow_padding():
    # conv padding 1 keeps 8x8, the pool halves it, conv2 keeps 4x4: the linear layer sees 256
    x, labels, params = bench_nn.cnn_data()
    assert x.shape == (64, 1, 8, 8) and x.dtype == np.float32
    assert labels.dtype == np.int64 and labels.min() >= 0 and labels.max() < 10
    assert params[4].shape == (10, 16 * 4 * 4) == (10, bench_nn.FLAT)
    assert all(p.dtype == np.float32 for p in params)


@LIBS
def test_cnn_step_agrees_with_numpy_baseline(lib):
    x, labels, params = bench_nn.cnn_data()
    numpy_params = [p.copy() for p in params]
    loss_np, grads_np = bench_nn.cnn_step_numpy(x, labels, numpy_params)
    assert np.isfinite(loss_np)

    F, SGD = bench_nn.lib_parts(lib)
    lib_params = [lib.tensor(p, requires_grad=True) for p in params]
    optimizer = SGD(lib_params, lr=bench_nn.LEARNING_RATE)
    loss, grads = bench_nn.cnn_step_lib(F, optimizer, lib.tensor(x), lib.tensor(labels), lib_params)
    np.testing.assert_allclose(loss.item(), loss_np, rtol=RTOL, atol=ATOL)
    for grad, grad_np in zip(grads, grads_np):
        assert tuple(grad.shape) == grad_np.shape
        assert grad.dtype == lib.float32 and grad_np.dtype == np.float32
        # scale atol to the gradient: max-pool routing makes some entries exactly 0
        atol = ATOL * max(1.0, float(np.abs(grad_np).max()))
        np.testing.assert_allclose(grad.numpy(), grad_np, rtol=RTOL, atol=atol)
    # the SGD step moved the parameters, identically
    for p, p_np, p0 in zip(lib_params, numpy_params, params):
        np.testing.assert_allclose(p.detach().numpy(), p_np, rtol=RTOL, atol=ATOL)
        assert not np.array_equal(p_np, p0)


def test_cnn_step_leafgrad_matches_torch_over_two_steps():
    # direct differential check, including that zero_grad stops accumulation on step two
    x, labels, params = bench_nn.cnn_data()
    runs = {}
    for lib in (torch, leafgrad):
        F, SGD = bench_nn.lib_parts(lib)
        lib_params = [lib.tensor(p, requires_grad=True) for p in params]
        optimizer = SGD(lib_params, lr=bench_nn.LEARNING_RATE)
        args = (F, optimizer, lib.tensor(x), lib.tensor(labels), lib_params)
        bench_nn.cnn_step_lib(*args)
        loss, grads = bench_nn.cnn_step_lib(*args)
        runs[lib.__name__] = (loss.item(), [g.numpy().copy() for g in grads],
                              [p.detach().numpy().copy() for p in lib_params])
    (loss_t, grads_t, params_t), (loss_l, grads_l, params_l) = runs["torch"], runs["leafgrad"]
    np.testing.assert_allclose(loss_l, loss_t, rtol=RTOL, atol=ATOL)
    for got, want in zip(grads_l + params_l, grads_t + params_t):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL * max(1.0, np.abs(want).max()))


@LIBS
def test_cross_entropy_and_softmax_agree(lib):
    logits_np, targets_np = bench_nn.ce_data()
    loss_np, grad_np = bench_nn.cross_entropy_numpy(logits_np, targets_np)
    F, _ = bench_nn.lib_parts(lib)
    logits = lib.tensor(logits_np, requires_grad=True)
    targets = lib.tensor(targets_np)
    for _ in range(2):  # the second call resets .grad instead of accumulating
        loss = bench_nn.ce_step_lib(F, logits, targets)
    np.testing.assert_allclose(loss.item(), loss_np, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(logits.grad.numpy(), grad_np, rtol=RTOL, atol=ATOL)
    probs = bench_nn.softmax_lib(F, logits)
    assert probs.requires_grad  # the timed softmax records its node, as in training
    np.testing.assert_allclose(
        probs.detach().numpy(), bench_nn.softmax_numpy(logits_np), rtol=RTOL, atol=ATOL
    )


def test_cross_entropy_leafgrad_matches_torch():
    logits_np, targets_np = bench_nn.ce_data()
    results = []
    for lib in (torch, leafgrad):
        F, _ = bench_nn.lib_parts(lib)
        logits = lib.tensor(logits_np, requires_grad=True)
        loss = bench_nn.ce_step_lib(F, logits, lib.tensor(targets_np))
        probs = F.softmax(logits, dim=1).detach().numpy()
        results.append((loss.item(), logits.grad.numpy(), probs))
    (loss_t, grad_t, probs_t), (loss_l, grad_l, probs_l) = results
    np.testing.assert_allclose(loss_l, loss_t, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(grad_l, grad_t, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(probs_l, probs_t, rtol=RTOL, atol=ATOL)
