"""float32, float16 and float64 layer norm and group norm with torch's last bits (ATen's
RowwiseMoments).

What torch 2.13's CPU kernels compute for a contiguous float32 input (ATen's
native/cpu/moments_utils.h, layer_norm_kernel.cpp, group_norm_kernel.cpp), and what this module
replays with NumPy over all rows at once:

- **Row moments** (``RowwiseMoments``): a row of ``N`` elements is read as ``N // 8`` vectors
  of 8 float32 lanes (``Vectorized<float>`` of torch's AVX2 build: measured on an AVX-512
  machine, where a 16-lane replay disagrees on most rows and the 8-lane one on none; ATen
  dispatches most kernels to their AVX2 build there), in chunks of 16 vectors.
  Each chunk runs Welford's update per lane (``m1 = fma(1 / (j + 1), delta, m1)``,
  ``m2 = fma(delta, x - m1, m2)``, the reciprocals rounded to float32); the chunks' results are
  merged through a cascade (a binary counter of partial results: a pairwise tree for a power of
  two, the later part merged into the earlier otherwise) with Chan's formula
  ``c = n_b / (n_a + n_b)``, ``m1 = m1_a + c * delta``,
  ``m2 = fma(delta * n_a, c * delta, m2_a + m2_b)``. The ``N % 8`` elements after the vectors
  run the scalar Welford update (``m1 += delta / k``, ``m2 += delta * (x - m1)``, unfused), and
  the 8 lanes are then merged into that scalar result one by one (``AddMoments``, which the
  compiler fuses to ``m1 = fma(c, delta, m1)``, ``m2 += fma(delta * delta * c, n_a, m2_b)``).
  The variance is ``m2 / N``. float16 rows (``RowwiseMoments<Half>``) are read as 16-lane
  vectors, each converted to two float32 vectors (elements 0-7 and 8-15) whose chunk results
  are merged into the cascade's first level in turn; the scalar tail's ``m2`` update is fused
  there; each lane then stands for ``2 * (N // 16)`` elements.
- **layer norm**: ``rstd = 1 / sqrt(var + eps)`` in float32 (eps rounded to float32), then
  ``y = fma((x - mean) * rstd, gamma, beta)`` (with weight and bias, or weight only and
  ``beta = 0``); bias only: ``fma(x - mean, rstd, beta)`` (the compiler folds ``gamma = 1``);
  neither: ``(x - mean) * rstd + 0``. float16 (``layer_norm_kernel_mixed_type``, parameters
  of the input's dtype): ``fma(fma(x, rstd, -rstd * mean), gamma, beta)`` in float32, then
  rounded to float16.
- **group norm** (contiguous input): ``rstd = 1 / sqrt(max(var, 0) + eps)`` computed in
  float64 (eps is a double there) and rounded to float32; without weight and bias
  ``y = (x - mean) * rstd``; with either, per channel ``scale = rstd * gamma`` and
  ``bias = fma(-scale, mean, beta)``, then ``y = fma(scale, x, bias)`` (float16: the same in
  float32, then rounded). A float32 channels-last input
  runs another kernel (sums of x and x * x, ``group_norm_channels_last``), replayed below
  1024 positions per channel; from there torch sums per thread (not replayed).

Every element of layer_norm and group_norm on the shapes of tests/ops/test_norm_bits.py is
torch's. The replay costs 2-10x NumPy's float64-statistics forward (many small NumPy calls:
16 Welford steps, the cascade, 8 sequential lane merges), so past a size (ops/norm.py:
layer_norm 4,096 elements, group_norm and both backwards 65,536) it runs only under
``leafgrad.backends.cpu.torch_bits``. group_norm's backward (``group_norm_backward``) is
replayed too (tests/ops/test_group_norm_backward_bits.py).

A float32 fused multiply-add ``a * b + c`` is replayed in float64 (the product of two float32
values is exact there; the sum is rounded to float64, then to float32; the two roundings differ
from one only when the float64 sum lands exactly on a float32 midpoint).
"""

from __future__ import annotations

import functools

import numpy as np
from ._softmax_bits import _split64
from ._float_kernels import product_error

_F32 = np.float32
_F64 = np.float64
_LANES = 8  # float32 lanes of ATen's Vectorized<float> in these kernels (see above)
_CHUNK = 16  # vectors per Welford chunk (kChunkSize)
_RECIPROCALS = [_F32(1) / _F32(j + 1) for j in range(_CHUNK)]


def _fma(a, b, c) -> np.ndarray:
    """float32 ``a * b + c`` with one rounding (through float64; see the module doc)."""
    return (np.multiply(a, b, dtype=_F64) + c).astype(_F32)


