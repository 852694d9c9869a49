"""The loops of ops/_numba_kernels.py, compiled by numba (imported only where numba is
installed). Each is the NumPy kernel named in its docstring, element by element, with the same
float32 and float64 operations in the same order (module-level constants: numba reads them as
compile-time constants, and ``cache=True`` keeps the machine code between processes)."""

from __future__ import annotations

import math

import numba
import numpy as np

from . import _isa
from . import _softmax_bits as _sb

_F32 = np.float32
_F64 = np.float64

_jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")

LANES = _isa.lanes(4)
_STEPS = tuple(s for s in (8, 4, 2, 1) if s < LANES)
_R_LN2, _MINUS_L2U, _MINUS_L2L = _sb._R_LN2, _sb._MINUS_L2U, _sb._MINUS_L2L
_P0 = _sb._EXP_POLY[0]
_ADD0, _ADD1, _ADD2, _ADD3 = _sb._ADD
_RND0, _RND1, _RND2, _RND3 = _sb._ROUNDERS
_HALF_ROUNDER, _HALF_BACK = _sb._HALF_ROUNDER, _sb._HALF_BACK
_TWO_M64 = _sb._TWO_M64
_ONE, _HALF, _TWO, _THRESHOLD, _ZERO = _F32(1), _F32(0.5), _F32(2), _F32(1.5), _F32(0)
_LOW_LIMIT = _F32(-104)
_ROUND32 = _F32(1.5 * 2 ** 23)
_POW2 = np.array([2.0 ** (q + 64) for q in range(-150, 1)], dtype=_F32)  # 2**(q + 64)
_T0, _T1, _T2 = (_F64(c) for c in _sb._LOG_T)
_LN2_WIDE = _sb._LN2_WIDE
_LOW_BITS, _FROM_MIDPOINT = _sb._LOW_BITS, _sb._FROM_MIDPOINT
_WINDOW = np.uint64(2 * _sb._LOG_MARGIN)


@_jit
def fma_update(p, g, alpha):
    """_float_kernels.scaled_update's float32 path in place: ``p = float32(float64(g) *
    float64(alpha) + float64(p))`` (the product exact, the sum rounded in float64)."""
    a = _F64(alpha)
    for i in range(p.size):
        p[i] = _F32(_F64(g[i]) * a + _F64(p[i]))


@_jit
def expf_one(x):
    """_softmax_bits.expf(nonpositive=True) of one float32 ``x <= 0`` or NaN. Branch-free, so
    that LLVM vectorises the loops calling it: ``q`` is rounded to an integer by adding and
    subtracting 1.5 * 2**23 (round-half-even, as np.rint, for the |q| <= 151 of the arguments
    kept), 2**(q + 64) is read from a table, and arguments below -104 (-inf too) select 0."""
    q = _F32(_F32(_F32(x * _R_LN2) + _ROUND32) - _ROUND32)
    s32 = _F32(q * _MINUS_L2U)
    s32 = _F32(s32 + x)
    s = _F64(q) * _MINUS_L2L
    s = s + _F64(s32)
    s32 = _F32(s)
    s = _F64(s32)
    u = s * _P0
    u = u + _ADD0
    u = u - _RND0
    u = u * s
    u = u + _ADD1
    u = u - _RND1
    u = u * s
    u = u + _ADD2
    u = u - _RND2
    u = u * s
    u = u + _ADD3
    u = u - _RND3
    u = u * s
    u = u + _HALF_ROUNDER
    u = u - _HALF_BACK
    square = _F32(s32 * s32)
    u = u * _F64(square)
    u = u + s
    t = _F32(u)
    t = _F32(t + _ONE)
    # the table's index: q + 150 for -150 <= q <= 0; NaN x (whose NumPy scale is 0: NaN's
    # bits shifted out) keeps t's NaN through any scale
    k = q + _F32(150)
    if not (k >= _ZERO):
        k = _ZERO
    if k > _F32(150):
        k = _F32(150)
    t = _F32(t * _POW2[np.int64(k)])
    t = _F32(t * _TWO_M64)
    if x < _LOW_LIMIT:
        t = _ZERO
    return t


@_jit
def expf(x, out):
    for i in range(x.size):
        out[i] = expf_one(x[i])


