"""Complex inputs for asin, acos, atan, asinh, acosh, atanh, log1p, expm1 and rsqrt against
torch 2.13: values (branch cuts, signed zeros, infinities), gradients with torch's conjugate
convention (acosh's complex formula is torch's (x+1)^-1/2 (x-1)^-1/2), gradcheck and
gradgradcheck in complex128. (Complex forward-mode AD is not built yet: README, Not yet.)"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch
from tests.ops._complex_support import assert_unary_gradients_match

torch = require_torch()

NAMES = ["asin", "acos", "atan", "asinh", "acosh", "atanh", "log1p", "expm1", "rsqrt"]
TOLERANCE = {np.complex64: (2e-5, 2e-6), np.complex128: (1e-12, 1e-13)}


def _points(dtype):
    rng = np.random.default_rng(3)
    z = (rng.standard_normal(40) + 1j * rng.standard_normal(40)) * 1.5
    cuts = [0j, 1 + 0j, -1 + 0j, 2 + 0j, -2 + 0j, 2 - 0j, complex(2, -0.0), complex(-2, -0.0),
            0.5j, -3j, complex(0.0, 2), complex(-0.0, 2), complex(0.0, -2), complex(-0.0, -2),
            complex(np.inf, 1), complex(1, np.inf), complex(np.nan, 1), complex(-np.inf, 0)]
    return np.concatenate([z, cuts]).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", NAMES)
def test_values_and_gradients(name, dtype):
    rtol, atol = TOLERANCE[dtype]
    z = _points(dtype)
    ours = getattr(leafgrad, name)(leafgrad.tensor(z)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(z)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)
    finite = z[:40]
    weights = (np.random.default_rng(4).standard_normal(40)
               + 1j * np.random.default_rng(5).standard_normal(40)).astype(dtype)
    assert_unary_gradients_match(torch, name, finite, weights, rtol, atol)


@pytest.mark.parametrize("name", NAMES)
def test_gradcheck_and_gradgradcheck(name):
    rng = np.random.default_rng(6)
    z = (rng.standard_normal(5) + 1j * rng.standard_normal(5)) * 0.6 + 0.2 + 0.3j
    x = leafgrad.tensor(z, dtype=leafgrad.complex128, requires_grad=True)
    function = getattr(leafgrad, name)
    assert leafgrad.autograd.gradcheck(function, (x,))
    assert leafgrad.autograd.gradgradcheck(function, (x,))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name,kwargs", [
    ("var", {}), ("std", {}), ("var", {"dim": 1}), ("std", {"dim": 0, "keepdim": True}),
    ("var", {"dim": 1, "correction": 0}), ("std", {"dim": (0, 1), "unbiased": False}),
    ("var_mean", {"dim": 1}), ("std_mean", {}), ("var", {"dim": 0, "correction": 3})])
def test_var_and_std_of_complex_tensors(name, kwargs, dtype):
    """The spread of complex values is real (float for cfloat) and its gradient is torch's
    var_backward, 2 / (n - correction) * grad * (x - mean); var_mean/std_mean keep a complex
    mean."""
    rtol, atol = TOLERANCE[dtype]
    rng = np.random.default_rng(7)
    z = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dtype)
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(z, requires_grad=True)
        out = getattr(lib, name)(x, **kwargs)
        spread = out[0] if isinstance(out, tuple) else out
        loss = spread.sum() + (out[1].abs().sum() if isinstance(out, tuple) else 0)
        loss.backward()
        results.append([o.detach().numpy() for o in (out if isinstance(out, tuple) else (out,))]
                       + [x.grad.numpy()])
    for ours, theirs in zip(*results):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=rtol * 10, atol=atol * 10, equal_nan=True)


def test_var_and_std_gradcheck_complex():
    rng = np.random.default_rng(8)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    x = leafgrad.tensor(z, dtype=leafgrad.complex128, requires_grad=True)
    assert leafgrad.autograd.gradcheck(lambda t: leafgrad.var(t, dim=1), (x,))
    assert leafgrad.autograd.gradgradcheck(lambda t: leafgrad.std(t, dim=0), (x,))
    assert leafgrad.autograd.gradcheck(lambda t: leafgrad.var_mean(t, dim=1), (x,))


@pytest.mark.parametrize("p", [1, 2, 3])
def test_normalize_of_complex_tensors(p):
    """F.normalize divides by the real norm of the moduli (torch's input.norm(p, dim)), not
    by the square root of z * z."""
    z = np.array([[1 + 2j, 3 - 1j, 0.5], [0.5j, 2 + 0j, -1 - 1j]])
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(z, requires_grad=True)
        y = lib.nn.functional.normalize(x, p=p, dim=1)
        (y.abs().sum() + y.real.sum()).backward()
        results.append((y.detach().numpy(), x.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 0.5), (3, 0, 2.0), (1.5, 1, 0.3)])
def test_renorm_of_complex_tensors(p, dim, maxnorm):
    """renorm scales by the real p-norm of the moduli; the gradient is torch's renorm_backward
    (the real part of sum(conj(self) * grad) through norm_backward, sgn for p = 1)."""
    rng = np.random.default_rng(9)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(z, requires_grad=True)
        y = lib.renorm(x, p, dim, maxnorm)
        (y.abs().sum() + y.real.sum()).backward()
        results.append((y.detach().numpy(), x.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)
    x = leafgrad.tensor(z * 0.3, requires_grad=True)
    assert leafgrad.autograd.gradcheck(lambda t: leafgrad.renorm(t, p, dim, 0.5), (x,))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("function,input_shape,weight_shape,kwargs", [
    ("conv1d", (2, 2, 7), (3, 2, 3), {"padding": 1}),
    ("conv2d", (2, 2, 5, 5), (3, 2, 3, 3), {}),
    ("conv2d", (1, 4, 6, 6), (4, 2, 3, 3), {"groups": 2, "stride": 2}),
    ("conv2d", (2, 5, 5), (3, 2, 3, 3), {"padding": "same"}),
    ("conv3d", (1, 2, 4, 4, 4), (2, 2, 2, 2, 2), {}),
])
def test_complex_convolution(function, input_shape, weight_shape, kwargs, dtype):
    """ATen's complex_convolution: three real convolutions combined as a - b + i (c - a - b),
    so torch's graph ends in AddBackward0; values and the input, weight and bias gradients
    against torch, with and without a bias."""
    rng = np.random.default_rng(10)

    def draw(*shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    x, w, b = draw(*input_shape), draw(*weight_shape), draw(weight_shape[0])
    tolerance = 1e-4 if dtype == np.complex64 else 1e-10
    for bias in (True, False):
        results = []
        for lib in (leafgrad, torch):
            xs, ws, bs = (lib.tensor(v, requires_grad=True) for v in (x, w, b))
            y = getattr(lib.nn.functional, function)(xs, ws, bs if bias else None, **kwargs)
            (y.abs().sum() + y.real.sum()).backward()
            results.append([y.grad_fn.name(), y.detach().numpy(), xs.grad.numpy(),
                            ws.grad.numpy()] + ([bs.grad.numpy()] if bias else []))
        assert results[0][0] == results[1][0]
        for ours, theirs in zip(results[0][1:], results[1][1:]):
            np.testing.assert_allclose(ours, theirs, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("input_dtype,weight_dtype", [
    ("complex128", "float64"), ("complex64", "complex128"), ("float64", "complex128"),
    ("complex64", "float64")])
def test_complex_convolution_dtype_errors(input_dtype, weight_dtype):
    messages = []
    for lib in (leafgrad, torch):
        with pytest.raises(RuntimeError) as error:
            lib.nn.functional.conv2d(lib.ones(1, 2, 4, 4, dtype=getattr(lib, input_dtype)),
                                     lib.ones(3, 2, 3, 3, dtype=getattr(lib, weight_dtype)))
        messages.append(str(error.value).splitlines()[0])
    assert messages[0] == messages[1]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name,shape,argument", [("pixel_shuffle", (2, 8, 3, 3), 2),
                                                 ("pixel_unshuffle", (2, 2, 4, 4), 2),
                                                 ("channel_shuffle", (2, 6, 3, 3), 3)])
def test_shuffles_move_complex_values(name, shape, argument, dtype):
    """pixel_shuffle, pixel_unshuffle and channel_shuffle only move values: complex ones too,
    with the inverse move as the gradient (torch's nodes)."""
    rng = np.random.default_rng(11)
    z = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(z, requires_grad=True)
        y = getattr(lib.nn.functional, name)(x, argument)
        (y.abs().sum() + y.real.sum()).backward()
        results.append((y.grad_fn.name(), y.detach().numpy(), x.grad.numpy()))
    assert results[0][0] == results[1][0]
    assert np.array_equal(results[0][1], results[1][1])
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-6, atol=1e-6)
