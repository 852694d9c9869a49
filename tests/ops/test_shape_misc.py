"""Tensor.unfold, narrow_copy, unsafe_split/unsafe_chunk (ops/shape_misc.py): view and memory
semantics, call forms and errors against torch 2.13 (values and gradients: the op table)."""

from __future__ import annotations

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [
    "y.unfold(2, 2, 1)", "y.unfold(-1, 3, 2)", "y.unfold(0, 2, 1)", "y.unfold(2, 5, 1)",
    "y.unfold(2, 0, 1)", "y.unfold(2, 2, 0)", "y.unfold(3, 2, 1)", "y.unfold(2, -1, 1)",
    "lib.tensor(5.0).unfold(0, 1, 1)", "lib.tensor(5.0).unfold(0, 2, 1)",
    "lib.tensor(5.0).unfold(-1, 0, 1)", "y.unfold(2, 4, 4)", "y[..., :0].unfold(2, 1, 1)",
    "y.unfold(dimension=1, size=2, step=1)", "y.unfold(1, 2.0, 1)",
    "y.transpose(0, 2).unfold(1, 2, 1)", "lib.arange(10).unfold(0, 3, 3)",
    "(lib.arange(6) > 2).unfold(0, 2, 1)",
    "lib.narrow_copy(y, 1, 0, 2)", "y.narrow_copy(-1, 1, 2)", "y.narrow_copy(1, 2, 2)",
    "y.narrow_copy(1, -1, 1)", "lib.narrow_copy(y, 3, 0, 1)", "lib.narrow_copy(y, 1, lib.tensor(1), 1)",
    "lib.narrow_copy(lib.tensor(1.0), 0, 0, 1)", "y.narrow_copy(1, 0, -1)", "lib.narrow_copy(y, 1, 1.0, 1)",
    "lib.narrow_copy(input=y, dim=0, start=1, length=1)",
    "lib.unsafe_chunk(y, 2, 2)", "y.unsafe_chunk(3)", "y.unsafe_chunk(2, -1)", "lib.unsafe_chunk(y, 0)",
    "lib.unsafe_split(y, 2, 2)", "y.unsafe_split(2)", "y.unsafe_split([1, 2], 1)",
    "lib.unsafe_split(y, [1, 2], 1)", "lib.unsafe_split_with_sizes(y, [1, 2], 1)",
    "y.unsafe_split_with_sizes([1, 1], 1)", "lib.unsafe_split(y, 0, 2)", "y.unsafe_split(-1, 2)",
    "lib.unsafe_chunk(lib.tensor(1.0), 1)", "lib.unsafe_chunk(y, 2.0)", "y.unsafe_split_with_sizes(2)",
    "lib.unsafe_split(y[:, :0], 0, 1)", "lib.unsafe_chunk(y, 5, 1)",
]


def _outcome(lib, code):
    y = lib.arange(24.0).reshape(2, 3, 4)
    try:
        value = eval(code, {"lib": lib, "y": y})  # noqa: S307 - the table's calls
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0]
    values = value if isinstance(value, tuple) else (value,)
    return type(value).__name__, [(str(v.dtype).split(".")[-1], v.numpy().tolist()) for v in values]


@pytest.mark.parametrize("code", CASES)
def test_values_and_errors_match_torch(code):
    assert _outcome(leafgrad, code) == _outcome(torch, code)


def _memory(lib, code):
    """Node names, views, shared memory and what an in-place write does, for ``code``."""
    x = lib.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 1
    out = eval(code, {"lib": lib, "y": y})  # noqa: S307
    first = out[0] if isinstance(out, tuple) else out
    facts = [first.grad_fn.name(), first._base is y, first.is_contiguous(), list(first.stride())]
    version = y._version
    try:
        with lib.no_grad():
            first.mul_(-1)
    except Exception as error:  # noqa: BLE001
        facts.append(str(error).splitlines()[0])
    facts += [y.detach().numpy().tolist(), y._version - version]
    return facts


@pytest.mark.parametrize("code", ["y.unfold(1, 2, 2)", "y.unfold(1, 1, 1)", "y.unfold(0, 3, 1)",
                                  "y.narrow_copy(1, 1, 2)", "y.unsafe_chunk(2, 1)",
                                  "lib.unsafe_split(y, 1)"])
def test_views_and_shared_memory_as_torch(code):
    assert _memory(leafgrad, code) == _memory(torch, code)


def test_unfold_gradient_adds_overlapping_windows():
    def run(lib):
        x = lib.arange(7.0, requires_grad=True)
        windows = x.unfold(0, 3, 2)
        (windows * lib.arange(9.0).reshape(3, 3)).sum().backward()
        return x.grad.numpy().tolist()

    assert run(leafgrad) == run(torch)