def _chunk_moments(vectors: np.ndarray, last: int, pieces: int):
    """Welford per lane over the vectors of each chunk: ``vectors`` (16, rows, slots, lanes)
    holds vector ``j`` of every chunk at ``[j]``, each chunk in ``pieces`` consecutive slots
    (float16: each 16-lane half vector as two float vectors); the last chunk holds only ``last``
    vectors (when ``last``; the rest is padding) and its moments are taken after its own last
    one."""
    steps = last if vectors.shape[2] == pieces and last else _CHUNK
    m1 = vectors[0].copy()  # step 0: m1 = fma(1, x - 0, 0) = x, m2 = fma(x, x - x, 0) = 0
    m2 = np.zeros_like(m1)
    delta = np.empty_like(m1)
    narrow = np.empty_like(m1)
    wide = np.empty(m1.shape, _F64)
    kept = None
    for j in range(1, steps):
        if j == last:
            kept = m1[:, -pieces:].copy(), m2[:, -pieces:].copy()
        x = vectors[j]
        np.subtract(x, m1, out=delta)
        if j & (j + 1) == 0:  # 1 / (j + 1) a power of two: the product is exact in float32
            np.multiply(delta, _RECIPROCALS[j], out=narrow)
            m1 += narrow
        else:  # m1 = fma(1 / (j + 1), delta, m1)
            np.multiply(delta, float(_RECIPROCALS[j]), out=wide, dtype=_F64)
            wide += m1
            m1[...] = wide
        np.subtract(x, m1, out=narrow)  # m2 = fma(delta, x - m1, m2)
        np.multiply(delta, narrow, out=wide, dtype=_F64)
        wide += m2
        m2[...] = wide
    if kept is not None:
        m1[:, -pieces:], m2[:, -pieces:] = kept
    return m1, m2


@functools.lru_cache(maxsize=256)
def _cascade(counts: tuple, pieces: int):
    """RowwiseMoments' cascade over chunks of these vector counts (each chunk ``pieces``
    partial results merged into the first level in turn), as batches of independent
    merges ``(destination chunks, source chunks, their counts before)``: each batch merges
    source into destination. Merging into or from an empty stack level is an exact copy (but
    where ``mean * count`` overflows float32, which torch turns into NaN), so only the merges of
    two non-empty partial results appear; the result ends in the slot this returns."""
    chunks = len(counts)
    depth = (chunks - 1).bit_length() if chunks > 1 else 0
    size = [n for n in counts for _ in range(pieces)]
    ready = [0] * len(size)  # the batch after which each slot's value is final so far
    merges = []  # (batch, destination, source, destination count, source count)

    def merge(source, destination):
        if source is None:
            return destination
        if destination is None:
            return source
        batch = max(ready[source], ready[destination])
        merges.append((batch, destination, source, size[destination], size[source]))
        size[destination] += size[source]
        ready[destination] = batch + 1
        return destination

    stack = [None] * max(depth, 1)
    for i in range(chunks):
        for piece in range(pieces):
            stack[0] = merge(i * pieces + piece, stack[0])
        mask = i + 1
        level = 1
        while level < depth and mask & 1 == 0:
            stack[level] = merge(stack[level - 1], stack[level])
            stack[level - 1] = None
            mask >>= 1
            level += 1
    for level in range(1, depth):
        stack[0] = merge(stack[level], stack[0])
    batches = []
    for b in range(max((m[0] for m in merges), default=-1) + 1):
        group = [m for m in merges if m[0] == b]
        dst = np.array([m[1] for m in group])
        src = np.array([m[2] for m in group])
        before = np.array([m[3] for m in group], dtype=np.float32)
        c = (np.array([m[4] for m in group], dtype=np.float32)
             / np.array([m[3] + m[4] for m in group], dtype=np.float32))
        after = np.array([m[3] + m[4] for m in group], dtype=np.float64)
        batches.append((dst, src, before[:, None], c[:, None], after[:, None]))
    return batches, stack[0]


def row_moments(x: np.ndarray):
    """``(mean, var)`` (float32) of each row of the matrix ``x`` (rows, N), as RowwiseMoments:
    float32 rows in 8-lane vectors; float16 rows in 16-lane vectors, each converted to two
    float32 vectors that take turns in the cascade."""
    pieces = 1 if x.dtype == _F32 else 2
    width = _LANES * pieces  # input elements per vector
    x = x.astype(_F32, copy=False)
    rows, length = x.shape
    vectors = length // width
    m0 = 0
    m1 = np.zeros(rows, _F32)
    m2 = np.zeros(rows, _F32)
    for k in range(vectors * width, length):  # the scalar Welford over the tail
        v = x[:, k]
        delta = v - m1
        m0 += 1
        m1 = m1 + delta / _F32(m0)
        if pieces == 1:
            m2 = m2 + delta * (v - m1)
        else:  # the float16 instantiation's compiled code fuses this one (measured)
            m2 = _fma(delta, v - m1, m2)
    if vectors:
        count, last = divmod(vectors, _CHUNK)
        body = x[:, :vectors * width]
        if last:
            count += 1
            body = np.concatenate(
                [body, np.zeros((rows, (_CHUNK - last) * width), _F32)], axis=1)
        # vector j of every chunk (piece) of every row together: body[j, row, slot, lane]
        body = np.ascontiguousarray(
            body.reshape(rows, count, _CHUNK, pieces, _LANES).transpose(2, 0, 1, 3, 4)
        ).reshape(_CHUNK, rows, count * pieces, _LANES)
        m1v, m2v = _chunk_moments(body, last, pieces)
        batches, slot = _cascade((_CHUNK,) * (count - 1 if last else count)
                                 + ((last,) if last else ()), pieces)
        for dst, src, before, c, _ in batches:  # AddMomentsVec, one batch of merges at a time
            a1, a2 = m1v[:, dst], m2v[:, dst]
            delta = m1v[:, src] - a1
            c_delta = c * delta
            m2v[:, dst] = _fma(delta * before, c_delta, a2 + m2v[:, src])
            m1v[:, dst] = a1 + c_delta
        lanes1, lanes2 = m1v[:, slot], m2v[:, slot]
        per_lane = vectors * pieces
        # AddMoments: each lane merged into the scalar result in turn
        for lane in range(_LANES):  # (merging into nothing is no copy: inf * 0 is NaN)
            total = m0 + per_lane
            c = _F32(per_lane) / _F32(total)
            delta = lanes1[:, lane] - m1
            m1 = _fma(c, delta, m1)
            m2 = m2 + _fma(delta * delta * c, _F32(m0), lanes2[:, lane])
            m0 = total
    return m1, m2 / _F32(length)


