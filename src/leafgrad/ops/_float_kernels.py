"""float32 results with torch's last bits: exp, log, tanh, sin, cos, sigmoid, pow (issue 11, 13).

What torch 2.13's CPU kernels run for a float32 tensor (ATen's UnaryOpsKernel.cpp, vml.h,
vec512_float.h, Loops.h), and what this module does to give the same bits:

- **exp, log, tanh, sin, cos** (and sqrt) call Intel MKL's vector math library
  (``vmsExp``/``vmsLn``/``vmsTanh``/``vmsSin``/``vmsCos`` in high-accuracy mode) on every
  contiguous run of elements; a strided operand is copied into a buffer first, so every
  element goes through the same MKL code whatever the shape. With the optional ``mkl``
  package leafgrad calls the same functions (ops/_mkl.py) and every bit is torch's. Without
  it: MKL's high-accuracy float32 results are the correctly rounded ones except near a
  rounding midpoint, so computing the function in float64 and rounding once to float32
  reproduces torch's result on 99.0% (exp), 99.99% (log) and 99.6% (tanh) of a grid of
  100,000 inputs (``docs/float32-bits.md``), where NumPy's float32 kernels agree on 61%, 95%
  and 62%; for sin and cos 95% (MKL's errors there look random from one input to the next).
- **sigmoid** is torch's own kernel (``cpu_kernel_vec``): in 16-lane AVX-512 vectors it
  computes ``1 / ((exp(0 - x)) + 1)`` with SLEEF's ``expf`` (u10), replayed below operation
  by operation; the elements left over after the last full pair of vectors (``n % 32`` in a
  contiguous run, every element of a strided run) take the scalar path
  ``1 / (1 + std::exp(-x))``, whose ``expf`` is glibc's (``_libm.expf``: float64's exp
  rounded once, and the C library's own where that could differ, ~1 element in 128: rounded
  alone it was a last bit off on ~0.07% of inputs). Rows that TensorIterator cannot merge (a slice
  ``x[:, :k]``) each have their own leftover.
- **silu** (``x / (1 + exp(-x))``) runs the same two paths as sigmoid.
- **pow** with a number exponent other than 0, 1, 2, 3, -2, 0.5, -0.5, -1 (those are
  products, square roots and quotients, ops/elementwise.py) is torch's ``cpu_kernel_vec``
  too: SLEEF's ``powf`` in the vectors (ops/_sleef_powf.py, exact) and ``std::pow`` in double
  for the leftover elements (float64's pow rounded once).

The operation-by-operation SLEEF replays (sigmoid's and silu's vector path, pow's) cost
20-100x NumPy's own kernel (about 20-150 NumPy passes per element), so they run only when a
user asks for torch's exact bits with ``leafgrad.backends.cpu.torch_bits = True``. By default
sigmoid's and silu's vectors take ``_softmax_bits.expf`` (SLEEF's expf every bit from fewer
passes) and pow's a cheaper form of its algorithm (``_powf_close``: float64 arithmetic in place
of the double-float pairs that rarely decide a rounding: 99.9% of torch's bits,
docs/float32-bits.md; the scalar formula alone gave 96% for sigmoid and 98% for pow). They cost 5-30x NumPy's own kernels per element:
sigmoid of 100 elements 22 us (2.7 us with NumPy's exp), x ** 4 of 100 elements 36 us
(1.1 us). Past ``REPLAY_LIMIT`` elements the activations take NumPy's (or MKL's) fastest
kernels instead (Note: the replay limit, below); x ** 4 of 10^6 elements still replays
(13 ms against torch's 2.4 ms on an AVX-512 machine).

float64 tensors use MKL where it is installed and NumPy's result differs from torch's (sin,
cos, tanh, sqrt), NumPy's float64 kernels otherwise (within an ulp of torch's).

A float32 fused multiply-add ``a * b + c`` is replayed in float64: the product of two float32
values is exact there, the sum is rounded to float64 and then to float32. The two roundings
differ from the single one only when the float64 sum lands exactly on a float32 midpoint,
which the grids above never hit.
"""

from __future__ import annotations

import math

import numpy as np

from .._dtype import is_bfloat16_array
from ..backends import cpu as _cpu
from . import _blas, _isa, _layout, _libm, _mkl, _numba_kernels, _onednn, _softmax_bits

_F32 = np.float32
_F64 = np.float64

# Below this many elements the float64 temporaries cost less than a buffered ufunc call.
_BUFFERED_FROM = 4096


def _rounded(ufunc, a: np.ndarray) -> np.ndarray:
    """``ufunc`` computed in float64 and rounded once to float32 (``a`` float32)."""
    if a.size < _BUFFERED_FROM:
        return ufunc(a, dtype=_F64).astype(_F32)
    return ufunc(a, out=np.empty_like(a), dtype=_F64, casting="same_kind")


def _vml_or_rounded(name: str, ufunc):
    """float32/float64: MKL's ``name`` where torch calls it and MKL is installed
    (ops/_mkl.py); otherwise float32 rounds float64's ``ufunc`` once and the other dtypes
    run ``ufunc``."""

    def compute(a: np.ndarray) -> np.ndarray:
        if _mkl._library is not False:  # not known to be missing
            result = _mkl.kernel(name, a)
            if result is not None:
                return result
        return _rounded(ufunc, a) if a.dtype == _F32 else ufunc(a)

    compute.__name__ = name
    return compute


exp = _vml_or_rounded("exp", np.exp)
log = _vml_or_rounded("log", np.log)
tanh = _vml_or_rounded("tanh", np.tanh)
sin = _vml_or_rounded("sin", np.sin)
cos = _vml_or_rounded("cos", np.cos)


def sqrt(a: np.ndarray) -> np.ndarray:
    """NumPy's correctly rounded square root, or MKL's where torch calls it (1 ulp below on
    about 0.6% of float32 and 0.7% of float64 inputs)."""
    result = _mkl.kernel("sqrt", a)
    return np.sqrt(a) if result is None else result


# -- SLEEF's expf (u10), as torch's Vectorized<float>::exp runs it with FMA ---------------------

_R_LN2 = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = float(_F32(0.693145751953125))
_L2L = float(_F32(1.428606765330187045e-06))
_EXP_POLY = tuple(float(_F32(c)) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271, 0.00833336077630519866943359,
    0.0416664853692054748535156, 0.166666671633720397949219, 0.5))


def _fma_into(a, b, c, wide: np.ndarray, narrow: np.ndarray) -> np.ndarray:
    """float32 ``a * b + c`` rounded once (see the module doc), from float64 operands: the
    result is left in ``narrow`` (float32) and, widened again, in ``wide`` (returned).
    ``wide`` may be ``a`` but not ``c``."""
    np.multiply(a, b, out=wide)
    wide += c
    narrow[...] = wide
    wide[...] = narrow
    return wide


_BLOCK = 8192  # elements per pass: the temporaries of one block stay in the CPU's cache


def sleef_expf(d: np.ndarray) -> np.ndarray:
    """SLEEF's ``expf`` u10 on a float32 array, operation by operation (run by an op's
    forward: NumPy's floating-point warnings are off, ops/registry.py)."""
    flat = d.reshape(-1)
    out = np.empty(flat.shape, _F32)
    size = min(flat.size, _BLOCK)
    q, s, u, ss = (np.empty(size, _F64) for _ in range(4))
    narrow = np.empty(size, _F32)
    for start in range(0, flat.size, _BLOCK):
        x = flat[start:start + _BLOCK]
        n = x.size
        qb, sb, ub, ssb, nb = q[:n], s[:n], u[:n], ss[:n], narrow[:n]
        np.multiply(x, _R_LN2, out=nb)  # a float32 product,
        np.rint(nb, out=nb)  # rounded to an integer (ties to even)
        qb[...] = nb
        _fma_into(qb, -_L2U, x, ssb, nb)
        _fma_into(qb, -_L2L, ssb, sb, nb)  # s: the reduced argument
        ub[...] = _EXP_POLY[0]
        for c in _EXP_POLY[1:]:
            _fma_into(ub, sb, c, ub, nb)
        np.multiply(sb, sb, out=ssb)  # a float32 product: exact in float64, rounded once
        nb[...] = ssb
        ssb[...] = nb
        _fma_into(ssb, ub, sb, ub, nb)
        nb += _F32(1)  # a float32 addition
        # SLEEF scales by 2**(q >> 1), then by 2**(q - (q >> 1)) (vldexp2); q is small
        # wherever the result is not replaced below
        qi = np.minimum(np.maximum(qb, -255), 255).astype(np.int32)
        half = qi >> 1
        qi -= half
        np.ldexp(nb, half, out=nb)
        np.ldexp(nb, qi, out=out[start:start + n])
    out[flat < -104] = 0
    out[flat > 100] = np.inf
    nan = np.isnan(flat)
    out[nan] = flat[nan]
    return out.reshape(d.shape)


# -- torch's vectorised loop: which elements take the scalar path ------------------------------

_PAIR = _isa.pair(4)  # float32 elements of two vectors per step of Loops.h's vectorized_loop
# (32 under torch's AVX512 kernels, 16 under AVX2: ops/_isa.py)
_PAIR64 = _isa.pair(8)


