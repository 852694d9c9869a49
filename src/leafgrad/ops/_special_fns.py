"""Special functions on float64 arrays, vectorised with NumPy (no SciPy): the gamma family,
Hurwitz zeta, modified Bessel functions of order 0 and 1, the normal distribution's functions
and the regularised incomplete gamma functions.

Where torch's result depends on its algorithm (digamma's and trigamma's asymptotic series, the
zeta sum's cut-off, trigamma's reflection producing ~1e32 rather than inf at negative integers)
the algorithm is torch's (ATen's Math.h, from Cephes); elsewhere the functions are written from
their series, continued fractions and asymptotic expansions, accurate to a few ulps.
"""

from __future__ import annotations

import math

import numpy as np

from . import _libm
from ._special import erf, erfc
from ._float_kernels import fma

_PI = math.pi
_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_EPS = np.finfo(np.float64).eps

# Bernoulli numbers B2..B14 over their index (the Stirling-series coefficients of digamma),
# highest order first as a polynomial in 1/x^2: ATen's literals (its A[] in calc_digamma).
_DIGAMMA_SERIES = (8.33333333333333333333E-2, -2.10927960927960927961E-2,
                   7.57575757575757575758E-3, -4.16666666666666666667E-3,
                   3.96825396825396825397E-3, -8.33333333333333333333E-3,
                   8.33333333333333333333E-2)
_PSI_10 = 2.25175258906672110764  # digamma(10)
# (2k)! / B_2k for k = 1..12: the Euler-Maclaurin tail of the Hurwitz zeta sum
_ZETA_TAIL = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
              7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
              -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def _quiet(function):
    def run(*args):
        with np.errstate(all="ignore"):
            return function(*(np.asarray(a, dtype=np.float64) for a in args))

    run.__name__ = function.__name__
    run.__doc__ = function.__doc__
    return run


@_quiet
def lgamma(x):
    """log|Gamma(x)| (the C library's lgamma, as torch uses)."""
    return np.asarray(np.frompyfunc(_lgamma_scalar, 1, 1)(x)).astype(np.float64)


def _lgamma_scalar(value: float) -> float:
    if value != value:
        return value
    try:
        return math.lgamma(value)
    except ValueError:  # poles: non-positive integers
        return math.inf
    except OverflowError:
        return math.inf


def _native(function):
    """Run in the input's own floating dtype (float32 stays float32: torch's float kernels
    evaluate these series in float; float16 too, as its kernels convert a half to float),
    float64 for anything else."""

    def run(x):
        x = np.asarray(x)
        if x.dtype not in (np.float32, np.float64):
            x = x.astype(np.float32 if x.dtype == np.float16 else np.float64)
        with np.errstate(all="ignore"):
            return function(x)

    run.__name__ = function.__name__
    run.__doc__ = function.__doc__
    return run


def digamma(x):
    """psi(x) as ATen's calc_digamma (Math.h, from Cephes) computes it, in the input's own
    float dtype (float16 in float32, as torch): the reflection for x < 0 (pi / tan(pi r) in
    double, r the fraction of x, rounded to the dtype and taken from psi(1 - x)), the
    recurrence psi(x) = psi(x + 1) - 1/x up to 10, then ((result + log(x)) - 0.5 / x) -
    z * polevl(z) with z = 1 / x^2, step by step. The logarithm is the C library's (torch's
    ``logf``/``log``), which ``_libm.call`` gives up to its EXACT_MAX elements."""
    x = np.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        x = x.astype(np.float32 if x.dtype == np.float16 else np.float64)
    with np.errstate(all="ignore"):
        return _digamma(x)


