"""Bad calls torch rejects with its own type and first line: index_select's two bounds
messages (and its empty-dim check), factories called without a size, *_like of a
non-tensor. Differential against torch 2.13."""

from __future__ import annotations

import pytest

import leafgrad

from ._torch import require_torch


def _outcome(fn):
    try:
        result = fn()
    except Exception as error:  # noqa: BLE001 - compared with torch's
        return type(error).__name__, str(error).splitlines()[0]
    return "ok", tuple(result.shape)


SHAPES = [((5,), 0), ((3, 2), 0), ((3, 2), 1), ((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 2),
          ((3, 0), 1), ((0, 2), 0), ((0,), 0), ((0, 3, 4), 2), ((2, 0, 4), 2), ((2, 3, 0), 0),
          ((3, 2), -1), ((3, 2, 1), -2), ((3, 2), -2)]


@pytest.mark.parametrize("index", [[5], [0], [-1], [], [1, 7]])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_index_select_bounds_messages(shape, dim, index):
    torch = require_torch()
    results = [_outcome(lambda: lib.zeros(*shape).index_select(dim, lib.tensor(index,
                                                                               dtype=lib.long)))
               for lib in (leafgrad, torch)]
    assert results[0] == results[1]


@pytest.mark.parametrize("call", [
    "lib.zeros()", "lib.ones()", "lib.empty()", "lib.rand()", "lib.randn()",
    "lib.zeros(())", "lib.ones([])", "lib.rand(dtype=lib.float64)",
    "lib.zeros_like(())", "lib.ones_like([])", "lib.empty_like(1.5)", "lib.full_like(None, 1)",
    "lib.rand_like(3)", "lib.randn_like([1.0])", "lib.randint_like([], 3)",
    "lib.zeros_like(lib.ones(2))",
])
def test_factory_argument_errors(call):
    torch = require_torch()
    results = [_outcome(lambda: eval(call, {"lib": lib})) for lib in (leafgrad, torch)]  # noqa: S307
    assert results[0] == results[1]
