"""The C library's elementary functions on arrays, whichever loops NumPy's build dispatches to.

torch's scalar CPU loops call the C library (``std::pow``, ``std::atan2``, ``std::expm1``, ...:
glibc's ``pow``/``powf`` and so on), and leafgrad's replays of them take those values from
NumPy, whose ufunc loops call the same functions on most machines. On a processor with AVX-512,
NumPy 2.x dispatches many of these loops to its own AVX-512 code instead (Intel's SVML for
``power``, ``arctan2``, ``expm1``, ``log1p``, ``cbrt``, the inverse and hyperbolic functions,
float32 and float64; NumPy's AVX-512F ``exp``/``log`` for float64). That code is faster and
accurate to an ulp or so, but differs from the C library in the last bit for a few percent of
inputs (``arctan2(1., 1.)`` in float32 is 0.78539812 there, 0.78539819 from glibc), so a
replay built on it stops matching torch there.

Each function here checks once, on a fixed probe of inputs, whether NumPy's loop for that dtype
gives the C library's bits. Where it does, the function is NumPy's own (no cost). Where it
does not, arrays of up to ``EXACT_MAX`` elements are computed element by element through the C
library (Python's ``math`` module for float64, the library's ``f``-suffixed functions through
ctypes for float32); larger arrays keep NumPy's float64 values (its speed, a last-bit
difference) and take float32 ones as float64's rounded once.
Where ``math`` refuses an argument (``log(0.)``, ``pow(0., -1.)``, an overflow) the C library
returns the infinity or NaN NumPy does, and NumPy's value stands. The element-by-element path
costs about 0.1 us per float64 element and 0.3 us per float32 one (a ctypes call) on top of a
few microseconds.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

__all__ = ["EXACT_MAX", "arccosh", "arcsinh", "arctan2", "call", "erff", "exp", "expf", "expm1",
           "logf", "power"]

EXACT_MAX = 1024  # elements computed one by one at most (~0.3 ms at worst)

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)

# NumPy ufunc -> (the math module's float64 function, the C library's float32 function's name)
_FUNCTIONS = {
    "exp": (np.exp, math.exp, "expf"),
    "log": (np.log, math.log, "logf"),
    "expm1": (np.expm1, math.expm1, "expm1f"),
    "log1p": (np.log1p, math.log1p, "log1pf"),
    "power": (np.power, math.pow, "powf"),
    "arctan2": (np.arctan2, math.atan2, "atan2f"),
    "arcsinh": (np.arcsinh, math.asinh, "asinhf"),
    "arccosh": (np.arccosh, math.acosh, "acoshf"),
    "tanh": (np.tanh, math.tanh, "tanhf"),
}

_exact: dict = {}  # (name, dtype) -> whether NumPy's loop is the C library's
_libm = None


def _c_library():
    global _libm
    if _libm is None:
        try:
            _libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        except OSError:
            _libm = False
    return _libm


def _float32_function(name: str, nin: int):
    library = _c_library()
    function = getattr(library, name, None) if library else None
    if function is None:
        return None
    function.restype = ctypes.c_float
    function.argtypes = [ctypes.c_float] * nin
    return function


def _element_function(name: str, dtype: np.dtype):
    ufunc, double, single = _FUNCTIONS[name]
    if dtype == _F64:
        return double
    return _float32_function(single, ufunc.nin)


def _probe(name: str, dtype: np.dtype) -> np.ndarray:
    rng = np.random.default_rng(2013)
    values = rng.standard_normal((2, 4096)) * 3
    if name in ("log", "log1p", "power"):
        values[0] = np.abs(values[0]) + 0.01
    if name == "arccosh":
        values[0] = np.abs(values[0]) + 1
    if name in ("exp", "expm1"):
        values[0] /= 4
    return values.astype(dtype)


def _numpy_is_exact(name: str, dtype: np.dtype) -> bool:
    key = (name, dtype)
    known = _exact.get(key)
    if known is None:
        ufunc = _FUNCTIONS[name][0]
        function = _element_function(name, dtype)
        if function is None:  # no C library to compare with: NumPy's values stand
            known = True
        else:
            args = list(_probe(name, dtype)[:ufunc.nin])
            with np.errstate(all="ignore"):
                ours = ufunc(*args)
            theirs = np.array([function(*v) for v in zip(*(a.tolist() for a in args))],
                              dtype=dtype)
            known = bool(np.array_equal(ours, theirs, equal_nan=True))
        _exact[key] = known
    return known


def _column(a, shape: tuple, size: int) -> list:
    """``a``'s values broadcast to ``shape``, as a flat list in row-major order."""
    if not isinstance(a, np.ndarray) or a.size == 1:
        return [float(a.ravel()[0]) if isinstance(a, np.ndarray) else float(a)] * size
    if a.shape != shape:
        a = np.broadcast_to(a, shape)
    return a.ravel().tolist()


