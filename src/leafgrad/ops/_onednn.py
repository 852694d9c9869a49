"""float32 kernels torch hands to oneDNN (its ``ideep`` eltwise primitives), replayed.

torch's CPU ``gelu`` (exact form) of a contiguous float32 tensor of two or more elements runs
oneDNN's ``eltwise_gelu_erf`` (Activation.cpp: ``use_mkldnn``), not ATen's own kernel: a
JIT-compiled vector code with its own ``exp`` (a degree-5 polynomial after a Cody-Waite
reduction, ``floor(x * log2(e) + 0.5)``) and the Abramowitz-Stegun 7.1.26 ``erf``, ending in
``S + S * erf`` with ``S = x / 2``. Every step is a float32 operation or a fused multiply-add;
a fused step is replayed in float64 (the product of two float32 values is exact there) and
rounded once, which differs from the fused result only on a float32 midpoint (see
_float_kernels' module doc). On this machine's AVX2 build the replay gives torch's bits on
every one of 10^5 random inputs (tests/test_fuzz9_findings.py checks a sweep).

oneDNN picks its code by the processor: with AVX-512 (its avx512_core) ``gelu_erf`` is
another approximation, ``(s * (1 + erf)) * 0.5`` with erf one of 25 minimax polynomials of
degree 5 in ``|s|`` (``gelu_erf_minimax``); replayed, it gives torch's bits on every one of
3 * 10^5 random inputs on an AVX-512 machine (tests/test_fuzz12_findings.py checks a sweep).
Its backward (gelu_erf_compute_vector_bwd) is the same code on both: the Abramowitz-Stegun
``erf`` and ``exp`` above, ``(R / sqrt(pi) * exp(-R^2) + 0.5) + 0.5 * erf`` with
``R = s / sqrt(2)`` (``gelu_erf_backward``; torch's bits on 8 * 10^5 random inputs on this
AVX-512 machine; tests/ops/test_kernel_order_bits.py checks a sweep).
"""

from __future__ import annotations

import numpy as np

_F32 = np.float32
_F64 = np.float64


def _bits(value: int) -> np.float32:
    return np.array([value], np.uint32).view(_F32)[0]


_LOG2E = _bits(0x3FB8AA3B)
_LN2 = _bits(0x3F317218)
_LN_FLT_MAX = _bits(0x42B17218)
_LN_FLT_MIN = _bits(0xC2AEAC50)
# exp's polynomial, highest degree first, then 1
_EXP_POLY = (_bits(0x3C07CFCE), _bits(0x3D2B9D0D), _bits(0x3E2AAD40), _bits(0x3EFFFEE3),
             _bits(0x3F7FFFFB), _F32(1))
# erf(x) = 1 - t * r(t) * exp(-x^2), t = 1 / (1 + p |x|): r's coefficients, highest first
_ERF_P = _F32(0.3275911)
_ERF_POLY = (_F32(1.061405429), _F32(-1.453152027), _F32(1.421413741), _F32(-0.284496736),
             _F32(0.254829592))
# the float32 constants as float64 scalars, for the fused steps' float64 sums (the same values;
# a float32 scalar added to a float64 array costs a conversion per call)
_EXP_POLY64 = tuple(_F64(c) for c in _EXP_POLY)
_ERF_POLY64 = tuple(_F64(c) for c in _ERF_POLY)
_ONE64 = _F64(1)
_SQRT_HALF = _F32(0.7071067811865476)
_INV_SQRT_PI = _bits(0x3F106EBA)

