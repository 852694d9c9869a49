"""torch's CPU flash-attention kernel (ATen's cpu/FlashAttentionKernel.cpp), every bit, for
float32 and float64: the forward ``cpu_flash_attention`` and the backward
``cpu_flash_attention_backward`` that ``_scaled_dot_product_flash_attention_for_cpu`` runs.

Note: torch's flash-attention blocks
The kernel splits the queries into blocks of ``qSplitSize`` rows (32 below 192 queries, 64
below 768, 256 from there; at most the query length) and the keys into blocks of
``kvSplitSize = min(512, keys)``; one task is a (batch, head, query block), run in the order of
``at::parallel_for``. Per key block it

- multiplies ``q @ k^T`` with MKL's gemm (``cpublas::gemm``: column-major, k transposed, the
  block's rows at their strides in memory; ops/_blas.py makes the same call), alpha 1;
- fills the scores above the causal diagonal with -inf; scales them (``x * scale``, rounded)
  or, with a mask, adds the mask to the scaled score in one fused multiply-add;
- keeps a running maximum per row and takes ``exp_u20(x - max)`` over the whole vectors of the
  row (``Vectorized<float>::exp_u20``: a degree-5 polynomial, ``exp_u20`` below; float64's is
  SLEEF's expd) and the C library's exp over the rest, summing the vectors lane by lane, folding
  the lanes (reduce_all's shuffles) and adding the rest in order;
- rescales the running sum and output by ``exp(old max - new max)`` and accumulates
  ``p @ v`` into the output with a second gemm (beta 0 for the first block, 1 after);

and finally multiplies by the reciprocal of the sum and keeps ``max + log(sum)`` for the
backward. The backward, per (batch, key head) and its query heads in turn (enable_gqa's groups;
one head otherwise), per query block, per key block: recomputes the
weights as ``exp(scale * (q @ k^T) + mask - logsumexp)`` (the scale now gemm's alpha, SLEEF's
expf on every element), accumulates ``grad_v += p^T @ grad_out``, computes
``grad_p = grad_out @ v^T`` and ``ds = p * (grad_p - rowsum(grad_out * out))``, then
``grad_q += scale * ds @ k`` and ``grad_k += scale * ds^T @ q`` (gemm's alpha and beta 1, into
zero-initialised (batch, length, head, dim) buffers). The elementwise steps run here on every
task at once; the gemms are MKL's, one call per block and task, as torch makes them.

Threads: a task runs on one thread, so its values depend on the thread count only through
MKL: inside torch's OpenMP region its gemm runs sequentially, outside it (a single task, run on
the calling thread) on ``get_num_threads()`` threads, which rounds differently; and where the
thread's scratch buffer puts the blocks (Note: MKL's alignment). The calls here follow both.
"""

from __future__ import annotations

import ctypes

import numpy as np

from . import _blas, _isa, _libm, _mkl, _softmax_bits
from ._float_kernels import fma
from ._float_kernels import _glibc_exp_array
from .._info import get_num_threads

_F32 = np.float32
_F64 = np.float64
_COLUMN_MAJOR, _N, _T = 102, 111, 112
_NEG_INF = float("-inf")


def q_split_size(length: int) -> int:
    """The kernel's query block for ``length`` queries (flash_attention_kernel_impl)."""
    return 256 if length >= 768 else 64 if length >= 192 else 32


def supported(dtype: np.dtype) -> bool:
    """Whether the kernel is replayed for ``dtype`` (MKL's gemm loaded and switched on)."""
    return dtype.char in "fd" and not _blas.off() and _blas._function(dtype.char) is not None


# -- exp_u20 (float32), as Vectorized<float>::exp_u20 under AVX-512 and AVX2 ------------------

_LOG2E = np.frombuffer(np.uint32(0x3FB8AA3B).tobytes(), _F32)[0]
_LN2 = np.frombuffer(np.uint32(0x3F317218).tobytes(), _F32)[0]
_LN_MIN = np.frombuffer(np.uint32(0xC2AEAC50).tobytes(), _F32)[0]
_LN_MAX = np.frombuffer(np.uint32(0x42B17218).tobytes(), _F32)[0]
_U20_POLY = tuple(_F64(_F32(c)) for c in (0.00828929059, 0.0418978221, 0.166676521,
                                          0.499991506, 0.999999701, 1.0))


