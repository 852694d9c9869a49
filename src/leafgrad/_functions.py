"""The ``leafgrad.<op>(tensor, ...)`` forms of tensor methods (``torch.add(w, x)``)."""

from __future__ import annotations

import numpy as _np

from . import ops as _ops
from ._out import ANY, CAT, CAST, EXPECT, FOUND, Out, Rule, same_as, takes_out
from . import _argparse
from . import _dtype
from .tensor import Tensor, _int_args
from .sparse._tensor import SparseTensor as _Sparse

_NUMBERS = _argparse.NUMBERS

__all__ = [
    "add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide", "neg",
    "negative", "reciprocal", "pow", "exp", "log", "sqrt", "abs", "absolute", "sign", "sin",
    "cos", "tanh", "sigmoid", "relu", "clamp", "clip", "sum", "mean", "matmul", "mm", "mv",
    "dot", "bmm", "reshape", "flatten", "t", "transpose", "swapaxes", "swapdims", "permute",
    "unsqueeze", "squeeze", "narrow", "select", "unbind", "cat", "concat", "concatenate",
    "stack", "clone", "eq", "ne", "lt", "le", "gt", "ge", "equal", "numel", "is_tensor",
    "is_floating_point", "is_inference", "broadcast_shapes", "detach",
]


# Note: a number as self
# add, sub, mul, div, true_divide and floor_divide (only these: torch's
# should_allow_numbers_as_tensors) take a Python number where their first Tensor goes. torch
# makes it a wrapped number, a 0-d double tensor that promotes as a scalar: torch.add(0.1, x)
# of a float64 x adds the double 0.1, not 0.1 rounded to the default float32. The ops take the
# number as such (their Python scalars are wrapped numbers, ops/registry.py), so it is passed on.


@takes_out(Out("add", CAST, overlap=True))
def add(input, other, *deprecated, alpha=1):
    if deprecated:  # Note: deprecated overloads (_argparse.py)
        (other,), alpha = _argparse.scalar_first("add", False, other, deprecated, "alpha",
                                                 alpha, input)
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)) or alpha.__class__ not in _NUMBERS:
        _argparse.check("add", (input, other), {"alpha": alpha})
        alpha = _argparse.scalar(alpha)
    if not isinstance(input, Tensor):  # Note: a number as self
        return _ops.Add.apply(input, other, alpha=alpha)
    return input.add(other, alpha=alpha)


@takes_out(Out("sub", CAST, overlap=True))
def sub(input, other, *deprecated, alpha=1):
    if deprecated:  # Note: deprecated overloads (_argparse.py)
        (other,), alpha = _argparse.scalar_first("sub", False, other, deprecated, "alpha",
                                                 alpha, input)
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)) or alpha.__class__ not in _NUMBERS:
        _argparse.check("sub", (input, other), {"alpha": alpha})
        alpha = _argparse.scalar(alpha)
    if not isinstance(input, Tensor):  # Note: a number as self
        return _ops.Sub.apply(input, other, alpha=alpha)
    return input.sub(other, alpha=alpha)


@takes_out(Out("sub", CAST, overlap=True))
def subtract(input, other, *extra, alpha=_argparse.NO_MODE, **unknown):
    if extra or unknown or other.__class__ not in _NUMBERS and not isinstance(other, Tensor) \
            or alpha is not _argparse.NO_MODE and alpha.__class__ not in _NUMBERS:
        _argparse.check_alias("subtract", (input, other, *extra), {"alpha": alpha, **unknown})
    return sub(input, other, alpha=1 if alpha is _argparse.NO_MODE else alpha)


def rsub(input, other, *, alpha=1):
    if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):  # torch's overloads:
        # (Tensor, Tensor, *, Number alpha), (Tensor, Number other, Number alpha)
        other = _argparse.operand("rsub", other, (input, other),
                                  {} if alpha.__class__ is int and alpha == 1 else
                                  {"alpha": alpha})
    if alpha.__class__ not in _NUMBERS:
        alpha = _argparse.number("rsub", "alpha", alpha, overloads=((input, other), {
            "alpha": alpha}))
    if isinstance(other, Tensor):
        return _ops.RsubTensor.apply(input, other, alpha=alpha)
    return _ops.Rsub.apply(input, other=other, alpha=alpha)


@takes_out(Out("mul", CAST, overlap=True))
def mul(input, other):
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)):
        _argparse.check("mul", (input, other))
    if not isinstance(input, Tensor):  # Note: a number as self
        return _ops.Mul.apply(input, other)
    return input.mul(other)


