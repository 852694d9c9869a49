"""float64 expm1 and log1p as torch's vector kernels call them (SLEEF's u10), every bit.

torch 2.13's float64 activation kernels (ATen/native/cpu/Activation.cpp) run in
``Vectorized<double>``: ``exp``, ``expm1`` and ``log1p`` there are SLEEF's ``Sleef_expd8_u10``,
``Sleef_expm1d8_u10`` and ``Sleef_log1pd8_u10`` (the ``d4`` forms under AVX2: the same
algorithms), whose results are not always the correctly rounded ones NumPy's give. ``expd``
is replayed in _softmax_bits; ``expm1d`` and ``log1pd`` below replay SLEEF's double-double
algorithms operation by operation in their FMA forms (dd.h), each fused multiply-add rounded
once (_softmax_bits._fma64).

- expm1: ``expk2`` (exp of a double-double: the reduction by ln2 in two parts, a degree-10
  polynomial in Estrin's scheme, 1 + s + s**2 (1/2 + s/6 + ...) as double-doubles, scaled
  by 2**q) minus one, the pair rounded once.
- log1p: ``1 + d = m 2**e`` with m in [0.75, 1.5) (vgetexp), ``m - 1`` computed as
  ``fma(d, 2**-e, 2**-e - 1)``, ``x = (m - 1) / (m + 1)`` as a double-double, then ln2 e + 2x
  + x**3 t(x**2) as double-doubles (t: logd's polynomial), rounded once.

Both cost 40-60 NumPy passes (about 25x NumPy's expm1/log1p), so the activations take them
up to ``_softmax_bits.EXPD_LIMIT`` elements, as softmax takes expd (every size with
``backends.cpu.torch_bits``); past it NumPy's values stand (an ulp at most away).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..backends import cpu as _cpu
from . import _float_kernels, _layout, _libm
from ._select import where as _where
from ._softmax_bits import (EXPD_LIMIT, _L2L_64, _L2U_64, _LN2_HIGH, _LN2_LOW, _LOGD_POLY,
                            _R_LN2_64, _fma64, _split64, expd)
from ._special import erf

_F64 = np.float64

_EXPK2_POLY = (+0.1602472219709932072e-9, +0.2092255183563157007e-8, +0.2505230023782644465e-7,
               +0.2755724800902135303e-6, +0.2755731892386044373e-5, +0.2480158735605815065e-4,
               +0.1984126984148071858e-3, +0.1388888888886763255e-2, +0.8333333333333347095e-2,
               +0.4166666666666669905e-1)
_SIXTH = 0.1666666666666666574e+0
# expk2's first Estrin level as columns: b = (c[0], c[2], ..., c[8]), c = (c[1], ..., c[9]),
# and b's Veltkamp halves (_fma64's arguments after a)
_ODD = (np.array(_EXPK2_POLY[0::2])[:, None], np.array(_EXPK2_POLY[1::2])[:, None],
        tuple(np.array(half)[:, None] for half in zip(*map(_split64, _EXPK2_POLY[0::2]))))


def exact(a: np.ndarray) -> bool:
    """Whether a float64 activation of ``a`` replays SLEEF (see the module doc)."""
    return a.size <= EXPD_LIMIT or _cpu.torch_bits


def _add2(x_hi, x_lo, y):
    """dd.h's ddadd2_vd2_vd2_vd: a double-double plus a double (two-sum)."""
    s = x_hi + y
    v = s - x_hi
    return s, ((x_hi - (s - v)) + (y - v)) + x_lo


def _add_fast(x, y_hi, y_lo):
    """dd.h's ddadd_vd2_vd_vd2 (|x| >= |y|): a double plus a double-double."""
    s = x + y_hi
    return s, ((x - s) + y_hi) + y_lo


_product_error = _float_kernels.product_error  # fma(a, b, -a * b): the product's exact tail


def _mul(x_hi, x_lo, y_hi, y_lo=None):
    """dd.h's ddmul (FMA forms) of a double-double by a double (``y_lo`` None) or by a
    double-double."""
    product = x_hi * y_hi
    error = _product_error(x_hi, y_hi, product)
    if y_lo is None:
        return product, _fma64(x_lo, y_hi, error)
    return product, _fma64(x_hi, y_lo, _fma64(x_lo, y_hi, error))


