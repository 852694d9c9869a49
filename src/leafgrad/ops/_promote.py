"""torch's type promotion applied to NumPy operands (arrays and Python scalars).

NumPy's own rules differ: ``int64_array * 2.5`` is float64 there and float32 in torch, and
``int64 + float16`` is float64 there and float16 in torch. Ops call ``binary`` before doing
arithmetic so NumPy computes in the dtype torch would produce.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype

_BY_NP = _dtype._BY_NP  # (not rebuilt from .np: see _dtype._ComplexDtype)


def operand_dtype(value) -> "_dtype.dtype":
    if isinstance(value, np.ndarray):
        return _BY_NP[value.dtype]
    return _dtype._scalar_dtype(value)


class _Operand:
    """What ``_dtype.result_type`` needs to rank an array: its dtype and ndim."""

    __slots__ = ("dtype", "ndim")

    def __init__(self, array: np.ndarray):
        self.dtype = _BY_NP[array.dtype]
        self.ndim = array.ndim


def result_np_dtype(*operands) -> np.dtype:
    wrapped = [_Operand(op) if isinstance(op, np.ndarray) else op for op in operands]
    return _dtype.result_type(*wrapped).np


_EXACT_INT = 2**53  # every int up to this converts to float64 exactly, and once to float32/16


def binary(a, b):
    """Cast array operands to the dtype torch computes ``a op b`` in; scalars stay weak."""
    a_is_array = isinstance(a, np.ndarray)
    b_is_array = isinstance(b, np.ndarray)
    if a_is_array and b_is_array:
        if a.shape != b.shape:
            check_broadcast(a.shape, b.shape)
        if a.dtype == b.dtype:
            return a, b
    elif a_is_array and a.dtype.kind == "f":
        # The hot cases: a float tensor with a Python float, or with an int small enough that
        # NumPy's weak-scalar conversion gives exactly target.type(b) (torch keeps the tensor's
        # dtype for both, as NumPy does). Skips result_np_dtype's general ranking (~1 us).
        kind = type(b)
        if kind is float or (kind is int and -_EXACT_INT <= b <= _EXACT_INT):
            return a, b
    target = result_np_dtype(a, b)
    if a_is_array:
        if a.dtype != target:
            a = _cast(a, target)
    else:
        a = _scalar(target, a)
    if b_is_array:
        if b.dtype != target:
            b = _cast(b, target)
    else:
        b = _scalar(target, b)
    return a, b


def _cast(array: np.ndarray, target: np.dtype) -> np.ndarray:
    """``array`` in ``target``. An expanded operand (a 0 stride on a dim of 2+ elements) is cast
    once per element and expanded again: TensorIterator orders the result's dims by the
    operand's own strides, and NumPy's astype would lay the copy out anew, which changed the
    result's layout (``x * mask.expand(3, 3, 3)``, generated-program seed 76335)."""
    strides = array.strides
    if 0 in strides and array.size > 1:
        compact = array[tuple(slice(0, 1) if stride == 0 else slice(None) for stride in strides)]
        return np.broadcast_to(compact.astype(target), array.shape)
    return array.astype(target)


def _scalar(target: np.dtype, value):
    """A weak Python scalar in ``target``. An integer that does not fit an integer dtype wraps
    around as in torch (``int8_tensor + 300`` adds 44); NumPy 2 would raise OverflowError."""
    try:
        return target.type(value)
    except OverflowError:
        if target.kind not in "iu" or not isinstance(value, int):
            raise
        bits = target.itemsize * 8
        wrapped = value % (1 << bits)
        if target.kind == "i" and wrapped >= 1 << (bits - 1):
            wrapped -= 1 << bits
        return target.type(wrapped)


def float_result(a):
    """Cast integer/bool arrays to the default float dtype (for ``sqrt`` of an int tensor)."""
    if isinstance(a, np.ndarray) and a.dtype.kind not in "fc":
        return a.astype(_dtype.get_default_dtype().np)
    return a


def check_broadcast(a: tuple, b: tuple) -> None:
    """Raise torch's message when two shapes do not broadcast (NumPy's wording differs)."""
    ndim = max(len(a), len(b))
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        size_a = a[len(a) - 1 - offset] if offset < len(a) else 1
        size_b = b[len(b) - 1 - offset] if offset < len(b) else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at "
                f"non-singleton dimension {i}"
            )