# Note: aliases' errors
# torch's multiply, subtract and divide are functions of their own with more overloads than mul,
# sub and div: a call none of them takes gets their parser's error (naming them, and listing the
# overloads where several take that many arguments: subtract(t, 3, rounding_mode=...)), not
# Python's for the function leafgrad aliases
@takes_out(Out("mul", CAST, overlap=True))
def multiply(input, other, *extra, **unknown):
    if extra or unknown or other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
        _argparse.check_alias("multiply", (input, other, *extra), unknown)
    return mul(input, other)


@takes_out(Out("div", CAST, overlap=True))
def div(input, other, *, rounding_mode=_argparse.NO_MODE, **unknown):  # Note: explicit rounding_mode=None
    if unknown:  # torch lists div's overloads (Note: aliases' errors)
        _argparse.check_alias("div", (input, other), {"rounding_mode": rounding_mode, **unknown})
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)):
        _argparse.check_alias("div", (input, other), {"rounding_mode": rounding_mode})
    if not isinstance(input, Tensor):  # Note: a number as self
        if rounding_mode is _argparse.NO_MODE:
            return _ops.Div.apply(input, other)
        return _ops.math_binary.div_rounding(input, other, rounding_mode)
    return input.div(other, rounding_mode=rounding_mode)


@takes_out(Out("div", CAST, overlap=True))
def divide(input, other, *extra, rounding_mode=_argparse.NO_MODE, **unknown):
    if extra or unknown or other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
        _argparse.check_alias("divide", (input, other, *extra),
                              {"rounding_mode": rounding_mode, **unknown})
    return div(input, other, rounding_mode=rounding_mode)


def true_divide(*args, **kwargs):
    if "out" in kwargs and [key for key in kwargs if key not in ("other", "out")]:
        # torch's true_divide has no rounding_mode parameter; its parser then lists the
        # overloads, naming out= last
        got = [_argparse.typename(value) for value in args] + [
            f"{key}={_argparse.typename(value)}" for key, value in kwargs.items()
            if key != "out"] + [f"out={_argparse.typename(kwargs['out'])}"]
        raise TypeError("true_divide() received an invalid combination of arguments - got "
                        f"({', '.join(got)}), but expected one of:")
    if len(args) == 2:  # (Note: aliases' errors)
        _argparse.check_alias("true_divide", args, {key: value for key, value in kwargs.items()
                                                    if key != "out"})
    unknown = [key for key in kwargs if key not in ("other", "out")]
    if unknown:
        raise TypeError(f"true_divide() got an unexpected keyword argument '{unknown[0]}'")
    return div(*args, **kwargs)


@takes_out(Out("neg", FOUND, overlap=True))
def neg(input):
    return input.neg()


negative = neg


@takes_out(Out("reciprocal", CAST, overlap=True))
def reciprocal(input):
    return input.reciprocal()


@takes_out(Out("pow", CAST, overlap=True))
def pow(input, exponent):  # noqa: A001 - torch's name
    if not isinstance(input, Tensor) or exponent.__class__ not in _NUMBERS and (
            not isinstance(exponent, Tensor)):
        _argparse.check("pow", (input, exponent))
    if input.__class__ is _Sparse:  # (leafgrad.sparse)
        return input.pow(exponent)
    return _ops.pow(input, exponent)


@takes_out(Out("exp", CAST, overlap=True))
def exp(input):
    return input.exp()


@takes_out(Out("log", CAST, overlap=True))
def log(input):
    return input.log()


@takes_out(Out("sqrt", CAST, overlap=True))
def sqrt(input):
    return input.sqrt()


class _ComplexToFloat(Rule):
    """torch's unary_op_impl_with_complex_to_float_out (abs of a complex input): a real out
    takes the real result where castable; a complex one is written the complex kernel's result,
    so it must have the input's dtype."""

    __slots__ = ()

    def __init__(self):
        super().__init__(CAST.message, CAST.allowed)

    def check(self, result, out) -> None:
        if out.is_complex:
            FOUND.check(_dtype.promote_types(result, _dtype.complex64), out)
        else:
            CAST.check(result, out)


_ABS_OUT = Out("abs", FOUND, overlap=True)
_COMPLEX_ABS_OUT = Out("abs", _ComplexToFloat(), overlap=True)


def _abs_out(args, kwargs):
    input = args[0] if args else kwargs.get("input")
    return _COMPLEX_ABS_OUT if isinstance(input, Tensor) and input.is_complex() else _ABS_OUT


@takes_out(_abs_out)
def abs(input):  # noqa: A001
    return input.abs()


absolute = abs


@takes_out(Out("sign", FOUND, overlap=True))
def sign(input):
    return input.sign()


@takes_out(Out("sin", CAST, overlap=True))
def sin(input):
    return input.sin()


