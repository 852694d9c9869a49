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

Elementwise ops mostly need nothing: NumPy's ufuncs already order the output like their inputs,
as torch's TensorIterator does. The two differ when several inputs disagree on a layout (NumPy
falls back to row-major, TensorIterator lets the first operand that decides decide): the
registry passes the results of elementwise ops with two or more array operands through
``iterated``, which reorders them only then (``where`` does it in its forward: its condition,
a parameter here, is TensorIterator's first operand; the array-level backwards that stand for
such ops, ``_times`` and ``_plain`` in elementwise.py, do it as well, and leafgrad.compile's
replay gives such results the strides eager code gave them: _compile/codegen.py). Each helper
returns its argument unchanged when it already has the layout, so the common case costs one
flag test.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["contiguous", "suggested", "like", "column_major", "is_channels_last",
           "to_channels_last", "iterated", "iterated_strides"]


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
    if not stored.size:  # Note: strides of empty tensors (tensor.py): torch's packed strides
        strides, step = [], stored.itemsize
        for size in reversed(stored.shape):
            strides.append(step)
            step *= max(size, 1)
        stored = np.lib.stride_tricks.as_strided(stored, strides=tuple(reversed(strides)))
    return stored.transpose((0, array.ndim - 1) + tuple(d - 1 for d in spatial))


def suggested(array: np.ndarray, source: np.ndarray, fresh: bool = False) -> np.ndarray:
    """Row-major, or channels-last when ``source`` (same rank) is a channels-last 4-d array.
    ``fresh``: a result torch allocates with ``at::empty``, whose size-1 dims have row-major
    strides too (NumPy calls any stride of a size-1 dim contiguous)."""
    if array.ndim == 4 and _channels_last(source):
        return array if _channels_last(array) else to_channels_last(array)
    return row_major(array) if fresh else contiguous(array)


def row_major(array) -> np.ndarray:
    """``contiguous(array)`` with row-major strides in its size-1 dims too, as torch's
    ``at::empty`` gives them (NumPy calls any stride of a size-1 dim contiguous): a one-channel
    conv1d result had stride 1 in its channel dim, so matmul took bmm where torch folds it
    into mm (generated-program seed 41242)."""
    array = contiguous(array)
    if array.ndim > 1 and 1 in array.shape:
        return array.reshape(-1).reshape(array.shape)
    return array


