"""Binary and ternary math: fmod/remainder, division with rounding, atan2, hypot, logaddexp,
xlogy, lerp, addcmul and addcdiv (clamp and maximum/minimum are in math_clamp.py).

Backward formulas follow torch's derivatives.yaml and are written with Tensor ops so they can
themselves be differentiated.

Note: opmath for float16
torch's CPU kernels compute a float16 expression in float32 and round once at the end. The
formulas here with more than one operation (remainder, floor division, lerp, addcmul, ...) do
the same through ``_opmath``; a chain of NumPy float16 operations would round after each.
xlogy is the exception: torch rounds log(y) to float16 before the product, and so does _xlogy.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from . import _float_kernels, _libm, _promote
from ._forward import auto_element_wise, jvp_sum, zeros_tangent
from .elementwise import Div
from .math_logic import check_broadcast_all
from .math_unary import _not_implemented, _zeros_like
from . import _batching_rules as batch
from . import _uint
from .registry import NoDerivative, Op, array_kernel, register
from ..tensor import _wrap
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from .elementwise import MulScalar
from .elementwise import _integer_alpha

_ZERO_DIVISION = "ZeroDivisionError"


def _opmath(*arrays):
    """Arrays to compute in: float16 ones in float32 (see Note: opmath for float16)."""
    return [a.astype(np.float32) if isinstance(a, (np.ndarray, np.generic))
            and a.dtype == np.float16 else a for a in arrays]


def _check_divisor(b, dtype: np.dtype) -> None:
    """Integer division by zero is an error in torch (floats give inf/nan)."""
    if dtype.kind in "iub" and np.any(np.asarray(b) == 0):
        raise RuntimeError(_ZERO_DIVISION)


# -- fmod, remainder and division with rounding ---------------------------------------------------


def _integer_binary(a, b, kernel: str):
    """Promote, refuse bool and complex (torch has no such kernel) and integer division by
    zero. (Op.apply's complex check is installed with the first complex tensor: a complex
    Python number before any is refused here.)"""
    a, b = _promote.binary(a, b)
    dtype = np.asarray(a).dtype
    if dtype == np.bool_ or dtype.kind == "c":
        raise _not_implemented(kernel, np.asarray(a))
    _check_divisor(b, dtype)
    return a, b, dtype


def _as_operand(b, dtype: np.dtype):
    """A Python-number operand as the tensor operand TensorIterator makes of it: cast to the
    common dtype (fmod and remainder have no scalar kernel: ``x % 1.1`` on float16 divides by
    float16(1.1); div's rounding modes read the number at its own value instead)."""
    if dtype == np.float16 and not isinstance(b, np.ndarray):
        return np.float16(b)
    return b


def _fmod(a, b):
    a, b, dtype = _integer_binary(a, b, "fmod_cpu")
    x, y = _opmath(a, _as_operand(b, dtype))
    with np.errstate(all="ignore"):
        return np.asarray(np.fmod(x, y)).astype(dtype, copy=False)


def _remainder(a, b):
    """Python's modulo (sign of the divisor), computed as torch does:
    ``mod = fmod(a, b); mod + b where mod != 0 and sign(mod) != sign(b)``."""
    a, b, dtype = _integer_binary(a, b, "remainder_cpu")
    with np.errstate(all="ignore"):
        if dtype.kind in "iu":
            return np.asarray(np.remainder(a, b))
        x, y = _opmath(a, _as_operand(b, dtype))
        mod = np.fmod(x, y)
        fix = (mod != 0) & ((y < 0) != (mod < 0))
        return np.asarray(np.where(fix, mod + y, mod)).astype(dtype, copy=False)


def _div_floor_float(x, y):
    """torch's div_floor_floating (Python's float floor division, ``a // b``)."""
    mod = np.fmod(x, y)
    div = (x - mod) / y
    div = np.where((mod != 0) & ((y < 0) != (mod < 0)), div - 1, div)
    floored = np.floor(div)
    floored = np.where(div - floored > 0.5, floored + 1, floored)
    quotient = x / y
    floored = np.where(div == 0, np.copysign(np.zeros_like(quotient), quotient), floored)
    return np.where(y == 0, quotient, floored)  # division by zero: the IEEE result


def _div_rounding(a, b, rounding_mode: str):
    a, b, dtype = _integer_binary(a, b, f"div_{rounding_mode}_cpu")
    with np.errstate(all="ignore"):
        if dtype.kind in "iu":
            floored = np.floor_divide(a, b)
            if rounding_mode == "floor":
                return np.asarray(floored)
            inexact = np.remainder(a, b) != 0
            return np.asarray(floored + (inexact & ((np.asarray(a) < 0) != (np.asarray(b) < 0))))
        x, y = _opmath(a, b)
        if rounding_mode == "trunc":
            out = np.trunc(x / y)
        else:
            out = _div_floor_float(x, y)
        return np.asarray(out).astype(dtype, copy=False)


@register
class Fmod(Op):
    """``fmod(self, number)``: C's fmod (the sign of the dividend)."""

    node = "FmodBackward0"
    uint_kernel = "fmod_cpu"
    uint_params = ("other",)
    torch_names = ("fmod",)

    @staticmethod
    def forward(ctx, a, other):
        return _fmod(a, other)

    def backward(self, grad):
        return grad

    jvp = auto_element_wise


@register
class FmodTensor(Op):
    node = "FmodBackward1"
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("other",), "other": ("other",)}
    broadcasts = True
    torch_names = ("fmod",)

    @staticmethod
    def forward(ctx, a, b):
        return _fmod(a, b)

    def backward(self, grad):
        grad_other = None
        if self.needs_grad(1):
            quotient = DivRounding.apply(self.saved("self"), self.saved("other"),
                                         rounding_mode="trunc")
            grad_other = -grad * quotient
        return grad, grad_other

    def jvp(self, tangents, primals, result):
        # torch: self_t - other_t * self_p.div(other_p, rounding_mode="trunc")
        a, b = primals
        return jvp_sum(tangents, lambda t: t,
                       lambda t: -t * DivRounding.apply(a, b, rounding_mode="trunc"))


