"""Tensor methods for the ops in leafgrad/ops/ (topic: math).

The ops live in ops/math_unary.py, ops/math_binary.py, ops/math_clamp.py and ops/math_logic.py;
each method is a thin call to one op class (``Op.apply``) or, for an in-place ``name_``, to
``ops.inplace``.
"""

from __future__ import annotations

import numpy as _np

from .. import _argparse
from . import lazy_ops as _ops
from .. import _dtype


def _tensor_type():
    return _argparse.tensor_class  # (leafgrad.Tensor, set once tensor.py has defined it)


def _check_pair(name: str, tensor1, tensor2, value) -> None:
    """torch's TypeError when addcmul/addcdiv's tensor1 or tensor2 is not a Tensor."""
    if not (_argparse._is_tensor(tensor1) and _argparse._is_tensor(tensor2)):
        _argparse.check(name, (tensor1, tensor2), {"value": value})


def _require_tensor(value, function: str, argument: str, position: int) -> None:
    """torch's argument-parser TypeError for a number where only a Tensor is accepted."""
    if not isinstance(value, _tensor_type()):
        raise TypeError(
            f"{function}(): argument '{argument}' (position {position}) must be Tensor, not "
            f"{_argparse.typename(value)}"
        )


def _unary(name: str, op_name: str, module: str = "math_unary"):
    """``Tensor.<name>()`` and its in-place form for a unary op of ops/<module>.py."""

    def method(self):
        return getattr(getattr(_ops, module), op_name).apply(self)

    def method_(self):
        return _ops.inplace(getattr(getattr(_ops, module), op_name), self)

    method.__name__ = method.__qualname__ = name
    method_.__name__ = method_.__qualname__ = name + "_"
    method.__doc__ = f"Elementwise ``{name}`` (see ops/{module}.py, {op_name})."
    method_.__doc__ = f"In-place ``{name}``."
    return method, method_


def _pointwise_method(name: str, op: str, inplace: bool):
    """``addcmul``/``addcdiv`` and their in-place forms: ``self + value * t1 (*|/) t2``, with
    torch's deprecated scalar-first overload and its Scalar reading of ``value`` (a float or int
    takes no extra step: an optimizer's hot path); the tensors are checked after a failure."""

    def method(self, tensor1, tensor2, *deprecated, value=1):
        if deprecated:  # Note: deprecated overloads (_argparse.py)
            (tensor1, tensor2), value = _argparse.scalar_first(
                name, True, tensor1, (tensor2,) + deprecated, "value", value)
        if value.__class__ is not float and value.__class__ is not int:
            value = _value_number(name, value, self, tensor1, tensor2)
        kind = getattr(_ops.math_binary, op)
        try:
            if inplace:
                return _ops.inplace(kind, self, tensor1, tensor2, value=value)
            return kind.apply(self, tensor1, tensor2, value=value)
        except Exception:
            _check_pair("Tensor." + name, tensor1, tensor2, value)
            raise

    method.__name__ = method.__qualname__ = name
    return method


