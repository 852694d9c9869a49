"""float32 log1p, expm1, softplus, log_sigmoid and elu with torch's last bits: SLEEF replays.

torch 2.13's CPU kernels for these (ATen/native/cpu/Activation.cpp) compute, in 16-lane
AVX-512 vectors, ``log1p(exp(x * beta)) / beta`` (softplus, where ``x * beta <= threshold``) and
``min(x, 0) - log1p(exp(-|x|))`` (log_sigmoid; binary_cross_entropy_with_logits is built on it),
with ``Vectorized<float>::exp`` and ``::log1p``: SLEEF's ``expf`` and ``log1pf``, both u10.
NumPy's log1p is nearly correctly rounded and SLEEF's is not, so the float64 formula rounded
once gave torch's softplus on 82% of a grid of inputs (NumPy's float32 logaddexp on 86%).

- softplus runs torch's ``cpu_kernel_vec``: the elements after the last pair of full vectors
  (every element of a strided operand) take the scalar op, ``std::log1p(std::exp(x * beta)) /
  beta`` in float: glibc's expf (_libm.expf, every bit) and log1pf (replayed
  below), as sigmoid's (ops/_float_kernels.py).
- log_sigmoid runs its own loop: every element goes through the vector code (the leftover is
  loaded as a partial vector), on the contiguous input.

``sleef_log1pf`` below replays SLEEF's algorithm operation by operation (its double-float
arithmetic in float32 pairs, fused multiply-adds in float64 rounded once to float32 as the
module doc of _float_kernels.py describes): with the exact expf replay it gives torch's
softplus and log_sigmoid on every element of the test grids. It costs about 20 NumPy passes
(0.15 s for 10^6 elements; the glibc replay 130 us for 16 elements, 5x a whole softplus call), so
like the other exact replays they run when ``leafgrad.backends.cpu.torch_bits`` is set; by
default the vectors use float64's log1p rounded once and the plain expf replay (torch's bits on
99.5% of elements; NumPy's float32 logaddexp, before: 86%) and the scalar path replays glibc's
log1pf where it is short (see _GLIBC_REPLAY_UP_TO).
"""

from __future__ import annotations

import numpy as np

from ..backends import cpu as _cpu
from . import _float_kernels, _layout, _libm
from ._select import where as _where

_F32 = np.float32
_F64 = np.float64
_ZERO, _ONE, _TWO = _F32(0), _F32(1), _F32(2)
_LN2_HI, _LN2_LO = _F32(0.69314718246459960938), _F32(-1.904654323148236017e-09)
_POLY = tuple(_F32(c) for c in (0.3027294874, 0.3996108174, 0.6666694880))


def _fma(a, b, c) -> np.ndarray:
    """float32 ``a * b + c`` rounded once (the product is exact in float64)."""
    wide = np.multiply(a, b, dtype=_F64)
    wide += c
    return wide.astype(_F32)