@register
class Remainder(Op):
    """``remainder(self, number)``: Python's modulo (the sign of the divisor)."""

    node = "RemainderBackward0"
    uint_kernel = "remainder_cpu"
    uint_params = ("other",)
    torch_names = ("remainder", "Tensor.__mod__")

    @staticmethod
    def forward(ctx, a, other):
        return _remainder(a, other)

    def backward(self, grad):
        return grad

    jvp = auto_element_wise


@register
class RemainderTensor(Op):
    node = "RemainderBackward1"
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("other",), "other": ("other",)}
    broadcasts = True
    torch_names = ("remainder", "Tensor.__mod__")

    @staticmethod
    def forward(ctx, a, b):
        return _remainder(a, b)

    def backward(self, grad):
        grad_other = None
        if self.needs_grad(1):
            # self may be a Python number here (``7 % x``)
            quotient = DivRounding.apply(self.saved("self"), self.saved("other"),
                                         rounding_mode="floor")
            grad_other = -grad * quotient
        return grad, grad_other

    def jvp(self, tangents, primals, result):
        # torch: self_t - other_t * self_p.div(other_p, rounding_mode="floor")
        a, b = primals
        return jvp_sum(tangents, lambda t: t,
                       lambda t: -t * DivRounding.apply(a, b, rounding_mode="floor"))


class _RemainderNumberSelfNode(Op):
    """``number % tensor`` (remainder.Scalar_Tensor): torch has no derivative for it and
    records a node named ``NotImplemented`` with the one edge, to the tensor; its backward and
    forward AD raise. Not in the op table (no gradient to test), like floor_divide's."""

    node = "NotImplemented"
    qualified_name = "torch::autograd::NotImplemented"
    inputs = ("other",)
    _save_plan = ()
    vmap = batch.elementwise

    @staticmethod
    def forward(ctx, other, number):
        return RemainderTensor.forward(ctx, number, other)

    def backward(self, grad):
        raise RuntimeError("derivative for aten::remainder is not implemented")

    def jvp(self, tangents, primals, result):
        raise NotImplementedError(
            "Trying to use forward AD with aten::remainder that does not support it.")


_RemainderNumberSelfNode.__name__ = _RemainderNumberSelfNode.__qualname__ = "NotImplemented"


def remainder_number_self(number, tensor):
    """``number % tensor``, recorded as torch records it (see _RemainderNumberSelfNode)."""
    return _RemainderNumberSelfNode.apply(tensor, number=number)


