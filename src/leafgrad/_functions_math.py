"""The ``leafgrad.<name>(...)`` forms of the math ops (see leafgrad/ops/math_*.py).

Each function checks its arguments the way torch's argument parser does (a number where only a
Tensor is accepted is a TypeError naming the argument) and then calls the Tensor method.
"""

from __future__ import annotations

import numpy as np

from . import _argparse
from . import ops as _ops
from ._out import ANY, CAST, FOUND, Out, bool_only, same_as, takes_out
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


_BOUNDS = _argparse.NUMBERS | {type(None)}
_MISSING = object()  # where(condition) and where(condition, None, x) differ in torch


def _operand(value) -> bool:
    return value.__class__ in _argparse.NUMBERS or isinstance(value, Tensor)


def _require_tensor(value, function: str, argument: str, position: int) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{function}(): argument '{argument}' (position {position}) must be Tensor, not "
            f"{_argparse.typename(value)}"
        )


def _unary(name: str, out: Out | None = None):
    """``torch.<name>(input)``; with ``out``, it takes ``out=`` that way."""

    def function(input):  # noqa: A002 - torch's name
        _require_tensor(input, name, "input", 1)
        return getattr(input, name)()

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input)``: elementwise; see ``Tensor.{name}``."
    return function if out is None else takes_out(out)(function)


def _cast(name: str) -> Out:
    """TensorIterator's rule: the result must cast safely to out's dtype."""
    return Out(name, CAST, overlap=True)


def _found(name: str) -> Out:
    """Kernels that need out's dtype to be the result's ("Found dtype Long but expected Float")."""
    return Out(name, FOUND, overlap=True)


def _bool_out(name: str) -> Out:
    return Out(None, bool_only(f"{name} does not support non-boolean outputs."), overlap=True)


_LOGICAL = Out(None, ANY, overlap=True)  # comparisons and logical ops write any dtype


exp2 = _unary("exp2", _cast("exp2"))
expm1 = _unary("expm1", _cast("expm1"))
log2 = _unary("log2", _cast("log2"))
log10 = _unary("log10", _cast("log10"))
log1p = _unary("log1p", _cast("log1p"))
rsqrt = _unary("rsqrt", _cast("rsqrt"))
square = _unary("square", _cast("pow"))
tan = _unary("tan", _cast("tan"))
asin = arcsin = _unary("asin", _cast("asin"))
acos = arccos = _unary("acos", _cast("acos"))
atan = arctan = _unary("atan", _cast("atan"))
sinh = _unary("sinh", _cast("sinh"))
cosh = _unary("cosh", _cast("cosh"))
asinh = arcsinh = _unary("asinh", _cast("asinh"))
acosh = arccosh = _unary("acosh", _cast("acosh"))
atanh = arctanh = _unary("atanh", _cast("atanh"))
erf = _unary("erf", _cast("erf"))
erfc = _unary("erfc", _cast("erfc"))
erfinv = _unary("erfinv", _cast("erfinv"))
sgn = _unary("sgn", _found("sgn"))
floor = _unary("floor", _found("floor"))
ceil = _unary("ceil", _found("ceil"))
trunc = fix = _unary("trunc", _found("trunc"))
frac = _unary("frac", _found("frac"))
logical_not = _unary("logical_not", _LOGICAL)
isnan = _unary("isnan")
isinf = _unary("isinf")
isposinf = _unary("isposinf", _bool_out("isposinf"))
isneginf = _unary("isneginf", _bool_out("isneginf"))
isfinite = _unary("isfinite")
signbit = _unary("signbit", _bool_out("signbit"))


@takes_out(_found("round"))
@_argparse.parsed("round")  # (its errors for the call as given, out= too)
def round(input, *, decimals=_argparse.NOT_GIVEN):  # noqa: A001 - torch's name
    """Round half to even, optionally to ``decimals`` digits (None: torch's error)."""
    return input.round(decimals=decimals)


@takes_out(Out("nan_to_num", same_as("nan_to_num: dtype of out: {O} should be same as input: {R}"),
               overlap=True))
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replace nan and infinities by finite numbers."""
    return input.nan_to_num(nan, posinf, neginf)


def _clamp_out(args, kwargs) -> Out:
    """clamp's out= rule: its Scalar overload needs out's dtype to be the result's; its Tensor
    overload, which torch's parser tries first and takes when every bound given is a tensor,
    is TensorIterator's, which casts into any safe out dtype."""
    bounds = [b for b in list(args[1:3]) + [kwargs.get("min"), kwargs.get("max")]
              if b is not None]
    return _CLAMP_TENSOR_OUT if bounds and all(isinstance(b, Tensor) for b in bounds) \
        else _CLAMP_OUT


