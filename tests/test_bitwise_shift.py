"""Shift operators and torch.bitwise_left_shift/right_shift (with the in-place forms, `&=`,
`|=`, `^=`, `<<=`, `>>=` updating the tensor in place) against torch 2.13: every pair of
operand dtypes, shift amounts outside [0, bits), Python numbers on either side, views, out=."""

from __future__ import annotations

import itertools

import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()

NAMES = ("int8", "uint8", "int16", "int32", "int64", "bool", "float32")


def _outcome(run):
    try:
        result = run()
    except Exception as error:  # noqa: BLE001 - comparing what torch raises
        return type(error).__name__, str(error).splitlines()[0]
    return str(result.dtype).split(".")[-1], result.tolist()


def _operands(lib, a_name, b_name):
    a_dtype, b_dtype = getattr(lib, a_name), getattr(lib, b_name)
    a = lib.tensor([0, 1, 3, 100, 200, 255] if a_name == "uint8" else [-5, -1, 0, 1, 3, 100])
    b = lib.tensor([0, 1, 2, 7, 8, 70] if b_name == "uint8" else [-1, 0, 1, 7, 8, 70])
    return a.to(a_dtype), b.to(b_dtype)


@pytest.mark.parametrize("a_name,b_name", list(itertools.product(NAMES, NAMES)))
def test_tensor_shifts_match_torch(a_name, b_name):
    def run(lib):
        a, b = _operands(lib, a_name, b_name)
        return [_outcome(lambda: a << b), _outcome(lambda: a >> b),
                _outcome(lambda: lib.bitwise_left_shift(a[::2], b[1::2])),
                _outcome(lambda: a.bitwise_right_shift(b[:1]))]

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("a_name", NAMES)
@pytest.mark.parametrize("amount", [0, 1, 3, 9, 65, -1, 2.0, True])
def test_shifts_with_python_numbers_match_torch(a_name, amount):
    def run(lib):
        a, _ = _operands(lib, a_name, "int64")
        return [_outcome(lambda: a << amount), _outcome(lambda: a >> amount),
                _outcome(lambda: amount << a), _outcome(lambda: amount >> a),
                _outcome(lambda: lib.bitwise_right_shift(amount, a))]

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("a_name", NAMES)
def test_in_place_operators_update_the_tensor_itself(a_name):
    def run(lib):
        a, _ = _operands(lib, a_name, "int64")
        results = []
        for update in (lambda t: t.__ilshift__(1), lambda t: t.__irshift__(2),
                       lambda t: t.bitwise_left_shift_(2), lambda t: t.bitwise_left_shift_(2.5),
                       lambda t: t.__iand__(3), lambda t: t.__ior__(8), lambda t: t.__ixor__(1)):
            c = a.clone()
            before = c._version
            outcome = _outcome(lambda: update(c))
            results.append((outcome, c.tolist(), c._version - before))
        return results

    assert run(leafgrad) == run(torch)


def test_augmented_assignment_keeps_the_same_object():
    for lib in (leafgrad, torch):
        a = lib.tensor([1, 2, 3])
        alias = a
        alias <<= 2
        alias &= 12
        assert alias is a and a.tolist() == [4, 8, 12]


def test_out_and_empty_match_torch():
    def run(lib):
        a, _ = _operands(lib, "int16", "int64")
        out = lib.empty(0, dtype=lib.int64)
        returned = lib.bitwise_left_shift(a, 3, out=out)
        return (returned is out, _outcome(lambda: out),
                _outcome(lambda: lib.tensor([], dtype=lib.int64) << 1),
                _outcome(lambda: lib.tensor(5) >> lib.tensor([[1], [2]])))

    assert run(leafgrad) == run(torch)