def _scalar_part(a: np.ndarray, pair: int = _PAIR):
    """The elements torch's vectorised loop leaves to the scalar op: None (none of them),
    ``...`` (all), or an index into ``a`` for the leftover of each contiguous run. ``pair``:
    the elements of two vectors (32 float32, 16 float64)."""
    n = a.size
    if n < pair:
        return ...
    item = a.itemsize
    if a.flags.c_contiguous or a.flags.f_contiguous:
        tail = n % pair
        if not tail:
            return None
        flat = np.arange(n - tail, n)  # the last elements in memory order
        return np.unravel_index(flat, a.shape, order="C" if a.flags.c_contiguous else "F")
    if a.strides[-1] == item:  # rows TensorIterator runs one by one
        inner = a.shape[-1]
        tail = inner % pair
        if inner >= pair:
            return (Ellipsis, slice(inner - tail, inner)) if tail else None
    # other layouts (a permutation of dense dims, strided rows): the runs TensorIterator makes
    # once it orders and merges the dims (a transpose(0, 1) of (3, 50, 7) runs 350 at a time)
    vectorised = _layout.vectorized_elements(a.shape, (a,), item, avx512=pair == _isa.pair(item))
    if vectorised is None:
        return ...
    return None if vectorised.all() else ~vectorised


def _sigmoid_scalar(a: np.ndarray) -> np.ndarray:
    e = _libm.expf(np.negative(a))  # glibc's expf, every bit
    return _F32(1) / (_F32(1) + e)


# Note: the replay limit
# The replays of torch's float32 kernels (SLEEF's expf, expm1f, log1pf, powf; lane-ordered
# sums) cost 5-30x NumPy's own kernel per element: on a tutorial's tensors that is a few
# microseconds for torch's printed digits, on a 10^6-element activation it is 10-40 ms where
# torch takes 0.3-3. Past ``REPLAY_LIMIT`` elements the float32 activations (sigmoid, silu,
# the elu family, softplus, log_sigmoid and what is built on them, gelu) run NumPy's (or
# MKL's, where installed) fastest kernel instead, within an ulp or two of torch's;
# ``leafgrad.backends.cpu.torch_bits = True`` replays them at every size. (Softmax's own limit,
# ``_EXP64_LIMIT``, is the same number.)
REPLAY_LIMIT = 16384


def fast_exp(d: np.ndarray) -> np.ndarray:
    """float32 exp past the replay limit: MKL's (torch's own exp) or NumPy's."""
    result = _mkl.kernel("exp", d)
    return np.exp(d) if result is None else result


def log1p_wide(d: np.ndarray) -> np.ndarray:
    """float32 log1p past the replay limit: ``log(1 + d)`` in float64 (``1 + d`` is exact there
    for ``|d| >= 2**-20``; below, two terms of the series), rounded once: float64's log1p
    rounded (the default's value) at about half the cost of NumPy's float32 or float64 log1p."""
    with np.errstate(all="ignore"):
        wide = np.add(d, 1.0, dtype=_F64)
        np.log(wide, out=wide)
        small = np.abs(d) < _F32(2.0 ** -20)
        if small.any():
            s = d[small].astype(_F64)
            wide[small] = s - s * s * 0.5
        return wide.astype(_F32)


def expm1_wide(d: np.ndarray) -> np.ndarray:
    """float32 expm1 past the replay limit: ``exp(d) - 1`` in float64 rounded once, ``d`` itself
    below ``2**-24`` (where expm1 rounds to it): float64's expm1 rounded, at half its cost."""
    with np.errstate(over="ignore"):
        wide = np.exp(d, dtype=_F64)
        wide -= 1.0
        out = wide.astype(_F32)
    tiny = np.abs(d) < _F32(2.0 ** -24)
    if tiny.any():
        out[tiny] = d[tiny]
    return out


def _expf(d: np.ndarray) -> np.ndarray:
    """SLEEF's expf as sigmoid and silu use it: the operation-by-operation replay when the
    user asked for torch's bits, _softmax_bits.expf (the same bits from fewer passes, at
    about the cost of the plain-arithmetic form that stood here before: 99.9% of the bits)
    up to the replay limit otherwise, and past it the fastest float32 exp."""
    if _cpu.torch_bits:
        return sleef_expf(d)
    return _softmax_bits.expf(d) if d.size <= REPLAY_LIMIT else fast_exp(d)


def _sigmoid_vector(a: np.ndarray) -> np.ndarray:
    return _F32(1) / (_expf(_F32(0) - a) + _F32(1))


def _silu_scalar(a: np.ndarray) -> np.ndarray:
    return a / (_F32(1) + _libm.expf(np.negative(a)))


def silu(a: np.ndarray) -> np.ndarray:
    """torch's ``silu`` of a float32 array: ``x / (1 + exp(-x))``, with SLEEF's expf in the
    vectorised loop and glibc's expf in the scalar one, as sigmoid."""
    part = _scalar_part(a)
    if part is Ellipsis:
        return np.asarray(_silu_scalar(a), dtype=_F32)
    out = a / (_F32(1) + _expf(np.negative(a)))
    if part is not None:
        out[part] = _silu_scalar(a[part])
    return out


