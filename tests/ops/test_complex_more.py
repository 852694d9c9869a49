"""Complex inputs for exp2, log2, log10, tan, sinh and cosh against torch 2.13: values (cuts of
the logarithms, signed zeros, infinities and nan), result dtypes, gradients with torch's
conjugate convention (derivatives.yaml: exp2 grad * result.conj() * ln 2, log2/log10
grad / (self.conj() * ln b), tan grad * (1 + result^2).conj(), sinh/cosh grad * cosh/sinh.conj()),
grad_fn names, and gradcheck/gradgradcheck in complex128."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()

NAMES = ["exp2", "log2", "log10", "tan", "sinh", "cosh"]
TOLERANCE = {np.complex64: (2e-5, 2e-6), np.complex128: (1e-12, 1e-13)}


def _points(dtype):
    rng = np.random.default_rng(13)
    z = (rng.standard_normal(40) + 1j * rng.standard_normal(40)) * 1.5
    special = [0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), 1 + 0j,
               complex(-2, 0.0), complex(-2, -0.0), 0.5j, -3j, complex(-0.0, 2),
               complex(np.inf, 1), complex(1, np.inf), complex(np.nan, 1), complex(-np.inf, 0),
               complex(np.inf, np.nan), complex(0, np.nan)]
    return np.concatenate([z, special]).astype(dtype)


def _signs_match(ours, theirs):
    """Signed zeros of the results (finite parts equal to 0 must carry torch's sign)."""
    for part in (np.real, np.imag):
        a, b = part(ours), part(theirs)
        zero = (a == 0) & (b == 0)
        assert np.array_equal(np.signbit(a[zero]), np.signbit(b[zero]))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", NAMES)
def test_values_and_gradients(name, dtype):
    rtol, atol = TOLERANCE[dtype]
    z = _points(dtype)
    ours = getattr(leafgrad, name)(leafgrad.tensor(z)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(z)).numpy()
    assert ours.dtype == theirs.dtype
    for part in (np.real, np.imag):  # parts apart: NumPy calls inf+nanj unequal to itself
        np.testing.assert_allclose(part(ours), part(theirs), rtol=rtol, atol=atol,
                                   equal_nan=True)
    _signs_match(ours, theirs)
    finite = z[:40]
    rng = np.random.default_rng(14)
    weights = (rng.standard_normal(40) + 1j * rng.standard_normal(40)).astype(dtype)
    grads = []
    for lib in (leafgrad, torch):
        x = lib.tensor(finite, requires_grad=True)
        y = getattr(lib, name)(x)
        ((y * lib.tensor(weights)).real.sum() + y.abs().sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=rtol * 10, atol=atol * 10)
    node = getattr(leafgrad, name)(leafgrad.tensor(finite, requires_grad=True)).grad_fn.name()
    assert node == getattr(torch, name)(torch.tensor(finite, requires_grad=True)).grad_fn.name()


@pytest.mark.parametrize("name", NAMES)
def test_method_forms_shapes_and_layouts(name):
    """Function and method forms on 0-d, empty, transposed and strided complex inputs."""
    rng = np.random.default_rng(15)
    z = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex128)
    views = [lambda t: t, lambda t: t[1, 2], lambda t: t[:0], lambda t: t.T,
             lambda t: t[:, ::2]]
    for view in views:
        x, t = view(leafgrad.tensor(z)), view(torch.tensor(z))
        for ours, theirs in ((getattr(leafgrad, name)(x), getattr(torch, name)(t)),
                             (getattr(x, name)(), getattr(t, name)())):
            assert tuple(ours.shape) == tuple(theirs.shape)
            assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "leafgrad.")
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name", NAMES)
def test_out_and_inplace_forms(name):
    rng = np.random.default_rng(16)
    z = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex64)
    results = []
    for lib in (leafgrad, torch):
        out = lib.empty(5, dtype=lib.complex64)
        getattr(lib, name)(lib.tensor(z), out=out)
        x = lib.tensor(z)
        getattr(x, name + "_")()
        results.append((out.numpy(), x.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", NAMES)
def test_gradcheck_and_gradgradcheck(name):
    rng = np.random.default_rng(17)
    z = (rng.standard_normal(5) + 1j * rng.standard_normal(5)) * 0.6 + 0.2 + 0.3j
    x = leafgrad.tensor(z, dtype=leafgrad.complex128, requires_grad=True)
    function = getattr(leafgrad, name)
    assert leafgrad.autograd.gradcheck(function, (x,))
    assert leafgrad.autograd.gradgradcheck(function, (x,))


@pytest.mark.parametrize("name", NAMES)
def test_real_input_with_complex_gradient_flowing_back(name):
    """A real input reaching a complex op through ``complex()`` gets a real gradient, as in
    torch (the imaginary half goes to the other input)."""
    rng = np.random.default_rng(18)
    re, im = rng.standard_normal(4), rng.standard_normal(4)
    grads = []
    for lib in (leafgrad, torch):
        a = lib.tensor(re, requires_grad=True)
        b = lib.tensor(im, requires_grad=True)
        getattr(lib, name)(lib.complex(a, b)).abs().sum().backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
    for ours, theirs in zip(*grads):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)
