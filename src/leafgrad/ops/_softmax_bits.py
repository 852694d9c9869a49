"""SLEEF's ``expf`` and ``logf`` (u10) as torch's float32 softmax kernels call them, every bit.

torch's CPU softmax and log_softmax (ATen's SoftMaxKernel.cpp) compute ``(x - max).exp()``
and ``log(sum)`` with ``Vectorized<float>::exp``/``::log``: SLEEF's ``Sleef_expf8_u10`` and
``Sleef_logf8_u10`` (``expf16``/``logf16`` under AVX-512). Their results are not the correctly
rounded ones: float64's exp rounded to float32 is SLEEF's on only ~91% of inputs, float64's
log on ~99.5%, and a single differing exp or log changes a row's sum, hence every element of
a log_softmax row and a cross-entropy loss's last digits.

``expf`` replays SLEEF's xexpf exactly at about half the cost of an operation-by-operation
replay (``_float_kernels.sleef_expf``), by three facts about its float32 steps:

- ``fma(q, -L2U, x)`` is exact in float32 (``q * L2U`` has at most 23 bits), so it is two
  float32 operations; ``fma(q, -L2L, s)`` is exact in float64 and rounded once.
- each step ``u = fma(u, s, c)`` of the polynomial has a product exact in float64 (24-bit
  factors), and its result stays in one binade for every reduced argument ``|s| <= ln2/2``
  (u1 in [2**-10, 2**-9), u2 in [2**-7, 2**-6), u3 in [2**-5, 2**-4), u4 in [2**-3, 2**-2)):
  adding ``C = 1.5 * 2**(52 + k)`` (k: log2 of the binade's float32 ulp) to the float64
  product and ``c`` rounds it once onto float32's grid, and subtracting ``C`` is exact. The
  last step (``u * s + 0.5``, either side of 0.5) adds ``2**28`` instead: float64's binade
  boundary there gives float32's two grids (2**-24 above 0.5, 2**-25 below).
- ``2**q`` is built from its bits and multiplied twice (by ``2**(q + 64)``, exactly, then by
  ``2**-64``, rounded once: SLEEF's two-step ldexp rounds once as well); NumPy's ldexp costs
  ~15 ns per element.

The last fused step, ``fma(s*s, u, s)``, is rounded in float64 and then to float32, which
differs from one rounding only where the float64 sum falls exactly on a float32 midpoint (the
module doc of _float_kernels). Checked against the operation-by-operation replay on 2.8e7
inputs (tests/test_left6_findings.py runs a sample) and against torch's softmax.

``logf`` rounds float64's log, which is SLEEF's value except within ``_LOG_MARGIN`` of a
float32 rounding midpoint; those elements take SLEEF's xlogf_u1 replayed in double-float
pairs (the FMA variants of df.h, _sleef_powf's helpers).
"""

from __future__ import annotations

import numpy as np

from . import _isa
from ._sleef_powf import _add2_ff, _add_pp, _div_pp, _fma, _mul_pf

_F32 = np.float32
_F64 = np.float64

_R_LN2 = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_MINUS_L2U = _F32(-0.693145751953125)
_MINUS_L2L = _F64(_F32(-1.428606765330187045e-06))
_EXP_POLY = tuple(_F64(_F32(c)) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271, 0.00833336077630519866943359,
    0.0416664853692054748535156, 0.166666671633720397949219))
_GRIDS = (-33, -30, -28, -26)  # log2 of the float32 ulp of u1..u4 (fixed binades, see above)
_ROUNDERS = tuple(_F64(1.5 * 2.0 ** (52 + k)) for k in _GRIDS)
_ADD = tuple(r + c for r, c in zip(_ROUNDERS, _EXP_POLY[1:]))  # exact sums
_HALF_ROUNDER = _F64(2.0 ** 28)
_HALF_BACK = _F64(2.0 ** 28 - 0.5)
# 2**(q + 64) from the bits of q + 64 + 127 in a float32's mantissa (q + 2**23 + 191 is exact)
_POW2_BIAS = _F32(2.0 ** 23 + 127 + 64)
_TWO_M64 = _F32(2.0 ** -64)


