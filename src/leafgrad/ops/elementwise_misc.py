"""Elementwise ops on the bits and integers of numbers: heaviside, nextafter, ldexp, frexp,
gcd and lcm.

Gradients as torch 2.13 has them (probed): ldexp, frexp and nextafter have formulas
(``LdexpBackward0``, ``FrexpBackward0``, ``NextafterBackward0``: nextafter passes ``grad`` to
``self`` and zeros to ``other``); heaviside records a node named ``NotImplemented`` whose
backward raises "derivative for aten::heaviside is not implemented"; gcd and lcm take integer
tensors only, which never require grad.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from ..tensor import _wrap
from . import _bfloat16, _float_kernels, _promote, _uint
from . import _batching_rules as batch
from ._forward import jvp_sum
from .math_unary import _not_implemented
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from .registry import NoDerivative, Op, register
from ._bfloat16 import to_bfloat16
from .elementwise import MulScalar

__all__ = ["Heaviside", "Nextafter", "Ldexp", "Frexp", "Gcd", "Lcm", "heaviside", "nextafter",
           "ldexp", "frexp", "gcd", "lcm"]


def _constant(array: np.ndarray):
    return _wrap(np.asarray(array))


# -- heaviside ----------------------------------------------------------------------------------


def _heaviside(a, values):
    if a.dtype.kind == "c" or values.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if a.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if a.dtype.kind == "u" and a.dtype.itemsize > 1:  # after torch's checks and broadcast
        if a.shape != values.shape:
            _promote.check_broadcast(a.shape, values.shape)
        raise _not_implemented("heaviside_cpu", a)
    # torch's kernel: a == 0 ? values : (a > 0); NaN gives 0
    with np.errstate(invalid="ignore"):
        out = np.where(a == 0, values, (a > 0).astype(a.dtype))
    return np.asarray(out, dtype=a.dtype)


class _HeavisideNode(NoDerivative, Op):
    """torch records heaviside under a node named ``NotImplemented`` (no derivative); not in the
    op table, as it has no gradient to test (like scatter's ``reduce=`` node in gather.py).
    torch's node has edges only to the operands that require grad: see _HeavisideOneNode."""

    aten = "heaviside"
    inputs = ("self", "values")
    vmap = batch.elementwise
    uint_ok = True  # the forward raises torch's dtype check, then heaviside_cpu's error

    @staticmethod
    def forward(ctx, a, values, inplace_form=False):
        return _heaviside(a, values)


class _HeavisideOneNode(_HeavisideNode):
    """heaviside with one operand requiring grad: the other is a parameter (no edge)."""

    inputs = ("input",)

    @staticmethod
    def forward(ctx, tensor, other, tensor_is_self, inplace_form=False):
        return _heaviside(tensor, other) if tensor_is_self else _heaviside(other, tensor)


for _cls in (_HeavisideNode, _HeavisideOneNode):
    _cls.__name__ = _cls.__qualname__ = "NotImplemented"
Heaviside = _HeavisideNode


def heaviside(a, values, inplace_form: bool = False):
    """``a`` and ``values`` are Tensors; the in-place form writes into ``a``."""
    from ..autograd.grad_mode import state
    from .inplace import inplace

    wants = (a._may_require_grad(), values._may_require_grad())
    if state.grad_enabled and wants == (True, False):
        if inplace_form:
            return inplace(_HeavisideOneNode, a, other=values._data, tensor_is_self=True,
                           inplace_form=True)
        return _HeavisideOneNode.apply(a, other=values._data, tensor_is_self=True)
    if state.grad_enabled and wants == (False, True) and not inplace_form:
        return _HeavisideOneNode.apply(values, other=a._data, tensor_is_self=False)
    if inplace_form:
        return inplace(_HeavisideNode, a, values, inplace_form=True)
    return _HeavisideNode.apply(a, values)


# -- nextafter ----------------------------------------------------------------------------------


def _nextafter_bfloat16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """c10's nextafter for BFloat16 (musl's, on the 16 bits): NaN in either gives from + to,
    equal bits give from, a zero steps to the smallest subnormal with to's sign (or is to when
    both are zeros), otherwise the bits step towards to."""
    sign = np.uint16(0x8000)
    bits_a = np.ascontiguousarray(a).view(np.uint16)
    bits_b = np.ascontiguousarray(b).view(np.uint16)
    wide_a, wide_b = a.astype(np.float32), b.astype(np.float32)
    abs_a, abs_b = bits_a & ~sign, bits_b & ~sign
    down = (abs_a > abs_b) | ((bits_a ^ bits_b) & sign).astype(bool)
    stepped = np.where(down, bits_a - np.uint16(1), bits_a + np.uint16(1)).astype(np.uint16)
    from_zero = np.where(abs_b == 0, bits_b, (bits_b & sign) | np.uint16(1))
    out = np.where(abs_a == 0, from_zero, stepped)
    out = np.where(bits_a == bits_b, bits_a, out).astype(np.uint16)
    result = out.view(a.dtype).reshape(a.shape)  # (ascontiguousarray makes a 0-d array 1-d)
    nan = np.isnan(wide_a) | np.isnan(wide_b)
    if nan.any():
        result = np.where(nan, to_bfloat16(wide_a + wide_b, False), result)
    return np.asarray(result)


@register
class Nextafter(Op):
    """The next representable float after ``self`` towards ``other``."""

    node = "NextafterBackward0"
    vmap = batch.elementwise
    inputs = ("self", "other")
    broadcasts = True
    torch_names = ("nextafter", "Tensor.nextafter")
    uint_kernel = staticmethod(_uint.broadcast_then("nextafter_cpu"))
    bfloat16_native = True  # steps of bfloat16's own bits (a float32 step rounds back)

    @staticmethod
    def forward(ctx, a, b):
        if _dtype.is_bfloat16_array(np.asarray(a)) and _dtype.is_bfloat16_array(np.asarray(b)):
            return _nextafter_bfloat16(*np.broadcast_arrays(a, b))
        a, b = _promote.binary(a, b)
        if a.dtype.kind != "f":
            raise _not_implemented("nextafter_cpu", a)
        return np.asarray(np.nextafter(a, b))

    def backward(self, grad):
        # torch 2.13: grad to self, zeros to other (probed)
        grad_other = None
        if self.needs_grad(1):
            grad_other = _constant(np.zeros(grad._data.shape, grad._data.dtype))
        return grad, grad_other

    def jvp(self, tangents, primals, result):
        return jvp_sum(tangents[:1], lambda t: t)


# -- ldexp --------------------------------------------------------------------------------------


def _ldexp_operands(a, b):
    """torch's ldexp dtype: the promoted type, the default float dtype for integers (two
    integer dtypes are not promoted together: uint16 with int64 works, as in torch)."""
    if a.dtype.kind in "iub" and b.dtype.kind in "iub":
        target = _dtype.get_default_dtype().np
    else:
        target = _promote.result_np_dtype(a, b)
    return a.astype(target, copy=False), b.astype(target, copy=False), target


def _pow2(other):
    """torch's ``pow(2, other)`` in ``other``'s dtype, the factor of ldexp's derivatives.

    Note: ldexp's gradient with integer exponents. torch computes the factor with integer
    arithmetic when ``other`` is an integer tensor: ``2 ** -k`` is 0 there, so the gradient of
    ``self`` is 0 wherever the exponent is negative (probed on torch 2.13), and 2 ** 63 wraps.
    leafgrad follows torch (values must agree with it), though the true derivative is 2 ** -k.
    """
    from . import pow as power

    data = other._data
    if data.dtype.kind in "fcV":  # V: bfloat16
        return power(2.0, other)  # differentiable when other requires grad
    exponent = data.astype(np.int64) if data.dtype == np.bool_ else data
    bits = exponent.dtype.itemsize * 8
    inside = (exponent >= 0) & (exponent < bits)
    shifted = np.left_shift(np.ones((), exponent.dtype), np.where(inside, exponent, 0))
    return _constant(np.where(inside, shifted, np.zeros((), exponent.dtype)))


@register
class Ldexp(Op):
    """``self * 2 ** other``."""
    checks_overlap = False  # torch: self.mul_(pow(2, other)), no overlap check

    node = "LdexpBackward0"
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"other": ("self",), "result": ("other",)}
    broadcasts = True
    torch_names = ("ldexp", "Tensor.ldexp")
    uint_ok = True  # computed in float: self * pow(2.0, other) (Note: wide unsigned)
    complex_ok = True

    @staticmethod
    def forward(ctx, a, b):
        if a.shape != b.shape:
            _promote.check_broadcast(a.shape, b.shape)
        a, b, dtype = _ldexp_operands(a, b)
        with np.errstate(all="ignore"):
            if dtype == np.float32:
                # torch's pow(2, other) is the tensor-tensor pow kernel on a wrapped 0-d base
                # (SLEEF's powf where NumPy's float32 power is off by an ulp; as PowScalarSelf)
                return np.asarray(a * _float_kernels.pow_tensor(np.asarray(2, np.float32), b),
                                  dtype=dtype)
            return np.asarray(a * np.power(dtype.type(2), b), dtype=dtype)

    def backward(self, grad):
        grad_self = grad_other = None
        # conjugated factors for complex operands (Note: torch's convention for complex
        # gradients, ops/complex.py)
        # torch's formulas, the other's first (Note: the order of an op's input gradients):
        # grad * result * ln 2 (MulBackward1) and grad * pow(2, other)
        if self.needs_grad(1):
            grad_other = MulScalar.apply(grad * conj(self.saved("result")), other=math.log(2.0))
        if self.needs_grad(0):
            grad_self = grad * conj(_pow2(self.saved("other")))
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        a, b = primals
        factor = _pow2(b)
        return jvp_sum(tangents, lambda t: t * factor,
                       lambda t: t * a * factor * math.log(2.0))