def _ldexp2(value, q):
    half = q >> 1
    return value * np.ldexp(1.0, half) * np.ldexp(1.0, q - half)


def _expk2(a: np.ndarray):
    """SLEEF's expk2 of the double-double (a, 0): exp(a) as a double-double."""
    c = _EXPK2_POLY
    dq = np.rint(a * _R_LN2_64)
    s_hi, s_lo = _add2(a, 0.0, dq * -_L2U_64)
    s_hi, s_lo = _add2(s_hi, s_lo, dq * -_L2L_64)
    s2 = s_hi * s_hi  # ddsqu's high parts: plain products
    s4 = s2 * s2
    s8 = s4 * s4
    # Estrin's scheme, each level's independent fused steps as one stacked call
    pairs = _fma64(s_hi, _ODD[0], _ODD[1], _ODD[2])  # fma(s, c[2k], c[2k + 1]), k = 0..4
    halves = _fma64(s2, pairs[1::2], pairs[2::2])  # high (k = 1, 2), low (k = 3, 4)
    u = _fma64(s8, pairs[0], _fma64(s4, halves[0], halves[1]))
    t_hi, t_lo = _add_fast(0.5, *_mul(s_hi, s_lo, _SIXTH))
    t_hi, t_lo = _add_fast(1.0, *_mul(t_hi, t_lo, s_hi, s_lo))
    t_hi, t_lo = _add_fast(1.0, *_mul(t_hi, t_lo, s_hi, s_lo))
    # ddsqu twice for s4 as a double-double, times u
    sq_hi = s_hi * s_hi
    sq_lo = _fma64(s_hi + s_hi, s_lo, _product_error(s_hi, s_hi, sq_hi))
    q4_hi = sq_hi * sq_hi
    q4_lo = _fma64(sq_hi + sq_hi, sq_lo, _product_error(sq_hi, sq_hi, q4_hi))
    p_hi, p_lo = _mul(q4_hi, q4_lo, u)
    total = t_hi + p_hi
    t_lo = (((t_hi - total) + p_hi) + t_lo) + p_lo
    q = np.nan_to_num(dq, nan=0.0).clip(-2100, 2100).astype(np.int64)
    return _ldexp2(total, q), _ldexp2(t_lo, q)


def expm1d(a: np.ndarray) -> np.ndarray:
    """SLEEF's expm1 u10 (xexpm1) of a float64 array."""
    shape = np.shape(a)
    a = np.asarray(a, dtype=_F64).reshape(-1)  # (flat: _expk2 stacks its polynomial's steps)
    with np.errstate(all="ignore"):
        e_hi, e_lo = _expk2(a)
        e_hi = np.where(a < -1000, 0.0, e_hi)
        e_lo = np.where(a < -1000, 0.0, e_lo)
        r_hi, r_lo = _add2(e_hi, e_lo, -1.0)
        out = r_hi + r_lo
        out = np.where(a > 709.782712893383996732223, np.inf, out)
        out = np.where(a < -36.736800569677101399113302437, -1.0, out)
        out = np.where((a == 0) & np.signbit(a), -0.0, out)
        return np.where(np.isnan(a), a, out).reshape(shape)