# -- float64 (RowwiseMoments<double>) ------------------------------------------------------------
# The same algorithm in Vectorized<double> of torch's AVX2 build: 4 lanes (an 8-lane replay
# disagreed on a third of the rows, the 4-lane one on none), chunks of 16 vectors, every
# multiply-add fused (exact here: _softmax_bits._fma64) but the scalar tail's m2 update.
_LANES64 = 4


def _fma64(a, b, c, b_split=None) -> np.ndarray:
    """float64 ``a * b + c`` rounded once (_softmax_bits._fma64; finite operands)."""
    from ._softmax_bits import _fma64 as fused

    return fused(a, b, c, b_split)


def _reciprocal_splits():
    return [_split64(1.0 / (j + 1)) for j in range(_CHUNK)]


_RECIPROCAL_SPLITS = _reciprocal_splits()


def _fma64_quiet(a, b, c) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _fma64(a, b, c)


def row_moments64(x: np.ndarray):
    """``(mean, var)`` (float64) of each row of the float64 matrix ``x``, as RowwiseMoments."""
    with np.errstate(all="ignore"):  # (an overflow or inf: torch's inf/NaN follow)
        return _row_moments64(x)


def _row_moments64(x: np.ndarray):
    rows, length = x.shape
    vectors = length // _LANES64
    m0 = 0
    m1 = np.zeros(rows)
    m2 = np.zeros(rows)
    for k in range(vectors * _LANES64, length):  # the scalar Welford over the tail
        v = x[:, k]
        delta = v - m1
        m0 += 1
        m1 = m1 + delta / m0
        m2 = m2 + delta * (v - m1)
    if vectors:
        count, last = divmod(vectors, _CHUNK)
        body = x[:, :vectors * _LANES64]
        if last:
            count += 1
            body = np.concatenate([body, np.zeros((rows, (_CHUNK - last) * _LANES64))], axis=1)
        body = np.ascontiguousarray(
            body.reshape(rows, count, _CHUNK, _LANES64).transpose(2, 0, 1, 3))
        steps = last if count == 1 and last else _CHUNK
        lanes1 = body[0].copy()
        lanes2 = np.zeros_like(lanes1)
        kept = None
        for j in range(1, steps):
            if j == last:
                kept = lanes1[:, -1:].copy(), lanes2[:, -1:].copy()
            v = body[j]
            delta = v - lanes1
            if j & (j + 1) == 0:  # 1 / (j + 1) a power of two: the product is exact
                lanes1 = delta * (1.0 / (j + 1)) + lanes1
            else:
                lanes1 = _fma64(delta, 1.0 / (j + 1), lanes1, _RECIPROCAL_SPLITS[j])
            lanes2 = _fma64(delta, v - lanes1, lanes2)
        if kept is not None:
            lanes1[:, -1:], lanes2[:, -1:] = kept
        batches, slot = _cascade((_CHUNK,) * (count - 1 if last else count)
                                 + ((last,) if last else ()), 1)
        for dst, src, before, _, after in batches:  # AddMomentsVec, c in double
            n_a = before.astype(_F64)
            c = (after - n_a) / after
            a1, a2 = lanes1[:, dst], lanes2[:, dst]
            delta = lanes1[:, src] - a1
            c_delta = c * delta
            lanes2[:, dst] = _fma64(delta * n_a, c_delta, a2 + lanes2[:, src])
            lanes1[:, dst] = a1 + c_delta
        lanes1, lanes2 = lanes1[:, slot], lanes2[:, slot]
        for lane in range(_LANES64):  # AddMoments: each lane into the scalar result
            total = m0 + vectors
            c = vectors / total
            delta = lanes1[:, lane] - m1
            m1 = _fma64(c, delta, m1)
            m2 = m2 + _fma64(delta * delta * c, float(m0), lanes2[:, lane])
            m0 = total
    return m1, m2 / length


def _layer_norm_stats(x: np.ndarray, eps: float, count: int):
    length = int(np.prod(x.shape[x.ndim - count:], dtype=np.int64))
    rows = np.ascontiguousarray(x).reshape(-1, length)
    if x.dtype == _F64:
        mean, var = row_moments64(rows)
        return rows, mean, 1.0 / np.sqrt(var + eps)
    mean, var = row_moments(rows)
    return rows, mean, _F32(1) / np.sqrt(var + _F32(eps))


def layer_norm_stats(x: np.ndarray, eps: float, count: int):
    """native_layer_norm's float32 ``(mean, rstd)`` of each row, flat, with torch's bits."""
    return _layer_norm_stats(x, eps, count)[1:]


