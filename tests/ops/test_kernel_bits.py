"""Array kernels rewritten for speed keep torch's exact bits, including -0., inf and NaN, eager
and compiled (relu's backward as threshold_backward, addmm's bias add)."""

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

SPECIAL = [0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 3e-39, -3e-39]


def _bits(array):
    return np.ascontiguousarray(array).tobytes()


def _grid(dtype):
    grads = np.array([SPECIAL] * len(SPECIAL), dtype)
    inputs = np.array([[value] * len(SPECIAL) for value in SPECIAL], dtype)
    return grads, inputs


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("threshold", [0, 0.5, -1.0, float("nan")])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "transposed"])
def test_threshold_backward_bits(dtype, threshold, layout):
    torch = require_torch()
    from leafgrad.ops.elementwise import ThresholdBackward

    grads, inputs = _grid(dtype)
    if layout == "strided":
        grads, inputs = grads[::2, 1:], inputs[::2, 1:]
    elif layout == "transposed":
        grads, inputs = grads.T, inputs.T
    expected = torch.ops.aten.threshold_backward(torch.tensor(grads), torch.tensor(inputs),
                                                 threshold).numpy()
    eager = ThresholdBackward.forward(None, grads, inputs, threshold)
    into = np.empty_like(grads)
    captured = ThresholdBackward.capture_kernel(grads, inputs, threshold, into)
    assert captured is into
    assert eager.dtype == expected.dtype and eager.shape == expected.shape
    assert _bits(eager) == _bits(expected)
    assert _bits(captured) == _bits(expected)


@pytest.mark.parametrize("grad_shape,input_shape", [((), ()), ((3, 1), (2,)), ((4,), (3, 4)),
                                                    ((2, 3), ()), ((0, 3), (0, 3))])
def test_threshold_backward_shapes(grad_shape, input_shape):
    torch = require_torch()
    from leafgrad.ops.elementwise import ThresholdBackward

    rng = np.random.default_rng(0)
    grads = rng.standard_normal(grad_shape).astype(np.float32)
    inputs = rng.standard_normal(input_shape).astype(np.float32)
    expected = torch.ops.aten.threshold_backward(torch.tensor(grads), torch.tensor(inputs),
                                                 0).numpy()
    ours = ThresholdBackward.forward(None, grads, inputs, 0)
    assert ours.shape == expected.shape and _bits(ours) == _bits(expected)


def _relu_grads(lib, compiled):
    x = lib.tensor(SPECIAL * 2, requires_grad=True)
    upstream = lib.tensor(SPECIAL + SPECIAL[::-1])

    def step(x, upstream):
        x.grad = None
        lib.relu(x * 1.0).backward(upstream)
        return x.grad

    fn = lib.compile(step) if compiled else step
    fn(x, upstream)
    return fn(x, upstream).detach().numpy()


@pytest.mark.parametrize("compiled", [False, True])
def test_relu_backward_special_gradients(compiled):
    torch = require_torch()
    assert _bits(_relu_grads(leafgrad, compiled)) == _bits(_relu_grads(torch, False))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "transposed", "short", "long"])
def test_relu_forward_bits(dtype, layout):
    """relu keeps -0. and NaN as torch does (x unless x < 0), whichever of its paths runs
    (np.maximum(0, x) where the import-time probe allowed it)."""
    torch = require_torch()
    values = np.array(SPECIAL * 30, dtype)
    if layout == "strided":
        values = values[::3]
    elif layout == "transposed":
        values = values[:270].reshape(27, 10).T
    elif layout == "short":
        values = values[1:4]
    elif layout == "long":
        values = np.concatenate([values, -values])
    expected = torch.relu(torch.tensor(values)).numpy()
    ours = leafgrad.relu(leafgrad.tensor(values)).numpy()
    assert _bits(ours) == _bits(expected)
    inplace = leafgrad.tensor(values)
    inplace.relu_()
    assert _bits(inplace.numpy()) == _bits(expected)
