"""Special functions (``torch.special`` and their top-level forms): the gamma family, modified
Bessel functions, the normal distribution's functions, incomplete gamma, Hurwitz zeta, sinc,
logit, entr, deg2rad/rad2deg and copysign. Values come from ops/_special_fns.py (float64,
rounded to the input's dtype); backward formulas are torch's derivatives.yaml, in Tensor ops.

Note: dtype rules of special functions
As the transcendental functions of math_unary.py: integer and bool tensors compute in the
default float dtype; float16/float32 are computed in float64 and rounded.
"""

from __future__ import annotations

import math

import numpy as np
from .. import _dtype as _dtype

from . import _layout, _libm
from . import _cephes_bessel
from . import _special_fns as fns
from . import _batching_rules as batch
from ._forward import auto_element_wise, jvp_sum
from .math_binary import _float_binary
from .math_logic import Where
from .math_unary import _FloatUnary, _in_float64
from .registry import Op, register
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from ._masks import zero_mask
from ..tensor import _wrap
from ._float_kernels import _PAIR, _PAIR64, _scalar_part
from .elementwise import MulScalar
from . import _promote
from .reduce import _sum_dims
from ._masks import zeros_tensor

_SQRT_2PI = math.sqrt(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _constant(value: float, like):
    """A 0-d constant in ``like``'s dtype (never requires grad)."""
    return _wrap(np.asarray(value, dtype=like._data.dtype))


def _where(mask, a, b):
    from ..tensor import Tensor

    return Where.apply(a, b, condition=mask if isinstance(mask, Tensor) else _wrap(mask))


# -- the gamma family -------------------------------------------------------------------------


@register
class Lgamma(_FloatUnary):
    node = "LgammaBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",)}
    compute = staticmethod(_in_float64(fns.lgamma))
    torch_names = ("lgamma", "special.gammaln")

    def backward(self, grad):
        return grad * Digamma.apply(self.saved("self"))

    jvp = auto_element_wise


@register
class Digamma(_FloatUnary):
    node = "DigammaBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",)}
    compute = staticmethod(lambda a: _layout.like(fns.digamma(a).astype(a.dtype, copy=False), a))
    torch_names = ("digamma", "special.digamma", "special.psi")

    def backward(self, grad):
        return grad * Polygamma.apply(self.saved("self"), n=1)

    jvp = auto_element_wise


@register
class Polygamma(Op):
    node = "PolygammaBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",)}
    torch_names = ("polygamma", "special.polygamma")

    @staticmethod
    def forward(ctx, a, n):
        a = _promote.float_result(a)
        return _layout.like(np.asarray(fns.polygamma(n, a)).astype(a.dtype, copy=False), a)

    def backward(self, grad):
        return grad * Polygamma.apply(self.saved("self"), n=self._params["n"] + 1)

    jvp = auto_element_wise


@register
class Mvlgamma(Op):
    """The multivariate log-gamma: sum_i lgamma(x - i/2) + p(p-1)/4 log(pi)."""

    node = "MvlgammaBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",)}
    torch_names = ("mvlgamma", "special.multigammaln")

    @staticmethod
    def forward(ctx, a, p):
        # torch: arange(-p/2 + 1/2, 1/2, 1/2).add(self.unsqueeze(-1)).lgamma_().sum(-1)
        # .add_(p (p - 1) log(pi) / 4), each step in the result's dtype (float16: the lgamma in
        # float32, rounded)
        a = _promote.float_result(a)
        dtype = a.dtype
        wide = np.float32 if dtype == np.float16 else dtype.type
        args = np.arange(-p * 0.5 + 0.5, 0.5, 0.5).astype(dtype) + a[..., None]
        values = np.asarray(Lgamma.compute(args.astype(wide))).astype(dtype, copy=False)
        total = np.asarray(_sum_dims(values, (values.ndim - 1,), False, None))
        constant = wide(p * (p - 1) * math.log(math.pi) * 0.25)
        total = (total.astype(wide) + constant).astype(dtype, copy=False)
        return _layout.contiguous(total)

    def backward(self, grad):
        # torch: grad * digamma(self.unsqueeze(-1) + arange(-p/2 + 1/2, 1/2, 1/2)).sum(-1)
        p = self._params["p"]
        x = self.saved("self")
        shifts = _wrap(np.arange(-p * 0.5 + 0.5, 0.5, 0.5).astype(x._data.dtype))
        return grad * Digamma.apply(x.unsqueeze(-1) + shifts).sum(-1)

    jvp = auto_element_wise


