"""``leafgrad.<name>`` forms torch has for a few Tensor methods and odd functions: adjoint,
positive, fill, is_neg, get_device, negative_, conj_physical_, constant_pad_nd, index_put,
nonzero_static, empty_permuted."""

from __future__ import annotations

import math

from . import _argparse
from ._functions_copies import _ints
from ._functions_math import _require_tensor
from .tensor import Tensor

__all__ = [
    "adjoint", "positive", "fill", "is_neg", "get_device", "negative_", "conj_physical_",
    "constant_pad_nd", "index_put", "nonzero_static", "empty_permuted", "addmv_",
]


def adjoint(input):  # noqa: A002 - torch's names throughout
    """The conjugate transpose of the last two dims (a view)."""
    _require_tensor(input, "adjoint", "input", 1)
    return input.adjoint()


def positive(input):  # noqa: A002
    """``input`` itself (bool tensors refuse, as torch's unary ``+``)."""
    _require_tensor(input, "positive", "input", 1)
    return input.positive()


def fill(input, value):  # noqa: A002
    """A new tensor of ``input``'s shape and dtype holding ``value``."""
    from .ops import extra_forms as fill_forms

    if not isinstance(input, Tensor) or not (isinstance(value, Tensor)
                                             or _argparse._is_number(value)):
        raise _argparse.invalid_combination("fill", (input, value), {})
    if isinstance(value, Tensor):
        return fill_forms.FillValue.apply(input, value)
    # (the value checked as fill_ checks it: one element of float16 through a double, an
    # overflowing number refused)
    value = check_fill_value(input, value, setitem=input.numel() == 1)
    if not isinstance(value, complex):
        from ._construct import check_scalar_write

        value = check_scalar_write(_argparse.scalar(value), input.dtype,
                                   half=input.numel() != 1)
    return fill_forms.FillScalar.apply(input, value=_argparse.scalar(value))


def check_fill_value(tensor, value, setitem: bool = False):
    """``value`` as written into ``tensor``: a complex number with an imaginary part does not
    fit a real tensor (torch's checked scalar conversion); one without is its real part (which
    must be finite for an integer tensor). ``setitem``: torch's setitem (and fill_ of one
    element) converts for a float16 or bfloat16 tensor through a double (its message names
    double)."""
    value = _argparse.scalar(value)
    dtype = tensor.dtype
    if isinstance(value, complex) and not dtype.is_complex and dtype.name != "bool":
        if value.imag == 0 and (dtype.is_floating_point or math.isfinite(value.real)):
            return value.real
        if setitem and dtype.name in ("float16", "bfloat16"):
            name = "double"
        else:
            name = _C_TYPES.get(dtype.name, dtype.name)
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value


def is_neg(input) -> bool:  # noqa: A002
    _require_tensor(input, "is_neg", "input", 1)
    return input.is_neg()


def get_device(input) -> int:  # noqa: A002
    """-1: every leafgrad tensor is on the CPU."""
    _require_tensor(input, "get_device", "input", 1)
    return input.get_device()


def negative_(input):  # noqa: A002
    _require_tensor(input, "negative_", "input", 1)
    return input.neg_()


def addmv_(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """``input = beta * input + alpha * (mat @ vec)``, in place."""
    _require_tensor(input, "addmv_", "input", 1)
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)


def conj_physical_(input):  # noqa: A002
    _require_tensor(input, "conj_physical_", "input", 1)
    return input.conj_physical_()


def constant_pad_nd(input, pad, value=0):  # noqa: A002
    """Pad (negative amounts crop) the last ``len(pad) // 2`` dims with ``value``; ``pad`` lists
    (before, after) pairs from the last dim backwards."""
    from .ops import ConstantPadNd

    _require_tensor(input, "constant_pad_nd", "input", 1)
    pad = _ints("constant_pad_nd", "pad", 2, pad)
    if not _argparse._is_number(value):
        raise TypeError("constant_pad_nd(): argument 'value' (position 3) must be Number, not "
                        f"{_argparse.typename(value)}")
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the input. "
            f"Pad length is {len(pad)}while the input has {input.ndim}dimensions.")
    for i in range(len(pad) // 2):
        size = input.shape[input.ndim - 1 - i]
        if size + min(pad[2 * i], 0) + min(pad[2 * i + 1], 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    check_fill_value(input, value)
    return ConstantPadNd.apply(input, pad=pad, value=_argparse.scalar(value))


_C_TYPES = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t",
            "uint8": "uint8_t", "float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "bool": "bool"}


def index_put(input, indices, values, accumulate=False):  # noqa: A002
    """A copy of ``input`` with ``values`` written (or added) at ``input[indices]``."""
    _require_tensor(input, "index_put", "input", 1)
    if isinstance(indices, Tensor) or not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' (position 2) must be tuple of Tensors, "
                        f"not {_argparse.typename(indices)}")
    for position, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 1, but got "
                            f"{_argparse.typename(index)}")
    _require_tensor(values, "index_put", "values", 3)
    if not isinstance(accumulate, bool):
        raise TypeError("index_put(): argument 'accumulate' (position 4) must be bool, not "
                        f"{_argparse.typename(accumulate)}")
    return input.index_put(indices, values, accumulate)


def nonzero_static(input, *args, size=None, fill_value=-1):  # noqa: A002
    """``nonzero``'s indices in a result of exactly ``size`` rows: cut, or padded with
    ``fill_value``."""
    if args:  # torch's parser words it so
        raise TypeError(f"nonzero_static() takes from 2 to 1 positional arguments but "
                        f"{len(args) + 1} were given")
    if size is None:
        raise TypeError("nonzero_static() missing 1 required keyword-only argument: 'size'")
    _require_tensor(input, "nonzero_static", "input", 1)
    return input.nonzero_static(size=size, fill_value=fill_value)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of ``size`` whose memory runs in ``physical_layout``'s order of
    dims (the last one fastest)."""
    from . import empty

    size = _ints("empty_permuted", "size", 1, size)
    order = _ints("empty_permuted", "physical_layout", 2, physical_layout)
    if len(size) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    seen = [False] * len(size)
    for index, dim in enumerate(order):
        if not 0 <= dim < len(size):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got "
                f"{dim} at index {index}).  NB: negative dims not currently supported; file an "
                "issue if you want it.")
        if seen[dim]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[dim] = True
    physical = empty(tuple(size[d] for d in order), dtype=dtype, layout=layout, device=device)
    inverse = [0] * len(order)
    for position, dim in enumerate(order):
        inverse[dim] = position
    result = physical.permute(inverse).detach() if order else physical
    return result._set_requires_grad(requires_grad) if requires_grad else result
