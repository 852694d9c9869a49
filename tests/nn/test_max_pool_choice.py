"""Max pooling picks what torch's CPU kernels pick (ops/pool.py, window_max): the first
maximum, the last NaN of a window, and for a window of -inf the first element inside the
input (never a padding position), in 1-d, 2-d and 3-d, with padding, dilation, strides and
ceil_mode; values, indices and gradients against torch 2.13."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch


def _data(shape, kind, dtype, seed):
    rng = np.random.default_rng(seed)
    if kind == "ties":  # few distinct values: many windows with a repeated maximum
        a = rng.integers(-2, 3, shape).astype(dtype)
    else:
        a = rng.standard_normal(shape).astype(dtype)
    if kind == "nan":
        a[rng.random(shape) < 0.3] = np.nan
    elif kind == "neg_inf":
        a[rng.random(shape) < 0.7] = -np.inf
    elif kind == "mixed":
        a[rng.random(shape) < 0.2] = np.nan
        a[rng.random(shape) < 0.3] = -np.inf
        a[rng.random(shape) < 0.2] = np.inf
    return a


CONFIGS_2D = [  # kernel, stride, padding, dilation, ceil_mode
    (2, 2, 0, 1, False), (3, 1, 1, 1, False), (3, 2, 1, 1, True), (2, 1, 1, 2, False),
    ((2, 3), (1, 2), (1, 0), (1, 1), True), (3, 3, 1, 1, True), (1, 1, 0, 1, False),
]
KINDS = ["normal", "ties", "nan", "neg_inf", "mixed"]


def _compare(out_mine, out_theirs, grad_mine, grad_theirs):
    (v, i), (tv, ti) = out_mine, out_theirs
    np.testing.assert_array_equal(v.detach().numpy(), tv.detach().numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    np.testing.assert_array_equal(grad_mine, grad_theirs)


def _run(lib, fn, a, args):
    x = lib.tensor(a, requires_grad=True)
    v, i = fn(lib)(x, *args, return_indices=True)
    g = np.linspace(-1, 1, v.numel()).reshape(tuple(v.shape)).astype(a.dtype)
    v.backward(lib.tensor(g))
    return (v, i), x.grad.numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("config", range(len(CONFIGS_2D)))
def test_max_pool2d_picks_as_torch(config, kind, dtype):
    torch = require_torch()
    kernel, stride, padding, dilation, ceil_mode = CONFIGS_2D[config]
    a = _data((2, 3, 7, 6), kind, dtype, config)
    args = (kernel, stride, padding, dilation, ceil_mode)
    fn = lambda lib: lib.nn.functional.max_pool2d  # noqa: E731
    mine, grad_mine = _run(leafgrad, fn, a, args)
    theirs, grad_theirs = _run(torch, fn, a, args)
    _compare(mine, theirs, grad_mine, grad_theirs)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("config", [(3, 2, 1, 1, True), (2, 1, 0, 2, False), (4, 4, 2, 1, True)])
def test_max_pool1d_picks_as_torch(config, kind):
    torch = require_torch()
    a = _data((2, 3, 11), kind, np.float32, 1)
    fn = lambda lib: lib.nn.functional.max_pool1d  # noqa: E731
    mine, grad_mine = _run(leafgrad, fn, a, config)
    theirs, grad_theirs = _run(torch, fn, a, config)
    _compare(mine, theirs, grad_mine, grad_theirs)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("config", [(2, 2, 0, 1, False), (3, 2, 1, 1, True), (2, 1, 1, 2, False)])
def test_max_pool3d_picks_as_torch(config, kind):
    torch = require_torch()
    a = _data((2, 2, 5, 4, 6), kind, np.float32, 2)
    fn = lambda lib: lib.nn.functional.max_pool3d  # noqa: E731
    mine, grad_mine = _run(leafgrad, fn, a, config)
    theirs, grad_theirs = _run(torch, fn, a, config)
    _compare(mine, theirs, grad_mine, grad_theirs)


@pytest.mark.parametrize("unbatched", [False, True])
def test_max_pool2d_modules_and_unbatched_inputs(unbatched):
    torch = require_torch()
    shape = (3, 6, 6) if unbatched else (2, 3, 6, 6)
    a = _data(shape, "mixed", np.float32, 9)
    outs = []
    for lib in (leafgrad, torch):
        pool = lib.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True, return_indices=True)
        v, i = pool(lib.tensor(a))
        outs.append((v.numpy(), i.numpy()))
    for mine, theirs in zip(*outs):
        np.testing.assert_array_equal(mine, theirs)


def test_window_of_minus_infinity_inside_padding_points_inside_the_input():
    torch = require_torch()
    a = np.full((1, 1, 3, 3), -np.inf, np.float32)
    for args in itertools.product([2, 3], [1, 2], [1], [1, 2], [False, True]):
        kernel, stride, padding, dilation, ceil_mode = args
        if padding > (dilation * (kernel - 1) + 1) // 2:
            continue  # torch: pad should be at most half of effective kernel size
        _, i = leafgrad.nn.functional.max_pool2d(leafgrad.tensor(a), *args, return_indices=True)
        _, ti = torch.nn.functional.max_pool2d(torch.tensor(a), *args, return_indices=True)
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        assert (i.numpy() >= 0).all() and (i.numpy() < 9).all()
