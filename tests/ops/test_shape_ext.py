"""Views, builders and index ops beyond the table: in-place forms, integer outputs, errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

PROGRAMS = [
    "x.nonzero()", "lib.nonzero(x > 0, as_tuple=True)", "lib.argwhere(x)", "(x > 0).nonzero()",
    "x.clone().scatter_(1, lib.tensor([[0], [2]]), 9.0)",
    "x.clone().scatter_add_(0, lib.tensor([[1, 0, 1]]), lib.ones(1, 3))",
    "x.clone().index_add_(0, lib.tensor([1, 1]), lib.ones(2, 3), alpha=3)",
    "x.clone().masked_fill_(x > 1, 0.0)",
    "x.clone().index_put_((lib.tensor([0, 1]), lib.tensor([2, 2])), lib.tensor([5.0, 6.0]))",
    "x.clone().index_put_((lib.tensor([0, 0]),), lib.ones(3), accumulate=True)",
    "lib.meshgrid(lib.arange(3), lib.arange(2), indexing='xy')",
    "lib.meshgrid(lib.arange(3), lib.arange(2), indexing='ij')",
    "lib.broadcast_tensors(lib.ones(3), lib.ones(2, 1))", "lib.hstack([lib.tensor(1.), lib.ones(2)])",
    "lib.vstack([lib.ones(3), x])", "x.repeat_interleave(2)", "x.repeat_interleave(lib.tensor([1, 2]), dim=0)",
    "x.chunk(5, 1)", "x.split(2, -1)", "x.diagonal(-1)", "x.movedim((0, 1), (1, 0))",
    "x.unflatten(1, (3, 1))", "x.unflatten(1, (-1, 1))", "x.rot90(-1)", "x.roll(-4)", "x.take(lib.tensor([]).long())",
    "x.gather(0, lib.tensor([[0, 1, 1]]))", "x.index_select(0, lib.tensor([1.0]))",
    "x.gather(1, lib.tensor([[3]]))", "x.index_select(1, lib.tensor([3]))", "x.take(lib.tensor([6]))",
    "x.masked_fill(x, 1.0)", "x.masked_select(lib.ones(2, 3))", "x.split([1, 1], 1)", "x.chunk(0)",
    "x.diagonal(0, 1, 1)", "x.repeat(2)", "x.rot90(1, (0,))", "x.unflatten(1, (2, 2))",
    "lib.meshgrid(lib.ones(2), indexing='yx')", "x.movedim(0, 5)",
]


def _observe(lib, program):
    x = lib.tensor([[0.0, 1.5, -2.0], [3.0, 0.0, 0.5]])
    try:
        result = eval(program, {"lib": lib, "x": x})
    except Exception as error:  # noqa: BLE001 - comparing whatever torch raises
        return ("error", type(error).__name__, str(error).splitlines()[0])
    results = result if isinstance(result, tuple) else (result,)
    return tuple((str(r.dtype).split(".")[-1], tuple(r.shape), r.tolist()) for r in results)


@pytest.mark.parametrize("program", PROGRAMS)
def test_matches_torch(program):
    assert _observe(leafgrad, program) == _observe(torch, program)


def test_inplace_scatter_on_a_non_leaf_records_like_torch():
    def run(lib):
        a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        src = lib.tensor([[7.0], [8.0]], requires_grad=True)
        b = a * 1
        b.scatter_(1, lib.tensor([[0], [2]]), src)
        (b * b).sum().backward()
        return b.grad_fn.name(), a.grad.tolist(), src.grad.tolist(), b._version

    assert run(leafgrad) == run(torch)