def _digamma(x: np.ndarray) -> np.ndarray:
    real = x.dtype.type
    negative = x < 0
    work = np.where(negative, real(1) - x, x)
    result = np.zeros_like(x)
    while True:
        small = work < 10
        if not small.any():
            break
        result[small] -= real(1) / work[small]
        work[small] += real(1)
    z = real(1) / (work * work)
    poly = np.zeros_like(x)
    for coefficient in _DIGAMMA_SERIES:
        poly = poly * z + real(coefficient)
    tail = np.where(work < real(1.0e17), z * poly, real(0))
    out = ((result + _libm.call("log", work)) - real(0.5) / work) - tail
    out = np.where(work == 10, result + real(_PSI_10), out)
    if negative.any():
        fraction = np.modf(x[negative].astype(np.float64))[0].tolist()
        tangents = np.array([math.tan(_PI * r) for r in fraction])  # (the C library's tan)
        pi_over_tan = (_PI / tangents).astype(x.dtype)  # (r == 0: an integer, NaN below)
        out[negative] = out[negative] - pi_over_tan
    out = np.where(x == 0, np.copysign(real(np.inf), -x), out)
    return np.where(negative & (x == np.trunc(x)), real(np.nan), out)


@_native
def trigamma(x):
    """psi'(x) as ATen's trigamma (Math.h) computes it in the input's dtype: the reflection
    -(pi * pi) / sin(pi x)^2 below 1/2 (pi * pi and sin in the dtype: the C library's sinf for
    float32), six recurrence steps, then (1 + 1/(2x) + ixx (1/6 - ixx (1/30 - ixx/42))) / x
    with the three multiply-adds fused as the compiler builds it. (float32 before: 21% of
    values a last bit off, pi * pi taken in double; now every bit up to EXACT_MAX reflected
    elements, above it float64's sin rounded.)"""
    real = x.dtype.type
    pi = real(_PI)
    reflected = x < real(0.5)
    result = np.zeros_like(x)
    if reflected.any():
        sin_pi_x = _sin_in_dtype(pi * x[reflected])
        result[reflected] = real(0) - (pi * pi) / (sin_pi_x * sin_pi_x)
    work = np.where(reflected, real(1) - x, x)
    for _ in range(6):
        result = result + real(1) / (work * work)
        work = work + real(1)
    ixx = real(1) / (work * work)
    series = fma(ixx, fma(-ixx, fma(-ixx, real(1) / real(42), real(1) / real(30)),
                          real(1) / real(6)), real(1) + real(1) / (real(2) * work))
    result = result + series / work
    return np.where(reflected, -result, result)


def _sin_in_dtype(values: np.ndarray) -> np.ndarray:
    """``sin`` as a scalar C++ loop takes it: the C library's ``sinf`` for float32 (up to
    _libm.EXACT_MAX elements; float64's sin rounded above), ``sin`` for float64."""
    values = np.asarray(values)
    if values.dtype != np.float32:
        return np.sin(values)
    function = _libm._float32_function("sinf", 1) if values.size <= _libm.EXACT_MAX else None
    if function is None:
        return np.sin(values.astype(np.float64)).astype(np.float32)
    return np.array([function(v) for v in values.reshape(-1).tolist()],
                    dtype=np.float32).reshape(values.shape)


