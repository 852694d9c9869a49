"""torch's composite functions (leafgrad/_functions_composites.py) against torch: values,
dtypes, gradients of every input that requires grad, the output's grad_fn name, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

CALLS = [
    "lib.diff(x)", "lib.diff(x, n=2, dim=0)", "lib.diff(x, prepend=x[:, :1], append=x[:, :2])",
    "lib.diff(x > 0)", "x.diff(3)", "lib.diff(v, n=5)", "lib.diff(x, n=0)",
    "lib.ravel(x)", "lib.ravel(x.t())", "x.t().ravel()", "lib.ravel(s)",
    "lib.column_stack([v, v])", "lib.column_stack([x, v[:3]])", "lib.column_stack([s, s])",
    "lib.row_stack([v, v])", "lib.dstack([x, x])", "lib.dstack([v, v])", "lib.atleast_3d(s)",
    "lib.atleast_3d(v)", "lib.atleast_3d([x, s])",
    "lib.tensor_split(x, 3, dim=1)", "lib.tensor_split(x, [1, 3], dim=1)",
    "lib.tensor_split(v, lib.tensor(3))", "lib.tensor_split(v, [-1, 10])", "x.tensor_split(2)",
    "lib.hsplit(x, 2)", "lib.hsplit(v, [1])", "lib.vsplit(x, [1])", "x.vsplit(3)",
    "lib.dsplit(b, 2)", "lib.hsplit(x, 3)", "lib.vsplit(v, 2)", "lib.dsplit(x, 2)",
    "lib.tensor_split(s, 2)", "lib.tensor_split(v, 0)",
    "lib.inner(v, v)", "lib.inner(x, x)", "lib.inner(x, v)", "lib.inner(s, x)", "x.inner(x)",
    "lib.inner(x, v[:3])",
    "lib.cartesian_prod(v, v[:2])", "lib.cartesian_prod(v)", "lib.cartesian_prod(v, v[:2], v[:1])",
    "lib.combinations(v)", "lib.combinations(v, 3, True)", "lib.combinations(v, 0)",
    "lib.combinations(v[:1], 2)", "lib.combinations(x)",
    "lib.trapezoid(x)", "lib.trapezoid(x, dx=2.)", "lib.trapezoid(x, v)", "lib.trapz(x, dim=0)",
    "lib.trapezoid(x, x)", "lib.trapezoid(x[:, :0])", "lib.cumulative_trapezoid(x)",
    "lib.cumulative_trapezoid(x, v)", "lib.cumulative_trapezoid(x, dx=0.5, dim=0)",
    "lib.vander(v)", "lib.vander(v, 2)", "lib.vander(v, 3, increasing=True)", "lib.vander(v, 0)",
    "lib.vander(lib.tensor([1, 2, 3]))", "lib.vander(x)",
    "lib.diagflat(v)", "lib.diagflat(x, 1)", "v.diagflat(-2)",
    "lib.logspace(0, 2, 3)", "lib.logspace(-1, 1, 5, base=2.0, dtype=lib.float64)",
    "lib.logspace(0, 3, 4, dtype=lib.int64)", "lib.logspace(0, 1, 0)",
    "lib.range(0, 3)", "lib.range(1, 2, 0.25)", "lib.range(5)", "lib.range(3, 0, -1)", "lib.range(0, 3, 0)",
    "lib.scalar_tensor(3)", "lib.scalar_tensor(2.5, dtype=lib.float64)",
    "lib.tril_indices(3, 3)", "lib.tril_indices(3, 4, -1)", "lib.triu_indices(3, 4, 1)",
    "lib.triu_indices(4, 3, -2, dtype=lib.int32)", "lib.triu_indices(0, 3)",
    "lib.tril_indices(3, 3, dtype=lib.float32)",
    "lib.bucketize(v, lib.tensor([0., 1.]))", "lib.bucketize(x, lib.tensor([-1., 0., 1.]), right=True)",
    "lib.bucketize(x, lib.tensor([0., 1.]), out_int32=True)",
    "lib.searchsorted(lib.tensor([0., 1.]), v)", "lib.searchsorted(lib.tensor([0., 1.]), v, side='right')",
    "lib.searchsorted(lib.sort(x, 1)[0], x)", "lib.searchsorted(lib.tensor([0., 1.]), v, side='x')",
    "lib.bucketize(v, x)",
    "lib.isin(v, v[:2])", "lib.isin(x, lib.tensor([0.5]), invert=True)", "lib.isin(lib.tensor([1, 2]), 2)",
    "lib.unravel_index(lib.tensor([5, 0, -1]), (3, 4))", "lib.unravel_index(lib.tensor(7), (2, 2, 2))",
    "lib.unravel_index(lib.tensor([12]), (3, 4))",
    "lib.histc(v)", "lib.histc(x, bins=4, min=-1, max=1)", "x.histc(3)", "lib.histc(lib.tensor([1, 2]))",
    "lib.bincount(lib.tensor([0, 1, 1, 3]))", "lib.bincount(lib.tensor([0, 1, 1]), minlength=5)",
    "lib.bincount(lib.tensor([0, 1, 1]), weights=lib.tensor([0.5, 1.0, 2.0]))",
    "lib.tensor([2, 2]).bincount()", "lib.bincount(x)", "lib.bincount(lib.tensor([-1]))",
]


# torch's vander computes with an in-place cumprod_ on a view its backward needs: its
# gradient raises "modified by an inplace operation"; leafgrad's is the derivative (values
# compared with torch, gradients with finite differences below).
GRAD_FAILS_IN_TORCH = {"lib.vander(v)", "lib.vander(v, 2)", "lib.vander(v, 3, increasing=True)"}


def test_vander_gradient_is_the_derivative():
    v = leafgrad.tensor([0.5, -1.2, 2.0], dtype=leafgrad.float64, requires_grad=True)
    assert leafgrad.autograd.gradcheck(lambda t: leafgrad.vander(t, 4), (v,))
    assert leafgrad.autograd.gradgradcheck(lambda t: leafgrad.vander(t, 4), (v,))


def _namespace(lib):
    rng = np.random.default_rng(0)
    return {
        "lib": lib,
        "x": lib.tensor(rng.normal(size=(3, 4)), dtype=lib.float64, requires_grad=True),
        "v": lib.tensor(rng.normal(size=4), dtype=lib.float64, requires_grad=True),
        "s": lib.tensor(0.7, dtype=lib.float64, requires_grad=True),
        "b": lib.tensor(rng.normal(size=(2, 3, 4)), dtype=lib.float64, requires_grad=True),
    }


def _run(lib, code):
    namespace = _namespace(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = eval(code, namespace)  # noqa: S307 - the table's calls
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            return (type(error).__name__, str(error).splitlines()[0]), None, []
    values = value if isinstance(value, (tuple, list)) else (value,)
    summary = [(str(t.dtype).split(".")[-1], tuple(t.shape), t.requires_grad,
                t.grad_fn.name() if t.grad_fn is not None else None) for t in values]
    arrays = [t.detach().numpy() for t in values]
    grads = None
    differentiable = [t for t in values if t.requires_grad and t.numel()]
    if differentiable and code in GRAD_FAILS_IN_TORCH:
        differentiable = []
    if differentiable:
        total = sum((t * (1.0 + lib.arange(t.numel(), dtype=t.dtype).reshape(t.shape))).sum()
                    for t in differentiable)
        inputs = [namespace[n] for n in ("x", "v", "s", "b")]
        grads = [None if g is None else g.numpy()
                 for g in lib.autograd.grad(total, inputs, allow_unused=True)]
    messages = [str(w.message) for w in caught]
    return summary, (arrays, grads), messages


@pytest.mark.parametrize("code", CALLS)
def test_matches_torch(code):
    ours, theirs = _run(leafgrad, code), _run(torch, code)
    assert ours[0] == theirs[0]
    assert ours[2] == theirs[2]
    if theirs[1] is None:
        return
    for got, want in zip(ours[1][0], theirs[1][0]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    if theirs[1][1] is None:
        assert ours[1][1] is None
        return
    for got, want in zip(ours[1][1], theirs[1][1]):
        if want is None:
            assert got is None
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
