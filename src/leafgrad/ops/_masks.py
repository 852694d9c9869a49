"""Masks that backward formulas compute from values, as leafgrad.compile kernels.

A formula that zeroes a removable 0/0 (``_masked_zero(x == 0)``) computes the mask from the
values with NumPy; made through ``registry.array_kernel`` it is one node of a captured graph,
computed again from the new values on every replay (see Note: masks as kernels in
ops/activation.py). Eagerly it is the same NumPy call.
"""

from __future__ import annotations

import numpy as np

from .registry import array_kernel

__all__ = ["zero_mask", "zeros_tensor"]


def _is_zero(a):
    return a == 0


def zero_mask(tensor):
    """``tensor._data == 0``."""
    return array_kernel(_is_zero, tensor._data)


def zeros_tensor(shape, dtype):
    """A fresh zero Tensor (a backward's zero gradient), made by ``np.zeros`` through a kernel
    so that a capture makes it again on every replay instead of refusing an unseen array."""
    from ..tensor import _wrap

    return _wrap(array_kernel(np.zeros, tuple(shape), dtype=dtype))