def sigmoid_for(a: np.ndarray, operands: tuple, avx512: bool = True) -> np.ndarray:
    """torch's sigmoid of a float32 array ``a`` as a kernel computes it whose TensorIterator
    runs over ``operands`` (its output first, then ``a``): their layouts decide which elements
    take the vectorised loop (SLEEF's expf) and which the scalar one (glibc's). ``avx512``:
    the kernel has an AVX-512 build (sigmoid's, glu's; see _layout.vectorized_elements)."""
    if all(op.shape == a.shape and op.flags.c_contiguous for op in operands):
        part = _scalar_part(a, _PAIR if avx512 else 64 // a.itemsize)
    else:  # the runs TensorIterator makes of them (its order of dims, coalesced)
        vectorised = _layout.vectorized_elements(a.shape, operands, a.itemsize, avx512=avx512)
        part = ... if vectorised is None else None if vectorised.all() else ~vectorised
    if part is Ellipsis:
        return np.asarray(_sigmoid_scalar(a), dtype=_F32)
    out = np.asarray(_sigmoid_vector(a))
    if part is not None:
        out[part] = _sigmoid_scalar(a[part])
    return out


def glu_backward(grad: np.ndarray, x: np.ndarray, dim: int) -> np.ndarray:
    """torch's ``glu_backward(grad, x, dim)`` of float32 arrays (glu_backward_cpu_out): the
    gradient is a fresh row-major array; its first half gets ``sigmoid(b)`` (sigmoid_out into
    that half: the split of its loop follows the half's layout and b's) times ``grad``, its
    second half the fused kernel's ``(1 - s) * s * a * grad``."""
    first, second = np.split(x, 2, axis=dim)
    out = np.empty(x.shape, _F32)
    out_first, out_second = np.split(out, 2, axis=dim)
    s = sigmoid_for(second, (out_first, second))
    np.multiply((_F32(1) - s) * s * first, grad, out=out_second)
    np.multiply(s, grad, out=out_first)
    return out


def silu_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """torch's ``silu_backward(grad, x)`` of float32 arrays (broadcast together): ATen's kernel
    computes ``dy * s * (1 + x * (1 - s))`` with ``s`` the sigmoid (SLEEF's expf in the
    vectors, glibc's in the scalar tail, as ``sigmoid``) and the bracket one fused multiply-add
    (GCC contracts it; unfused, ~20% of values were a last bit off, and the former
    ``dy * (s * bracket)`` ~45%)."""
    shape = np.broadcast_shapes(grad.shape, x.shape)
    part = _scalar_part_of(shape, (grad, x))
    x = np.broadcast_to(x, shape)
    if part is Ellipsis:
        s = np.asarray(_sigmoid_scalar(x), dtype=_F32)
    else:
        s = np.asarray(_sigmoid_vector(x))
        if part is not None:
            s[part] = _sigmoid_scalar(x[part])
    inner = np.multiply(x, _F32(1) - s, dtype=_F64)
    inner += 1.0
    out = np.asarray(np.multiply(grad, s))
    return np.asarray(np.multiply(out, inner.astype(_F32)))


_ERF_P, _ERF_POLY = _onednn._ERF_P, _onednn._ERF_POLY  # (Abramowitz-Stegun 7.1.26)
_GELU_ALPHA = _F32(math.sqrt(0.5))  # M_SQRT1_2
_GELU_BETA = _F32(2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5)  # M_2_SQRTPI * M_SQRT1_2 / 2


def _vector_erf(v: np.ndarray) -> np.ndarray:
    """ATen's ``Vectorized<float>::erf`` (the Abramowitz-Stegun 7.1.26 form with fused steps
    and SLEEF's expf): ``sign(v) * fma(-exp(-v^2) * t, r(t), 1)``, ``t = 1 / fma(p, |v|, 1)``."""
    t = fma(_ERF_P, np.abs(v), _F32(1))
    np.divide(_F32(1), t, out=t)
    r = fma(_ERF_POLY[0], t, _ERF_POLY[1])
    for c in _ERF_POLY[2:]:
        r = fma(r, t, c)
    e = _softmax_bits.expf(np.negative(v * v))
    np.negative(e, out=e)
    e *= t
    out = fma(e, r, _F32(1))
    np.negative(out, out=out, where=np.signbit(v))
    return out


def _scalar_erf(values: np.ndarray) -> np.ndarray:
    # the scalar loop's std::erf, every bit up to the replay limit (its cost: ~0.3 us an element
    # through ctypes, paid only where torch's whole loop is scalar: a non-contiguous layout)
    return _libm.erff(values, exact_max=REPLAY_LIMIT)


def gelu(x: np.ndarray) -> np.ndarray:
    """torch's own ``gelu`` (exact form) of a float32 array, run where it does not hand the
    input to oneDNN (one element, or a non-contiguous input): ATen's GeluKernel computes
    ``x * 0.5 * (1 + erf(x / sqrt 2))`` with ``Vectorized::erf`` in the vectors and the C
    library's erff in the scalar loop (the result keeps x's layout)."""
    part = _scalar_part(x)
    if part is Ellipsis:
        cdf = _scalar_erf(x * _GELU_ALPHA)
    else:
        cdf = _vector_erf(x * _GELU_ALPHA)
        if part is not None:
            cdf[part] = _scalar_erf(x[part] * _GELU_ALPHA)
    cdf += _F32(1)
    out = x * _F32(0.5)
    out *= cdf
    return out


def gelu_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """torch's own ``gelu_backward`` (exact form) of float32 arrays (broadcast together), run
    where it does not hand the input to oneDNN (one element, or a non-contiguous input):
    ATen's GeluBackwardKernel computes ``dy * (cdf + x * pdf)``, ``cdf = 0.5 (1 + erf(x /
    sqrt 2))`` and ``pdf = beta exp(-x^2 / 2)``: in the vectors with ``Vectorized::erf`` and
    SLEEF's expf and the bracket one fused multiply-add, in the scalar loop with the C
    library's erff and expf, unfused (both measured against torch)."""
    shape = np.broadcast_shapes(grad.shape, x.shape)
    part = _scalar_part_of(shape, (grad, x))
    x = np.broadcast_to(x, shape)

    def halves(values, erf_of, exp_of):
        cdf = erf_of(values * _GELU_ALPHA)
        cdf += _F32(1)
        cdf *= _F32(0.5)
        square = values * values
        square *= _F32(-0.5)
        pdf = exp_of(square)
        pdf *= _GELU_BETA
        return cdf, pdf

    if part is Ellipsis:
        cdf, pdf = halves(x, _scalar_erf, _libm.expf)
        pdf *= x
        cdf += pdf
        inner = cdf
    else:
        cdf, pdf = halves(x, _vector_erf, _softmax_bits.expf)
        inner = fma(x, pdf, cdf)
        if part is not None:
            cdf, pdf = halves(x[part], _scalar_erf, _libm.expf)
            pdf *= x[part]
            cdf += pdf
            inner[part] = cdf
    return np.asarray(np.multiply(grad, inner))


def _glibc_exp(value: float) -> float:
    try:
        return math.exp(value)  # the C library's exp, as torch's scalar loop calls it
    except OverflowError:
        return math.inf


_glibc_exp_array = np.frompyfunc(_glibc_exp, 1, 1)


def _sigmoid_double_scalar(a: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.asarray(_glibc_exp_array(np.negative(a)), dtype=_F64))


def sigmoid(a: np.ndarray) -> np.ndarray:
    """torch's ``sigmoid`` of a float32 array; float64: ``1 / (1 + exp(-a))``, with glibc's
    exp (Python's math.exp) on the elements torch's scalar loop takes (every element of rows
    shorter than 16, as an LSTM's gate chunks: NumPy's exp gave torch's bits on 98% of them)
    and, in the vectors, NumPy's in place of SLEEF's expd (97%), or with
    ``backends.cpu.torch_bits`` SLEEF's expd replayed (_softmax_bits.expd, every bit: d2l's
    float64 LeNet with batch norm from scratch; its fixed cost, some 300 us a call, is 100x a
    small sigmoid's)."""
    if a.dtype == _F64:
        part = _scalar_part(a, _PAIR64)
        if part is Ellipsis:
            return np.asarray(_sigmoid_double_scalar(a), dtype=_F64)
        if _cpu.torch_bits:
            out = 1 / (1 + _softmax_bits.expd(-a))
        else:
            out = 1 / (1 + np.exp(-a))
        if part is not None:
            out[part] = _sigmoid_double_scalar(a[part])
        return out
    if a.dtype != _F32:
        return (1 / (1 + np.exp(-a))).astype(a.dtype, copy=False)
    part = _scalar_part(a)
    if part is Ellipsis:
        return np.asarray(_sigmoid_scalar(a), dtype=_F32)
    out = _sigmoid_vector(a)
    if part is not None:
        out[part] = _sigmoid_scalar(a[part])
    return out


def _into(ufunc, a: np.ndarray, out, name: str | None = None) -> np.ndarray:
    """``ufunc(a)`` as ``exp``/``log``/``tanh`` above compute it, written into ``out``
    (leafgrad.compile's capture kernels; ``out`` None: a fresh array)."""
    if name is not None and _mkl._library is not False:
        result = _mkl.kernel(name, a, out)
        if result is not None:
            return result
    if a.dtype != _F32:
        return ufunc(a, out=out)
    if out is None:
        return _rounded(ufunc, a)
    return ufunc(a, out=out, dtype=_F64, casting="same_kind")


def exp_into(a, out):
    return _into(np.exp, a, out, "exp")


def log_into(a, out):
    return _into(np.log, a, out, "log")


def tanh_into(a, out):
    return _into(np.tanh, a, out, "tanh")


def sin_into(a, out):
    return _into(np.sin, a, out, "sin")


def cos_into(a, out):
    return _into(np.cos, a, out, "cos")


def sqrt_into(a, out):
    result = _mkl.kernel("sqrt", a, out)
    return np.sqrt(a, out=out) if result is None else result


# -- pow with a number exponent: SLEEF's powf in the vector loop, double pow in the scalar one --


# SLEEF's powf works in double-float pairs: its value before the last rounding is within 0.09
# of a float32 ulp of the exact power (measured over 21 integer and 12 fractional exponents,
# 10^6 inputs each, tests/ops/test_float_bits_unary.py), so it rounds to the correctly rounded
# float32 except where the exact power lies that close to a rounding midpoint. Where it matters
# is decided by SLEEF's exp polynomial, evaluated in float32: ``_powf_close`` computes the rest
# (the logarithm, the product, the argument reduction) in float64 and only that polynomial as
# SLEEF does, which gives SLEEF's result on 99.97% of inputs (99.9% for exponents near 33) at a
# tenth of the full replay's cost. With ``backends.cpu.torch_bits`` the full replay
# (ops/_sleef_powf.py) runs instead, on the elements whose float64 power (0.5 ulp of float64
# from the exact one) lies within 0.125 of a float32 ulp of a rounding midpoint: a quarter of
# them, and every bit is torch's.
_LOW_BITS = np.uint64((1 << 29) - 1)  # the bits float64 has beyond float32's 24
_MARGIN = 1 << 26  # 0.125 ulp of float32, in units of those bits
_FROM_MIDPOINT = np.uint64((1 << 28) - _MARGIN)
_MAGNITUDE = np.uint64((1 << 63) - 1)
_NORMAL = np.float64(2.0 ** -126).view(np.uint64)
_NORMAL_SPAN = np.float64(2.0 ** 127).view(np.uint64) - _NORMAL
_EXP_C32 = (_F32(0.00136324646882712841033936), _F32(0.00836596917361021041870117),
            _F32(0.0416710823774337768554688), _F32(0.166665524244308471679688),
            _F32(0.499999850988388061523438))  # SLEEF's expkf


def _near_midpoint(exact: np.ndarray) -> np.ndarray:
    """Where the C-contiguous float64 ``exact`` lies within ``_MARGIN`` of halfway between two float32
    values, or outside float32's normal range (zero, subnormal, overflowing, inf, NaN)."""
    bits = exact.view(np.uint64)
    low = bits & _LOW_BITS
    low -= _FROM_MIDPOINT  # wraps around below the window
    near = low < np.uint64(2 * _MARGIN)
    near |= _outside_normal(exact)
    return near


def _powf_where_needed(base: np.ndarray, exponent, exact: np.ndarray, part) -> np.ndarray:
    """float32 ``base ** exponent`` as torch's vector loop computes it (SLEEF's powf), from
    ``exact`` (float64 pow); ``part`` (torch's scalar leftover, which rounds float64's pow
    once) keeps the rounded value. Elements whose ``exact`` lies far from a float32 rounding
    midpoint round as SLEEF's value does: on large arrays only the others are computed."""
    exact = np.ascontiguousarray(exact)
    out = exact.astype(_F32)
    if not _cpu.torch_bits and exact.size < _BLOCK:
        vector = ...  # every element, without gathering them
    else:
        near = _near_midpoint(exact)
        if part is not None:
            near[part] = False
        vector = np.flatnonzero(near)
        if not vector.size:
            return out
    flat = out.reshape(-1) if vector is not Ellipsis else out
    b = base if vector is Ellipsis else np.ravel(base)[vector]
    y = exponent if vector is Ellipsis or not np.ndim(exponent) else np.ravel(exponent)[vector]
    e = exact if vector is Ellipsis else exact.reshape(-1)[vector]
    if _cpu.torch_bits:
        from ._sleef_powf import powf

        flat[vector] = powf(b, y)
    else:
        flat[vector] = _vector_powf(b, y, e)
    if part is not None and vector is Ellipsis:
        out[part] = exact[part]
    return out


def _vector_powf(base: np.ndarray, exponent, exact: np.ndarray) -> np.ndarray:
    """``_powf_close``, with the full replay where the power under- or overflows."""
    out = _powf_close(base, exponent, exact)
    replay = _outside_normal(exact)  # IEEE's special values, or an under- or overflow
    replay &= np.isfinite(base) & (base != 0)  # the special values: np.power's are SLEEF's
    if replay.any():
        from ._sleef_powf import powf

        out[replay] = powf(base[replay], exponent[replay] if np.ndim(exponent) else exponent)
    return out


_LN2_64 = 0.6931471805599453


def _powf_close(base: np.ndarray, exponent, exact: np.ndarray) -> np.ndarray:
    """SLEEF's powf with float64 in place of its double-float pairs (see above), a block of
    ``_BLOCK`` elements at a time (the float64 temporaries stay in the CPU's cache); elements
    whose ``exact`` power is outside float32's normal range take ``exact`` rounded (the caller
    replaces those with finite, nonzero bases by the full replay)."""
    flat, wide_exact = np.ravel(base), exact.reshape(-1)
    ys = np.ravel(exponent) if np.ndim(exponent) else exponent
    out = np.empty(flat.shape, _F32)
    size = min(flat.size, _BLOCK)
    wide, reduced, t = (np.empty(size, _F64) for _ in range(3))
    q, s, u = (np.empty(size, _F32) for _ in range(3))
    qi = np.empty(size, np.int32)
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, _BLOCK):
            n = min(_BLOCK, flat.size - start)
            wb, rb, tb, qb, sb, ub, ib = (wide[:n], reduced[:n], t[:n], q[:n], s[:n], u[:n],
                                          qi[:n])
            wb[...] = flat[start:start + n]
            np.abs(wb, out=wb)
            np.log(wb, out=wb)  # y * log|x|: SLEEF's logk and its product
            wb *= ys[start:start + n] if np.ndim(ys) else ys
            qb[...] = wb
            qb *= _R_LN2
            np.rint(qb, out=qb)
            rb[...] = qb
            rb *= -_LN2_64
            rb += wb  # the reduced argument
            sb[...] = rb
            ub[...] = _EXP_C32[0]
            for c in _EXP_C32[1:]:  # the polynomial in float32 with fused multiply-adds
                np.multiply(ub, sb, out=tb, dtype=_F64)
                tb += c
                ub[...] = tb
            np.square(rb, out=tb)
            tb *= ub
            tb += rb
            tb += 1.0
            ib[...] = qb
            sb[...] = tb
            np.ldexp(sb, ib, out=out[start:start + n])
    out = out.reshape(exact.shape)
    np.copysign(out, exact, out=out, casting="same_kind")  # a negative base's sign
    outside = _outside_normal(exact)
    outside |= np.isnan(out)  # 1 ** nan, (-1) ** inf: IEEE's 1, which float64's pow gives
    if outside.any():
        out[outside] = exact[outside]
    return out