def expf(x: np.ndarray, nonpositive: bool = False) -> np.ndarray:
    """SLEEF's expf (u10) of a float32 array, every bit (see the module doc).
    ``nonpositive``: the caller knows ``x <= 0`` or NaN (softmax's ``x - max``)."""
    flat = x.reshape(-1)
    with np.errstate(all="ignore"):
        q = flat * _R_LN2
        np.rint(q, out=q)
        s32 = q * _MINUS_L2U
        s32 += flat  # fma(q, -L2U, x): exact
        s = np.multiply(q, _MINUS_L2L, dtype=_F64)
        s += s32  # fma(q, -L2L, .): exact in float64, then rounded once
        np.copyto(s32, s, casting="same_kind")
        np.copyto(s, s32)
        u = s * _EXP_POLY[0]
        for add, rounder in zip(_ADD, _ROUNDERS):
            if add is not _ADD[0]:
                u *= s
            u += add
            u -= rounder
        u *= s
        u += _HALF_ROUNDER
        u -= _HALF_BACK  # u5 = fma(u4, s, 0.5)
        s32 *= s32
        u *= s32
        u += s
        t = s32
        np.copyto(t, u, casting="same_kind")  # fma(s * s, u5, s)
        t += _F32(1)
        low = np.fmin.reduce(flat, initial=0.0) < -104  # (fmin: NaN elements ignored)
        if nonpositive or not np.fmax.reduce(flat, initial=0.0) > 63:
            scale = q  # (q is not needed past here)
            scale += _POW2_BIAS
            bits = scale.view(np.uint32)
            np.left_shift(bits, 23, out=bits)
            t *= scale
            t *= _TWO_M64
            out = t
        else:  # large arguments: 2**(q + 64) would overflow
            out = np.ldexp(t, np.clip(q, -300, 300).astype(np.int32))
            high = flat > 100
            out[high] = np.inf
        if low:  # SLEEF's result is 0 below -104 (and -inf's NaN steps give 0)
            out[flat < -104] = 0
    return out.reshape(x.shape)


# -- logf --------------------------------------------------------------------------------------

_LN2_PAIR = (_F32(0.69314718246459960938), _F32(-1.904654323148236017e-09))
_LOG_T = tuple(_F32(c) for c in (0.3027294874, 0.3996108174, 0.6666694880))
_FOUR_THIRDS = _F32(1.0 / 0.75)
_FLT_MIN = _F32(np.finfo(np.float32).tiny)
_LOW_BITS = np.uint64((1 << 29) - 1)  # the bits float64 has beyond float32's 24
# _log_model lies within 2**-17 float32 ulp of SLEEF's double-float value before its last
# rounding (measured on 8e6 inputs: at most 2**-20); elements closer than this to a rounding
# midpoint take the replay
_LOG_MARGIN = 1 << 12  # 2**-17 float32 ulp, in units of float64's
_FROM_MIDPOINT = np.uint64((1 << 28) - _LOG_MARGIN)


def _add_pf(x, y):  # df.h's dfadd_vf2_vf2_vf (|x| >= |y|)
    s = x[0] + y
    return s, ((x[0] - s) + y) + x[1]


def logf_replay(d: np.ndarray) -> np.ndarray:
    """SLEEF's xlogf_u1 on a float32 array, operation by operation (float32 arithmetic; fused
    multiply-adds in float64, rounded once)."""
    d = np.array(d, dtype=_F32, copy=True).reshape(-1)
    with np.errstate(all="ignore"):
        if _isa.CAPABILITY == "avx512":  # getexp/getmant
            scaled = d * _FOUR_THIRDS
            e = (np.frexp(scaled)[1] - 1).astype(_F32)
            e[np.isinf(scaled)] = 128
            m = np.frexp(d)[0] * _F32(2)
            np.multiply(m, _F32(0.5), out=m, where=m >= _F32(1.5))
        else:  # vilogb2k of d * (1 / 0.75), and d scaled by 2**-e
            tiny = d < _FLT_MIN
            d[tiny] *= _F32(2.0 ** 64)
            exponent = np.frexp(d * _FOUR_THIRDS)[1] - 1
            m = np.ldexp(d, -exponent).astype(_F32)
            exponent[tiny] -= 64
            e = exponent.astype(_F32)
        s = _mul_pf(_LN2_PAIR, e)
        x = _div_pp(_add2_ff(_F32(-1), m), _add2_ff(_F32(1), m))
        x2 = x[0] * x[0]
        t = _fma(_LOG_T[0], x2, _LOG_T[1])
        t = _fma(t, x2, _LOG_T[2])
        s = _add_pp(s, (x[0] * _F32(2), x[1] * _F32(2)))
        s = _add_pf(s, (x2 * x[0]) * t)
        r = s[0] + s[1]
    return r


