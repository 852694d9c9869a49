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
_SQRT_HALF = _F32(0.7071067811865476)


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
    for c in _EXP_POLY[1:]:
        _fma_into(y, r, c, wide, y)
    y *= scale.view(_F32)
    y *= _F32(2)
    return y


def gelu_erf(s: np.ndarray) -> np.ndarray:
    """oneDNN's ``gelu_erf`` forward (gelu_erf_compute_vector_fwd) of a float32 array."""
    wide = np.empty(s.shape, _F64)
    x = s * _SQRT_HALF
    t = np.abs(x)
    _fma_into(_ERF_P, t, _F32(1), wide, t)
    np.divide(_F32(1), t, out=t)
    np.multiply(x, x, out=x)
    np.negative(x, out=x)
    q = exp(x, wide)
    np.negative(q, out=q)
    q *= t  # -exp(-x^2) * t
    r = np.full(s.shape, _ERF_POLY[0], _F32)
    for c in _ERF_POLY[1:]:
        _fma_into(r, t, c, wide, r)
    erf = _fma_into(q, r, _F32(1), wide, q)
    np.copysign(erf, s, out=erf)
    half = s * _F32(0.5)
    return _fma_into(erf, half, half, wide, erf)
