"""Floating-point sums in torch's order of additions (its CPU ``cascade_sum`` kernel).

NumPy sums float arrays pairwise, torch in a different order, so the last bits of a float32
sum differ from torch's about half the time, and a loss printed by a tutorial drifts after a
few steps. The order torch's kernel uses (ATen's SumKernel.cpp, single-threaded) is:

- a **row sum** reads the reduced elements as rows of 4 (``ilp``: element i goes to partial
  sum i % 4, over the first 4 * (n // 4) elements), sums each partial by the 4-level cascade
  below, adds the last n % 4 elements to partial 0 one by one, then adds partials 1, 2, 3 to
  it in turn;
- the **cascade** (``multi_row_sum``) adds rows one by one into level 0 and, every
  S = 2 ** max(4, ceil(log2 n) // 4) rows, moves level 0 into level 1; level 1 moves into
  level 2 every S ** 2 rows, level 2 into level 3 every S ** 3; the rows left over after the
  last full chunk go into level 0, and the result is ((l0 + l1) + l2) + l3;
- a reduction over the **contiguous last dimension** with at least one vector's worth of
  elements (8 float32 or 4 float64: 32-byte vectors) row-sums the whole vectors lane by lane,
  adds the remaining elements one by one into a scalar, then adds the lanes to it in order;
  shorter rows are row-summed element by element;
- a reduction over an **outer dimension** (the kept elements contiguous) sums each kept
  element's column by the cascade alone where the columns come in full blocks of 4 vectors
  (of 4 elements when there are fewer columns than a vector holds), and by a row sum for the
  columns after them.

Every partial sum starts at +0 and each addition is rounded, as the C++ does. The additions run
as NumPy reductions across all rows or columns at once: NumPy sums along a non-innermost axis
of a C-contiguous array strictly in order (pairwise summation is only used along the
innermost axis), and ``add.accumulate`` always adds in order, so each level is one call. Only C-contiguous float32/float64 inputs reduced over everything or over one
dimension (or several adjacent ones, or a leading and a trailing run: ``ends``) take this path;
other cases use NumPy's sum. Past 32768 elements torch splits a
full reduction among its threads (``_thread_chunks``), so its result depends on its thread count;
``total`` follows torch with ``leafgrad.get_num_threads()`` threads.

float16 and bfloat16 (``reduced_total``) add in float32: a vector of 16 elements is loaded as 8
float32 lanes, lane i holding element i plus element i + 8, and the lanes are row-summed as
float32's; each thread's partial sum is rounded to the tensor's dtype before they are added.
"""

from __future__ import annotations

import math

import numpy as np

from ..backends import cpu as _cpu
from . import _numba_kernels

_VECTOR_BYTES = 32


def _in_order(rows: np.ndarray) -> np.ndarray:
    """Sum a C-contiguous array along axis 0, one row at a time (len(rows) >= 1)."""
    if rows.ndim > 1 and rows[0].size > 1:
        return rows.sum(axis=0)
    return np.add.accumulate(rows, axis=0)[-1]


def _chunked(x: np.ndarray, step: int) -> tuple[np.ndarray, np.ndarray]:
    """In-order sums of the full chunks of ``step`` rows of x, and the rows left over."""
    full = len(x) // step
    chunks = x[: full * step].reshape((full, step) + x.shape[1:])
    if x[0].size > 1:
        sums = chunks.sum(axis=1)
    else:
        sums = np.add.accumulate(chunks, axis=1)[:, -1]
    return sums, x[full * step:]