def _powf(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The C library's powf element by element (NumPy's float32 power differs from it for
    negative bases), up to _libm.EXACT_MAX elements; float64's pow rounded beyond."""
    function = _libm._float32_function("powf", 2) if a.size <= _libm.EXACT_MAX else None
    if function is None:
        with np.errstate(all="ignore"):
            return np.power(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    a, b = np.broadcast_arrays(a, b)
    values = list(map(function, a.ravel().tolist(), b.ravel().tolist()))
    return np.array(values, dtype=np.float32).reshape(a.shape)


_MACHEP = 1.11022302462515654042e-16  # Cephes' (half of float64's eps), zeta's stopping rule


def zeta(s, q):
    """Hurwitz zeta(s, q) = sum_k (q + k)^-s: the sum until q + k > 9 (at least 9 terms), then
    the Euler-Maclaurin tail; in float64 (float32 q: ATen's zeta<float>, whose first term is
    powf of the float arguments and the rest in double, the CPU's acc_type)."""
    single = np.asarray(q).dtype == np.float32
    with np.errstate(all="ignore"):
        return _zeta(np.asarray(s, dtype=np.float64), np.asarray(q, dtype=np.float64), single)


def _zeta(s, q, single: bool):
    s, q = np.broadcast_arrays(s, q)
    if single:
        total = _powf(q.astype(np.float32), np.negative(s, dtype=np.float32)).astype(np.float64)
    else:
        total = _libm.power(q, -s)  # the C library's pow, as Cephes' code calls it
    a = q.copy()
    b = np.zeros_like(q)
    done = ~np.isfinite(q) | ~np.isfinite(s)  # settled below, outside the sum
    result = np.full(q.shape, np.nan)
    count = 0
    while True:
        going = ((count < 9) | (a <= 9.0)) & ~done
        if not going.any():
            break
        count += 1
        a = np.where(going, a + 1.0, a)
        b = np.where(going, _libm.power(a, -s), b)
        total = np.where(going, total + b, total)
        # Cephes' test (-MACHEP s < b < MACHEP s) never holds while the sum is negative (q < 0,
        # odd s), so such sums go on to the Euler-Maclaurin tail
        small = going & (-_MACHEP * total < b) & (b < _MACHEP * total)
        result = np.where(small, total, result)
        done |= small
    w = a
    total = total + b * w / (s - 1.0) - 0.5 * b
    factor = np.ones_like(q)
    k = 0.0
    settled = done.copy()
    for coefficient in _ZETA_TAIL:
        factor = factor * (s + k)
        b = b / w
        term = factor * b / coefficient
        total = np.where(settled, total, total + term)
        newly = ~settled & (np.abs(term / total) < _MACHEP)
        result = np.where(newly, total, result)
        settled |= newly
        k += 1.0
        factor = factor * (s + k)
        b = b / w
        k += 1.0
    result = np.where(settled, result, total)
    result = np.where(done, np.where(np.isnan(result), total, result), result)
    integer_q = q == np.floor(q)
    result = np.where((q <= 0) & ~integer_q & (s != np.floor(s)), np.nan, result)
    result = np.where((q <= 0) & integer_q, np.inf, result)
    # outside the sum (Cephes' arithmetic on infinities, as torch returns it)
    result = np.where((q == np.inf) | (s == np.inf), np.nan, result)
    result = np.where((q == -np.inf) & (s > 1), np.inf, result)
    result = np.where(s < 1, np.nan, result)
    result = np.where(s == 1, np.inf, result)
    return np.where(np.isnan(s) | np.isnan(q), np.nan, result)


def polygamma(n: int, x):
    """psi^(n)(x): digamma, trigamma, else (-1)^(n+1) n! zeta(n+1, x)."""
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    # ATen's calc_polygamma: (+-1) * exp(lgamma(n + 1)) * zeta(n + 1, x), the factor from the C
    # library's lgamma and exp in the input's dtype (Python's math.lgamma rounds otherwise), the
    # zeta in double, the product in the input's dtype
    sign = 1.0 if n % 2 else -1.0
    x = np.asarray(x)
    if x.dtype == np.float32:
        factor = np.float32(sign) * _c_function("expf", np.float32)(_c_function("lgammaf", np.float32)(n + 1.0))
        return np.float32(factor) * zeta(np.float64(n + 1), x).astype(np.float32)
    factor = sign * _c_function("exp", np.float64)(_c_function("lgamma", np.float64)(n + 1.0))
    return factor * zeta(np.float64(n + 1), x)


def _c_function(name: str, dtype):
    """The C library's one-argument function ``name`` for a float32 or float64 Python number
    (math's where there is no C library)."""
    import ctypes

    library = _libm._c_library()
    function = getattr(library, name, None) if library else None
    if function is None:
        return {"exp": math.exp, "expf": math.exp, "lgamma": math.lgamma,
                "lgammaf": math.lgamma}[name]
    kind = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    function.restype = kind
    function.argtypes = [kind]
    return function


# -- modified Bessel functions of the first kind, orders 0 and 1 --------------------------------
# |x| <= 30: the power series (positive terms, no cancellation); beyond, the asymptotic series
# I_v(x) ~ e^x / sqrt(2 pi x) * sum_k (-1)^k a_k(v) / x^k, a_k = prod (4v^2 - (2j-1)^2) / (k! 8^k).
_BESSEL_SERIES_UP_TO = 30.0


def _bessel_series(x: np.ndarray, order: int) -> np.ndarray:
    quarter = 0.25 * x * x
    term = np.ones_like(x) if order == 0 else 0.5 * x
    total = term.copy()
    for k in range(1, 120):
        term = term * quarter / (k * (k + order))
        total = total + term
    return total


def _bessel_asymptotic(ax: np.ndarray, order: int) -> np.ndarray:
    """The asymptotic sum (without e^x / sqrt(2 pi x)) for large |x|."""
    mu = 4.0 * order * order
    term = np.ones_like(ax)
    total = term.copy()
    for k in range(1, 30):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * ax)
        total = total + term
    return total


