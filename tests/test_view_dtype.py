"""``Tensor.view(dtype)`` against torch 2.13 (issue 11 item 12): values, shapes, errors, and
that the result shares memory and the version counter while not requiring grad."""

from __future__ import annotations

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

CASES = [
    "a.view(lib.int32)", "a.view(lib.int16)", "a.view(lib.float64)", "a.view(lib.uint8)",
    "lib.arange(4.0).view(lib.float64)", "z.view(lib.int16)", "z.view(lib.int32)",
    "m.t().view(lib.int16)", "m.t().view(lib.int32)", "m.view(lib.float16)",
    "lib.ones(3, requires_grad=True).view(lib.int32)", "lib.ones(3, requires_grad=True).view(lib.float32)",
    "lib.ones(4, requires_grad=True).view(lib.float16)", "(lib.ones(4, requires_grad=True) * 2).view(lib.int32)",
    "lib.tensor([1, 2], dtype=lib.uint8).view(lib.bool)", "lib.tensor([True]).view(lib.uint8)",
    "lib.zeros(0).view(lib.float64)", "m[:, 1:].view(lib.float64)", "m[:, :2].view(lib.float64)",
    "a[1:].view(lib.int8)", "lib.ones(3).view(dtype=lib.int32)", "a.view(lib.int32, 3)",
    "i.view(lib.float64)", "i.view(lib.int8)", "lib.arange(8.0).reshape(2, 4).view(lib.float64)",
    "lib.arange(8, dtype=lib.int16).view(lib.int64)",
]


def _run(lib, code):
    names = {"lib": lib, "a": lib.tensor([1.0, 2.0, 3.0]), "m": lib.arange(6.0).reshape(2, 3),
             "z": lib.tensor(2.0), "i": lib.tensor([1, 2, 3])}
    try:
        value = eval(code, names)  # noqa: S307 - the cases above
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0]
    return (str(value.dtype).split(".")[-1], list(value.shape), value.tolist(),
            value.requires_grad, value.grad_fn is None, value.stride())


@pytest.mark.parametrize("code", CASES)
def test_view_dtype_matches_torch(code):
    assert _run(leafgrad, code) == _run(torch, code)


def test_view_dtype_shares_memory_and_version():
    def run(lib):
        base = lib.tensor([1.0, 2.0])
        bits = base.view(lib.int32)
        bits.add_(1)
        return base.tolist(), base._version, bits._version

    assert run(leafgrad) == run(torch)