def _outside_normal(exact: np.ndarray) -> np.ndarray:
    magnitude = exact.view(np.uint64) & _MAGNITUDE
    magnitude -= _NORMAL
    return magnitude >= _NORMAL_SPAN


def pow_scalar(a: np.ndarray, exponent: float) -> np.ndarray:
    """torch's ``a ** exponent`` for a float32 array and a real exponent other than those its
    pow kernel computes otherwise (0, 1, 2, 3, -2, 0.5, -0.5, -1): ``Vectorized<float>::pow``
    (SLEEF's powf with the exponent rounded to float32) in the vectorised loop,
    ``std::pow(double(x), exponent)`` rounded to float32 in the scalar one."""
    exponent = float(exponent)
    part = _scalar_part(a)
    if part is Ellipsis:
        return np.asarray(np.power(a, exponent, dtype=_F64).astype(_F32))
    single = float(_F32(exponent))
    out = _powf_where_needed(a, single, np.power(a, single, dtype=_F64), part)
    if part is not None and single != exponent:
        out[part] = np.power(a[part], exponent, dtype=_F64)
    return out


def _scalar_part_of(shape: tuple, operands: tuple, pair: int = _PAIR):
    """``_scalar_part`` for a result of ``shape`` computed from broadcast operands: one run
    when every operand is C-contiguous of that shape or a single element, else the runs
    TensorIterator makes of them (_layout.vectorized_elements; a boolean index). ``pair``:
    as _scalar_part's (_PAIR64 for float64 operands)."""
    first = operands[0]
    if all(op.shape == shape and op.strides == first.strides for op in operands):
        return _scalar_part(first, pair)
    n = int(np.prod(shape))
    if n < pair:
        return ...
    if all(op.size == 1 or (op.shape == shape and op.flags.c_contiguous) for op in operands):
        tail = n % pair
        return np.unravel_index(np.arange(n - tail, n), shape) if tail else None
    # the runs as TensorIterator orders and merges them
    vectorised = _layout.vectorized_elements(shape, operands, first.itemsize, avx512=True)
    if vectorised is None:
        return ...
    return None if vectorised.all() else ~vectorised


def pow_tensor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's ``a ** b`` for two float32 arrays (broadcast together): SLEEF's powf in the
    vectorised loop, ``std::pow`` of the two floats (glibc's powf: float64's pow rounded
    once) in the scalar one."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    part = _scalar_part_of(shape, (a, b))
    av, bv = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    if part is Ellipsis:
        return np.asarray(np.power(av, bv, dtype=_F64).astype(_F32))
    if av.ndim > 1 and av.strides == bv.strides and av.flags.f_contiguous \
            and not av.flags.c_contiguous:
        # operands in reversed dim order (a transpose): the same memory order, so the same
        # leftover, computed on the reversed views; the result keeps their layout as torch's
        return pow_tensor(av.T, bv.T).T
    av, bv = np.ascontiguousarray(av), np.ascontiguousarray(bv)
    return _powf_where_needed(av, bv, np.power(av, bv, dtype=_F64), part)


# -- |z| -------------------------------------------------------------------------------------------


def magnitude(a: np.ndarray) -> np.ndarray:
    """|a| with torch's bits: for complex, the C library's hypot (NumPy's own complex abs rounds
    the other way on a third of float64 inputs; see tests/ops/test_complex_abs_bits.py)."""
    return np.hypot(a.real, a.imag) if a.dtype.kind == "c" else np.abs(a)


# -- tanh's backward: grad * (1 - y * y) with the bracket fused, as torch's kernel ---------------

_ONE64 = np.float64(1.0)
_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64 into two 26-bit halves


def product_error(a, b, product):
    """The rounding error of the float64 ``product = a * b`` (``fma(a, b, -product)``),
    exactly representable: Dekker's tail from Veltkamp's splits of ``a`` and ``b``."""
    scaled = a * _SPLIT
    a_high = scaled - (scaled - a)
    a_low = a - a_high
    scaled = b * _SPLIT
    b_high = scaled - (scaled - b)
    b_low = b - b_high
    return ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low


def tanh_backward(grad: np.ndarray, y: np.ndarray, out=None, factor=None) -> np.ndarray:
    """torch's ``tanh_backward(grad, y)`` for real arrays of one dtype: ATen's vectorised
    kernel computes ``grad * (1 - y * y)`` with the bracket as one fused multiply-add, so
    ``1 - y * y`` is rounded once (where ``y`` is near +-1 the unfused form loses most of its
    bits: on tanh of [-7, 7] it is torch's result on 18% of float32 inputs, the fused one on
    100%). ``out``: where to write (may be ``grad``). ``factor``: ``tanh_backward_factor(y)``
    when the caller has it (Note: tanh's factor kept, elementwise.py)."""
    dtype = y.dtype
    if dtype == _F32:
        t = tanh_backward_factor(y) if factor is None else factor
        return np.multiply(grad, t, out, dtype=_F32, casting="same_kind")
    if dtype == _F64:
        return np.multiply(grad, tanh_backward_factor(y) if factor is None else factor, out=out)
    if dtype == np.float16 or is_bfloat16_array(y):  # ATen's reduced-float
        wide = y.astype(_F32)  # path converts to float, runs the float kernel, rounds once
        t = np.multiply(grad.astype(_F32), tanh_backward_factor(wide), dtype=_F32,
                        casting="same_kind")
        if out is None:
            return t.astype(dtype)
        np.copyto(out, t, casting="unsafe")
        return out
    return np.multiply(grad, 1 - y * y, out=out)


def _to_bfloat16(array):
    from ._bfloat16 import to_bfloat16

    return to_bfloat16(array)


def tanh_backward_factor(y: np.ndarray) -> np.ndarray:
    """``1 - y * y`` rounded once, for a float32 or float64 array ``y`` (tanh_backward's
    bracket). float32: in float64, where ``y * y`` is exact (the difference rounded there and
    then, by tanh_backward's product, to float32: two roundings that agree but on exact float32
    midpoints); float64: the product split into a head and an exact tail (Veltkamp/Dekker),
    the difference summed in double-double and rounded once."""
    if y.dtype == _F32:
        # (a cast and a float64 square cost less than one mixed-type product; no step writes
        # into its own operand: on one element NumPy takes twice as long for that)
        t = y.astype(_F64)
        square = np.multiply(t, t)
        if t.ndim:
            np.subtract(_ONE64, square, t)
        else:
            t = np.subtract(_ONE64, square)  # 0-d: NumPy's scalars
        return t
    p = y * y
    scaled = y * _SPLIT
    high = scaled - (scaled - y)
    low = y - high
    tail = high * high - p  # p + tail + 2 high low + low low == y * y exactly
    tail += 2 * high * low
    tail += low * low
    head = 1.0 - p
    tail = ((1.0 - head) - p) - tail  # 1 - p - head exactly, minus the product's tail
    head += tail
    return head


