"""select_scatter, slice_scatter, diagonal_scatter, masked_scatter(_), index_reduce(_)
(ops/scatter_extra.py): call forms, dtypes, in-place forms and errors against torch 2.13
(values and gradients: the op table)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch
from ._table_outcome import assert_same, outcome

torch = require_torch()

SETUP = """
x = lib.arange(12.0).reshape(3, 4); s = lib.ones(4)
a = lib.arange(1.0, 7.0).reshape(2, 3); src = -lib.arange(1.0, 8.0)
m = lib.tensor([[True, False, True], [False, True, True]])
b = lib.arange(1.0, 9.0).reshape(2, 4); i = lib.tensor([0, 2, 0, 1])
z = lib.tensor([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]); zs = lib.tensor([[0.0, 5.0, 0.0, 2.0], [1.0, 0.0, 4.0, 2.0]])
"""

CASES = [
    # select_scatter
    "lib.select_scatter(x, s, 0, 1)", "lib.select_scatter(x, s[:3], 1, -1)",
    "lib.select_scatter(x, s, 0, 3)", "lib.select_scatter(x, s[:3], 0, 1)",
    "lib.select_scatter(x, s.double(), 0, 1)", "lib.select_scatter(x, s.long(), 0, 1)",
    "lib.select_scatter(x.long(), s, 0, 1)", "x.select_scatter(s, 0, 0)",
    "lib.select_scatter(x, lib.tensor(1.0), 0, 1)", "lib.select_scatter(x, s, 2, 1)",
    "lib.select_scatter(lib.tensor(1.0), lib.tensor(2.0), 0, 0)", "lib.select_scatter(x, s[None], 0, 1)",
    "lib.select_scatter(x, 1.0, 0, 1)", "lib.select_scatter(input=x, src=s, dim=0, index=2)",
    # slice_scatter
    "lib.slice_scatter(x, lib.zeros(3, 2), 1, 0, 2)", "lib.slice_scatter(x, lib.zeros(2, 4))",
    "lib.slice_scatter(x, lib.zeros(3, 2), dim=1, start=1, end=None, step=2)",
    "lib.slice_scatter(x, lib.zeros(3, 3), 1, 0, 2)", "lib.slice_scatter(x, lib.zeros(3, 2), 1, -2)",
    "lib.slice_scatter(x, lib.zeros(3, 2), 1, 0, 10, 2)", "lib.slice_scatter(x, lib.zeros(3, 0), 1, 5, 10)",
    "lib.slice_scatter(x, lib.zeros(3, 2), 1, 0, 2, 0)", "lib.slice_scatter(x, lib.zeros(3, 2).double(), 1, 0, 2)",
    "x.slice_scatter(lib.zeros(1, 4), 0, 2)", "lib.slice_scatter(x, lib.zeros(3, 2), 1, 3, 1)",
    "lib.slice_scatter(x, lib.zeros(3, 2), 1, -10, -2)",
    # diagonal_scatter
    "lib.diagonal_scatter(x, lib.zeros(3))", "lib.diagonal_scatter(x, lib.zeros(3), 1)",
    "lib.diagonal_scatter(x, lib.zeros(2), -1)", "lib.diagonal_scatter(x, lib.zeros(2), 1)",
    "lib.diagonal_scatter(x, lib.zeros(3), 0, 1, 0)", "lib.diagonal_scatter(x, lib.zeros(3), 0, 0, 0)",
    "lib.diagonal_scatter(x[None], lib.zeros(1, 3), 0, 1, 2)", "x.diagonal_scatter(lib.zeros(3), offset=1)",
    "lib.diagonal_scatter(x, lib.zeros(3).double())", "lib.diagonal_scatter(x, lib.zeros(0), 5)",
    "lib.diagonal_scatter(x.long(), lib.ones(3, dtype=lib.long))",
    # masked_scatter: broadcasting, row-major source, errors
    "lib.masked_scatter(a, m, src)", "a.masked_scatter(m[0], src)", "a.masked_scatter(m[:, :1], src)",
    "a[0].masked_scatter(m, src)", "a.masked_scatter(m.long(), src)", "a.masked_scatter(m, src[:2])",
    "a.masked_scatter(m, src.double())", "a.masked_scatter(m, src.reshape(7, 1))",
    "a.clone().masked_scatter_(m, src)", "a.clone().masked_scatter_(m.long(), src)",
    "a[0].clone().masked_scatter_(m, src)", "a.clone().masked_scatter_(m[0], src)",
    "a.clone().masked_scatter_(m[:1, :2], src)", "a.masked_scatter(m, 2.0)",
    "a.long().masked_scatter(m, src.long())", "a.masked_scatter(lib.tensor(True), src)",
    "lib.tensor(1.0).masked_scatter(lib.tensor(True), src)", "a.masked_scatter(m.byte(), src)",
    "a.masked_scatter(m[:0], src)", "a.masked_scatter(m, src[:0])", "a.masked_scatter(m & False, src[:0])",
    "a.masked_scatter(mask=m, source=src)", "lib.masked_scatter(a, m, src.t() if False else src[::2])",
    # index_reduce
    "lib.index_reduce(a, 1, i, b, 'prod')", "a.index_reduce(1, i, b, 'mean')",
    "a.index_reduce(1, i, b, 'amax')", "a.index_reduce(1, i, b, 'amin')",
    "a.index_reduce(1, i, b, 'prod', include_self=False)", "a.index_reduce(1, i, b, 'mean', include_self=False)",
    "a.index_reduce(1, i[:3], b[:, :3], 'amax', include_self=False)", "a.index_reduce(1, i, b, 'sum')",
    "a.index_reduce(1, i.int(), b, 'mean')", "a.index_reduce(1, i.float(), b, 'mean')",
    "a.index_reduce(1, i[:2], b, 'mean')", "a.index_reduce(1, i + 3, b, 'mean')",
    "a.index_reduce(1, i - 4, b, 'mean')", "a.index_reduce(1, i, b.double(), 'mean')",
    "a.long().index_reduce(1, i, b.long(), 'mean')", "(-a).long().index_reduce(1, i, b.long(), 'mean')",
    "a.long().index_reduce(1, i, b.long(), 'mean', include_self=False)",
    "a.index_reduce(0, i[:2], b[:, :3], 'amax')", "a.index_reduce(1, i[None], b, 'mean')",
    "a.index_reduce(2, i, b, 'mean')", "a.index_reduce(1, i, b[0], 'mean')",
    "a.clone().index_reduce_(1, i, b, 'prod')", "a.clone().index_reduce_(1, i, b, 'amin', include_self=False)",
    "a.index_reduce(1, i, b, reduce='prod', include_self=True)",
    "lib.tensor(2.0).index_reduce(0, lib.tensor([0, 0]), lib.tensor([3.0, 4.0]), 'prod')",
    "lib.tensor(2.0).index_reduce(0, lib.tensor(0), lib.tensor(3.0), 'prod')",
    "a.bool().index_reduce(1, i, b.bool(), 'prod')", "a.index_reduce(1, i, b[:, :0], 'mean')",
    "a.index_reduce(1, i[:0], b[:, :0], 'mean')", "a.index_reduce(1, i, b, 'amax', include_self=0)",
]


def _outcome(lib, code):
    return outcome(lib, SETUP, code)


@pytest.mark.parametrize("code", CASES)
def test_values_dtypes_and_errors_match_torch(code):
    assert_same(_outcome(leafgrad, code), _outcome(torch, code))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("operands", ["a, b", "z, zs"])
def test_index_reduce_gradients_with_ties_and_zeros_match_torch(reduce, include_self, operands):
    def run(lib):
        namespace = {"lib": lib}
        exec(SETUP, namespace)  # noqa: S102
        self_, source = (namespace[n].clone().requires_grad_() for n in operands.split(", "))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = self_.index_reduce(1, namespace["i"], source, reduce, include_self=include_self)
        (out * lib.arange(6.0).reshape(2, 3)).sum().backward()
        return out.grad_fn.name(), self_.grad.numpy(), source.grad.numpy()

    ours, theirs = run(leafgrad), run(torch)
    assert ours[0] == theirs[0]
    for got, want in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_index_reduce_warns_once_that_it_is_beta():
    from leafgrad.ops import scatter_extra

    scatter_extra._index_reduce_warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            leafgrad.zeros(2).index_reduce(0, leafgrad.tensor([0]), leafgrad.ones(1), "amax")
    assert [(w.category, str(w.message)) for w in caught] == [
        (UserWarning, "index_reduce() is in beta and the API may change at any time.")]


def test_masked_scatter_source_gradient_leaves_unread_elements_zero():
    def run(lib):
        a = lib.zeros(2, 3, requires_grad=True)
        src = lib.arange(1.0, 9.0).reshape(2, 4).requires_grad_()
        mask = lib.tensor([[True, False, True], [False, True, True]])
        (a.masked_scatter(mask, src) * lib.arange(6.0).reshape(2, 3)).sum().backward()
        return a.grad.numpy().tolist(), src.grad.numpy().tolist()

    assert run(leafgrad) == run(torch)