# Note: an explicit rounding_mode=None
# torch.div(a, b, rounding_mode=None) is the div.Tensor_mode overload, not div.Tensor: the same
# true division, recorded as DivBackward2 (saving the mode) instead of DivBackward0. The
# surface (Tensor.div, div_, leafgrad.div) tells "not given" from "given as None" with
# ``_argparse.NO_MODE`` as its default.

@register
class DivMode(Div):
    """``div(self, other, rounding_mode=None)``: true division as DivBackward2."""

    node = "DivBackward2"
    torch_names = ("div", "divide", "Tensor.div_")

    @staticmethod
    def forward(ctx, a, b, rounding_mode=None):
        return Div.forward(ctx, a, b)


@register
class DivRounding(Op):
    """``div(self, other, rounding_mode='trunc' | 'floor')``; its gradient is zero."""

    node = "DivBackward2"
    opmath_scalars = True  # torch's reduced-float kernels read a scalar divisor at its value
    uint_kernel = staticmethod(_uint.div_rounding_kernel)
    complex_message = '"div_{rounding_mode}_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.elementwise
    inputs = ("self", "other")
    broadcasts = True
    torch_names = ("div", "divide", "floor_divide")

    @staticmethod
    def forward(ctx, a, b, rounding_mode):
        return _div_rounding(a, b, rounding_mode)

    def backward(self, grad):
        zeros = _zeros_like(grad)
        return zeros, (zeros if self.needs_grad(1) else None)

    def jvp(self, tangents, primals, result):
        return zeros_tangent(result)


class _FloorDivideNode(NoDerivative, DivRounding):
    """floor_divide: div(rounding_mode='floor')'s values, but torch has no derivative for it:
    it records a node named ``NotImplemented`` whose backward (and forward AD) raises. Not in
    the op table (no gradient to test), like heaviside's node. The node has edges to the
    operands that require grad only: see _FloorDivideOneNode."""

    aten = "floor_divide"

    @staticmethod
    def forward(ctx, a, b, rounding_mode="floor", inplace_form=False):
        # (DivRounding's forward as the op table has it: wrapped for bfloat16's opmath once
        # the process has bfloat16 tensors, ops/_bfloat16.py)
        return DivRounding.forward(ctx, a, b, "floor")


class _FloorDivideOneNode(_FloorDivideNode):
    """floor_divide with one operand requiring grad: the other (a tensor's values or a
    number) is a parameter, so the node has one edge."""

    inputs = ("input",)

    @staticmethod
    def forward(ctx, tensor, other, tensor_is_self, rounding_mode="floor", inplace_form=False):
        return DivRounding.forward(ctx, tensor, other, "floor") if tensor_is_self else \
            DivRounding.forward(ctx, other, tensor, "floor")


for _cls in (_FloorDivideNode, _FloorDivideOneNode):
    _cls.__name__ = _cls.__qualname__ = "NotImplemented"


def floor_divide(a, b, inplace_form: bool = False):
    """``a // b`` (either may be a number, not both), recorded as torch records it."""
    from ..autograd.grad_mode import state
    from ..tensor import Tensor
    from .inplace import _check_cast_first, check_inplace_allowed, inplace

    if inplace_form:  # div_'s checks, in its order (its node is in inplace's sets, not this)
        check_inplace_allowed(a, True)
        _check_cast_first(_FloorDivideNode, a, b)
    wants = (isinstance(a, Tensor) and a._may_require_grad(),
             isinstance(b, Tensor) and b._may_require_grad())
    # (in place into a self that does not require grad from one that does: the two-edge node,
    # whose first edge is None where torch's node has the one edge)
    if state.grad_enabled and wants[0] != wants[1] and not (inplace_form and wants[1]):
        tensor, other = (a, b) if wants[0] else (b, a)
        other = other._data if isinstance(other, Tensor) else other
        if inplace_form:
            return inplace(_FloorDivideOneNode, a, other=other, tensor_is_self=wants[0],
                           rounding_mode="floor", inplace_form=True)
        return _FloorDivideOneNode.apply(tensor, other=other, tensor_is_self=wants[0],
                                         rounding_mode="floor")
    if inplace_form:
        return inplace(_FloorDivideNode, a, b, rounding_mode="floor", inplace_form=True)
    return _FloorDivideNode.apply(a, b, rounding_mode="floor")


# -- atan2, hypot, logaddexp ----------------------------------------------------------------------


