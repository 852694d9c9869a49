"""What the complex differential tests share (tests/ops/test_complex_more.py,
test_complex_unary_more.py)."""

from __future__ import annotations

import numpy as np

import leafgrad


def assert_unary_gradients_match(torch, name: str, values, weights, rtol, atol) -> None:
    """The gradient of ``real(sum(f(z) * w)) + sum(|f(z)|)`` for the unary function ``name``
    and its grad_fn name, leafgrad against torch."""
    grads = []
    for lib in (leafgrad, torch):
        x = lib.tensor(values, requires_grad=True)
        y = getattr(lib, name)(x)
        ((y * lib.tensor(weights)).real.sum() + y.abs().sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=rtol * 10, atol=atol * 10)
    node = getattr(leafgrad, name)(leafgrad.tensor(values, requires_grad=True)).grad_fn.name()
    assert node == getattr(torch, name)(torch.tensor(values, requires_grad=True)).grad_fn.name()