# -- modified Bessel functions ----------------------------------------------------------------


def _no_bfloat16_backward(x, kernel: str) -> None:
    """torch's i1/i1e backward kernels have no bfloat16 version."""
    if x._data.dtype.kind == "V":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'BFloat16'")


def _not_tiny(x):
    eps = _dtype.np_finfo(x._data.dtype).eps
    mask = np.abs(x._data) > eps
    return mask, _where(mask, x, _constant(eps, x))


@register
class I0(_FloatUnary):
    node = "I0Backward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",)}
    compute = staticmethod(_cephes_bessel.i0)  # torch's Cephes series
    torch_names = ("i0", "special.i0")

    def backward(self, grad):
        return grad * SpecialI1.apply(self.saved("self"))

    jvp = auto_element_wise


@register
class SpecialI0e(_FloatUnary):
    node = "SpecialI0EBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",), "result": ("self",)}
    compute = staticmethod(_cephes_bessel.i0e)  # torch's Cephes series
    bfloat16_native = True  # its scalar loop computes in bfloat16 itself (_cephes_bessel.py)
    torch_names = ("special.i0e",)

    @classmethod
    def forward(cls, ctx, a):
        if a.dtype == _dtype.bfloat16.np:
            return _layout.unary_like(np.asarray(_cephes_bessel.i0e(a)), a)
        return super().forward(ctx, a)

    def backward(self, grad):
        x = self.saved("self")
        return grad * (SpecialI1e.apply(x) - x.sgn() * self.saved("result"))

    jvp = auto_element_wise


@register
class SpecialI1(_FloatUnary):
    node = "SpecialI1Backward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",), "result": ("self",)}
    compute = staticmethod(_cephes_bessel.i1)  # torch's Cephes series
    torch_names = ("special.i1",)

    def backward(self, grad):
        # torch's i1_backward: i0(x) - i1(x)/x, with 1/2 where |x| <= eps
        _no_bfloat16_backward(self.saved("self"), "i1_backward")
        mask, safe = _not_tiny(self.saved("self"))
        derivative = I0.apply(safe) - self.saved("result") * safe.reciprocal()
        return grad * _where(mask, derivative, _constant(0.5, safe))

    jvp = auto_element_wise


@register
class SpecialI1e(_FloatUnary):
    node = "SpecialI1EBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",), "result": ("self",)}
    compute = staticmethod(_cephes_bessel.i1e)  # torch's Cephes series
    torch_names = ("special.i1e",)

    def backward(self, grad):
        # torch's i1e_backward: i0e(x) - i1e(x) (sgn(x) + 1/x), with 1/2 where |x| <= eps
        _no_bfloat16_backward(self.saved("self"), "i1e_backward")
        mask, safe = _not_tiny(self.saved("self"))
        derivative = SpecialI0e.apply(safe) - self.saved("result") * (
            safe.sgn() + safe.reciprocal())
        return grad * _where(mask, derivative, _constant(0.5, safe))

    jvp = auto_element_wise


# -- the normal distribution, erfcx, entr, sinc, logit -----------------------------------------


@register
class SpecialNdtri(_FloatUnary):
    node = "SpecialNdtriBackward0"
    bfloat16_kernel = "ndtri_cpu"  # torch has no bfloat16 kernel
    vmap = batch.elementwise
    saves = {"result": ("self",)}
    compute = staticmethod(_in_float64(fns.ndtri))
    torch_names = ("special.ndtri",)

    def backward(self, grad):
        return grad * _SQRT_2PI * (self.saved("result").square() / 2).exp()

    jvp = auto_element_wise