# avx512_core's gelu_erf (gelu_erf_minimax_approx_compute_vector_fwd): erf(s / sqrt(2)) is a
# degree-5 polynomial in |s|, one of 25 chosen by |s|'s bits (the exponent and the top two
# mantissa bits); the coefficients (degree 0 to 5 down, polynomial 0 to 24 across) are
# oneDNN's table
_MINIMAX_POLY = np.array([
    [0xA6F2CB94, 0x32827792, 0x3381CC0C, 0x34523D4A, 0x351AC44D, 0x35F36D88, 0x36EE8229,
     0x37B8A3BB, 0x3867A213, 0x3940033B, 0x3A2A5A1D, 0x3AE35863, 0x3B7828F2, 0x3C08B14B,
     0x3C515ED3, 0xBB503236, 0xBD8D8E5E, 0xBE8ABCD9, 0xBF0C19A2, 0xBECCB328, 0x3E176CED,
     0x3F470D99, 0x3F7ABB28, 0x3F800000, 0x00000000],
    [0x3F4C422A, 0x3F4C421F, 0x3F4C4207, 0x3F4C41CB, 0x3F4C413B, 0x3F4C3FAD, 0x3F4C3A2F,
     0x3F4C2D40, 0x3F4C146A, 0x3F4BC341, 0x3F4AD08C, 0x3F48F8CF, 0x3F45FAC7, 0x3F404E07,
     0x3F3B980F, 0x3F48DFF3, 0x3F78B21B, 0x3FBB0704, 0x40019C32, 0x3FE536D6, 0x3F81331E,
     0x3E6C8684, 0x3C98F936, 0x00000000, 0x3F800000],
    [0xB62173F4, 0x3735E4CF, 0x37F2FF89, 0x388C23BE, 0x3917535C, 0x39AB2AB0, 0x3A60FADB,
     0x3AF9B960, 0x3B6E5491, 0x3C0A4EC5, 0x3CA5AA8C, 0x3D2138D9, 0x3D8737D4, 0x3DDFB660,
     0x3E0F27AB, 0x3D94004B, 0xBE0EFDEB, 0xBF1D96C3, 0xBF89DB58, 0xBF6D9897, 0xBEF69FB8,
     0xBDC4F8A8, 0xBBDE6422, 0x00000000, 0x00000000],
    [0xBE081A19, 0xBE084570, 0xBE08639B, 0xBE089837, 0xBE08F409, 0xBE09AB95, 0xBE0B66D0,
     0xBE0E400A, 0xBE124DF8, 0xBE1BDE02, 0xBE2F19C9, 0xBE4931BF, 0xBE685FBC, 0xBE89C95F,
     0xBE96CBCA, 0xBE8044AA, 0xBE0550F2, 0x3DCFD6A1, 0x3E94C826, 0x3E79345F, 0x3DECEC91,
     0x3CA46568, 0x3AA1E00A, 0x00000000, 0x00000000],
    [0xBA3D61DB, 0x39F097A3, 0x3A5845DC, 0x3AB1FA35, 0x3B0CEFB8, 0x3B653AB6, 0x3BCAE527,
     0x3C221712, 0x3C6C5840, 0x3CC0A703, 0x3D1DCC19, 0x3D63656D, 0x3D955907, 0x3DBF9910,
     0x3DD53F69, 0x3DB7DCEF, 0x3D639EBE, 0xBA6EDE48, 0xBD22BE69, 0xBD041CF1, 0xBC64F5AB,
     0xBB097A32, 0xB8EBF380, 0x00000000, 0x00000000],
    [0x3CB7D80C, 0x3C9B6050, 0x3C978D11, 0x3C92E850, 0x3C8D058B, 0x3C848454, 0x3C6CD623,
     0x3C4C824B, 0x3C2A7935, 0x3BE0B390, 0x3B0651AC, 0xBB232F53, 0xBBD42FA0, 0xBC2C5366,
     0xBC492C9E, 0xBC2A7AA6, 0xBBD55D04, 0xBA823A76, 0x3B102AA8, 0x3AE25A7E, 0x3A31F792,
     0x38B84375, 0x3689BB5A, 0x00000000, 0x00000000],
], np.uint32).view(_F32)
_MINIMAX_POLY64 = _MINIMAX_POLY.astype(_F64)
_MINIMAX_INDEX_BIAS = np.int32(-0x3DE00001)  # 0xc21fffff
_MINIMAX_RBOUND = _bits(0x40B15CEE)  # past it, erf is +-1 (polynomial 23)


def _fma_into(a, b, c, wide: np.ndarray, out: np.ndarray) -> np.ndarray:
    """float32 ``a * b + c`` rounded once (from float64: see the module doc) into ``out``;
    ``wide`` is a float64 scratch array of the same shape."""
    np.multiply(a, b, out=wide, dtype=_F64)  # (dtype: a float64 product, not a cast one)
    wide += c
    out[...] = wide
    return out


