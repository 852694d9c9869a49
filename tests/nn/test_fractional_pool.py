"""F.fractional_max_pool2d / nn.FractionalMaxPool2d against torch: the random windows (drawn
from the same stream), values, indices, gradients, given _random_samples, errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [((2, 3, 9, 8), dict(kernel_size=2, output_size=4)),
         ((2, 3, 9, 8), dict(kernel_size=(3, 2), output_ratio=(0.5, 0.7))),
         ((3, 10, 7), dict(kernel_size=2, output_size=(5, 3))),
         ((1, 2, 6, 6), dict(kernel_size=2, output_size=5, return_indices=True))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,options", CASES, ids=str)
def test_fractional_max_pool2d_matches_torch(shape, options, dtype):
    def run(lib):
        lib.manual_seed(0)
        module = lib.nn.FractionalMaxPool2d(**options)
        x = lib.tensor(np.random.default_rng(1).normal(size=shape), dtype=getattr(lib, dtype),
                       requires_grad=True)
        out = module(x)
        values = out[0] if isinstance(out, tuple) else out
        (values * values).sum().backward()
        extra = [out[1].numpy()] if isinstance(out, tuple) else []
        return ([values.detach().numpy(), x.grad.numpy()] + extra, values.grad_fn.name(),
                repr(module), lib.rand(2).numpy().tolist())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[1:] == theirs[1:]
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_given_random_samples_and_double_backward_match_torch():
    def run(lib):
        rng = np.random.default_rng(2)
        x = lib.tensor(rng.normal(size=(2, 2, 7, 9)), requires_grad=True)
        samples = lib.tensor(rng.random((2, 2, 2)))
        out = lib.nn.functional.fractional_max_pool2d(x, 3, output_size=(4, 5),
                                                      _random_samples=samples)
        (g,) = lib.autograd.grad((out * out).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        return out.detach().numpy(), g.detach().numpy(), gg.numpy(), g.grad_fn.name()

    ours, theirs = run(leafgrad), run(torch)
    assert ours[3] == theirs[3]
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


BAD = [
    lambda lib: lib.nn.FractionalMaxPool2d(2),
    lambda lib: lib.nn.FractionalMaxPool2d(2, 3, 0.5),
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.zeros(1, 2, 5, 6), 2),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.zeros(1, 2, 5, 6), 4,
                                                        output_size=4),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.zeros(1, 2, 6, 5), 4,
                                                        output_size=(2, 4)),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.zeros(1, 2, 5, 6), 2,
                                                        output_ratio=0.5),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_errors_match_torch(index):
    def run(lib):
        try:
            BAD[index](lib)
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0]
        return None

    theirs = run(torch)
    assert theirs is not None
    assert run(leafgrad) == theirs


CASES3 = [((2, 2, 7, 6, 8), dict(kernel_size=2, output_size=(3, 4, 5))),
          ((2, 7, 6, 8), dict(kernel_size=(2, 3, 2), output_ratio=(0.5, 0.5, 0.6),
                              return_indices=True))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,options", CASES3, ids=str)
def test_fractional_max_pool3d_matches_torch(shape, options, dtype):
    def run(lib):
        lib.manual_seed(0)
        module = lib.nn.FractionalMaxPool3d(**options)
        x = lib.tensor(np.random.default_rng(1).normal(size=shape), dtype=getattr(lib, dtype),
                       requires_grad=True)
        out = module(x)
        values = out[0] if isinstance(out, tuple) else out
        (g,) = lib.autograd.grad((values * values).sum(), x, create_graph=True)
        extra = [out[1].numpy()] if isinstance(out, tuple) else []
        return ([values.detach().numpy(), g.detach().numpy()] + extra,
                values.grad_fn.name(), g.grad_fn.name(), repr(module),
                lib.rand(2).numpy().tolist())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[1:] == theirs[1:]
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.FractionalMaxPool3d(2),
    lambda lib: lib.nn.functional.fractional_max_pool3d(lib.zeros(1, 2, 5, 6, 4), 4,
                                                        output_size=4),
    lambda lib: lib.nn.functional.fractional_max_pool3d(lib.zeros(1, 2, 6, 5, 6), 4,
                                                        output_size=(2, 3, 2)),
])
def test_fractional3d_errors_match_torch(call):
    def run(lib):
        try:
            call(lib)
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0]
        return None

    theirs = run(torch)
    assert theirs is not None
    assert run(leafgrad) == theirs
