"""Custom ``autograd.Function``: the same program under torch and leafgrad."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch


def _program(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x ** 3 * scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * grad * ctx.scale, None

    class SplitSum(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b, a * 2

        @staticmethod
        def backward(ctx, grad_sum, grad_double):
            return grad_sum + 2 * grad_double, grad_sum

    x = lib.tensor([2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5, -1.0], requires_grad=True)
    y = Cube.apply(x, 2.0)
    s, d = SplitSum.apply(y, w)
    observations = [
        type(y.grad_fn).__name__, y.grad_fn.name(), s.grad_fn.name(), d.grad_fn is s.grad_fn,
        [None if n is None else n.name() for n, _ in s.grad_fn.next_functions],
        s.requires_grad, y.is_leaf,
    ]
    (s.sum() + (d * d).sum()).backward(create_graph=True)
    observations += [x.grad.tolist(), w.grad.tolist(), x.grad.grad_fn.name()]
    (gx,) = lib.autograd.grad(x.grad.sum(), x)
    observations.append(gx.tolist())
    with lib.no_grad():
        observations.append(Cube.apply(x, 1.0).requires_grad)
    return observations


def test_custom_function_matches_torch():
    torch = require_torch()
    ours, theirs = _program(leafgrad), _program(torch)
    assert len(ours) == len(theirs)
    for mine, expected in zip(ours, theirs):
        if isinstance(expected, list) and expected and isinstance(expected[0], float):
            np.testing.assert_allclose(mine, expected, rtol=1e-6)
        else:
            assert mine == expected


def test_wrong_gradient_shape_is_reported_like_torch():
    torch = require_torch()

    def run(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return lib.ones(3)

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            Bad.apply(x).sum().backward()
        return str(info.value).splitlines()[0]

    assert run(leafgrad) == run(torch)