@_jit
def lane_sum(rows, r, acc):
    """_float_kernels.reduce_all_sum of row ``r`` (``acc``: scratch of LANES elements)."""
    size = rows.shape[1]
    if size < LANES:
        total = rows[r, 0]
        for j in range(1, size):
            total = _F32(total + rows[r, j])
        return total
    full = size - size % LANES
    for k in range(LANES):  # (NumPy's sum starts from +0: a -0. lane becomes +0.)
        acc[k] = _F32(_ZERO + rows[r, k])
    for start in range(LANES, full, LANES):
        for k in range(LANES):
            acc[k] = _F32(acc[k] + rows[r, start + k])
    for k in range(size - full):
        acc[k] = _F32(acc[k] + rows[r, full + k])
    for step in _STEPS:  # lanes[k] + lanes[k ^ step], every k from the lanes before the step
        for k in range(LANES):
            if k & step == 0:
                low = acc[k]
                high = acc[k + step]
                acc[k] = _F32(low + high)
                acc[k + step] = _F32(high + low)
    return acc[0]


@_jit
def reduce_all_sum(rows, out):
    acc = np.empty(LANES, _F32)
    for r in range(rows.shape[0]):
        out[r] = lane_sum(rows, r, acc)


@_jit
def log_model(d):
    """_softmax_bits._log_model (AVX-512's getexp/getmant form) of one positive normal
    float32: SLEEF's logf before its last rounding, in float64."""
    mantissa, exponent = math.frexp(_F64(d))
    m = _F32(_F32(mantissa) * _TWO)
    exponent -= 1
    if m >= _THRESHOLD:
        m = _F32(m * _HALF)
        exponent += 1
    x = _F32(m + _ONE)
    den = _F64(m) + 1.0
    wide = _F64(m) - 1.0
    x = _F32(_ONE / x)
    x = _F32(_F64(x) * wide)
    wide = wide + wide
    wide = wide / den
    x2 = _F32(x * x)
    t = _F64(x2) * _T0
    t = t + _T1
    t32 = _F32(t)
    t = _F64(t32) * _F64(x2)
    t = t + _T2
    t32 = _F32(t)
    x2 = _F32(x2 * x)
    x2 = _F32(x2 * t32)
    wide = wide + _F64(x2)
    wide = wide + _F64(exponent) * _LN2_WIDE
    return wide


@_jit
def log_softmax_rows(rows, out, exps, totals, near):
    """_float_kernels.log_softmax_lastdim of C-contiguous float32 rows: ``out`` the result,
    ``exps`` the exponentials, ``totals`` the row sums. A row whose log lies within the model's
    margin of a float32 midpoint (or whose sum is not finite) is left as ``x - max`` with
    ``near[r]`` set, for the caller's replay of SLEEF's logf. Returns whether any row is."""
    count, size = rows.shape
    acc = np.empty(LANES, _F32)
    wide = np.empty(1, _F64)
    bits = wide.view(np.uint64)
    any_near = False
    for r in range(count):
        top = row_max(rows, r)
        for j in range(size):
            shifted = _F32(rows[r, j] - top)
            out[r, j] = shifted
            exps[r, j] = expf_one(shifted)
        total = lane_sum(exps, r, acc)
        totals[r] = total
        flagged = True
        if total >= _ONE and total < np.inf:
            wide[0] = log_model(total)
            flagged = ((bits[0] & _LOW_BITS) - _FROM_MIDPOINT) < _WINDOW
        near[r] = flagged
        if flagged:
            any_near = True
        else:
            log = _F32(wide[0])
            for j in range(size):
                out[r, j] = _F32(out[r, j] - log)
    return any_near


@_jit
def log_softmax_backward_rows(g, result, out):
    """_float_kernels.log_softmax_backward_lastdim: ``g - exp(result) * sum(g)`` per row, the
    product and difference in float64, rounded once to float32."""
    count, size = g.shape
    acc = np.empty(LANES, _F32)
    for r in range(count):
        total = _F64(lane_sum(g, r, acc))
        for j in range(size):
            product = _F64(expf_one(result[r, j])) * total
            out[r, j] = _F32(_F64(g[r, j]) - product)


@_jit
def row_max(rows, r):
    """The row's maximum as NumPy's ``max`` gives it (a NaN propagates)."""
    top = rows[r, 0]
    for j in range(1, rows.shape[1]):
        if top != top:
            break
        v = rows[r, j]
        if v != v or v > top:
            top = v
    return top


@_jit
def softmax_rows(rows, out):
    """_float_kernels.softmax_lastdim: SLEEF's expf of ``x - max``, the lane-ordered sum, and
    the products with its float32 reciprocal."""
    count, size = rows.shape
    acc = np.empty(LANES, _F32)
    for r in range(count):
        top = row_max(rows, r)
        for j in range(size):
            out[r, j] = expf_one(_F32(rows[r, j] - top))
        scale = _F32(_ONE / lane_sum(out, r, acc))
        for j in range(size):
            out[r, j] = _F32(out[r, j] * scale)