def call(name: str, *arrays, exact_max: float = EXACT_MAX):
    """NumPy's ``name`` ufunc of ``arrays`` (one dtype, float32 or float64) with the C library's
    bits (see the module's docstring) up to ``exact_max`` elements. Other dtypes go straight
    to NumPy."""
    ufunc = _FUNCTIONS[name][0]
    with np.errstate(all="ignore"):
        result = ufunc(*arrays)
    dtype = result.dtype
    if dtype not in (_F32, _F64) or _numpy_is_exact(name, dtype):
        return result
    size = result.size
    if not size:
        return result
    if size > exact_max:
        if dtype == _F32:  # float64's function rounded once: nearer the C library's than
            with np.errstate(all="ignore"):  # NumPy's float32 loops
                return ufunc(*arrays, dtype=_F64).astype(_F32)
        return result
    function = _element_function(name, dtype)
    if function is None:
        return result
    result = np.array(result, order="K")  # (a fresh NumPy scalar or array: written below)
    shape = result.shape
    columns = [_column(a, shape, size) for a in arrays]
    try:
        values = list(map(function, *columns))
    except (ValueError, OverflowError):  # math refuses where C returns inf/NaN: NumPy's stands
        values = []
        for arguments, fallback in zip(zip(*columns), result.ravel(order="C").tolist()):
            try:
                values.append(function(*arguments))
            except (ValueError, OverflowError):
                values.append(fallback)
    np.copyto(result, np.array(values, dtype=dtype).reshape(shape))
    return result


def exp(a):
    if isinstance(a, np.ndarray) and a.dtype == _F32:
        return expf(a)  # every size, at ~1% of the element-by-element cost
    return call("exp", a)


# glibc's expf (sysdeps/ieee754/flt-32/e_expf.c) computes in double with a relative error
# below 2**-33 before its one rounding to float, so float64's exp rounded once is its result
# except where the value lies that close to a float32 rounding midpoint: within 2**19 float64
# ulps of one (NumPy's float64 exp adds an ulp or so); these, about 1 element in 128, call it.
_EXPF_MARGIN = 1 << 21
_LOW29 = np.uint64((1 << 29) - 1)  # the bits float64 has beyond float32's 24
_EXPF_FROM_MIDPOINT = np.uint64((1 << 28) - _EXPF_MARGIN)
_EXPF_NORMAL_BOUND = np.float32(-87.33)  # below: float32's subnormals (another rounding place)


def expf(a: np.ndarray) -> np.ndarray:
    """glibc's ``expf`` of a float32 array, every bit (the scalar loops of torch's float32
    kernels call ``std::exp``): float64's exp rounded once, with the elements near a rounding
    midpoint or in the subnormal range computed by the C library. Float64's exp rounded once
    alone differed on ~0.07% of inputs (e.g. expf(-0.49571458) is 0.6091355, not
    0.60913545)."""
    a = np.asarray(a, dtype=_F32)
    with np.errstate(all="ignore"):
        wide = np.asarray(np.exp(a, dtype=_F64))
        out = wide.astype(_F32)
    bits = wide.view(np.uint64) & _LOW29
    # wraps around below the window (a ufunc: a 0-d input's NumPy scalar warned overflow)
    bits = np.subtract(bits, _EXPF_FROM_MIDPOINT, out=bits if bits.ndim else None)
    near = bits < np.uint64(2 * _EXPF_MARGIN)
    near |= a < _EXPF_NORMAL_BOUND
    if near.any():
        function = _float32_function("expf", 1)
        if function is not None:
            values = [function(v) for v in a[near].tolist()]
            out[near] = np.array(values, dtype=_F32)
    return out


def erff(a: np.ndarray, exact_max: int = EXACT_MAX) -> np.ndarray:
    """The C library's ``erff`` of a float32 array (glibc's is computed in float and differs
    from float64's erf rounded once on ~4% of inputs): element by element up to
    ``exact_max`` elements, float64's rounded once past that or without a C library."""
    function = _float32_function("erff", 1) if a.size <= exact_max else None
    if function is None:
        from . import _special
        return _special.erf(a.astype(_F64)).astype(_F32)
    return np.array(list(map(function, a.ravel().tolist())), _F32).reshape(a.shape)