def sleef_log1pf(d: np.ndarray) -> np.ndarray:
    """SLEEF's ``log1pf`` u10 (AVX-512 build) on a float32 array."""
    shape = np.shape(d)
    d = np.asarray(d, dtype=_F32).reshape(-1)
    with np.errstate(all="ignore"):
        # e = floor(log2((d + 1) * 4/3)) (vgetexp), m = d * 2**-e + (2**-e - 1): 1 + d scaled
        # into [0.75, 1.5), minus one, without losing d's low bits
        _, exponent = np.frexp((d + _ONE) * _F32(1.0 / 0.75))
        exponent -= 1
        scale = np.ldexp(_ONE, -exponent).astype(_F32, copy=False)
        m = _fma(d, scale, scale - _ONE)
        e = exponent.astype(_F32)
        # s = e * log(2) as a float32 pair
        s_hi = _LN2_HI * e
        s_lo = _fma(_LN2_LO, e, _fma(_LN2_HI, e, -s_hi))
        # x = m / (2 + m) as a pair: the denominator's pair, its reciprocal, one correction
        den_hi = _TWO + m
        den_lo = (_TWO - den_hi) + m
        inverse = _ONE / den_hi
        x_hi = m * inverse
        error = _fma(inverse, m, -x_hi)
        x_lo = _fma(-den_lo, inverse, _fma(-den_hi, inverse, _ONE))
        x_lo = _fma(x_hi, x_lo, error)
        x2 = x_hi * x_hi
        poly = _fma(_fma(_POLY[0], x2, _POLY[1]), x2, _POLY[2])
        # log1p(d) = s + 2x + x**3 * poly, summed as pairs, the pair rounded at the end
        twice_hi, twice_lo = _TWO * x_hi, _TWO * x_lo
        sum_hi = s_hi + twice_hi
        sum_lo = (((s_hi - sum_hi) + twice_hi) + s_lo) + twice_lo
        tail = (x2 * x_hi) * poly
        total_hi = sum_hi + tail
        result = total_hi + (((sum_hi - total_hi) + tail) + sum_lo)
        result[d > _F32(1e38)] = np.inf
        result[d < -1] = np.nan
        result[d == -1] = -np.inf
        result[(d == 0) & np.signbit(d)] = -0.0
    return result.reshape(shape)


def _log1pf_vector(d: np.ndarray) -> np.ndarray:
    """SLEEF's log1pf: the exact replay when the user asked for torch's bits, float64's
    log1p rounded once otherwise."""
    if _cpu.torch_bits:
        return sleef_log1pf(d)
    if d.size > _float_kernels.REPLAY_LIMIT:  # Note: the replay limit (_float_kernels.py)
        return _float_kernels.log1p_wide(d)
    with np.errstate(all="ignore"):
        result = np.log1p(d, dtype=_F64).astype(_F32)
    # SLEEF's pair arithmetic loses bits on subnormal inputs (BCE-with-logits of a logit of
    # 100 gives 28 units of 2**-149, not 27): those few take the replay
    subnormal = (d != 0) & (np.abs(d) < np.finfo(_F32).tiny)
    if subnormal.any():
        result[subnormal] = sleef_log1pf(d[subnormal])
    return result


def _expf_vector(d: np.ndarray) -> np.ndarray:
    return _float_kernels._expf(d)


def log_sigmoid(a: np.ndarray) -> np.ndarray:
    """torch's ``log_sigmoid`` of a float32 array (every element on the vector path)."""
    a = a if a.flags.c_contiguous else a.copy()  # torch's kernel runs on input.contiguous()
    return np.minimum(a, _F32(0)) - _log1pf_vector(_expf_vector(-np.abs(a)))


# -- glibc's log1pf (torch's scalar path) --------------------------------------------------------
# glibc 2.36's log1pf is fdlibm's single-precision algorithm (k * ln2 split in two, the
# reduced argument f with a correction term c, an odd polynomial in s = f / (2 + f)) in float
# arithmetic without fused operations; float64's log1p rounded once agrees with it on only 96.6%
# of inputs. Replayed branch by branch below (every input of a 220,000-value grid, special
# values included, gives glibc's bits). glibc 2.41 replaced it with a correctly rounded one.

_FD_LN2_HI, _FD_LN2_LO = _F32(6.9313812256e-01), _F32(9.0580006145e-06)
_FD_POLY = tuple(_F32(c) for c in (
    6.6666668653e-01, 4.0000000596e-01, 2.8571429849e-01, 2.2222198546e-01, 1.8183572590e-01,
    1.5313838422e-01, 1.4798198640e-01))
_HALF = _F32(0.5)


