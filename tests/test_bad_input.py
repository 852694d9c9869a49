"""Bad input that used to give a silent wrong answer or a hang (issue 11, items 2-4, 7, 8):
operands torch rejects, negative gather/scatter indices, scatter's reduce argument,
self-referential lists, integer overflow at construction, and integer wrap-around where torch
wraps. Each case: the same result as torch, or the same exception type and first line."""

from __future__ import annotations

import decimal
import fractions
import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _self_referential():
    items = [1]
    items.append(items)
    return items


CASES = [
    "a + None", "None + a", "a * '2'", "a + [1, 2]", "a + (1, 2)", "a * decimal.Decimal(2)",
    "a * fractions.Fraction(1, 2)", "a - [1]", "a / '2'", "a == None", "a != None",
    "a < 'x'", "a ** [2]", "[1, 2] + a", "a @ None", "a & None", "b & None",
    "lib.add(a, None)", "lib.mul(a, 'x')", "lib.sub(a, [1])", "lib.div(a, None)",
    "a.add(None)", "a.mul('x')", "a.sub(decimal.Decimal(1))", "a.div([2])",
    "a + np.float32(2)", "a * 2.5", "a + True", "b + 3",
    "lib.tensor(2**63)", "lib.tensor([1, 2**63])", "lib.tensor(-2**63 - 1)",
    "lib.tensor([[1], [2**63]])", "lib.tensor(2**63 - 1)", "lib.tensor([1.5, 2**63])",
    "lib.tensor(-2**63)", "lib.tensor(self_referential())", "lib.tensor([[1, 2], [1, 2]])",
    "lib.tensor([1], dtype=lib.int8) + 300", "lib.tensor([1], dtype=lib.uint8) - 300",
    "lib.tensor([1], dtype=lib.int16) * 70000", "b + 2**40",
    "m.gather(1, lib.tensor([[-1]]))", "m.gather(1, lib.tensor([[3]]))",
    "m.index_select(1, lib.tensor([-1]))", "lib.index_select(m, 1, lib.tensor([3]))",
    "lib.zeros(3).scatter_(0, lib.tensor([-1]), 1.0)",
    "lib.zeros(3).scatter(0, lib.tensor([-1]), lib.ones(1))",
    "lib.zeros(3).scatter_add_(0, lib.tensor([-1]), lib.ones(1))",
    "lib.zeros(3).scatter_add(0, lib.tensor([5]), lib.ones(1))",
    "lib.zeros(3).index_add_(0, lib.tensor([-1]), lib.ones(1))",
    "lib.zeros(3).index_add(0, lib.tensor([3]), lib.ones(1))",
    "lib.nn.functional.embedding(lib.tensor([-1]), m)",
    "lib.nn.functional.embedding(lib.tensor([2]), m)",
    "m[-1]", "m[lib.tensor([-1])]", "m[:, -1]",
    "lib.ones(3).scatter_(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), reduce='add')",
    "lib.ones(3).scatter_(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), reduce='multiply')",
    "lib.ones(3).scatter(0, lib.tensor([0, 2]), 5.0, reduce='add')",
    "lib.ones(3).scatter(0, lib.tensor([0, 0]), 2.0, reduce='multiply')",
    "lib.ones(3).scatter_(0, lib.tensor([0]), lib.tensor([2.0]), reduce='bogus')",
    "lib.ones(2, 3).scatter(1, lib.tensor([[0, 0], [2, 1]]), lib.ones(2, 2) * 4, reduce='add')",
]


def _run(lib, code):
    a = lib.tensor([1.0, 2.0])
    b = lib.tensor([1, 2])
    m = lib.arange(6.0).reshape(2, 3)
    namespace = {"lib": lib, "a": a, "b": b, "m": m, "np": np, "decimal": decimal,
                 "fractions": fractions, "self_referential": _self_referential}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = eval(code, namespace)  # noqa: S307 - the cases above
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            return type(error).__name__, str(error).splitlines()[0]
    if hasattr(value, "tolist"):
        return str(value.dtype).split(".")[-1], value.tolist()
    return value


@pytest.mark.parametrize("code", CASES)
def test_bad_input_matches_torch(code):
    assert _run(leafgrad, code) == _run(torch, code)


def test_failed_calls_change_nothing():
    target = leafgrad.zeros(3)
    version = target._version
    for bad in (lambda: target.scatter_(0, leafgrad.tensor([-1]), 1.0),
                lambda: target.index_add_(0, leafgrad.tensor([7]), leafgrad.ones(1)),
                lambda: target.scatter_(0, leafgrad.tensor([0]), 1.0, reduce="bogus")):
        with pytest.raises((RuntimeError, IndexError)):
            bad()
    assert target.tolist() == [0.0, 0.0, 0.0] and target._version == version


def test_scatter_with_reduce_has_no_derivative_like_torch():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = x.scatter(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), reduce="add")
        try:
            y.sum().backward()
            error = None
        except RuntimeError as e:
            error = str(e)
        return y.grad_fn.name(), error

    assert run(leafgrad) == run(torch)


def test_self_referential_list_fails_fast():
    # a hang before: the nested-list walk expanded the list forever
    with pytest.raises(TypeError, match="self-referential lists are incompatible"):
        leafgrad.tensor(_self_referential())
    deep = [[1, [2, 3]], [_self_referential()]]
    with pytest.raises(TypeError):
        leafgrad.tensor(deep)


ZERO_D = ["F.softmax(x, 0)", "F.log_softmax(x, 0)", "F.softmax(x, -1)", "x.softmax(0)",
          "lib.log_softmax(x, -1)", "x.flip(0)", "x.flip([])", "x.chunk(1)", "x.chunk(2, 0)",
          "x.split(1)", "x.narrow(0, 0, 1)", "F.softmax(x * float('inf'), 0)"]


@pytest.mark.parametrize("code", ZERO_D)
def test_zero_dim_inputs_match_torch(code):
    """0-d tensors (issue 11 item 9): torch's values and gradients, or its message."""

    def run(lib):
        x = lib.tensor(2.0, requires_grad=True)
        try:
            y = eval(code, {"lib": lib, "F": lib.nn.functional, "x": x})  # noqa: S307
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0]
        y.sum().backward()
        return y.tolist(), x.grad.tolist(), y.grad_fn.name()

    ours, theirs = run(leafgrad), run(torch)
    assert repr(ours) == repr(theirs)
