"""F.gumbel_softmax (torch's noise stream: exponential_ then log), F.affine_grid and
F.grid_sample against torch: values, gradients (first and second order), warnings, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", [dict(), dict(tau=0.5), dict(hard=True),
                                     dict(hard=True, dim=0), dict(tau=2.0, dim=1)], ids=str)
def test_gumbel_softmax_matches_torch(options, dtype):
    def run(lib):
        logits = lib.tensor(np.random.default_rng(0).normal(size=(4, 5)),
                            dtype=getattr(lib, dtype), requires_grad=True)
        lib.manual_seed(7)
        out = lib.nn.functional.gumbel_softmax(logits, **options)
        (out * lib.arange(20, dtype=out.dtype).view(4, 5)).sum().backward()
        after = lib.rand(3)  # the stream continues where torch's does
        return out.detach().numpy(), logits.grad.numpy(), after.numpy(), out.grad_fn.name()

    ours, theirs = run(leafgrad), run(torch)
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ours[0], theirs[0], rtol=tol, atol=tol)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=tol * 10, atol=tol)
    np.testing.assert_array_equal(ours[2], theirs[2])
    assert ours[3] == theirs[3]


def test_gumbel_softmax_eps_warning_matches_torch():
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.gumbel_softmax(lib.zeros(2, 3), eps=1e-5)
        return [str(w.message) for w in caught]

    assert run(leafgrad) == run(torch)


AFFINE = [((2, 1, 3, 4), False), ((2, 3, 1, 5), True), ((1, 2, 2, 3, 4), False),
          ((2, 1, 3, 1, 2), True), ((1, 1, 1, 1), False)]


@pytest.mark.parametrize("size,align", AFFINE, ids=str)
def test_affine_grid_matches_torch(size, align):
    def run(lib):
        shape = (size[0], 2, 3) if len(size) == 4 else (size[0], 3, 4)
        theta = lib.tensor(np.random.default_rng(1).normal(size=shape), requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grid = lib.nn.functional.affine_grid(theta, size, align_corners=align)
        (g,) = lib.autograd.grad((grid * grid).sum(), theta, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), theta)
        return (grid.detach().numpy(), g.detach().numpy(), gg.numpy(), grid.grad_fn.name(),
                [str(w.message) for w in caught])

    ours, theirs = run(leafgrad), run(torch)
    assert ours[3:] == theirs[3:]
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_grid_sample_matches_torch(mode, padding, align, dtype):
    def run(lib):
        rng = np.random.default_rng(0)
        x = lib.tensor(rng.normal(size=(2, 3, 4, 5)), dtype=getattr(lib, dtype),
                       requires_grad=True)
        grid = lib.tensor(rng.uniform(-1.4, 1.4, size=(2, 3, 6, 2)), dtype=getattr(lib, dtype),
                          requires_grad=True)
        out = lib.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding,
                                            align_corners=align)
        gx, gg = lib.autograd.grad((out * out).sum(), (x, grid), create_graph=True)
        second = lib.autograd.grad((gx * gx).sum() + (gg * gg).sum(), (x, grid),
                                   allow_unused=True)
        return ([out.detach().numpy(), gx.detach().numpy(), gg.detach().numpy()]
                + [np.zeros(1) if s is None else s.numpy() for s in second], out.grad_fn.name())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[1] == theirs[1]
    tol = dict(rtol=1e-10, atol=1e-11) if dtype == "float64" else dict(rtol=1e-4, atol=1e-4)
    for a, b in zip(ours[0], theirs[0]):
        if a.shape != b.shape:  # an unused second-order gradient: None here, zeros in torch
            assert not a.any() and not b.any()
            continue
        np.testing.assert_allclose(a, b, **tol)


def test_spatial_transformer_pipeline_matches_torch():
    """affine_grid then grid_sample, as the spatial transformer tutorial uses them."""
    def run(lib):
        rng = np.random.default_rng(3)
        x = lib.tensor(rng.normal(size=(2, 1, 6, 6)), requires_grad=True)
        theta = lib.tensor(rng.normal(scale=0.3, size=(2, 2, 3)) + np.eye(2, 3),
                           requires_grad=True)
        grid = lib.nn.functional.affine_grid(theta, x.size(), align_corners=False)
        out = lib.nn.functional.grid_sample(x, grid, align_corners=False)
        (out * out).sum().backward()
        return out.detach().numpy(), x.grad.numpy(), theta.grad.numpy()

    for a, b in zip(run(leafgrad), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-11)


BAD = [
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(2, 2, 3, dtype=lib.int64), (2, 1, 3, 3),
                                              align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(2, 3, 3), (2, 1, 3, 3),
                                              align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(2, 2, 3), (2, 1, 3, 3, 3),
                                              align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(2, 2, 3), (2, 3),
                                              align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(2, 2, 3), (2, 1, 0, 3),
                                              align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(3, 2, 3), (2, 1, 3, 3),
                                              align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2),
                                              mode="linear", align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2),
                                              padding_mode="wrap", align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(2, 2, 2, 2),
                                              align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 3),
                                              align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2,
                                                                               dtype=lib.float64),
                                              align_corners=False),
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