# -- frexp --------------------------------------------------------------------------------------


@register
class Frexp(Op):
    """``(mantissa, exponent)`` with ``self == mantissa * 2 ** exponent``, |mantissa| in
    [0.5, 1); the exponent is int32, as torch's."""

    node = "FrexpBackward0"
    inference_writes = (1, 1)  # Note: kernels' writes on inference operands
    vmap = batch.elementwise
    multi_output = True
    torch_names = ("frexp", "Tensor.frexp")
    uint_ok = True  # the forward raises torch's floating-point-only error

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind != "f":
            raise RuntimeError("torch.frexp() only supports floating-point dtypes")
        mantissa, exponent = np.frexp(a)
        exponent = np.asarray(exponent, dtype=np.int32)
        if ctx is not None:
            ctx.keep("exponent", exponent)
        return np.asarray(mantissa, dtype=a.dtype), exponent

    def backward(self, grads):
        grad = grads[0]
        if grad is None:
            return None
        # derivatives.yaml: grad / exponent.exp2(), the int32 exponent's exp2 in float32 (the
        # default dtype): 2 ** 128 and up are inf there, and their gradient 0 (DivBackward0)
        with np.errstate(over="ignore"):  # (exact powers of two, as torch's exp2 gives them)
            scale = np.ldexp(np.float32(1), self.saved("exponent"))
        return grad / _constant(scale)

    def jvp(self, tangents, primals, result):
        tangent = tangents[0]
        if tangent is None:
            return None
        exponent = result[1]._data
        scale = np.ldexp(np.ones((), result[0]._data.dtype), -exponent)
        return tangent * _constant(scale.astype(result[0]._data.dtype, copy=False)), None


