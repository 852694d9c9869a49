"""The ``leafgrad.<op>(tensor, ...)`` forms of tensor methods (``torch.add(w, x)``)."""

from __future__ import annotations

from . import ops as _ops
from .tensor import _check_other, Tensor

__all__ = [
    "add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide", "neg",
    "negative", "reciprocal", "pow", "exp", "log", "sqrt", "abs", "absolute", "sign", "sin",
    "cos", "tanh", "sigmoid", "relu", "clamp", "clip", "sum", "mean", "matmul", "mm", "mv",
    "dot", "bmm", "reshape", "flatten", "t", "transpose", "swapaxes", "swapdims", "permute",
    "unsqueeze", "squeeze", "narrow", "select", "unbind", "cat", "concat", "concatenate",
    "stack", "clone", "eq", "ne", "lt", "le", "gt", "ge", "equal", "numel", "is_tensor",
    "is_floating_point", "broadcast_shapes", "detach",
]


def _tensor(value):
    if isinstance(value, Tensor):
        return value
    from ._creation import tensor

    return tensor(value)


def add(input, other, *, alpha=1, out=None):
    _check_other(other, "add", 2)
    if not isinstance(input, Tensor):
        return _ops.Add.apply(_tensor(input), other, alpha=alpha)
    return input.add(other, alpha=alpha)


def sub(input, other, *, alpha=1, out=None):
    _check_other(other, "sub", 2)
    return _tensor(input).sub(other, alpha=alpha)


subtract = sub


def rsub(input, other, *, alpha=1):
    if isinstance(other, Tensor):
        return other.sub(input, alpha=alpha)
    return _ops.Rsub.apply(input, other=other, alpha=alpha)


def mul(input, other, *, out=None):
    _check_other(other, "mul", 2)
    if not isinstance(input, Tensor):
        return _ops.Mul.apply(_tensor(input), other)
    return input.mul(other)


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    _check_other(other, "div", 2)
    return _tensor(input).div(other, rounding_mode=rounding_mode)


divide = true_divide = div


def neg(input, *, out=None):
    return input.neg()


negative = neg


def reciprocal(input, *, out=None):
    return input.reciprocal()


def pow(input, exponent, *, out=None):  # noqa: A001 - torch's name
    return _ops.pow(input, exponent)


def exp(input, *, out=None):
    return input.exp()


def log(input, *, out=None):
    return input.log()


def sqrt(input, *, out=None):
    return input.sqrt()


def abs(input, *, out=None):  # noqa: A001
    return input.abs()


absolute = abs


def sign(input, *, out=None):
    return input.sign()


def sin(input, *, out=None):
    return input.sin()


def cos(input, *, out=None):
    return input.cos()


def tanh(input, *, out=None):
    return input.tanh()


def sigmoid(input, *, out=None):
    return input.sigmoid()


def relu(input):
    return input.relu()


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    return input.clamp(min, max)


clip = clamp


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    return input.sum(dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    return input.mean(dim, keepdim, dtype=dtype)


def matmul(input, other, *, out=None):
    return _ops.matmul(input, other)


def mm(input, mat2, *, out=None):
    return _ops.mm(input, mat2)


def mv(input, vec, *, out=None):
    return _ops.mv(input, vec)


def dot(input, tensor, *, out=None):
    return _ops.dot(input, tensor)


def bmm(input, mat2, *, out=None):
    return _ops.bmm(input, mat2)


def reshape(input, shape):
    return input.reshape(shape)


def flatten(input, start_dim=0, end_dim=-1):
    return input.flatten(start_dim, end_dim)


def t(input):
    return input.t()


def transpose(input, dim0, dim1):
    return input.transpose(dim0, dim1)


swapaxes = swapdims = transpose


def permute(input, dims):
    return input.permute(dims)


def unsqueeze(input, dim):
    return input.unsqueeze(dim)


def squeeze(input, dim=None):
    return input.squeeze(dim)


def narrow(input, dim, start, length):
    return input.narrow(dim, start, length)


def select(input, dim, index):
    return input.select(dim, index)


def unbind(input, dim=0):
    return input.unbind(dim)


def cat(tensors, dim=0, *, out=None):
    return _ops.cat(tensors, dim)


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    return _ops.stack(tensors, dim)


def detach(input):
    return input.detach()


def clone(input, *, memory_format=None):
    return input.clone(memory_format=memory_format)


def eq(input, other, *, out=None):
    return input.eq(other)


def ne(input, other, *, out=None):
    return input.ne(other)


def lt(input, other, *, out=None):
    return input.lt(other)


def le(input, other, *, out=None):
    return input.le(other)


def gt(input, other, *, out=None):
    return input.gt(other)


def ge(input, other, *, out=None):
    return input.ge(other)


def equal(input, other) -> bool:
    return input.equal(other)


def numel(input) -> int:
    return input.numel()


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def broadcast_shapes(*shapes):
    import numpy as np

    from .tensor import Size

    return Size(np.broadcast_shapes(*[tuple(s) if not isinstance(s, int) else (s,) for s in shapes]))