class MathMethods:
    __slots__ = ()

    # -- unary math (see ops/math_unary.py) ----------------------------------------------------
    exp2, exp2_ = _unary("exp2", "Exp2")
    expm1, expm1_ = _unary("expm1", "Expm1")
    log2, log2_ = _unary("log2", "Log2")
    log10, log10_ = _unary("log10", "Log10")
    log1p, log1p_ = _unary("log1p", "Log1p")
    rsqrt, rsqrt_ = _unary("rsqrt", "Rsqrt")
    tan, tan_ = _unary("tan", "Tan")
    asin, asin_ = arcsin, arcsin_ = _unary("asin", "Asin")
    acos, acos_ = arccos, arccos_ = _unary("acos", "Acos")
    atan, atan_ = arctan, arctan_ = _unary("atan", "Atan")
    sinh, sinh_ = _unary("sinh", "Sinh")
    cosh, cosh_ = _unary("cosh", "Cosh")
    # torch's in-place asinh_/acosh_/atanh_ have no derivative (AsinhBackward1 raises);
    # leafgrad differentiates them like the out-of-place forms.
    asinh, asinh_ = arcsinh, arcsinh_ = _unary("asinh", "Asinh")
    acosh, acosh_ = arccosh, arccosh_ = _unary("acosh", "Acosh")
    atanh, atanh_ = arctanh, arctanh_ = _unary("atanh", "Atanh")
    erf, erf_ = _unary("erf", "Erf")
    erfc, erfc_ = _unary("erfc", "Erfc")
    erfinv, erfinv_ = _unary("erfinv", "Erfinv")
    floor, floor_ = _unary("floor", "Floor")
    ceil, ceil_ = _unary("ceil", "Ceil")
    trunc, trunc_ = fix, fix_ = _unary("trunc", "Trunc")
    frac, frac_ = _unary("frac", "Frac")
    sgn, sgn_ = _unary("sgn", "Sgn")

    def round(self, *, decimals=_argparse.NOT_GIVEN):  # (None: torch's error)
        """Round half to even; ``decimals`` digits after the point (negative: before it).

        torch's ``round(decimals=d)`` is another overload (RoundBackward1), even for d == 0.
        """
        if decimals is _argparse.NOT_GIVEN:
            return _ops.math_unary.Round.apply(self)
        if decimals.__class__ is not int:
            decimals = _argparse.int_arg("round", "decimals", decimals)
        return _ops.math_unary.RoundDecimals.apply(self, decimals=decimals)

    def round_(self, *, decimals=_argparse.NOT_GIVEN):  # (None: torch's error)
        if decimals is _argparse.NOT_GIVEN:
            return _ops.inplace(_ops.math_unary.Round, self)
        if decimals.__class__ is not int:
            decimals = _argparse.int_arg("round_", "decimals", decimals)
        return _ops.inplace(_ops.math_unary.RoundDecimals, self, decimals=decimals)

    def reciprocal_(self):
        return _ops.inplace(_ops.Reciprocal, self)

    def sign_(self):
        return _ops.inplace(_ops.Sign, self)

    def square(self):
        """``self ** 2`` (torch records it as PowBackward0)."""
        return _ops.PowScalar.apply(self, exponent=2)

    def square_(self):
        return _ops.inplace(_ops.PowScalar, self, exponent=2)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        nan, posinf, neginf = _optional_floats("nan_to_num", nan, posinf, neginf)
        return _ops.math_unary.NanToNum.apply(self, nan=nan, posinf=posinf, neginf=neginf)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        nan, posinf, neginf = _optional_floats("nan_to_num_", nan, posinf, neginf)
        return _ops.inplace(_ops.math_unary.NanToNum, self, nan=nan, posinf=posinf,
                            neginf=neginf)

    # -- clamp family (Tensor.clamp itself dispatches through ops.clamp) -------------------
    def clamp_min(self, min):  # noqa: A002 - torch's name
        return _clamp_side(self, min, "clamp_min", "ClampMin", "ClampMinTensor", False)

    def clamp_min_(self, min):  # noqa: A002
        return _clamp_side(self, min, "clamp_min_", "ClampMin", "ClampMinTensor", True)

    def clamp_max(self, max):  # noqa: A002
        return _clamp_side(self, max, "clamp_max", "ClampMax", "ClampMaxTensor", False)

    def clamp_max_(self, max):  # noqa: A002
        return _clamp_side(self, max, "clamp_max_", "ClampMax", "ClampMaxTensor", True)

    # -- binary math (see ops/math_binary.py) ----------------------------------------------
    def maximum(self, other):
        _require_tensor(other, "maximum", "other", 1)
        return _ops.math_clamp.Maximum.apply(self, other)

    def minimum(self, other):
        _require_tensor(other, "minimum", "other", 1)
        return _ops.math_clamp.Minimum.apply(self, other)

    def fmax(self, other):
        _require_tensor(other, "fmax", "other", 1)
        return _ops.math_clamp.Fmax.apply(self, other)

    def fmin(self, other):
        _require_tensor(other, "fmin", "other", 1)
        return _ops.math_clamp.Fmin.apply(self, other)

    def fmod(self, other):
        if other.__class__ not in _argparse.NUMBERS:
            _check_binary("Tensor.fmod", other)
            other = _argparse.numpy_operand(other)
        return _binary_or_scalar(self, other, "Fmod", "FmodTensor", False)

    def fmod_(self, other):
        if other.__class__ not in _argparse.NUMBERS:
            _check_binary("Tensor.fmod_", other)
            other = _argparse.numpy_operand(other)
        return _binary_or_scalar(self, other, "Fmod", "FmodTensor", True)

    def remainder(self, other):
        if other.__class__ not in _argparse.NUMBERS:
            _check_binary("Tensor.remainder", other)
            other = _argparse.numpy_operand(other)
        return _binary_or_scalar(self, other, "Remainder", "RemainderTensor", False)

    def remainder_(self, other):
        if other.__class__ not in _argparse.NUMBERS:
            _check_binary("Tensor.remainder_", other)
            other = _argparse.numpy_operand(other)
        return _binary_or_scalar(self, other, "Remainder", "RemainderTensor", True)

    # Note: operands (tensor.py): anything but tensors and numbers gives NotImplemented, so
    # Python raises torch's "unsupported operand type(s)"
    def __mod__(self, other):
        return self.remainder(other) if _operand(other) else NotImplemented

    def __imod__(self, other):
        return self.remainder_(other) if _operand(other) else NotImplemented

    def __rmod__(self, other):
        # torch has no derivative for number % tensor: a NotImplemented node whose backward
        # raises (a tensor % tensor of __rmod__ is RemainderBackward1 as usual)
        if not _operand(other):
            return NotImplemented
        if isinstance(other, _tensor_type()):
            return _ops.math_binary.RemainderTensor.apply(other, self)
        return _ops.math_binary.remainder_number_self(_argparse.numpy_operand(other), self)

    def floor_divide(self, other):
        """``self // other``: torch has no derivative for it (its graph's node, named
        NotImplemented, raises in backward)."""
        if other.__class__ not in _argparse.NUMBERS and not isinstance(other, _tensor_type()):
            other = _argparse.operand("floor_divide", other, (other,))
        return _ops.math_binary.floor_divide(self, other)

    def floor_divide_(self, other):
        if other.__class__ not in _argparse.NUMBERS and not isinstance(other, _tensor_type()):
            other = _argparse.operand("floor_divide_", other, (other,))
        return _ops.math_binary.floor_divide(self, other, inplace_form=True)

    def __floordiv__(self, other):
        return self.floor_divide(other) if _operand(other) else NotImplemented

    def __ifloordiv__(self, other):
        return self.floor_divide_(other) if _operand(other) else NotImplemented

    def __rfloordiv__(self, other):
        if not _operand(other):
            return NotImplemented
        return _ops.math_binary.floor_divide(_argparse.numpy_operand(other), self)

    def atan2(self, other):
        _require_tensor(other, "atan2", "other", 1)
        return _ops.math_binary.Atan2.apply(self, other)

    def atan2_(self, other):
        _require_tensor(other, "atan2_", "other", 1)
        return _ops.inplace(_ops.math_binary.Atan2, self, other)

    arctan2, arctan2_ = atan2, atan2_

    def hypot(self, other):
        _require_tensor(other, "hypot", "other", 1)
        return _ops.math_binary.Hypot.apply(self, other)

    def hypot_(self, other):
        _require_tensor(other, "hypot_", "other", 1)
        return _ops.inplace(_ops.math_binary.Hypot, self, other)

    def logaddexp(self, other):
        _require_tensor(other, "logaddexp", "other", 1)
        return _ops.math_binary.Logaddexp.apply(self, other)

    def logaddexp2(self, other):
        _require_tensor(other, "logaddexp2", "other", 1)
        return _ops.math_binary.Logaddexp2.apply(self, other)

    def xlogy(self, other):
        if isinstance(other, _tensor_type()):
            return _ops.math_binary.Xlogy.apply(self, other)
        if other.__class__ is not float and other.__class__ is not int:
            other = _argparse.operand("xlogy", other, (other,))
        return _ops.math_binary.XlogyScalarOther.apply(self, other=other)

    def xlogy_(self, other):
        if isinstance(other, _tensor_type()):
            return _ops.inplace(_ops.math_binary.Xlogy, self, other)
        if other.__class__ is not float and other.__class__ is not int:
            other = _argparse.operand("xlogy_", other, (other,))
        return _ops.inplace(_ops.math_binary.XlogyScalarOther, self, other=other)

    def lerp(self, end, weight):
        _require_tensor(end, "lerp", "end", 1)
        if isinstance(weight, _tensor_type()):
            return _ops.math_binary.LerpTensor.apply(self, end, weight)
        if weight.__class__ is not float and weight.__class__ is not int:
            weight = _argparse.number("lerp", "weight", weight, overloads=((end, weight), {}))
        return _ops.math_binary.Lerp.apply(self, end, weight=weight)

    def lerp_(self, end, weight):
        _require_tensor(end, "lerp_", "end", 1)
        if isinstance(weight, _tensor_type()):
            return _ops.inplace(_ops.math_binary.LerpTensor, self, end, weight)
        return _ops.inplace(_ops.math_binary.Lerp, self, end, weight=weight)

    addcmul = _pointwise_method("addcmul", "Addcmul", inplace=False)
    addcmul_ = _pointwise_method("addcmul_", "Addcmul", inplace=True)
    addcdiv = _pointwise_method("addcdiv", "Addcdiv", inplace=False)
    addcdiv_ = _pointwise_method("addcdiv_", "Addcdiv", inplace=True)

    def float_power(self, exponent):
        """``self ** exponent`` computed in float64, or complex128 when either is complex (a
        ToCopyBackward0 first when needed)."""
        if exponent.__class__ not in _argparse.NUMBERS and not isinstance(exponent,
                                                                          _tensor_type()):
            exponent = _argparse.operand("float_power", exponent, (exponent,))
        target = _float_power_dtype(self, exponent)
        base = self.to(target)
        if isinstance(exponent, _tensor_type()):
            return _ops.PowTensor.apply(base, exponent.to(target))
        return _ops.PowScalar.apply(base, exponent=_float_power_scalar(exponent, target))

    def float_power_(self, exponent):
        if exponent.__class__ not in _argparse.NUMBERS and not isinstance(exponent,
                                                                          _tensor_type()):
            exponent = _argparse.operand("float_power_", exponent, (exponent,))
        target = _float_power_dtype(self, exponent)
        if self.dtype is not target:
            raise RuntimeError(
                f"the base given to float_power_ has dtype {self.dtype._legacy} but the "
                f"operation's result requires dtype {target._legacy}"
            )
        if isinstance(exponent, _tensor_type()):
            return _ops.inplace(_ops.PowTensor, self, exponent.to(target))
        return _ops.inplace(_ops.PowScalar, self,
                            exponent=_float_power_scalar(exponent, target))

    # -- where, logical ops and tests (see ops/math_logic.py) -------------------------------
    def where(self, condition, other):
        """``torch.where(condition, self, other)``."""
        return where(condition, self, other)

    def logical_and(self, other):
        _require_tensor(other, "logical_and", "other", 1)
        return _ops.math_logic.LogicalAnd.apply(self, other)

    def logical_and_(self, other):
        _require_tensor(other, "logical_and_", "other", 1)
        return _ops.inplace(_ops.math_logic.LogicalAnd, self, other)

    def logical_or(self, other):
        _require_tensor(other, "logical_or", "other", 1)
        return _ops.math_logic.LogicalOr.apply(self, other)

    def logical_or_(self, other):
        _require_tensor(other, "logical_or_", "other", 1)
        return _ops.inplace(_ops.math_logic.LogicalOr, self, other)

    def logical_xor(self, other):
        _require_tensor(other, "logical_xor", "other", 1)
        return _ops.math_logic.LogicalXor.apply(self, other)

    def logical_xor_(self, other):
        _require_tensor(other, "logical_xor_", "other", 1)
        return _ops.inplace(_ops.math_logic.LogicalXor, self, other)

    logical_not, logical_not_ = _unary("logical_not", "LogicalNot", "math_logic")

    def isnan(self):
        return _ops.math_logic.IsNan.apply(self)

    def isinf(self):
        return _ops.math_logic.IsInf.apply(self)

    def isposinf(self):
        return _ops.math_logic.IsPosInf.apply(self)

    def isneginf(self):
        return _ops.math_logic.IsNegInf.apply(self)

    def isfinite(self):
        return _ops.math_logic.IsFinite.apply(self)

    def signbit(self):
        return _ops.math_logic.Signbit.apply(self)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        _require_tensor(other, "isclose", "other", 1)
        rtol, atol, equal_nan = _tolerances("isclose", rtol, atol, equal_nan)
        close = _ops.math_logic.IsClose.apply(self, other, rtol=rtol, atol=atol,
                                             equal_nan=equal_nan)
        # torch's composite starts from self == other and ORs into it in place: once for the
        # NaN pairs (equal_nan, floating or complex self), once for the tolerances (unless
        # both are 0); its result's version counter shows those writes
        writes = (equal_nan and (self.dtype.is_floating_point or self.dtype.is_complex)) \
            + (rtol != 0 or atol != 0)
        for _ in range(writes):
            close._bump_version()
        return close

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
        _require_tensor(other, "allclose", "other", 1)
        rtol, atol, equal_nan = _tolerances("allclose", rtol, atol, equal_nan)
        close = _ops.math_logic.isclose_array(self._data, other._data, rtol, atol, equal_nan)
        return bool(close.all())

    # torch's aliases of the comparison methods
    def greater(self, other):
        return _ops.Gt.apply(self, _compared("greater", other))

    def greater_equal(self, other):
        return _ops.Ge.apply(self, _compared("greater_equal", other))

    def less(self, other):
        return _ops.Lt.apply(self, _compared("less", other))

    def less_equal(self, other):
        return _ops.Le.apply(self, _compared("less_equal", other))

    def not_equal(self, other):
        return _ops.Ne.apply(self, _compared("not_equal", other))