@takes_out(Out("cos", CAST, overlap=True))
def cos(input):
    return input.cos()


@takes_out(Out("tanh", CAST, overlap=True))
def tanh(input):
    return input.tanh()


@takes_out(Out("sigmoid", CAST, overlap=True))
def sigmoid(input):
    return input.sigmoid()


def relu(input):
    return input.relu()


@takes_out(Out("clamp", FOUND, overlap=True))
def clamp(input, min=None, max=None):  # noqa: A002
    return input.clamp(min, max)


clip = clamp


@takes_out(Out("sum", ANY, mode="dtype"))
@_argparse.declared("sum")
def sum(input, dim=_argparse.DIM_NOT_GIVEN, keepdim=_argparse.KEEPDIM_NOT_GIVEN, *,  # noqa: A001
        dtype=None):
    if keepdim is not _argparse.KEEPDIM_NOT_GIVEN:
        if dim is _argparse.DIM_NOT_GIVEN:  # (torch's overload without dim takes no keepdim)
            _argparse.reduction_flags("sum", (input,), dim, keepdim, dtype)
        if keepdim.__class__ is not bool and dim is None:  # (the overload without dim lists
            _argparse.keepdim("sum", keepdim, (input,))  # them)
    return input.sum(dim, keepdim, dtype=dtype)


@takes_out(Out("mean", CAST))
@_argparse.declared("mean")
def mean(input, dim=_argparse.DIM_NOT_GIVEN, keepdim=_argparse.KEEPDIM_NOT_GIVEN, *,
         dtype=None):
    if keepdim is not _argparse.KEEPDIM_NOT_GIVEN:
        if dim is _argparse.DIM_NOT_GIVEN:  # (torch's overload without dim takes no keepdim)
            _argparse.reduction_flags("mean", (input,), dim, keepdim, dtype, missing=False)
        if keepdim.__class__ is not bool:  # (torch.mean's overloads all take it: it lists them)
            _argparse.keepdim("mean", keepdim, (input,) + _argparse.given(dim))
    return input.mean(dim, keepdim, dtype=dtype)


@takes_out(Out("matmul", EXPECT, internal_overlap=False))
def matmul(input, other):
    if input.__class__ is _Sparse or other.__class__ is _Sparse:  # (leafgrad.sparse)
        return input.__matmul__(other) if input.__class__ is _Sparse else \
            other.__rmatmul__(input)
    return _ops.matmul(input, other)


@takes_out(Out("mm", EXPECT))
def mm(input, mat2):
    if input.__class__ is _Sparse or mat2.__class__ is _Sparse:  # (leafgrad.sparse)
        from .sparse import _ops as _sparse_ops

        return _sparse_ops.mm(input, mat2)
    return _ops.mm(input, mat2)


@takes_out(Out("mv", EXPECT, internal_overlap=False))
def mv(input, vec):
    if input.__class__ is _Sparse:  # (leafgrad.sparse)
        return input.mv(vec)
    return _ops.mv(input, vec)


@takes_out(Out("dot", same_as("result dtype {O} does not match input dtype {R}")))
def dot(input, tensor):
    return _ops.dot(input, tensor)


@takes_out(Out("bmm", EXPECT, internal_overlap=False))
def bmm(input, mat2):
    return _ops.bmm(input, mat2)


@_argparse.parsed("reshape")
def reshape(input, shape):
    if not _argparse.plain_ints(shape):
        shape = _argparse.int_list("reshape", "shape", shape, 2, sized=False)
    return input.reshape(shape)


@_argparse.declared("flatten")
def flatten(input, start_dim=0, end_dim=-1):
    if start_dim.__class__ is not int or end_dim.__class__ is not int:  # (its positions)
        start_dim, end_dim = _int_args("flatten", (("start_dim", start_dim),
                                                   ("end_dim", end_dim)), 2)
    return input.flatten(start_dim, end_dim)


def t(input):
    return input.t()


@_argparse.declared("transpose")
def transpose(input, dim0, dim1):
    if dim0.__class__ is not int or dim1.__class__ is not int:  # (the function's positions)
        dim0, dim1 = _int_args("transpose", (("dim0", dim0), ("dim1", dim1)), 2)
    return input.transpose(dim0, dim1)


@_argparse.declared("swapaxes")
def swapaxes(input, axis0, axis1):
    if axis0.__class__ is not int or axis1.__class__ is not int:  # (the function's positions)
        axis0, axis1 = _int_args("swapaxes", (("axis0", axis0), ("axis1", axis1)), 2)
    return input.transpose(axis0, axis1)


