"""Differences from torch 2.13 found by the left3 helper, each with torch as the reference.

- The gradients of hardtanh/relu6, hardshrink/softshrink, hardswish and elu/selu/celu at a NaN
  input: torch's scalar and vectorised ops disagree there, so the value depends on where the
  element falls in TensorIterator's runs (float32 and float64, sizes 1..70, every layout).
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _F(lib):
    return lib.nn.functional


NAN_ACTIVATIONS = {
    "hardtanh": lambda lib, x: _F(lib).hardtanh(x),
    "hardtanh_bounds": lambda lib, x: _F(lib).hardtanh(x, -2.0, 3.0),
    "relu6": lambda lib, x: _F(lib).relu6(x),
    "hardshrink": lambda lib, x: _F(lib).hardshrink(x, 0.3),
    "softshrink": lambda lib, x: _F(lib).softshrink(x),
    "hardswish": lambda lib, x: _F(lib).hardswish(x),
    "elu": lambda lib, x: _F(lib).elu(x),
    "selu": lambda lib, x: _F(lib).selu(x),
    "celu": lambda lib, x: _F(lib).celu(x, 0.7),
    "hardtanh_method_clamp": lambda lib, x: _F(lib).hardtanh(x, -1.0, 1.0),
}


def _nan_grads(lib, name, dtype, n):
    """x.grad at the NaN for a NaN at the first, middle and last place of a size-n input."""
    values = []
    for place in sorted({0, n // 2, n - 1}):
        data = np.linspace(-4, 4, n)
        data[place] = np.nan
        x = lib.tensor(data, dtype=dtype, requires_grad=True)
        out = NAN_ACTIVATIONS[name](lib, x)
        out.backward(lib.ones_like(out))
        values.append(float(x.grad[place]))
    return values


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(NAN_ACTIVATIONS))
def test_nan_gradient_by_position_matches_torch(name, dtype):
    got = [v for n in range(1, 71) for v in _nan_grads(lg, name, getattr(lg, dtype), n)]
    want = [v for n in range(1, 71) for v in _nan_grads(torch, name, getattr(torch, dtype), n)]
    np.testing.assert_array_equal(np.array(got), np.array(want))


def _layout(lib, data, dtype, layout):
    if layout == "contiguous":
        return lib.tensor(data, dtype=dtype)
    if layout == "transposed":
        return lib.tensor(data.T.copy(), dtype=dtype).t()
    if layout == "strided":
        return lib.tensor(np.repeat(data, 2, 1), dtype=dtype)[:, ::2]
    if layout == "permuted":
        return lib.tensor(data.reshape(9, 7, 1).transpose(1, 0, 2).copy(),
                          dtype=dtype).permute(1, 0, 2).reshape(9, 7)
    if layout == "expanded_row":
        return lib.tensor(data[:1], dtype=dtype).expand(9, 7)
    raise AssertionError(layout)


def _layout_grads(lib, name, dtype, layout, incoming, create_graph=False):
    rng = np.random.default_rng(5)
    data = rng.standard_normal((9, 7)) * 3
    data[rng.random((9, 7)) < 0.3] = np.nan
    x = _layout(lib, data, dtype, layout).detach().requires_grad_(True)
    out = NAN_ACTIVATIONS[name](lib, x)
    if incoming == "sum":  # an expanded gradient (stride 0)
        grad = lib.ones((), dtype=dtype).expand(9, 7)
    elif incoming == "ones":
        grad = lib.ones_like(out)
    else:  # a transposed gradient
        grad = lib.ones(7, 9, dtype=dtype).t()
    if create_graph:
        grad = grad.detach().requires_grad_(True)
    result, = lib.autograd.grad(out, x, grad, create_graph=create_graph)
    return result.detach().numpy()


@pytest.mark.parametrize("incoming", ["sum", "ones", "transposed"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "permuted",
                                    "expanded_row"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["hardtanh", "hardshrink", "softshrink", "hardswish", "elu",
                                  "selu"])
def test_nan_gradient_by_layout_matches_torch(name, dtype, layout, incoming):
    got = _layout_grads(lg, name, getattr(lg, dtype), layout, incoming)
    want = _layout_grads(torch, name, getattr(torch, dtype), layout, incoming)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["hardtanh", "hardshrink", "hardswish", "elu"])
def test_nan_gradient_under_create_graph_matches_torch(name):
    got = _layout_grads(lg, name, lg.float32, "contiguous", "ones", create_graph=True)
    want = _layout_grads(torch, name, torch.float32, "contiguous", "ones", create_graph=True)
    np.testing.assert_array_equal(got, want)
