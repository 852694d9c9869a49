"""Indexing reads and writes (basic, advanced, mixed) against torch: values, grad_fn, grads."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

WRITES = [
    "x[1:, [0, 2]] = v", "x[0, [1, 2]] = 9.0", "x[:, lib.tensor([True, False, True])] = 1.0",
    "x[[0, 1], 1:] = 5.0", "x[..., [0]] = 7.0", "x[[0, 2]] = 3.0", "x[x > 4] = 0.0",
    "x[1] = v[0, 0]", "x[:, 1] = lib.tensor([1.0, 2.0, 3.0])", "x[0:2, 0:2] = v",
    "x[None, 1, ::2] = 4.0", "x[-1, -1] = v.sum()", "x[[0, 0], [1, 1]] = lib.tensor([1.0, 2.0])",
]
READS = [
    "x[1]", "x[:, 1]", "x[1:]", "x[:]", "x[None]", "x[..., 1]", "x[0, 1]", "x[::2]", "x[[0, 2]]",
    "x[x > 2]", "x[:, [1, 2]]", "x[-1]", "x[1:2, None]", "x[...]", "x[[0, 1], [1, 2]]",
    "x[lib.tensor([[0], [2]]), lib.tensor([1, 2])]", "x[1:, [0, 2]]", "x[0, [True, False, True]]",
    # errors
    "x[3]", "x[0, 0, 0]", "x[[0, 5]]", "x[lib.tensor([0.5])]", "x[::-1]",
    # a lone int (Tensor.__getitem__'s shortcut to select), at the edges and on a 0-d tensor
    "x[-3]", "x[2]", "x[-4]", "x[True]", "x[1][2]", "x[1][-1][0]",
]


def _run(lib, program, write):
    a = lib.tensor(np.arange(9.0).reshape(3, 3), dtype=lib.float32, requires_grad=True)
    v = lib.tensor([[10.0, 20.0], [30.0, 40.0]], requires_grad=True)
    x = a * 1
    try:
        if write:
            exec(program, {"x": x, "v": v, "lib": lib})
            out = x
        else:
            out = eval(program, {"x": x, "v": v, "lib": lib})
    except Exception as error:  # noqa: BLE001 - comparing torch's exception
        return type(error).__name__, str(error).splitlines()[0]
    (out * out).sum().backward()
    return (out.detach().numpy().tolist(), out.grad_fn.name(), x._version,
            a.grad.numpy().tolist(), None if v.grad is None else v.grad.numpy().tolist())


@pytest.mark.parametrize("program", WRITES)
def test_setitem_matches_torch(program):
    assert _run(leafgrad, program, True) == _run(torch, program, True)


@pytest.mark.parametrize("program", READS)
def test_getitem_matches_torch(program):
    assert _run(leafgrad, program, False) == _run(torch, program, False)


def test_failed_write_changes_nothing():
    x = leafgrad.tensor([1.0, 2.0, 3.0])
    with pytest.raises(IndexError):
        x[[0, 7]] = 5.0
    assert x.tolist() == [1.0, 2.0, 3.0] and x._version == 0