def _log_model(d: np.ndarray) -> np.ndarray:
    """SLEEF's xlogf_u1 of float32 ``d`` (positive, normal) before its last rounding, in
    float64: ``e * ln2 + 2x + x**3 t(x**2)`` with the float32 parts that decide its value
    (x's leading float32, its square, the polynomial t and the cubic term) computed as SLEEF
    does and the double-float parts (e * ln2, 2x) in float64."""
    if _isa.CAPABILITY == "avx512":
        mantissa, exponent = np.frexp(d)
        m = mantissa * _F32(2)
        exponent -= 1
        big = m >= _F32(1.5)
        np.multiply(m, _F32(0.5), out=m, where=big)
        exponent += big
    else:
        exponent = np.frexp(d * _FOUR_THIRDS)[1]
        exponent -= 1
        m = np.ldexp(d, -exponent)
    x = m + _F32(1)
    den = np.add(m, 1.0, dtype=_F64)  # exact
    wide = np.subtract(m, 1.0, dtype=_F64)  # m - 1, exact
    np.divide(_F32(1), x, out=x)
    x *= wide  # x's leading float32 (dfdiv's first product; m - 1 is exact in float32)
    wide += wide
    wide /= den  # 2x
    x2 = x * x
    t = np.multiply(x2, _F64(_LOG_T[0]), dtype=_F64)
    t += _LOG_T[1]
    t32 = t.astype(_F32)
    np.multiply(t32, x2, out=t, dtype=_F64)
    t += _LOG_T[2]
    np.copyto(t32, t, casting="same_kind")
    x2 *= x
    x2 *= t32  # the cubic term, float32
    wide += x2
    wide += exponent * _LN2_WIDE
    return wide


_LN2_WIDE = _F64(_LN2_PAIR[0]) + _F64(_LN2_PAIR[1])  # the pair's value (exact in float64)


def logf(d: np.ndarray, at_least_one: bool = False) -> np.ndarray:
    """SLEEF's logf (u10) of a float32 array (see the module doc). ``at_least_one``: the
    caller knows ``d >= 1`` or NaN (a softmax row's sum)."""
    flat = d.reshape(-1)
    with np.errstate(all="ignore"):
        normal = at_least_one or (flat.min(initial=1.0) >= _FLT_MIN
                                  and flat.max(initial=1.0) < np.inf)
        if not normal:  # zeros, subnormals, infinities, NaN: the replay's special values
            out = logf_replay(flat)
            out[flat == 0] = -np.inf
            out[flat == np.inf] = np.inf
            out[(flat < 0) | np.isnan(flat)] = np.nan
            return out.reshape(d.shape)
        wide = _log_model(flat)
        out = wide.astype(_F32)
        bits = wide.view(np.uint64) & _LOW_BITS
        bits -= _FROM_MIDPOINT  # wraps around below the window
        near = bits < np.uint64(2 * _LOG_MARGIN)
        if near.any():
            out[near] = logf_replay(flat[near])
    return out.reshape(d.shape)


# -- expd (float64) ----------------------------------------------------------------------------
# torch's float64 softmax computes (x - max).exp() with Vectorized<double>::exp: SLEEF's
# Sleef_expd8_u10 (expd4 under AVX2; the same algorithm). Its result is not always the
# correctly rounded one (NumPy's exp, MKL's), so it is replayed operation by operation, every
# fused multiply-add rounded once (_float_kernels.fma): torch's float64 softmax on every
# element tried. About 30x NumPy's exp, so softmax takes it up to EXPD_LIMIT elements (every
# size with backends.cpu.torch_bits).

EXPD_LIMIT = 4096
_R_LN2_64 = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2U_64 = .69314718055966295651160180568695068359375
_L2L_64 = .28235290563031577122588448175013436025525412068e-12
_EXPD_POLY = (+0.2081276378237164457e-8, +0.2511210703042288022e-7, +0.2755762628169491192e-6,
              +0.2755723402025388239e-5, +0.2480158687479686264e-4, +0.1984126989855865850e-3,
              +0.1388888888914497797e-2, +0.8333333333314938210e-2, +0.4166666666666602598e-1,
              +0.1666666666666669072)


_SPLIT64 = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64 into two 26-bit halves


def _split64(b: float) -> tuple:
    scaled = b * _SPLIT64
    high = scaled - (scaled - b)
    return high, b - high


def _fma64(a, b, c, b_split=None):
    """float64 ``a * b + c`` rounded once, for finite operands (the product's exact tail by
    Veltkamp/Dekker, the sum's by Knuth; _float_kernels.fma's steps without its checks for
    zeros and infinities, which expd masks afterwards). ``b_split``: b's halves, when b is a
    constant."""
    p = a * b
    scaled = a * _SPLIT64
    a_high = scaled - (scaled - a)
    a_low = a - a_high
    if b_split is None:
        b_split = _split64(b)
    b_high, b_low = b_split
    tail = ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = p + c
    virtual = total - p
    return total + (((p - (total - virtual)) + (c - virtual)) + tail)


_EXPD_SPLITS = tuple(_split64(c) for c in _EXPD_POLY)
_L2_SPLITS = (_split64(-_L2U_64), _split64(-_L2L_64))