_CLAMP_OUT, _CLAMP_TENSOR_OUT = _found("clamp"), _cast("clamp")


def _clamp(name: str):
    def clamp(input, min=None, max=None):  # noqa: A002
        """Clamp to ``[min, max]``; bounds are both numbers (ClampBackward1) or tensors
        (ClampBackward0)."""
        if min.__class__ not in _BOUNDS or max.__class__ not in _BOUNDS:
            _argparse.check(name, _argparse.given(input, min, max))
        return input.clamp(min, max)

    clamp.__name__ = clamp.__qualname__ = name
    clamp.parsed_name = name  # (takes_out: the parser's error lists out= too, _out.py)
    return takes_out(_clamp_out)(clamp)


clamp = _clamp("clamp")
clip = _clamp("clip")


def _bound_out(name: str):
    """clamp_min's (clamp_max's) out= rule, as clamp's: a tensor bound takes its Tensor
    overload, TensorIterator's casting rule; a number, the Scalar one's exact dtype."""
    scalar, tensor = _found(name), _cast(name)

    def choose(args, kwargs):
        bound = args[1] if len(args) > 1 else kwargs.get(name[-3:])
        return tensor if isinstance(bound, Tensor) else scalar

    return choose


@takes_out(_bound_out("clamp_min"))
def clamp_min(input, min):  # noqa: A002
    _bound_check("clamp_min", input, min)
    return input.clamp_min(min)


@takes_out(_bound_out("clamp_max"))
def clamp_max(input, max):  # noqa: A002
    _bound_check("clamp_max", input, max)
    return input.clamp_max(max)


def _bound_check(name: str, input, bound) -> None:  # noqa: A002
    """clamp_min/clamp_max's bound: a tensor or a number (torch's two overloads)."""
    if bound.__class__ in _BOUNDS and bound is not None or isinstance(bound, Tensor):
        return
    if isinstance(bound, np.generic) and bound.dtype.kind in "biuf":
        return
    raise _argparse.invalid_combination(name, (input, bound), {})


def _tensor_pair(name: str, out: Out):
    def function(input, other):  # noqa: A002
        _require_tensor(input, name, "input", 1)
        _require_tensor(other, name, "other", 2)
        return getattr(input, name)(other)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, other)`` for two tensors."
    return takes_out(out)(function)


maximum = _tensor_pair("maximum", _cast("maximum"))
minimum = _tensor_pair("minimum", _cast("minimum"))
fmax = _tensor_pair("fmax", _cast("fmax"))
fmin = _tensor_pair("fmin", _cast("fmin"))
atan2 = arctan2 = _tensor_pair("atan2", _cast("atan2"))
hypot = _tensor_pair("hypot", _cast("hypot"))
logaddexp = _tensor_pair("logaddexp", _cast("logaddexp"))
logaddexp2 = _tensor_pair("logaddexp2", _cast("logaddexp2"))
logical_and = _tensor_pair("logical_and", _LOGICAL)
logical_or = _tensor_pair("logical_or", _LOGICAL)
logical_xor = _tensor_pair("logical_xor", _LOGICAL)


@takes_out(_cast("fmod"))
def fmod(input, other):  # noqa: A002
    """C's remainder (sign of the dividend)."""
    if not isinstance(input, Tensor) or not _operand(other):
        _argparse.check("fmod", (input, other))
    return input.fmod(other)


@takes_out(_cast("remainder"))
def remainder(input, other):  # noqa: A002
    """Python's remainder (sign of the divisor); ``input`` may be a number."""
    if not isinstance(input, Tensor) or not _operand(other):
        _argparse.check("remainder", (input, other))
    if not isinstance(input, Tensor):
        return other.__rmod__(input)
    return input.remainder(other)


@takes_out(Out(None, CAST, overlap=True, out_name="aten::floor_divide"))
def floor_divide(input, other):  # noqa: A002
    if not isinstance(input, Tensor) or not _operand(other):
        _argparse.check("floor_divide", (input, other))
    if not isinstance(input, Tensor):  # a wrapped number (_functions.py, Note: a number as self)
        return _ops.math_binary.floor_divide(input, other)
    return input.floor_divide(other)


@takes_out(_cast("xlogy"))
def xlogy(input, other):  # noqa: A002
    """``input * log(other)``, 0 where input == 0 (unless other is nan)."""
    if isinstance(input, Tensor):
        if other.__class__ is not float and other.__class__ is not int and \
                not isinstance(other, Tensor):
            other = _argparse.operand("xlogy", other, (input, other))
        return input.xlogy(other)
    if not isinstance(other, Tensor):
        raise _ops.math_clamp.invalid_arguments("xlogy", (input, other))
    number = _argparse.operand("xlogy", input, (input, other))  # (first: see special.py)
    return _ops.math_binary.XlogyScalarSelf.apply(other, self=number)