def log1pd(d: np.ndarray) -> np.ndarray:
    """SLEEF's log1p u10 (xlog1p, its AVX-512 form) of a float64 array."""
    d = np.asarray(d, dtype=_F64)
    c = _LOGD_POLY
    with np.errstate(all="ignore"):
        dp1 = d + 1.0
        finite = np.isfinite(dp1) & (dp1 > 0)
        _, exponent = np.frexp(np.where(finite, dp1, 1.0) * (1.0 / 0.75))
        exponent = exponent - 1
        t = np.ldexp(1.0, -exponent)
        m = _fma64(d, t, t - 1.0)
        e = exponent.astype(_F64)
        s_hi = _LN2_HIGH * e
        s_lo = _fma64(e, _LN2_LOW, _product_error(e, _LN2_HIGH, s_hi))
        den_x = 2.0 + m  # ddadd_vd2_vd_vd(2, m)
        den_y = (2.0 - den_x) + m
        inverse = 1.0 / den_x
        x = m * inverse
        u = _product_error(inverse, m, x)
        v = _fma64(-den_y, inverse, _fma64(-den_x, inverse, 1.0))
        x_low = _fma64(x, v, u)
        x2 = x * x
        x4 = x2 * x2
        x8 = x4 * x4
        poly = _fma64(x8, _fma64(x4, c[0], _fma64(x2, c[1], c[2])),
                      _fma64(x4, _fma64(x2, c[3], c[4]), _fma64(x2, c[5], c[6])))
        twice_x, twice_low = x * 2, x_low * 2
        total = s_hi + twice_x
        tail = (((s_hi - total) + twice_x) + s_lo) + twice_low
        cubic = (x2 * x) * poly
        result = total + cubic
        tail = ((total - result) + cubic) + tail
        out = result + tail
        out = np.where(d > 1e307, np.inf, out)
        out = np.where((d < -1) | np.isnan(d), np.nan, out)
        out = np.where(d == -1, -np.inf, out)
        return np.where((d == 0) & np.signbit(d), -0.0, out)



# -- the float64 activation kernels --------------------------------------------------------------
# torch's cpu_kernel_vec runs the vector op over pairs of vectors (16 float64 under AVX-512) and
# the scalar op (the C library's exp/expm1/log1p: _libm.call) on each run's leftover
# (_float_kernels._scalar_part); log_sigmoid's own loop takes every element in vectors. Where
# the replays do not run (``exact``), NumPy's exp/expm1/log1p stand in, in the same formulas.

_PAIR64 = _float_kernels._PAIR64


def _vector(name: str, values: np.ndarray, replay: bool) -> np.ndarray:
    if replay:
        return _REPLAYS[name](values)
    with np.errstate(all="ignore"):
        return _NUMPY[name](values)


_REPLAYS = {"exp": expd, "expm1": None, "log1p": None, "tanh": None}  # (filled below)
_NUMPY = {"exp": np.exp, "expm1": np.expm1, "log1p": np.log1p, "tanh": np.tanh}


def _scalar(name: str, values: np.ndarray, replay: bool) -> np.ndarray:
    """The C library's ``name``, element by element (~0.1 us each) where the kernel's
    operands are within the replays' limit (``replay``), else up to _libm.EXACT_MAX elements
    (NumPy's past that)."""
    limit = np.inf if replay else _libm.EXACT_MAX
    with np.errstate(all="ignore"):
        return np.asarray(_libm.call(name, values, exact_max=limit), dtype=_F64)


def _map(name: str, values: np.ndarray, part) -> np.ndarray:
    """``name`` of ``values`` as one elementwise kernel computes it: the vector function, the
    C library's on ``part`` (_scalar_part's answer for the kernel's operands)."""
    replay = exact(values)
    if part is Ellipsis:
        return _scalar(name, values, replay)
    out = _vector(name, values, replay)  # (a fresh array: written below)
    if part is not None:
        out[part] = _scalar(name, values[part], replay)
    return out


def silu(a: np.ndarray) -> np.ndarray:
    """torch's silu of a float64 array: ``x / (1 + exp(-x))``."""
    part = _float_kernels._scalar_part(a, _PAIR64)
    with np.errstate(all="ignore"):
        return np.asarray(a / (1.0 + _map("exp", np.negative(a), part)))


def silu_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """torch's silu_backward of float64 arrays: ``dy * s * (1 + x * (1 - s))``, ``s = 1 / (1 +
    exp(-x))``, the bracket one fused multiply-add (as the float32 kernel's)."""
    shape = np.broadcast_shapes(grad.shape, x.shape)
    part = _float_kernels._scalar_part_of(shape, (grad, x), _PAIR64)
    x = np.broadcast_to(x, shape)
    with np.errstate(all="ignore"):
        s = 1.0 / (1.0 + _map("exp", np.negative(x), part))
        bracket = _fma64(x, 1.0 - s, 1.0) if exact(s) else x * (1.0 - s) + 1.0
        return np.asarray(grad * s * bracket)