def _log_ndtr(x: np.ndarray) -> np.ndarray:
    """torch's calc_log_ndtr in the input's dtype: t = x * frac_sqrt_2, log1p(-erfc(t) / 2)
    from x = -1 up with the C library's erfc/erfcf and log1p/log1pf (its scalar kernel), every
    bit up to _libm.EXACT_MAX elements (82% of float32 values were a last bit off); below -1,
    log(erfcx(-t) / 2) - t * t from float64 (a last bit off in places)."""
    if x.dtype == np.float16:  # torch has no Half kernel
        raise NotImplementedError("\"log_ndtr_cpu\" not implemented for 'Half'")
    if x.dtype not in (np.float32, np.float64) or x.size > _libm.EXACT_MAX:
        return _in_float64(fns.log_ndtr)(x)
    library = _libm._c_library()
    if not library:
        return _in_float64(fns.log_ndtr)(x)
    single = x.dtype == np.float32
    erfc = _libm._float32_function("erfcf", 1) if single else _double_function(library, "erfc")
    real = x.dtype.type
    out = np.asarray(_in_float64(fns.log_ndtr)(x)).copy()  # (the x < -1 branch)
    high = ~(x < -1)
    with np.errstate(all="ignore"):
        t = x[high] * real(0.7071067811865476)
        e = np.array([erfc(v) for v in t.tolist()], dtype=x.dtype)
        if single:
            from ._sleef_unary import glibc_log1pf

            out[high] = glibc_log1pf(-e / real(2))
        else:
            out[high] = _libm.call("log1p", -e / real(2))
    nan = np.isnan(x)
    if nan.any():  # -erfc(NaN) / 2 carries the NaN through with its sign flipped
        out[nan] = -x[nan]
    return out


def _double_function(library, name: str):
    import ctypes

    function = getattr(library, name)
    function.restype = ctypes.c_double
    function.argtypes = [ctypes.c_double]
    return function


@register
class SpecialLogNdtr(_FloatUnary):
    node = "SpecialLogNdtrBackward0"
    bfloat16_kernel = "log_ndtr_cpu"  # torch has no bfloat16 kernel
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",), "result": ("self",)}
    compute = staticmethod(lambda a: _log_ndtr(a))
    torch_names = ("special.log_ndtr",)

    def backward(self, grad):
        x = self.saved("self")
        return grad / _SQRT_2PI * (-(self.saved("result") + x.pow(2) / 2)).exp()

    jvp = auto_element_wise


@register
class SpecialErfcx(_FloatUnary):
    node = "SpecialErfcxBackward0"
    bfloat16_kernel = "erfcx_cpu"  # torch has no bfloat16 kernel
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",), "result": ("self",)}
    compute = staticmethod(_in_float64(fns.erfcx))
    torch_names = ("special.erfcx",)

    def backward(self, grad):
        return (2.0 * self.saved("self") * self.saved("result") - _TWO_OVER_SQRT_PI) * grad

    jvp = auto_element_wise


def _entr(x: np.ndarray) -> np.ndarray:
    # torch's scalar kernel: -x * std::log(x), the C library's log/logf
    positive = np.where(x > 0, x, x.dtype.type(1))
    logs = _libm.call("log", positive) if x.dtype in (np.float32, np.float64) else np.log(positive)
    out = np.where(x > 0, -x * logs, 0.0)
    out = np.where(x < 0, -np.inf, out)
    return np.where(np.isnan(x), np.nan, out).astype(x.dtype, copy=False)


@register
class SpecialEntr(_FloatUnary):
    node = "SpecialEntrBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",)}
    compute = staticmethod(_entr)
    torch_names = ("special.entr",)

    def backward(self, grad):
        return grad * -(1 + self.saved("self").log())

    jvp = auto_element_wise


def _sinc(x: np.ndarray) -> np.ndarray:
    # torch's scalar kernel: sin(pi * x) / (pi * x) in the opmath type, pi as a float and the
    # C library's sinf for float32 and float16 (float64's sin rounded put 13% a bit off)
    work = x.astype(np.float32) if x.dtype == np.float16 else x
    scaled = work.dtype.type(np.pi) * work
    with np.errstate(all="ignore"):
        out = fns._sin_in_dtype(scaled) / scaled
    return np.where(x == 0, 1.0, out).astype(x.dtype, copy=False)


@register
class Sinc(_FloatUnary):
    node = "SincBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    saves = {"self": ("self",)}
    compute = staticmethod(_sinc)
    torch_names = ("sinc", "special.sinc")

    def backward(self, grad):
        # torch's sinc_backward: grad * ((x pi cos(x pi) - sin(x pi)) / (x x pi)).conj(), 0
        # where x x pi is 0 (x == 0, and where x * x underflows: float32's 1e-30)
        x = self.saved("self")
        scaled = x * math.pi
        squared = x * x * math.pi
        derivative = (scaled * scaled.cos() - scaled.sin()) / squared
        return _where(squared._data == 0, _constant(0.0, x), grad * conj(derivative))

    jvp = auto_element_wise