def exp(x: np.ndarray, wide: np.ndarray | None = None) -> np.ndarray:
    """oneDNN's vector ``exp`` of a float32 array (exp_compute_vector_fwd); ``wide``: an
    optional float64 scratch array of x's shape."""
    if wide is None:
        wide = np.empty(x.shape, _F64)
    x = np.minimum(x, _LN_FLT_MAX)
    np.maximum(x, _LN_FLT_MIN, out=x)  # (NaN stays NaN through both)
    n = x * _LOG2E
    n += _F32(0.5)
    np.floor(n, out=n)
    r = _fma_into(np.negative(n), _LN2, x, wide, x)  # (x's last use)
    # 2**(n - 1) from the exponent bits, times 2 at the end (2**128 is not a float32)
    n -= _F32(1)
    scale = n.astype(np.int32)
    scale += 127
    scale <<= 23
    y = np.full(x.shape, _EXP_POLY[0], _F32)
    for c in _EXP_POLY64[1:]:
        _fma_into(y, r, c, wide, y)
    y *= scale.view(_F32)
    y *= _F32(2)
    return y


def _erf_magnitude(x: np.ndarray, q: np.ndarray, wide: np.ndarray) -> np.ndarray:
    """|erf(x)| as both gelu_erf codes compute it (Abramowitz-Stegun 7.1.26, fused steps):
    ``fma(-q * t, r(t), 1)`` with ``t = 1 / fma(p, |x|, 1)``; ``q`` is ``exp(-x^2)`` (oneDNN's
    ``exp``), overwritten with the result."""
    t = np.abs(x)
    _fma_into(_ERF_P, t, _ONE64, wide, t)
    np.divide(_F32(1), t, out=t)
    np.negative(q, out=q)
    q *= t  # -exp(-x^2) * t
    r = np.full(x.shape, _ERF_POLY[0], _F32)
    for c in _ERF_POLY64[1:]:
        _fma_into(r, t, c, wide, r)
    return _fma_into(q, r, _ONE64, wide, q)


def gelu_erf(s: np.ndarray) -> np.ndarray:
    """oneDNN's ``gelu_erf`` forward (gelu_erf_compute_vector_fwd) of a float32 array."""
    wide = np.empty(s.shape, _F64)
    x = s * _SQRT_HALF
    square = x * x
    np.negative(square, out=square)
    erf = _erf_magnitude(x, exp(square, wide), wide)
    np.copysign(erf, s, out=erf)
    half = s * _F32(0.5)
    return _fma_into(erf, half, half, wide, erf)


def gelu_erf_minimax(s: np.ndarray) -> np.ndarray:
    """oneDNN's ``gelu_erf`` forward on avx512_core (gelu_erf_minimax_approx_compute_vector_fwd)
    of a float32 array: ``(s * (1 + erf)) * 0.5``, erf a polynomial picked by |s|."""
    pos = np.abs(s)
    # the polynomial's index: |s|'s bits plus the bias (wrapping: a NaN's gives 24), shifted
    # arithmetically by 21, clamped to [1, 24], and 23 past the bound
    index = pos.view(np.int32) + _MINIMAX_INDEX_BIAS
    index >>= 21
    np.clip(index, 1, 24, out=index)
    index[pos > _MINIMAX_RBOUND] = 23
    coefficients = _MINIMAX_POLY64.take(index, axis=1)
    # Horner's fused steps in float64, each rounded to float32 (see the module doc)
    pos = pos.astype(_F64)
    wide = coefficients[5] * pos
    wide += coefficients[4]
    for degree in (3, 2, 1, 0):
        wide = wide.astype(_F32).astype(_F64)
        wide *= pos
        wide += coefficients[degree]
    erf = wide.astype(_F32)
    np.negative(erf, out=erf, where=np.signbit(s))
    erf += _F32(1)
    erf *= s
    erf *= _F32(0.5)
    return erf


def gelu_erf_backward(s: np.ndarray) -> np.ndarray:
    """oneDNN's ``gelu_erf`` derivative (gelu_erf_compute_vector_bwd) of a float32 array, the
    same code on AVX2 and avx512_core: ``(R / sqrt(pi) * Q + 0.5) + 0.5 * erf(R)`` with
    ``R = s / sqrt(2)``, ``Q = exp(-R^2)`` and erf as in ``gelu_erf``; the caller multiplies
    by the incoming gradient (one product, as oneDNN's kernel)."""
    wide = np.empty(s.shape, _F64)
    r = s * _SQRT_HALF
    q = r * r
    np.negative(q, out=q)
    q = exp(q, wide)
    density = r * _INV_SQRT_PI
    density *= q
    erf = _erf_magnitude(r, q, wide)
    np.negative(erf, out=erf, where=np.signbit(r))
    density += _F32(0.5)
    return _fma_into(erf, _F32(0.5), density, wide, density)