def _clamp_side(tensor, bound, name: str, scalar_op: str, tensor_op: str, in_place: bool):
    """clamp_min / clamp_max: a number bound (Backward0) or a tensor bound (Backward1)."""
    if bound is None:
        raise _ops.math_clamp.invalid_arguments(name, (bound,))
    if not isinstance(bound, (_tensor_type(), bool, int, float, complex)) and \
            not (isinstance(bound, _np.generic) and bound.dtype.kind in "biuf"):
        raise _argparse.invalid_combination(name, (bound,), {})
    if isinstance(bound, _np.generic):
        bound = _argparse.numpy_scalar(bound)
    module = _ops.math_clamp
    if isinstance(bound, _tensor_type()):
        op, args, params = getattr(module, tensor_op), (bound,), {}
    else:
        keyword = "min" if "min" in name else "max"
        op, args, params = getattr(module, scalar_op), (), {keyword: bound}
    if in_place:
        return _ops.inplace(op, tensor, *args, **params)
    return op.apply(tensor, *args, **params)


def _binary_or_scalar(tensor, other, scalar_op: str, tensor_op: str, in_place: bool):
    """fmod / remainder: a number ``other`` (Backward0) or a tensor ``other`` (Backward1)."""
    binary = _ops.math_binary
    if isinstance(other, _tensor_type()):
        op, args, params = getattr(binary, tensor_op), (other,), {}
    else:
        op, args, params = getattr(binary, scalar_op), (), {"other": other}
    if in_place:
        return _ops.inplace(op, tensor, *args, **params)
    return op.apply(tensor, *args, **params)


