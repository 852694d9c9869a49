"""scatter_reduce / scatter_reduce_ / torch.scatter_reduce against torch 2.13 (issue 11 item 7):
every reduction with and without the input's own values, float and integer dtypes (integer
means round down), every subset of inputs requiring grad, ties in amax/amin, zeros in prod,
0-d and empty tensors, NaN, the in-place and out= forms, and torch's errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
SELF = [[1.0, 0.0, 3.0], [4.0, 5.0, -2.0]]
SRC = [[2.0, 7.0, 0.0, 1.0], [3.0, 3.0, -1.0, 6.0]]  # a zero, a tie, repeated targets
INDEX = [[0, 1, 0, 2], [2, 2, 0, 1]]


def _outcome(run):
    try:
        out = run()
    except Exception as error:  # noqa: BLE001 - comparing what torch raises
        return type(error).__name__, str(error).splitlines()[0]
    return str(out.dtype).split(".")[-1], tuple(out.shape), str(out.detach().numpy().tolist())


@pytest.mark.parametrize("reduce,include_self", itertools.product(REDUCTIONS, (True, False)))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_values_match_torch(reduce, include_self, dtype):
    def run(lib):
        d = getattr(lib, dtype)
        x, src, index = lib.tensor(SELF).to(d), lib.tensor(SRC).to(d), lib.tensor(INDEX)
        return [_outcome(lambda: x.scatter_reduce(1, index, src, reduce, include_self=include_self)),
                _outcome(lambda: lib.scatter_reduce(x.t(), 0, index.t(), src.t(), reduce,
                                                    include_self=include_self)),
                _outcome(lambda: x.clone().scatter_reduce_(-1, index, src, reduce,
                                                           include_self=include_self))]

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("reduce,include_self", itertools.product(REDUCTIONS, (True, False)))
@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)])
def test_gradients_match_torch(reduce, include_self, grads):
    def run(lib):
        x = lib.tensor(SELF, dtype=lib.float64, requires_grad=grads[0])
        src = lib.tensor(SRC, dtype=lib.float64, requires_grad=grads[1])
        out = x.scatter_reduce(1, lib.tensor(INDEX), src, reduce, include_self=include_self)
        weights = lib.arange(6.0, dtype=lib.float64).view(2, 3)
        leaves = [t for t in (x, src) if t.requires_grad]
        found = lib.autograd.grad((out * weights).sum(), leaves)
        return out.grad_fn.name(), [g.numpy().tolist() for g in found]

    assert run(leafgrad) == run(torch)


def test_gradcheck_where_smooth():
    x = leafgrad.tensor(np.random.default_rng(0).uniform(0.5, 2, (2, 3)), requires_grad=True)
    src = leafgrad.tensor(np.random.default_rng(1).uniform(0.5, 2, (2, 4)), requires_grad=True)
    index = leafgrad.tensor(INDEX)
    for reduce, include_self in itertools.product(REDUCTIONS, (True, False)):
        def f(a, b):
            return a.scatter_reduce(1, index, b, reduce, include_self=include_self)
        assert leafgrad.autograd.gradcheck(f, (x, src))
        assert leafgrad.autograd.gradgradcheck(f, (x, src))


@pytest.mark.parametrize("program", [
    "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'sum')",
    "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'bogus')",
    "lib.tensor(2.).scatter_reduce(0, lib.tensor(0), lib.tensor(5.), 'sum')",
    "lib.tensor([float('nan'), 1.]).scatter_reduce(0, lib.tensor([1, 1]), "
    "lib.tensor([float('nan'), 3.]), 'amax')",
    "lib.zeros(2, 0).scatter_reduce(1, lib.zeros(2, 0).long(), lib.zeros(2, 0), 'mean')",
    "lib.zeros(2, 3).scatter_reduce(1, lib.tensor([[0, 5]]), lib.ones(1, 2), 'sum')",
    "lib.zeros(2, 3).scatter_reduce(1, lib.tensor([[0, -1]]), lib.ones(1, 2), 'sum')",
    "lib.zeros(2, 3).scatter_reduce(1, lib.tensor([[0, 1]]), lib.ones(1, 2).double(), 'sum')",
    "lib.zeros(2, 3).scatter_reduce(1, lib.tensor([[0.0, 1.0]]), lib.ones(1, 2), 'sum')",
    "lib.zeros(2, 3).scatter_reduce(1, lib.tensor([[0, 1]]).int(), lib.ones(1, 2), 'amin')",
    "lib.zeros(2, 3).scatter_reduce(1, lib.tensor([0, 1]), lib.ones(2), 'sum')",
    "lib.zeros(2, 3).scatter_reduce(1, lib.tensor([[0, 1, 2, 0]]), lib.ones(1, 2), 'sum')",
    "lib.zeros(2, 3).scatter_reduce(2, lib.tensor([[0, 1]]), lib.ones(1, 2), 'sum')",
    "lib.zeros(2, 3, dtype=lib.int64).scatter_reduce(1, lib.tensor([[0, 0, 1]]), "
    "lib.tensor([[-7, 2, 3]]), 'mean', include_self=False)",
    "lib.ones(2, 3, requires_grad=True).scatter_reduce_(1, lib.tensor([[0, 1]]), lib.ones(1, 2), 'sum')",
])
def test_edge_cases_and_errors_match_torch(program):
    assert _outcome(lambda: eval(program, {"lib": leafgrad})) == \
        _outcome(lambda: eval(program, {"lib": torch}))


def test_failed_in_place_call_leaves_the_tensor_unchanged():
    x = leafgrad.zeros(2, 3)
    before = x._version
    with pytest.raises(RuntimeError):
        x.scatter_reduce_(1, leafgrad.tensor([[0, 7]]), leafgrad.ones(1, 2), "sum")
    assert x._version == before and not x.any()
