"""What a create_graph backward records for more nn ops, against torch 2.13 (the cases of
test_double_backward_nodes.py's pattern, for the ops added after it).

group_norm: torch's create_graph backward is the composite
infinitely_differentiable_native_group_norm_backward (ViewBackward0 over AddBackward0 /
SumBackward1 nodes, no NativeGroupNormBackwardBackward0); instance_norm records batch norm's
NativeBatchNormBackwardBackward0 through its views; grid_sample one
GridSampler2DBackwardBackward0 node (edges grad_output, input, grid); kl_div a composite. For each op and every subset of its
differentiable inputs: the first derivatives' requires_grad, grad_fn and next_functions (two
levels), second and third derivatives equal torch's in float64 (and float32 within rounding),
gradgradcheck (float64) of the first derivatives, and an empty batch as torch's.
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
CASES = {
    "group_norm": (lambda lib, x, w, b: _F(lib).group_norm(x, 2, w, b),
                   (((2, 4, 3), A), ((4,), A), ((4,), A)), (0, 1, 2)),
    "group_norm_4d": (lambda lib, x, w, b: _F(lib).group_norm(x, 3, w, b, eps=1e-3),
                      (((2, 6, 2, 3), A), ((6,), A), ((6,), A)), (0, 1, 2)),
    "group_norm_no_affine": (lambda lib, x: _F(lib).group_norm(x, 2), (((3, 4, 5), A),), (0,)),
    "group_norm_one_group": (lambda lib, x, w: _F(lib).group_norm(x, 1, w),
                             (((2, 3, 4), A), ((3,), A)), (0, 1)),
    "group_norm_per_channel": (lambda lib, x: _F(lib).group_norm(x, 3),
                               (((2, 3, 4), A),), (0,)),
    "group_norm_2d_input": (lambda lib, x, w, b: _F(lib).group_norm(x, 2, w, b),
                            (((3, 8), A), ((8,), A), ((8,), A)), (0, 1, 2)),
    "group_norm_module": (lambda lib, x: _seeded_module(lib, "GroupNorm", 2, 4).to(x.dtype)(x),
                          (((2, 4, 3), A),), (0,)),
    "instance_norm": (lambda lib, x, w, b: _F(lib).instance_norm(x, weight=w, bias=b),
                      (((2, 3, 4), A), ((3,), A), ((3,), A)), (0, 1, 2)),
    "instance_norm_no_affine": (lambda lib, x: _F(lib).instance_norm(x),
                                (((2, 3, 2, 2), A),), (0,)),
    "instance_norm_running": (lambda lib, x: _F(lib).instance_norm(
        x, lib.zeros(3, dtype=x.dtype), lib.ones(3, dtype=x.dtype), use_input_stats=True),
        (((2, 3, 4), A),), (0,)),
    "grid_sample": (lambda lib, x, g: _F(lib).grid_sample(x, g * 1.3, align_corners=False),
                    (((2, 2, 3, 4), A), ((2, 3, 2, 2), U)), (0, 1)),
    "grid_sample_border": (lambda lib, x, g: _F(lib).grid_sample(
        x, g * 1.3, padding_mode="border", align_corners=True),
        (((1, 2, 4, 3), A), ((1, 2, 3, 2), U)), (0, 1)),
    "grid_sample_reflection": (lambda lib, x, g: _F(lib).grid_sample(
        x, g * 1.3, padding_mode="reflection", align_corners=False),
        (((1, 1, 3, 3), A), ((1, 4, 2, 2), U)), (0, 1)),
    "grid_sample_nearest": (lambda lib, x, g: _F(lib).grid_sample(
        x, g * 1.3, mode="nearest", align_corners=True),
        (((1, 2, 3, 4), A), ((1, 2, 3, 2), U)), (0, 1)),
    "kl_div_batchmean": (lambda lib, x, t: _F(lib).kl_div(x, t, reduction="batchmean"),
                         (((3, 4), A), ((3, 4), U)), (0, 1)),
    "kl_div_log_target": (lambda lib, x, t: _F(lib).kl_div(x, t, reduction="sum",
                                                           log_target=True),
                          (((3, 4), A), ((3, 4), A)), (0, 1)),
    "kl_div_none": (lambda lib, x, t: _F(lib).kl_div(x, t, reduction="none"),
                    (((3, 4), A), ((3, 4), U)), (0, 1)),
}


# instance_norm's create_graph backward is batch norm's NativeBatchNormBackwardBackward0, whose
# third derivative in torch disagrees with finite differences (test_double_backward_nodes.py:
# TORCH_THIRD_DERIVATIVE_WRONG); leafgrad's passes gradgradcheck below
TORCH_THIRD_DERIVATIVE_WRONG = {"instance_norm", "instance_norm_no_affine",
                                "instance_norm_running"}


def _seeded_module(lib, name, *args):
    module = getattr(lib.nn, name)(*args).double()
    with lib.no_grad():
        for i, parameter in enumerate(module.parameters()):
            parameter.copy_(lib.tensor(np.linspace(-1, 1, parameter.numel()) + i,
                                       dtype=lib.float64).reshape(parameter.shape))
    return module


_HARNESS = Harness(CASES)
_arrays, _cast, _first, _run = (_HARNESS.arrays, _HARNESS.cast, _HARNESS.first,
                                  _HARNESS.run)


def _subsets(name):
    indices = CASES[name][2]
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
    assert got.get("error") == want.get("error")  # (the harness records a second's error)
    for key in ("first", "second", "third"):
        if key in want and not (key == "third" and name in TORCH_THIRD_DERIVATIVE_WRONG):
            _assert_close(got[key], want[key], 1e-7, 1e-9)


@pytest.mark.parametrize("name", list(CASES))
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


@pytest.mark.parametrize("name", list(CASES))
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


EMPTY = {
    "group_norm": (lambda lib, x, w, b: _F(lib).group_norm(x, 2, w, b), ((0, 4, 3), (4,), (4,))),
    "group_norm_no_spatial": (lambda lib, x, w: _F(lib).group_norm(x, 2, w), ((2, 4, 0), (4,))),
}


def _run_empty(lib, name):
    call, shapes = EMPTY[name]
    tensors = [lib.ones(shape, dtype=lib.float64, requires_grad=True) for shape in shapes]
    try:
        out = call(lib, *tensors)
        firsts = lib.autograd.grad(_loss(out), tensors, create_graph=True)
        nodes = [_names(g.grad_fn) for g in firsts]
        seconds = lib.autograd.grad(sum(g.sum() for g in firsts), tensors, allow_unused=True)
    except RuntimeError as error:
        return type(error).__name__, str(error).splitlines()[0]
    return (nodes, [tuple(g.shape) for g in firsts],
            [None if s is None else (tuple(s.shape), repr(float(s.sum()))) for s in seconds])


@pytest.mark.parametrize("name", list(EMPTY))
def test_empty_batch_matches_torch(name):
    assert _run_empty(lg, name) == _run_empty(torch, name)


def test_plain_group_norm_backward_unchanged_by_create_graph():
    """Without create_graph the group_norm backward records nothing; its values equal the
    create_graph composite's (within rounding: torch's two paths round differently too)."""
    arrays = _arrays("group_norm")
    values = []
    for create in (False, True):
        x, w, b = (lg.tensor(a, requires_grad=True) for a in arrays)
        grads = lg.autograd.grad(_loss(_F(lg).group_norm(x, 2, w, b)), (x, w, b),
                                 create_graph=create)
        assert all(g.requires_grad == create for g in grads)
        values.append([g.detach().numpy() for g in grads])
    for plain, recorded in zip(*values):
        np.testing.assert_allclose(plain, recorded, rtol=1e-5, atol=1e-5)


def _bias_only_group_norm(lib, weight):
    x = lib.tensor(_arrays("group_norm")[0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.3, -0.2, 0.5, 0.1], dtype=lib.float64, requires_grad=True)
    w = None if weight is None else lib.tensor(weight, dtype=lib.float64)
    out = _F(lib).group_norm(x, 2, w, b)
    firsts = lib.autograd.grad(_loss(out), (x, b), create_graph=True)
    seconds = lib.autograd.grad(sum((g * g).sum() for g in firsts), (x, b), allow_unused=True)
    return [_names(g.grad_fn) for g in firsts], [None if s is None else s.numpy()
                                                 for s in seconds]


def test_group_norm_bias_without_weight_does_better_than_torch():
    """torch's composite reshapes the bias's gradient as the missing weight: its create_graph
    backward raises "shape '[0]' is invalid for input of size 4" (a crash no user wants, so
    leafgrad gives the gradient). The values are torch's with an explicit weight of ones."""
    with pytest.raises(RuntimeError, match=r"shape '\[0\]' is invalid"):
        _bias_only_group_norm(torch, None)
    got = _bias_only_group_norm(lg, None)
    want = _bias_only_group_norm(torch, [1.0, 1.0, 1.0, 1.0])
    assert got[0] == want[0]
    _assert_close(got[1], want[1], 1e-7, 1e-9)