# -- gcd, lcm -----------------------------------------------------------------------------------


def _integer_operands(a, b, kernel: str):
    a, b = _promote.binary(a, b)
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "iu":
        raise _not_implemented(kernel, a)
    return a, b


def _narrow_gcd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ATen's calc_gcd for int8/int16: a = abs(a), b = abs(b) wrapped into the type (abs(-128)
    is -128 in int8), then Euclid with C's truncating %, so gcd(-128, 127) is -1 where NumPy's
    is 1. (For int32/int64 the overflowing cases crash torch itself: NumPy's gcd stands.)"""
    dtype = a.dtype
    a, b = np.broadcast_arrays(a, b)
    x = np.abs(a.astype(np.int64)).astype(dtype).astype(np.int64)
    y = np.abs(b.astype(np.int64)).astype(dtype).astype(np.int64)
    while True:
        going = x != 0
        if not going.any():
            break
        x, y = np.where(going, np.fmod(y, np.where(going, x, 1)), 0), np.where(going, x, y)
    return y.astype(dtype)


@register
class Gcd(Op):
    node = "GcdBackward0"
    vmap = batch.elementwise
    inputs = ("self", "other")
    differentiable = False
    bfloat16_kernel = _bfloat16.integer_kernel("gcd_cpu")
    torch_names = ("gcd", "Tensor.gcd")

    @staticmethod
    def forward(ctx, a, b):
        a, b = _integer_operands(a, b, "gcd_cpu")
        if a.dtype.kind == "i" and a.dtype.itemsize <= 2:
            return _narrow_gcd(a, b)
        return np.asarray(np.gcd(a, b), dtype=a.dtype)


@register
class Lcm(Op):
    node = "LcmBackward0"
    vmap = batch.elementwise
    inputs = ("self", "other")
    differentiable = False
    bfloat16_kernel = _bfloat16.integer_kernel("lcm_cpu")
    torch_names = ("lcm", "Tensor.lcm")

    @staticmethod
    def forward(ctx, a, b):
        a, b = _integer_operands(a, b, "lcm_cpu")
        # torch: g = gcd(a, b); g == 0 ? 0 : abs(a / g * b), with the integer type's wrap-around
        if a.dtype.kind == "i" and a.dtype.itemsize <= 2:
            # (C computes a / g * b and its abs in int, then wraps it into the type)
            g = _narrow_gcd(a, b).astype(np.int64)
            wide = np.abs(a.astype(np.int64) // np.where(g == 0, 1, g) * b.astype(np.int64))
            return np.asarray(np.where(g == 0, 0, wide).astype(a.dtype))
        with np.errstate(all="ignore"):
            g = np.gcd(a, b)
            safe = np.where(g == 0, np.ones((), a.dtype), g)
            out = np.where(g == 0, np.zeros((), a.dtype), np.abs((a // safe) * b))
        return np.asarray(out, dtype=a.dtype)


# -- functions ------------------------------------------------------------------------------------


def nextafter(a, b):
    return Nextafter.apply(a, b)


def ldexp(a, b):
    return Ldexp.apply(a, b)


def frexp(a):
    return Frexp.apply(a)


def gcd(a, b):
    return Gcd.apply(a, b)


def lcm(a, b):
    return Lcm.apply(a, b)
