"""Unary math beyond the basics in elementwise.py: exp/log variants, trig and hyperbolic
functions and their inverses, erf family, rounding, sgn and nan_to_num.

Backward formulas follow torch's derivatives.yaml, written with Tensor ops so that they are
themselves differentiable (create_graph=True, gradgradcheck).

Note: dtype rules of unary math (torch's)
- Transcendental functions of integer or bool tensors compute in the default float dtype.
- Rounding (floor, ceil, round, trunc), sign/sgn and nan_to_num keep integer dtypes (a copy);
  rounding a bool tensor and ``frac`` of any non-float tensor raise torch's NotImplementedError.
- float16 is computed by NumPy's float16 loops, which upcast to float32 per operation and round,
  as torch's CPU kernels do.
"""

from __future__ import annotations

import math

import numpy as np

from . import _batching_rules as batch, _float_kernels, _layout, _libm, _mkl, _promote
from . import _sleef_unary
from ._special import erf as _erf64, erfc as _erfc64
from ._forward import auto_element_wise
from .elementwise import _legacy_name, _scale
from . import _uint
from ._float_kernels import magnitude
from .registry import Op, register
from ..tensor import _wrap
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from . import _inference_writes as _writes
from ._masks import zeros_tensor
from .complex import Conj
from .. import _dtype
from ._bfloat16 import to_bfloat16
from ..autograd.graph import zero_grad_tensor

# derivatives.yaml's literals (log2: 0.6931471805599453, log10: 2.3025850929940456, which is
# the double one ulp below math.log(10): log10's float64 gradient was a last bit off on ~90% of
# elements with it)
_LN2 = 0.6931471805599453
_LN10 = 2.3025850929940456
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _zeros_like(grad):
    """torch's ``zeros_like(grad)`` in a backward: a constant, so it starts no graph of its own
    (a create_graph gradient of floor/round/sign does not require grad, as in torch)."""
    return zeros_tensor(grad._data.shape, grad._data.dtype)  # a capturable kernel


def _not_implemented(kernel: str, array: np.ndarray):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_legacy_name(array)}\'')


class _FloatUnary(Op):
    """Float-valued unary math (see Note: dtype rules of unary math)."""

    __slots__ = ()
    compute = None

    @classmethod
    def forward(cls, ctx, a):
        source, a = a, _promote.float_result(a)
        with np.errstate(all="ignore"):  # domain errors give nan/inf silently, as in torch
            return _layout.unary_like(np.asarray(cls.compute(a)), source)


def _in_float64(function):
    """Run a float64-only implementation (erf, erfinv) and return the input's dtype."""

    def run(a: np.ndarray) -> np.ndarray:
        return np.asarray(function(np.asarray(a, dtype=np.float64))).astype(a.dtype, copy=False)

    return run


def _vml(name: str, fallback):
    """MKL's ``name`` where torch calls it and the optional ``mkl`` package is installed
    (Note: torch's MKL functions, ops/_mkl.py), else ``fallback``; a NumPy ufunc fallback
    computes float32 in float64 and rounds once, which is torch's (MKL's or SLEEF's) result
    far more often than NumPy's float32 loop (atan: 99.99% against 72%, sinh 99.9% against
    88%; docs/float32-bits.md)."""

    def compute(a: np.ndarray) -> np.ndarray:
        result = _mkl.kernel(name, a)
        if result is not None:
            return result
        if a.dtype == np.float32 and isinstance(fallback, np.ufunc):
            return _float_kernels._rounded(fallback, a)
        return fallback(a)

    compute.__name__ = name
    return compute


# -- exponentials and logarithms ----------------------------------------------------------------

_log1p_default = _vml("log1p", np.log1p)
_expm1_default = _vml("expm1", np.expm1)


def _expm1(a: np.ndarray) -> np.ndarray:
    # torch's float32 expm1 is SLEEF's expm1f on every element: replayed under
    # backends.cpu.torch_bits (ops/_sleef_unary.py)
    exact = _sleef_unary.expm1(a)
    return _expm1_default(a) if exact is None else exact


def _log1p(a: np.ndarray) -> np.ndarray:
    # torch's float32 log1p is SLEEF's log1pf (glibc's on the scalar path), not MKL's:
    # replayed under backends.cpu.torch_bits (ops/_sleef_unary.py)
    exact = _sleef_unary.log1p(a)
    return _log1p_default(a) if exact is None else exact



