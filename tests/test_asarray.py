"""``asarray`` and ``frombuffer`` (_asarray.py) against torch 2.13: values, dtypes, identity,
requires_grad and leaf state, errors, and whether memory is shared, for tensors, NumPy arrays,
buffer objects and Python data."""

from __future__ import annotations

import array
import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

CASES = [
    'lib.asarray(t)',
    'lib.asarray(t, copy=False)',
    'lib.asarray(t, copy=True)',
    'lib.asarray(t, dtype=lib.float64)',
    'lib.asarray(t, dtype=lib.float64, copy=False)',
    'lib.asarray(t, dtype=lib.float32, copy=False)',
    'lib.asarray(t, requires_grad=True)',
    'lib.asarray(t * 1, requires_grad=True)',
    'lib.asarray(leaf)',
    'lib.asarray(leaf, requires_grad=False)',
    'lib.asarray(leaf, requires_grad=True)',
    'lib.asarray(leaf, copy=True)',
    'lib.asarray(leaf, copy=True, requires_grad=False)',
    'lib.asarray(leaf, dtype=lib.float64)',
    'lib.asarray(leaf, dtype=lib.float64, requires_grad=True)',
    'lib.asarray(leaf * 2)',
    'lib.asarray(leaf * 2, requires_grad=True)',
    'lib.asarray(leaf * 2, requires_grad=False)',
    'lib.asarray(leaf * 2, copy=True)',
    'lib.asarray(t, copy=True, requires_grad=True)',
    'lib.asarray(t, dtype=lib.float64, requires_grad=True)',
    'lib.asarray(t.long(), requires_grad=True)',
    'lib.asarray(t[1:])',
    'lib.asarray(t[1:], requires_grad=True)',
    'lib.asarray(n)',
    'lib.asarray(n, copy=False)',
    'lib.asarray(n, copy=True)',
    'lib.asarray(n, dtype=lib.float32)',
    'lib.asarray(n, dtype=lib.float32, copy=False)',
    'lib.asarray(n, dtype=lib.float64, copy=False)',
    'lib.asarray(n, requires_grad=True)',
    'lib.asarray(n.astype(np.int32), requires_grad=True)',
    'lib.asarray(n[::2])',
    'lib.asarray(np.float64(2.5))',
    'lib.asarray(np.int16(2))',
    'lib.asarray(np.array([1, 2], dtype=np.uint16))',
    "lib.asarray(np.array(['a']))",
    'lib.asarray([1, 2, 3])',
    'lib.asarray([1., 2, 3])',
    'lib.asarray([1, 2, 3], copy=False)',
    'lib.asarray([1, 2, 3], copy=True)',
    'lib.asarray([1, 2, 3], dtype=lib.float64)',
    'lib.asarray([[1, 2], [3]])',
    'lib.asarray(3)',
    'lib.asarray(3.5)',
    'lib.asarray(True)',
    'lib.asarray(2 + 1j)',
    'lib.asarray([lib.tensor(1.), 2])',
    'lib.asarray([1, 2], dtype=lib.float16, requires_grad=True)',
    'lib.asarray([1, 2], requires_grad=True)',
    "lib.asarray(array.array('i', [1, 2, 3]))",
    "lib.asarray(array.array('d', [1, 2, 3]))",
    "lib.asarray(array.array('d', [1, 2, 3]), dtype=lib.float64)",
    "lib.asarray(b'abcd')",
    "lib.asarray(bytearray(b'abcd'))",
    "lib.asarray(memoryview(b'abcd'))",
    "lib.asarray(bytearray(b'abcd'), dtype=lib.int16)",
    "lib.asarray(bytearray(b'abc'), dtype=lib.int16)",
    "lib.asarray(bytearray(b'abcd'), copy=True, dtype=lib.uint8)",
    "lib.asarray(bytearray(b'abcd'), copy=False, dtype=lib.uint8)",
    "lib.asarray(bytearray(b''), dtype=lib.uint8)",
    "lib.asarray('ab')",
    'lib.asarray(None)',
    'lib.asarray(range(3))',
    'lib.asarray((1, 2))',
    "lib.asarray(n, device='cpu')",
    "lib.asarray(n, dtype='float')",
    'lib.asarray(n, requires_grad=1)',
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16, count=1)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16, count=1, offset=2)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16, offset=1)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int8, offset=1)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16, count=3)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16, offset=4)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16, offset=-1)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16, count=0)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02'), dtype=lib.int16)",
    "lib.frombuffer(bytearray(b''), dtype=lib.int16)",
    "lib.frombuffer(bytearray(b'\\x00\\x00\\x80\\x3f'), dtype=lib.float32, requires_grad=True)",
    "lib.frombuffer(bytearray(b'\\x01\\x00'), dtype=lib.int16, requires_grad=True)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'))",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), lib.int16)",
    'lib.frombuffer([1, 2], dtype=lib.int16)',
    'lib.frombuffer(np.arange(4, dtype=np.int16), dtype=lib.int16)',
    'lib.frombuffer(np.arange(4, dtype=np.int16).reshape(2, 2), dtype=lib.int8)',
    "lib.frombuffer(array.array('h', [1, 2]), dtype=lib.int16)",
    "lib.frombuffer(b'\\x01\\x00', dtype=lib.int16)",
    "lib.frombuffer(memoryview(bytearray(b'\\x01\\x00\\x02\\x00'))[2:], dtype=lib.int16)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.bool)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16, count=1.5)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00'), dtype=lib.int16, count=-2)",
    "lib.frombuffer(bytearray(b'\\x01\\x00\\x02\\x00' * 2), dtype=lib.float64)",
    'lib.frombuffer(bytearray(8), dtype=lib.complex64)',
]


