"""The ``leafgrad.<name>(...)`` forms of the math ops (see leafgrad/ops/math_*.py).

Each function checks its arguments the way torch's argument parser does (a number where only a
Tensor is accepted is a TypeError naming the argument) and then calls the Tensor method.
"""

from __future__ import annotations

from . import ops as _ops
from .methods import math as _methods
from .tensor import Tensor

__all__ = [
    "exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "square", "tan", "asin", "arcsin",
    "acos", "arccos", "atan", "arctan", "sinh", "cosh", "asinh", "arcsinh", "acosh", "arccosh",
    "atanh", "arctanh", "erf", "erfc", "erfinv", "sgn", "floor", "ceil", "round", "trunc", "fix",
    "frac", "nan_to_num", "clamp", "clip", "clamp_min", "clamp_max", "maximum", "minimum",
    "fmax", "fmin", "fmod", "remainder", "floor_divide", "atan2", "arctan2", "hypot",
    "logaddexp", "logaddexp2", "xlogy", "lerp", "addcmul", "addcdiv", "float_power", "where",
    "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isposinf",
    "isneginf", "isfinite", "signbit", "isclose", "allclose", "greater", "greater_equal",
    "less", "less_equal", "not_equal",
]


def _require_tensor(value, function: str, argument: str, position: int) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{function}(): argument '{argument}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )


def _unary(name: str):
    def function(input, *, out=None):  # noqa: A002 - torch's name
        _reject_out(out)
        _require_tensor(input, name, "input", 1)
        return getattr(input, name)()

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input)``: elementwise; see ``Tensor.{name}``."
    return function


def _reject_out(out) -> None:
    if out is not None:
        raise NotImplementedError("leafgrad does not support out= arguments")


exp2 = _unary("exp2")
expm1 = _unary("expm1")
log2 = _unary("log2")
log10 = _unary("log10")
log1p = _unary("log1p")
rsqrt = _unary("rsqrt")
square = _unary("square")
tan = _unary("tan")
asin = arcsin = _unary("asin")
acos = arccos = _unary("acos")
atan = arctan = _unary("atan")
sinh = _unary("sinh")
cosh = _unary("cosh")
asinh = arcsinh = _unary("asinh")
acosh = arccosh = _unary("acosh")
atanh = arctanh = _unary("atanh")
erf = _unary("erf")
erfc = _unary("erfc")
erfinv = _unary("erfinv")
sgn = _unary("sgn")
floor = _unary("floor")
ceil = _unary("ceil")
trunc = fix = _unary("trunc")
frac = _unary("frac")
logical_not = _unary("logical_not")
isnan = _unary("isnan")
isinf = _unary("isinf")
isposinf = _unary("isposinf")
isneginf = _unary("isneginf")
isfinite = _unary("isfinite")
signbit = _unary("signbit")


def round(input, *, decimals=None, out=None):  # noqa: A001 - torch's name
    """Round half to even, optionally to ``decimals`` digits."""
    _reject_out(out)
    return input.round(decimals=decimals)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace nan and infinities by finite numbers."""
    _reject_out(out)
    return input.nan_to_num(nan, posinf, neginf)


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    """Clamp to ``[min, max]``; bounds are both numbers (ClampBackward1) or tensors
    (ClampBackward0)."""
    _reject_out(out)
    for bound in (min, max):
        if isinstance(bound, Tensor):
            for other in (min, max):
                if other is not None and not isinstance(other, Tensor):
                    raise _ops.math_clamp.invalid_arguments("clamp", (input, min, max))
    return input.clamp(min, max)


clip = clamp


def clamp_min(input, min):  # noqa: A002
    return input.clamp_min(min)


def clamp_max(input, max):  # noqa: A002
    return input.clamp_max(max)


def _tensor_pair(name: str):
    def function(input, other, *, out=None):  # noqa: A002
        _reject_out(out)
        _require_tensor(input, name, "input", 1)
        _require_tensor(other, name, "other", 2)
        return getattr(input, name)(other)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, other)`` for two tensors."
    return function


maximum = _tensor_pair("maximum")
minimum = _tensor_pair("minimum")
fmax = _tensor_pair("fmax")
fmin = _tensor_pair("fmin")
atan2 = arctan2 = _tensor_pair("atan2")
hypot = _tensor_pair("hypot")
logaddexp = _tensor_pair("logaddexp")
logaddexp2 = _tensor_pair("logaddexp2")
logical_and = _tensor_pair("logical_and")
logical_or = _tensor_pair("logical_or")
logical_xor = _tensor_pair("logical_xor")


def fmod(input, other, *, out=None):  # noqa: A002
    """C's remainder (sign of the dividend)."""
    _reject_out(out)
    if not isinstance(input, Tensor):
        raise _ops.math_clamp.invalid_arguments("fmod", (input, other))
    return input.fmod(other)


