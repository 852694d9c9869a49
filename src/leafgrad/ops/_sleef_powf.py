"""SLEEF's ``powf`` (u10), replayed operation by operation on float32 arrays.

torch's ``pow`` kernel computes ``x ** y`` for a float32 tensor and an exponent other than
0, 1, 2, 3, -2, 0.5, -0.5 and -1 with ``Vectorized<float>::pow``, that is SLEEF's
``Sleef_powf16_u10`` on 16-lane AVX-512 vectors (ATen's PowKernel.cpp, vec512_float.h). SLEEF
computes ``exp(y * log|x|)`` in double-float arithmetic: every value is a pair (hi, lo) of
float32 numbers, and the pair operations use fused multiply-adds. The algorithm below follows
SLEEF's (sleefsimdsp.c ``xpowf``, ``logkf``, ``expkf``; df.h's pair arithmetic with FMA; the
AVX-512 ``getexp``/``getmant`` split of the logarithm's argument) with the same constants and
the same order of float32 operations. Its results are torch's on every input of the grids in
``docs/float32-bits.md``.

float32 additions, subtractions, products and quotients of NumPy are IEEE's, so they round as
the vector instructions do. A fused multiply-add ``a * b + c`` is computed in float64 (the
product of two float32 values is exact there) and rounded to float32; the double rounding
differs from the fused one only when the float64 sum falls exactly on a float32 midpoint.
"""

from __future__ import annotations

import numpy as np

_F = np.float32
_D = np.float64


def _fma(a, b, c):
    return (np.multiply(a, b, dtype=_D) + c).astype(_F)


def _fms(a, b, c):  # a * b - c, one rounding (SLEEF's vfmapn)
    return (np.multiply(a, b, dtype=_D) - c).astype(_F)


def _fnma(a, b, c):  # -(a * b) + c, one rounding (SLEEF's vfmanp)
    return (c - np.multiply(a, b, dtype=_D)).astype(_F)


# -- double-float pairs (df.h, the FMA variants) -----------------------------------------------


def _add2_ff(x, y):
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _add2_pf(x, y):
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def _add2_pp(x, y):
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def _add_pp(x, y):  # |x| >= |y|
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _add_fp(x, y):
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def _normalize(t):
    s = t[0] + t[1]
    return s, (t[0] - s) + t[1]


def _mul_pf(x, y):
    s = x[0] * y
    return s, _fma(x[1], y, _fms(x[0], y, s))


def _mul_pp(x, y):
    s = x[0] * y[0]
    return s, _fma(x[0], y[1], _fma(x[1], y[0], _fms(x[0], y[0], s)))


def _square(x):
    s = x[0] * x[0]
    return s, _fma(x[0] + x[0], x[1], _fms(x[0], x[0], s))


def _div_pp(n, d):
    t = _F(1) / d[0]
    s = n[0] * t
    u = _fms(t, n[0], s)
    v = _fnma(d[1], t, _fnma(d[0], t, _F(1)))
    return s, _fma(s, v, _fma(n[1], t, u))


# -- logkf and expkf ---------------------------------------------------------------------------

_LN2 = (_F(0.69314718246459960938), _F(-1.904654323148236017e-09))
_LOG_C = (_F(0.66666662693023681640625), _F(3.69183861259614332084311e-09))
_LOG_T = tuple(_F(c) for c in (0.240320354700088500976562, 0.285112679004669189453125,
                               0.400007992982864379882812))