# -- fused multiply-add -------------------------------------------------------------------------


def fma(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once, as ATen's vectorised kernels compute it (``vec::fmadd``, and
    the compiler's contraction of ``x + y * z`` in their scalar loops): lerp, addcmul. Real
    floating operands of one dtype (arrays or scalars, broadcast together). float32: the
    product is exact in float64 and the sum is rounded there, then to float32 (two roundings
    that differ only on exact float32 midpoints); float64: the product split into a head and
    an exact tail (Veltkamp/Dekker), summed with ``c`` as double-double and rounded once.
    Other dtypes (float16: torch computes it in float32 and rounds the result) go through
    float32."""
    dtype = np.result_type(a, b, c)
    if dtype == _F64:
        a, b, c = np.asarray(a, _F64), np.asarray(b, _F64), np.asarray(c, _F64)
        p = a * b
        tail = product_error(a, b, p)
        total = p + c  # p + c == total + error exactly (Knuth's two-sum)
        virtual = total - p
        error = (p - (total - virtual)) + (c - virtual)
        out = np.asarray(total + (error + tail))
        zero = out == 0
        if zero.any():  # an exact zero: p + c has IEEE's sign (-0 only for -0 + -0)
            out = np.where(zero, total, out)
        if not np.isfinite(out).all():  # inf or NaN operands, or a split that overflowed
            plain = np.asarray(p + c)
            out = np.where(np.isfinite(out), out, plain)
        return out
    wide = np.multiply(a, b, dtype=_F64)
    if np.shape(c) == wide.shape:
        wide += c
    else:  # c broadcasts the product to a larger shape
        wide = np.add(wide, c)
    narrow = np.asarray(wide).astype(_F32)
    return narrow if dtype == _F32 else narrow.astype(dtype)


_FMA_BLOCK = 16384  # float32 elements per pass of fma_into: its float64 buffer stays in cache


def complex_divide(x, y) -> np.ndarray:
    """``x / y`` for complex arrays (broadcast together, of one complex dtype) as c10::complex's
    division computes it, the scalar loop of torch's div and reciprocal kernels: Smith's
    scaled formula (NumPy's too), whose products the compiler contracts into fma (NumPy's
    rounds each: another last bit on ~8% of quotients), and (complex) infinity or NaN for a
    zero divisor."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    real = np.float64 if x.dtype == np.complex128 else np.float32
    a, b, c, d = x.real, x.imag, y.real, y.imag
    with np.errstate(all="ignore"):
        wide = np.abs(c) >= np.abs(d)
        zero = wide & (c == 0) & (d == 0)
        rat = np.where(wide, d / c, c / d)
        scl = real(1) / np.where(wide, fma(d, rat, c), fma(c, rat, d))
        re = np.where(wide, fma(b, rat, a), fma(a, rat, b)) * scl
        im = np.where(wide, fma(-a, rat, b), fma(b, rat, -a)) * scl
        re = np.where(zero, a / np.abs(c), re)
        im = np.where(zero, b / np.abs(d), im)
    out = np.empty_like(x + y)  # (the operands' layout, as NumPy's and torch's kernels)
    out.real = re
    out.imag = im
    return out


def _inner_loops(x, y, out):
    """``(x, y, out)`` as (loops, run) arrays, one row per run of TensorIterator's inner loop
    over an elementwise op's output ``out``: its axes in memory order (``out`` has the
    operands' order, NumPy's K order, as torch's output), the innermost ones coalesced while
    every operand steps through them as one; None for a layout leafgrad does not follow.
    A fourth item tells which operand, if any, stays put along the run (0 or 1: a scalar to
    the loop, a 0-d operand or one broadcast along the innermost axis; else None)."""
    if not out.ndim:
        return np.reshape(x, (1, 1)), np.reshape(y, (1, 1)), out.reshape(1, 1), None
    order = np.argsort([-step for step in out.strides], kind="stable")
    x, y = (np.broadcast_to(a, out.shape).transpose(order) for a in (x, y))
    out = out.transpose(order)
    if not out.flags.c_contiguous:
        return None
    shape = out.shape
    run = shape[-1]
    for axis in range(len(shape) - 2, -1, -1):
        if not all(a.strides[axis] == a.strides[axis + 1] * shape[axis + 1] or shape[axis] == 1
                   for a in (x, y)):
            break
        run *= shape[axis]
    scalar = None
    if shape[-1] > 1:
        scalar = 0 if x.strides[-1] == 0 else 1 if y.strides[-1] == 0 else None
    return x.reshape(-1, run), y.reshape(-1, run), out.reshape(-1, run), scalar


def complex_true_divide(x, y) -> np.ndarray:
    """torch's div kernel for complex tensors: ``complex_divide`` on every element but, for
    complex64, the last of each odd-length run of the kernel's inner loop (_inner_loops),
    which torch's compiled epilogue computes with fma in the divisor's sum only (its
    numerators rounded product then sum). Measured against torch: x / x, broadcast rows and
    columns, 0-d and Python scalar operands, transposed operands, lengths 1 to 39."""
    out = complex_divide(x, y)
    if out.dtype != np.complex64 or not out.size:
        return out
    loops = _inner_loops(np.asarray(x), np.asarray(y), out)
    if loops is not None and loops[2].shape[1] % 2:
        _last_of_run(loops[0][:, -1], loops[1][:, -1], loops[2][:, -1])
    return out


def complex_multiply(x, y) -> np.ndarray:
    """torch's mul kernel for complex tensors (of one dtype, broadcast together). Its vector
    loop rounds each product (ac - bd, ad + bc: Vectorized's mul, hsub); the epilogue of each
    inner-loop run (_inner_loops) after the last two-vector step runs one more vector of
    those if a vector's worth remains, then fma(a, c, -bd), fma(a, d, bc) (the compiler's
    contraction), and for complex64 an odd last element with rounded products again.
    Measured against torch for every remainder (1-15 complex64, 1-7 complex128); NumPy's
    product rounds as the fma form everywhere. With a scalar second operand (a number, a 0-d
    tensor, a broadcast column: _inner_loops) the complex64 epilogue contracts only the 2nd
    to 5th of the last 5-7 elements; left: a scalar first operand's epilogue (another
    contraction), rounded as the vector loop's."""
    x, y = np.asarray(x), np.asarray(y)
    a, b, c, d = x.real, x.imag, y.real, y.imag
    with np.errstate(all="ignore"):
        out = np.empty_like(x + y)
        out.real = a * c - b * d
        out.imag = a * d + b * c
    if not out.size:
        return out
    loops = _inner_loops(x, y, out)
    if loops is None:
        return out
    xs, ys, outs, scalar = loops
    if scalar == 0:
        return out
    single = out.dtype == np.complex64
    vector = 8 if single else 4  # complex numbers per 512-bit vector
    run = outs.shape[1]
    first = run - run % (2 * vector)
    if run - first >= vector:
        first += vector
    if scalar == 1 and single:
        first, last = (first + 1, first + 5) if run - first >= 5 else (run, run)
    else:
        last = run - 1 if single and (run - first) % 2 else run
    if first < last:
        a, b = xs[:, first:last].real, xs[:, first:last].imag
        c, d = ys[:, first:last].real, ys[:, first:last].imag
        real = a.dtype.type
        with np.errstate(all="ignore"):
            outs[:, first:last].real = fma(a, c, -(b * d)).astype(real)
            outs[:, first:last].imag = fma(a, d, b * c).astype(real)
    return out


def _last_of_run(x, y, out):
    """The epilogue's quotients (complex_true_divide) written into ``out``."""
    a, b = np.real(x), np.imag(x)
    c, d = np.real(y), np.imag(y)
    with np.errstate(all="ignore"):
        wide = np.abs(c) >= np.abs(d)
        zero = wide & (c == 0) & (d == 0)
        rat = np.where(wide, d / c, c / d)
        scl = np.float32(1) / np.where(wide, fma(d, rat, c), fma(c, rat, d))
        out.real = np.where(zero, a / np.abs(c), np.where(wide, a + b * rat, a * rat + b) * scl)
        out.imag = np.where(zero, b / np.abs(d), np.where(wide, b - a * rat, b * rat - a) * scl)
    return out


def fma_into(a, b, c: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[...] = fma(a, b, c)`` (``a`` may be a number; ``out`` may be ``c`` or ``b``).
    For float32 arrays of one shape, C-contiguous, the float64 steps run block by block
    through one cache-sized buffer (three NumPy calls per block, no full-size temporaries:
    an optimizer's update over a large parameter runs at about twice a plain pass)."""
    arrays = (b, c, out) if np.ndim(a) == 0 else (a, b, c, out)
    if not (out.dtype == _F32 and all(type(x) is np.ndarray and x.dtype == _F32
                                      and x.shape == out.shape and x.flags.c_contiguous
                                      for x in arrays)):
        out[...] = fma(a, b, c)
        return out
    flat_a = a if np.ndim(a) == 0 else a.reshape(-1)
    flat_b, flat_c, flat_out = b.reshape(-1), c.reshape(-1), out.reshape(-1)
    size = flat_out.size
    wide = np.empty(min(size, _FMA_BLOCK), _F64)
    for start in range(0, size, _FMA_BLOCK):
        stop = min(start + _FMA_BLOCK, size)
        w = wide[:stop - start]
        np.multiply(flat_a if np.ndim(a) == 0 else flat_a[start:stop], flat_b[start:stop],
                    out=w, dtype=_F64)
        np.add(w, flat_c[start:stop], out=w)
        np.copyto(flat_out[start:stop], w, casting="same_kind")
    return out


# -- add/sub with alpha: one fused multiply-add, as torch's kernel --------------------------------


def _ufunc_layout(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """An empty array of ``a`` and ``b``'s broadcast shape, laid out as a ufunc's output."""
    operands = np.nditer([a, b, None], ["refs_ok", "zerosize_ok"],
                         [["readonly"], ["readonly"], ["writeonly", "allocate"]],
                         op_dtypes=[None, None, a.dtype], order="K")
    return operands.operands[2]


def scaled_update(ufunc, a: np.ndarray, b: np.ndarray, alpha, out=None):
    """torch's ``add(a, b, alpha=alpha)`` (``ufunc`` np.add) or ``sub`` (np.subtract) of real
    arrays. ATen's add kernel computes ``a + alpha * b`` as one fused multiply-add,
    ``fmadd(b, alpha, a)`` with ``alpha`` in the operands' dtype (sub: ``-alpha``); MKL's
    ``?axpy`` is the same arithmetic, every bit (ops/_blas.axpy), so where the ``mkl``
    package is installed the update runs there: one pass, in place when ``out`` is ``a``
    (SGD's ``p.add_(g, alpha=-lr)``; rounding the product first gave torch's bits on 99.6%
    of 1,000 float32 parameters). Without MKL: the scaled operand, then the add (NumPy has
    no fused multiply-add, and replaying one in float64 tripled the cost of an SGD step).
    ``out``: where to write (may be ``a``); None: a new array of the broadcast shape."""
    if type(b) is not np.ndarray:  # a wrapped number: the tensor's dtype, as torch's kernel
        b = np.asarray(b, dtype=a.dtype if a.dtype.kind == "f" else None)
    given_b = b
    if (not _blas.off() and a.dtype.char in "fd" and b.dtype == a.dtype
            and type(alpha) is not complex and _mkl.available()):
        shape = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
        target = out if (out is a and a.flags.c_contiguous and a.shape == shape) else None
        result = None
        if target is None:
            if out is None and not (a.flags.c_contiguous and b.flags.c_contiguous):
                # Note: output layout (ops/_layout.py): the result is ordered like the
                # operands, as the ufunc (and torch's TensorIterator) would order it; the
                # update runs on its dims permuted into row-major order
                result = _ufunc_layout(a, b)
            if result is not None and not result.flags.c_contiguous:
                order = sorted(range(result.ndim), key=lambda d: -result.strides[d])
                np.copyto(result, a)
                target = result.transpose(order)
                b = np.broadcast_to(b, shape).transpose(order)
                shape = target.shape
            else:
                result = target = np.array(np.broadcast_to(a, shape), order="C")
        source = b if (b.shape == shape and b.flags.c_contiguous) else np.ascontiguousarray(
            np.broadcast_to(b, shape))
        scale = -alpha if ufunc is np.subtract else alpha
        if _blas.axpy(scale, source, target):
            if out is not None and target is not out:
                np.copyto(out, target, casting="unsafe")
                return out
            return result if out is None else target
        if a.dtype.char in _blas._FUSES and not _blas._FUSES[a.dtype.char] \
                and np.isfinite(alpha):
            # MKL is here but its axpy rounds twice on this processor (_blas.axpy_fuses): the
            # fused multiply-add replayed (fma), torch's bits at a few passes more
            b = given_b
            scale = a.dtype.type(-alpha if ufunc is np.subtract else alpha)
            if out is a and _numba_kernels.active and _numba_kernels.fma_update(a, b, scale):
                return out  # a compiled loop, same bits (_numba_kernels)
            if a.dtype == _F32 and out is not None and out.shape == a.shape == b.shape:
                # fma's float32 form with its last two passes as one: the exact product
                # widened, then the sum rounded once straight into ``out`` (SGD's
                # ``p.add_(g, alpha=-lr)``: a 256x784 weight 288 -> 235 us, same bits)
                wide = np.multiply(b, scale, dtype=_F64)
                np.add(wide, a, out=out, casting="same_kind")
                return out
            fused = fma(b, scale, a)
            if out is None:  # laid out as the ufunc's result would be (Note: output layout)
                out = _ufunc_layout(a, b)
            np.copyto(out, fused, casting="unsafe")
            return out
    scaled = b * alpha
    if out is None:
        return ufunc(a, scaled)
    return ufunc(a, scaled, out=out, casting="unsafe")


# -- softmax and log_softmax over the last dim, as ATen's vectorised kernels -----------------------

_LANES = _isa.lanes(4)  # float32 lanes of torch's Vectorized<float> here (16 or 8: ops/_isa.py)
_TREE = [np.array([i ^ step for i in range(_LANES)])
         for step in (8, 4, 2, 1) if step < _LANES]  # the halving shuffles


def reduce_all_sum(rows: np.ndarray) -> np.ndarray:
    """torch's ``vec::reduce_all`` (and ``map_reduce_all``) sum of each row of a float32
    matrix: 16 lane accumulators fed vector by vector, the last partial vector added to its
    first lanes only, then the lanes folded in halves (8, 4, 2, 1 apart under AVX-512, 4, 2, 1
    under AVX2: the shuffles); a row shorter than a vector is summed in order."""
    count, size = rows.shape
    if size < _LANES:
        total = rows[:, 0].copy()
        for j in range(1, size):
            total += rows[:, j]
        return total
    full = size - size % _LANES
    # NumPy adds along a non-innermost axis strictly in order (pairwise summation is only
    # used along the innermost one): the vectors laid out as rows of one matrix, (vector,
    # row * lane), and summed over its first axis add lane by lane. (Summing axis 1 of the
    # (row, vector, lane) view gives the same bits at ~10x the cost: NumPy loops per lane.)
    blocks = full // _LANES
    stacked = np.ascontiguousarray(
        rows[:, :full].reshape(count, blocks, _LANES).transpose(1, 0, 2))
    lanes = stacked.reshape(blocks, count * _LANES).sum(axis=0).reshape(count, _LANES)
    rest = size - full
    if rest:
        lanes[:, :rest] += rows[:, full:]
    for index in _TREE:
        lanes = lanes + lanes[:, index]
    return lanes[:, 0]


def exact_softmax(a: np.ndarray) -> bool:
    """Whether softmax/log_softmax of ``a`` over its last dim takes torch's kernel's steps
    (float32): the row maximum, SLEEF's expf (``softmax_exp``), the lane-ordered sum and the
    product with its reciprocal; every bit of torch's with ``backends.cpu.torch_bits``.
    Without it only up to ``_EXP64_LIMIT`` elements: beyond, the kernel's passes cost up to
    2x NumPy's formula (a (64, 1000) cross-entropy step), which then runs instead."""
    if a.dtype != _F32 or a.ndim < 1 or a.shape[-1] == 0:
        return False
    return _cpu.torch_bits or a.size <= _EXP64_LIMIT


_EXP64_LIMIT = 16384  # elements: beyond, softmax takes NumPy's formula unless torch_bits


def softmax_exp(x: np.ndarray) -> np.ndarray:
    """SLEEF's expf as torch's softmax kernels call it, on ``x <= 0`` (or NaN): every bit, by
    the replay of ops/_softmax_bits.py (float64's exp rounded once, which ran here before, is
    SLEEF's value on ~91% of inputs: torch's log_softmax on 96-99% of elements, a (32, 1000)
    cross-entropy's input gradient on ~9%)."""
    return _softmax_bits.expf(x, nonpositive=True)


def softmax_lastdim(a: np.ndarray) -> np.ndarray:
    """torch's float32 softmax over the last dim of a C-contiguous array (ATen's
    _vec_softmax_lastdim): the row maximum, SLEEF's expf of x - max, the lane-ordered sum,
    and the products with its reciprocal (not quotients)."""
    if _numba_kernels.active and a.dtype == _F32 and a.size:
        return _numba_kernels.softmax_lastdim(a)  # a compiled loop (_numba_kernels)
    size = a.shape[-1]
    rows = a.reshape(-1, size)
    exps = softmax_exp(rows - rows.max(axis=1, keepdims=True))
    scale = _F32(1) / reduce_all_sum(exps)
    exps *= scale[:, None]
    return exps.reshape(a.shape)


_LANES64 = _isa.lanes(8)  # float64 lanes of torch's Vectorized<double> here (8 or 4)


def reduce_all_sum64(rows: np.ndarray) -> np.ndarray:
    """torch's ``vec::reduce_all`` sum of each row of a float64 matrix: lane accumulators fed
    vector by vector, the last partial vector added to its first lanes, then the lanes added
    one after another (Vectorized<double> has no shuffle fold: vec_reduce_all's loop); a row
    shorter than a vector is summed in order."""
    count, size = rows.shape
    lanes = _LANES64 if size >= _LANES64 else size
    full = size - size % lanes
    acc = rows[:, :lanes].copy()
    for start in range(lanes, full, lanes):
        acc += rows[:, start:start + lanes]
    if full < size:
        acc[:, :size - full] += rows[:, full:]
    total = acc[:, 0].copy()
    for j in range(1, lanes):
        total += acc[:, j]
    return total


def softmax_lastdim64(a: np.ndarray) -> np.ndarray:
    """torch's float64 softmax over the last dim of a C-contiguous array (ATen's
    _vec_softmax_lastdim): the row maximum, SLEEF's expd of x - max (_softmax_bits.expd), the
    lane-ordered sum and the products with its reciprocal. NumPy's exp, the pairwise sum and
    the quotients, before, gave another last bit in about 1 element in 10."""
    size = a.shape[-1]
    rows = a.reshape(-1, size)
    exps = _softmax_bits.expd(rows - rows.max(axis=1, keepdims=True))
    with np.errstate(all="ignore"):
        scale = 1.0 / reduce_all_sum64(exps)
    exps *= scale[:, None]
    return exps.reshape(a.shape)


def log_softmax_lastdim64(a: np.ndarray):
    """torch's float64 log_softmax over the last dim (ATen's _vec_log_softmax_lastdim):
    ``(x - max) - log(sum(exp(x - max)))`` with SLEEF's expd, the lane-ordered sum and SLEEF's
    logd (_softmax_bits). Returns the result, the exponentials and the row sums (shaped to
    broadcast against the result), as log_softmax_lastdim."""
    size = a.shape[-1]
    rows = a.reshape(-1, size)
    shifted = rows - rows.max(axis=1, keepdims=True)
    exps = _softmax_bits.expd(shifted)
    total = reduce_all_sum64(exps)
    shifted -= _softmax_bits.logd(total)[:, None]
    keep = a.shape[:-1] + (1,)
    return shifted.reshape(a.shape), exps.reshape(a.shape), total.reshape(keep)


def exact_softmax64(a: np.ndarray) -> bool:
    """Whether a float64 softmax over the last dim of ``a`` takes torch's steps
    (softmax_lastdim64): up to _softmax_bits.EXPD_LIMIT elements, every size with
    ``backends.cpu.torch_bits``."""
    return (a.dtype == _F64 and a.ndim >= 1 and a.shape[-1] > 0 and a.size > 0
            and (a.size <= _softmax_bits.EXPD_LIMIT or _cpu.torch_bits))


def log_softmax_lastdim(a: np.ndarray):
    """torch's float32 log_softmax over the last dim (ATen's serial_vec_log_softmax_lastdim
    _range): ``(x - max) - log(sum(exp(x - max)))`` with SLEEF's expf, the lane-ordered sum
    and SLEEF's logf (ops/_softmax_bits.py). Returns the result, the
    exponentials and the row sums (shaped to broadcast against the result)."""
    if _numba_kernels.active and a.dtype == _F32 and a.size:
        return _numba_kernels.log_softmax_lastdim(a)  # a compiled loop (_numba_kernels)
    size = a.shape[-1]
    rows = a.reshape(-1, size)
    shifted = rows - rows.max(axis=1, keepdims=True)
    exps = softmax_exp(shifted)
    total = reduce_all_sum(exps)
    shifted -= _softmax_bits.logf(total, at_least_one=True)[:, None]
    keep = a.shape[:-1] + (1,)
    return shifted.reshape(a.shape), exps.reshape(a.shape), total.reshape(keep)


def _fused_tail(rows: int) -> bool:
    """Whether torch's softmax backward fuses the last partial vector's multiply-adds: where
    at::parallel_for calls the kernel directly (one thread, or one row) the compiled kernel
    contracts them; where it goes through OpenMP (more threads and more than one row, however
    few: the OpenMP-outlined copy of the kernel) the products are rounded first (measured on
    1 to 400 rows of 18 to 1001 elements; the other way 10-25% of rows differed)."""
    from .._info import get_num_threads

    return rows == 1 or get_num_threads() == 1


def softmax_backward_lastdim(grad: np.ndarray, result: np.ndarray) -> np.ndarray:
    """torch's float32 softmax backward over the last dim (ATen's
    _vec_host_softmax_backward_lastdim): ``(grad - sum(grad * result)) * result``, the sum
    ``vec::map2_reduce_all``'s: the rounded products of the whole vectors added lane by lane,
    the last partial vector's products fused into their lanes' additions on torch's
    single-thread path (``_fused_tail``) and rounded first on its multi-thread one, then the
    lanes folded as ``reduce_all_sum``'s; a row shorter than a vector adds its rounded products
    in order."""
    size = result.shape[-1]
    rows = np.ascontiguousarray(result).reshape(-1, size)
    g = np.ascontiguousarray(grad, dtype=_F32).reshape(-1, size)
    rest = size % _LANES
    if size < _LANES or not rest or not _fused_tail(rows.shape[0]):
        total = reduce_all_sum(g * rows)
    else:
        full = size - rest
        lanes = g[:, :_LANES] * rows[:, :_LANES]
        for start in range(_LANES, full, _LANES):
            lanes += g[:, start:start + _LANES] * rows[:, start:start + _LANES]
        tail = g[:, full:].astype(_F64) * rows[:, full:]
        tail += lanes[:, :rest]
        lanes[:, :rest] = tail
        for index in _TREE:
            lanes = lanes + lanes[:, index]
        total = lanes[:, 0]
    return ((g - total[:, None]) * rows).reshape(result.shape)


def softmax_backward_lastdim64(grad: np.ndarray, result: np.ndarray) -> np.ndarray:
    """torch's float64 softmax backward over the last dim: ``(grad - sum(grad * result)) *
    result`` with the rounded products added in Vectorized<double>'s lanes, then the lanes in
    order (reduce_all_sum64). Unlike float32's, no product is fused into its addition, on one
    thread or more (measured on rows of 1 to 100 elements); BLAS's sum, before, gave another
    last bit."""
    size = result.shape[-1]
    rows = np.ascontiguousarray(result).reshape(-1, size)
    g = np.ascontiguousarray(grad, dtype=_F64).reshape(-1, size)
    total = reduce_all_sum64(g * rows)
    return ((g - total[:, None]) * rows).reshape(result.shape)


def log_softmax_backward_lastdim64(grad: np.ndarray, result: np.ndarray) -> np.ndarray:
    """torch's float64 log_softmax backward over the last dim: ``grad - exp(result) *
    sum(grad)`` with SLEEF's expd, the lane-ordered sum and one fused multiply-subtract
    (rounded once: measured on 1 and 2 threads; the product rounded first gave another last
    bit on ~1 element in 8)."""
    size = result.shape[-1]
    g = np.ascontiguousarray(grad, dtype=_F64).reshape(-1, size)
    total = reduce_all_sum64(g)[:, None]
    with np.errstate(all="ignore"):
        exps = _softmax_bits.expd(np.ascontiguousarray(result).reshape(-1, size))
        # (fma, not _softmax_bits._fma64: an exact zero keeps IEEE's sign, so a -0. gradient
        # minus exp * +0. stays -0., as torch's; seeds 211538, 213562)
        out = fma(-exps, total, g)
    return out.reshape(result.shape)


def log_softmax_backward_lastdim(grad: np.ndarray, result: np.ndarray) -> np.ndarray:
    """torch's float32 log_softmax backward over the last dim (ATen's
    _vec_host_softmax_backward_lastdim): ``grad - exp(result) * sum(grad)`` with SLEEF's expf,
    the lane-ordered sum and one fused multiply-subtract (rounded once; replayed in float64
    as the module doc says)."""
    if _numba_kernels.active and result.dtype == _F32 and result.size:
        return _numba_kernels.log_softmax_backward_lastdim(grad, result)  # (_numba_kernels)
    size = result.shape[-1]
    g = np.ascontiguousarray(grad, dtype=_F32).reshape(-1, size)
    total = reduce_all_sum(g)[:, None].astype(_F64)
    with np.errstate(all="ignore"):
        exps = softmax_exp(np.ascontiguousarray(result).reshape(-1, size))
    out = g.astype(_F64)
    out -= exps * total
    return out.astype(_F32).reshape(result.shape)


# -- softmax and log_softmax over another dim, as ATen's _vec_softmax / _vec_logsoftmax ---------
# The input is viewed as (outer, dim, inner). torch's kernels vectorise along ``inner``: the
# positions of whole vectors (the first ``inner - inner % lanes``) take SLEEF's expf, the others
# its scalar loop's ``std::exp`` (glibc's expf: float64's exp rounded once, see sigmoid); the
# sums over ``dim`` are float32 additions in order, as NumPy's reduction along a non-innermost
# axis adds. softmax divides by the sum (not a product with its reciprocal); log_softmax takes
# the maximum ignoring NaN (its ``blendv`` on ``x > max``) and SLEEF's logf of every sum.


def _split_dim(a: np.ndarray, dim: int):
    dim %= a.ndim
    outer = int(np.prod(a.shape[:dim], dtype=np.int64))
    inner = int(np.prod(a.shape[dim + 1:], dtype=np.int64))
    return a.reshape(outer, a.shape[dim], inner), inner - inner % _LANES


def _exp_split(shifted: np.ndarray, vector: int) -> np.ndarray:
    """exp of the (outer, dim, inner) ``shifted`` (<= 0 or NaN): SLEEF's in the first
    ``vector`` inner positions, float64's rounded in the others."""
    out = np.empty_like(shifted)
    if vector:
        out[:, :, :vector] = softmax_exp(np.ascontiguousarray(shifted[:, :, :vector]))
    if vector < shifted.shape[2]:
        with np.errstate(all="ignore"):
            out[:, :, vector:] = _libm.exp(shifted[:, :, vector:])  # glibc's expf
    return out


def _softmax_vector_positions(outer: int, inner: int, threads: int,
                              lanes: int = _LANES) -> np.ndarray:
    """Which (outer, inner) positions _vec_softmax computes in vectors: it splits the
    ``outer * inner`` positions into one run per thread (at::parallel_for, a grain of one
    position) and walks each run taking whole vectors while they fit both in the row and in
    the run; the rest of a row or run is its scalar tail."""
    total = outer * inner
    parts = max(1, min(threads, total))
    size = -(-total // parts)
    mask = np.zeros((outer, inner), dtype=bool)
    columns = np.arange(inner)
    for begin in range(0, total, size):
        end = min(total, begin + size)
        rows = np.arange(begin // inner, (end - 1) // inner + 1)
        first = np.maximum(begin - rows * inner, 0)
        stop = np.minimum(inner, end - rows * inner)
        last = first + (stop - first) // lanes * lanes
        mask[rows] |= (columns >= first[:, None]) & (columns < last[:, None])
    return mask


def softmax_dim(a: np.ndarray, dim: int) -> np.ndarray:
    """torch's float32 softmax over ``dim`` (not the last) of a C-contiguous array."""
    return _softmax_dim(a, dim, softmax_exp, _LANES)


def _softmax_dim(a: np.ndarray, dim: int, vector_exp, lanes: int) -> np.ndarray:
    """softmax over a dim that is not the last: ``vector_exp`` (SLEEF's, in the vectors of
    ``lanes``) and glibc's exp (``_libm.exp``) at the positions a thread's run leaves to the
    scalar loop, then the quotient by the sums."""
    from .._info import get_num_threads

    x, _ = _split_dim(a, dim)
    shifted = x - x.max(axis=1, keepdims=True)
    exps = vector_exp(shifted)
    scalar = ~_softmax_vector_positions(x.shape[0], x.shape[2], get_num_threads(), lanes)
    if scalar.any():
        rows, columns = np.nonzero(scalar)
        with np.errstate(all="ignore"):
            exps[rows, :, columns] = _libm.exp(shifted[rows, :, columns])
    exps /= exps.sum(axis=1, keepdims=True)
    return exps.reshape(a.shape)


def log_softmax_dim(a: np.ndarray, dim: int):
    """torch's float32 log_softmax over ``dim`` (not the last) of a C-contiguous array; returns
    the result, the exponentials and the sums (shaped to broadcast against the result)."""
    x, vector = _split_dim(a, dim)
    high = np.fmax.reduce(x, axis=1, keepdims=True)
    shifted = x - high
    exps = _exp_split(shifted, vector)
    total = exps.sum(axis=1, keepdims=True)
    shifted -= _softmax_bits.logf(total, at_least_one=True)
    keep = list(a.shape)
    keep[dim % a.ndim] = 1
    return shifted.reshape(a.shape), exps.reshape(a.shape), total.reshape(keep)


def softmax_dim64(a: np.ndarray, dim: int) -> np.ndarray:
    """torch's float64 softmax over ``dim`` (not the last) of a C-contiguous array: as
    float32's (softmax_dim), with SLEEF's expd in Vectorized<double>'s vectors and glibc's exp
    in the scalar tails (generated-program seed 202532's kind: NumPy's formula gave another
    last bit)."""
    return _softmax_dim(a, dim, _softmax_bits.expd, _LANES64)


def log_softmax_dim64(a: np.ndarray, dim: int):
    """torch's float64 log_softmax over ``dim`` (not the last): as float32's
    (log_softmax_dim), with SLEEF's expd in the vectors, glibc's exp in the scalar tails and
    SLEEF's logd of the sums (generated-program seed 202532)."""
    x, _ = _split_dim(a, dim)
    vector = x.shape[2] - x.shape[2] % _LANES64
    high = np.fmax.reduce(x, axis=1, keepdims=True)
    shifted = x - high
    exps = np.empty_like(shifted)
    if vector:
        exps[:, :, :vector] = _softmax_bits.expd(np.ascontiguousarray(shifted[:, :, :vector]))
    if vector < x.shape[2]:
        with np.errstate(all="ignore"):
            exps[:, :, vector:] = _libm.exp(shifted[:, :, vector:])  # glibc's exp
    total = exps.sum(axis=1, keepdims=True)
    shifted -= _softmax_bits.logd(total)
    keep = list(a.shape)
    keep[dim % a.ndim] = 1
    return shifted.reshape(a.shape), exps.reshape(a.shape), total.reshape(keep)


# torch's backward kernels over another dim (_vec_softmax_backward, _vec_log_softmax_backward)
# accumulate ``sum += grad * output`` over ``dim`` and compute ``grad - exp(output) * sum`` with
# the multiply-add contracted into one fused operation in the vectors and the scalar tails alike
# (the unfused forms gave torch's softmax gradient on 78% of elements, the fused ones on all).
SOFTMAX_BACKWARD_DIM_LIMIT = 256  # dim sizes: the fused sum is a Python loop over dim


def softmax_backward_dim(grad: np.ndarray, result: np.ndarray, dim: int) -> np.ndarray:
    """torch's float32 softmax backward over ``dim`` (not the last; its size at most
    SOFTMAX_BACKWARD_DIM_LIMIT): ``(grad - sum(grad * result)) * result``, the sum of fused
    multiply-adds in order from +0 (float64: _softmax_backward_dim64)."""
    if result.dtype == _F64:
        return _softmax_backward_dim64(grad, result, dim)
    g, _ = _split_dim(np.ascontiguousarray(grad, dtype=_F32), dim)
    y, _ = _split_dim(np.ascontiguousarray(result), dim)
    total = np.zeros((y.shape[0], 1, y.shape[2]), _F32)
    wide = np.empty(total.shape, _F64)
    for d in range(y.shape[1]):
        np.multiply(g[:, d:d + 1], y[:, d:d + 1], out=wide, dtype=_F64)
        wide += total
        np.copyto(total, wide, casting="same_kind")
    out = g - total
    out *= y
    return out.reshape(result.shape)


def _softmax_backward_dim64(grad: np.ndarray, result: np.ndarray, dim: int) -> np.ndarray:
    """torch's float64 softmax backward over ``dim`` (not the last; its size at most
    SOFTMAX_BACKWARD_DIM_LIMIT): as float32's, ``(grad - sum(grad * result)) * result`` with
    the sum of fused multiply-adds in order from +0 (the products rounded first gave another
    last bit: generated-program seeds 162316, 182112, 185488)."""
    g, _ = _split_dim(np.ascontiguousarray(grad, dtype=_F64), dim)
    y, _ = _split_dim(np.ascontiguousarray(result), dim)
    total = np.zeros((y.shape[0], 1, y.shape[2]), _F64)
    for d in range(y.shape[1]):
        total = fma(g[:, d:d + 1], y[:, d:d + 1], total)
    out = g - total
    out *= y
    return out.reshape(result.shape)


def _log_softmax_backward_dim64(grad: np.ndarray, result: np.ndarray, dim: int) -> np.ndarray:
    """torch's float64 log_softmax backward over ``dim`` (not the last): as float32's, ``grad -
    exp(result) * sum(grad)`` with the sum in order from +0, SLEEF's exp in the vectors (of
    Vectorized<double>'s lanes) and glibc's in the scalar tails, the product and difference
    one fused operation (seeds 183112, 202532)."""
    g, _ = _split_dim(np.ascontiguousarray(grad, dtype=_F64), dim)
    y, _ = _split_dim(np.ascontiguousarray(result), dim)
    vector = y.shape[2] - y.shape[2] % _LANES64
    total = g.sum(axis=1, keepdims=True)
    total += 0.0  # (a sum from +0 is never -0)
    with np.errstate(all="ignore"):
        exps = np.empty(y.shape, _F64)
        if vector:
            exps[:, :, :vector] = _softmax_bits.expd(np.ascontiguousarray(y[:, :, :vector]))
        if vector < y.shape[2]:
            exps[:, :, vector:] = _libm.exp(y[:, :, vector:])  # glibc's exp
        out = fma(-exps, total, g)
    return out.reshape(result.shape)


def log_softmax_backward_dim(grad: np.ndarray, result: np.ndarray, dim: int) -> np.ndarray:
    """torch's float32 log_softmax backward over ``dim`` (not the last): ``grad - exp(result) *
    sum(grad)``, the sum in order from +0, the exp SLEEF's in the vectors and glibc's (float64's
    rounded) in the scalar tails, the product and difference one fused operation (float64:
    _log_softmax_backward_dim64)."""
    if result.dtype == _F64:
        return _log_softmax_backward_dim64(grad, result, dim)
    g, vector = _split_dim(np.ascontiguousarray(grad, dtype=_F32), dim)
    y, _ = _split_dim(np.ascontiguousarray(result), dim)
    total = g.sum(axis=1, keepdims=True)
    total += _F32(0)  # (a sum from +0 is never -0)
    with np.errstate(all="ignore"):
        exps = softmax_exp(y) if vector else np.empty(y.shape, _F32)
        if vector < y.shape[2]:
            exps[:, :, vector:] = _libm.exp(y[:, :, vector:])  # glibc's expf
        wide = np.multiply(exps, total, dtype=_F64)
        np.subtract(g, wide, out=wide)
    return wide.astype(_F32).reshape(result.shape)
