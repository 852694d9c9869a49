"""Tensor.sum_to_size, apply_/map_/map2_ and the fixed queries of a dense CPU tensor
(methods/inplace_forms.py: TensorQueryMethods) against torch 2.13."""

from __future__ import annotations

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

CASES = [
    'x.sum_to_size(1, 3)',
    'x.sum_to_size((2, 1))',
    'x.sum_to_size(2, 3)',
    'x.sum_to_size(3)',
    'x.sum_to_size([1])',
    'x.sum_to_size(2, 2)',
    'x.sum_to_size(1, 2, 3)',
    'x.sum_to_size(())',
    '(x * 1).sum_to_size(3)',
    '(x * 1).sum_to_size(1, 1)',
    'x.detach().sum_to_size(1, 3)',
    'lib.arange(4.).apply_(lambda v: v * 2)',
    'lib.arange(3).apply_(lambda v: v * 2.7)',
    'lib.arange(4.).map_(lib.ones(4), lambda a, b: a + b)',
    'lib.arange(4.).map_(lib.ones(1), lambda a, b: a - b)',
    'lib.arange(4.).map2_(lib.ones(4), lib.arange(4.), lambda a, b, c: a + b * c)',
    'x.apply_(lambda v: v)',
    'x.map_(lib.ones(2, 3), lambda a, b: a)',
    'lib.arange(6.).reshape(2, 3).t().apply_(lambda v: -v)',
    'lib.tensor([True, False]).apply_(lambda v: not v)',
    'lib.ones(0).apply_(lambda v: v + 1)',
    'x.output_nr',
    '(x * 1).output_nr',
    'lib.unbind(x * 1)[1].output_nr',
    'x.is_sparse',
    'x.is_sparse_csr',
    'x.is_quantized',
    'x.is_meta',
    'x.is_nested',
    'x.is_mkldnn',
    'x.is_pinned()',
    'x.is_shared()',
    'x.dim_order()',
    'x.t().dim_order()',
    'lib.ones(2, 3, 4).permute(2, 0, 1).dim_order()',
    'lib.tensor(1.).dim_order()',
]


def _outcome(lib, code):
    x = lib.arange(6.0).reshape(2, 3).requires_grad_()
    try:
        value = eval(code, {"lib": lib, "x": x})  # noqa: S307 - the table's calls
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0]
    if isinstance(value, lib.Tensor):
        return (value.tolist(), str(value.dtype).split(".")[-1],
                value.grad_fn and value.grad_fn.name(), value is x, value.requires_grad)
    return value


@pytest.mark.parametrize("code", CASES)
def test_matches_torch(code):
    assert _outcome(leafgrad, code) == _outcome(torch, code)


@pytest.mark.parametrize("code", ["t.apply_(lambda v: v + 1)",
                                  "t.map_(lib.ones(3), lambda a, b: a * 2 + b)",
                                  "t[0].map2_(t[1], lib.ones(3), lambda a, b, c: a - b + c)"])
def test_callable_fills_write_in_place_as_torch(code):
    # (torch writes through the data pointer: its version counter does not move)
    def run(lib):
        t = lib.arange(6.0).reshape(2, 3)
        view = t.t()
        before = t._version
        eval(code, {"lib": lib, "t": t})  # noqa: S307
        return t.tolist(), view.tolist(), t._version - before

    assert run(leafgrad) == run(torch)


def test_sum_to_size_gradient_as_torch():
    def run(lib):
        x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
        out = x.sum_to_size(3, 1)
        (out * lib.tensor([[1.0], [2.0], [3.0]])).sum().backward()
        return out.grad_fn.name(), out.tolist(), x.grad.tolist()

    assert run(leafgrad) == run(torch)
