"""scatter/scatter_add/scatter_reduce with src and index of different ranks, 0-d and empty
operands: torch's result or its exception (type and first line), never NumPy's indexing
error; gradients of a 0-d src as torch's."""

from __future__ import annotations

import warnings

import pytest

import leafgrad
from tests._torch import require_torch

CASES = [
    "m.scatter_(0, lib.tensor([[0, 1, 2]]), lib.ones(3))",
    "m.scatter_(0, lib.tensor([[0, 1, 2]]), lib.tensor(1.))",
    "m.scatter_add_(0, lib.tensor([[0, 1, 2]]), lib.ones(3))",
    "m.scatter(0, lib.tensor([[0, 1, 2]]), lib.ones(3))",
    "m.scatter_reduce_(0, lib.tensor([[0, 1, 2]]), lib.ones(3), 'sum')",
    "m.scatter_(0, lib.tensor([[0, 1, 2]]), lib.ones(3), reduce='add')",
    "m.scatter_(0, lib.tensor([[0, 1, 2]]), lib.ones(1, 3, 2))",
    "m.scatter_(0, lib.tensor([[0]]), lib.ones(3))",
    "m.scatter_(0, lib.tensor([[0, 1, 2]]), lib.ones(0))",
    "m.scatter_(0, lib.tensor([[0, 1, 2]]), lib.ones(1, 3))",
    "m.scatter_(0, lib.zeros(0, 3, dtype=lib.long), lib.ones(3))",
    "m.scatter_add(0, lib.zeros(0, 3, dtype=lib.long), lib.ones(3))",
    "m.scatter_(0, lib.tensor(0), lib.ones(3))",
    "lib.scatter_add(m, 0, lib.tensor([[0, 1, 2]]), lib.ones(3))",
    "lib.zeros(3).scatter_(0, lib.tensor([0, 1]), lib.tensor(1.))",
    "lib.zeros(3).scatter_(0, lib.tensor([0]), lib.tensor(1.))",
    "lib.zeros(3).scatter_add_(0, lib.tensor([2]), lib.tensor(5.))",
    "lib.zeros(3, 3, 3).scatter_(0, lib.zeros(1, 1, 1, dtype=lib.long), lib.ones(2, 2))",
    "lib.zeros(2, 3).scatter_add(1, lib.tensor([[0], [2]]), lib.tensor(4.))",
]


@pytest.mark.parametrize("code", CASES)
def test_matches_torch(code):
    torch = require_torch()

    def outcome(lib):
        m = lib.zeros(3, 3)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = eval(code, {"lib": lib, "m": m})  # noqa: S307 - the table's calls
            return "ok", value.reshape(-1).tolist(), m.reshape(-1).tolist()
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            return type(error).__name__, str(error).splitlines()[0], m.reshape(-1).tolist()

    assert outcome(leafgrad) == outcome(torch)


@pytest.mark.parametrize("op", ["scatter", "scatter_add"])
def test_zero_dim_src_gradient(op):
    torch = require_torch()

    def grads(lib):
        src = lib.tensor(2.0, requires_grad=True)
        x = lib.zeros(3, requires_grad=True)
        y = getattr(x, op)(0, lib.tensor([1]), src)
        (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        return src.grad.tolist(), x.grad.tolist(), y.grad_fn.name()

    assert grads(leafgrad) == grads(torch)
