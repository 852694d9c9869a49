"""Walk the op table in forward mode: every sample's JVP, with random tangents on every input,
equals the reverse-mode Jacobian (leafgrad's own autograd) applied to those tangents, and
equals torch 2.13's forward-mode result on the same inputs.

The samples are the reverse-mode table's (tests/ops/samples*.py), so an op without a jvp
formula fails here (its sample reaches the op inside a dual level), and coverage cannot lag.
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
import leafgrad.autograd.forward_ad as fwAD
from leafgrad.ops import OPS

from .._torch import require_torch
from .samples import SAMPLES
from .test_op_table import CASES, _inputs

torch = require_torch()


# Ops torch 2.13 has no forward-mode formula for (its samples raise torch's "Trying to use
# forward AD with ... that does not support it"); leafgrad has one, checked against its own
# reverse mode only.
BEYOND_TORCH = {"MultiMarginLoss", "WeightNormInterface"}


def test_every_differentiable_op_has_a_jvp_formula():
    missing = [name for name, cls in OPS.items() if cls.differentiable and
               getattr(cls, "jvp", None) is None]
    assert missing == [], f"ops without a forward-mode formula: {missing}"


def _tangents(name: str, index: int, inputs) -> list:
    rng = np.random.default_rng(abs(hash((name, index, "tangent"))) % 2**32)
    return [rng.normal(size=tuple(x.shape)) for x in inputs]


def _jvp(lib, sample, inputs, tangents):
    """(primal, tangent) of the sample's output with dual inputs, in ``lib``'s forward mode."""
    forward_ad = lib.autograd.forward_ad
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x, lib.tensor(t, dtype=lib.float64))
                 for x, t in zip(inputs, tangents)]
        out = sample.call(lib, *duals)
        primal, tangent = forward_ad.unpack_dual(out)
        return primal.detach().numpy().copy(), (
            None if tangent is None else tangent.detach().numpy(force=True).copy())


def _reverse_jvp(out, inputs, tangents) -> np.ndarray:
    """The Jacobian of ``out`` with respect to ``inputs``, row by row with autograd.grad,
    applied to ``tangents``."""
    flat = out.reshape(-1)
    jvp = np.zeros(flat.shape[0])
    for row in range(flat.shape[0]):
        grads = leafgrad.autograd.grad(flat[row], inputs, retain_graph=True, allow_unused=True)
        jvp[row] = sum(float((g.numpy() * t).sum()) for g, t in zip(grads, tangents)
                       if g is not None)
    return jvp.reshape(tuple(out.shape))


@pytest.mark.parametrize("name,index", CASES)
def test_jvp_matches_reverse_mode_and_torch(name, index):
    sample, ours, theirs = _inputs(name, index)
    tangents = _tangents(name, index, ours)
    primal, jvp = _jvp(leafgrad, sample, ours, tangents)
    out = sample.call(leafgrad, *ours)
    np.testing.assert_allclose(primal, out.detach().numpy(), rtol=1e-12, atol=1e-12)
    try:
        _, torch_jvp = _jvp(torch, sample, theirs, tangents)
    except NotImplementedError as error:
        assert name in BEYOND_TORCH, error
        assert "Trying to use forward AD with" in str(error)
        assert out.requires_grad and jvp is not None
        reverse = _reverse_jvp(out, ours, tangents)
        np.testing.assert_allclose(jvp, reverse, rtol=1e-9, atol=1e-10)
        return
    assert name not in BEYOND_TORCH, "torch supports it now: compare with torch"
    if not out.requires_grad:
        assert jvp is None and torch_jvp is None
        return
    assert (jvp is None) == (torch_jvp is None), (jvp, torch_jvp)
    if jvp is None:
        return
    # a sample may leave float64 (a cast to float32 keeps float32's precision; its gradcheck
    # options say how much)
    rtol, atol = (1e-9, 1e-10) if jvp.dtype == np.float64 else (1e-5, 1e-6)
    rtol = max(rtol, sample.check_options.get("rtol", 0))
    atol = max(atol, sample.check_options.get("atol", 0))
    np.testing.assert_allclose(jvp, torch_jvp, rtol=rtol, atol=atol,
                               err_msg="forward mode differs from torch's")
    # Where torch's forward mode itself makes a nan (0/0 over an empty dim, where reverse mode
    # gives 0) only torch is the reference.
    if sample.finite_differences and not np.isnan(torch_jvp).any():
        reverse = _reverse_jvp(out, ours, tangents)
        np.testing.assert_allclose(jvp, reverse, rtol=rtol, atol=atol,
                                   err_msg="forward mode differs from reverse mode")