def _outcome(lib, code):
    t = lib.arange(4.0)
    leaf = lib.ones(2, requires_grad=True)
    n = np.arange(4.0)
    scope = {"lib": lib, "t": t, "leaf": leaf, "n": n, "np": np, "array": array}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the once-per-process warnings: see below
        try:
            value = eval(code, scope)  # noqa: S307 - the table's calls
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            return type(error).__name__, str(error).splitlines()[0]
    return (value.tolist(), str(value.dtype).split(".")[-1], value.requires_grad, value.is_leaf,
            value.grad_fn and value.grad_fn.name(), value is t, value is leaf,
            t.requires_grad, leaf.requires_grad, value._base is not None)


@pytest.mark.parametrize("code", CASES)
def test_matches_torch(code):
    assert _outcome(leafgrad, code) == _outcome(torch, code)


SHARING = [
    ("np.arange(3.0)", {}), ("np.arange(3.0)", {"copy": True}),
    ("np.arange(3.0)", {"dtype": "float32"}), ("np.arange(3.0)", {"copy": False}),
    ("np.arange(6.0)[::2]", {}), ("bytearray(b'\\x01\\x00\\x02\\x00')", {"dtype": "int16"}),
    ("bytearray(b'\\x01\\x00\\x02\\x00')", {"dtype": "int16", "copy": True}),
    ("array.array('f', [1.0, 2.0])", {}), ("array.array('d', [1.0, 2.0])", {"dtype": "float64"}),
]


@pytest.mark.parametrize("source,options", SHARING)
def test_memory_shared_where_torch_shares(source, options):
    def run(lib):
        obj = eval(source)  # noqa: S307
        kwargs = {k: getattr(lib, v) if k == "dtype" else v for k, v in options.items()}
        result = lib.asarray(obj, **kwargs)
        before = result.tolist()
        obj[0] = 7  # the source changes: a shared tensor sees it
        seen = result.tolist()
        result[1] = 5  # the tensor changes: a shared source sees it
        back = obj[1] if not isinstance(obj, bytearray) else obj[2]
        return before, seen, back == 5

    assert run(leafgrad) == run(torch)


def test_frombuffer_shares_memory_both_ways():
    def run(lib):
        buffer = bytearray(b"\x01\x00\x02\x00\x03\x00")
        result = lib.frombuffer(buffer, dtype=lib.int16, count=2, offset=2)
        buffer[2] = 9
        result[1] = 4
        return result.tolist(), bytes(buffer), result.is_contiguous()

    assert run(leafgrad) == run(torch)


def test_asarray_tensor_requires_grad_warning_as_torch():
    # torch warns once per process; each library is run in a fresh state of its flag
    from leafgrad import _asarray

    _asarray._WARNED["requires_grad"] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        leafgrad.asarray(leafgrad.ones(2, requires_grad=True))
        leafgrad.asarray(leafgrad.ones(2, requires_grad=True))
        leafgrad.asarray(leafgrad.ones(2), requires_grad=True)
    messages = [str(w.message) for w in caught]
    assert messages == ["torch.asarray: unspecified requires_grad now defaults to "
                        "obj.requires_grad instead of False. Pass requires_grad=False explicitly "
                        "to get the old behavior and silence this warning."]
