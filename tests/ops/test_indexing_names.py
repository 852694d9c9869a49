"""grad_fn chains of indexing expressions equal torch's, for combinations of ints, slices
(full, partial, stepped, negative), None, Ellipsis, bools, lists and tensors on 1-3-D tensors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

ITEMS = ["0", "-1", ":", "0:", "1:", ":2", "::2", "0:5", "None", "...", "[0, 2]", "True",
         "lib.tensor([1])", "lib.tensor(1)"]


def _expressions():
    out = []
    for ndim in (1, 2, 3):
        for count in (1, 2):
            for combo in itertools.product(ITEMS, repeat=count):
                if combo.count("...") > 1:
                    continue
                out.append((ndim, "x[" + ", ".join(combo) + "]"))
    return out


def _chain(lib, ndim, expression):
    x = lib.tensor(np.arange(27.0)[: 3 ** ndim].reshape((3,) * ndim), requires_grad=True)
    try:
        y = eval(expression, {"x": x, "lib": lib})  # noqa: S307 - generated above
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__
    names, fn = [], y.grad_fn
    while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
        names.append(fn.name())
        fn = fn.next_functions[0][0]
    return names, tuple(y.shape), y.detach().numpy().tolist()


@pytest.mark.parametrize("ndim,expression", _expressions())
def test_indexing_records_torchs_nodes(ndim, expression):
    assert _chain(leafgrad, ndim, expression) == _chain(torch, ndim, expression)