def _logit_edges(grad, x, derivative):
    """torch's logit_backward kernel: its scalar op gives dy * inf at x == 0 or 1 (+inf at
    x = -0., where dy / (x (1 - x)) is -inf); its vectorised op divides. Which elements take
    the scalar op is the vectorised loop's (the tail of each contiguous run, every element of
    a short one)."""
    data = x._data
    if data.dtype.kind != "f" or data.itemsize not in (4, 8):
        return derivative
    edges = (data == 0) | (data == 1)
    if not edges.any():
        return derivative
    part = _scalar_part(data, _PAIR if data.itemsize == 4 else _PAIR64)
    if part is None:
        return derivative
    scalar = np.zeros(data.shape, dtype=bool)
    scalar[part] = True
    return _where(edges & scalar, grad * math.inf, derivative)


@register
class Logit(Op):
    node = "LogitBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",)}
    torch_names = ("logit", "special.logit")

    @staticmethod
    def forward(ctx, a, eps=None):
        a = _promote.float_result(a)
        if eps is not None:
            low, high = a.dtype.type(eps), a.dtype.type(1 - eps)
            # torch's kernel: x < eps ? eps : (x > 1 - eps ? 1 - eps : x), which for eps > 0.5
            # is not a clip (the lower bound wins below it)
            a = np.clip(a, low, high) if low <= high else np.where(
                a < low, low, np.where(a > high, high, a))
        with np.errstate(all="ignore"):
            ratio = np.asarray(a / (1 - a))
            out = np.asarray(np.log(ratio))
        # torch's log of a negative ratio (p outside [0, 1]) is NaN with the sign bit clear
        # (NumPy's is x86's default NaN, negative); a NaN the division made stays as it is
        negative = ratio < 0
        if negative.any():
            out[negative] = np.abs(out[negative])
        return out

    def backward(self, grad):
        x = self.saved("self")
        eps = self._params.get("eps")
        derivative = _logit_edges(grad, x, grad / (x * (1 - x)))
        if eps is None:
            outside = (x._data < 0) | (x._data > 1)
            return _where(outside, _constant(math.nan, x), derivative)
        outside = (x._data < eps) | (x._data > 1 - eps)
        return _where(outside, _constant(0.0, x), derivative)

    jvp = auto_element_wise


@register
class AddScalarFormula(Op):
    """``tensor + number`` inside a composite torch writes in C++ (AddBackward1, one edge):
    ``special.ndtr`` is ``(1 + erf(x / sqrt 2)) / 2`` there."""

    node = "AddBackward1"
    complex_ok = True
    vmap = batch.elementwise
    torch_names = ("special.ndtr",)

    @staticmethod
    def forward(ctx, a, other):
        a, other = _promote.binary(a, other)
        return np.asarray(a + other)

    def backward(self, grad):
        return grad

    jvp = auto_element_wise


def ndtr(x):
    """``special.ndtr``: torch's composite (1 + erf(x / sqrt 2)) * 0.5 (float results)."""
    from .math_unary import Erf

    if _dtype.kind(x._data) != "f":
        x = _wrap(_promote.float_result(x._data))
    scaled = Erf.apply(MulScalar.apply(x, other=math.sqrt(0.5)))
    return MulScalar.apply(AddScalarFormula.apply(scaled, other=1), other=0.5)


# -- angles, copysign --------------------------------------------------------------------------


@register
class Deg2Rad(_FloatUnary):
    node = "Deg2RadBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    torch_names = ("deg2rad",)
    compute = staticmethod(lambda a: a * a.dtype.type(math.pi / 180.0))

    def backward(self, grad):
        return grad * (math.pi / 180.0)

    jvp = auto_element_wise


@register
class Rad2Deg(_FloatUnary):
    node = "Rad2DegBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    torch_names = ("rad2deg",)
    compute = staticmethod(lambda a: a * a.dtype.type(180.0 / math.pi))

    def backward(self, grad):
        return grad * (180.0 / math.pi)

    jvp = auto_element_wise


@register
class Copysign(Op):
    node = "CopysignBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("self",), "result": ("self",)}
    broadcasts = True
    torch_names = ("copysign",)

    @staticmethod
    def forward(ctx, a, b):
        a, b, dtype = _float_binary(a, b)
        return np.asarray(np.copysign(a, b)).astype(dtype, copy=False)

    def backward(self, grad):
        grad_self = grad_other = None
        if self.needs_grad(0):
            # torch's copysign_tensor_self_backward: grad * result / self, 0 where self == 0
            x = self.saved("self")
            grad_self = grad * (self.saved("result") / x)._masked_zero(zero_mask(x))
        if self.needs_grad(1):
            grad_other = zeros_tensor(grad._data.shape, grad._data.dtype)
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        x = primals[0]
        ratio = (result / x)._masked_zero(zero_mask(x))
        return jvp_sum(tangents[:1], lambda t: t * ratio)


