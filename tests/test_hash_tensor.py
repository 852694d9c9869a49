"""``hash_tensor`` against torch: every dtype, 0-d, empty and non-contiguous inputs, ``dim``
forms, ``keepdim``, ``out=``, the method, and torch's errors."""

from __future__ import annotations

import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64", "uint16", "uint32", "uint64"]
VALUES = [[1.5, -2.0, 0.25, 0.0], [-0.0, 3.0, 7.0, -1.0], [float("nan"), 1e30, -5.5, 2.0]]


def _outcome(lib, fn):
    try:
        result = fn(lib)
    except Exception as exc:  # noqa: BLE001 - the type and first line are compared
        return type(exc).__name__, str(exc).splitlines()[0]
    return repr(result).replace("leafgrad", "torch"), tuple(result.shape)


def _input(lib, dtype, layout):
    base = lib.tensor(VALUES)
    if dtype not in ("float32", "float64", "float16", "bfloat16", "complex64"):
        base = base.nan_to_num(0.0, 100.0, -100.0).abs() if dtype.startswith("uint") or \
            dtype == "bool" else base.nan_to_num(0.0, 100.0, -100.0)
    base = base.to(getattr(lib, dtype))
    if layout == "transposed":
        return base.t()
    if layout == "sliced":
        return base[:, ::2]
    if layout == "zero_d":
        return base[1, 2]
    if layout == "empty":
        return base[:, :0]
    return base


@pytest.mark.parametrize("layout", ["plain", "transposed", "sliced", "zero_d", "empty"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_matches_torch(dtype, layout):
    calls = [
        lambda lib: lib.hash_tensor(_input(lib, dtype, layout)),
        lambda lib: lib.hash_tensor(_input(lib, dtype, layout), 0),
        lambda lib: lib.hash_tensor(_input(lib, dtype, layout), dim=-1, keepdim=True),
        lambda lib: lib.hash_tensor(_input(lib, dtype, layout), (0, 1)),
        lambda lib: _input(lib, dtype, layout).hash_tensor(),
        lambda lib: _input(lib, dtype, layout).hash_tensor(1, mode=0),
    ]
    for call in calls:
        assert _outcome(leafgrad, call) == _outcome(torch, call)


def test_other_forms():
    calls = [
        lambda lib: lib.hash_tensor(lib.tensor([1.0, 2.0]), mode=1),
        lambda lib: lib.hash_tensor(lib.ones(2, 3), 2),
        lambda lib: lib.hash_tensor(lib.ones(2, 3, requires_grad=True)),
        lambda lib: lib.hash_tensor(lib.ones(2, 3), 1, out=lib.empty(2, dtype=lib.uint64)),
        lambda lib: lib.hash_tensor(lib.ones(2, 3), out=lib.empty((), dtype=lib.int64)),
    ]
    for call in calls:
        assert _outcome(leafgrad, call) == _outcome(torch, call)


def test_out_is_written():
    for lib in (torch, leafgrad):
        out = lib.empty(3, dtype=lib.uint64)
        result = lib.hash_tensor(lib.tensor([[1.0, 2.0, 3.0]]), 0, out=out)
        assert result is out
    assert repr(out).replace("leafgrad", "torch") == repr(
        torch.hash_tensor(torch.tensor([[1.0, 2.0, 3.0]]), 0))