def expd(d: np.ndarray) -> np.ndarray:
    """SLEEF's expd u10 (its FMA build: the polynomial in Estrin's scheme) of a float64
    array."""
    d = np.asarray(d, dtype=_F64)
    c, cs = _EXPD_POLY, _EXPD_SPLITS
    with np.errstate(all="ignore"):
        u = np.rint(d * _R_LN2_64)
        s = _fma64(u, -_L2U_64, d, _L2_SPLITS[0])
        s = _fma64(u, -_L2L_64, s, _L2_SPLITS[1])
        s2 = s * s
        s4 = s2 * s2
        s8 = s4 * s4
        high = _fma64(s2, _fma64(s, c[2], c[3], cs[2]), _fma64(s, c[4], c[5], cs[4]))
        low = _fma64(s2, _fma64(s, c[6], c[7], cs[6]), _fma64(s, c[8], c[9], cs[8]))
        poly = _fma64(s8, _fma64(s, c[0], c[1], cs[0]), _fma64(s4, high, low))
        poly = _fma64(poly, s, 0.5)
        poly = _fma64(poly, s, 1.0)
        poly = _fma64(poly, s, 1.0)
        # ldexp2: two products by powers of two (q split in halves), as SLEEF's
        q = np.nan_to_num(u, nan=0.0).clip(-2100, 2100).astype(np.int64)
        half = q >> 1
        out = poly * np.ldexp(1.0, half) * np.ldexp(1.0, q - half)
        out = np.where(d > 709.782712893383973096, np.inf, out)
        out = np.where(d < -1000, 0.0, out)
        return np.where(np.isnan(d), d, out)


# -- logd (float64) ----------------------------------------------------------------------------
# torch's float64 log_softmax takes the log of each row's sum with Vectorized<double>::log:
# SLEEF's Sleef_logd8_u10 (xlog_u1), whose double-double result rounded once is not always the
# correctly rounded log (NumPy's log gave another last bit on 3.5% of rows). Replayed below with
# SLEEF's double-double helpers in their FMA forms (dd.h), for the positive finite inputs a
# row sum has (>= 1); other values take their IEEE results.

_LOGD_POLY = (0.1532076988502701353e+0, 0.1525629051003428716e+0, 0.1818605932937785996e+0,
              0.2222214519839380009e+0, 0.2857142932794299317e+0, 0.3999999999635251990e+0,
              0.6666666666667333541e+0)
_LN2_HIGH, _LN2_LOW = 0.693147180559945286226764, 2.319046813846299558417771e-17


def _add2(x, y) -> tuple:
    """dd.h's ddadd2_vd2_vd_vd: x + y as a double-double (Knuth's two-sum)."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def logd(d: np.ndarray) -> np.ndarray:
    """SLEEF's logd u10 (xlog_u1) of a float64 array: m in [0.75, 1.5) and e with d = m 2**e
    (getmant/getexp), x = (m - 1) / (m + 1) in double-double (dddiv's FMA form), the
    polynomial in x**2 (Estrin), ln2 * e + 2x + x**3 t(x**2) added as double-doubles, rounded
    once."""
    d = np.asarray(d, dtype=_F64)
    c = _LOGD_POLY
    with np.errstate(all="ignore"):
        finite = np.isfinite(d) & (d > 0)
        work = np.where(finite, d, 1.0)
        exponent = np.frexp(work * (1.0 / 0.75))[1] - 1
        m = np.ldexp(work, -exponent)
        e = exponent.astype(_F64)
        num_x, num_y = _add2(-1.0, m)
        den_x, den_y = _add2(1.0, m)
        t = 1.0 / den_x
        s = num_x * t
        u = _fma64(t, num_x, -s)
        v = _fma64(-den_y, t, _fma64(-den_x, t, 1.0))
        x_low = _fma64(s, v, _fma64(num_y, t, u))
        x2 = s * s
        x4 = x2 * x2
        x8 = x4 * x4
        poly = _fma64(x8, _fma64(x4, c[0], _fma64(x2, c[1], c[2])),
                      _fma64(x4, _fma64(x2, c[3], c[4]), _fma64(x2, c[5], c[6])))
        high = _LN2_HIGH * e  # ddmul of (ln2 high, low) by e
        low = _fma64(e, _LN2_LOW, _fma64(e, _LN2_HIGH, -high))
        twice_x, twice_low = s * 2, x_low * 2  # ddscale by 2
        total = high + twice_x  # ddadd of two double-doubles
        tail = (((high - total) + twice_x) + low) + twice_low
        cubic = (x2 * s) * poly  # ddadd of a double
        result = total + cubic
        tail = ((total - result) + cubic) + tail
        out = result + tail
        return np.where(finite, out, np.log(d))