@register
class CopysignScalar(Op):
    """``copysign(self, number)``."""

    node = "CopysignBackward1"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("copysign",)

    @staticmethod
    def forward(ctx, a, other):
        return Copysign.forward(None, a, other)

    def backward(self, grad):
        x = self.saved("self")
        return grad * (self.saved("result") / x)._masked_zero(zero_mask(x))

    jvp = auto_element_wise


# -- binary special functions -------------------------------------------------------------------


def _xlog1py(a, b):
    a, b, dtype = _float_binary(a, b)
    a, b = (x if isinstance(x, np.ndarray) else dtype.type(x) for x in (a, b))
    with np.errstate(all="ignore"):
        # torch's scalar kernel: x * std::log1p(y), the C library's log1pf/log1p
        if dtype == np.float32 and isinstance(b, np.ndarray):
            from ._sleef_unary import glibc_log1pf

            logs = glibc_log1pf(b)
        elif dtype == np.float64 and isinstance(b, np.ndarray):
            logs = _libm.call("log1p", b)
        else:
            logs = np.log1p(b)
        out = np.where(a == 0, 0, a * logs)
        out = np.where(np.isnan(b), np.nan, out)
    return np.asarray(out).astype(dtype, copy=False)


@register
class SpecialXlog1py(Op):
    node = "SpecialXlog1PyBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("self", "other"), "other": ("self", "other")}
    broadcasts = True
    torch_names = ("special.xlog1py",)

    @staticmethod
    def forward(ctx, a, b):
        return _xlog1py(a, b)

    def backward(self, grad):
        # torch: self: xlog1py(grad, other).masked_fill((self == 0) & (other <= -1), 0)
        #        other: grad * self / (other + 1)
        x, y = self.saved("self"), self.saved("other")
        grad_self = grad_other = None
        if self.needs_grad(0):
            grad_self = SpecialXlog1py.apply(grad, y)._masked_zero(
                (x._data == 0) & (y._data <= -1))
        if self.needs_grad(1):
            grad_other = grad * x / (y + 1)
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        x, y = primals
        return jvp_sum(tangents, lambda t: SpecialXlog1py.apply(t, y)._masked_zero(
            (x._data == 0) & (y._data <= -1)), lambda t: t * x / (y + 1))


@register
class SpecialXlog1pyScalarSelf(Op):
    """``special.xlog1py(number, other)``."""

    node = "SpecialXlog1PyBackward1"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    inputs = ("other",)
    saves = {"other": ("other",)}
    torch_names = ("special.xlog1py",)

    @staticmethod
    def forward(ctx, b, self):
        return _xlog1py(self, b)

    def backward(self, grad):
        return grad * self._params["self"] / (self.saved("other") + 1)

    jvp = auto_element_wise


@register
class SpecialXlog1pyScalarOther(Op):
    """``special.xlog1py(self, number)``."""

    node = "SpecialXlog1PyBackward2"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    saves = {"self": ("self",)}
    torch_names = ("special.xlog1py",)

    @staticmethod
    def forward(ctx, a, other):
        return _xlog1py(a, other)

    def backward(self, grad):
        other = self._params["other"]
        grad_self = SpecialXlog1pyScalarOther.apply(grad, other=other)
        if other > -1:
            return grad_self
        return grad_self._masked_zero(zero_mask(self.saved("self")))

    jvp = auto_element_wise


def _binary_layout(out: np.ndarray, a, b) -> np.ndarray:
    """The result laid out as torch's TensorIterator lays it out from its operands: like the
    first operand of the result's shape (the special functions below build their results with
    np.where, which is row-major)."""
    same = [operand for operand in (a, b)
            if isinstance(operand, np.ndarray) and operand.shape == out.shape]
    # a row-major first operand defers to a permuted second one (TensorIterator's order)
    chosen = next((operand for operand in same if not operand.flags.c_contiguous), None)
    return _layout.like(out, chosen) if chosen is not None else _layout.contiguous(out)


def _not_implemented_derivative(name: str):
    return NotImplementedError(f"the derivative for '{name}' is not implemented.")


