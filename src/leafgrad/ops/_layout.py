"""Output memory layouts: torch's strides where NumPy would choose others.

Note: output layout
A torch op allocates its output in one of a few layouts, and user code depends on them:
``x.sum(1, keepdim=True).view(n)`` works in torch because a reduction's output is contiguous,
and ``y.stride()`` / ``y.is_contiguous()`` print what torch's allocation gave. NumPy follows the
input's layout in more places (a reduction over a transposed array returns a transposed
result), so the ops whose torch output layout differs from NumPy's say which one they use:

- ``contiguous``: a fresh row-major array (reductions, softmax, scans, cat, padding, ...).
- ``suggested``: torch's ``suggest_memory_format``: channels-last when the source is a 4-d
  channels-last tensor, row-major otherwise (normalisation layers, pooling).
- ``like``: torch's ``MemoryFormat::Preserve`` (``empty_like``): the source's order of dims,
  densely packed (clone, flip, sort).
- ``column_major``: LAPACK's layout, each matrix of a batch stored by columns (the results of
  linalg factorisations and solves).

Elementwise ops need nothing: NumPy's ufuncs already order the output like their inputs, as
torch's TensorIterator does (the two differ only when several inputs disagree on a layout).
Each helper returns its argument unchanged when it already has the layout, so the common case
costs one flag test.
"""

from __future__ import annotations

import numpy as np

__all__ = ["contiguous", "suggested", "like", "column_major", "is_channels_last",
           "to_channels_last"]


def contiguous(array) -> np.ndarray:
    """A row-major array (0-d arrays and NumPy scalars become 0-d arrays, never 1-d)."""
    array = np.asarray(array)
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)


def is_channels_last(array: np.ndarray, rank: int = 4) -> bool:
    """torch's channels-last contiguity of a 4-d (or, ``rank=5``, 5-d) array: C innermost, then
    the spatial dims from last to first, then N, densely packed; dims of size 1 place no
    constraint (``is_contiguous(memory_format=channels_last)``)."""
    if array.ndim != rank:
        return False
    expected = array.itemsize
    for dim in (1,) + tuple(range(rank - 1, 1, -1)) + (0,):
        size = array.shape[dim]
        if size != 1:
            if array.strides[dim] != expected:
                return False
            expected *= size
    return True


def _channels_last(array: np.ndarray) -> bool:
    """Channels-last and not also row-major: where torch suggests the channels-last format."""
    return array.ndim == 4 and not array.flags.c_contiguous and is_channels_last(array)


def to_channels_last(array: np.ndarray) -> np.ndarray:
    """A copy of a 4-d or 5-d array with the channels dim innermost."""
    spatial = tuple(range(2, array.ndim))
    stored = np.array(array.transpose((0,) + spatial + (1,)), copy=True, order="C")
    return stored.transpose((0, array.ndim - 1) + tuple(d - 1 for d in spatial))


def suggested(array: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Row-major, or channels-last when ``source`` (same rank) is a channels-last 4-d array."""
    if array.ndim == 4 and _channels_last(source):
        return array if _channels_last(array) else to_channels_last(array)
    return contiguous(array)


def empty_like_source(array: np.ndarray, source: np.ndarray):
    """An empty ``array`` given an empty ``source``'s strides, as torch's empty_like and clone
    keep an empty tensor's strides (Note: strides of empty tensors, tensor.py); None when the
    source is not empty or its strides are not plain ones to copy."""
    if source.size or array.ndim != source.ndim or not any(source.strides) \
            or min(source.strides) < 0:
        return None
    strides = tuple(s // source.itemsize * array.itemsize for s in source.strides)
    return np.lib.stride_tricks.as_strided(array, strides=strides)


def _row_major_like(source: np.ndarray) -> bool:
    # torch's empty_like gives an expanded (stride-0) source the row-major layout
    return source.flags.c_contiguous or any(
        stride == 0 and size > 1 for stride, size in zip(source.strides, source.shape))


def like(array: np.ndarray, source: np.ndarray) -> np.ndarray:
    """``array`` (of ``source``'s shape) laid out as torch's ``empty_like(source)``: the
    source's dims in the same order from outermost to innermost, densely packed (its exact
    strides when it is dense). NumPy's "K" order computes the same strides."""
    kept = empty_like_source(array, source)
    if kept is not None:
        return kept
    if array.ndim != source.ndim or _row_major_like(source):
        return contiguous(array)
    out = np.empty_like(source, dtype=array.dtype)
    if out.strides == array.strides:
        return array
    out[...] = array
    return out


def copy_like(source: np.ndarray) -> np.ndarray:
    """A copy of ``source`` in the layout ``like`` describes (torch's ``clone()``)."""
    copy = np.array(source, copy=True, order="C" if _row_major_like(source) else "K")
    kept = empty_like_source(copy, source)
    return copy if kept is None else kept


def column_major(array: np.ndarray) -> np.ndarray:
    """Each matrix (last two dims) stored by columns, batches outermost, as LAPACK returns."""
    if array.ndim < 2:
        return contiguous(array)
    swapped = np.swapaxes(array, -1, -2)
    if swapped.flags.c_contiguous:
        return array
    return np.swapaxes(np.ascontiguousarray(swapped), -1, -2)