def _float_binary(a, b, kernel: str | None = None):
    """Promote; integer results either compute in the default float dtype (kernel None) or are
    refused with torch's NotImplementedError for ``kernel``."""
    promoted_a, promoted_b = _promote.binary(a, b)
    dtype = np.asarray(promoted_a).dtype
    if dtype.kind != "f":
        if kernel is not None:
            raise _not_implemented(kernel, np.asarray(promoted_a))
        if dtype.kind == "c":
            a, b = promoted_a, promoted_b
        # the operands' own values in the default float dtype (xlogy(-1, uint8_tensor) takes
        # log of the tensor's values times -1.0, not times 255 as a uint8 -1 would be)
        dtype = _dtype.get_default_dtype().np
        return np.asarray(a).astype(dtype), np.asarray(b).astype(dtype), dtype
    return promoted_a, promoted_b, dtype


@register
class Atan2(Op):
    node = "Atan2Backward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("self", "other"), "other": ("self", "other")}
    broadcasts = True
    torch_names = ("atan2", "arctan2")

    @staticmethod
    def forward(ctx, a, b):
        a, b, _ = _float_binary(a, b)
        return np.asarray(_libm.arctan2(a, b))  # the C library's atan2 (ops/_libm.py)

    def backward(self, grad):
        a, b = self.saved("self"), self.saved("other")
        denominator = a * a + b * b
        # torch zeroes 1 / denominator where it is 0, so atan2(0, 0) gets a zero gradient
        recip = denominator.reciprocal()._masked_zero(denominator == 0)
        grad_self = grad_other = None
        if self.needs_grad(0):
            grad_self = grad * b * recip
        if self.needs_grad(1):
            grad_other = grad * -a * recip
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        # torch: (-self_p * other_t + other_p * self_t) / (self_p.pow(2) + other_p.pow(2))
        a, b = primals
        return jvp_sum(tangents, lambda t: b * t, lambda t: -a * t) / (a.pow(2) + b.pow(2))


@register
class Hypot(Op):
    node = "HypotBackward0"
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("self",), "other": ("other",), "result": ("self", "other")}
    broadcasts = True
    torch_names = ("hypot",)

    @staticmethod
    def forward(ctx, a, b):
        a, b, _ = _float_binary(a, b, "hypot_cpu")
        return np.asarray(np.hypot(a, b))

    def backward(self, grad):
        result = self.saved("result")
        grad_self = grad_other = None  # Note: the order of an op's input gradients
        if self.needs_grad(1):
            grad_other = grad * self.saved("other") / result
        if self.needs_grad(0):
            grad_self = grad * self.saved("self") / result
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        a, b = primals
        return jvp_sum(tangents, lambda t: t * a / result, lambda t: t * b / result)


def _logaddexp_complex(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's complex logaddexp: log1p(exp(min - max)) + max, the operands ordered by real
    part; a nan part anywhere gives nan + nanj, equal infinite real parts exp and log directly
    (-inf: the smaller operand itself)."""
    a, b = np.broadcast_arrays(a, b)
    smaller_first = a.real < b.real
    low, high = np.where(smaller_first, a, b), np.where(smaller_first, b, a)
    with np.errstate(all="ignore"):
        out = np.log1p(np.exp(low - high)) + high
        infinite = ~np.isfinite(low.real) & (low.real == high.real)
        both = np.log(np.exp(low) + np.exp(high))
    out = np.where(infinite, np.where(low.real < 0, low, both), out)
    nan = np.isnan(a.real) | np.isnan(a.imag) | np.isnan(b.real) | np.isnan(b.imag)
    return np.asarray(np.where(nan, complex(np.nan, np.nan), out)).astype(a.dtype, copy=False)


def _one_plus(tensor):
    """``1 + tensor`` as torch's C++ formulas write it: a Scalar sum (AddBackward1, one edge)."""
    if tensor.is_complex():
        return 1 + tensor
    from .special_fns import AddScalarFormula

    return AddScalarFormula.apply(tensor, other=1)


@register
class Logaddexp(Op):
    node = "LogaddexpBackward0"
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("self", "other"), "other": ("self", "other")}
    broadcasts = True
    complex_ok = True
    torch_names = ("logaddexp",)

    @staticmethod
    def forward(ctx, a, b):
        promoted_a, promoted_b = _promote.binary(a, b)
        if np.asarray(promoted_a).dtype.kind == "c":
            return _logaddexp_complex(np.asarray(promoted_a), np.asarray(promoted_b))
        a, b, dtype = _float_binary(a, b, "logaddexp_cpu")
        x, y = _opmath(a, b)
        with np.errstate(all="ignore"):
            return np.asarray(np.logaddexp(x, y)).astype(dtype, copy=False)

    def backward(self, grad):
        # derivatives.yaml: grad / (1 + exp(other - self)).conj(), and the same for other
        a, b = self.saved("self"), self.saved("other")
        grad_self = grad_other = None  # Note: the order of an op's input gradients
        if self.needs_grad(1):
            grad_other = grad / conj(_one_plus((a - b).exp()))
        if self.needs_grad(0):
            grad_self = grad / conj(_one_plus((b - a).exp()))
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        a, b = primals
        return jvp_sum(tangents, lambda t: t / (1 + (b - a).exp()),
                       lambda t: t / (1 + (a - b).exp()))