def elu(a: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    """torch's elu kernel on a float64 array: ``x * scale`` where ``x > 0``, else
    ``expm1(x * input_scale) * (alpha * scale)``."""
    part = _float_kernels._scalar_part(a, _PAIR64)
    with np.errstate(all="ignore"):
        grown = _map("expm1", a * input_scale, part)
        return np.asarray(_where(a > 0, a * scale, grown * (alpha * scale)))


def elu_backward(grad: np.ndarray, x: np.ndarray, alpha: float, scale: float,
                 input_scale: float) -> np.ndarray:
    """torch's elu_backward kernel (not from the result) on float64 arrays: ``grad * scale``
    where ``x > 0``, else ``grad * input_scale * (alpha * scale) * exp(x * input_scale)``,
    left to right; a NaN ``x`` on the scalar path takes the ``grad * scale`` side."""
    shape = np.broadcast_shapes(grad.shape, x.shape)
    part = _float_kernels._scalar_part_of(shape, (grad, x), _PAIR64)
    with np.errstate(all="ignore"):
        grown = _map("exp", np.broadcast_to(x * input_scale, shape), part)
        negative = grad * input_scale * (alpha * scale) * grown
        out = _where(x > 0, grad * scale, negative)
        nan = np.broadcast_to(np.isnan(x), shape)
        if part is not None and nan.any():
            scalar_nan = np.zeros(shape, bool)
            scalar_nan[part] = nan[part]
            out = np.where(scalar_nan, grad * scale, out)
        return np.asarray(out)


def softplus(a: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """torch's softplus of a float64 array: ``x`` where ``x * beta > threshold``, else
    ``log1p(exp(x * beta)) / beta``."""
    part = _float_kernels._scalar_part(a, _PAIR64)
    scaled = a * beta
    with np.errstate(all="ignore"):
        soft = _map("log1p", _map("exp", scaled, part), part) / beta
        return np.asarray(_where(scaled > threshold, a, soft))


def softplus_backward(grad: np.ndarray, x: np.ndarray, beta: float,
                      threshold: float) -> np.ndarray:
    """``grad`` where ``x * beta > threshold``, else ``grad * z / (z + 1)``, ``z = exp(x *
    beta)``."""
    shape = np.broadcast_shapes(grad.shape, x.shape)
    part = _float_kernels._scalar_part_of(shape, (grad, x), _PAIR64)
    scaled = x * beta
    with np.errstate(all="ignore"):
        z = _map("exp", np.broadcast_to(scaled, shape), part)
        return np.asarray(_where(scaled > threshold, grad, grad * z / (z + 1.0)))


def log_sigmoid(a: np.ndarray) -> np.ndarray:
    """torch's log_sigmoid of a float64 array: ``min(x, 0) - log1p(exp(-|x|))``, every element
    in vectors (its own loop over the contiguous input)."""
    a = a if a.flags.c_contiguous else np.array(a, order="C")  # (torch's: a contiguous copy)
    replay = exact(a)
    with np.errstate(all="ignore"):
        buffer = _vector("exp", -np.abs(a), replay)
        return np.asarray(np.minimum(a, 0.0) - _vector("log1p", buffer, replay))


def log_sigmoid_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``(max_deriv - sign * b / (1 + b)) * grad`` with the forward's buffer ``b =
    exp(-|x|)``, ``max_deriv`` 1 and ``sign`` 1 where x < 0, else 0 and -1."""
    with np.errstate(all="ignore"):
        buffer = _vector("exp", -np.abs(x), exact(x))
        max_deriv = (x < 0).astype(_F64)
        sign = max_deriv * 2.0 - 1.0
        return np.asarray((max_deriv - sign * (buffer / (1.0 + buffer))) * grad)


_REPLAYS.update(expm1=expm1d, log1p=log1pd)


# -- tanh (xtanh, u10): gelu's tanh form ----------------------------------------------------------


def _rec(x_hi, x_lo):
    """dd.h's ddrec_vd2_vd2 (FMA form): 1 / (x_hi + x_lo) as a double-double."""
    s = 1.0 / x_hi
    return s, s * _fma64(-x_lo, s, _fma64(-x_hi, s, 1.0))


def _add2_pairs(x_hi, x_lo, y_hi, y_lo):
    """dd.h's ddadd2_vd2_vd2_vd2."""
    s = x_hi + y_hi
    v = s - x_hi
    return s, ((x_hi - (s - v)) + (y_hi - v)) + (x_lo + y_lo)


def _div(n_hi, n_lo, d_hi, d_lo):
    """dd.h's dddiv_vd2_vd2_vd2 (FMA form)."""
    t = 1.0 / d_hi
    s = n_hi * t
    u = _product_error(t, n_hi, s)
    v = _fma64(-d_lo, t, _fma64(-d_hi, t, 1.0))
    return s, _fma64(s, v, _fma64(n_lo, t, u))


def tanhd(x: np.ndarray) -> np.ndarray:
    """SLEEF's tanh u10 (xtanh) of a float64 array: (e - 1/e) / (e + 1/e) with e = exp(|x|)
    as double-doubles (expk2), the sign put back."""
    shape = np.shape(x)
    x = np.asarray(x, dtype=_F64).reshape(-1)
    with np.errstate(all="ignore"):
        y = np.abs(x)
        d_hi, d_lo = _expk2(y)
        d_hi = np.where(y < -1000, 0.0, d_hi)
        e_hi, e_lo = _rec(d_hi, d_lo)
        n_hi, n_lo = _add2_pairs(d_hi, d_lo, -e_hi, -e_lo)
        s_hi, s_lo = _add2_pairs(d_hi, d_lo, e_hi, e_lo)
        q_hi, q_lo = _div(n_hi, n_lo, s_hi, s_lo)
        out = q_hi + q_lo
        out = np.where((y > 18.714973875) | np.isnan(out), 1.0, out)
        out = np.copysign(out, x)
        return np.where(np.isnan(x), x, out).reshape(shape)


_REPLAYS.update(tanh=tanhd)
_GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5  # M_SQRT2 * M_2_SQRTPI * 0.5
_GELU_KAPPA = 0.044715


def _fma_any(a, b, c) -> np.ndarray:
    """float64 ``a * b + c`` rounded once for any operands: _fma64 where the product is
    finite, IEEE's infinities and NaN (which the product then decides) elsewhere."""
    out = _fma64(a, b, c)
    plain = a * b + c
    return np.where(np.isfinite(a * b), out, plain)


def _gelu_inner(x: np.ndarray, replay: bool) -> np.ndarray:
    """beta * (x + kappa * x**3), the bracket one fused multiply-add (as the float32
    kernel's)."""
    cube = x * x * x
    if replay:
        return _GELU_BETA * _fma_any(_GELU_KAPPA, cube, x)
    return _GELU_BETA * (x + _GELU_KAPPA * cube)


def gelu_tanh(a: np.ndarray) -> np.ndarray:
    """torch's gelu(approximate='tanh') of a float64 array: 0.5 x (1 + tanh(inner)), SLEEF's
    tanh in the vectors, the C library's on the leftover."""
    part = _float_kernels._scalar_part(a, _PAIR64)
    with np.errstate(all="ignore"):
        t = _map("tanh", _gelu_inner(a, exact(a)), part)
        return np.asarray(0.5 * a * (1.0 + t))


def gelu_tanh_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """torch's gelu_backward(approximate='tanh') of float64 arrays: dy * (0.5 (1 + t) +
    (0.5 x) (1 - t t) (beta (1 + 3 kappa x**2))), ``1 - t t`` and the slope's bracket fused."""
    shape = np.broadcast_shapes(grad.shape, x.shape)
    part = _float_kernels._scalar_part_of(shape, (grad, x), _PAIR64)
    x = np.broadcast_to(x, shape)
    replay = exact(x)
    with np.errstate(all="ignore"):
        t = _map("tanh", _gelu_inner(x, replay), part)
        square = x * x
        if replay:
            sech2 = _fma64(-t, t, 1.0)
            slope = _GELU_BETA * _fma_any(3.0 * _GELU_KAPPA, square, 1.0)
        else:
            sech2 = 1.0 - t * t
            slope = _GELU_BETA * (1.0 + 3.0 * _GELU_KAPPA * square)
        return np.asarray(grad * (0.5 * (1.0 + t) + 0.5 * x * sech2 * slope))


# -- erf (xerf_u1, u10): gelu's exact form ------------------------------------------------------
# torch's float64 GeluKernel and GeluBackwardKernel take Vectorized<double>::erf, SLEEF's
# Sleef_erfd8_u10 (torch.erf itself is MKL's vdErf, which _special.erf takes: another function).
# |x| <= 2.5: 1 - 1 / (1 + x p(x))**16 (Abramowitz and Stegun), p a degree-21 polynomial in
# Estrin's scheme (fused steps) whose last three coefficients are double-doubles; past 2.5,
# 1 - expk(x q(x)) with other coefficients. Replayed in dd.h's FMA forms (measured: every value
# of torch's gelu and gelu_backward on N(0, s**2) samples, s from 0.5 to 5).

_ERF_NEAR = (-0.2083271002525222097e-14, +0.7151909970790897009e-13, -0.1162238220110999364e-11,
             +0.1186474230821585259e-10, -0.8499973178354613440e-10, +0.4507647462598841629e-9,
             -0.1808044474288848915e-8, +0.5435081826716212389e-8, -0.1143939895758628484e-7,
             +0.1215442362680889243e-7, +0.1669878756181250355e-7, -0.9808074602255194288e-7,
             +0.1389000557865837204e-6, +0.2945514529987331866e-6, -0.1842918273003998283e-5,
             +0.3417987836115362136e-5, +0.3860236356493129101e-5, -0.3309403072749947546e-4,
             +0.1060862922597579532e-3, +0.2323253155213076174e-3, +0.1490149719145544729e-3)
_ERF_FAR = (-0.4024015130752621932e-18, +0.3847193332817048172e-16, -0.1749316241455644088e-14,
            +0.5029618322872872715e-13, -0.1025221466851463164e-11, +0.1573695559331945583e-10,
            -0.1884658558040203709e-9, +0.1798167853032159309e-8, -0.1380745342355033142e-7,
            +0.8525705726469103499e-7, -0.4160448058101303405e-6, +0.1517272660008588485e-5,
            -0.3341634127317201697e-5, -0.2515023395879724513e-5, +0.6539731269664907554e-4,
            -0.3551065097428388658e-3, +0.1210736097958368864e-2, -0.2605566912579998680e-2,
            +0.1252823202436093193e-2, +0.1820191395263313222e-1, -0.1021557155453465954e+0)
_ERF_NEAR_DD = ((0.0092877958392275604405, 7.9287559463961107493e-19),
                (0.042275531758784692937, 1.3785226620501016138e-19),
                (0.07052369794346953491, 9.5846628070792092842e-19))
_ERF_FAR_DD = ((-0.63691044383641748361, -2.4249477526539431839e-17),
               (-1.1282926061803961737, -6.2970338860410996505e-17),
               (-1.2261313785184804967e-05, -5.5329707514490107044e-22))
_EXPK_POLY = (2.51069683420950419527139e-08, 2.76286166770270649116855e-07,
              2.75572496725023574143864e-06, 2.48014973989819794114153e-05,
              0.000198412698809069797676111, 0.0013888888939977128960529,
              0.00833333333332371417601081, 0.0416666666665409524128449,
              0.166666666666666740681535, 0.500000000000000999200722)
_GELU_ALPHA = 0.70710678118654752440  # M_SQRT1_2
_GELU_PDF = 1.12837916709551257390 * _GELU_ALPHA * 0.5  # M_2_SQRTPI * M_SQRT1_2 * 0.5


def _add_pairs_fast(x_hi, x_lo, y_hi, y_lo):
    """dd.h's ddadd_vd2_vd2_vd2 (|x| >= |y|)."""
    s = x_hi + y_hi
    return s, (((x_hi - s) + y_hi) + x_lo) + y_lo


def _square(hi, lo):
    """dd.h's ddsqu_vd2_vd2 (FMA form)."""
    s = hi * hi
    return s, _fma64(hi + hi, lo, _product_error(hi, hi, s))


def _expk(hi, lo):
    """SLEEF's expk: exp of the double-double (hi, lo), rounded to a double."""
    dq = np.rint((hi + lo) * _R_LN2_64)
    s_hi, s_lo = _add2(hi, lo, dq * -_L2U_64)
    s_hi, s_lo = _add2(s_hi, s_lo, dq * -_L2L_64)
    s_hi, s_lo = s_hi + s_lo, (s_hi - (s_hi + s_lo)) + s_lo  # ddnormalize
    c = _EXPK_POLY
    s2 = s_hi * s_hi
    s4 = s2 * s2
    low = _fma64(s4, _fma64(s2, _fma64(s_hi, c[2], c[3]), _fma64(s_hi, c[4], c[5])),
                 _fma64(s2, _fma64(s_hi, c[6], c[7]), _fma64(s_hi, c[8], c[9])))
    u = _fma64(s4 * s4, _fma64(s_hi, c[0], c[1]), low)
    t_hi, t_lo = _add_pairs_fast(*_add_fast(1.0, s_hi, s_lo), *_mul(*_square(s_hi, s_lo), u))
    q = np.nan_to_num(dq, nan=0.0).clip(-2100, 2100).astype(np.int64)
    return np.where(hi < -1000, 0.0, _ldexp2(t_hi + t_lo, q))


_ERF_SPLITS = {name: [_split64(c) for c in poly]
               for name, poly in (("near", _ERF_NEAR), ("far", _ERF_FAR))}


def _erf_part(x: np.ndarray, far: bool) -> np.ndarray:
    """xerf_u1 of the non-negative ``x``, all at most 2.5 (``far`` False) or all above."""
    c = _ERF_FAR if far else _ERF_NEAR  # c[0]: x**20's
    cs = _ERF_SPLITS["far" if far else "near"]
    x2 = x * x
    x4 = x2 * x2
    x8 = x4 * x4

    def pair(k):  # c[k] x + c[k + 1], c[k] the constant operand
        return _fma64(x, c[k], c[k + 1], cs[k])

    def poly8(k):
        return _fma64(x4, _fma64(x2, pair(k), pair(k + 2)),
                      _fma64(x2, pair(k + 4), pair(k + 6)))

    t = _fma64(x8 * x8, _fma64(x4, c[0], _fma64(x2, pair(1), pair(3)), cs[0]),
               _fma64(x8, poly8(5), poly8(13)))
    (c2h, c2l), (c1h, c1l), (c0h, c0l) = _ERF_FAR_DD if far else _ERF_NEAR_DD
    high = _add_pairs_fast(c2h, c2l, *_mul(t, 0.0, x))  # poly4dd: (t x + c2) x**2 + c1 x + c0
    t_hi, t_lo = _add_pairs_fast(*_add_pairs_fast(c0h, c0l, *_mul(c1h, c1l, x)),
                                 *_mul(*high, x2))
    if far:
        r_hi, r_lo = _add2(_expk(t_hi, t_lo), 0.0, -1.0)
    else:
        s_hi, s_lo = _add_fast(1.0, *_mul(t_hi, t_lo, x))
        for _ in range(4):
            s_hi, s_lo = _square(s_hi, s_lo)
        r_hi, r_lo = _add2(*_rec(s_hi, s_lo), -1.0)
    return -(r_hi + r_lo)


def erfd(a: np.ndarray) -> np.ndarray:
    """SLEEF's erf u10 (xerf_u1) of a float64 array (each branch on its own elements)."""
    a = np.asarray(a, dtype=_F64)
    x = np.abs(a)
    near = x <= 2.5
    if near.all():
        z = _erf_part(x, False)
    else:
        z = np.empty_like(x)
        z[near] = _erf_part(x[near], False)
        far = ~near & (x < 6)  # (6 and past, inf and NaN: set below)
        z[far] = _erf_part(x[far], True)
        z[~near & ~far] = 1.0
        z[np.isnan(x)] = np.nan
    z = np.where(x < 1e-8, x * 1.12837916709551262756245475959, z)
    z = np.where(a == 0, 0.0, z)
    return np.where(np.signbit(a), -z, z)


def _scalar_erf(values: np.ndarray, replay: bool) -> np.ndarray:
    """std::erf (the C library's, which math.erf calls) element by element, as _scalar."""
    if replay or values.size <= _libm.EXACT_MAX:
        flat = [math.erf(v) for v in np.ravel(values).tolist()]
        return np.array(flat, dtype=_F64).reshape(np.shape(values))

    return erf(values)


def _erf_map(values: np.ndarray, part) -> np.ndarray:
    """_map for erf: SLEEF's in the vectors, the C library's on ``part``."""
    replay = exact(values)
    if part is Ellipsis:
        return _scalar_erf(values, replay)
    if replay:
        with np.errstate(all="ignore"):
            out = erfd(values)
    else:
        out = erf(values)
    if part is not None:
        out[part] = _scalar_erf(values[part], replay)
    return out


def gelu_erf(a: np.ndarray) -> np.ndarray:
    """torch's gelu (approximate='none') of a float64 array: (x * 0.5) (1 + erf(x / sqrt(2))),
    SLEEF's erf in the vectors, the C library's on the leftover."""
    part = _float_kernels._scalar_part(a, _PAIR64)
    with np.errstate(all="ignore"):
        return np.asarray((a * 0.5) * (1.0 + _erf_map(a * _GELU_ALPHA, part)))


def gelu_erf_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """torch's gelu_backward (approximate='none') of float64 arrays: dy (x pdf + cdf) with
    cdf = 0.5 (1 + erf(x / sqrt(2))), pdf = beta exp(x x (-0.5)); the vectors fuse x pdf + cdf
    (measured), the scalar loop does not."""
    shape = np.broadcast_shapes(grad.shape, x.shape)
    part = _float_kernels._scalar_part_of(shape, (grad, x), _PAIR64)
    x = np.broadcast_to(x, shape)
    replay = exact(x)
    with np.errstate(all="ignore"):
        cdf = 0.5 * (1.0 + _erf_map(x * _GELU_ALPHA, part))
        pdf = _GELU_PDF * _map("exp", x * x * -0.5, part)
        if part is Ellipsis:
            return np.asarray(grad * (x * pdf + cdf))
        inner = _fma_any(x, pdf, cdf) if replay else x * pdf + cdf
        if part is not None:
            inner[part] = x[part] * pdf[part] + cdf[part]
        return np.asarray(grad * inner)


# -- layouts -----------------------------------------------------------------------------------
# The replays compute on row-major temporaries; torch's kernels write into the layout its
# TensorIterator gives the result (the input's for the forwards, the operands' order for the
# backwards), which strides show and which decides the vector/scalar path of later kernels.


def _unary_layout(kernel):
    @functools.wraps(kernel)
    def laid_out(a, *args, **kwargs):
        return _layout.like(np.asarray(kernel(a, *args, **kwargs)), a)

    return laid_out


def _binary_layout(kernel):
    @functools.wraps(kernel)
    def laid_out(grad, x, *args, **kwargs):
        out = np.asarray(kernel(grad, x, *args, **kwargs))
        if out.shape == x.shape:
            out = _layout.like(out, x)
        return _layout.iterated(out, (grad, x))

    return laid_out


# (log_sigmoid's forward writes a fresh row-major result and buffer in torch too)
silu, elu, softplus, gelu_tanh, gelu_erf = (
    _unary_layout(kernel) for kernel in (silu, elu, softplus, gelu_tanh, gelu_erf))
(silu_backward, elu_backward, softplus_backward, log_sigmoid_backward, gelu_tanh_backward,
 gelu_erf_backward) = (
    _binary_layout(kernel) for kernel in (silu_backward, elu_backward, softplus_backward,
                                          log_sigmoid_backward, gelu_tanh_backward,
                                          gelu_erf_backward))
