"""torch.special's orthogonal polynomials, spherical_bessel_j0 and modified_bessel_i0/i1
against torch 2.13: values over grids of x and n (both ends of the interval, |x| > 1, n < 0,
the closed forms for large n), dtypes and promotion, tensor or number arguments, out=, and
no autograd history (torch defines no derivative for them). NaN inputs are left out: torch's
kernels return the previous element's value there (an uninitialised variable), leafgrad NaN."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()

POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values(name, dtype):
    x = np.concatenate([np.linspace(-1.2, 1.2, 49), [1, -1, 0, 0.5, 2, -3, np.inf, -np.inf]])
    n = np.array([-2, -1, 0, 1, 2, 3, 5, 7, 9, 12, 20])
    grid_x, grid_n = np.meshgrid(x, n)
    ours = getattr(leafgrad.special, name)(leafgrad.tensor(grid_x.astype(dtype)),
                                           leafgrad.tensor(grid_n))
    theirs = getattr(torch.special, name)(torch.tensor(grid_x.astype(dtype)),
                                          torch.tensor(grid_n))
    assert ours.dtype is getattr(leafgrad, str(theirs.dtype).split(".")[-1])
    assert not ours.requires_grad and ours.grad_fn is None
    rtol, atol = (1e-4, 1e-5) if dtype == np.float32 else (1e-10, 1e-12)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_call_forms(name):
    ours_fn, theirs_fn = getattr(leafgrad.special, name), getattr(torch.special, name)
    x = np.array([0.3, -0.7, 1.5])
    cases = [
        (lambda lib: (lib.tensor(x.astype(np.float32)), 3)),           # a number n
        (lambda lib: (0.25, lib.tensor([0, 1, 2, 4]))),                 # a number x
        (lambda lib: (lib.tensor([1, 2, 3]), lib.tensor([2, 3, 4]))),   # integers: float32
        (lambda lib: (lib.tensor(x), lib.tensor([2.7, 3.2, 4.9]))),     # a float n, truncated
        (lambda lib: (lib.tensor(x.astype(np.float32)).reshape(3, 1), lib.tensor([1, 4]))),
    ]
    for make in cases:
        ours = ours_fn(*make(leafgrad))
        theirs = theirs_fn(*make(torch))
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
    x_grad = leafgrad.tensor(x, requires_grad=True)
    assert not ours_fn(x_grad, 2).requires_grad  # as torch: no derivative, no history
    out = leafgrad.empty(3, dtype=leafgrad.float64)
    assert ours_fn(leafgrad.tensor(x), 4, out=out) is out
    np.testing.assert_allclose(out.numpy(), theirs_fn(torch.tensor(x), 4).numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["spherical_bessel_j0", "modified_bessel_i0",
                                  "modified_bessel_i1"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bessel_values(name, dtype):
    x = np.concatenate([np.linspace(-20, 20, 201), [0, 1e-5, -1e-5, 0.49, 0.51, np.inf,
                                                   -np.inf]]).astype(dtype)
    ours = getattr(leafgrad.special, name)(leafgrad.tensor(x))
    theirs = getattr(torch.special, name)(torch.from_numpy(x))
    assert ours.dtype is getattr(leafgrad, str(theirs.dtype).split(".")[-1])
    rtol = 2e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=1e-30)
    ints = getattr(leafgrad.special, name)(leafgrad.tensor([1, 2]))
    assert ints.dtype is leafgrad.float32