_FOUR_THIRDS = _F(1.0 / 0.75)
_R_LN2 = _F(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = _F(0.693145751953125)
_L2L = _F(1.428606765330187045e-06)
_EXP_C = tuple(_F(c) for c in (0.00136324646882712841033936, 0.00836596917361021041870117,
                               0.0416710823774337768554688, 0.166665524244308471679688,
                               0.499999850988388061523438))


def _logk(d):
    """log(d) as a pair, for finite d > 0."""
    # AVX-512: e = getexp(d * (1 / 0.75)), m = getmant(d) in [0.75, 1.5)
    scaled = d * _FOUR_THIRDS
    e = (np.frexp(scaled)[1] - 1).astype(_F)
    e[np.isinf(scaled)] = 128  # getexp(inf) is inf, which SLEEF replaces by 128
    m = np.frexp(d)[0] * _F(2)  # in [1, 2)
    np.multiply(m, _F(0.5), out=m, where=m >= _F(1.5))  # into [0.75, 1.5)
    x = _div_pp(_add2_ff(_F(-1), m), _add2_ff(_F(1), m))
    x2 = _square(x)
    t = _fma(_LOG_T[0], x2[0], _LOG_T[1])
    t = _fma(t, x2[0], _LOG_T[2])
    s = _mul_pf(_LN2, e)
    s = _add_pp(s, (x[0] * _F(2), x[1] * _F(2)))
    return _add_pp(s, _mul_pp(_mul_pp(x2, x), _add2_pp(_mul_pf(x2, t), _LOG_C)))


def _expk(d):
    """exp of the pair d, as a float32."""
    q = np.rint((d[0] + d[1]) * _R_LN2)
    s = _add2_pf(d, q * -_L2U)
    s = _add2_pf(s, q * -_L2L)
    s = _normalize(s)
    u = _EXP_C[0]
    for c in _EXP_C[1:]:
        u = _fma(u, s[0], c)
    t = _add_pp(s, _mul_pf(_square(s), u))
    t = _add_fp(_F(1), t)
    # q is NaN or infinite only where powf's special cases replace the result
    u = _ldexp(t[0] + t[1], np.minimum(np.maximum(q, -1000), 1000).astype(np.int32))
    u[d[0] < -104] = 0
    return u


def _ldexp(x, q):
    """SLEEF's ``vldexp``: x * 2**q as four float32 products by 2**(m - 127) and one by
    2**q', each rounded (a result below float32's normal range rounds more than once)."""
    m = q >> 31
    m = (((m + q) >> 6) - m) << 4
    q = q - (m << 2)
    m = np.minimum(np.maximum(m + 127, 0), 255)  # (np.clip costs ten times more)
    u = (m << 23).view(_F)
    x = x * u * u * u * u
    return x * ((q + 127) << 23).view(_F)


_BLOCK = 8192


def powf(x: np.ndarray, y) -> np.ndarray:
    """SLEEF's ``powf`` for a float32 array x and a float32 exponent y (a number, rounded
    to float32, or a float32 array of x's shape), run by an op's forward with NumPy's
    floating-point warnings off. Where x is 0, 1, infinite or NaN, or y is 0 or not finite,
    SLEEF's special cases give IEEE pow's values, which NumPy's pow computes exactly."""
    flat = x.reshape(-1)
    ys = np.asarray(y, _F)
    ys = ys.reshape(-1) if ys.ndim else ys
    out = np.empty(flat.shape, _F)
    for start in range(0, flat.size, _BLOCK):
        block = flat[start:start + _BLOCK]
        yb = ys[start:start + _BLOCK] if ys.ndim else ys
        r = _expk(_mul_pf(_logk(np.abs(block)), yb))
        r[np.isnan(r)] = np.inf
        out[start:start + block.size] = r
    negative = flat < 0
    if negative.any():
        yn = ys[negative] if ys.ndim else ys
        integral = (np.trunc(yn) == yn) | (np.abs(yn) > 2 ** 24)
        odd = integral & (np.abs(yn) < 2 ** 24) & (np.fmod(yn, 2) != 0)
        out[negative] *= np.where(odd, _F(-1), np.where(integral, _F(1), _F(np.nan)))
    special = (flat == 0) | ~np.isfinite(flat) | (flat == 1) | (ys == 0) | ~np.isfinite(ys)
    if special.any():
        special = np.broadcast_to(special, flat.shape)
        out[special] = np.power(flat[special], ys[special] if ys.ndim else ys)
    return out.reshape(x.shape)