def _cascade(x: np.ndarray) -> np.ndarray:
    """torch's multi_row_sum of a C-contiguous 2-d x along axis 0, through four levels."""
    size = len(x)
    if size == 0:
        return np.zeros(x.shape[1:], x.dtype)
    step = 1 << max(4, (size - 1).bit_length() // 4)
    if size < step:
        return _in_order(x)
    # level 0 takes the rows after the last full chunk; each level's full chunks of `step`
    # inputs become inputs of the next level, whose leftover stays in it; level 3 keeps all
    parts = []
    rest = x
    for _ in range(3):
        sums, left = _chunked(rest, step)
        parts.append(left)
        rest = sums
        if len(rest) < step:
            break
    parts.append(rest)
    result = None
    for part in parts:  # ((level 0 + level 1) + level 2) + level 3; empty levels add +0
        if len(part):
            value = _in_order(part)
            result = value if result is None else result + value
    return result


def _row_sum(x: np.ndarray) -> np.ndarray:
    """torch's row_sum of a C-contiguous 2-d x along axis 0: four interleaved partial sums."""
    size, cols = x.shape
    quads = size // 4
    if quads == 0:
        return _in_order(x)
    partials = _cascade(x[: quads * 4].reshape(quads, 4 * cols)).reshape(4, cols)
    # partial 0, then the rows after the last full quad, then partials 1, 2, 3, in order
    return _in_order(np.concatenate([partials[:1], x[quads * 4:], partials[1:]]))


def _inner(rows: np.ndarray) -> np.ndarray:
    """Sum each row of a C-contiguous 2-d array (the reduced dimension is the last)."""
    if _numba_kernels.active and rows.dtype.char in "fd" and rows.size:
        return _numba_kernels.cascade_inner(rows)  # a compiled loop, same bits (_numba_kernels)
    count, n = rows.shape
    lanes = _VECTOR_BYTES // rows.dtype.itemsize
    if n < lanes:
        return _row_sum(np.ascontiguousarray(rows.T))
    vectors = n // lanes
    body = rows[:, : vectors * lanes].reshape(count, vectors, lanes)
    if count > 1:
        body = np.ascontiguousarray(body.transpose(1, 0, 2))
    else:
        body = body[0]
    lane_sums = _row_sum(body.reshape(vectors, count * lanes)).reshape(count, lanes)
    # the elements after the last full vector, in order, then the lanes in order
    ordered = np.concatenate([rows[:, vectors * lanes:], lane_sums], axis=1)
    return np.add.accumulate(ordered, axis=1)[:, -1]


def _outer(block: np.ndarray) -> np.ndarray:
    """Sum a C-contiguous (reduced, lead, kept) array over its first axis."""
    if _numba_kernels.active and block.dtype.char in "fd" and block.size:
        return _numba_kernels.cascade_outer(block)  # a compiled loop, same bits (_numba_kernels)
    size, lead, cols = block.shape
    lanes = _VECTOR_BYTES // block.dtype.itemsize
    width = 4 * lanes if cols >= lanes else 4
    split = cols // width * width
    if split == cols:
        return _cascade(block.reshape(size, lead * cols)).reshape(lead, cols)
    out = np.empty((lead, cols), block.dtype)
    if split:
        out[:, :split] = _cascade(np.ascontiguousarray(block[:, :, :split]).reshape(
            size, lead * split)).reshape(lead, split)
    rest = cols - split
    out[:, split:] = _row_sum(np.ascontiguousarray(block[:, :, split:]).reshape(
        size, lead * rest)).reshape(lead, rest)
    return out


# Past this many elements sums take NumPy's pairwise sum unless ``backends.cpu.torch_bits``: the
# ordered passes cost 5-20x NumPy's sum there (a (1024, 1024) float32 sum along rows: 1.7 ms
# against 0.1), and a full reduction of more than 32,768 elements is split among torch's
# threads, so its last bits depend on the thread count anyway. (As the multi-dim and 2-norm
# orders, reduce.py's _ORDERED_LIMIT and reductions_stats.py's _LANE_ORDER_LIMIT.)
ORDER_LIMIT = 1 << 16


def in_memory_order(a: np.ndarray) -> np.ndarray:
    """A non-overlapping, dense ``a`` (a permutation of a row-major array, e.g. transposed) as
    a 1-d view in memory order, the order torch's TensorIterator reads it in for a reduction
    over every element (it sorts dims by stride and coalesces them); any other ``a`` as is. A
    float32 sum of a transposed gradient added in NumPy's order gave another last bit
    (generated-program seed 40103: a sum_to of an outer product's gradient)."""
    if a.flags.c_contiguous or a.ndim < 2:
        return a
    expected = a.itemsize
    for stride, size in sorted((s, n) for s, n in zip(a.strides, a.shape) if n != 1):
        if stride != expected:
            return a
        expected *= size
    return a.ravel(order="K")


def applies(a: np.ndarray, unlimited: bool = False) -> bool:
    """Whether ``a`` takes torch's order; ``unlimited``: past ORDER_LIMIT too (the float32 copy
    of a float16 or bfloat16 tensor, whose sums are slow paths anyway)."""
    return a.dtype.kind == "f" and a.dtype.itemsize >= 4 and a.size > 0 and a.flags.c_contiguous \
        and (a.size <= ORDER_LIMIT or unlimited or _cpu.torch_bits)


def dense_permutation(a: np.ndarray, dims) -> list | None:
    """The permutation making a dense, non-contiguous ``a`` C-contiguous (a transposed tensor),
    when a reduction over ``dims`` iterates it as that contiguous array: TensorIterator moves
    the reduced dims innermost in the input's stride order and keeps the other dims in the
    output's (logical) order, so the kept dims of size > 1 must already be in memory order."""
    if a.flags.c_contiguous or a.ndim < 2 or a.size == 0:
        return None
    perm = sorted(range(a.ndim), key=lambda d: -a.strides[d])
    if not a.transpose(perm).flags.c_contiguous:
        return None
    kept = [d for d in perm if d not in dims and a.shape[d] != 1]
    return perm if kept == sorted(kept) else None


# Fewer elements than a vector holds: a row sum of scalars is one sequence of additions,
# element 0, then the elements after the last full quad, then elements 1, 2, 3.
_SHORT_ORDERS = [np.arange(n) if n < 4 else np.array([0, *range(4, n), 1, 2, 3])
                 for n in range(8)]


# at::internal::GRAIN_SIZE: a full reduction of more elements is split among torch's threads
_GRAIN = GRAIN = 32768


def _thread_chunks(size: int):
    """torch's split of a full reduction of ``size`` elements among its threads, or None when one
    thread does it all: TensorIterator's two_pass_reduction gives each thread of at::parallel_for
    (OpenMP: min(threads, ceil(size / GRAIN)) equal chunks, the last shorter) a buffer slot
    starting at +0; the buffer, one slot per thread, is then summed as a tensor of its own.
    Returns the (begin, end) ranges and the buffer's length."""
    if size <= _GRAIN:
        return None
    from .._info import get_num_threads

    threads = get_num_threads()
    if threads == 1:
        return None
    count = min(threads, -(-size // _GRAIN))
    step = -(-size // count)
    return [(begin, min(size, begin + step)) for begin in range(0, size, step)], threads


def total(a: np.ndarray) -> np.ndarray:
    """The sum of every element of ``a`` (``applies(a)``), as a 0-d array."""
    chunks = _thread_chunks(a.size)
    if chunks is None:
        return one_thread_total(a)
    flat = a.reshape(-1)
    ranges, slots = chunks
    buffer = np.zeros(slots, a.dtype)
    for slot, (begin, end) in enumerate(ranges):
        buffer[slot] = one_thread_total(flat[begin:end])
    return one_thread_total(buffer)


def strided_applies(a: np.ndarray) -> bool:
    """Whether ``a`` is a strided float32/float64 vector (one dim of size > 1, not
    contiguous: ``x[::3]``, a column), whose full sum torch computes with its scalar loop
    (SumKernel.cpp's scalar_outer_sum: a row sum with strided loads, no vectors)."""
    return (a.dtype.kind == "f" and a.dtype.itemsize >= 4 and 0 < a.size
            and a.ndim - a.shape.count(1) == 1 and not a.flags.c_contiguous
            and (a.size <= ORDER_LIMIT or _cpu.torch_bits))


def strided_total(a: np.ndarray) -> np.ndarray:
    """The sum of every element of a strided vector (``strided_applies(a)``; or a copy of one
    in any layout), as a 0-d array:
    torch's row sum of scalars, per thread chunk past GRAIN elements (NumPy's pairwise sum,
    before, gave another last bit about half the time)."""
    flat = np.ascontiguousarray(a).reshape(-1)
    chunks = _thread_chunks(flat.size)
    if chunks is None:
        return np.asarray(_row_sum(flat.reshape(-1, 1))[0] + a.dtype.type(0))
    ranges, slots = chunks
    buffer = np.zeros(slots, a.dtype)
    for slot, (begin, end) in enumerate(ranges):
        buffer[slot] = _row_sum(flat[begin:end].reshape(-1, 1))[0] + a.dtype.type(0)
    return one_thread_total(buffer)


# Fewer vectors than this (64) make fewer than 16 quads: the cascade's first level is never
# full, so every partial sum is one in-order sum (Note: a small total's five calls).
_SMALL_VECTORS = 64


def _small_total(flat: np.ndarray, lanes: int):
    """``_inner`` of one row of ``lanes <= size < 64 * lanes`` elements in two to five NumPy
    calls (the general path makes about fifteen, plus its Python steps): the quads' in-order
    sum gives the four partials (each ``lanes`` wide); partial 0, the vectors after the last
    full quad and partials 1, 2, 3 are summed in order; then the elements after the last full
    vector and the lanes, one by one."""
    vectors = flat.size // lanes
    body = vectors * lanes
    quads = vectors >> 2
    if quads:
        end = quads * 4 * lanes
        partials = _REDUCE(flat[:end].reshape(quads, 4 * lanes), 0)
        if end != body:
            partials = np.concatenate((partials[:lanes], flat[end:body], partials[lanes:]))
        lane_sums = _REDUCE(partials.reshape(-1, lanes), 0)
    else:
        lane_sums = _REDUCE(flat[:body].reshape(vectors, lanes), 0)
    if body != flat.size:
        lane_sums = np.concatenate((flat[body:], lane_sums))
    return _ACCUMULATE(lane_sums)[-1]


_REDUCE = np.add.reduce
_ACCUMULATE = np.add.accumulate


def one_thread_total(a: np.ndarray) -> np.ndarray:
    flat = a.reshape(-1)
    size = flat.size
    lanes = _VECTOR_BYTES // a.dtype.itemsize
    if size < lanes:
        value = np.add.accumulate(flat[_SHORT_ORDERS[size]])[-1]
    elif size < _SMALL_VECTORS * lanes:
        value = _small_total(flat, lanes)
    else:
        value = _inner(flat.reshape(1, -1))[0]
    # + 0: torch's partial sums start at +0, so a sum of negative zeros is +0
    return np.asarray(value + a.dtype.type(0))


_REDUCED_LANES = 16  # elements of a 2-byte float in one 32-byte vector


def reduced_rows(rows: np.ndarray, vectorized: bool = True) -> np.ndarray:
    """torch's float32 sums of the rows of a 2-d float32 array holding float16/bfloat16 values,
    unrounded: rows of fewer than 16 elements (or not ``vectorized``: strided ones) by the
    scalar row sum; else each vector of 16 as 8 float32 lanes (element i + element i + 8), the
    lanes row-summed, the elements after the last full vector added in order, then the lanes
    in order."""
    count, width = rows.shape
    if width < _REDUCED_LANES or not vectorized:
        return _row_sum(np.ascontiguousarray(rows.T)) + np.float32(0)
    vectors = width // _REDUCED_LANES
    lanes = _REDUCED_LANES // 2
    body = rows[:, : vectors * _REDUCED_LANES].reshape(count, vectors, 2, lanes)
    pairs = body[:, :, 0] + body[:, :, 1]
    if count > 1:
        pairs = np.ascontiguousarray(pairs.transpose(1, 0, 2))
    lane_sums = _row_sum(pairs.reshape(vectors, count * lanes)).reshape(count, lanes)
    ordered = np.concatenate([np.zeros((count, 1), np.float32),
                              rows[:, vectors * _REDUCED_LANES:], lane_sums], axis=1)
    return np.add.accumulate(ordered, axis=1)[:, -1]


def stride_order_copy(a: np.ndarray):
    """A non-dense ``a``'s elements as a 1-d copy in the order of its strides (the innermost
    dim the one of smallest stride: torch's float32 copy of a float16 tensor for a full sum
    keeps that order), or None for broadcast (zero) or negative strides."""
    dims = sorted((stride, size) for stride, size in zip(a.strides, a.shape) if size != 1)
    if not dims or dims[0][0] <= 0:
        return None
    merged = [dims[0]]
    for stride, size in dims[1:]:
        if merged[-1][0] * merged[-1][1] == stride:
            merged[-1] = (merged[-1][0], merged[-1][1] * size)
        else:
            merged.append((stride, size))
    view = np.lib.stride_tricks.as_strided(a, shape=[size for _, size in reversed(merged)],
                                           strides=[stride for stride, _ in reversed(merged)])
    return np.ascontiguousarray(view).reshape(-1)


def reduced_total(a: np.ndarray, round_to, vectorized: bool = True) -> np.ndarray:
    """The sum of every element of a float16 array, or of a float32 array of bfloat16 values
    (``round_to`` rounds float32 to the dtype), C-contiguous or in memory order (or 1-d and
    strided: not ``vectorized``, torch's scalar row sum), as a 0-d array of that dtype: float32
    additions, each thread's partial sum rounded to the dtype (see ``_thread_chunks``)."""
    flat = a.reshape(-1)
    if flat.dtype != np.float32:
        flat = flat.astype(np.float32)
    chunks = _thread_chunks(flat.size)
    ranges, slots = chunks if chunks is not None else ([(0, flat.size)], 1)
    buffer = np.zeros(slots, np.float32)
    for slot, (begin, end) in enumerate(ranges):
        part = reduced_rows(flat[begin:end].reshape(1, -1), vectorized)[0]
        buffer[slot] = round_to(np.asarray(part)).astype(np.float32)
    if slots == 1:
        return round_to(np.asarray(buffer[0]))
    return round_to(np.asarray(reduced_rows(buffer.reshape(1, -1))[0]))


def along(a: np.ndarray, dim: int, keepdim: bool) -> np.ndarray | None:
    """The sum of ``a`` (``applies(a)``) over one dimension, or None for an empty result."""
    shape = a.shape
    lead = math.prod(shape[:dim])
    size = shape[dim]
    tail = math.prod(shape[dim + 1:])
    if size == 0 or lead == 0 or tail == 0:
        return None
    if tail == 1:
        out = _inner(a.reshape(lead, size))
    elif lead == 1:
        out = _outer(a.reshape(size, 1, tail))
    else:
        out = _outer(np.ascontiguousarray(a.reshape(lead, size, tail).transpose(1, 0, 2)))
    out = out + a.dtype.type(0)
    return out.reshape(shape[:dim] + ((1,) if keepdim else ()) + shape[dim + 1:])



def several(a: np.ndarray, dims: list) -> np.ndarray | None:
    """The sum of ``a`` (``applies(a)``) over sorted ``dims`` that form two or more runs of
    adjacent dimensions ((0, 2, 3) of an (N, C, H, W) array: BatchNorm's statistics, a
    convolution's bias gradient), shaped as the kept dimensions; None when a size-1 or empty
    dimension is involved (the caller squeezes those first) or ``dims`` are one run.

    torch's TensorIterator merges each run into one dimension and orders the reduced ones
    first by stride: the last run (smallest stride) is summed as rows, contiguous rows as an
    inner reduction, strided ones by the scalar row sum; the row sums are added into the +0
    output one at a time, the other runs' indices in row-major order."""
    if 0 in a.shape or 1 in a.shape:
        return None
    runs = []
    for d in dims:
        if runs and runs[-1][-1] == d - 1:
            runs[-1].append(d)
        else:
            runs.append([d])
    if len(runs) < 2:
        return None
    shape = a.shape
    # each run of reduced dims and each run of kept dims merged into one dimension
    merged, reduced = [], []
    d = 0
    while d < a.ndim:
        end = d
        is_reduced = d in dims
        while end + 1 < a.ndim and ((end + 1) in dims) == is_reduced:
            end += 1
        merged.append(math.prod(shape[d:end + 1]))
        reduced.append(is_reduced)
        d = end + 1
    x = a.reshape(merged)
    axes = [i for i, r in enumerate(reduced) if r]
    kept_axes = [i for i, r in enumerate(reduced) if not r]
    row_axis = axes[-1]
    outer_axes = axes[:-1]
    kept_shape = tuple(merged[i] for i in kept_axes)
    outer = math.prod(merged[i] for i in outer_axes)
    kept = math.prod(kept_shape)
    size = merged[row_axis]
    if row_axis == len(merged) - 1:  # contiguous rows: the vectorised inner reduction
        rows = np.ascontiguousarray(x.transpose(outer_axes + kept_axes + [row_axis]))
        sums = _inner(rows.reshape(outer * kept, size)).reshape(outer, kept)
    else:  # strided rows: the scalar row sum, each kept position a column
        columns = np.ascontiguousarray(x.transpose([row_axis] + outer_axes + kept_axes))
        sums = _row_sum(columns.reshape(size, outer * kept)).reshape(outer, kept)
    return (np.add.accumulate(sums, axis=0)[-1] + a.dtype.type(0)).reshape(kept_shape)