def _logaddexp2(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ATen's logaddexp2 kernel: max(a, b) + log1p(exp2(-|a - b|)) * (1 / ln 2), the
    multiply-add fused by the compiler (logaddexp2(x, x) is x plus the fused residual of
    ln2 * (1 / ln2), -4.8e-17 at -1.), and a where a == b is infinite. The log1p is SLEEF's for
    float32 (ops/_sleef_unary.py); exp2 is NumPy's, a last bit off SLEEF's on a few percent of
    inputs (NumPy's logaddexp2 differed from torch on ~7%: on 1%/2% now)."""
    from ._sleef_unary import sleef_log1pf

    real = np.result_type(x, y).type
    with np.errstate(all="ignore"):
        larger = np.maximum(x, y)
        spread = np.exp2(-np.abs(x - y))
        logs = sleef_log1pf(spread) if real is np.float32 else np.log1p(spread)
        out = np.asarray(_float_kernels.fma(logs, real(1.0 / math.log(2.0)), larger))
        both_infinite = (x == y) & np.isinf(x)
        if both_infinite.any():
            out = np.where(both_infinite, x, out)
    result = np.empty_like(larger)  # the operands' layout, as NumPy's (and torch's) ufunc
    result[...] = out
    return result


@register
class Logaddexp2(Op):
    node = "Logaddexp2Backward0"
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("self", "other"), "other": ("self", "other")}
    broadcasts = True
    torch_names = ("logaddexp2",)

    @staticmethod
    def forward(ctx, a, b):
        a, b, dtype = _float_binary(a, b, "logaddexp2_cpu")
        x, y = _opmath(a, b)
        return _logaddexp2(np.asarray(x), np.asarray(y)).astype(dtype, copy=False)

    def backward(self, grad):
        a, b = self.saved("self"), self.saved("other")
        grad_self = grad_other = None  # Note: the order of an op's input gradients
        if self.needs_grad(1):
            grad_other = grad / _one_plus(2 ** (a - b))
        if self.needs_grad(0):
            grad_self = grad / _one_plus(2 ** (b - a))
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        a, b = primals
        return jvp_sum(tangents, lambda t: t / (1 + 2 ** (b - a)),
                       lambda t: t / (1 + 2 ** (a - b)))


# -- xlogy ---------------------------------------------------------------------------------------


def _xlogy(a, b):
    """``x * log(y)`` with torch's rules: nan where y is nan, else 0 where x == 0."""
    a, b, dtype = _float_binary(a, b)
    # torch rounds log(y) to the tensor's dtype before the product (float16 too): so do we
    a, b = (x if isinstance(x, np.ndarray) else dtype.type(x) for x in (a, b))
    with np.errstate(all="ignore"):
        # std::log: the C library's bits (ops/_libm.py; NumPy's AVX-512 loops differ from it
        # on ~20% of float32 values)
        log = _libm.call("log", b) if b.dtype in (np.float32, np.float64) else np.log(b)
        out = np.where(a == 0, 0, a * log)
        out = np.where(np.isnan(b), np.nan, out)
    return np.asarray(out).astype(dtype, copy=False)


@register
class Xlogy(Op):
    node = "XlogyBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("self", "other"), "other": ("self", "other")}
    broadcasts = True
    torch_names = ("xlogy", "special.xlogy")

    @staticmethod
    def forward(ctx, a, b):
        return _xlogy(a, b)

    def backward(self, grad):
        x, y = self.saved("self"), self.saved("other")
        grad_self = grad_other = None  # Note: the order of an op's input gradients
        if self.needs_grad(1):
            grad_other = grad * x / y
        if self.needs_grad(0):
            # Note: x * log(y) is undefined for y <= 0; torch takes 0 at x == 0 there.
            grad_self = Xlogy.apply(grad, y)._masked_zero((x == 0) & (y <= 0))
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        # torch: xlogy(self_t, other_p).masked_fill((self_p == 0) & (other_p <= 0), 0)
        #        + other_t * self_p / other_p
        x, y = primals
        return jvp_sum(tangents, lambda t: Xlogy.apply(t, y)._masked_zero((x == 0) & (y <= 0)),
                       lambda t: t * x / y)


@register
class XlogyScalarSelf(Op):
    """``xlogy(number, other)``."""

    node = "XlogyBackward1"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    inputs = ("other",)
    saves = {"other": ("other",)}
    torch_names = ("xlogy",)

    @staticmethod
    def forward(ctx, b, self):
        return _xlogy(self, b)

    def backward(self, grad):
        return grad * self._params["self"] / self.saved("other")

    jvp = auto_element_wise


@register
class XlogyScalarOther(Op):
    """``xlogy(self, number)``."""

    node = "XlogyBackward2"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    torch_names = ("xlogy",)

    @staticmethod
    def forward(ctx, a, other):
        return _xlogy(a, other)

    def backward(self, grad):
        other = self._params["other"]
        grad_self = XlogyScalarOther.apply(grad, other=other)
        if other > 0:
            return grad_self
        return grad_self._masked_zero(self.saved("self") == 0)

    jvp = auto_element_wise


# -- lerp, addcmul, addcdiv ----------------------------------------------------------------------


def _c_name(array: np.ndarray) -> str:
    from ..tensor import _C_NAMES

    return _C_NAMES[array.dtype.name]


def _lerp_dtypes(arrays, params):
    """``Op.bfloat16_kernel`` of lerp: _lerp's dtype checks on the operands as given, before
    bfloat16 ones are widened to float32 (so the message names c10::BFloat16)."""
    start, end = arrays[0], arrays[1]
    weight = arrays[2] if len(arrays) > 2 else params.get("weight")
    try:
        _check_lerp_dtypes(start, end, weight)
    except RuntimeError as error:
        return error
    return None


def _check_lerp_dtypes(start, end, weight) -> None:
    if end.dtype != start.dtype:
        raise RuntimeError(
            f"expected dtype {_c_name(start)} for `end` but got dtype {_c_name(end)}"
        )
    if isinstance(weight, np.ndarray) and weight.ndim > 0 and weight.dtype != start.dtype:
        raise RuntimeError(
            f"expected dtype {_c_name(start)} for `weight` but got dtype {_c_name(weight)}"
        )


def _lerp(start, end, weight, kernel: str):
    _check_lerp_dtypes(start, end, weight)
    if start.dtype.kind not in "fc":
        raise _not_implemented(kernel, start)
    if start.dtype.kind == "f" and isinstance(weight, complex) and weight.imag != 0:
        kind = "double" if start.dtype == np.float64 else "float"  # torch's opmath type
        raise RuntimeError(f"value cannot be converted to type {kind} without overflow")
    if start.dtype.kind == "f" and isinstance(weight, complex):
        weight = weight.real
    check_broadcast_all(start, end, *([weight] if isinstance(weight, np.ndarray) else []))
    s, e = _opmath(start, end)
    w = np.asarray(weight).astype(s.dtype) if isinstance(weight, np.ndarray) else weight
    # torch's lerp: start + w * (end - start) for |w| < 0.5, else end - (end - start) * (1 - w)
    # (the better-conditioned form on each side); for real dtypes each one fused multiply-add,
    # fmadd(w, diff, start) or fmadd(w - 1, diff, end), as ATen's lerp_vec
    small = np.abs(w) < 0.5
    with np.errstate(all="ignore"):
        diff = e - s
        if s.dtype.kind == "f":
            if not isinstance(w, np.ndarray):
                w = s.dtype.type(w)  # the opmath type, as torch converts the number
                out = (_float_kernels.fma(w, diff, s) if small
                       else _float_kernels.fma(w - 1, diff, e))
            else:
                out = np.where(small, _float_kernels.fma(w, diff, s),
                               _float_kernels.fma(w - 1, diff, e))
        else:
            out = np.where(small, s + w * diff, e - diff * (1 - w))
    return np.asarray(out).astype(start.dtype, copy=False)


@register
class Lerp(Op):
    """``lerp(self, end, weight)`` with a number weight."""

    complex_ok = True  # Note: torch's convention for complex gradients (ops/complex.py)
    node = "LerpBackward0"
    opmath_scalars = True  # Note: opmath for bfloat16 (ops/_bfloat16.py)
    uint_kernel = "lerp_kernel_scalar"
    bfloat16_kernel = staticmethod(_lerp_dtypes)
    vmap = batch.elementwise
    vmap_promotes_logically = False  # Note: type promotion under vmap
    inputs = ("self", "end")
    broadcasts = True
    torch_names = ("lerp",)

    @staticmethod
    def forward(ctx, a, end, weight):
        return _lerp(a, end, weight, "lerp_kernel_scalar")

    def backward(self, grad):
        # derivatives.yaml: grad * (1 - weight.conj()), grad * weight.conj(), products with a
        # Scalar (MulBackward1 under create_graph; a tensor product recorded MulBackward0 with
        # an edge for the number: generated-program seed 21060)

        weight = self._params["weight"]
        if isinstance(weight, complex) and grad.is_complex():
            weight = weight.conjugate()
            rest = 1 - weight
        else:
            weight = getattr(weight, "real", weight)
            rest = 1 - float(weight)
        grad_end = MulScalar.apply(grad, other=weight) if self.needs_grad(1) else None
        grad_self = MulScalar.apply(grad, other=rest) if self.needs_grad(0) else None
        return grad_self, grad_end

    def jvp(self, tangents, primals, result):
        weight = self._params["weight"]  # torch: lerp(self_t, end_t, weight)
        return jvp_sum(tangents, lambda t: t * (1 - float(weight)), lambda t: t * weight)


@register
class LerpTensor(Op):
    complex_ok = True  # Note: torch's convention for complex gradients (ops/complex.py)
    node = "LerpBackward1"
    uint_kernel = "lerp_kernel_tensor"
    bfloat16_kernel = staticmethod(_lerp_dtypes)
    vmap = batch.elementwise
    vmap_promotes_logically = False  # Note: type promotion under vmap
    inputs = ("self", "end", "weight")
    saves = {"self": ("weight",), "end": ("weight",), "weight": ("self", "end")}
    broadcasts = True
    torch_names = ("lerp",)

    @staticmethod
    def forward(ctx, a, end, weight):
        return _lerp(a, end, weight, "lerp_kernel_tensor")

    def backward(self, grad):
        grad_self = grad_end = grad_weight = None  # Note: the order of an op's input gradients
        if self.needs_grad(0) or self.needs_grad(1):
            weight = self.saved("weight")
            if self.needs_grad(1):
                grad_end = grad * conj(weight)
            if self.needs_grad(0):
                # C++'s 1 - weight: empty_like(weight).fill_(1).sub_(weight), SubBackward0
                # with no edge for the ones (a kernel: leafgrad.compile makes it on replays)
                ones = _wrap(array_kernel(np.ones_like, weight._data))
                grad_self = grad * conj(ones - weight)
        if self.needs_grad(2):
            grad_weight = grad * conj(self.saved("end") - self.saved("self"))
        return grad_self, grad_end, grad_weight

    def jvp(self, tangents, primals, result):
        # torch: lerp(self_t, end_t, weight_p) + weight_t * (end_p - self_p)
        start, end, weight = primals
        return jvp_sum(tangents, lambda t: t * (1 - weight), lambda t: t * weight,
                       lambda t: t * (end - start))


def _addc_operands(a, b, c, value):
    """Operands in the compute dtype, the result dtype, and ``value`` as a compute scalar
    (truncated for integer results, as torch casts it)."""
    check_broadcast_all(a, b, c)
    target = _promote.result_np_dtype(a, b, c)
    if target.kind in "iu":  # c10's checked conversion to scalar_t: an unsigned type wraps a
        # negative value down to -max (uint8 value=-3 is 253), anything else out of range raises
        value = _integer_alpha(target, value)
    a, b, c = _opmath(*(x.astype(target, copy=False) for x in (a, b, c)))
    return (a, b, c), target, a.dtype.type(value)


@register
class Addcmul(Op):
    """``self + value * tensor1 * tensor2``."""

    complex_ok = True  # Note: torch's convention for complex gradients (ops/complex.py)
    node = "AddcmulBackward0"
    uint_kernel = "addcmul_cpu_out"
    vmap = batch.elementwise
    inputs = ("self", "tensor1", "tensor2")
    saves = {"tensor1": ("tensor2",), "tensor2": ("tensor1",)}
    broadcasts = True
    torch_names = ("addcmul",)

    @staticmethod
    def forward(ctx, a, t1, t2, value=1):
        (x, y, z), target, scale = _addc_operands(a, t1, t2, value)
        if target == np.bool_:
            raise NotImplementedError('"addcmul_cpu_out" not implemented for \'Bool\'')
        with np.errstate(all="ignore"):
            if x.dtype.kind == "f":  # ATen's kernel: self + (value * t1) * t2, one fused add
                out = _float_kernels.fma(y if value == 1 else scale * y, z, x)
            else:
                out = x + scale * y * z
        return np.asarray(out).astype(target, copy=False)

    def backward(self, grad):
        value = self._params.get("value", 1)
        grad1 = grad2 = None
        if self.needs_grad(1):
            grad1 = grad * conj(self.saved("tensor2") * value)
        if self.needs_grad(2):
            grad2 = grad * conj(self.saved("tensor1") * value)
        return grad, grad1, grad2

    def jvp(self, tangents, primals, result):
        _, t1, t2 = primals
        value = self._params.get("value", 1)
        return jvp_sum(tangents, lambda t: t, lambda t: t * (t2 * value),
                       lambda t: t * (t1 * value))


@register
class Addcdiv(Op):
    """``self + value * tensor1 / tensor2``."""

    complex_ok = True  # Note: torch's convention for complex gradients (ops/complex.py)
    node = "AddcdivBackward0"
    uint_ok = True  # the forward raises torch's own error for uint16/32/64
    vmap = batch.elementwise
    inputs = ("self", "tensor1", "tensor2")
    saves = {"tensor1": ("tensor2",), "tensor2": ("tensor1", "tensor2")}
    broadcasts = True
    torch_names = ("addcdiv",)

    @staticmethod
    def forward(ctx, a, t1, t2, value=1):
        if t1.dtype.kind in "iub" and t2.dtype.kind in "iub":
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes."
            )
        (x, y, z), target, scale = _addc_operands(a, t1, t2, value)
        with np.errstate(all="ignore"):
            out = x + scale * y / z
        return np.asarray(out).astype(target, copy=False)

    def backward(self, grad):
        value = self._params.get("value", 1)
        grad1 = grad2 = None
        if self.needs_grad(1):
            t2 = self.saved("tensor2")
            if isinstance(value, complex) and value.imag != 0 and not t2.is_complex():
                # torch's value / tensor2 fills a tensor2-like tensor with value first
                kind = "float" if t2._data.dtype == np.float32 else "double"
                raise RuntimeError(f"value cannot be converted to type {kind} without overflow")
            grad1 = grad * conj(value / t2)
        if self.needs_grad(2):
            t2 = self.saved("tensor2")
            grad2 = -grad * conj(value * self.saved("tensor1") / (t2 * t2))
        return grad, grad1, grad2

    def jvp(self, tangents, primals, result):
        # torch: self_t + value * tensor1_t / tensor2_p
        #        - value * tensor2_t * (tensor1_p / tensor2_p) / tensor2_p
        _, t1, t2 = primals
        value = self._params.get("value", 1)
        return jvp_sum(tangents, lambda t: t, lambda t: t * (value / t2),
                       lambda t: -t * (value * t1 / (t2 * t2)))


# -- dispatch (Tensor.div with a rounding mode calls this) -----------------------------------------


def div_rounding(a, b, rounding_mode):
    """``div(a, b, rounding_mode=...)`` for a given mode (DivBackward2)."""
    if rounding_mode is None:  # Note: an explicit rounding_mode=None
        return DivMode.apply(a, b, rounding_mode=None)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    return DivRounding.apply(a, b, rounding_mode=rounding_mode)
