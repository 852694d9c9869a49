"""softmax and log_softmax of float16 and bfloat16 tensors in the steps of torch's CPU kernels.

torch computes these in float32 and rounds to the tensor's dtype, but not always once:

- softmax over the last dim: the row maximum, exp(x - max) in float32, the sum of the whole
  vectors lane by lane (float32 vectors) folded as ``vec_reduce_all`` with the remaining
  elements added after it one by one, and the products with its reciprocal, rounded once;
- log_softmax over the last dim: the sum of exp(x - max) (added a vector at a time:
  ``_vector_sum``) is stored in the tensor's dtype, its log is taken and rounded again, and
  ``(x - max) - log`` is rounded;
- softmax over another dim: at::parallel_for (grain 1) splits the (outer, inner) positions
  among the threads; each thread takes a vector of adjacent inner positions at a time
  (sums in order over the dim, quotients rounded once) and the positions left over (fewer than
  a vector to the end of an inner row or of the thread's range) one by one, where each exp is
  rounded to the dtype before the quotient;
- log_softmax over another dim: float32 log_softmax rounded once.

The backwards compute in float32 on the float32 values of the gradient and the result and
round once; over the last dim their sums go a vector at a time (``_vector_sum``). A vector
of a 2-byte float is 16 elements, 32 under AVX-512 (``_STEP``).
"""

from __future__ import annotations

import math

import numpy as np

from . import _float_kernels, _isa, _libm, _softmax_bits

_F32 = np.float32
# positions in one vector of a 2-byte float: 16 in 32-byte vectors, 32 under AVX-512 (torch's
# softmax kernels have an AVX-512 build: ALSO_REGISTER_AVX512_DISPATCH, ops/_isa.py)
_STEP = _isa.lanes(2)


def _exp(x: np.ndarray) -> np.ndarray:
    """The vectorised loops' exp: SLEEF's expf replayed exactly (ops/_softmax_bits.py, the
    same bits as the step-by-step _float_kernels.sleef_expf at about half its cost; an
    approximation gave another float16 in about one of 3000 gradients)."""
    return _softmax_bits.expf(np.asarray(x, dtype=_F32))


def _scalar_exp(x: np.ndarray) -> np.ndarray:
    """The scalar loops' exp (the C library's expf: ops/_libm.py)."""
    return _libm.exp(np.asarray(x, dtype=_F32))


def _lastdim_sum(exps: np.ndarray) -> np.ndarray:
    """Row sums of a float32 matrix: whole float32 vectors lane by lane, the lanes folded,
    then the remaining elements one by one."""
    count, size = exps.shape
    lanes = _float_kernels._LANES
    full = size - size % lanes
    if full:
        total = _float_kernels.reduce_all_sum(exps[:, :full])
    else:
        total = np.zeros(count, _F32)
    if full < size:
        ordered = np.concatenate([total[:, None], exps[:, full:]], axis=1)
        total = np.add.accumulate(ordered, axis=1)[:, -1]
    return total