@_argparse.declared("swapdims")
def swapdims(input, dim0, dim1):
    return input.transpose(dim0, dim1)


@_argparse.parsed("permute")
def permute(input, dims):
    if not _argparse.plain_ints(dims):
        dims = _argparse.int_list("permute", "dims", dims, 2, sized=False)
    return input.permute(dims)


@_argparse.declared("unsqueeze")
def unsqueeze(input, dim):
    if dim.__class__ is not int:
        dim = _argparse.int_arg("unsqueeze", "dim", dim, 2)
    return input.unsqueeze(dim)


@_argparse.declared("squeeze")
def squeeze(input, dim=_argparse.DIM_NOT_GIVEN):
    return input.squeeze(dim)


def narrow(*args, **kwargs):
    names = ("input", "dim", "start", "length")
    given = dict(zip(names, args), **kwargs)
    if len(args) > 4 or set(given) - set(names) or len(given) < 4 or not isinstance(
            given["input"], Tensor):
        raise _argparse.invalid_combination("narrow", args, kwargs)
    return _ops.narrow(*(given[n] for n in names), parsed=(args, kwargs))


@_argparse.declared("select")
def select(input, dim, index):
    if dim.__class__ is not int or index.__class__ is not int:
        dim, index = _int_args("select", (("dim", dim), ("index", index)), 2)
    return input.select(dim, index)


@_argparse.declared("unbind")
def unbind(input, dim=0):
    return input.unbind(dim)


@takes_out(Out("cat", CAT, overlap="full"))
@_argparse.declared("cat")
def cat(tensors, dim=0):
    if tensors.__class__ in (list, tuple) and tensors and tensors[0].__class__ is _Sparse:
        from .sparse import _ops as _sparse_ops  # (leafgrad.sparse)

        return _sparse_ops.cat(tensors, dim)
    if dim.__class__ is not int and tensors.__class__ in (list, tuple) and all(
            isinstance(tensor, Tensor) for tensor in tensors):  # (torch's parser reads the
        # tensors first; a dim tensor of several elements failed in bool())
        dim = _argparse.int_arg("cat", "dim", dim, 2)
    return _ops.cat(tensors, dim)


concat = concatenate = cat


@takes_out(Out("stack", CAT, overlap="full"))
@_argparse.declared("stack")
def stack(tensors, dim=0):
    if dim.__class__ is not int:  # (a bool was read as a dim)
        dim = _argparse.int_arg("stack", "dim", dim, 2)
    return _ops.stack(tensors, dim)


def detach(input):
    return input.detach()


def clone(input, *, memory_format=None):
    return input.clone(memory_format=memory_format)


@takes_out(Out(None, ANY, overlap=True))
def eq(input, other):
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)):
        _argparse.check("eq", (input, other))
    return input.eq(other)


@takes_out(Out(None, ANY, overlap=True))
def ne(input, other):
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)):
        _argparse.check("ne", (input, other))
    return input.ne(other)


@takes_out(Out(None, ANY, overlap=True))
def lt(input, other):
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)):
        _argparse.check("lt", (input, other))
    return input.lt(other)


@takes_out(Out(None, ANY, overlap=True))
def le(input, other):
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)):
        _argparse.check("le", (input, other))
    return input.le(other)


@takes_out(Out(None, ANY, overlap=True))
def gt(input, other):
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)):
        _argparse.check("gt", (input, other))
    return input.gt(other)


@takes_out(Out(None, ANY, overlap=True))
def ge(input, other):
    if not isinstance(input, Tensor) or other.__class__ not in _NUMBERS and (
            not isinstance(other, Tensor)):
        _argparse.check("ge", (input, other))
    return input.ge(other)


def equal(input, other) -> bool:
    return input.equal(other)


def numel(input) -> int:
    return input.numel()


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def is_inference(input) -> bool:
    return input.is_inference()


def broadcast_shapes(*shapes):
    """The shape ``shapes`` broadcast to, computed as torch's ``_refs._broadcast_shapes``: a
    size is taken over where the shape so far has 1 (a negative one is a ValueError), kept
    where the new one is 1, and must otherwise be equal."""
    from collections.abc import Sequence

    from .tensor import Size

    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    if not shapes:
        return Size([])
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {shape}")
    common = [1] * max(len(shape) for shape in shapes)
    for index, shape in enumerate(shapes):
        for at in range(-1, -1 - len(shape), -1):
            size = shape[at]
            if size == common[at]:
                continue
            if common[at] == 1:
                if size < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[at] = size
            if size != 1 and common[at] != size:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at {at}! "
                    f"Mismatching argument at index {index} had {shape}; but expected shape "
                    f"should be broadcastable to {common}")
    return Size(common)
