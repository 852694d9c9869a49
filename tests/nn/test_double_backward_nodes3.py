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
from ._double_backward_harness import Harness, assert_close as _assert_close, loss as _loss
from ._double_backward_harness import names as _names

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


TORCH_THIRD_DERIVATIVE_WRONG = set()  # (none of these ops: see ..._nodes2.py)


_HARNESS = Harness(CASES)
_arrays, _cast, _first, _run = (_HARNESS.arrays, _HARNESS.cast, _HARNESS.first,
                                  _HARNESS.run)


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
