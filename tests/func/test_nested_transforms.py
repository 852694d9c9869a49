"""Second derivatives by nested torch.func transforms (the "Jacobians, Hessians, hvp, vhp"
tutorial): jacrev(jacrev(f)), jacfwd(jacfwd(f)), hessian, batched by vmap, against torch."""

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

ACTIVATIONS = {
    "tanh": lambda m, h: h.tanh(),
    "sigmoid": lambda m, h: h.sigmoid(),
    "relu": lambda m, h: m.nn.functional.relu(h) * h,
    "gelu": lambda m, h: m.nn.functional.gelu(h),
    "gelu_tanh": lambda m, h: m.nn.functional.gelu(h, approximate="tanh"),
    "sin": lambda m, h: h.sin(),
    # backward ops with their own double backward (HardtanhBackwardBackward0, ...)
    "hardtanh": lambda m, h: m.nn.functional.hardtanh(h, -0.5, 0.5) * h,
    "leaky_relu": lambda m, h: m.nn.functional.leaky_relu(h, 0.2) * h,
    "softshrink": lambda m, h: m.nn.functional.softshrink(h, 0.2) * h,
    "elu": lambda m, h: m.nn.functional.elu(h),
    "threshold": lambda m, h: m.nn.functional.threshold(h, 0.1, 2.0) * h,
}
NESTINGS = {
    "jacrev(jacrev)": lambda f, g: f.jacrev(f.jacrev(g, argnums=2), argnums=2),
    "jacfwd(jacfwd)": lambda f, g: f.jacfwd(f.jacfwd(g, argnums=2), argnums=2),
    "jacfwd(jacrev)": lambda f, g: f.jacfwd(f.jacrev(g, argnums=2), argnums=2),
    "jacrev(jacfwd)": lambda f, g: f.jacrev(f.jacfwd(g, argnums=2), argnums=2),
    "hessian": lambda f, g: f.hessian(g, argnums=2),
}


def _inputs(m, dtype):
    rng = np.random.default_rng(0)
    return tuple(m.tensor(rng.standard_normal(shape), dtype=dtype)
                 for shape in ((5, 4), (5,), (4,)))


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("nesting", NESTINGS)
def test_second_derivatives_of_a_layer_match_torch(nesting, activation):
    results = []
    for m in (lg, torch):
        def predict(weight, bias, x, m=m):
            return ACTIVATIONS[activation](m, m.nn.functional.linear(x, weight, bias))

        results.append(NESTINGS[nesting](m.func, predict)(*_inputs(m, m.float64)))
    got, want = results
    assert tuple(got.shape) == tuple(want.shape) == (5, 4, 4)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


def test_batched_hessian_and_jacobian_match_torch():
    results = []
    for m in (lg, torch):
        rng = np.random.default_rng(1)
        weight, bias, x = (m.tensor(rng.standard_normal(s)) for s in ((6, 3), (6,), (7, 3)))

        def predict(weight, bias, x, m=m):
            return m.nn.functional.linear(x, weight, bias).tanh()

        jac = m.func.vmap(m.func.jacrev(predict, argnums=2), in_dims=(None, None, 0))
        hes = m.func.vmap(m.func.hessian(predict, argnums=2), in_dims=(None, None, 0))
        results.append((jac(weight, bias, x), hes(weight, bias, x)))
    for got, want in zip(*results):
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