def _group_norm_stats(x: np.ndarray, groups: int, eps: float):
    rows = np.ascontiguousarray(x).reshape(x.shape[0] * groups, -1)
    if x.dtype == _F64:
        mean, var = row_moments64(rows)
        return rows, mean, 1.0 / np.sqrt(np.maximum(var, 0.0) + eps)
    mean, var = row_moments(rows)
    rstd = (1.0 / np.sqrt(np.maximum(var, _F32(0)).astype(_F64) + eps)).astype(_F32)
    return rows, mean, rstd


def group_norm_stats(x: np.ndarray, groups: int, eps: float):
    """native_group_norm's float32 ``(mean, rstd)`` of each (sample, group), flat."""
    return _group_norm_stats(x, groups, eps)[1:]


def _same_dtype(x: np.ndarray, *params) -> bool:
    """Whether weight and bias (or None) have the input's dtype: a float16 input with float32
    parameters runs torch's mixed-type kernel, not replayed."""
    return all(p is None or p.dtype == x.dtype for p in params)


def layer_norm(x: np.ndarray, weight, bias, eps: float, count: int):
    """``F.layer_norm`` over the last ``count`` dims of a float32 or float16 input with torch's
    bits (float16: computed in float32 as torch's kernel, then rounded), or None."""
    if not _same_dtype(x, weight, bias):
        return None
    shape = x.shape
    rows, mean, rstd = _layer_norm_stats(x, eps, count)
    fma = _fma64_quiet if x.dtype == _F64 else _fma
    zero = x.dtype.type(0)
    if x.dtype == np.float16:  # layer_norm_kernel_mixed_type: x * rstd + (-rstd * mean), fused
        rows = rows.astype(_F32)
        out = _fma(rows, rstd[:, None], -rstd[:, None] * mean[:, None])
        if weight is not None or bias is not None:
            gamma = _F32(1) if weight is None else weight.reshape(1, -1).astype(_F32)
            beta = 0.0 if bias is None else bias.reshape(1, -1).astype(_F32)
            out = _fma(out, gamma, beta)
        return out.astype(x.dtype).reshape(shape)
    centred = rows - mean[:, None]
    if weight is None and bias is None:  # (x - mean) * rstd * 1 + 0: -0 becomes +0
        return (centred * rstd[:, None] + zero).reshape(shape)
    if weight is None:  # gamma == 1 folded by the compiler: fma(x - mean, rstd, beta)
        out = fma(centred, rstd[:, None], bias.reshape(1, -1))
    else:  # (x - mean) * rstd * gamma + beta, fused: fma((x - mean) * rstd, gamma, beta)
        beta = 0.0 if bias is None else bias.reshape(1, -1)
        out = fma(centred * rstd[:, None], weight.reshape(1, -1), beta)
    return out.reshape(shape)


def group_norm(x: np.ndarray, weight, bias, groups: int, eps: float):
    """``F.group_norm`` of a row-major float32 or float16 input with torch's bits (float16:
    computed in float32, then rounded), or None."""
    if not _same_dtype(x, weight, bias):
        return None
    shape = x.shape
    batch, channels = shape[0], shape[1]
    per_group = channels // groups
    rows, mean, rstd = _group_norm_stats(x, groups, eps)
    work = _F64 if x.dtype == _F64 else _F32  # (float16: computed in float32)
    fma = _fma64_quiet if x.dtype == _F64 else _fma
    rows = rows.astype(work, copy=False)
    if weight is None and bias is None:
        return ((rows - mean[:, None]) * rstd[:, None]).astype(x.dtype, copy=False).reshape(shape)
    gamma = np.ones(channels, work) if weight is None else weight.reshape(channels).astype(work)
    beta = np.zeros(channels, work) if bias is None else bias.reshape(channels).astype(work)
    # per (sample, channel): scale = rstd * gamma, shift = fma(-scale, mean, beta)
    scale = rstd.reshape(batch, groups, 1) * gamma.reshape(1, groups, per_group)
    shift = fma(-scale, mean.reshape(batch, groups, 1), beta.reshape(1, groups, per_group))
    planes = rows.reshape(batch, groups, per_group, -1)
    return fma(scale[..., None], planes, shift[..., None]).astype(x.dtype, copy=False).reshape(
        shape)


_FEATURE_MAP_THRESHOLD = 1024  # group_norm_kernel.cpp: below it, one task per (sample, group)


def _lane_tree_sum(lanes: np.ndarray) -> np.ndarray:
    """vec_reduce_all's sum of 8 lanes: the halves added, then pairs, then the last two."""
    half = lanes[..., :4] + lanes[..., 4:]
    pair = half[..., :2] + half[..., 2:]
    return pair[..., 0] + pair[..., 1]