# Each Horner step is one float32 fused multiply-add; its product is exact in float64, and the
# sum is rounded once onto float32's grid by adding a constant K that puts the float64 ulp
# where float32's is, then subtracting K (exact): the reduced argument |r| <= ln2/2 keeps the
# first two steps in one binade ([2**-5, 2**-4), [2**-3, 2**-2): K = 1.5 * 2**(52 + log2 ulp),
# ops/_softmax_bits.py's trick) and the last three either side of 0.5 or 1, where
# K = 2**28 - 0.5 or 2**29 - 1 makes float64's binade boundary (2**28, 2**29) fall on
# float32's (measured equal to rounding each step to float32 on 7e6 inputs).
_ROUNDERS = (_F64(1.5 * 2.0 ** (52 - 28)), _F64(1.5 * 2.0 ** (52 - 26)), _F64(2.0 ** 28 - 0.5),
             _F64(2.0 ** 29 - 1), _F64(2.0 ** 29 - 1))
_ADDS = tuple(k + c for k, c in zip(_ROUNDERS, _U20_POLY[1:]))  # (exact sums)


_BLOCK = 16384  # elements per pass of the exp replays: their float64 temporaries stay in cache


def _by_blocks(function, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[...] = function(x)`` for an elementwise ``function``, run over slices of x's first
    axis of about _BLOCK elements (a (16, 32, 64) exp_u20 costs a third of the whole-array
    pass: measured, CPU time)."""
    rows = x.shape[0] if x.ndim > 1 else 1
    step = max(1, _BLOCK * rows // max(x.size, 1))
    if step >= rows:
        out[...] = function(x)
        return out
    for start in range(0, rows, step):
        out[start:start + step] = function(x[start:start + step])
    return out


def exp_u20(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``Vectorized<float>::exp_u20`` of a float32 array: ``2**n * p(r)`` with
    ``n = floor(x log2(e) + 1/2)``, ``r = x - n ln2`` and a degree-5 polynomial in Horner's
    scheme, each step a float32 fused multiply-add (above), ``2**(n-1)`` built from its bits
    and the product doubled; below ln(FLT_MIN) it is 0. ``out``: a float32 array of x's shape
    to write into."""
    with np.errstate(all="ignore"):
        # (_mm512_min_ps(x, max) answers its second operand for a NaN: exp_u20(NaN) is
        # exp_u20(ln(FLT_MAX)), finite)
        wide = np.fmin(x, _LN_MAX, dtype=_F64)
        np.maximum(wide, _LN_MIN, out=wide)
        t = wide * _F64(_LOG2E)
        t += 0.5
        fx = t.astype(_F32)  # fma(x, log2e, 0.5) (float64's sum rounded again: the floor of a
        np.floor(fx, out=fx)  # value next to an integer is all that depends on it)
        np.multiply(fx, _F64(_LN2), out=t, dtype=_F64)  # (exact)
        wide -= t
        res = wide.astype(_F32)  # r = fnmadd(fx, ln2, x): float64's difference is exact
        np.copyto(wide, res)
        r = wide
        np.multiply(r, _U20_POLY[0], out=t)
        for step, (add, rounder) in enumerate(zip(_ADDS, _ROUNDERS)):
            if step:
                t *= r
            t += add
            t -= rounder
        np.copyto(res, t, casting="same_kind")  # (exact: on float32's grid)
        bits = fx.astype(np.int32)
        bits += np.int32(126)
        bits <<= np.int32(23)
        if out is None:
            out = res
        np.multiply(res, bits.view(_F32), out=out)  # 2**(n-1), then doubled
        out *= _F32(2)
        below = x < _LN_MIN
        if below.any():
            out[below] = 0
        return out


# -- the lanes of torch's vectorised row reductions -------------------------------------------

_LANES = _isa.lanes(4)
_LANES64 = _isa.lanes(8)


def _fold(lanes: np.ndarray, double: bool) -> np.ndarray:
    """vec_reduce_all's sum of the lanes (last axis): float32's shuffles fold halves (lane i
    plus lane i ^ 8, then ^ 4, ^ 2, ^ 1: lane 0 is the halves added in turn), float64's loop
    adds them in order."""
    if double:
        total = lanes[..., 0].copy()
        for j in range(1, lanes.shape[-1]):
            total += lanes[..., j]
        return total
    width = lanes.shape[-1]
    while width > 1:
        width //= 2
        lanes = lanes[..., :width] + lanes[..., width:2 * width]
    return lanes[..., 0]


def _scalar_exp(x: np.ndarray) -> np.ndarray:
    """``std::exp`` of a float (glibc's expf: ops/_libm.py) or of a double (glibc's exp)."""
    return _double_exp(x, exact=True) if x.dtype == _F64 else _libm.expf(x)


def _double_exp(x: np.ndarray, exact: bool) -> np.ndarray:
    """glibc's ``exp`` of a float64 array: element by element where every bit counts
    (``exact``: NumPy's vectorised exp differs in the last bit on some inputs), NumPy's
    where the result is rounded to float32 next (the two then differ only on the rare values
    next to a float32 rounding midpoint)."""
    if not exact:
        with np.errstate(all="ignore"):
            return np.exp(x)

    return np.asarray(_glibc_exp_array(x), dtype=_F64).reshape(x.shape)


def _row_max(scores: np.ndarray, lanes: int) -> np.ndarray:
    """_mul_reduce_max_fusion_kernel's row maximum: the whole vectors' (vec::maximum: a NaN
    wins) with the scalar tail's (std::max from -inf: a NaN never does; so a row of fewer
    scores than a vector, all NaN, counts as fully masked: zeros, as torch's)."""
    size = scores.shape[-1]
    full = size - size % lanes
    if full == size:
        return scores.max(axis=-1)
    tail = np.fmax.reduce(scores[..., full:], axis=-1, initial=_NEG_INF)
    return np.maximum(scores[..., :full].max(axis=-1), tail) if full else tail


def _exp_sum(shifted: np.ndarray, out: np.ndarray, double: bool) -> np.ndarray:
    """_exp_reduce_sum_fusion_kernel on rows (last axis) of ``x - max``: the exponentials
    (written to ``out``) and their sums (vectors lane by lane, folded, then the scalar tail in
    order)."""
    size = shifted.shape[-1]
    lanes = _LANES64 if double else _LANES
    full = size - size % lanes
    with np.errstate(all="ignore"):
        if full:
            _by_blocks(_softmax_bits.expd if double else exp_u20, shifted[..., :full],
                       out[..., :full])
            acc = out[..., :lanes].copy()
            for start in range(lanes, full, lanes):
                acc += out[..., start:start + lanes]
            total = _fold(acc, double)
        else:
            total = np.zeros(shifted.shape[:-1], shifted.dtype)
        if full < size:
            # the scalar loop's ``exp(tmp1)``: C's double exp of the float (glibc's expf differs
            # on ~0.07% of inputs, measured), rounded to the float, added in order
            wide = _double_exp(shifted[..., full:].astype(_F64), exact=double)
            out[..., full:] = wide
            for j in range(full, size):
                total += out[..., j]
    return total


def _dot_rows(a: np.ndarray, b: np.ndarray, double: bool) -> np.ndarray:
    """vec::map2_reduce_all's ``sum(a * b)`` over the last axis: the rounded products added
    vector by vector in the lanes (the partial last vector into its first lanes), folded as
    vec_reduce_all; rows shorter than a vector add their rounded products in order. (No
    product is fused into its sum here, unlike softmax's backward: measured.)"""
    products = a * b
    size = a.shape[-1]
    lanes = _LANES64 if double else _LANES
    if size < lanes:
        total = products[..., 0].copy()
        for j in range(1, size):
            total += products[..., j]
        return total
    acc = products[..., :lanes].copy()
    full = size - size % lanes
    for start in range(lanes, full, lanes):
        acc += products[..., start:start + lanes]
    if full < size:
        acc[..., :size - full] += products[..., full:]
    return _fold(acc, double)


# -- the gemm calls ---------------------------------------------------------------------------


class _Gemm:
    """MKL's ``cblas_?gemm`` as ``cpublas::gemm`` calls it (column-major, after
    normalize_last_dims), on raw addresses; each shape's arguments are made once."""

    def __init__(self, char: str):
        self.function, self.kind, _, _ = _blas._function(char)
        self.plans: dict = {}

    def _plan(self, key):
        ta, tb, m, n, k, alpha, lda, ldb, beta, ldc = key
        if n == 1:
            ldc = m
        if ta == _T:
            if m == 1:
                lda = k
        elif k == 1:
            lda = m
        if tb == _T:
            if k == 1:
                ldb = n
        elif n == 1:
            ldb = k
        plan = self.plans[key] = (ta, tb, m, n, k, self.kind(alpha), lda, ldb, self.kind(beta),
                                  ldc)
        return plan

    def __call__(self, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        key = (ta, tb, m, n, k, alpha, lda, ldb, beta, ldc)
        plan = self.plans.get(key) or self._plan(key)
        ta, tb, m, n, k, alpha, lda, ldb, beta, ldc = plan
        self.function(_COLUMN_MAJOR, ta, tb, m, n, k, alpha, _void_p(a), lda, _void_p(b), ldb,
                      beta, _void_p(c), ldc)


_void_p = ctypes.c_void_p


class _Threads:
    """MKL's thread count for a stretch of gemm calls: sequential inside torch's OpenMP
    region (more than one task and more than one thread), ``get_num_threads()`` otherwise
    (MKL's thread-local setting, restored after)."""

    def __init__(self, tasks: int):
        self.sequential = tasks > 1 and get_num_threads() > 1
        self.previous = None

    def __enter__(self):
        if self.sequential:
            self.function = _mkl.library().MKL_Set_Num_Threads_Local
            self.function.argtypes = [ctypes.c_int]
            self.function.restype = ctypes.c_int
            self.previous = self.function(1)
        return self

    def __exit__(self, *exc):
        if self.previous is not None:
            self.function(self.previous)


# Note: MKL's alignment
# MKL's small-matrix gemm takes other code paths, and rounds differently, depending on where its
# operands lie modulo 16 bytes (measured: one product in 4 to 6 of random shapes changes with the
# result's or an operand's address; moving them by 64 bytes never does). torch's kernel runs
# each task in its thread's scratch buffer (64-byte aligned, ``num_threads`` of them one after
# another), so every block here is placed at the address torch's would have modulo 16 bytes:
# the tasks are grouped by that offset (the thread that runs them), each group's blocks laid out
# with a stride of whole 64-byte lines. Inputs, outputs and fresh buffers are NumPy's (at least
# 16-byte aligned, as torch's are), so their element offsets decide, as in torch.

_LINE = 64


def _regions(count: int, size: int, shift: int, dtype: np.dtype) -> np.ndarray:
    """A (count, size) zeroed array whose rows start ``shift`` elements past a 64-byte line."""
    item = dtype.itemsize
    per_line = _LINE // item
    stride = -(-(size + shift) // per_line) * per_line
    raw = np.zeros(count * stride + per_line, dtype)
    start = (-(raw.ctypes.data // item)) % per_line + shift
    return raw[start:start + count * stride].reshape(count, stride)[:, :size]


def _thread_of(count: int) -> np.ndarray:
    """The OpenMP thread that runs each of ``count`` tasks under at::parallel_for (grain 1):
    ``min(threads, count)`` threads take consecutive chunks of ``ceil(count / threads)``."""
    used = max(1, min(get_num_threads(), count))
    return np.arange(count) // -(-count // used)


def _groups(count: int, buffer: int, dtype: np.dtype, limit: int):
    """The tasks (consecutive index ranges) sharing a scratch offset modulo 16 bytes (see
    Note: MKL's alignment), cut into pieces of at most ``limit`` tasks: ``(shift, start,
    stop)``."""
    per = 16 // dtype.itemsize
    shifts = (_thread_of(count) * buffer) % per
    out = []
    start = 0
    while start < count:
        stop = start + 1
        while stop < count and shifts[stop] == shifts[start] and stop - start < limit:
            stop += 1
        out.append((int(shifts[start]), start, stop))
        start = stop
    return out


def _blas_ready(a: np.ndarray) -> np.ndarray:
    """``a`` itself, or a row-major copy where BLAS could not read it as it lies (a negative
    stride, or rows overlapping: torch's gemm then takes its own slower loops, whose last
    bits this does not replay)."""
    length, dim = a.shape[2], a.shape[3]
    item = a.itemsize
    if min(a.strides) < 0 or (length > 1 and a.strides[2] < dim * item):
        return np.ascontiguousarray(a)
    return a


def _strides(a: np.ndarray, length: int, dim: int):
    """Element strides (batch, head, row) of a (B, H, L, D) array, the row stride made a
    valid leading dimension where the row axis has one element (any stride is torch's)."""
    item = a.itemsize
    sb, sh, sm = (s // item for s in a.strides[:3])
    if length == 1:
        sm = max(sm, dim)
    return sb, sh, sm


def _bias_4d(mask, batch, heads, length, source, dtype):
    """The mask broadcast to (B, H, Lq, Lk) in the accumulation type (a boolean mask as 0 and
    -inf, as sdpa converts it before the kernel), or None."""
    if mask is None:
        return None
    if mask.dtype == np.bool_:
        mask = np.where(mask, dtype.type(0), dtype.type(_NEG_INF))
    else:
        mask = mask.astype(dtype, copy=False)
    if mask.ndim == 2:
        mask = mask[None, None]
    return np.broadcast_to(mask, (batch, heads, length, source))


_ELEMENTS = 1 << 21  # scores per group of tasks at most (bounds the scratch memory)


def forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask, is_causal: bool, scale: float):
    """``(out, logsumexp)`` of the flash kernel for (B, H, L, D) float32/float64 arrays with
    unit last strides (key and value may have fewer heads, dividing the query's: enable_gqa);
    ``out`` (B, H, Lq, D) contiguous, ``logsumexp`` (B, H, Lq)."""
    dtype = q.dtype
    q, k, v = _blas_ready(q), _blas_ready(k), _blas_ready(v)
    batch, heads, length, dim = q.shape
    source = k.shape[2]
    group = heads // k.shape[1]  # query heads per key head (enable_gqa)
    q_split = min(q_split_size(length), length)
    kv_split = min(512, source)
    slices = -(-length // q_split)
    count = batch * heads * slices
    # torch's per-thread scratch: scores, row maxima, row sums, output rows
    buffer = q_split * kv_split + 2 * q_split + q_split * dim
    out = np.empty((batch * heads * slices, q_split, dim), dtype)
    lse = np.empty((batch * heads * slices, q_split), dtype)
    bias = _bias_4d(mask, batch, heads, length, source, dtype)
    with _Threads(count):
        for shift, start, stop in _groups(count, buffer, dtype,
                                          max(1, _ELEMENTS // (q_split * kv_split))):
            _forward_tasks(q, k, v, bias, is_causal, dtype.type(scale), group, q_split,
                           kv_split, buffer, shift, start, stop, out, lse)
    out = out.reshape(batch, heads, slices * q_split, dim)[:, :, :length]
    lse = lse.reshape(batch, heads, slices * q_split)[:, :, :length]
    return np.ascontiguousarray(out), np.ascontiguousarray(lse)


def _forward_tasks(q, k, v, bias, is_causal, scale, group, q_split, kv_split, buffer, shift,
                   start, stop, out, lse):
    """The forward of tasks ``start:stop`` (index (batch, head, query block)), their scratch
    blocks at ``shift`` elements past a 64-byte line; writes ``out`` and ``lse`` rows."""
    dtype = q.dtype
    double = dtype == _F64
    item = dtype.itemsize
    batch, heads, length, dim = q.shape
    source = k.shape[2]
    slices = -(-length // q_split)
    count = stop - start
    index = np.arange(start, stop)
    rows_of = index % slices * q_split  # first query of each task
    head_of = index // slices
    regions = _regions(count, buffer, shift, dtype)
    base = regions.ctypes.data
    line = regions.strides[0] // item
    dst_at = q_split * kv_split + 2 * q_split
    dst = regions[:, dst_at:dst_at + q_split * dim].reshape(count, q_split, dim)
    top = np.full((count, q_split), _NEG_INF, dtype)
    total = np.zeros((count, q_split), dtype)
    queries = rows_of[:, None] + np.arange(q_split)  # (task, row): the query index
    gemm = _Gemm(dtype.char)
    qsb, qsh, qsm = _strides(q, length, dim)
    ksb, ksh, ksn = _strides(k, source, dim)
    vsb, vsh, vsn = _strides(v, source, dim)
    q_at, k_at, v_at = q.ctypes.data, k.ctypes.data, v.ctypes.data
    tasks = [(x, int(h) // heads, int(h) % heads, int(m), min(q_split, length - int(m)))
             for x, (h, m) in enumerate(zip(head_of, rows_of))]
    keys_of = np.minimum(rows_of + np.array([t[4] for t in tasks]), source) if is_causal \
        else np.full(count, source)
    if bias is not None:
        flat = bias.reshape(batch * heads, length, source)
        task_bias = flat[head_of[:, None], np.minimum(queries, length - 1)]
    for n in range(0, source, kv_split):
        block = min(kv_split, source - n)
        active = keys_of > n
        if not active.any():
            break
        live = [t for t in tasks if active[t[0]]]
        qk = regions[:, :q_split * block].reshape(count, q_split, block)
        for x, i, j, m, q_rows in live:
            gemm(_T, _N, block, q_rows, dim, 1,
                 k_at + (i * ksb + j // group * ksh + n * ksn) * item, ksn,
                 q_at + (i * qsb + j * qsh + m * qsm) * item, qsm, 0,
                 base + x * line * item, block)
        with np.errstate(all="ignore"):
            if is_causal:
                qk[queries[:, :, None] < n + np.arange(block)] = _NEG_INF
            if bias is None:
                scores = qk * scale
                block_top = _row_max(scores, _LANES64 if double else _LANES)
            else:  # qk * scale + mask: one fused multiply-add
                scores = fma(qk, scale, task_bias[:, :, n:n + block])
                block_top = scores.max(axis=-1)  # (reduce_all: a NaN wins)
            new_top = np.where(top > block_top, top, block_top)
            alive = new_top != _NEG_INF
            dead = not alive.all()
            scores -= np.where(alive, new_top, 0)[..., None] if dead else new_top[..., None]
            sums = _exp_sum(scores, qk, double)  # the weights overwrite the scores, as torch's
            if dead:
                qk[~alive] = 0
            if n == 0:  # (the first block: nothing to rescale)
                total = np.where(alive, sums, total)
            else:
                factor = _scalar_exp(top - new_top)
                alive &= active[:, None]
                total = np.where(alive, fma(factor, total, sums), total)
                np.copyto(dst, dst * factor[..., None], where=alive[..., None])
            top = np.where(alive, new_top, top)
        for x, i, j, m, q_rows in live:
            gemm(_N, _N, dim, q_rows, block, 1,
                 v_at + (i * vsb + j // group * vsh + n * vsn) * item, vsn,
                 base + x * line * item, block, 0 if n == 0 else 1,
                 base + (x * line + dst_at) * item, dim)
    with np.errstate(all="ignore"):
        top = np.where(top == _NEG_INF, 0, top)
        total = np.where(total == 0, 1, total)
        out[start:stop] = dst * (dtype.type(1) / total)[..., None]
        lse[start:stop] = top + (_libm.call("log", total) if double else _libm.logf(total))


def backward(grad: np.ndarray, q: np.ndarray, k: np.ndarray, v: np.ndarray, out: np.ndarray,
             lse: np.ndarray, mask, is_causal: bool, scale: float):
    """``(grad_q, grad_k, grad_v)`` of the flash kernel's backward, each a (B, H, L, D) view
    of a zero-initialised (B, L, H, D) buffer (torch's layout)."""
    dtype = q.dtype
    double = dtype == _F64
    q, k, v = _blas_ready(q), _blas_ready(k), _blas_ready(v)
    batch, heads, length, dim = q.shape
    kv_heads, source = k.shape[1], k.shape[2]
    q_split = min(q_split_size(length), length)
    kv_split = min(512, source)
    grad = grad.astype(dtype, copy=False)
    grad_t = np.ascontiguousarray(grad.transpose(0, 2, 1, 3))  # grad_out.contiguous()
    grads = tuple(np.zeros((batch, size, h, dim), dtype)
                  for size, h in ((length, heads), (source, kv_heads), (source, kv_heads)))
    with np.errstate(all="ignore"):
        dsum = _dot_rows(grad, out, double)  # (B, H, Lq)
    count = batch * kv_heads  # torch's tasks: a key head's query heads in turn
    buffer = 2 * q_split * kv_split  # per-thread scratch: weights, their gradient
    bias = _bias_4d(mask, batch, heads, length, source, dtype)
    with _Threads(count):
        for shift, start, stop in _groups(count, buffer, dtype,
                                          max(1, _ELEMENTS // (q_split * kv_split))):
            _backward_tasks(grad_t, q, k, v, lse, dsum, bias, is_causal, dtype.type(scale),
                            q_split, kv_split, buffer, shift, start, stop, grads)
    return tuple(g.transpose(0, 2, 1, 3) for g in grads)


def _backward_tasks(grad_t, q, k, v, lse, dsum, bias, is_causal, scale, q_split, kv_split,
                    buffer, shift, start, stop, grads):
    """The backward of tasks ``start:stop`` (index (batch, key head)), accumulated into
    ``grads`` ((B, L, H, D) arrays) in the kernel's order."""
    dtype = q.dtype
    double = dtype == _F64
    item = dtype.itemsize
    batch, heads, length, dim = q.shape
    kv_heads, source = k.shape[1], k.shape[2]
    group = heads // kv_heads
    grad_q, grad_k, grad_v = grads
    count = stop - start
    regions = _regions(count, buffer, shift, dtype)
    base = regions.ctypes.data
    line = regions.strides[0] // item
    attn_at, grad_at = 0, q_split * kv_split
    gemm = _Gemm(dtype.char)
    qsb, qsh, qsm = _strides(q, length, dim)
    ksb, ksh, ksn = _strides(k, source, dim)
    vsb, vsh, vsn = _strides(v, source, dim)
    q_at, k_at, v_at, g_at = q.ctypes.data, k.ctypes.data, v.ctypes.data, grad_t.ctypes.data
    gq_at, gk_at, gv_at = grad_q.ctypes.data, grad_k.ctypes.data, grad_v.ctypes.data
    q_row, kv_row = heads * dim, kv_heads * dim
    index = np.arange(start, stop)
    batch_of, kv_head_of = index // kv_heads, index % kv_heads
    for member in range(group):
        head_of = kv_head_of * group + member
        tasks = [(x, int(i), int(h), int(j)) for x, (i, h, j)
                 in enumerate(zip(batch_of, kv_head_of, head_of))]
        for m in range(0, length, q_split):
            q_rows = min(q_split, length - m)
            keys = min(m + q_rows, source) if is_causal else source
            lse_rows = lse[batch_of, head_of, m:m + q_rows][..., None]
            dsum_rows = dsum[batch_of, head_of, m:m + q_rows][..., None]
            for n in range(0, keys, kv_split):
                block = min(kv_split, source - n)
                size = q_rows * block
                attn = regions[:, attn_at:attn_at + size].reshape(count, q_rows, block)
                grad_attn = regions[:, grad_at:grad_at + size].reshape(count, q_rows, block)
                for x, i, h, j in tasks:
                    gemm(_T, _N, block, q_rows, dim, scale,
                         k_at + (i * ksb + h * ksh + n * ksn) * item, ksn,
                         q_at + (i * qsb + j * qsh + m * qsm) * item, qsm, 0,
                         base + (x * line + attn_at) * item, block)
                with np.errstate(all="ignore"):
                    if bias is not None:  # (+ mask: a product by 1 fused, exact)
                        attn += bias[batch_of, head_of, m:m + q_rows, n:n + block]
                    attn -= lse_rows
                    _by_blocks(_softmax_bits.expd if double else _softmax_bits.expf, attn, attn)
                if is_causal:
                    above = (n + np.arange(block))[None, :] > (m + np.arange(q_rows))[:, None]
                    attn[:, above] = 0
                for x, i, h, j in tasks:
                    grad_off = (i * length + m) * q_row + j * dim
                    gemm(_N, _T, dim, block, q_rows, 1, g_at + grad_off * item, q_row,
                         base + (x * line + attn_at) * item, block, 1,
                         gv_at + ((i * source + n) * kv_row + h * dim) * item, kv_row)
                    gemm(_T, _N, block, q_rows, dim, 1,
                         v_at + (i * vsb + h * vsh + n * vsn) * item, vsn,
                         g_at + grad_off * item, q_row, 0,
                         base + (x * line + grad_at) * item, block)
                with np.errstate(all="ignore"):
                    grad_attn -= dsum_rows
                    grad_attn *= attn
                for x, i, h, j in tasks:
                    gemm(_N, _N, dim, q_rows, block, scale,
                         k_at + (i * ksb + h * ksh + n * ksn) * item, ksn,
                         base + (x * line + grad_at) * item, block, 1,
                         gq_at + ((i * length + m) * q_row + j * dim) * item, q_row)
                    gemm(_N, _T, dim, block, q_rows, scale,
                         q_at + (i * qsb + j * qsh + m * qsm) * item, qsm,
                         base + (x * line + grad_at) * item, block, 1,
                         gk_at + ((i * source + n) * kv_row + h * dim) * item, kv_row)
