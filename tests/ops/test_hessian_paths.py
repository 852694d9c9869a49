"""Note: tanh's factor kept (ops/elementwise.py): a tanh node, or the node of tanh's backward,
that runs again keeps ``1 - y * y`` of its saved output. Every run must still give torch's bits
for the output as it is then: first, second and later runs, float32 and float64, contiguous
and strided outputs, and after a write into the output that no version counter sees (through
``.numpy()``). Expected values are torch 2.13's, computed in the same run."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _bits(array: np.ndarray) -> bytes:
    return np.ascontiguousarray(array).tobytes()


def _hessian_rows(lib, a_np, x_np, runs, transpose):
    """Each row of the Hessian of (tanh(A x) ** 2).sum() ``runs`` times (retain_graph)."""
    a = lib.tensor(a_np)
    x = lib.tensor(x_np, requires_grad=True)
    z = a @ x
    if transpose:  # a strided tanh output: x is (n, 2), z.t() is (2, n) with strides (1, 2)
        z = z.t()
    loss = (lib.tanh(z) ** 2).sum()
    (grad,) = lib.autograd.grad(loss, x, create_graph=True)
    flat = grad.reshape(-1)
    rows = []
    for _ in range(runs):
        for i in range(flat.shape[0]):
            rows.append(lib.autograd.grad(flat[i], x, retain_graph=True)[0].numpy().copy())
    return rows


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_run_again_are_torchs_bits(dtype, transpose):
    rng = np.random.default_rng(5)
    n = 9
    a = (rng.standard_normal((n, n)) * 3).astype(dtype)  # tanh near +-1: the bracket matters
    x = rng.standard_normal((n, 2) if transpose else n).astype(dtype)
    ours = _hessian_rows(leafgrad, a, x, 3, transpose)
    theirs = _hessian_rows(torch, a, x, 3, transpose)
    assert len(ours) == len(theirs)
    for mine, reference in zip(ours, theirs):
        assert mine.dtype == reference.dtype
        assert _bits(mine) == _bits(reference)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_write_through_numpy_between_runs(dtype):
    """A write into the saved output through ``.numpy()`` bumps no version counter; torch's
    next run uses the new values, and so must a node that kept the factor of the old ones."""
    values = np.linspace(-3, 3, 11).astype(dtype)
    weights = np.random.default_rng(1).standard_normal(values.size).astype(dtype)
    results = {}
    for lib in (leafgrad, torch):
        x = lib.tensor(values, requires_grad=True)
        y = lib.tanh(x)
        w = lib.tensor(weights)
        (g,) = lib.autograd.grad(y, x, w, create_graph=True)
        seen = []
        for step in range(4):
            if step == 2:
                y.detach().numpy()[:] = np.linspace(-0.9, 0.9, values.size).astype(dtype)
            first = lib.autograd.grad(y, x, w, retain_graph=True)[0]
            second = lib.autograd.grad(g, x, w, retain_graph=True)[0]
            seen.append((_bits(first.numpy()), _bits(second.numpy())))
        results[lib.__name__] = seen
    assert results["leafgrad"] == results["torch"]
    assert results["leafgrad"][1] != results["leafgrad"][2]  # the write changed the result


def test_a_node_run_once_keeps_nothing():
    """Only a node that runs again keeps the factor (one array and a copy of the output's
    bytes): a plain backward adds no memory."""
    x = leafgrad.tensor(np.linspace(-1, 1, 5), requires_grad=True)
    y = leafgrad.tanh(x)
    node = y.grad_fn
    y.sum().backward(retain_graph=True)
    assert node._factor is False
    y.sum().backward(retain_graph=True)
    kept = node._factor
    assert kept[0] is y._data and kept[1] == y._data.tobytes()
    np.testing.assert_allclose(kept[2], 1 - np.tanh(np.linspace(-1, 1, 5)) ** 2, rtol=1e-15)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_second_derivative_of_a_square_is_torchs(dtype):
    """The node under ``x ** 2``'s gradient (``x.pow(1)``, PowBackward0) computes
    ``grad * (1 * x ** 0)``: torch's bits for every grad and base, NaN, inf and -0 included,
    in every layout, with each subset of its inputs requiring grad."""
    specials = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-30, 7.0],
                        dtype=dtype)
    rng = np.random.default_rng(3)
    base = np.concatenate([specials, rng.standard_normal(9).astype(dtype)]).reshape(3, 6)
    weight = np.concatenate([specials[::-1], rng.standard_normal(9).astype(dtype)]).reshape(3, 6)
    for layout in ("contiguous", "transposed", "sliced"):
        for needs_w in (False, True):
            seen = {}
            for lib in (leafgrad, torch):
                x = lib.tensor(base, requires_grad=True)
                w = lib.tensor(weight, requires_grad=needs_w)
                if layout == "transposed":
                    x, w = x.t(), w.t()
                elif layout == "sliced":
                    x, w = x[:, ::2], w[:, ::2]
                (g,) = lib.autograd.grad((x ** 2 * w).sum(), x, create_graph=True)
                outs = lib.autograd.grad(g, [x, w] if needs_w else [x],
                                         lib.ones_like(g) * w.detach(), allow_unused=True)
                seen[lib.__name__] = [None if o is None else
                                      (_bits(o.numpy()), o.stride(), str(o.dtype).split(".")[-1])
                                      for o in outs]
            assert seen["leafgrad"] == seen["torch"], (layout, needs_w)
