"""torch's errors for allocations that cannot be made (issue 11 item 10): NumPy's MemoryError
and its size errors become torch's RuntimeErrors with torch's first lines."""

from __future__ import annotations

import math
import re
import weakref

import numpy as np

_NUMPY_MESSAGE = re.compile(r"Unable to allocate .* with shape \(([\d, ]*)\) and data type (\w+)")
_INT64_MAX = 2**63 - 1


def alloc_error(error: MemoryError) -> RuntimeError:
    """torch's message for the allocation NumPy refused (the byte count it asked for)."""
    found = _NUMPY_MESSAGE.search(str(error))
    if found is None:
        return RuntimeError("DefaultCPUAllocator: not enough memory")
    shape = [int(n) for n in found.group(1).replace(" ", "").split(",") if n]
    size = math.prod(shape) * np.dtype(found.group(2)).itemsize
    return RuntimeError(
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
        f"memory: you tried to allocate {size} bytes. Error code 12 (Cannot allocate memory)")


def check_storage(shape, itemsize: int) -> None:
    """torch's error for sizes whose byte count does not fit in an int64."""
    count = itemsize
    for n in shape:
        count *= n
    if count > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")


# Note: storages NumPy shares
# A storage whose memory NumPy holds too (``from_numpy``/``as_tensor`` of an array, or any
# tensor of it once ``numpy()`` handed it out) is not resizable in torch: ``resize_`` may use
# its elements but not grow it. The arrays at the root of such storages are kept here.
_SHARED_ROOTS: dict = {}  # id(root) -> a weak reference to the root array


def _root(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def share_with_numpy(array: np.ndarray) -> None:
    """Mark the storage ``array`` views as shared with NumPy (Note: storages NumPy shares)."""
    root = _root(array)
    key = id(root)
    known = _SHARED_ROOTS.get(key)
    if known is not None and known() is root:
        return
    try:  # (the entry goes when the root array does, before its id can be reused)
        _SHARED_ROOTS[key] = weakref.ref(root, lambda _, key=key: _SHARED_ROOTS.pop(key, None))
    except TypeError:  # (an array type that takes no weak reference: nothing to remember)
        pass


def check_resizable(array: np.ndarray) -> None:
    """torch's error for growing a storage NumPy shares."""
    root = _root(array)
    known = _SHARED_ROOTS.get(id(root))
    if known is not None and known() is root:
        raise RuntimeError("Trying to resize storage that is not resizable")
