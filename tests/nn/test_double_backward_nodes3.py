"""What a create_graph backward records for scaled_dot_product_attention (torch's CPU math
path: MulBackward1 scalings of q and k^T, SafeSoftmaxBackward0), soft_margin_loss (one
SoftMarginLossBackwardBackward0 node), multi_margin_loss (a NotImplemented node whose backward
raises torch's error) and bilinear (TrilinearBackward0 all the way down), against torch 2.13,
in the pattern of test_double_backward_nodes2.py: for every subset of the differentiable inputs,
the first derivatives' requires_grad, grad_fn and next_functions (two levels), second and third
derivatives equal torch's in float64 (and float32 within rounding), gradgradcheck (float64).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.autograd import gradgradcheck
from tests._torch import require_torch

torch = require_torch()


def _F(lib):
    return lib.nn.functional


A, U = "any", "unit"
MASK_BOOL = np.array([[True, False, True, True], [True, True, False, True],
                      [False, True, True, True]])
MASK_FLOAT = np.linspace(-1.0, 0.5, 12).reshape(3, 4)
TARGETS = np.array([1, 0, 3])


def _sdpa(lib, q, k, v, **kwargs):
    for key in ("attn_mask",):
        if isinstance(kwargs.get(key), np.ndarray):
            mask = kwargs[key]
            kwargs[key] = lib.tensor(mask) if mask.dtype == bool else lib.tensor(mask, dtype=q.dtype)
    return _F(lib).scaled_dot_product_attention(q, k, v, **kwargs)


CASES = {
    "sdpa_3d": (lambda lib, q, k, v: _sdpa(lib, q, k, v),
                (((2, 3, 5), A), ((2, 4, 5), A), ((2, 4, 2), A)), (0, 1, 2)),
    "sdpa_4d": (lambda lib, q, k, v: _sdpa(lib, q, k, v),
                (((1, 2, 3, 5), A), ((1, 2, 4, 5), A), ((1, 2, 4, 2), A)), (0, 1, 2)),
    "sdpa_bool_mask": (lambda lib, q, k, v: _sdpa(lib, q, k, v, attn_mask=MASK_BOOL),
                       (((2, 3, 5), A), ((2, 4, 5), A), ((2, 4, 2), A)), (0, 1, 2)),
    "sdpa_float_mask_4d": (lambda lib, q, k, v: _sdpa(lib, q, k, v, attn_mask=MASK_FLOAT),
                           (((1, 2, 3, 5), A), ((1, 2, 4, 5), A), ((1, 2, 4, 2), A)), (0, 1, 2)),
    "sdpa_causal": (lambda lib, q, k, v: _sdpa(lib, q, k, v, is_causal=True),
                    (((2, 3, 5), A), ((2, 4, 5), A), ((2, 4, 2), A)), (0, 1, 2)),
    "sdpa_dropout0_scale": (lambda lib, q, k, v: _sdpa(lib, q, k, v, dropout_p=0.0, scale=0.3),
                            (((1, 2, 3, 5), A), ((1, 2, 4, 5), A), ((1, 2, 4, 2), A)),
                            (0, 1, 2)),
    # (the target cannot require grad: torch's "not differentiable with respect to argument")
    "sdpa_small_mask": (lambda lib, q, k, v: _sdpa(lib, q, k, v, attn_mask=MASK_BOOL[:2, :3]),
                        (((1, 2, 2), A), ((1, 3, 2), A), ((1, 3, 1), A)), (0, 1, 2)),
    "soft_margin_loss": (lambda lib, x, y: _F(lib).soft_margin_loss(x, y),
                         (((3, 4), A), ((3, 4), A)), (0,)),
    "soft_margin_loss_sum": (lambda lib, x, y: _F(lib).soft_margin_loss(x, y, reduction="sum"),
                             (((5,), A), ((5,), A)), (0,)),
    "soft_margin_loss_none": (lambda lib, x, y: _F(lib).soft_margin_loss(x, y.sign(),
                                                                         reduction="none"),
                              (((2, 3), A), ((2, 3), A)), (0,)),
    "multi_margin_loss": (lambda lib, x: _F(lib).multi_margin_loss(x, lib.tensor(TARGETS)),
                          (((3, 5), A),), (0,)),
    "multi_margin_loss_p2_weight": (lambda lib, x, w: _F(lib).multi_margin_loss(
        x, lib.tensor(TARGETS), p=2, margin=0.7, weight=w, reduction="sum"),
        (((3, 5), A), ((5,), U)), (0,)),
    "multi_margin_loss_none": (lambda lib, x: _F(lib).multi_margin_loss(
        x, lib.tensor(TARGETS), reduction="none"), (((3, 5), A),), (0,)),
    "multi_margin_loss_1d": (lambda lib, x: _F(lib).multi_margin_loss(x, lib.tensor(2)),
                             (((5,), A),), (0,)),
    "bilinear": (lambda lib, a, b, w, bias: _F(lib).bilinear(a, b, w, bias),
                 (((3, 2), A), ((3, 4), A), ((5, 2, 4), A), ((5,), A)), (0, 1, 2, 3)),
    "bilinear_no_bias": (lambda lib, a, b, w: _F(lib).bilinear(a, b, w),
                         (((2, 1, 2), A), ((2, 1, 3), A), ((2, 2, 3), A)), (0, 1, 2)),
}


# instance_norm's create_graph backward is batch norm's NativeBatchNormBackwardBackward0, whose
# third derivative in torch disagrees with finite differences (test_double_backward_nodes.py:
# TORCH_THIRD_DERIVATIVE_WRONG); leafgrad's passes gradgradcheck below
TORCH_THIRD_DERIVATIVE_WRONG = set()


def _seeded_module(lib, name, *args):
    module = getattr(lib.nn, name)(*args).double()
    with lib.no_grad():
        for i, parameter in enumerate(module.parameters()):
            parameter.copy_(lib.tensor(np.linspace(-1, 1, parameter.numel()) + i,
                                       dtype=lib.float64).reshape(parameter.shape))
    return module


def _values(shape, domain, rng):
    if domain == U:
        return rng.uniform(0.1, 0.9, shape)
    return rng.standard_normal(shape)


def _arrays(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    return [_values(shape, domain, rng) for shape, domain in CASES[name][1]]


def _names(fn, depth=2):
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), tuple(_names(child, depth - 1) for child, _ in fn.next_functions))


def _loss(out):
    return (out * out).sum() + out.sum()


def _first(lib, name, tensors, subset):
    out = CASES[name][0](lib, *tensors)
    return lib.autograd.grad(_loss(out), [tensors[i] for i in subset], create_graph=True)


def _cast(lib, dtype, name):
    return [lib.tensor(a, dtype=dtype) for a in _arrays(name)]


def _run(lib, name, subset, dtype):
    tensors = [t.requires_grad_(i in subset) for i, t in enumerate(_cast(lib, dtype, name))]
    if name == "group_norm_module":  # the module's own float32 parameters
        tensors = [t.double() if dtype == lib.float64 else t for t in tensors]
    firsts = _first(lib, name, tensors, subset)
    record = {"first": [g.detach().numpy() for g in firsts],
              "requires_grad": [g.requires_grad for g in firsts],
              "nodes": [_names(g.grad_fn) for g in firsts]}
    rng = np.random.default_rng(7)
    total = None
    for g in firsts:
        if g.requires_grad:
            term = (g * lib.tensor(rng.standard_normal(tuple(g.shape)), dtype=dtype)).sum()
            total = term if total is None else total + term
    if total is None:
        return record
    try:
        seconds = lib.autograd.grad(total, [tensors[i] for i in subset], create_graph=True,
                                    allow_unused=True)
    except RuntimeError as error:  # torch has no derivative for some backward kernels
        record["error"] = str(error).splitlines()[0]
        return record
    record["second"] = [None if s is None else s.detach().numpy() for s in seconds]
    third_from = [s for s in seconds if s is not None and s.requires_grad]
    if third_from:
        third = lib.autograd.grad(sum((s * s).sum() for s in third_from),
                                  [tensors[i] for i in subset], allow_unused=True)
        record["third"] = [None if t is None else t.numpy() for t in third]
    return record


# every subset of inputs for one case per op (the variants change the forward, not which
# inputs the backward reaches); the others with all their inputs
EVERY_SUBSET = {"sdpa_3d", "bilinear", "multi_margin_loss_p2_weight"}


def _subsets(name):
    indices = CASES[name][2]
    if name not in EVERY_SUBSET:
        return [indices]
    return [subset for k in range(1, len(indices) + 1)
            for subset in itertools.combinations(indices, k)]


PARAMS = [pytest.param(name, subset, id=f"{name}-{''.join(map(str, subset))}")
          for name in CASES for subset in _subsets(name)]


def _assert_close(got, want, rtol, atol):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name, subset", PARAMS)
def test_nodes_and_values_match_torch(name, subset):
    got = _run(lg, name, subset, lg.float64)
    want = _run(torch, name, subset, torch.float64)
    assert got["requires_grad"] == want["requires_grad"]
    assert got["nodes"] == want["nodes"]
    assert got.keys() == want.keys()
    assert got.get("error") == want.get("error")
    for key in ("first", "second", "third"):
        if key in want and not (key == "third" and name in TORCH_THIRD_DERIVATIVE_WRONG):
            _assert_close(got[key], want[key], 1e-7, 1e-9)


@pytest.mark.parametrize("name", ["sdpa_4d", "sdpa_bool_mask", "soft_margin_loss",
                                  "multi_margin_loss", "bilinear"])
def test_float32_values_match_torch(name):
    subset = CASES[name][2]
    got = _run(lg, name, subset, lg.float32)
    want = _run(torch, name, subset, torch.float32)
    assert got["nodes"] == want["nodes"]
    for key in ("first", "second", "third"):
        if key in want and not (key == "third" and name in TORCH_THIRD_DERIVATIVE_WRONG):
            largest = max((float(np.abs(w).max()) for w in want[key] if w is not None and w.size),
                          default=1.0)
            _assert_close(got[key], want[key], 2e-4, 2e-5 * max(1.0, largest))


# (finite differences of second derivatives are slow: one small case per op; multi_margin_loss
# has none, as torch)
GRADGRADCHECK = ["sdpa_small_mask", "soft_margin_loss", "soft_margin_loss_none",
                 "bilinear_no_bias"]


@pytest.mark.parametrize("name", GRADGRADCHECK)
def test_gradgradcheck_of_first_derivatives(name):
    """Second and third derivatives against finite differences (float64)."""
    subset = CASES[name][2]
    tensors = [t.requires_grad_(i in subset) for i, t in enumerate(_cast(lg, lg.float64, name))]

    def first(*inputs):
        full = list(tensors)
        for i, value in zip(subset, inputs):
            full[i] = value
        return tuple(_first(lg, name, full, subset))

    assert gradgradcheck(first, [tensors[i] for i in subset])