def _thread_ranges(count: int):
    from .._info import get_num_threads

    threads = min(get_num_threads(), count)
    if threads <= 1:
        return [(0, count)]
    step = -(-count // threads)
    return [(begin, min(count, begin + step)) for begin in range(0, count, step)]


def _vector_positions(outer: int, inner: int) -> np.ndarray:
    """Which (outer, inner) positions torch's non-last-dim softmax takes as vectors."""
    flags = np.zeros(outer * inner, bool)
    for begin, end in _thread_ranges(outer * inner):
        index = begin
        while index < end:
            inner_index = index % inner
            if inner_index + _STEP <= inner and index + _STEP <= end:
                flags[index:index + _STEP] = True
                index += _STEP
            elif index + _STEP > end:
                index = end
            else:
                index += inner - inner_index
    return flags.reshape(outer, 1, inner)


def forward(values: np.ndarray, dim: int, log: bool, round_to) -> np.ndarray:
    """softmax (``log``: log_softmax) of ``values`` (float32 holding float16/bfloat16 values,
    at least 1-d and not empty) over ``dim``, rounded by ``round_to``."""
    dim %= values.ndim
    with np.errstate(all="ignore"):
        if dim == values.ndim - 1:
            rows = np.ascontiguousarray(values).reshape(-1, values.shape[-1])
            shifted = rows - rows.max(axis=1, keepdims=True)
            # whole float32 vectors by the vectorised exp, the elements after them by expf
            full = shifted.shape[1] - shifted.shape[1] % _float_kernels._LANES
            exps = np.concatenate([_exp(shifted[:, :full]), _scalar_exp(shifted[:, full:])],
                                  axis=1)
            total = _lastdim_sum(exps)
            if log:  # (map_reduce_all: a vector at a time, SLEEF's exp throughout)
                total = round_to(_vector_sum(_exp(shifted))).astype(_F32)
                log_total = round_to(np.log(total, dtype=np.float64).astype(_F32))
                out = shifted - log_total.astype(_F32)[:, None]
            else:
                out = exps * (_F32(1) / total)[:, None]
            return round_to(out).reshape(values.shape)
        outer = math.prod(values.shape[:dim])
        inner = math.prod(values.shape[dim + 1:])
        x = values.reshape(outer, values.shape[dim], inner)
        shifted = x - x.max(axis=1, keepdims=True)
        exps = _scalar_exp(shifted)
        if log:
            total = _exp(shifted).sum(axis=1, keepdims=True, dtype=_F32)
            out = round_to(shifted - np.log(total, dtype=np.float64).astype(_F32))
            return out.reshape(values.shape)
        flags = _vector_positions(outer, inner)
        if flags.any():  # the vectors' exp is SLEEF's, the scalar loop's the C library's
            exps = np.where(flags, _exp(shifted), exps)
        total = np.add.accumulate(exps, axis=1)[:, -1:]
        vectors = round_to(exps / total)
        scalars = round_to(round_to(exps).astype(_F32) / total)
        return np.where(flags, vectors, scalars).reshape(values.shape)


def _vector_sum(rows: np.ndarray) -> np.ndarray:
    """torch's reduce_all of the rows of a float32 matrix for a 2-byte float: ``_STEP``
    elements at a time as two float32 vectors (first and last halves) with an accumulator
    each, the last partial block added to the first lanes, the accumulators added lane by lane
    and folded; rows shorter than ``_STEP`` add elements i and i + _STEP / 2 and then the lanes
    one by one."""
    count, size = rows.shape
    lanes = _STEP // 2
    if size < _STEP:
        head = rows[:, :min(size, lanes)].copy()
        if size > lanes:
            head[:, :size - lanes] += rows[:, lanes:size]
        return np.add.accumulate(head, axis=1)[:, -1]
    full = size - size % _STEP
    blocks = np.ascontiguousarray(rows[:, :full].reshape(count, -1, 2, lanes).transpose(1, 0, 2, 3))
    first, second = np.add.accumulate(blocks.reshape(len(blocks), count * 2 * lanes),
                                      axis=0)[-1].reshape(count, 2, lanes).transpose(1, 0, 2)
    first, second = first.copy(), second.copy()
    rest = size - full
    if rest > lanes:
        first += rows[:, full:full + lanes]
        second[:, :rest - lanes] += rows[:, full + lanes:]
    elif rest:
        first[:, :rest] += rows[:, full:]
    lanes_sum = first + second
    for index in _float_kernels._TREE[-(lanes.bit_length() - 1):]:  # the lanes' fold
        lanes_sum = lanes_sum + lanes_sum[:, index[:lanes] % lanes]
    return lanes_sum[:, 0]


def _fused_minus(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a - b * c`` as the compiled kernel's fused multiply-subtract: the product exact in
    float64, the difference rounded to float64 and then to float32 (a double rounding that
    can differ from the fused one in rare ties, not seen in the tests)."""
    return (a.astype(np.float64) - b.astype(np.float64) * c).astype(_F32)


def backward(kernel, grad: np.ndarray, output: np.ndarray, dim: int, round_to,
             log: bool = False) -> np.ndarray:
    """A softmax backward on the float32 values of ``grad`` and ``output``, rounded by
    ``round_to``: over the last dim torch's float32 formulas with its reduced-precision
    reduction (``_vector_sum``), log_softmax's over another dim ``grad - exp(output) *
    sum(grad)``, softmax's over another dim float32's ``kernel``."""
    grad = np.asarray(grad).astype(_F32)
    output = np.asarray(output).astype(_F32)
    last = dim % output.ndim == output.ndim - 1
    with np.errstate(all="ignore"):
        if not output.size:
            return round_to(grad * output)
        if last:
            size = output.shape[-1]
            g = grad.reshape(-1, size)
            y = output.reshape(-1, size)
            if log:
                out = _fused_minus(g, _exp(y), _vector_sum(g)[:, None])
            else:
                out = (g - _vector_sum(g * y)[:, None]) * y
            return round_to(out.reshape(output.shape))
        if log:
            total = grad.sum(axis=dim, keepdims=True, dtype=_F32)
            return round_to(_fused_minus(grad, _exp(output), total))
    return round_to(kernel(None, grad, output, dim))