@register
class Exp2(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "Exp2Backward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"result": ("self",)}
    # float32: float64's exp2 rounded once (torch's std::exp2f / SLEEF's exp2f far more often
    # than NumPy's float32 loop: 6% against 22% of 100,000 values off torch on AVX-512 NumPy)
    compute = staticmethod(_float_kernels._vml_or_rounded("exp2", np.exp2))
    torch_names = ("exp2", "special.exp2")

    def backward(self, grad):
        # torch: grad * result.conj() * M_LN2, the last a Scalar product (MulBackward1)
        return _scale(grad * conj(self.saved("result")), _LN2)

    jvp = auto_element_wise


@register
class Expm1(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "Expm1Backward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"result": ("self",)}
    compute = staticmethod(_expm1)
    torch_names = ("expm1", "special.expm1")

    def backward(self, grad):
        return grad * (conj(self.saved("result")) + 1)

    jvp = auto_element_wise


@register
class Log2(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "Log2Backward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("log2", np.log2))
    torch_names = ("log2",)

    def backward(self, grad):
        return grad / (conj(self.saved("self")) * _LN2)

    jvp = auto_element_wise


@register
class Log10(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "Log10Backward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("log10", np.log10))
    torch_names = ("log10",)

    def backward(self, grad):
        return grad / (conj(self.saved("self")) * _LN10)

    jvp = auto_element_wise


@register
class Log1p(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "Log1PBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_log1p)
    torch_names = ("log1p", "special.log1p")

    def backward(self, grad):
        return grad / conj(self.saved("self") + 1)

    jvp = auto_element_wise


def _rsqrt(a: np.ndarray) -> np.ndarray:
    # rsqrt(-0.) = -inf and rsqrt(x < 0) = nan, as in torch. float16 computes
    # 1 / sqrt in float32 (Vectorized<Half>::rsqrt converts to float) and rounds
    # once (its vector op). The scalar op (the leftover elements:
    # _layout.vectorized_elements; rsqrt_stub is a plain REGISTER_DISPATCH, so the AVX2
    # width) rounds std::sqrt's half result first, then the quotient
    if a.dtype == np.float16:
        root = np.sqrt(a.astype(np.float32)).astype(a.dtype)
        scalar = (1 / root.astype(np.float32)).astype(a.dtype)
        vectorised = _layout.vectorized_elements(a.shape, (a,), a.itemsize)
        if vectorised is None:
            return scalar
        single = (1 / np.sqrt(a.astype(np.float32))).astype(a.dtype)
        return np.where(vectorised, single, scalar)
    if a.dtype.kind == "c":  # c10::complex's division of 1 by the root (as reciprocal's)
        return _float_kernels.complex_divide(a.dtype.type(1), np.sqrt(a))
    return 1 / np.sqrt(a)


def _rsqrt_bfloat16(out, operands, params):
    """``bfloat16_finish`` of rsqrt: the vectorised elements are float32's 1 / sqrt rounded
    once (``out``); torch's scalar op on the leftover ones rounds c10's bfloat16 sqrt first,
    then the quotient (as float16's, _rsqrt)."""
    if out.__class__ is not np.ndarray or not operands or operands[0].__class__ is not np.ndarray:
        return out
    with np.errstate(all="ignore"):
        root = np.sqrt(operands[0].astype(np.float32)).astype(out.dtype).astype(np.float32)
        scalar = (np.float32(1) / root).astype(out.dtype)
    vectorised = _layout.vectorized_elements(out.shape, (operands[0],), 2)
    return scalar if vectorised is None else np.where(vectorised, out, scalar)


@register
class Rsqrt(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "RsqrtBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"result": ("self",)}
    compute = staticmethod(_rsqrt)
    bfloat16_finish = staticmethod(_rsqrt_bfloat16)
    torch_names = ("rsqrt",)

    def backward(self, grad):
        return -0.5 * grad * conj(self.saved("result").pow(3))

    jvp = auto_element_wise


# -- trigonometric and hyperbolic -----------------------------------------------------------------


@register
class Tan(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "TanBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"result": ("self",)}
    compute = staticmethod(_vml("tan", np.tan))
    torch_names = ("tan",)

    def backward(self, grad):
        return grad * conj(1 + self.saved("result").pow(2))

    jvp = auto_element_wise


@register
class Asin(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "AsinBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("asin", np.arcsin))
    torch_names = ("asin", "arcsin")

    def backward(self, grad):
        x = self.saved("self")
        return grad * conj((-x * x + 1).rsqrt())

    jvp = auto_element_wise


@register
class Acos(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "AcosBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("acos", np.arccos))
    torch_names = ("acos", "arccos")

    def backward(self, grad):
        x = self.saved("self")
        return grad * conj(-((-x * x + 1).rsqrt()))

    jvp = auto_element_wise


@register
class Atan(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "AtanBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("atan", np.arctan))
    torch_names = ("atan", "arctan")

    def backward(self, grad):
        x = self.saved("self")
        return grad / conj(x * x + 1)

    jvp = auto_element_wise


@register
class Sinh(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "SinhBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("sinh", np.sinh))
    torch_names = ("sinh",)

    def backward(self, grad):
        return grad * conj(self.saved("self").cosh())

    jvp = auto_element_wise


@register
class Cosh(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "CoshBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("cosh", np.cosh))
    torch_names = ("cosh",)

    def backward(self, grad):
        return grad * conj(self.saved("self").sinh())

    jvp = auto_element_wise


@register
class Asinh(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "AsinhBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_libm.arcsinh)  # torch's scalar std::asinh (ops/_libm.py)
    torch_names = ("asinh", "arcsinh")

    def backward(self, grad):
        return grad * conj((self.saved("self").pow(2) + 1).rsqrt())

    jvp = auto_element_wise


@register
class Acosh(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "AcoshBackward0"
    saves = {"self": ("self",)}
    compute = staticmethod(_libm.arccosh)  # torch's scalar std::acosh (ops/_libm.py)
    torch_names = ("acosh", "arccosh")

    def backward(self, grad):
        x = self.saved("self")
        if x._data.dtype.kind == "c":  # sqrt(x*y) != sqrt(x)*sqrt(y) off the real line
            return grad * conj((x + 1).rsqrt() * (x - 1).rsqrt())
        return grad * (x * x - 1).rsqrt()

    jvp = auto_element_wise


@register
class Atanh(_FloatUnary):
    complex_ok = True  # Note: torch's convention for complex gradients
    node = "AtanhBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("atanh", np.arctanh))
    torch_names = ("atanh", "arctanh")

    def backward(self, grad):
        # derivatives.yaml: grad * 1 / (1 - self.pow(2)).conj(), whose grad * 1 is a recorded
        # product with a Scalar (MulBackward1 under create_graph; the same bits as grad)
        return grad * 1 / conj(1 - self.saved("self").pow(2))

    jvp = auto_element_wise


# -- error function family ----------------------------------------------------------------------


def _erfinv64(y: np.ndarray) -> np.ndarray:
    """Inverse error function in float64.

    A start from Giles' single-precision approximation ("Approximating the erfinv function",
    GPU Computing Gems, 2011), refined on t = erfinv(|y|):
    - |y| <= 0.5: Halley steps on erf(t) - |y| (cubic convergence, two steps suffice);
    - |y| > 0.5: Newton steps on log(erfc(t)) - log(1 - |y|). 1 - |y| is exact there and erfc
      keeps its relative precision, so the tail (t -> inf as |y| -> 1) stays accurate, and the
      logarithm makes Newton converge from Giles' start even next to 1 (where that start is off
      by 10%). Measured against torch: within ~30 ulps, bounded by _special.erfc's accuracy.
    """
    y = np.asarray(y, dtype=np.float64)
    a = np.abs(y)
    t = np.zeros_like(a)
    inside = a < 1.0
    if np.any(inside):
        ai = a[inside]
        w = -np.log((1.0 - ai) * (1.0 + ai))
        start = _giles_erfinv(w) * ai
        central = ai <= 0.5
        tc, ac = start[central], ai[central]
        for _ in range(2):
            step = (_erf64(tc) - ac) / (_TWO_OVER_SQRT_PI * np.exp(-tc * tc))
            tc = tc - step / (1.0 + tc * step)
        tt, at = start[~central], ai[~central]
        log_target = np.log1p(-at)
        for _ in range(4):
            tail = _erfc64(tt)
            tt = tt + (np.log(tail) - log_target) * tail / (_TWO_OVER_SQRT_PI * np.exp(-tt * tt))
        refined = np.empty_like(ai)
        refined[central] = tc
        refined[~central] = tt
        t[inside] = refined
    t[a == 1.0] = np.inf
    out = np.array(np.copysign(t, y))  # keeps erfinv(-0.) = -0.
    out[(a > 1.0) | np.isnan(a)] = np.nan
    return out


def _giles_erfinv(w: np.ndarray) -> np.ndarray:
    """Giles' polynomial p(w) with erfinv(x) ~ p(w) * x, where w = -log(1 - x^2)."""
    central = w < 5.0
    p = np.empty_like(w)
    wc = w[central] - 2.5
    pc = np.full_like(wc, 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        pc = c + pc * wc
    p[central] = pc
    wt = np.sqrt(w[~central]) - 3.0
    pt = np.full_like(wt, -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        pt = c + pt * wt
    p[~central] = pt
    return p


@register
class Erf(_FloatUnary):
    node = "ErfBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = '"erf_vml_cpu" not implemented for \'ComplexFloat\''
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("erf", _in_float64(_erf64)))
    torch_names = ("erf", "special.erf")

    def backward(self, grad):
        # (C++ number * tensor: mul.Scalar, MulBackward1 under create_graph)
        return _scale((-(self.saved("self").pow(2))).exp(), _TWO_OVER_SQRT_PI) * grad

    jvp = auto_element_wise


@register
class Erfc(_FloatUnary):
    node = "ErfcBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = '"erfc_vml_cpu" not implemented for \'ComplexFloat\''
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("erfc", _in_float64(_erfc64)))
    torch_names = ("erfc", "special.erfc")

    def backward(self, grad):
        return _scale((-(self.saved("self").pow(2))).exp(), -_TWO_OVER_SQRT_PI) * grad

    jvp = auto_element_wise


@register
class Erfinv(_FloatUnary):
    node = "ErfinvBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = '"erfinv_vml_cpu" not implemented for \'ComplexFloat\''
    saves = {"self": ("self",)}
    compute = staticmethod(_vml("erfinv", _in_float64(_erfinv64)))
    torch_names = ("erfinv", "special.erfinv")

    def backward(self, grad):
        # torch recomputes erfinv(self) here rather than saving the result
        return _scale(self.saved("self").erfinv().pow(2).exp(), _HALF_SQRT_PI) * grad

    jvp = auto_element_wise


# -- rounding: zero gradients (torch: zeros_like(grad)) -------------------------------------------


class _Rounding(Op):
    """floor/ceil/round/trunc: integer tensors come back as a copy; bool is refused."""

    __slots__ = ()
    compute = None
    kernel = ""

    @classmethod
    def forward(cls, ctx, a):
        if a.dtype == np.bool_:
            raise _not_implemented(cls.kernel, a)
        if a.dtype.kind in "iu":
            return a.copy()
        return np.asarray(cls.compute(a))

    def backward(self, grad):
        return _zeros_like(grad)

    jvp = auto_element_wise


@register
class Floor(_Rounding):
    node = "FloorBackward0"
    inference_writes = staticmethod(_writes.integer_copy)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = 'floor is not supported for complex inputs'
    compute = staticmethod(np.floor)
    kernel = "floor_vml_cpu"
    torch_names = ("floor",)


@register
class Ceil(_Rounding):
    node = "CeilBackward0"
    inference_writes = staticmethod(_writes.integer_copy)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = 'ceil is not supported for complex inputs'
    compute = staticmethod(np.ceil)
    kernel = "ceil_vml_cpu"
    torch_names = ("ceil",)


@register
class Trunc(_Rounding):
    node = "TruncBackward0"
    inference_writes = staticmethod(_writes.integer_copy)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = 'trunc is not supported for complex inputs'
    compute = staticmethod(np.trunc)
    kernel = "trunc_vml_cpu"
    torch_names = ("trunc", "fix")


@register
class Round(_Rounding):
    """Round half to even (torch's nearbyint), like np.rint."""

    node = "RoundBackward0"
    inference_writes = staticmethod(_writes.integer_copy)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = '"round_vml_cpu" not implemented for \'ComplexFloat\''
    compute = staticmethod(np.rint)
    kernel = "round_vml_cpu"
    torch_names = ("round",)


@register
class RoundDecimals(Op):
    """``round(x, decimals=d)``: torch scales by 10**|d|, rounds half to even, scales back."""

    node = "RoundBackward1"
    uint_kernel = staticmethod(_uint.round_decimals_kernel)
    torch_names = ("round",)

    @staticmethod
    def forward(ctx, a, decimals):
        if a.dtype.kind != "f":
            kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
            raise _not_implemented(kernel, a)
        # float16 computes in float32 (torch's opmath type), then rounds once
        work = a.astype(np.float32) if a.dtype == np.float16 else a
        scale = work.dtype.type(10.0 ** abs(decimals))
        with np.errstate(all="ignore"):
            if decimals >= 0:
                out = np.rint(work * scale) / scale
            else:
                out = np.rint(work / scale) * scale
        return np.asarray(out).astype(a.dtype, copy=False)

    def backward(self, grad):
        return _zeros_like(grad)

    jvp = auto_element_wise


@register
class Frac(Op):
    """``x - trunc(x)``; its gradient is the incoming gradient."""

    node = "FracBackward0"
    torch_names = ("frac",)

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind != "f":
            raise _not_implemented("frac_cpu", a)
        with np.errstate(invalid="ignore"):  # frac(inf) = nan
            return np.asarray(a - np.trunc(a))

    def backward(self, grad):
        return grad

    jvp = auto_element_wise


def sign_array(a: np.ndarray) -> np.ndarray:
    """torch's sign: ``(0 < x) - (x < 0)``, so sign(nan) = 0 and sign(-0.) = +0."""
    if a.dtype == np.bool_:
        return a.copy()
    if a.dtype.kind in "iu":
        return np.sign(a)
    return np.asarray((a > 0).astype(a.dtype) - (a < 0).astype(a.dtype))


@register
class Sgn(Op):
    """sgn(x) = sign(x) for real tensors; torch's gradient for real inputs is zero."""

    node = "SgnBackward0"
    uint_kernel = "sign_cpu"
    complex_ok = True
    vmap = batch.elementwise  # (its jvp is not auto_element_wise, which would imply this rule)
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("sgn",)

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind == "c":
            modulus = magnitude(a)  # as Abs computes it
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(modulus == 0, 0, a / modulus).astype(a.dtype)
        return sign_array(a)

    def backward(self, grad):
        a = self.saved("self")
        if a._data.dtype.kind != "c":
            # torch's efficient zeros (Note: zero gradients, autograd/graph.py)

            return zero_grad_tensor(_zeros_like(grad))
        # z / |z| moves only along the circle: the gradient is grad's component tangent to it,
        # over |z|, and 0 at z == 0, written as torch's sgn_backward: ((gx - (sgn * sgn) *
        # gx.conj()) / (2. * abs)).masked_fill_(abs == 0., 0.) (its nodes under create_graph,
        # MaskedFillBackward0 where a where recorded WhereBackward0, and its rounding)
        result = self.saved("result")
        magnitude = a.abs()
        out = (grad - (result * result) * Conj.apply(grad)) / _scale(magnitude, 2.0)
        return out.masked_fill_(magnitude == 0, 0)

    def jvp(self, tangents, primals, result):
        # sgn is not holomorphic: its derivative along dz is the backward formula with dz in
        # place of grad (torch's sgn_backward(self_p, self_t, result)), not the conjugated one
        # auto_element_wise takes for complex numbers
        if primals[0]._data.dtype.kind != "c":
            return _zeros_like(tangents[0])
        return self.backward(tangents[0])


@register
class NanToNum(Op):
    """Replace nan, +inf, -inf by numbers (defaults: 0 and the dtype's largest finite values)."""

    node = "NanToNumBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True  # the real and imaginary parts apart (torch's kernel)
    complex_autograd = False  # torch has no complex derivative for it
    saves = {"self": ("self",)}
    torch_names = ("nan_to_num",)
    bfloat16_native = True  # the defaults are bfloat16's own largest values

    @staticmethod
    def forward(ctx, a, nan=None, posinf=None, neginf=None):
        if _dtype.is_bfloat16_array(a):
            # float32's largest values would round to inf: bfloat16's are 0x7F7F / 0xFF7F
            largest = float(np.array(0x7F7F0000, np.uint32).view(np.float32))
            wide = NanToNum.forward(None, a.astype(np.float32), nan,
                                    largest if posinf is None else posinf,
                                    -largest if neginf is None else neginf)
            return to_bfloat16(wide)
        if a.dtype.kind == "c":
            out = _layout.copy_like(a)
            out.real = NanToNum.forward(None, np.ascontiguousarray(a.real), nan, posinf, neginf)
            out.imag = NanToNum.forward(None, np.ascontiguousarray(a.imag), nan, posinf, neginf)
            return out
        out = _layout.copy_like(a)
        if a.dtype.kind != "f":
            return out
        info = np.finfo(a.dtype)
        with np.errstate(over="ignore"):  # a replacement beyond the dtype's range becomes inf
            out[np.isnan(a)] = a.dtype.type(0.0 if nan is None else nan)
            out[np.isposinf(a)] = info.max if posinf is None else a.dtype.type(posinf)
            out[np.isneginf(a)] = info.min if neginf is None else a.dtype.type(neginf)
        return out

    def backward(self, grad):
        finite = np.isfinite(self.saved("self")._data)
        return grad * _wrap(finite)

    jvp = auto_element_wise