@takes_out(_cast("lerp"))
def lerp(input, end, weight):  # noqa: A002
    """``input + weight * (end - input)``."""
    if weight.__class__ is not float and weight.__class__ is not int and \
            not isinstance(weight, Tensor):
        weight = _argparse.number("lerp", "weight", weight,
                                  overloads=((input, end, weight), {}))
    return input.lerp(end, weight)


@takes_out(_cast("addcmul"))
def addcmul(input, tensor1, tensor2, *deprecated, value=1):  # noqa: A002
    if deprecated:  # Note: deprecated overloads (_argparse.py)
        (tensor1, tensor2), value = _argparse.scalar_first(
            "addcmul", False, tensor1, (tensor2,) + deprecated, "value", value, input)
    elif not (isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor)):
        _argparse.check("addcmul", (input, tensor1, tensor2), {"value": value})
    return input.addcmul(tensor1, tensor2, value=value)


@takes_out(_cast("addcdiv"))
def addcdiv(input, tensor1, tensor2, *deprecated, value=1):  # noqa: A002
    if deprecated:  # Note: deprecated overloads (_argparse.py)
        (tensor1, tensor2), value = _argparse.scalar_first(
            "addcdiv", False, tensor1, (tensor2,) + deprecated, "value", value, input)
    elif not (isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor)):
        _argparse.check("addcdiv", (input, tensor1, tensor2), {"value": value})
    return input.addcdiv(tensor1, tensor2, value=value)


@takes_out(Out(None, same_as("the output given to float_power has dtype {O} but the operation's result requires dtype {R}")))
def float_power(input, exponent):  # noqa: A002
    """``input ** exponent`` in float64; either may be a number (not both)."""
    if isinstance(input, Tensor):
        if exponent.__class__ not in _argparse.NUMBERS and not isinstance(exponent, Tensor):
            exponent = _argparse.operand("float_power", exponent, (input, exponent))
        return input.float_power(exponent)
    if not isinstance(exponent, Tensor):
        raise _ops.math_clamp.invalid_arguments("float_power", (input, exponent))
    input = _argparse.operand("float_power", input, (input, exponent))  # noqa: A001
    from .methods.math import _float_power_dtype, _float_power_scalar

    target = _float_power_dtype(input, exponent)
    return _ops.PowScalarBase.apply(exponent.to(target), base=_float_power_scalar(input, target))


def _where_out_tensors(args, kwargs, outs):
    """where's out= form takes tensors only (torch's overloads with a number have no out)."""
    names = ("condition", "input", "other")
    given = dict(zip(names, args), **kwargs)
    for position, name in enumerate(names[1:], 2):
        value = given.get(name, _MISSING)
        if value is not _MISSING and not isinstance(value, Tensor):
            raise TypeError(f"where(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {_argparse.typename(value)}")
    return args, kwargs


@takes_out(Out("where", same_as("Expected out type to be {R} but got {O}"), overlap=True,
               prepare=_where_out_tensors))
def where(condition, input=_MISSING, other=_MISSING):  # noqa: A002
    """``where(condition, input, other)`` picks elementwise; ``where(condition)`` is
    ``nonzero(condition, as_tuple=True)``.

    >>> x = leafgrad.tensor([-1., 4.], requires_grad=True)
    >>> leafgrad.where(x > 0, x.sqrt(), 0.)
    tensor([0., 2.], grad_fn=<WhereBackward0>)
    """
    if input is _MISSING and other is _MISSING:
        _argparse.check("where", (condition,))
        return _ops.nonzero(condition, as_tuple=True)
    if input is _MISSING or other is _MISSING:
        given = tuple(a for a in (condition, input, other) if a is not _MISSING)
        _argparse.check("where", given)
    return _methods.where(condition, input, other)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    _require_tensor(other, "isclose", "other", 2)
    return input.isclose(other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:  # noqa: A002
    _require_tensor(other, "allclose", "other", 2)
    return input.allclose(other, rtol, atol, equal_nan)


@takes_out(_LOGICAL)
def greater(input, other):  # noqa: A002
    return input.gt(other)


@takes_out(_LOGICAL)
def greater_equal(input, other):  # noqa: A002
    return input.ge(other)


@takes_out(_LOGICAL)
def less(input, other):  # noqa: A002
    return input.lt(other)


@takes_out(_LOGICAL)
def less_equal(input, other):  # noqa: A002
    return input.le(other)


@takes_out(_LOGICAL)
def not_equal(input, other):  # noqa: A002
    return input.ne(other)