def glibc_log1pf(x: np.ndarray) -> np.ndarray:
    """glibc's (fdlibm's) ``log1pf`` on a float32 array."""
    shape = np.shape(x)
    x = np.ascontiguousarray(x, dtype=_F32).reshape(-1)
    bits = x.view(np.int32)
    magnitude = bits & 0x7FFFFFFF
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        below = bits < 0x3ED413D7  # x < 0.41422 (negative x included: the sign bit)
        at_most_minus_one = below & (magnitude >= 0x3F800000)
        out[at_most_minus_one] = np.where(x[at_most_minus_one] == -1, -np.inf, np.nan)
        tiny = below & ~at_most_minus_one & (magnitude < 0x31000000)  # |x| < 2**-29
        xt = x[tiny]
        out[tiny] = np.where(magnitude[tiny] < 0x24800000, xt, xt - xt * xt * _HALF)
        special = bits >= 0x7F800000  # +inf, NaN
        out[special] = x[special] + x[special]
        rest = ~(at_most_minus_one | tiny | special)
        xr, bits_r = x[rest], bits[rest]
        # k == 0: -0.2929 < x < 0.41422, f = x; otherwise 1 + x = 2**k * u, f = u - 1
        plain = (below[rest] & ((bits_r > 0) | (bits_r <= np.int32(-0x416A09E1))))
        sum_ = np.where(bits_r < 0x5A000000, _ONE + xr, xr)
        hu = sum_.view(np.int32) & 0x007FFFFF
        k = (sum_.view(np.int32) >> 23) - 127
        correction = np.where(k > 0, _ONE - (sum_ - xr), xr - (sum_ - _ONE)) / sum_
        correction[bits_r >= 0x5A000000] = 0
        low_mantissa = hu < 0x3504F7
        u = np.where(low_mantissa, hu | 0x3F800000, hu | 0x3F000000).astype(np.int32).view(_F32)
        k = np.where(low_mantissa, k, k + 1)
        hu = np.where(low_mantissa, hu, (0x00800000 - hu) >> 2)
        f = np.where(plain, xr, u - _ONE)
        k = np.where(plain, 0, k)
        hu = np.where(plain, 1, hu)
        c = np.where(plain, _ZERO, correction)
        kf = k.astype(_F32)
        hfsq = _HALF * f * f
        # |f| < 2**-20 (hu == 0): a short series
        r_short = hfsq * (_ONE - _F32(0.66666666666666666) * f)
        short = np.where(k == 0, f - r_short,
                         kf * _FD_LN2_HI - ((r_short - (kf * _FD_LN2_LO + c)) - f))
        short = np.where(f == 0, np.where(k == 0, _ZERO, kf * _FD_LN2_HI + (c + kf * _FD_LN2_LO)),
                         short)
        s = f / (_TWO + f)
        z = s * s
        r = _FD_POLY[6]
        for coefficient in _FD_POLY[5::-1]:
            r = coefficient + z * r
        r = z * r
        general = np.where(k == 0, f - (hfsq - s * (hfsq + r)),
                           kf * _FD_LN2_HI - ((hfsq - (s * (hfsq + r) + (kf * _FD_LN2_LO + c))) - f))
        out[rest] = np.where(hu == 0, short, general)
    return out.reshape(shape)


# The glibc replay costs about 85 us whatever the size up to a few thousand elements (a
# 16-element softplus forward and backward went from ~165 to ~285 us, a 1,000-element selu's
# from ~180 to ~480 us): as the other exact replays it runs only under torch_bits, and
# float64's log1p/expm1 rounded once (96-97% of glibc's values) stands in for it by default.
# (_GLIBC_REPLAY_UP_TO: the size up to which it runs by default anyway; 0, none.) A scalar
# path of up to _C_LIBRARY_UP_TO elements calls the C library's own log1pf/expm1f instead
# (ops/_libm.py, ~0.3 us an element): every bit at less than the replay's fixed cost, for the
# short tensors and leftovers of a tutorial's softplus, elu, selu.
_GLIBC_REPLAY_UP_TO = 0
_C_LIBRARY_UP_TO = 256


def _softplus_scalar(scaled: np.ndarray, beta) -> np.ndarray:
    with np.errstate(over="ignore"):
        grown = _libm.expf(scaled)  # glibc's expf
        if grown.size <= _C_LIBRARY_UP_TO:
            return _libm.call("log1p", grown) / beta  # glibc's log1pf
        if _cpu.torch_bits or grown.size <= _GLIBC_REPLAY_UP_TO:
            return glibc_log1pf(grown) / beta
        return np.log1p(grown, dtype=_F64).astype(_F32) / beta


