"""Python numbers written into tensors (``t[i] = v``, fill_, full, full_like, new_full,
masked_fill, index_fill, fill_diagonal_) are converted as torch's checked conversion does:
found by replaying test_autograd's test_pyscalar_conversions (``f[0] = sys.float_info.max``
into a float32 tensor raises in torch); each call's outcome must be torch's."""

from __future__ import annotations

import sys
import warnings

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

_DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "int32",
           "int64", "uint16", "uint32", "uint64", "bool", "complex64"]
_VALUES = [sys.float_info.max, 1e39, 3.5e38, 3.4028235677973366e38, 70000.0, 65520.0, 65519.0,
           300, 256, 255.5, -1.0, -0.5, -1, -129, -255, -256, 2**31, 2**63 - 1, 2**63, -2**63,
           2**64, -2**63 - 1, 2.0**63, 2.0**64, float("inf"), float("nan"), 1e20, True, 0]

_FORMS = {
    "setitem": lambda lib, t, v: t.__setitem__(0, v),
    "setitem_advanced": lambda lib, t, v: t.__setitem__(lib.tensor([0]), v),
    "setitem_mask": lambda lib, t, v: t.__setitem__(lib.tensor([True, False]), v),
    "fill_": lambda lib, t, v: t.fill_(v),
    "full": lambda lib, t, v: lib.full((2,), v, dtype=t.dtype),
    "full_like": lambda lib, t, v: lib.full_like(t, v),
    "new_full": lambda lib, t, v: t.new_full((2,), v),
    "masked_fill": lambda lib, t, v: t.masked_fill(lib.tensor([True, False]), v),
    "masked_fill_": lambda lib, t, v: t.masked_fill_(lib.tensor([True, False]), v),
    "index_fill": lambda lib, t, v: t.index_fill(0, lib.tensor([0]), v),
    "index_fill_": lambda lib, t, v: t.index_fill_(0, lib.tensor([0]), v),
}


def _outcome(lib, dtype, form, value):
    target = lib.zeros(2, dtype=getattr(lib, dtype))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = _FORMS[form](lib, target, value)
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).split("\n")[0], str(target.tolist())
    result = target if result is None else result
    return "ok", str(result.tolist()), str(target.tolist())  # (str: NaN equals itself)


@pytest.mark.parametrize("form", sorted(_FORMS))
@pytest.mark.parametrize("dtype", _DTYPES)
def test_python_numbers_written_into_tensors(dtype, form):
    got = [_outcome(leafgrad, dtype, form, v) for v in _VALUES]
    expected = [_outcome(torch, dtype, form, v) for v in _VALUES]
    for value, mine, theirs in zip(_VALUES, got, expected):
        assert mine == theirs, value


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("value", [sys.float_info.max, 1e19, -1e19, 2.5, -2.5, 1e300, 0.0])
def test_int_of_a_tensor(dtype, value):
    def outcome(lib):
        tensor = lib.tensor([value], dtype=lib.float64).to(getattr(lib, dtype))
        try:
            return "ok", int(tensor)
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).split("\n")[0]

    assert outcome(leafgrad) == outcome(torch)


@pytest.mark.parametrize("form", sorted(_FORMS))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "int8", "uint8"])
def test_python_numbers_written_into_one_element_tensors(dtype, form):
    def outcome(lib, value):
        target = lib.zeros(1, dtype=getattr(lib, dtype))
        mask = lib.tensor([True])
        call = {"full": lambda: lib.full((1,), value, dtype=target.dtype),
                "new_full": lambda: target.new_full((1,), value),
                "setitem_mask": lambda: target.__setitem__(mask, value),
                "masked_fill": lambda: target.masked_fill(mask, value),
                "masked_fill_": lambda: target.masked_fill_(mask, value)}.get(
                    form, lambda: _FORMS[form](lib, target, value))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = call()
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).split("\n")[0]
        return "ok", str((target if result is None else result).tolist())

    for value in [1e39, 70000.0, 3.5e38, 2**31, 300, -1, float("nan")]:
        assert outcome(leafgrad, value) == outcome(torch, value), value