class _IncompleteGamma(Op):
    """igamma / igammac: torch differentiates only with respect to ``other`` (x)."""

    __slots__ = ()
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("other",), "other": ("other",)}
    broadcasts = True
    compute = None
    sign = 1.0

    @classmethod
    def forward(cls, ctx, a, b):
        a, b, dtype = _float_binary(a, b, kernel=f"{cls.kernel}_cpu")
        return _binary_layout(np.asarray(cls.compute(a, b)).astype(dtype, copy=False), a, b)

    def _other_derivative(self, a, x):
        # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)
        return self.sign * ((a - 1) * x.log() - x - Lgamma.apply(a)).exp()

    def backward(self, grad):
        if self.needs_grad(0):
            raise _not_implemented_derivative(f"{self.kernel}: input")
        # derivatives.yaml: other [-]grad * exp((self - 1) * log(other) - other - lgamma(self))
        # (a negated grad for igammac, no product with a Scalar sign)
        a, x = self.saved("self"), self.saved("other")
        density = ((a - 1) * x.log() - x - Lgamma.apply(a)).exp()
        return None, (grad if self.sign > 0 else -grad) * density

    def jvp(self, tangents, primals, result):
        # a zero tangent (leafgrad fills one in for a constant made from a dual tensor) carries
        # nothing through the missing formula
        if tangents[0] is not None and np.any(tangents[0]._data):
            raise _not_implemented_derivative(f"{self.kernel}: input")
        if tangents[1] is None:
            return None
        return tangents[1] * self._other_derivative(*primals)


@register
class Igamma(_IncompleteGamma):
    node = "IgammaBackward0"
    kernel = "igamma"
    compute = staticmethod(fns.gammainc)
    torch_names = ("igamma", "special.gammainc")


@register
class Igammac(_IncompleteGamma):
    node = "IgammacBackward0"
    kernel = "igammac"
    sign = -1.0
    compute = staticmethod(fns.gammaincc)
    torch_names = ("igammac", "special.gammaincc")


@register
class SpecialZeta(Op):
    """Hurwitz zeta(self, other); torch differentiates only with respect to ``other``:
    d/dq zeta(s, q) = -s zeta(s + 1, q)."""

    node = "SpecialZetaBackward0"
    bfloat16_kernel = "zeta_cpu"  # torch has no bfloat16 kernel
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("other",), "other": ("other",)}
    broadcasts = True
    torch_names = ("special.zeta",)

    @staticmethod
    def forward(ctx, a, b):
        a, b, dtype = _float_binary(a, b)
        return _binary_layout(np.asarray(fns.zeta(a, b)).astype(dtype, copy=False), a, b)

    def backward(self, grad):
        if self.needs_grad(0):
            raise _not_implemented_derivative("zeta")
        s = self.saved("self")
        return None, grad * -s * SpecialZeta.apply(s + 1.0, self.saved("other"))

    def jvp(self, tangents, primals, result):
        if tangents[0] is not None and np.any(tangents[0]._data):
            raise _not_implemented_derivative("zeta")
        if tangents[1] is None:
            return None
        s, q = primals
        return tangents[1] * -s * SpecialZeta.apply(s + 1.0, q)


@register
class SpecialZetaScalarSelf(Op):
    """``special.zeta(number, other)``."""

    node = "SpecialZetaBackward1"
    bfloat16_kernel = "zeta_cpu"  # torch has no bfloat16 kernel
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    inputs = ("other",)
    saves = {"other": ("other",)}
    torch_names = ("special.zeta",)

    @staticmethod
    def forward(ctx, b, self):
        return SpecialZeta.forward(None, self, b)

    def backward(self, grad):
        s = self._params["self"]
        return grad * -s * SpecialZetaScalarSelf.apply(self.saved("other"), self=s + 1.0)

    jvp = auto_element_wise


@register
class SpecialZetaScalarOther(Op):
    """``special.zeta(self, number)``: no derivative in torch."""

    node = "SpecialZetaBackward2"
    bfloat16_kernel = "zeta_cpu"  # torch has no bfloat16 kernel
    vmap = batch.elementwise
    torch_names = ("special.zeta",)

    @staticmethod
    def forward(ctx, a, other):
        return SpecialZeta.forward(None, a, other)

    def backward(self, grad):
        raise _not_implemented_derivative("zeta")

    def jvp(self, tangents, primals, result):
        raise _not_implemented_derivative("zeta")