def group_norm_channels_last(x: np.ndarray, weight, bias, groups: int, eps: float):
    """float32 ``F.group_norm`` of a channels-last input with torch's bits, or None where
    torch's other channels-last kernel runs (HxW of 1024 or more: partial sums per thread).

    ColumnwiseMoments: for each (sample, group), 8-lane sums of x and of x * x (rounded
    products, unfused) over its D channels at every position in order, a partial last vector
    zero-filled; the lanes summed as a tree; ``mean = sum * s``,
    ``var = max(fma(sumsq, s, -(mean * mean)), 0)`` with ``s = 1 / (D * HxW)``; rstd in double.
    Then per channel ``scale = rstd * gamma``, ``bias = fma(-scale, mean, beta)`` (bias without
    weight: ``-rstd * mean`` rounded, then ``+ beta``; measured) and ``y = fma(x, scale, bias)``."""
    batch, channels = x.shape[0], x.shape[1]
    positions = int(np.prod(x.shape[2:], dtype=np.int64))
    if positions >= _FEATURE_MAP_THRESHOLD or x.dtype != _F32 or not _same_dtype(x, weight, bias):
        return None  # (float16 sums its two float vectors per step first: not replayed)
    per_group = channels // groups
    vectors = -(-per_group // _LANES)
    rows = np.moveaxis(x, 1, -1).reshape(batch, positions, groups, per_group)
    padded = np.zeros((positions, vectors * _LANES, batch, groups), _F32)
    padded[:, :per_group] = rows.transpose(1, 3, 0, 2)
    # the order of the additions: position by position, vector by vector within a group
    stream = padded.reshape(positions * vectors, _LANES, batch, groups)
    sums = np.add.accumulate(stream, axis=0)[-1]
    squares = np.add.accumulate(stream * stream, axis=0)[-1]
    s = _F32(1) / _F32(per_group * positions)
    mean = _lane_tree_sum(np.moveaxis(sums, 0, -1)) * s
    var = np.maximum(_fma(_lane_tree_sum(np.moveaxis(squares, 0, -1)), s, -(mean * mean)),
                     _F32(0))
    rstd = (1.0 / np.sqrt(var.astype(_F64) + eps)).astype(_F32)
    gamma = np.ones(channels, _F32) if weight is None else weight.reshape(channels)
    beta = np.zeros(channels, _F32) if bias is None else bias.reshape(channels)
    scale = rstd[:, :, None] * gamma.reshape(groups, per_group)
    if weight is None and bias is not None:  # -rstd * mean hoisted out of the channel loop
        shift = -scale * mean[:, :, None] + beta.reshape(groups, per_group)
    else:
        shift = _fma(-scale, mean[:, :, None], beta.reshape(groups, per_group))
    out = _fma(rows, scale[:, None], shift[:, None])  # (batch, positions, groups, per_group)
    return np.moveaxis(out.reshape((batch,) + x.shape[2:] + (channels,)), -1, 1)


# -- layer norm's backward (LayerNormBackwardKernelImplInternal, float32 and float64) ----------
#
# Measured against torch 2.13 (AVX2 build; tests/test_fuzz8_findings.py, float64:
# test_tutorials8_findings.py). float64 runs the same steps in 4-lane Vectorized<double>, its
# lanes summed in order (vec_reduce_all has a shuffle tree for float only), every fused
# multiply-add exact (_fma64). Per row of N elements:
#
# - ``ds = sum(dy * x * gamma)`` and ``db = sum(dy * gamma)`` (without weight ``sum(dy * x)``,
#   ``sum(dy)``): vec::map*_reduce_all over 8-lane vectors, the products rounded, each lane
#   accumulated in order from the first vector; the partial last vector's products are fused
#   into its lanes (``fma(p, q, acc)``: the compiler contracts that one); the lanes summed as
#   vec_reduce_all's tree. Under 8 elements: the rounded products summed in order.
# - ``b = fma(db, mean, -ds) * rstd * rstd * rstd * (1 / N)``,
#   ``c = fma(-b, mean, -(db * rstd * (1 / N)))`` (float32, contracted as the compiler does),
#   ``dx = fma(b, x, rstd * dy * gamma) + c``.
# - dgamma, dbeta: the rows are split among torch's threads (at::parallel_for, grain 1: ceil(M /
#   T) consecutive rows each, T = min(threads, M), one thread for one row); each thread adds its
#   rows in order into its own buffer, ``fma(dy, fma(rstd, x, -rstd * mean), buffer)`` and
#   ``buffer + dy``; the buffers are then added in thread order onto +0.
#
# The dx formula cancels (b * x + c is b * (x - mean)), so a gradient near zero keeps only
# these roundings: the statistics' formula would print other digits (generated-program seeds
# 43903, 44562, 46847, 49826). Cost: a few NumPy passes over the input; the per-thread buffers
# take one pass per row of a thread's share, so past _BUFFER_ROWS rows per thread (and without
# backends.cpu.torch_bits) dgamma and dbeta are NumPy's float32 sums instead.

_BUFFER_ROWS = 128  # (as BatchNorm's: a (4, 24, 32) LayerNorm's 96 rows took NumPy's sums)


def _lane_sum_in_order(lanes: np.ndarray) -> np.ndarray:
    """vec_reduce_all's sum of the lanes of a Vectorized<double>: lane 0, then each next one
    added in order (only float has the shuffle tree)."""
    total = lanes[..., 0].copy()
    for k in range(1, lanes.shape[-1]):
        total += lanes[..., k]
    return total


def _row_dot(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """vec::map2_reduce_all(p * q, +) of each row of ``p`` and ``q`` (rows, N), float32 in
    8-lane vectors or float64 in 4-lane ones."""
    rows, length = p.shape
    double = p.dtype == _F64
    width = _LANES64 if double else _LANES
    if length < width:
        products = p * q
        total = products[:, 0].copy()
        for k in range(1, length):
            total += products[:, k]
        return total
    full = length // width * width
    products = (p[:, :full] * q[:, :full]).reshape(rows, full // width, width)
    lanes = np.add.accumulate(products, axis=1)[:, -1].copy()
    rest = length - full
    if rest:
        fma = _fma64_quiet if double else _fma
        lanes[:, :rest] = fma(p[:, full:], q[:, full:], lanes[:, :rest])
    return _lane_sum_in_order(lanes) if double else _lane_tree_sum(lanes)


def layer_norm_backward(dy: np.ndarray, x, weight, eps: float, count: int, mask,
                        threads: int, torch_bits: bool):
    """``(dx, dgamma, dbeta)`` (None where not in ``mask``) of a float32 or float64 layer norm
    over the last ``count`` dims with torch's bits, or None where this is not replayed. ``x``
    may be None when only dbeta is asked for."""
    if dy.dtype not in (_F32, _F64) or not dy.size or x is None and (mask[0] or mask[1]) or \
            x is not None and (x.dtype != dy.dtype or not _same_dtype(x, weight)):
        return None
    fma = _fma64_quiet if dy.dtype == _F64 else _fma
    normalized = dy.shape[dy.ndim - count:]
    length = int(np.prod(normalized, dtype=np.int64))
    dy = np.ascontiguousarray(dy).reshape(-1, length)
    rows = mean = rstd = None
    if x is not None:
        rows, mean, rstd = _layer_norm_stats(x, eps, count)
    dx = None
    if mask[0]:
        a = rstd[:, None]
        scale = dy.dtype.type(1) / dy.dtype.type(length)
        if weight is None:
            ds = _row_dot(dy, rows)
            db = _row_dot(dy, np.ones_like(dy))
            scaled = a * dy
        else:
            gamma = np.ascontiguousarray(weight).reshape(1, length)
            ds = _row_dot(dy * rows, np.broadcast_to(gamma, rows.shape))
            db = _row_dot(dy, np.broadcast_to(gamma, rows.shape))
            scaled = a * dy * gamma
        b = fma(db, mean, -ds) * rstd * rstd * rstd * scale
        c = fma(-b, mean, -(db * rstd * scale))
        dx = (fma(b[:, None], rows, scaled) + c[:, None]).reshape(x.shape)
    dgamma, dbeta = _parameter_grads(dy, rows, mean, rstd, mask, threads, torch_bits)
    return (dx, None if dgamma is None else dgamma.reshape(normalized),
            None if dbeta is None else dbeta.reshape(normalized))


# -- layer norm's backward for float16/bfloat16 (layer_norm_backward_frame, T2 = T) ------------
#
# A float16/bfloat16 layer norm with weights of its dtype saves mean and rstd in that dtype
# (native_layer_norm's param_scalar_type) and runs the frame in float: per row
# ``dgamma_buffer = round(buffer + dy * (rstd * x + (-rstd * mean)))`` and ``dbeta_buffer =
# round(buffer + dy)`` (the buffers in the reduced dtype, one per thread's rows), ``ds``,
# ``db`` summed in float, ``b = (db * mean - ds) * rstd * rstd * rstd * (1 / N)``,
# ``c = -b * mean - db * rstd * (1 / N)`` and ``dx = round(rstd * dy * gamma + b * x + c)``,
# every step a float32 rounding (Vectorized<float>'s operators: nothing fused); dgamma and
# dbeta the buffers summed in float from +0. and rounded. Not replayed: the order of ds's and
# db's float sums (taken in float64 and rounded: a last float bit, rarely a reduced one).


def layer_norm_backward_reduced(dy: np.ndarray, x: np.ndarray, weight, eps: float, count: int,
                                mask, threads: int, rounding):
    """``(dx, dgamma, dbeta)`` of a float16/bfloat16 layer norm (all operands of that dtype;
    ``rounding`` takes a float32 array to it) as torch's frame above computes them."""
    dtype = dy.dtype
    length = int(np.prod(dy.shape[dy.ndim - count:], dtype=np.int64))
    g = np.ascontiguousarray(dy).reshape(-1, length).astype(_F32)
    rows, mean, rstd = _layer_norm_stats(x.astype(_F32), eps, count)
    mean = rounding(mean).astype(_F32)[:, None]  # (saved in the input's dtype)
    a = rounding(rstd).astype(_F32)[:, None]
    gamma = None if weight is None else weight.astype(_F32).reshape(1, length)
    count_rows = g.shape[0]
    with np.errstate(all="ignore"):
        dx = dgamma = dbeta = None
        if mask[0]:
            # (map3_reduce_all's dy * x * gamma, left to right: the sign of a zero product)
            products = g * rows if gamma is None else g * rows * gamma
            # (sums of the elements themselves, no +0. start: -0.0 is the identity)
            ds = np.sum(products.astype(_F64), axis=1, keepdims=True, initial=-0.0).astype(_F32)
            scaled = g if gamma is None else g * gamma
            db = np.sum(scaled.astype(_F64), axis=1, keepdims=True, initial=-0.0).astype(_F32)
            scale = _F32(1) / _F32(length)
            b = (db * mean - ds) * a * a * a * scale
            c = -b * mean - db * a * scale
            term = a * g if gamma is None else a * g * gamma
            dx = rounding(term + b * rows + c).reshape(x.shape)
        if mask[1] or mask[2]:
            used = min(threads, count_rows) if count_rows > 1 and threads > 1 else 1
            share = -(-count_rows // used)
            centred = a * rows + (-a * mean) if mask[1] else None
            dgamma = np.zeros(length, _F32) if mask[1] else None
            dbeta = np.zeros(length, _F32) if mask[2] else None
            for start in range(0, count_rows, share):
                weight_buffer = np.zeros(length, _F32)
                bias_buffer = np.zeros(length, _F32)
                for i in range(start, min(start + share, count_rows)):
                    if mask[1]:
                        weight_buffer = rounding(weight_buffer + g[i] * centred[i]).astype(_F32)
                    if mask[2]:
                        bias_buffer = rounding(bias_buffer + g[i]).astype(_F32)
                if mask[1]:
                    dgamma = dgamma + weight_buffer
                if mask[2]:
                    dbeta = dbeta + bias_buffer
    normalized = dy.shape[dy.ndim - count:]
    return (dx, None if dgamma is None else rounding(dgamma).reshape(normalized),
            None if dbeta is None else rounding(dbeta).reshape(normalized))


def _buffer_rows(grads, products, tails, weight_buffers, bias_buffers, last: int, mask):
    """Each thread's rows added in order into its buffers: ``fma(dy, a x + b, buffer)``
    (float32: the exact product in double plus the buffer, rounded once; float64: the product
    and its exact tail plus the buffer in double-double, Knuth's two-sum, rounded once) and
    ``buffer + dy``."""
    used, share = grads.shape[:2]
    for k in range(share):
        live = slice(None) if k < last else slice(0, used - 1)
        if mask[1] and tails is not None:
            p, c = products[live, k], weight_buffers[live]
            total = p + c
            virtual = total - p
            weight_buffers[live] = total + (((p - (total - virtual)) + (c - virtual))
                                            + tails[live, k])
        elif mask[1]:
            np.add(products[live, k], weight_buffers[live], out=weight_buffers[live],
                   casting="unsafe")
        if mask[2]:
            bias_buffers[live] += grads[live, k]


def _parameter_grads(dy, rows, mean, rstd, mask, threads: int, torch_bits: bool):
    """dgamma and dbeta (flat; None where not in ``mask``) from torch's per-thread buffers."""
    if not (mask[1] or mask[2]):
        return None, None
    count, length = dy.shape
    used = min(threads, count) if count > 1 and threads > 1 else 1
    share = -(-count // used)
    dgamma = dbeta = None
    dtype = dy.dtype
    if share > _BUFFER_ROWS and not torch_bits:
        if mask[1]:
            dgamma = np.sum(dy * ((rows - mean[:, None]) * rstd[:, None]), axis=0, dtype=dtype)
        if mask[2]:
            dbeta = np.sum(dy, axis=0, dtype=dtype)
        return dgamma, dbeta
    used = -(-count // share)  # the threads that get rows
    padded = share * used

    def shares(values, width):
        out = np.zeros((padded, width), dtype)
        out[:count] = values.reshape(count, width)
        return out.reshape(used, share, width)

    grads = shares(dy, length)
    double = dtype == _F64
    if mask[1]:
        # every row's dy * (a x + b) at once: a x + b fused (rounded once); float32: its
        # product with dy exact in double, the buffers below then take one rounding step per
        # row (float64: fused there)
        fma = _fma64_quiet if double else _fma
        centred = fma(shares(rstd, 1), shares(rows, length), shares(-rstd * mean, 1))
        if double:  # the products and their exact tails at once; the sums below per row

            with np.errstate(all="ignore"):
                products = grads * centred
                tails = product_error(grads, centred, products)
        else:
            products = np.multiply(grads, centred, dtype=_F64)
    weight_buffers = np.zeros((used, length), dtype)
    bias_buffers = np.zeros((used, length), dtype)
    last = count - share * (used - 1)  # rows of the last share (the padding is there)
    with np.errstate(all="ignore"):  # (an inf or NaN: torch's follow)
        _buffer_rows(grads, products if mask[1] else None,
                     tails if mask[1] and double else None, weight_buffers, bias_buffers,
                     last, mask)
    if mask[1]:
        dgamma = dtype.type(0) + weight_buffers[0]
        for buffer in weight_buffers[1:]:
            dgamma = dgamma + buffer
    if mask[2]:
        dbeta = dtype.type(0) + bias_buffers[0]
        for buffer in bias_buffers[1:]:
            dbeta = dbeta + buffer
    return dgamma, dbeta


def _vector_sum_rows(products: np.ndarray, factors=None) -> np.ndarray:
    """``at::vec::reduce_all``'s sum of each row of ``products`` (rows, L) as 8-lane vectors
    (map2_reduce_all's when the rows are products, rounded: the compiler does not fuse across
    its two lambdas, measured): a row shorter than a vector sums its elements in order; a
    longer one adds its vectors in order into the first, the partial last one into the first
    lanes only, then sums the lanes as a tree."""
    first = products
    if factors is not None:
        products = first * factors
    rows, length = products.shape
    double = products.dtype == _F64
    lanes = _LANES64 if double else _LANES  # (float64: 4-lane vectors, lanes added in order)
    if length < lanes:
        acc = products[:, 0].copy()
        for i in range(1, length):
            acc += products[:, i]
        return acc
    full = length // lanes * lanes
    vectors = products[:, :full].reshape(rows, full // lanes, lanes)
    acc = vectors[:, 0].copy()
    for v in range(1, vectors.shape[1]):
        acc += vectors[:, v]
    if length > full and double and factors is not None:
        acc[:, :length - full] = _fma64_quiet(first[:, full:], factors[:, full:],
                                              acc[:, :length - full])
    elif length > full:
        acc[:, :length - full] += products[:, full:]
    return _lane_sum_in_order(acc) if double else _lane_tree_sum(acc)


def group_norm_backward(dy: np.ndarray, x: np.ndarray, weight, groups: int, eps: float, mask,
                        threads: int = 1):
    """``(dx, dgamma, dbeta)`` (None where not in ``mask``) of a float32 group norm of a
    non-empty input laid out row-major (or read so: torch's channels-last kernel is another)
    with torch's bits; ``x`` may be None when only dbeta is asked for.

    GroupNormBackwardKernelImplInternal (its AVX2 build: 8-lane vectors): per (sample,
    channel) ``ds = sum(dy * x)`` and ``db = sum(dy)`` (``_vector_sum_rows``); per (sample,
    group) ``ds`` and ``db`` weighted by gamma over the group's D channels in 8-lane vectors
    (fused multiply-adds), the lanes summed in order from 0, the D % 8 channels after them in
    order, fused; but where the kernel runs outside an OpenMP region (one thread, or one
    (sample, group)) GCC's in-order vectorised reduction rounds the products of each whole 4
    of those channels (measured against torch with 1 and 2 threads); ``c2 = fma(db, mean, -ds) * rstd^3 * s``,
    ``c3 = fma(-(db * rstd), s, -c2 * mean)`` with ``s = 1 / (D * HxW)``, and
    ``dx = fma(rstd * gamma, dy, c2 * x) + c3``. dgamma: for each channel the samples in
    order, ``acc = fma(fma(-db, mean, ds), rstd, acc)``; dbeta: ``db`` summed over the samples
    in order (the statistics are the forward's, ``group_norm_stats``)."""
    shape = dy.shape
    dtype = np.dtype(_F64 if dy.dtype == _F64 else _F32)
    lanes = _LANES64 if dtype == _F64 else _LANES
    fma = _fma64_quiet if dtype == _F64 else _fma
    batch, channels = shape[0], shape[1]
    per_group = channels // groups
    plane = dy.size // (batch * channels)
    dy = np.ascontiguousarray(dy, dtype=dtype).reshape(batch * channels, plane)
    db = _vector_sum_rows(dy).reshape(batch, groups, per_group)
    if x is not None:  # (None: only dbeta is asked for)
        rows, mean, rstd = _group_norm_stats(x, groups, eps)
        x = rows.reshape(batch * channels, plane)
        ds = _vector_sum_rows(dy, x).reshape(batch, groups, per_group)
        mean, rstd = mean.reshape(batch, groups), rstd.reshape(batch, groups)
    gamma = None if weight is None else np.ascontiguousarray(weight, dtype).reshape(
        groups, per_group)
    dx = dgamma = dbeta = None
    if mask[0]:
        gamma_or_one = np.ones((groups, per_group), dtype) if gamma is None else gamma
        whole = per_group // lanes * lanes
        ds_lanes = np.zeros((batch, groups, lanes), dtype)
        db_lanes = np.zeros((batch, groups, lanes), dtype)
        for j in range(0, whole, lanes):  # CalcDsDb
            weights = gamma_or_one[:, j:j + lanes]
            ds_lanes = fma(ds[:, :, j:j + lanes], weights, ds_lanes)
            db_lanes = fma(db[:, :, j:j + lanes], weights, db_lanes)
        ds_sum = np.zeros((batch, groups), dtype)
        db_sum = np.zeros((batch, groups), dtype)
        for lane in range(lanes):  # std::accumulate from 0
            ds_sum += ds_lanes[:, :, lane]
            db_sum += db_lanes[:, :, lane]
        # (in the OpenMP region every product of the channels after the vectors is fused)
        parallel = threads > 1 and batch * groups > 1
        run = 2 if dtype == _F64 else 4  # (GCC's vectors for that loop: 2 doubles, 4 floats)
        unfused_end = whole if parallel else whole + (per_group - whole) // run * run
        for j in range(whole, per_group):
            weights = gamma_or_one[:, j]
            if j < unfused_end:
                ds_sum += ds[:, :, j] * weights
                db_sum += db[:, :, j] * weights
            else:
                ds_sum = fma(ds[:, :, j], weights, ds_sum)
                db_sum = fma(db[:, :, j], weights, db_sum)
        s = dtype.type(1) / dtype.type(per_group * plane)
        c2 = fma(db_sum, mean, -ds_sum) * rstd * rstd * rstd * s
        c3 = fma(-(db_sum * rstd), s, -c2 * mean)
        c1 = rstd[:, :, None] * gamma_or_one  # (N, G, D)
        c1 = c1.reshape(batch * channels, 1)
        c2 = np.repeat(c2.reshape(-1), per_group)[:, None]
        c3 = np.repeat(c3.reshape(-1), per_group)[:, None]
        dx = (fma(c1, dy, c2 * x) + c3).reshape(shape)
    if mask[1] and gamma is not None:
        dgamma = np.zeros((groups, per_group), dtype)
        for n in range(batch):
            centred = fma(-db[n], mean[n][:, None], ds[n])
            dgamma = fma(centred, rstd[n][:, None], dgamma)
        dgamma = dgamma.reshape(channels)
    if mask[2]:
        flat = db.reshape(batch, channels)
        dbeta = dtype.type(0) + flat[0]
        for n in range(1, batch):
            dbeta = dbeta + flat[n]
    return dx, dgamma, dbeta