def softplus(a: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """torch's ``softplus`` of a float32 array: ``x`` where ``x * beta > threshold``, else
    ``log1p(exp(x * beta)) / beta`` (beta and threshold are float32 in torch's kernel)."""
    beta, threshold = _F32(beta), _F32(threshold)
    scaled = a * beta
    part = _float_kernels._scalar_part(a)
    with np.errstate(over="ignore"):
        if part is Ellipsis:
            soft = _softplus_scalar(scaled, beta)
        else:
            soft = _log1pf_vector(_expf_vector(scaled)) / beta
            if part is not None:
                soft[part] = _softplus_scalar(scaled[part], beta)
    return _where(scaled > threshold, a, soft)


def log1p(a: np.ndarray):
    """torch's ``log1p`` of a float32 array under ``torch_bits``, or None (the caller's default
    form). torch's vml-style unary kernel copies a strided operand into a buffer and maps
    ``Vectorized::log1p`` over it, the leftover as a partial vector: SLEEF's log1pf on every
    element, whatever the layout."""
    if not _cpu.torch_bits or a.dtype != _F32:
        return None
    return sleef_log1pf(a)


# -- the backwards (torch's softplus_backward and log_sigmoid_backward kernels) -------------------
def softplus_backward(grad: np.ndarray, x: np.ndarray, beta, threshold) -> np.ndarray:
    """``grad`` where ``x * beta > threshold``, else ``grad * z / (z + 1)`` with
    ``z = exp(x * beta)``: SLEEF's expf in the vectors, glibc's on the leftover."""
    beta, threshold = _F32(beta), _F32(threshold)
    scaled = x * beta
    part = _float_kernels._scalar_part_of(scaled.shape, (grad, x))
    with np.errstate(over="ignore", invalid="ignore"):
        if part is Ellipsis:
            z = _libm.expf(scaled)
        else:
            z = _expf_vector(scaled)
            if part is not None:
                z[part] = _libm.expf(scaled[part])
        return _where(scaled > threshold, grad, grad * z / (z + _ONE))


def log_sigmoid_backward(grad: np.ndarray, x: np.ndarray, buffer_dtype=None) -> np.ndarray:
    """``(max_deriv - sign * b / (1 + b)) * grad`` with the forward's buffer ``b = exp(-|x|)``
    (SLEEF's expf), ``max_deriv`` 1 and ``sign`` 1 where x < 0, else 0 and -1.
    ``buffer_dtype``: float16/bfloat16 operands (widened to float32 here), whose buffer torch
    keeps in their dtype (log_sigmoid_forward's second output): rounded to it."""
    with np.errstate(over="ignore", invalid="ignore"):
        buffer = _expf_vector(-np.abs(x))
        if buffer_dtype is not None:
            buffer = buffer.astype(buffer_dtype).astype(_F32)
        # max_deriv 1 where x < 0 else 0, sign 1 or -1: from the mask's 0 and 1 without a
        # select (NumPy's selects branch: slow on a mask of random signs)
        max_deriv = (x < 0).astype(_F32)
        sign = max_deriv * _TWO
        sign -= _ONE
        return (max_deriv - sign * (buffer / (_ONE + buffer))) * grad


# -- SLEEF's expm1f (u10): torch.expm1 and the elu family's vectors --------------------------------
# expm1f is expk2f (exp as a float32 pair) minus one, the pair rounded at the end. torch runs it
# on every element for torch.expm1 (buffered like log1p) and in the vectors of elu, selu and
# celu, whose scalar path calls glibc's expm1f (replayed below). By default the vectors use
# float64's expm1 rounded once (99.96% of torch's elu bits; NumPy's float32 expm1 gave 90%).

_R_LN2 = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U, _L2L = _F32(0.693145751953125), _F32(1.428606765330187045e-06)
_EXPK2_POLY = tuple(_F32(c) for c in (0.1980960224e-3, 0.1394256484e-2, 0.8333456703e-2,
                                      0.4166637361e-1))


def _pair_add(hi, lo, value):
    """SLEEF's dfadd2 of a pair and a float: the sum as a pair, exactly as its operations round."""
    total = hi + value
    v = total - hi
    return total, ((hi - (total - v)) + (value - v)) + lo


def _pair_times(hi, lo, y_hi, y_lo=None):
    """SLEEF's dfmul of a pair by a float (``y_lo`` None) or by a pair, with fused operations."""
    product = hi * y_hi
    error = _fma(hi, y_hi, -product)
    if y_lo is None:
        return product, _fma(lo, y_hi, error)
    return product, _fma(hi, y_lo, _fma(lo, y_hi, error))


def _scale_by_power(value, q):
    """SLEEF's vldexp2: ``value * 2**(q >> 1) * 2**(q - (q >> 1))``, two roundings at most."""
    half = q >> 1
    return (value * np.ldexp(_ONE, half).astype(_F32)) * np.ldexp(_ONE, q - half).astype(_F32)


def sleef_expm1f(a: np.ndarray) -> np.ndarray:
    """SLEEF's ``expm1f`` u10 on a float32 array."""
    shape = np.shape(a)
    a = np.asarray(a, dtype=_F32).reshape(-1)
    with np.errstate(all="ignore"):
        q = np.rint(a * _R_LN2)
        q[~np.isfinite(q)] = 0
        q = np.clip(q, -300, 300).astype(np.int32)
        qf = q.astype(_F32)
        # s = a - q * log(2) as a pair (log(2) in two parts)
        s_hi, s_lo = _pair_add(a, _ZERO, qf * -_L2U)
        s_hi, s_lo = _pair_add(s_hi, s_lo, qf * -_L2L)
        u = np.full_like(a, _EXPK2_POLY[0])
        for coefficient in _EXPK2_POLY[1:]:
            u = _fma(u, s_hi, coefficient)
        # exp(s) - 1 = s + s**2 * (1/2 + s * (1/6 + s * u)), in pairs
        t_hi, t_lo = _pair_add(*_pair_times(s_hi, s_lo, u), _F32(0.166666659414234244790680580464))
        t_hi, t_lo = _pair_add(*_pair_times(s_hi, s_lo, t_hi, t_lo), _HALF)
        square_hi = s_hi * s_hi
        square_lo = _fma(s_hi + s_hi, s_lo, _fma(s_hi, s_hi, -square_hi))
        p_hi, p_lo = _pair_times(square_hi, square_lo, t_hi, t_lo)
        total = s_hi + p_hi
        v = total - s_hi
        t_lo = ((s_hi - (total - v)) + (p_hi - v)) + (s_lo + p_lo)
        t_hi = total
        # 1 + t, scaled by 2**q, minus one
        e_hi = _ONE + t_hi
        e_lo = ((_ONE - e_hi) + t_hi) + t_lo
        e_hi, e_lo = _scale_by_power(e_hi, q), _scale_by_power(e_lo, q)
        underflow = a < -104
        e_hi[underflow] = 0
        e_lo[underflow] = 0
        r_hi, r_lo = _pair_add(e_hi, e_lo, -_ONE)
        result = r_hi + r_lo
        result[a > _F32(88.72283172607421875)] = np.inf
        result[a < _F32(-16.635532333438687426013570)] = -1
        result[np.isnan(a)] = np.nan
        result[(a == 0) & np.signbit(a)] = -0.0
    return result.reshape(shape)


def _expm1f_rounded(a: np.ndarray) -> np.ndarray:
    if a.size > _float_kernels.REPLAY_LIMIT:  # Note: the replay limit (_float_kernels.py)
        return _float_kernels.expm1_wide(a)
    with np.errstate(over="ignore"):
        return np.expm1(a, dtype=_F64).astype(_F32)


def _expm1f_scalar(a: np.ndarray) -> np.ndarray:
    """glibc's expm1f: replayed under torch_bits or where the scalar path is short (as
    softplus's log1pf, _GLIBC_REPLAY_UP_TO), float64's expm1 rounded once otherwise (96%)."""
    if a.size <= _C_LIBRARY_UP_TO:
        return np.asarray(_libm.call("expm1", a), dtype=_F32)  # glibc's expm1f
    if _cpu.torch_bits or a.size <= _GLIBC_REPLAY_UP_TO:
        return glibc_expm1f(a)
    return _expm1f_rounded(a)


def expm1(a: np.ndarray):
    """torch's ``expm1`` of a float32 array under ``torch_bits`` (SLEEF's expm1f on every
    element), or None (the caller's default form)."""
    if not _cpu.torch_bits or a.dtype != _F32:
        return None
    return sleef_expm1f(a)


def elu(a: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    """torch's ``elu`` kernel on a float32 array: ``x * scale`` where ``x > 0``, else
    ``expm1(x * input_scale) * (alpha * scale)`` (the coefficients rounded to float32)."""
    negative_coefficient = _F32(alpha) * _F32(scale)
    positive_coefficient, input_coefficient = _F32(scale), _F32(input_scale)
    scaled = a * input_coefficient
    part = _float_kernels._scalar_part(a)
    if part is Ellipsis:
        grown = _expm1f_scalar(scaled)
    else:
        grown = sleef_expm1f(scaled) if _cpu.torch_bits else _expm1f_rounded(scaled)
        if part is not None:
            grown[part] = _expm1f_scalar(scaled[part])
    return _where(a > 0, a * positive_coefficient, grown * negative_coefficient)


def elu_backward(grad: np.ndarray, x: np.ndarray, alpha: float, scale: float,
                 input_scale: float) -> np.ndarray:
    """torch's ``elu_backward`` kernel (not from the result) on float32 arrays: ``grad * scale``
    where ``x > 0``, else ``grad * input_scale * (alpha * scale) * exp(x * input_scale)``,
    multiplied left to right; SLEEF's expf in the vectors, glibc's on the leftover (where a
    NaN ``x`` takes the ``grad * scale`` side, as the scalar op's ``x <= 0`` test does; the
    vectors give NaN)."""
    negative_coefficient = _F32(alpha) * _F32(scale)
    positive_coefficient, input_coefficient = _F32(scale), _F32(input_scale)
    shape = np.broadcast_shapes(grad.shape, x.shape)
    scaled = x * input_coefficient
    part = _float_kernels._scalar_part_of(shape, (grad, x))
    with np.errstate(over="ignore", invalid="ignore"):
        if part is Ellipsis:
            grown = np.broadcast_to(_libm.expf(scaled), shape)
        else:
            grown = np.array(np.broadcast_to(_float_kernels._expf(scaled), shape))
            if part is not None:
                grown[part] = np.broadcast_to(_libm.expf(scaled),
                                              shape)[part]
        negative = grad * input_coefficient * negative_coefficient * grown
        out = _where(x > 0, grad * positive_coefficient, negative)
        nan = np.broadcast_to(np.isnan(x), shape)
        if nan.any():  # the scalar op's NaN (_layout.vectorized_elements: which elements)
            vectorised = _layout.vectorized_elements(shape, (grad, x), 4, avx512=True)
            scalar_nan = nan if vectorised is None else nan & ~vectorised
            out = np.where(scalar_nan, grad * positive_coefficient, out)
    return out


# -- glibc's expm1f (the elu family's scalar path) -------------------------------------------------
# glibc 2.36's expm1f is fdlibm's: x reduced by k * ln2 (k from 0.5 ln2 / 1.5 ln2 thresholds or
# rounded x / ln2) with a correction term, a rational approximation in x**2 / 2 (five
# coefficients), then the result rebuilt by adding k to the exponent, with a formula per range
# of k. Replayed branch by branch (every input of a 25,000-value grid gives glibc's bits; float64's
# expm1 rounded once agreed on 96%).

_EXPM1_Q = tuple(_F32(c) for c in (-3.3333335072e-02, 1.5873016091e-03, -7.9365076090e-05,
                                   4.0082177293e-06, -2.0109921195e-07))
_INV_LN2 = _F32(1.4426950216e+00)


def _with_exponent_added(value: np.ndarray, k: np.ndarray) -> np.ndarray:
    return (value.view(np.int32) + (k << 23)).view(_F32)


def glibc_expm1f(x: np.ndarray) -> np.ndarray:
    """glibc's (fdlibm's) ``expm1f`` on a float32 array."""
    shape = np.shape(x)
    x = np.ascontiguousarray(x, dtype=_F32).reshape(-1)
    bits = x.view(np.int32)
    negative = bits < 0
    magnitude = bits & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        # argument reduction: x = k * ln2 + (hi - lo), c the rounding error of hi - lo
        near = (magnitude > 0x3EB17218) & (magnitude < 0x3F851592)  # 0.5 ln2 < |x| < 1.5 ln2
        far = magnitude >= 0x3F851592
        k_far = (_INV_LN2 * x + np.where(negative, _F32(-0.5), _HALF)).astype(np.int32)
        k = np.where(near, np.where(negative, -1, 1), np.where(far, k_far, 0)).astype(np.int32)
        kf = k.astype(_F32)
        hi = np.where(near, np.where(negative, x + _FD_LN2_HI, x - _FD_LN2_HI), x - kf * _FD_LN2_HI)
        lo = np.where(near, np.where(negative, -_FD_LN2_LO, _FD_LN2_LO), kf * _FD_LN2_LO)
        reduced = np.where(k != 0, hi - lo, x)
        c = np.where(k != 0, (hi - reduced) - lo, _ZERO)
        x = reduced
        hfx = _HALF * x
        hxs = x * hfx
        r1 = _EXPM1_Q[4]
        for coefficient in _EXPM1_Q[3::-1]:
            r1 = coefficient + hxs * r1
        r1 = _ONE + hxs * r1
        t = _F32(3.0) - r1 * hfx
        e = hxs * ((r1 - t) / (_F32(6.0) - x * t))
        out = x - (x * e - hxs)  # k == 0
        e = (x * (e - c) - c) - hxs
        out = np.where(k == -1, _HALF * (x - e) - _HALF, out)
        out = np.where(k == 1, np.where(x < _F32(-0.25), _F32(-2.0) * (e - (x + _HALF)),
                                        _ONE + _F32(2.0) * (x - e)), out)
        wide = (k <= -2) | (k > 56)
        out = np.where(wide, _with_exponent_added(_ONE - (e - x), k) - _ONE, out)
        middle = (k >= 2) & (k < 23)
        one_minus = ((0x3F800000 - (0x1000000 >> np.clip(k, 0, 31))).astype(np.int32)).view(_F32)
        out = np.where(middle, _with_exponent_added(one_minus - (e - x), k), out)
        upper = (k >= 23) & (k <= 56)
        power = (((0x7F - np.clip(k, 0, 127)) << 23).astype(np.int32)).view(_F32)
        out = np.where(upper, _with_exponent_added((x - (e + power)) + _ONE, k), out)
        # the ranges handled before the reduction
        original = bits.view(_F32)  # the input (x was rebound to the reduced argument)
        out = np.where(magnitude < 0x33000000, original, out)  # |x| < 2**-25
        big = magnitude >= 0x4195B844  # |x| >= 27 ln2
        out = np.where(big & negative, -_ONE, out)
        out = np.where(big & ~negative & (original > _F32(8.8721679688e+01)), np.inf, out)
        out = np.where(magnitude >= 0x7F800000, np.where(np.isnan(original), original + original,
                                                         np.where(negative, -_ONE, np.inf)), out)
    return out.reshape(shape)