def expm1(a):
    return call("expm1", a)


def power(a, b):
    return call("power", a, b)


def arctan2(a, b):
    return call("arctan2", a, b)


def arcsinh(a):
    return call("arcsinh", a)


def arccosh(a):
    return call("arccosh", a)


# glibc's logf (sysdeps/ieee754/flt-32/e_logf.c, from Arm's optimized-routines): x = 2**k z with
# z near 1, a 16-entry table of 1/c and log(c) picked by z's leading mantissa bits, and
# log(x) = k ln2 + log(c) + log1p(z/c - 1), the log1p a degree-4 polynomial, computed in double
# and rounded once (its error reaches 0.82 ulp, so float64's log rounded once differs on ~0.3%
# of inputs). Replayed below with its fused multiply-adds (the library's FMA variant) for the
# positive normal numbers; checked once against the C library on a probe, which is called
# element by element where the two differ (another libm) and for other inputs.
_LOGF_TABLE = np.array([float.fromhex(value) for value in (
    "0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2", "0x1.571ed4aaf883dp+0",
    "-0x1.2bef0a7c06ddbp-2", "0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2",
    "0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3", "0x1.30d190c8864a5p+0",
    "-0x1.6574f0ac07758p-3", "0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3",
    "0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4", "0x1.12358f08ae5bap+0",
    "-0x1.1973c5a611cccp-4", "0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5", "0x1p+0",
    "0x0p+0", "0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5", "0x1.ca4b31f026aap-1",
    "0x1.c5e53aa362eb4p-4", "0x1.b2036576afce6p-1", "0x1.526e57720db08p-3",
    "0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3", "0x1.886e6037841edp-1",
    "0x1.1058bc8a07ee1p-2", "0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2")]).reshape(16, 2)
_LOGF_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_POLY = tuple(float.fromhex(value) for value in (
    "-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2"))
_logf_exact: list = []  # [whether the replay is the C library's logf], once checked
_LOGF_SPLITS: list = []  # the constants' Veltkamp halves (_softmax_bits._split64), once made


def _logf_replay(a: np.ndarray) -> np.ndarray:
    from ._softmax_bits import _fma64, _split64

    if not _LOGF_SPLITS:
        _LOGF_SPLITS.extend(_split64(c) for c in (_LOGF_LN2, _LOGF_POLY[0], _LOGF_POLY[1]))
    ln2, poly0, poly1 = _LOGF_SPLITS
    bits = a.view(np.uint32)
    tmp = bits - np.uint32(0x3F330000)
    index = (tmp >> np.uint32(19)) & np.uint32(15)
    k = (tmp.view(np.int32) >> np.int32(23)).astype(_F64)
    z = (bits - (tmp & np.uint32(0xFF800000))).view(np.float32).astype(_F64)
    inverse, log_c = _LOGF_TABLE[index, 0], _LOGF_TABLE[index, 1]
    with np.errstate(all="ignore"):
        r = _fma64(z, inverse, -1.0)
        y0 = _fma64(k, _LOGF_LN2, log_c, ln2)
        r2 = r * r
        y = _fma64(r, _LOGF_POLY[1], _LOGF_POLY[2], poly1)
        y = _fma64(r2, _LOGF_POLY[0], y, poly0)
        y = _fma64(y, r2, y0 + r)
    return y.astype(np.float32)


def logf(a: np.ndarray) -> np.ndarray:
    """The C library's ``logf`` of a float32 array, every bit (torch's scalar ``std::log`` of a
    float): glibc's algorithm replayed (above) where it is the library's, the library itself
    element by element elsewhere."""
    a = np.ascontiguousarray(a, dtype=_F32)
    function = _float32_function("logf", 1)
    if function is None:
        with np.errstate(all="ignore"):
            return np.log(a, dtype=_F64).astype(_F32)
    if not _logf_exact:
        probe = np.abs(_probe("log", _F32).ravel()) * np.float32(37)
        theirs = np.array([function(v) for v in probe.tolist()], dtype=_F32)
        _logf_exact.append(bool(np.array_equal(_logf_replay(probe), theirs)))
    bits = a.view(np.uint32)
    normal = (bits >= np.uint32(0x00800000)) & (bits < np.uint32(0x7F800000))
    if _logf_exact[0]:
        out = _logf_replay(a)
        other = ~normal
    else:
        out = np.empty_like(a)
        other = np.ones(a.shape, bool)
    if other.any():
        out[other] = np.array([function(v) for v in a[other].tolist()], dtype=_F32)
    return out