def where(condition, input, other):  # noqa: A002 - torch's names
    """``torch.where(condition, input, other)`` (WhereBackward0); numbers may stand for either
    branch. See Note: where's gradient is NaN-safe the way torch's is (ops/math_logic.py)."""
    Tensor = _tensor_type()
    if not isinstance(condition, Tensor) or not (
            input.__class__ in _argparse.NUMBERS or isinstance(input, Tensor)) or not (
            other.__class__ in _argparse.NUMBERS or isinstance(other, Tensor)):
        _argparse.check("where", (condition, input, other))
    result = _ops.math_logic.Where.apply(
        input, other, condition=_ops.math_logic.bool_condition(condition))
    return _ops.keep_index(result, condition, "condition")  # torch saves the uint8 one too


def _check_binary(name: str, other) -> None:
    if not isinstance(other, _tensor_type()):
        _argparse.check(name, (other,))


def _operand(other) -> bool:
    """Whether ``other`` is an operand torch's operators take (Note: operands in tensor.py)."""
    from ..tensor import _OPERANDS, Tensor

    return isinstance(other, (Tensor,) + _OPERANDS)


def _float_power_dtype(base, exponent):
    """torch's float_power computes in complex128 when the base or the exponent is complex
    (a tensor's dtype or a Python complex), else in float64."""
    complex_ = any(value.dtype.is_complex if isinstance(value, _tensor_type())
                   else isinstance(value, complex) for value in (base, exponent))
    return _dtype.complex128 if complex_ else _dtype.float64


