"""torch's errors for allocations that cannot be made (issue 11 item 10): NumPy's MemoryError
and its size errors become torch's RuntimeErrors with torch's first lines."""

from __future__ import annotations

import math
import re

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
