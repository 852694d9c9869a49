"""Walk the op table in forward mode: every sample's JVP, with random tangents on every input,
equals the reverse-mode Jacobian (leafgrad's own autograd) applied to those tangents, and
equals torch 2.13's forward-mode result on the same inputs.

The samples are the reverse-mode table's (tests/ops/samples*.py), so an op without a jvp
formula fails here (its sample reaches the op inside a dual level), and coverage cannot lag.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import OPS

from .._torch import require_torch
from .samples import SAMPLES, values
from .test_op_table import CASES

torch = require_torch()


# Ops torch 2.13 has no forward-mode formula for (its samples raise torch's "Trying to use
# forward AD with ... that does not support it"); leafgrad has one, checked against its own
# reverse mode only.
BEYOND_TORCH = {"MultiMarginLoss", "WeightNormInterface", "MultilabelMarginLoss", "EmbeddingBag",
                "CtcLoss", "Cdist", "EuclideanDist", "Pdist", "Igamma", "Igammac",
                "SpecialZeta", "SpecialZetaScalarSelf", "RreluWithNoiseInplace", "GridSampler2d",
                "IndexReduce", "Cholesky", "HuberLossBackward", "ConvTbc",
                "GridSampler2dBackward", "SoftMarginLossBackward",
                "ScaledDotProductFlashAttentionForCpu", "PackPaddedSequence"}


# Samples whose tangent torch 2.13 leaves undefined without an error (scatter_reduce's prod);
# leafgrad's is checked against its own reverse mode.
TORCH_LEAVES_UNDEFINED = {"ScatterReduce-2", "ScatterReduce-3", "ScatterReduce-11"}


def test_every_differentiable_op_has_a_jvp_formula():
    missing = [name for name, cls in OPS.items() if cls.differentiable and
               getattr(cls, "jvp", None) is None]
    assert missing == [], f"ops without a forward-mode formula: {missing}"


def _seed(name: str, index: int) -> int:
    return zlib.crc32(f"{name}-{index}".encode())  # the same inputs in every run


def _inputs(name: str, index: int):
    sample = SAMPLES[name][index]
    rng = np.random.default_rng(_seed(name, index))
    arrays = [values(shape, domain, rng) for shape, domain in sample.shapes]
    ours = [leafgrad.tensor(a, dtype=leafgrad.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    return sample, ours, theirs


def _tangents(name: str, index: int, inputs) -> list:
    rng = np.random.default_rng(_seed(name, index) + 1)
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
    if torch_jvp is None and f"{name}-{index}" in TORCH_LEAVES_UNDEFINED:
        reverse = _reverse_jvp(out, ours, tangents)
        np.testing.assert_allclose(jvp, reverse, rtol=1e-9, atol=1e-10)
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


# -- second order ----------------------------------------------------------------------------------


def _reverse_over_forward(lib, sample, inputs, tangents, weights):
    """Gradients of <weights, JVP> with respect to the inputs and the tangents: the JVP is
    computed in forward mode with tangents that require grad, then differentiated in reverse."""
    forward_ad = lib.autograd.forward_ad
    tangent_leaves = [lib.tensor(t, dtype=lib.float64, requires_grad=True) for t in tangents]
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x, t) for x, t in zip(inputs, tangent_leaves)]
        out = sample.call(lib, *duals)
        jvp = forward_ad.unpack_dual(out).tangent
    if jvp is None or not jvp.requires_grad:
        return None
    total = (jvp * lib.tensor(weights, dtype=lib.float64)).sum()
    grads = lib.autograd.grad(total, list(inputs) + tangent_leaves, allow_unused=True)
    return [None if g is None else g.detach().numpy(force=True) for g in grads]


def _reverse_over_reverse(sample, inputs, tangents, weights):
    """The same gradients from reverse mode only: <weights, J t> = <J^T weights, t>."""
    out = sample.call(leafgrad, *inputs)
    vjp = leafgrad.autograd.grad(out, inputs, leafgrad.tensor(weights), create_graph=True,
                                 allow_unused=True)
    total = sum((g * leafgrad.tensor(t)).sum() for g, t in zip(vjp, tangents) if g is not None)
    if isinstance(total, leafgrad.Tensor) and total.requires_grad:
        grads = leafgrad.autograd.grad(total, inputs, allow_unused=True)
    else:  # a linear op: the vector-Jacobian product does not depend on the inputs
        grads = [None] * len(inputs)
    return [None if g is None else g.numpy() for g in grads] + [
        None if g is None else g.detach().numpy() for g in vjp]


def _vjp(lib, sample, inputs, weights):
    out = sample.call(lib, *inputs)
    return lib.autograd.grad(out, inputs, lib.tensor(weights, dtype=lib.float64),
                             allow_unused=True)


def _forward_over_reverse(lib, sample, inputs, tangents, weights):
    """Tangents of the vector-Jacobian product (weights^T J) when the inputs carry tangents:
    the backward pass runs on dual tensors (Hessian-vector products for a scalar loss)."""
    forward_ad = lib.autograd.forward_ad
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x, lib.tensor(t, dtype=lib.float64))
                 for x, t in zip(inputs, tangents)]
        result = []
        for g in _vjp(lib, sample, duals, weights):
            tangent = None if g is None else forward_ad.unpack_dual(g).tangent
            result.append(None if tangent is None else tangent.detach().numpy(force=True))
        return result


def _vjp_differences(sample, inputs, tangents, weights, step=1e-6):
    """The directional derivative of the vector-Jacobian product along the tangents, by
    central differences."""
    def at(sign):
        moved = [leafgrad.tensor(x.detach().numpy() + sign * step * t, requires_grad=True)
                 for x, t in zip(inputs, tangents)]
        return [None if g is None else g.numpy() for g in _vjp(leafgrad, sample, moved, weights)]

    after, before = at(1), at(-1)
    return [None if a is None else (a - b) / (2 * step) for a, b in zip(after, before)]


def _compare(ours, theirs, rtol, atol):
    for got, want in zip(ours, theirs):
        if want is None or got is None:  # a None gradient and a zero tensor mean the same
            for value in (got, want):
                if value is not None:
                    np.testing.assert_allclose(value, 0, atol=atol)
            continue
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def _agrees(ours, theirs, rtol, atol) -> bool:
    try:
        _compare(ours, theirs, rtol, atol)
    except AssertionError:
        return False
    return True


def _check_torch(case, kind, got, expected):
    """torch's second-order result equals ours, except where torch's own is off (it then
    differs from the reference ours was checked against); those cases are listed."""
    if expected is None:
        return
    if (case, kind) in TORCH_SECOND_ORDER_OFF:
        assert not _agrees(got, expected, 1e-8, 1e-9), f"torch agrees now: unlist {case}"
        return
    _compare(got, expected, 1e-8, 1e-9)


# Where torch's second-order result through forward mode is wrong (it differs from reverse-over-
# reverse and from finite differences, which leafgrad's agrees with): torch's formulas treat the
# saved statistics of native_batch_norm/layer_norm, and the LU factors of det/slogdet/solve, as
# constants when they are differentiated again; scatter_reduce(prod) has no defined tangent.
_OFF = {
    "reverse-over-forward": {"BatchNorm": (0, 1), "LayerNorm": (0, 1), "LinalgDet": (0, 1, 2, 3),
                             "BatchNormBackward": (0, 1), "LayerNormBackward": (0, 1),
                             "LinalgEigh": (2, 3), "LinalgSlogdet": (0, 1),
                             "LinalgSolveEx": (0, 1, 2, 3, 4, 5)},
    "forward-over-reverse": {"LinalgDet": (0, 1, 3), "LinalgSlogdet": (0, 1),
                             "BatchNormBackward": (0, 1), "LayerNormBackward": (0, 1),
                             "LinalgSolveEx": (0, 1, 2, 3, 4, 5),
                             # scatter_reduce's prod: torch's tangent of it is undefined
                             "ScatterReduce": (2, 3, 11)},
}
TORCH_SECOND_ORDER_OFF = {(f"{name}-{index}", kind) for kind, cases in _OFF.items()
                          for name, indices in cases.items() for index in indices}


SECOND_ORDER_CASES = [
    pytest.param(name, i, id=f"{name}-{i}")
    for name in sorted(OPS)
    for i, sample in enumerate(SAMPLES.get(name, []))
    if OPS[name].differentiable and sample.second_order and sample.finite_differences
]


@pytest.mark.parametrize("name,index", SECOND_ORDER_CASES)
def test_reverse_over_forward(name, index):
    """Backward through a JVP equals reverse-over-reverse, and torch where torch can do it
    (its own formulas for softmax, logsumexp, glu, hardsigmoid... are not differentiable
    again, or modify their saved values in place)."""
    sample, ours, theirs = _inputs(name, index)
    tangents = _tangents(name, index, ours)
    out = sample.call(leafgrad, *ours)
    if not out.requires_grad:
        return
    weights = np.random.default_rng(index + 7).normal(size=tuple(out.shape))
    got = _reverse_over_forward(leafgrad, sample, ours, tangents, weights)
    reference = _reverse_over_reverse(sample, ours, tangents, weights)
    if got is None:  # a tangent that does not depend on anything (a piecewise constant op)
        assert all(g is None or not np.any(g) for g in reference)
        return
    _compare(got, reference, 1e-8, 1e-9)
    try:
        expected = _reverse_over_forward(torch, sample, theirs, tangents, weights)
    except (RuntimeError, NotImplementedError):
        return
    _check_torch(f"{name}-{index}", "reverse-over-forward", got, expected)


@pytest.mark.parametrize("name,index", SECOND_ORDER_CASES)
def test_forward_over_reverse(name, index):
    """The tangent of a vector-Jacobian product computed on dual tensors equals its
    directional derivative (central differences), and torch's where torch can compute it."""
    sample, ours, theirs = _inputs(name, index)
    tangents = _tangents(name, index, ours)
    out = sample.call(leafgrad, *ours)
    if not out.requires_grad:
        return
    weights = np.random.default_rng(index + 7).normal(size=tuple(out.shape))
    got = _forward_over_reverse(leafgrad, sample, ours, tangents, weights)
    options = sample.check_options  # a sample leaving float64 needs a larger step
    differences = _vjp_differences(sample, ours, tangents, weights, options.get("eps", 1e-6))
    _compare(got, differences, max(1e-5, options.get("rtol", 0)),
             max(1e-6, options.get("atol", 0)))
    try:
        expected = _forward_over_reverse(torch, sample, theirs, tangents, weights)
    except (RuntimeError, NotImplementedError):
        return
    _check_torch(f"{name}-{index}", "forward-over-reverse", got, expected)