def _bessel(x, order: int, scaled: bool):
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    out = np.empty_like(x)
    near = ax <= _BESSEL_SERIES_UP_TO
    series = _bessel_series(x[near], order)
    out[near] = series * np.exp(-ax[near]) if scaled else series
    far = ~near
    if far.any():
        a = ax[far]
        base = _bessel_asymptotic(a, order) / np.sqrt(2.0 * _PI * a)
        if not scaled:
            # e^a / sqrt(2 pi a) in two halves: finite up to where I itself overflows
            half = np.exp(0.5 * a)
            base = base * half * half
        sign = np.sign(x[far]) if order == 1 else 1.0
        out[far] = sign * base
    out[np.isnan(x)] = np.nan
    return out


@_quiet
def i0(x):
    return _bessel(x, 0, False)


@_quiet
def i0e(x):
    return _bessel(x, 0, True)


@_quiet
def i1(x):
    return _bessel(x, 1, False)


@_quiet
def i1e(x):
    return _bessel(x, 1, True)


# -- the normal distribution ------------------------------------------------------------------


@_quiet
def erfcx(x):
    """exp(x^2) erfc(x): the continued fraction past 1.5 (no overflow), else the product."""
    out = np.empty_like(x)
    tail = x > 1.5
    out[tail] = 1.0 / (np.sqrt(_PI) * _erfc_fraction_scaled(x[tail]))
    rest = ~tail
    out[rest] = np.exp(x[rest] * x[rest]) * erfc(x[rest])
    out[x == np.inf] = 0.0
    out[np.isnan(x)] = np.nan
    return out


def _erfc_fraction_scaled(x: np.ndarray) -> np.ndarray:
    """f in erfc(x) = exp(-x^2) / (sqrt(pi) f), f = x + (1/2)/(x + 1/(x + (3/2)/(x + ...))),
    by modified Lentz (x > 1.5: converges in well under 120 steps)."""
    tiny = 1e-300
    f = x.copy()
    c = x.copy()
    d = np.zeros_like(x)
    for n in range(1, 120):
        a = n / 2.0
        d = x + a * d
        d = np.where(d == 0, tiny, d)
        c = x + a / c
        c = np.where(c == 0, tiny, c)
        d = 1.0 / d
        f = f * c * d
    return f


@_quiet
def ndtr(x):
    """Phi(x) = erfc(-x / sqrt 2) / 2."""
    return 0.5 * erfc(-x / _SQRT2)


@_quiet
def log_ndtr(x):
    """log Phi(x): log(erfcx(-x/sqrt2)/2) - x^2/2 below -1, log1p(-erfc(x/sqrt2)/2) above."""
    t = x / _SQRT2
    low = x < -1
    out = np.empty_like(x)
    out[low] = np.log(erfcx(-t[low]) / 2) - t[low] * t[low]
    out[~low] = np.log1p(-erfc(t[~low]) / 2)
    return out