def empty_like_source(array: np.ndarray, source: np.ndarray):
    """An empty ``array`` given an empty ``source``'s strides, as torch's empty_like and clone
    keep an empty tensor's strides (Note: strides of empty tensors, tensor.py); None when the
    source is not empty or its strides are not plain ones to copy."""
    if source.size or array.ndim != source.ndim or not any(source.strides) \
            or min(source.strides) < 0:
        return None
    strides = tuple(s // source.itemsize * array.itemsize for s in source.strides)
    return np.lib.stride_tricks.as_strided(array, strides=strides)


def sort_dims(perm: list, compare) -> None:
    """Sort ``perm`` in place as TensorIterator sorts dims: an insertion sort in which each dim
    moves left past the dims ``compare(left, it) > 0`` says it belongs before, stopping at the
    first ``< 0`` (a ``0``, undecided, is stepped over without a swap)."""
    for i in range(1, len(perm)):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = compare(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break


def _preserved_strides(source: np.ndarray):
    """The element strides of torch's ``empty_like(source)`` (``MemoryFormat::Preserve``), or
    None for plain row-major: a non-overlapping, dense source keeps its strides; any other
    gets ``infer_dense_strides``: its dims ordered by stride (a stable insertion sort in which a
    stride-0 dim never moves, ties going to the smaller size, as TensorIterator orders them),
    then packed densely (a dim of size 0 or 1 adds nothing)."""
    shape = source.shape
    item = source.itemsize
    strides = [stride // item for stride in source.strides]
    if source.flags.c_contiguous and (source.ndim < 2 or 1 not in shape):
        return None  # (NumPy's flag ignores the strides of size-1 dims; torch keeps them)
    if min(strides, default=0) >= 0:  # non-overlapping and dense: the strides as they are
        pairs = sorted((stride, size) for stride, size in zip(strides, shape) if size != 1)
        expected = 1
        for stride, size in pairs:
            if stride != expected:
                break
            expected *= size
        else:
            return tuple(strides)
    strides = [abs(stride) for stride in strides]
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))  # innermost candidate first

    def order(dim0: int, dim1: int) -> int:
        s0, s1 = strides[dim0], strides[dim1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[dim0] > shape[dim1] else 0

    sort_dims(perm, order)
    out = [0] * ndim
    current = 1
    for dim in perm:
        out[dim] = current
        if shape[dim] > 1:
            current *= shape[dim]
    row_major = [0] * ndim
    current = 1
    for dim in range(ndim - 1, -1, -1):
        row_major[dim] = current
        if shape[dim] > 1:
            current *= shape[dim]
    return None if out == row_major else tuple(out)


def _strided_empty(shape: tuple, strides: tuple, dtype) -> np.ndarray:
    size = 1
    for n in shape:
        size *= n
    item = np.dtype(dtype).itemsize
    return np.lib.stride_tricks.as_strided(np.empty(size, dtype), shape,
                                           tuple(s * item for s in strides))


def _dense_bytes(shape: tuple, itemsize: int) -> tuple:
    strides, current = [], itemsize
    for size in reversed(shape):
        strides.append(current)
        current *= max(size, 1)
    return tuple(reversed(strides))


_dense_bytes_cached = functools.lru_cache(maxsize=1024)(_dense_bytes)
dense_bytes = _dense_bytes_cached  # torch's row-major byte strides of a shape


def like(array: np.ndarray, source: np.ndarray, constant: bool = False) -> np.ndarray:
    """``array`` (of ``source``'s shape) laid out as torch's ``empty_like(source)``
    (``_preserved_strides``); ``array`` itself when it already is. ``constant``: every element
    of ``array`` is the same (``ones_like``'s), so a new layout is filled, not copied into (a
    row-major array copied into a transposed layout reads it across: 10x a fill)."""
    if source.flags.c_contiguous and array.flags.c_contiguous and source.size and (
            1 not in source.shape
            or source.strides == _dense_bytes_cached(source.shape, source.itemsize)):
        return array  # the common case: a plain row-major source (one cached lookup)
    kept = empty_like_source(array, source)
    if kept is not None:
        return kept
    if array.ndim != source.ndim:
        return contiguous(array)
    strides = _preserved_strides(source)
    if strides is None:
        return contiguous(array)
    item = array.itemsize
    if array.strides == tuple(s * item for s in strides):
        return array
    if array.flags.c_contiguous and all(
            size == 1 or s * item == have
            for size, s, have in zip(array.shape, strides, array.strides)):
        # the same memory order; only size-1 dims' strides differ: a view says them
        return np.lib.stride_tricks.as_strided(array, strides=tuple(s * item for s in strides))
    out = _strided_empty(array.shape, strides, array.dtype)
    if constant and array.size:
        out.fill(array.reshape(-1)[0])
    else:
        out[...] = array
    return out


def unary_like(out, source: np.ndarray):
    """``out``, the result of a unary elementwise op on ``source``, with the strides torch's
    TensorIterator gives it: a dense source's own, size-1 dims' included (NumPy's differ there,
    and kernels that fill rows one at a time return row-major: sigmoid of a transposed tensor,
    generated-program seed 37515, whose reshape then viewed what torch copies). Row-major
    sources cost one flag test."""
    if source.ndim > 1 and not source.flags.c_contiguous and type(out) is np.ndarray \
            and out.shape == source.shape:
        return like(out, source)
    return out


def copy_like(source: np.ndarray) -> np.ndarray:
    """A copy of ``source`` in the layout ``like`` describes (torch's ``clone()``)."""
    if source.flags.c_contiguous and source.size and (
            1 not in source.shape
            or source.strides == _dense_bytes_cached(source.shape, source.itemsize)):
        return np.array(source, copy=True, order="C")
    strides = _preserved_strides(source)
    if strides is None:
        copy = np.array(source, copy=True, order="C")
    else:
        copy = _strided_empty(source.shape, strides, source.dtype)
        copy[...] = source
    kept = empty_like_source(copy, source)
    return copy if kept is None else kept


def numpy_copy(copy: np.ndarray, source: np.ndarray) -> np.ndarray:
    """``copy``, a NumPy copy of the user's array ``source`` (``np.array(..., order="K")``),
    with ``source``'s strides in its size-1 dims, as torch's copy of a non-overlapping, dense
    tensor keeps every stride (``torch.tensor(a)`` of a transposed (1, n) array: strides
    (1, 1), not (n, 1)); NumPy makes those strides row-major. A broadcast source (a stride 0
    in a dim of size > 1) is laid out as torch's empty_like lays it (its stride-0 dims keep
    their place; NumPy's order="K" makes them innermost). Other layouts are unchanged."""
    if copy.shape == source.shape and 0 in source.strides and any(
            stride == 0 and size > 1 for stride, size in zip(source.strides, source.shape)):
        strides = _preserved_strides(source)
        if strides is None:
            return np.ascontiguousarray(copy)
        laid_out = _strided_empty(copy.shape, strides, copy.dtype)
        laid_out[...] = copy
        return laid_out
    if copy.ndim < 2 or 1 not in copy.shape or not copy.size or copy.shape != source.shape:
        return copy
    item, source_item = copy.itemsize, source.itemsize
    wanted = tuple(s // source_item * item for s in source.strides)
    if wanted == copy.strides or min(wanted) < 0:
        return copy
    if all(size == 1 or have == want
           for size, have, want in zip(copy.shape, copy.strides, wanted)):
        return np.lib.stride_tricks.as_strided(copy, strides=wanted)  # the same memory order
    return copy


def column_major(array: np.ndarray) -> np.ndarray:
    """Each matrix (last two dims) stored by columns, batches outermost, as LAPACK returns;
    with torch's strides in size-0 and size-1 dims too (ATen's
    batched_matrix_contiguous_strides: a (2, 40, 1) solution is strided (40, 1, 40))."""
    if array.ndim < 2:
        return contiguous(array)
    swapped = np.swapaxes(array, -1, -2)
    if not swapped.flags.c_contiguous:
        array = np.swapaxes(np.ascontiguousarray(swapped), -1, -2)
    wanted = list(_dense_bytes(array.shape, array.itemsize))
    wanted[-1] = max(array.shape[-2], 1) * array.itemsize
    wanted[-2] = array.itemsize
    if array.strides != tuple(wanted):
        return np.lib.stride_tricks.as_strided(array, strides=tuple(wanted))
    return array


def size_one_strides(array: np.ndarray) -> bool:
    """Whether a row-major array (by NumPy's flag) has other strides than row-major ones in
    its size-1 dims: torch's TensorIterator orders dims by those strides too (a (1, 1, 3) view
    strided (1, 3, 1) divided by a (3, 1) tensor is (1, 1, 3)-strided in torch, row-major in
    NumPy: generated-program seed 150887, whose later Linear then took another path)."""
    return array.strides != _dense_bytes_cached(array.shape, array.itemsize)


def decided_by_others(first: np.ndarray, out, operands) -> bool:
    """Whether a row-major first operand broadcast to the result leaves the order of its
    expanded dims to another operand that is not row-major (or has other size-1 strides):
    TensorIterator skips a 0 stride when it compares two dims, so that operand decides
    (generated-program seed 2260390: a (3, 1) tensor minus a (1, 1, 3) view strided (1, 1, 1)
    is (1, 1, 3)-strided in torch, row-major in NumPy; a later matmul then reshaped it through
    _reshape_alias)."""
    if type(out) is not np.ndarray or out.ndim < 2 or first.shape == out.shape:
        return False
    for operand in operands[1:]:
        if type(operand) is np.ndarray and operand.ndim > 1 and (
                not operand.flags.c_contiguous
                or 1 in operand.shape and size_one_strides(operand)):
            return True
    return False


def iterated(out, operands) -> np.ndarray:
    """``out``, the fresh result of an elementwise op on ``operands`` (arrays and numbers), in
    torch's TensorIterator order of dims where its operands disagree on a layout (see the
    module note); unchanged otherwise. The registry calls it only when the first operand has
    two or more dims and is not row-major: with a row-major first operand TensorIterator orders
    the result row-major (or as the operands that decide), as NumPy does; the common case costs
    one flag test there."""
    if type(out) is not np.ndarray or out.ndim < 2:
        return out
    return _reordered(out, operands)


def _reordered(out: np.ndarray, operands) -> np.ndarray:
    for operand in operands:
        if operand is out:  # (an in-place result)
            return out
    if not out.size:
        return _empty_result(out, operands)
    wanted = iterated_strides(out.shape, out.itemsize, operands)
    if wanted is None or out.strides == wanted:
        return out
    if all(size == 1 or have == want for size, have, want in zip(out.shape, out.strides, wanted)):
        # the same memory order; only size-1 dims' strides differ: a view says them
        return np.lib.stride_tricks.as_strided(out, strides=wanted)
    result = np.lib.stride_tricks.as_strided(np.empty(out.size, out.dtype), out.shape, wanted)
    np.copyto(result, out)
    return result


def iterated_strides(shape: tuple, itemsize: int, operands) -> tuple | None:
    """The byte strides TensorIterator gives an elementwise result of ``shape`` computed from
    ``operands`` (arrays and numbers) where two or more of the arrays disagree on a layout;
    None where they agree (or fewer than two are arrays of 1+ dims: NumPy orders the result as
    torch does). ``iterated`` and leafgrad.compile's code generator (which writes such a
    result straight into an array of these strides) both ask it; the code generator knows
    ``iterated``'s copies by their ``base`` (a NumPy result owns its memory)."""
    # An operand with no stride but 0 (a number expanded, as the gradient a sum's backward
    # passes on) decides no order, in TensorIterator as in NumPy: left out, the usual such
    # call (grad * other) returns here, at ~1 us instead of ~15 for the sort below.
    # NumPy gives a result's size-1 dims strides of its own; TensorIterator's follow its order
    # of dims (or, in its fast setup, the operands' strides), so with a size-1 dim the
    # one-layout cases below are worked out too.
    arrays = [operand for operand in operands
              if type(operand) is np.ndarray and operand.ndim and any(operand.strides)]
    ones = 1 in shape and len(shape) > 1
    if len(arrays) < 2 and not (arrays and (ones or _expanded(arrays[0], shape))):
        return None
    ndim = len(shape)
    strides = []
    for array in arrays:
        pad = ndim - array.ndim
        strides.append([0] * pad + [0 if size == 1 and shape[pad + i] != 1 else stride
                                    for i, (size, stride) in enumerate(zip(array.shape,
                                                                           array.strides))])
    if ones and len(arrays) > 1:
        # (operands that differ only in their size-1 dims' strides are all contiguous for
        # torch: the fast setup makes the result row-major, generated-program seed 401228,
        # whose matmul then folded into mm)
        fast = _fast_setup_strides(shape, itemsize, operands)
        if fast is not None:
            return fast
    elif len(arrays) > 1 and all(row == strides[0] for row in strides) and all(
            a.shape == shape for a in arrays):
        return None  # one layout for all: NumPy follows it too
    order = _iterator_order(shape, strides)
    wanted = [0] * ndim
    step = itemsize
    for dim in order:
        wanted[dim] = step
        step *= shape[dim]
    return tuple(wanted)


def _fast_setup_strides(shape: tuple, itemsize: int, operands) -> tuple | None:
    """TensorIterator's fast setup (compute_fast_setup_type): with two or more operands, all
    arrays of the result's shape (a number is a 0-d operand, and rules it out), the result is
    row-major when all are contiguous, channels-last when all are, and otherwise takes their
    strides when all share them and are non-overlapping and dense; None: no fast setup (the
    dims are ordered as for any result). Only the strides of size-1 dims tell it apart."""
    if len(operands) < 2 or any(type(operand) is not np.ndarray or operand.shape != shape
                                for operand in operands):
        return None
    if all(operand.flags.c_contiguous for operand in operands):
        return _dense_bytes(shape, itemsize)
    if len(shape) == 4 and all(is_channels_last(operand) for operand in operands):
        # (the 2-d channels-last format only: a 5-d operand is never is_contiguous(ChannelsLast))
        return (shape[1] * shape[3] * shape[2] * itemsize, itemsize,
                shape[1] * shape[3] * itemsize, shape[1] * itemsize)
    first = operands[0]
    elements = [stride // first.itemsize for stride in first.strides]
    if any([stride // operand.itemsize for stride in operand.strides] != elements
           for operand in operands[1:]) or min(elements) < 0:
        return None
    expected = 1
    for stride, size in sorted((stride, size) for stride, size in zip(elements, shape)
                               if size != 1):
        if stride != expected:
            return None
        expected *= size
    return tuple(stride * itemsize for stride in elements)


def _empty_result(out: np.ndarray, operands) -> np.ndarray:
    """An empty elementwise result with TensorIterator's strides. Operands all of its shape
    (every empty tensor is contiguous for torch) take the fast setup: row-major. Otherwise
    (a number among them is a 0-d operand) the dims are ordered as for any result, and when
    that order is not the reversed one, allocate_or_resize_outputs takes compatible_stride:
    products of the sizes in that order, so 0 after a 0-size dim (torch.empty(0, 1, 3).add(1)
    is (3, 0, 1)-strided)."""
    shape = out.shape
    ndim = len(shape)
    if all(type(operand) is np.ndarray and operand.shape == shape for operand in operands):
        wanted = _dense_bytes(shape, out.itemsize)
    else:
        rows = []
        for array in operands:
            if type(array) is not np.ndarray or not array.ndim:
                continue
            pad = ndim - array.ndim
            rows.append([0] * pad + [0 if size == 1 and shape[pad + i] != 1 else stride
                                     for i, (size, stride) in enumerate(zip(array.shape,
                                                                            array.strides))])
        order = _iterator_order(shape, rows)
        if order == list(range(ndim - 1, -1, -1)):
            wanted = _dense_bytes(shape, out.itemsize)
        else:
            wanted = [0] * ndim
            step = out.itemsize
            for dim in order:
                wanted[dim] = step
                step *= shape[dim]
            wanted = tuple(wanted)
    if out.strides == wanted:
        return out
    return np.lib.stride_tricks.as_strided(np.empty(0, out.dtype), shape, wanted)


def _expanded(array: np.ndarray, shape: tuple) -> bool:
    """Whether a lone operand is expanded (a 0 stride on a dim of 2+ elements): NumPy puts such
    a dim innermost in its result, TensorIterator leaves it where its order of the other dims
    puts it (generated-program seed 67086: ``x.t().expand(2, 3, -1) / 2`` was (1, 2, 6)-strided,
    torch's (3, 1, 3) is contiguous)."""
    return array.shape == shape and any(
        stride == 0 and size > 1 for size, stride in zip(array.shape, array.strides))


def _iterator_order(shape: tuple, strides: list) -> list:
    """TensorIterator's reorder_dimensions: the dims from innermost to outermost, by
    ``sort_dims``, in which the first operand whose strides differ for two dims (and are not
    0, a broadcast) decides, and equal strides put the shorter dim inside."""

    def should_swap(dim0, dim1):
        for row in strides:
            stride0, stride1 = row[dim0], row[dim1]
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 < stride1:
                return -1
            if stride0 > stride1:
                return 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    order = list(range(len(shape) - 1, -1, -1))
    sort_dims(order, should_swap)
    return order


def vectorized_elements(shape: tuple, operands, itemsize: int, avx512: bool = False):
    """Which elements of an elementwise result of ``operands`` (broadcast to ``shape``) torch's
    vectorised CPU loop computes, as a bool array of ``shape``; None when it computes none.

    ATen's ``cpu_kernel_vec`` (Loops.h) runs its vector op in steps of two 32-byte vectors
    (AVX2 build: 16 float32, 8 float64, 32 float16 elements) over
    the innermost dim TensorIterator leaves after ordering the dims (``_iterator_order``) and
    merging those it can; the leftover of each such row, and every row in which an input is
    neither contiguous nor (one input only) a broadcast number, takes the scalar op. (One
    thread's view: past 32768 elements torch splits the range among its threads, and each
    share starts its own vectors.) Where the two ops differ only on ties (maximum(+0., -0.)),
    this says which answer an element gets.

    On an AVX-512 machine torch runs its AVX-512 build only of the kernels registered with
    ``ALSO_REGISTER_AVX512_DISPATCH`` (DispatchStub.h: a plain ``REGISTER_DISPATCH`` registers
    nothing for AVX-512, and the dispatcher falls back to the AVX2 build). ``avx512``: the
    kernel is one of those (elu, hardswish, softplus, pow, ...: Activation.cpp, PowKernel.cpp),
    whose vectors are twice as wide there (ops/_isa.py)."""
    from . import _isa

    pair = _isa.pair(itemsize) if avx512 else 64 // itemsize
    ndim = len(shape)
    numel = 1
    for size in shape:
        numel *= size
    if _isa.CAPABILITY == "default" or numel < pair or ndim == 0:
        return None
    strides = []
    for array in operands:
        pad = ndim - array.ndim
        strides.append([0] * pad + [0 if size == 1 and shape[pad + i] != 1 else stride
                                    // array.itemsize for i, (size, stride)
                                    in enumerate(zip(array.shape, array.strides))])
    order = _iterator_order(shape, strides)  # innermost first; the result is dense in it
    rows = [[row[dim] for dim in order] for row in strides]
    # TensorIterator's coalesce_dimensions, as far as the innermost dim it leaves
    inner = shape[order[0]]
    inner_strides = [row[0] for row in rows]
    for k in range(1, ndim):
        size = shape[order[k]]
        if not (inner == 1 or size == 1 or all(inner * stride == row[k]
                                               for stride, row in zip(inner_strides, rows))):
            break
        if inner == 1:
            inner_strides = [row[k] for row in rows]
        inner *= size
    contiguous = inner_strides.count(1)
    if not (contiguous == len(rows)
            or contiguous == len(rows) - 1 and inner_strides.count(0) == 1):
        return None  # Loops.h's basic_loop: the scalar op throughout
    vectorized = inner // pair * pair
    if not vectorized:
        return None
    # the result is dense in ``order``: its memory position modulo a row is the place in it
    position = np.arange(numel).reshape([shape[dim] for dim in reversed(order)]) % inner
    position = position.transpose([ndim - 1 - order.index(dim) for dim in range(ndim)])
    return position < vectorized