# -- sums in torch's order (ops/_cascade_sum.py's _in_order, _cascade, _row_sum, _outer, _inner)


@_jit
def _in_order(x, out):
    """_cascade_sum._in_order of a 2-d ``x`` into ``out``: NumPy's sum over axis 0 (from +0)
    for several columns, its accumulate (from the first row) for one."""
    n, m = x.shape
    if m > 1:
        for c in range(m):
            out[c] = x.dtype.type(0) + x[0, c]
    else:
        out[0] = x[0, 0]
    for r in range(1, n):
        for c in range(m):
            out[c] = out[c] + x[r, c]


@_jit
def _bit_length(n):
    length = 0
    while n:
        n >>= 1
        length += 1
    return length


@_jit
def cascade(x):
    """_cascade_sum._cascade (torch's multi_row_sum) of a C-contiguous 2-d ``x`` over axis 0."""
    n, m = x.shape
    result = np.zeros(m, x.dtype)
    if n == 0:
        return result
    step = 1 << max(4, _bit_length(n - 1) // 4)
    if n < step:
        _in_order(x, result)
        return result
    value = np.empty(m, x.dtype)
    started = False
    rest = x
    for _ in range(3):
        full = rest.shape[0] // step
        sums = np.empty((full, m), x.dtype)
        for i in range(full):
            _in_order(rest[i * step:(i + 1) * step], sums[i])
        left = rest[full * step:]
        if left.shape[0]:  # this level's leftover, added in level order
            _in_order(left, value)
            if started:
                for c in range(m):
                    result[c] = result[c] + value[c]
            else:
                result[:] = value
                started = True
        rest = sums
        if rest.shape[0] < step:
            break
    if rest.shape[0]:
        _in_order(rest, value)
        if started:
            for c in range(m):
                result[c] = result[c] + value[c]
        else:
            result[:] = value
    return result


@_jit
def row_sum(x):
    """_cascade_sum._row_sum (four interleaved partial sums) of a C-contiguous 2-d ``x``."""
    size, cols = x.shape
    quads = size // 4
    out = np.empty(cols, x.dtype)
    if quads == 0:
        _in_order(x, out)
        return out
    partials = cascade(x[:quads * 4].reshape(quads, 4 * cols)).reshape(4, cols)
    rest = size - quads * 4
    stacked = np.empty((4 + rest, cols), x.dtype)
    stacked[0] = partials[0]
    for r in range(rest):
        stacked[1 + r] = x[quads * 4 + r]
    for p in range(1, 4):
        stacked[rest + p] = partials[p]
    _in_order(stacked, out)
    return out


@_jit
def outer(block, lanes):
    """_cascade_sum._outer of a C-contiguous (reduced, lead, kept) ``block`` (``lanes``: the
    elements of a 32-byte vector)."""
    size, lead, cols = block.shape
    width = 4 * lanes if cols >= lanes else 4
    split = cols // width * width
    if split == cols:
        return cascade(block.reshape(size, lead * cols)).reshape(lead, cols)
    out = np.empty((lead, cols), block.dtype)
    if split:
        out[:, :split] = cascade(np.ascontiguousarray(block[:, :, :split]).reshape(
            size, lead * split)).reshape(lead, split)
    rest = cols - split
    out[:, split:] = row_sum(np.ascontiguousarray(block[:, :, split:]).reshape(
        size, lead * rest)).reshape(lead, rest)
    return out


@_jit
def inner(rows, lanes):
    """_cascade_sum._inner of a C-contiguous 2-d ``rows`` (each row summed)."""
    count, n = rows.shape
    if n < lanes:
        return row_sum(np.ascontiguousarray(rows.T))
    vectors = n // lanes
    body = np.empty((vectors, count * lanes), rows.dtype)  # (vector, row * lane)
    for v in range(vectors):
        for r in range(count):
            for k in range(lanes):
                body[v, r * lanes + k] = rows[r, v * lanes + k]
    lane_sums = row_sum(body).reshape(count, lanes)
    out = np.empty(count, rows.dtype)
    tail = vectors * lanes
    for r in range(count):  # the elements after the last full vector, then the lanes
        total = rows[r, tail] if tail < n else lane_sums[r, 0]
        first = tail + 1 if tail < n else n
        for j in range(first, n):
            total = total + rows[r, j]
        for k in range(0 if tail < n else 1, lanes):
            total = total + lane_sums[r, k]
        out[r] = total
    return out


# -- relu and its backward (ops/elementwise.py's capture kernels) ---------------------------------


@_jit
def relu(a, out):
    """Relu.capture_kernel: ``x`` unless ``x < 0`` (then +0): -0. and NaN kept."""
    for i in range(a.size):
        v = a[i]
        out[i] = a.dtype.type(0) if v < 0 else v


@_jit
def threshold_grad(grad, a, threshold, out):
    """_threshold_grad: ``self <= threshold ? +0 : grad`` (NaN in ``self`` passes grad)."""
    for i in range(a.size):
        out[i] = grad.dtype.type(0) if a[i] <= threshold else grad[i]


# -- Adam's single-tensor update (optim/adam.py's NumPy steps) ------------------------------------


@_jit
def adam_moments(grad, exp_avg, exp_avg_sq, weight, small, beta2, one_minus_beta2):
    """``exp_avg.lerp_(grad, weight)`` (ATen's lerp: fmadd(w, grad - m, m) for |w| < 0.5, else
    fmadd(w - 1, grad - m, grad)) and ``exp_avg_sq.mul_(beta2).addcmul_(grad, grad,
    1 - beta2)`` (fmadd((1 - beta2) * grad, grad, v)), each fused multiply-add's product exact
    in float64 and its sum rounded there, then to float32 (_float_kernels.fma_into)."""
    w = _F64(weight)
    w_minus_one = _F64(_F32(weight - _ONE))
    for i in range(grad.size):
        g = grad[i]
        m = exp_avg[i]
        d = _F64(_F32(g - m))
        if small:
            exp_avg[i] = _F32(w * d + _F64(m))
        else:
            exp_avg[i] = _F32(w_minus_one * d + _F64(g))
        v = _F32(exp_avg_sq[i] * beta2)
        s = _F32(g * one_minus_beta2)
        exp_avg_sq[i] = _F32(_F64(s) * _F64(g) + _F64(v))


@_jit
def adam_apply(param, exp_avg, denom, bias_correction2_sqrt, eps, negative_step_size):
    """``param.addcdiv_(exp_avg, denom / bc2_sqrt + eps, value=-step_size)``: the float32
    steps of optim/adam.py (the denominator divided, eps added, the scaled numerator divided
    by it, the quotient added), each rounded."""
    for i in range(param.size):
        d = _F32(denom[i] / bias_correction2_sqrt)
        d = _F32(d + eps)
        u = _F32(exp_avg[i] * negative_step_size)
        u = _F32(u / d)
        param[i] = _F32(param[i] + u)


@_jit
def channel_sums(grad, out):
    """conv.py's _sequential_channel_sums of a C-contiguous (N, C, rest) ``grad``: each
    channel's elements added in order from the first, then + 0 (-0. becomes +0.)."""
    n, channels, rest = grad.shape
    for c in range(channels):
        total = grad[0, c, 0]
        for i in range(n):
            for j in range(1 if i == 0 else 0, rest):
                total = total + grad[i, c, j]
        out[c] = total + grad.dtype.type(0)


# -- nll_loss over (N, C) without weights (ops/loss.py's NllLoss and NllLossBackward) -----------


@_jit
def nll_loss(a, target, ignore_index, mean):
    """``-a[n, target[n]]`` summed as torch's nll_loss_out_frame sums it (ops/loss.py's Note:
    nll_loss's sums: eight partial sums, level j moved into level j + 1 at a target position
    whose low (j + 1) * p bits are zero), divided by N for ``mean``. Returns a 1-element array,
    empty where a target is ignored or out of range (the caller's NumPy steps then run: its
    weights of kept targets, or its IndexError)."""
    n, classes = a.shape
    power = max(4, max(1, _bit_length(n - 1)) // 8)
    low_mask = (1 << power) - 1
    partial = np.zeros(8, a.dtype)
    for b in range(n):
        t = target[b]
        if t == ignore_index or t < 0 or t >= classes:
            return np.empty(0, a.dtype)
        partial[0] = partial[0] + -a[b, t]
        for j in range(7):
            if b & (low_mask << (j * power)):
                break
            partial[j + 1] = partial[j + 1] + partial[j]
            partial[j] = 0
    total = a.dtype.type(0)
    for j in range(8):
        total = total + partial[j]
    out = np.empty(1, a.dtype)
    out[0] = total / a.dtype.type(n) if mean else total
    return out


@_jit
def nll_loss_backward(value, target, classes, ignore_index, out):
    """NllLossBackward's gradient: ``value`` at each target, +0 elsewhere; False (``out``
    untouched: the caller's steps run) where a target is ignored or out of range."""
    for b in range(target.size):
        t = target[b]
        if t == ignore_index or t < 0 or t >= classes:
            return False
    out[:] = 0
    for b in range(target.size):
        out[b, target[b]] = value
    return True