def remainder(input, other, *, out=None):  # noqa: A002
    """Python's remainder (sign of the divisor); ``input`` may be a number."""
    _reject_out(out)
    if not isinstance(input, Tensor):
        _require_tensor(other, "remainder", "other", 2)
        return other.__rmod__(input)
    return input.remainder(other)


def floor_divide(input, other, *, out=None):  # noqa: A002
    _reject_out(out)
    return input.floor_divide(other)


def xlogy(input, other, *, out=None):  # noqa: A002
    """``input * log(other)``, 0 where input == 0 (unless other is nan)."""
    _reject_out(out)
    if isinstance(input, Tensor):
        return input.xlogy(other)
    if not isinstance(other, Tensor):
        raise _ops.math_clamp.invalid_arguments("xlogy", (input, other))
    return _ops.math_binary.XlogyScalarSelf.apply(other, self=input)


def lerp(input, end, weight, *, out=None):  # noqa: A002
    """``input + weight * (end - input)``."""
    _reject_out(out)
    return input.lerp(end, weight)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):  # noqa: A002
    _reject_out(out)
    return input.addcmul(tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):  # noqa: A002
    _reject_out(out)
    return input.addcdiv(tensor1, tensor2, value=value)


def float_power(input, exponent, *, out=None):  # noqa: A002
    """``input ** exponent`` in float64; either may be a number (not both)."""
    _reject_out(out)
    if isinstance(input, Tensor):
        return input.float_power(exponent)
    if not isinstance(exponent, Tensor):
        raise _ops.math_clamp.invalid_arguments("float_power", (input, exponent))
    return _ops.PowScalarBase.apply(exponent.double(), base=float(input))


def where(condition, input=None, other=None, *, out=None):  # noqa: A002
    """``where(condition, input, other)`` picks elementwise; ``where(condition)`` is
    ``nonzero(condition, as_tuple=True)``.

    >>> x = leafgrad.tensor([-1., 4.], requires_grad=True)
    >>> leafgrad.where(x > 0, x.sqrt(), 0.)
    tensor([0., 2.], grad_fn=<WhereBackward0>)
    """
    _reject_out(out)
    if input is None and other is None:
        return _ops.nonzero(condition, as_tuple=True)
    if input is None or other is None:
        given = tuple(a for a in (condition, input, other) if a is not None)
        raise _ops.math_clamp.invalid_arguments("where", given)
    return _methods.where(condition, input, other)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    _require_tensor(other, "isclose", "other", 2)
    return input.isclose(other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:  # noqa: A002
    _require_tensor(other, "allclose", "other", 2)
    return input.allclose(other, rtol, atol, equal_nan)


def greater(input, other, *, out=None):  # noqa: A002
    return input.gt(other)


def greater_equal(input, other, *, out=None):  # noqa: A002
    return input.ge(other)


def less(input, other, *, out=None):  # noqa: A002
    return input.lt(other)


def less_equal(input, other, *, out=None):  # noqa: A002
    return input.le(other)


def not_equal(input, other, *, out=None):  # noqa: A002
    return input.ne(other)