@_quiet
def ndtri(p):
    """Phi^-1(p): a rational first guess (Abramowitz & Stegun 26.2.23, error < 4.5e-4), then
    Newton steps on log Phi (well conditioned in both tails)."""
    lower = np.minimum(p, 1 - p)
    valid = (lower > 0) & ~np.isnan(p)
    q = np.where(valid, lower, 0.5)
    t = np.sqrt(-2.0 * np.log(q))
    guess = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t)
              / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3))
    target = np.log(q)
    x = guess
    for _ in range(6):
        value = log_ndtr(x)
        slope = np.exp(-0.5 * x * x - value - _LOG_SQRT_2PI)
        x = x - (value - target) / slope
    x = np.where(p > 0.5, -x, x)
    x = np.where(p == 0.5, 0.0, x)
    x = np.where(p == 0, -np.inf, x)
    x = np.where(p == 1, np.inf, x)
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, x)


# -- regularised incomplete gamma functions ----------------------------------------------------


def _igamma_prefactor(a, x):
    """x^a e^-x / Gamma(a), in logs."""
    return np.exp(a * np.log(x) - x - lgamma(a))


def _igamma_series(a, x):
    """P(a, x) by its power series (x < a + 1)."""
    term = np.ones_like(x) / a
    total = term.copy()
    n = a.copy()
    for _ in range(5000):
        n = n + 1
        term = term * x / n
        total = total + term
        if np.all(np.abs(term) <= np.abs(total) * _EPS):
            break
    return total * _igamma_prefactor(a, x)


def _igammac_fraction(a, x):
    """Q(a, x) by its continued fraction (x >= a + 1), modified Lentz."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / b
    h = d.copy()
    for i in range(1, 5000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1) <= _EPS):
            break
    return h * _igamma_prefactor(a, x)


def _incomplete_gamma(a, x, upper: bool):
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    regular = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    by_series = regular & (x < a + 1)
    by_fraction = regular & ~by_series
    if by_series.any():
        lower = _igamma_series(a[by_series], x[by_series])
        out[by_series] = 1 - lower if upper else lower
    if by_fraction.any():
        upper_value = _igammac_fraction(a[by_fraction], x[by_fraction])
        out[by_fraction] = upper_value if upper else 1 - upper_value
    # torch's edge cases: a = 0 (x > 0) is P = 1; x = 0 (a > 0) is P = 0; x = inf is P = 1;
    # a = inf (x finite) is P = 0; negative arguments and 0/0 are nan.
    lower_edge = np.full(a.shape, np.nan)
    lower_edge = np.where((a == 0) & (x > 0), 1.0, lower_edge)
    lower_edge = np.where((x == 0) & (a > 0), 0.0, lower_edge)
    lower_edge = np.where((x == np.inf) & (a > 0) & np.isfinite(a), 1.0, lower_edge)
    lower_edge = np.where((a == np.inf) & (x >= 0) & np.isfinite(x), 0.0, lower_edge)
    edge = ~regular & ~np.isnan(lower_edge)
    out[edge] = (1 - lower_edge[edge]) if upper else lower_edge[edge]
    return out


@_quiet
def gammainc(a, x):
    """The regularised lower incomplete gamma function P(a, x)."""
    return _incomplete_gamma(a, x, upper=False)


@_quiet
def gammaincc(a, x):
    """The regularised upper incomplete gamma function Q(a, x)."""
    return _incomplete_gamma(a, x, upper=True)


__all__ = ["lgamma", "digamma", "trigamma", "zeta", "polygamma", "i0", "i0e", "i1", "i1e",
           "erfcx", "ndtr", "log_ndtr", "ndtri", "gammainc", "gammaincc", "erf"]