def _float_power_scalar(value, target):
    return complex(value) if target is _dtype.complex128 else float(value)


def _compared(function: str, other):
    """A comparison alias's other: a Tensor or a Number (``_argparse.operand``)."""
    if other.__class__ in _argparse.NUMBERS or isinstance(other, _tensor_type()):
        return other
    return _argparse.operand(function, other, (other,))


def _tolerances(function: str, rtol, atol, equal_nan) -> tuple:
    """isclose/allclose's ``float rtol, float atol, bool equal_nan`` as torch's parser reads
    them (keyword spelling: they are most often given by name)."""
    if rtol.__class__ is not float:
        rtol = _argparse.number(function, "rtol", rtol, kind="float")
    if atol.__class__ is not float:
        atol = _argparse.number(function, "atol", atol, kind="float")
    if equal_nan.__class__ is not bool:
        equal_nan = _argparse.bool_arg(function, "equal_nan", equal_nan)
    return rtol, atol, equal_nan


# the C type torch converts a Scalar to for a kernel of each dtype (reduced floats compute in
# float), as its "value cannot be converted" message names it
_VALUE_C_TYPES = {"float32": "float", "float16": "float", "bfloat16": "float",
                  "float64": "double", "int64": "int64_t", "int32": "int", "int16": "int16_t",
                  "int8": "int8_t", "uint8": "uint8_t"}


def _value_number(function: str, value, *tensors):
    """addcmul/addcdiv's ``value``, a Scalar as torch's parser takes it: a Python or NumPy
    number, or a 0-d tensor that does not require grad (its item); anything else is its
    TypeError (None, lists, arrays and other tensors gave NaNs or broadcast before). A complex
    value with real operands must have no imaginary part (torch's conversion error)."""
    tensor_type = _tensor_type()
    if isinstance(value, (bool, int, float, complex)):
        pass
    elif isinstance(value, _np.complexfloating):  # (not a Python complex: read as a double,
        value = float(value)  # the imaginary part dropped with NumPy's ComplexWarning, as torch)
    elif isinstance(value, _np.generic) and value.dtype.kind in "biuf":
        value = _argparse.numpy_scalar(value)
    elif isinstance(value, tensor_type) and value.ndim == 0 and not value.requires_grad:
        value = value.item()
    else:
        raise TypeError(f"{function}(): argument 'value' must be Number, not "
                        f"{_argparse.typename(value)}")
    if isinstance(value, complex) and not any(
            isinstance(t, tensor_type) and t.is_complex() for t in tensors):
        if function.startswith("addcdiv") and not any(
                isinstance(t, tensor_type) and t.is_floating_point() for t in tensors[1:]):
            return value  # (its integer-division error comes first)
        if value.imag:
            common = None
            for t in tensors:
                if isinstance(t, tensor_type):
                    common = t.dtype if common is None else _dtype.promote_types(common, t.dtype)
            name = _VALUE_C_TYPES.get(str(common).split(".")[-1])
            if name is not None:
                raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        else:
            value = value.real
    return value


def _optional_floats(function: str, nan, posinf, neginf) -> tuple:
    """nan_to_num's ``float?`` arguments: None or a real number (a 0-d tensor's item), else
    torch's TypeError naming the argument."""
    values = []
    for name, value in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if value is not None and value.__class__ is not float and value.__class__ is not int:
            value = _argparse.number(function, name, value, kind="float")
        values.append(value)
    return tuple(values)
