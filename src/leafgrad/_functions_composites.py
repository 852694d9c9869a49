"""torch functions that torch itself writes as compositions of other ops (their gradients and
grad_fn names come from those ops), and small non-differentiable helpers computed with NumPy:
``diff``, ``ravel``, the stacking/splitting family, ``inner``, ``cartesian_prod``,
``combinations``, ``trapezoid``, ``cumulative_trapezoid``, ``vander``, ``diagflat``,
``logspace``, ``range``, ``scalar_tensor``, ``tril_indices``/``triu_indices``, ``bucketize``,
``searchsorted``, ``isin``, ``unravel_index``, ``histc``, ``bincount``.

>>> import leafgrad as torch
>>> torch.diff(torch.tensor([1., 4., 9.]))
tensor([3., 5.])
"""

from __future__ import annotations

from . import _argparse

import builtins
import itertools
import math
import warnings

import numpy as np

from . import _dtype
from ._out import CAST, EXPECT, Out, Rule, same_as, takes_out
from .tensor import Tensor, _wrap
from .autograd._vmap_state import state as _vmap_state
from .ops._batching import per_example_call

__all__ = [
    "diff", "ravel", "column_stack", "row_stack", "dstack", "atleast_3d", "tensor_split",
    "hsplit", "vsplit", "dsplit", "inner", "cartesian_prod", "combinations", "trapezoid",
    "trapz", "cumulative_trapezoid", "vander", "diagflat", "logspace", "range",
    "scalar_tensor", "tril_indices", "triu_indices", "bucketize", "searchsorted", "isin",
    "unravel_index", "histc", "bincount",
]


def _lib():
    import leafgrad

    return leafgrad


def _require_tensor(value, function: str, argument: str, position: int) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{argument}' (position {position}) must be "
                        f"Tensor, not {type(value).__name__}")


# -- differences and integrals -----------------------------------------------------------------


@takes_out(Out("sub", CAST))  # (torch's diff_out writes through sub_out)
@_argparse.declared("diff")
def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002 - torch's name
    """``torch.diff``: the n-th forward difference along ``dim`` (``prepend``/``append`` are
    concatenated first); bool tensors give logical xor, as in torch."""
    lib = _lib()
    _require_tensor(input, "diff", "input", 1)
    if n.__class__ is not int:
        n = _argparse.int_arg("diff", "n", n, 2)
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0:  # (torch's diff_helper: a copy, prepend and append unused)
        return lib.empty_like(input).copy_(input)  # torch's copy (CopyBackwards)
    pieces = [t for t in (prepend, input, append) if t is not None]
    if len(pieces) > 1:
        pieces = [p if isinstance(p, Tensor) else lib.tensor(p, dtype=input.dtype) for p in pieces]
        pieces = [p.expand(*input.shape[:dim % input.ndim], p.shape[dim % input.ndim] if p.ndim
                           else 1, *input.shape[dim % input.ndim + 1:]) if p.ndim != input.ndim
                  else p for p in pieces]
        input = lib.cat(pieces, dim)  # noqa: A001
    for _ in builtins.range(n):
        length = input.shape[dim]
        if length == 0:
            break
        # (torch's diff_helper writes narrow(1) - narrow(0) as C++ call arguments, which its
        # compiler evaluates right to left: the lower slice is made first, so the engine runs
        # the upper one's backward first and a create_graph sum adds its gradient first)
        lower = input.narrow(dim, 0, length - 1)
        upper = input.narrow(dim, 1, length - 1)
        input = lib.logical_xor(upper, lower) if input.dtype is _dtype.bool else upper - lower  # noqa: A001
    return input


def _integration_args(name: str, y, x, dx, dim, kind: str = "Number"):
    """trapezoid/trapz/cumulative_trapezoid's arguments as torch's parser takes them (Tensor
    y, Tensor x or a real ``dx``, int dim): ``(x or None, spacing, dim)``; anything else raises,
    and @parsed turns it into torch's error for the call as given."""
    if not isinstance(y, Tensor) or x is not _NOT_GIVEN and (
            dx is not _NOT_GIVEN or not isinstance(x, Tensor)):
        raise TypeError(name)
    if dim.__class__ is not int:
        dim = _argparse.int_arg(name, "dim", dim)
    if x is not _NOT_GIVEN:
        return x, None, dim
    if dx is _NOT_GIVEN:
        return None, 1.0, dim
    if dx.__class__ is not float and dx.__class__ is not int:
        dx = _argparse.number(name, "dx", dx, kind=kind)
    if kind == "float":  # (trapz's double: a bool is its value)
        return None, float(dx), dim
    if dx.__class__ is bool or dx.__class__ is complex:  # (the kernel's check of its Scalar)
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    return None, dx, dim


_NOT_GIVEN = _argparse.NOT_GIVEN  # (an explicit None is torch's error: ``Tensor x``, ``dx``)


@_argparse.parsed("trapezoid")
def trapezoid(y, x=_NOT_GIVEN, *, dx=_NOT_GIVEN, dim=-1):
    """``torch.trapezoid``: the trapezoidal rule along ``dim`` (spacing ``dx`` or samples
    ``x``), written as torch writes it."""
    return _trapezoid("trapezoid", y, *_integration_args("trapezoid", y, x, dx, dim))


def _trapezoid(name, y, x, spacing, dim):
    from .ops.elementwise import MulScalar

    length = y.size(dim)  # (torch's dim-range error)
    if x is None:
        # torch (C++): (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * dx
        if length == 0:
            return _empty_integral(y, dim)
        _refuse_bool(name, y, x)
        ends = MulScalar.apply(y.select(dim, 0) + y.select(dim, -1), other=0.5)
        return MulScalar.apply(y.sum(dim) - ends, other=spacing)
    if length == 0:
        return _empty_integral(y, dim)
    _refuse_bool(name, y, x)
    if x.ndim == 1:
        if x.shape[0] != length:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[dim] = x.shape[0]
        x = x.view(shape)
    elif x.ndim < y.ndim:
        x = _leading_ones(x, y.ndim)
    dx_values = diff(x, dim=dim)
    pairs = y.narrow(dim, 1, length - 1) + y.narrow(dim, 0, length - 1)
    return _halve((pairs * dx_values).sum(dim))  # (torch: pairs first, as its graph)


def _leading_ones(x, ndim: int):
    """torch's trapezoid views samples ``x`` of fewer dims than ``y`` (but not 1: those lie
    along ``dim``) with size-1 dims in front, a 0-d ``x`` too (then its difference is empty
    and the product with ``y``'s pairs torch's broadcast error)."""
    return x.view((1,) * (ndim - x.ndim) + tuple(x.shape))


def _halve(values):
    """``values / 2.``: an integer sum becomes the default float dtype, as torch's division
    promotes it (DivScalar would keep NumPy's float64)."""
    from .ops.loss import DivScalar

    if values.is_floating_point() or values.is_complex():
        return DivScalar.apply(values, other=2.0)
    return values / 2.0


def _empty_integral(y, dim):
    """torch: no samples along ``dim`` integrate to zeros of y's dtype (bool included)."""
    shape = list(y.shape)
    del shape[dim]
    return _lib().zeros(shape, dtype=y.dtype)


def _refuse_bool(name, y, x):
    if isinstance(x, Tensor) and _dtype_is_bool(x) or _dtype_is_bool(y):
        which = "`x` or `y`" if isinstance(x, Tensor) else "`y`"
        raise RuntimeError(f"{name}: received a bool input for {which}, but bool is not "
                           "supported")


def _dtype_is_bool(tensor):
    return tensor.dtype is _lib().bool


@_argparse.parsed("trapz")
def trapz(y, x=_NOT_GIVEN, *, dx=_NOT_GIVEN, dim=-1):
    """``torch.trapz``: ``trapezoid`` (its ``dx`` a double)."""
    return _trapezoid("trapezoid", y, *_integration_args("trapz", y, x, dx, dim, "float"))


@_argparse.parsed("cumulative_trapezoid")
def cumulative_trapezoid(y, x=_NOT_GIVEN, *, dx=_NOT_GIVEN, dim=-1):
    """``torch.cumulative_trapezoid``: the running trapezoidal integral along ``dim``."""
    from .ops.elementwise import MulScalar

    x, spacing, dim = _integration_args("cumulative_trapezoid", y, x, dx, dim)
    _refuse_bool("cumulative_trapezoid", y, x)
    length = y.size(dim)
    pairs = y.narrow(dim, min(length, 1), max(length - 1, 0)) + \
        y.narrow(dim, 0, max(length - 1, 0))
    if isinstance(x, Tensor):
        if x.ndim == 1:
            if x.shape[0] != length:
                raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each "
                                   "sample point")
            shape = [1] * y.ndim
            shape[dim] = x.shape[0]
            x = x.view(shape)
        elif x.ndim < y.ndim:
            x = _leading_ones(x, y.ndim)
        return _halve((pairs * diff(x, dim=dim)).cumsum(dim))
    return MulScalar.apply(pairs, other=spacing / 2.0).cumsum(dim)


# -- shapes: flattening, stacking, splitting --------------------------------------------------


def ravel(input):  # noqa: A002 - torch's name
    """``torch.ravel``: the elements as a 1-d tensor (a view when possible)."""
    from .ops.shape import View

    _require_tensor(input, "ravel", "input", 1)
    return View.apply(input.contiguous(), shape=(input.numel(),))  # torch: contiguous().view(-1)


def atleast_3d(*tensors):
    """``torch.atleast_3d``: 0-d -> (1, 1, 1), 1-d (n,) -> (1, n, 1), 2-d (m, n) -> (m, n, 1)."""
    from ._functions_shape import _atleast

    return _atleast("atleast_3d", _atleast_3d_one, tensors)


def _atleast_3d_one(tensor):
    if tensor.ndim == 0:
        return tensor.reshape(1, 1, 1)
    if tensor.ndim == 1:
        return tensor.unsqueeze(0).unsqueeze(-1)
    if tensor.ndim == 2:
        return tensor.unsqueeze(-1)
    return tensor


def column_stack(tensors):
    """``torch.column_stack``: 0-d and 1-d tensors become columns, then ``hstack``."""
    from ._functions_shape import _non_empty

    _non_empty("column_stack", tensors)
    lib = _lib()
    columns = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors]
    return lib.hstack(columns)


def row_stack(tensors):
    """``torch.row_stack``: an alias of ``vstack``."""
    return _lib().vstack(tensors)


def dstack(tensors):
    """``torch.dstack``: stack along the third dim after ``atleast_3d``."""
    from ._functions_shape import _non_empty

    _non_empty("dstack", tensors)
    return _lib().cat([atleast_3d(t) for t in tensors], 2)


@_argparse.declared("tensor_split")
def tensor_split(input, indices_or_sections, dim=0):  # noqa: A002 - torch's name
    """``torch.tensor_split``: views of ``input`` split into ``n`` nearly equal parts or at the
    given indices."""
    _require_tensor(input, "tensor_split", "input", 1)
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    dim_size = input.shape[dim]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.ndim == 0:
            indices_or_sections = indices_or_sections.item()
        else:
            indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, extra = divmod(dim_size, sections)
        bounds = [0]
        for i in builtins.range(sections):
            bounds.append(bounds[-1] + base + (1 if i < extra else 0))
    else:
        bounds = [0, *indices_or_sections, dim_size]
    parts = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        start = min(max(start + dim_size if start < 0 else start, 0), dim_size)
        stop = min(max(stop + dim_size if stop < 0 else stop, start), dim_size)
        parts.append(input.narrow(dim, start, stop - start))
    return tuple(parts)


def _split_family(name: str, dim: int, least: int):
    def function(input, indices_or_sections):  # noqa: A002 - torch's name
        _require_tensor(input, name, "input", 1)
        if input.ndim < least:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {least} dimension, but got a "
                f"tensor with {input.ndim} dimensions!")
        split_dim = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, int):
            size = input.shape[split_dim]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {split_dim}, but the size "
                    f"of the dimension {size} is not divisible by the split_size "
                    f"{indices_or_sections}!")
        return tensor_split(input, indices_or_sections, split_dim)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}``: ``tensor_split`` along dim {dim}."
    return function


hsplit = _split_family("hsplit", 1, 1)
vsplit = _split_family("vsplit", 0, 2)
dsplit = _split_family("dsplit", 2, 3)


# -- products, combinations -------------------------------------------------------------------


def inner(input, other, *, out=None):  # noqa: A002 - torch's name
    """``torch.inner``: the sum over the last dims (a product for 0-d operands); ``out=`` as
    torch's inner_out, which writes through tensordot_out (or mul_out)."""
    lib = _lib()
    _require_tensor(input, "inner", "input", 1)
    _require_tensor(other, "inner", "other", 2)
    if input.ndim == 0 or other.ndim == 0:
        return input * other if out is None else lib.mul(input, other, out=out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}")
    if out is not None:
        return lib.tensordot(input, other, dims=([-1], [-1]), out=out)
    return lib.tensordot(input, other, dims=([-1], [-1]))


def cartesian_prod(*tensors):
    """``torch.cartesian_prod``: every combination of one element from each 1-d tensor."""
    lib = _lib()
    for tensor in tensors:
        if tensor.ndim != 1:
            raise RuntimeError("Expect a 1D vector, but got shape " + str(list(tensor.shape)))
    if len(tensors) == 1:
        return tensors[0]
    grids = lib.meshgrid(*tensors, indexing="ij")
    return lib.stack([grid.flatten() for grid in grids], 1)


def combinations(input, r=2, with_replacement=False):  # noqa: A002 - torch's name
    """``torch.combinations``: the length-r combinations of a 1-d tensor's elements, in
    lexicographic order of positions."""
    lib = _lib()
    _require_tensor(input, "combinations", "input", 1)
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return lib.empty(0, dtype=input.dtype)
    chooser = (itertools.combinations_with_replacement if with_replacement
               else itertools.combinations)
    rows = np.array(list(chooser(builtins.range(input.shape[0]), r)), dtype=np.int64)
    if rows.size == 0:
        rows = np.zeros((0, r), dtype=np.int64)
    return lib.stack([input[lib.tensor(rows[:, k])] for k in builtins.range(r)], 1)


def vander(x, N=None, increasing=False):  # noqa: N803 - torch's name
    """``torch.vander``: columns x^(N-1), ..., x^0 (or increasing powers)."""
    lib = _lib()
    _require_tensor(x, "vander", "x", 1)
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    count = x.shape[0] if N is None else N
    if count < 0:
        raise RuntimeError("N must be non-negative.")
    if count == 0:
        return lib.empty(x.shape[0], 0, dtype=x.dtype)
    dtype = x.dtype if x.dtype.is_floating_point else _dtype.int64
    # torch: ones, then result[:, 1:] = powers (CopySlices), flipped for decreasing powers
    result = lib.ones(x.shape[0], count, dtype=dtype)
    if count > 1:
        result[:, 1:] = x.unsqueeze(1).expand(x.shape[0], count - 1).to(dtype).cumprod(1)
    return result if increasing else result.flip(1)


def diagflat(input, offset=0):  # noqa: A002 - torch's name
    """``torch.diagflat``: the flattened input on the ``offset`` diagonal of a square matrix."""
    _require_tensor(input, "diagflat", "input", 1)
    return _lib().diag_embed(input.reshape(-1), offset)


# -- creation -----------------------------------------------------------------------------------


@_argparse.parsed("logspace")
def logspace(start, end, steps, base=10.0, *, dtype=None, requires_grad=False, **kwargs):
    """``torch.logspace``: ``base ** linspace(start, end, steps)``, computed as torch's kernel
    does (RangeFactories.cpp): the bounds converted to the dtype first, the exponents in
    double from both ends (``start + step * i`` up to half way, ``end - step * (steps - 1 -
    i)`` after), glibc's ``pow``, then the cast; complex dtypes all in the complex dtype."""
    from ._creation import _check_bound_dims, _finish

    requires_grad = _argparse.factory_flags("logspace", requires_grad)
    _check_bound_dims("logspace", start, end)
    if steps.__class__ is not int:
        steps = _argparse.int_arg("logspace", "steps", steps, 3)
    start, end = (value.item() if isinstance(value, Tensor) else value for value in (start, end))
    target = complex_bounds_dtype("logspace", start, end, dtype)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if target is _dtype.bool:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    with np.errstate(all="ignore"):  # (an overflowing cast is torch's value, without warning)
        if target.is_complex:
            values = _logspace_complex(start, end, steps, base, target.np)
        else:
            values = _logspace_real(start, end, steps, float(base), target)
    result = _finish(values, False)
    return result.requires_grad_() if requires_grad else result


def complex_bounds_dtype(name: str, start, end, dtype):
    """linspace/logspace's dtype: ``dtype``, else the default one, or its complex counterpart
    when a bound is complex (which a real ``dtype`` refuses, with torch's message)."""
    target = _dtype.as_dtype(dtype)  # Note: Python types as dtypes
    if not any(isinstance(value, complex) for value in (start, end)):
        return target or _dtype.get_default_dtype()
    inferred = _dtype.complex128 if _dtype.get_default_dtype() is _dtype.float64 else \
        _dtype.complex64
    if target is not None and not target.is_complex:
        spelled = "c10::complex<double>" if inferred is _dtype.complex128 else \
            "c10::complex<float>"
        raise RuntimeError(f"torch.{name}(): inferred dtype {spelled} can't be safely cast to "
                           f"passed dtype {target._legacy}")
    return target or inferred


def _logspace_real(start, end, steps: int, base: float, target) -> np.ndarray:
    from .ops import _libm

    np_dtype = target.np
    if steps == 1:  # (torch fills pow(base, start) in double, then casts)
        return np.asarray([_libm.power(np.float64(base), np.float64(start))]).astype(np_dtype)
    if steps == 0:
        return np.zeros(0, np_dtype)
    # the bounds in the dtype (an integer one wraps like C++: -3 is 253 in uint8), their
    # difference in its arithmetic (integers promote to int; floats round to the dtype)
    if target.is_floating_point:
        low, high = np.asarray([start, end], dtype=np.float64).astype(np_dtype)
        span = float(np.asarray(high.astype(np.float32) - low.astype(np.float32)).astype(
            np_dtype)) if np_dtype.itemsize == 2 else float(high - low)
    else:
        from ._construct import check_scalar_write

        low, high = (check_scalar_write(value, target) for value in (start, end))
        span = float(int(high) - int(low))
    step = span / (steps - 1)
    index = np.arange(steps, dtype=np.float64)
    half = steps // 2
    exponents = np.where(index < half, float(low) + step * index,
                         float(high) - step * (steps - index - 1))
    values = _libm.power(np.full(steps, base), exponents)
    if not target.is_floating_point:
        values = np.trunc(values)
    return values.astype(np_dtype)


def _logspace_complex(start, end, steps: int, base, np_dtype) -> np.ndarray:
    if steps == 1:  # (pow(base, start) in complex<double>, then the cast)
        value = np.exp(np.complex128(start) * np.log(np.complex128(base)))
        return np.asarray([value]).astype(np_dtype)
    if steps == 0:
        return np.zeros(0, np_dtype)
    kind = np_dtype.type
    low, high, base = kind(start), kind(end), kind(base)
    step = (high - low) / kind(steps - 1)
    index = np.arange(steps).astype(np_dtype)
    exponents = np.where(np.arange(steps) < steps // 2, low + step * index,
                         high - step * (kind(steps - 1) - index))
    return np.exp(exponents * np.log(base)).astype(np_dtype)


_NO_END = object()


@_argparse.parsed("range")  # (its Numbers' errors for the call as given)
def range(start, end=_NO_END, step=1, *, dtype=None, requires_grad=False, **kwargs):  # noqa: A001
    """``torch.range`` (deprecated in torch, with its warning): ``end`` included."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).", UserWarning, stacklevel=3)  # (@parsed)
    if end is _NO_END:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    requires_grad = _argparse.factory_flags("range", requires_grad)
    bounds = [start, end, step]
    for index, (name, value) in enumerate(zip(("start", "end", "step"), bounds)):
        if value.__class__ is not int and value.__class__ is not float:  # (Numbers, read
            # as the kernel's doubles: a complex one by its real part, or torch's error)
            value = _argparse.number("range", name, value, index + 1)
            bounds[index] = _argparse.real_scalar(value, _dtype.float64, _argparse.DOUBLE_T)
    start, end, step = bounds
    lib = _lib()
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        from ._creation import _range_bound

        raise RuntimeError(f"unsupported range: {_range_bound(start)} -> {_range_bound(end)}")
    count = int(math.floor((end - start) / step)) + 1
    if count < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    target = _dtype.as_dtype(dtype) or _dtype.get_default_dtype()  # Note: Python types as dtypes
    if target is _dtype.bool or target.is_complex:
        raise NotImplementedError(f"\"range_cpu\" not implemented for '{target._legacy}'")
    values = start + np.arange(count, dtype=np.float64) * step
    return lib.tensor(values.astype(target.np), dtype=target, requires_grad=requires_grad)


def scalar_tensor(s, *, dtype=None, requires_grad=False, **kwargs):
    """``torch.scalar_tensor``: a 0-d tensor of the default dtype (or ``dtype``)."""
    requires_grad = _argparse.factory_flags("scalar_tensor", requires_grad)
    target = _dtype.as_dtype(dtype) or _dtype.get_default_dtype()
    if s.__class__ is not float and s.__class__ is not int:
        s = _argparse.real_scalar(_argparse.number("scalar_tensor", "s", s, 1), target)
    return _lib().tensor(s, dtype=target, requires_grad=requires_grad)


def _triangle_indices(name: str, row: int, col: int, offset: int, dtype, upper: bool):
    if dtype is None:
        dtype = _dtype.int64
    dtype = _dtype.as_dtype(dtype)  # Note: Python types as dtypes
    if dtype not in (_dtype.int32, _dtype.int64):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype._legacy}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    mask = np.ones((row, col), dtype=bool)
    mask = np.triu(mask, offset) if upper else np.tril(mask, offset)
    rows, cols = np.nonzero(mask)
    return _wrap(np.stack([rows, cols]).astype(dtype.np).reshape(2, -1))


@_argparse.parsed("tril_indices")
def tril_indices(row, col, offset=0, *, dtype=None, **kwargs):
    """``torch.tril_indices``: the (2, N) coordinates of a lower triangle, row by row."""
    if _argparse.factory_flags("tril_indices", kwargs.get("requires_grad", False)):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    return _triangle_indices("tril_indices", row, col, offset, dtype, upper=False)


@_argparse.parsed("triu_indices")
def triu_indices(row, col, offset=0, *, dtype=None, **kwargs):
    """``torch.triu_indices``: the (2, N) coordinates of an upper triangle, row by row."""
    if _argparse.factory_flags("triu_indices", kwargs.get("requires_grad", False)):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    return _triangle_indices("triu_indices", row, col, offset, dtype, upper=True)


# -- searching, counting ------------------------------------------------------------------------


def _refuse_wide_unsigned(tensor, kernel: str) -> None:
    """torch 2.13 has no kernel of these functions for uint16/32/64 (Note: wide unsigned
    support, ops/_uint.py)."""
    if isinstance(tensor, Tensor) and tensor.dtype in _dtype.WIDE_UNSIGNED:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{tensor.dtype._legacy}'")


class _SearchsortedOut(Rule):
    """searchsorted's out dtype check: int32 with out_int32, else int64, in its own words."""

    def __init__(self):
        super().__init__("", None)

    def check(self, result, out) -> None:
        if result is not out:
            raise RuntimeError(
                "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) "
                "or Long(int64) depending on whether out_int32 flag is True, but we got output "
                f"tensor's dtype {out._legacy} and out_int32 flag is "
                f"{result is _dtype.int32}")


_SEARCHSORTED_OUT = _SearchsortedOut()


@takes_out(Out(None, _SEARCHSORTED_OUT))
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,  # noqa: A002
                 sorter=None):
    """``torch.searchsorted``: insertion points of ``input`` in the innermost dim of
    ``sorted_sequence`` (left, or right with ``right=True``/``side='right'``)."""
    if out_int32.__class__ is not bool or right.__class__ is not bool:
        _argparse.flags("searchsorted", (sorted_sequence, input), out_int32=out_int32,
                        right=right)
    _require_tensor(sorted_sequence, "searchsorted", "sorted_sequence", 1)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    if _vmap_state.active:  # (computed from arrays: per example under vmap, as torch's rule)
        result = per_example_call(searchsorted, "searchsorted", (sorted_sequence, input),
                                  {"out_int32": out_int32, "right": right, "sorter": sorter},
                                  warn=False)
        if result is not NotImplemented:
            return result
    _refuse_wide_unsigned(sorted_sequence, "searchsorted_out_cpu")
    _refuse_wide_unsigned(input, "searchsorted_out_cpu")
    common = _dtype.result_type(sorted_sequence, input)
    if (common is _dtype.bool or common.is_complex) and (
            not isinstance(input, Tensor) or input.numel()):
        # (its kernel runs in the common dtype, with no bool or complex form; nothing to
        # search, no kernel)
        raise NotImplementedError(
            f"\"searchsorted_out_cpu\" not implemented for '{common._legacy}'")
    boundaries = sorted_sequence._data
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, sorter._data, -1)
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    how = "right" if right else "left"
    if boundaries.ndim != 1 and boundaries.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(boundaries.shape)} and input value tensor "
            f"{list(values.shape)}")
    if values.size == 0:
        result = np.zeros(values.shape, dtype=np.int64)
    elif not _plainly_sorted(boundaries, values):
        result = _torch_binary_search(boundaries, values, right)
    elif boundaries.ndim == 1:
        result = np.searchsorted(boundaries, values, side=how)
    else:
        lead = int(np.prod(boundaries.shape[:-1]))  # (explicit: -1 is ambiguous when empty)
        flat_b = boundaries.reshape(lead, boundaries.shape[-1])
        flat_v = values.reshape(lead, values.shape[-1])
        result = np.stack([np.searchsorted(b, v, side=how) for b, v in zip(flat_b, flat_v)])
        result = result.reshape(values.shape)
    return _wrap(np.asarray(result, dtype=np.int32 if out_int32 else np.int64))


def _plainly_sorted(boundaries: np.ndarray, values: np.ndarray) -> bool:
    """Whether NumPy's searchsorted finds what torch's binary search finds: no NaN anywhere
    and every row of ``boundaries`` in order. (NumPy sorts NaN last, torch's comparisons
    ``!(mid >= value)`` step past it; on an unsorted row both searches are well defined but
    take different paths.)"""
    if _dtype.is_inexact(boundaries) and np.isnan(boundaries).any():
        return False
    if _dtype.is_inexact(values) and np.isnan(values).any():
        return False
    if boundaries.shape[-1] > 1 and (boundaries[..., 1:] < boundaries[..., :-1]).any():
        return False
    return True


def _torch_binary_search(boundaries: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """torch's cus_lower_bound / cus_upper_bound, every value at once: ``start`` moves past
    ``mid`` while ``!(b[mid] >= value)`` (``!(b[mid] > value)`` for the right side), else
    ``end`` comes down to ``mid``."""
    size = boundaries.shape[-1]
    if size == 0:
        return np.zeros(values.shape, dtype=np.int64)
    rows = boundaries.reshape(-1, size)
    flat = values.reshape(-1)
    if boundaries.ndim == 1:
        row = np.zeros(flat.shape, dtype=np.intp)
    else:
        per_row = values.shape[-1] if values.ndim else 1
        row = np.repeat(np.arange(rows.shape[0]), per_row)
    start = np.zeros(flat.shape, dtype=np.int64)
    end = np.full(flat.shape, size, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = start < end
            if not active.any():
                break
            mid = start + ((end - start) >> 1)
            at = rows[row, np.minimum(mid, size - 1)]
            past = ~(at > flat) if right else ~(at >= flat)
            start = np.where(active & past, mid + 1, start)
            end = np.where(active & ~past, mid, end)
    return start.reshape(values.shape)


@takes_out(Out(None, _SEARCHSORTED_OUT))
def bucketize(input, boundaries, *, out_int32=False, right=False):  # noqa: A002
    """``torch.bucketize``: the bucket of each element given 1-d sorted ``boundaries``."""
    if out_int32.__class__ is not bool or right.__class__ is not bool:
        _argparse.flags("bucketize", (input, boundaries), out_int32=out_int32, right=right)
    _require_tensor(boundaries, "bucketize", "boundaries", 2)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


@takes_out(Out(None, EXPECT))
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """``torch.isin``: whether each element occurs in ``test_elements``."""
    if assume_unique.__class__ is not bool or invert.__class__ is not bool:
        _argparse.flags("isin", (elements, test_elements), assume_unique=assume_unique,
                        invert=invert)
    if _vmap_state.active:  # torch's slow fallback (computed from arrays): per example
        overload = ("Tensor" if isinstance(elements, Tensor) else "Scalar") + "_" + (
            "Tensor" if isinstance(test_elements, Tensor) else "Scalar")
        result = per_example_call(isin, "isin." + overload, (elements, test_elements),
                                  {"assume_unique": assume_unique, "invert": invert})
        if result is not NotImplemented:
            return result
    for operand in (elements, test_elements):
        # torch's isin refuses the dtypes its sort-based algorithm has no order for
        kind = (operand._data.dtype.kind if isinstance(operand, Tensor)
                else "b" if operand.__class__ is bool else "c" if operand.__class__ is complex
                else "")
        if kind in ("b", "c"):
            dtype = operand.dtype if isinstance(operand, Tensor) else (
                _dtype.bool if kind == "b" else _dtype.complex128)  # a Scalar is wrapped as double
            raise RuntimeError(f"Unsupported input type encountered for isin(): {dtype._legacy}")
    _refuse_wide_unsigned(elements, "isin_default_cpu")
    _refuse_wide_unsigned(test_elements, "isin_default_cpu")
    first = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    second = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(
        test_elements)
    if isinstance(test_elements, Tensor) and test_elements.ndim > 1 and \
            second.size < int(10.0 * first.size ** 0.145):  # (numpy's heuristic, truncated)
        # torch's brute-force kernel (few test elements) views them flat: a layout that
        # cannot be viewed so raises view's error there, as in torch
        test_elements.view(-1)
    return _wrap(np.isin(first, second, invert=invert))


def unravel_index(indices, shape):
    """``torch.unravel_index``: flat indices to coordinate tensors (one per dim of ``shape``)."""
    _require_tensor(indices, "unravel_index", "indices", 1)
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int):
        shape = (shape,)
    # torch divides and takes remainders (floor semantics) from the last dim, unchecked
    remaining = indices._data.astype(np.int64)
    coordinates = []
    for size in reversed(tuple(shape)):
        coordinates.append(np.mod(remaining, size))
        remaining = np.floor_divide(remaining, size)
    # torch stacks the coordinates along a last dim and unbinds it: views strided (..., ndim)
    stacked = np.stack([np.asarray(c, dtype=np.int64) for c in reversed(coordinates)], axis=-1)
    return tuple(_wrap(stacked).unbind(-1))


@takes_out(Out(None, same_as("torch.histogram: input tensor and hist tensor should have the same "
                             "dtype, but got input {r} and hist {o}"),
               internal_overlap=False))  # (torch's histogram kernel writes into an expanded out)
def histc(input, bins=100, min=0, max=0):  # noqa: A002 - torch's names
    """``torch.histc``: counts in ``bins`` equal-width bins over [min, max] (the data's range
    when both are 0); the result has the input's dtype."""
    _require_tensor(input, "histc", "input", 1)
    if min.__class__ is not float and min.__class__ is not int:
        from . import _argparse

        min = _argparse.number("histc", "min", min, 3)  # noqa: A001
    if max.__class__ is not float and max.__class__ is not int:
        from . import _argparse

        max = _argparse.number("histc", "max", max, 4)  # noqa: A001
    for bound in (min, max):
        if isinstance(bound, complex) and bound.imag:
            raise RuntimeError("value cannot be converted to type double without overflow")
    min, max = (b.real if isinstance(b, complex) else b for b in (min, max))  # noqa: A001
    if _vmap_state.active:  # torch's slow fallback: per example, stacked
        result = per_example_call(histc, "histc", (input,), {"bins": bins, "min": min,
                                                              "max": max})
        if result is not NotImplemented:
            return result
    data = input._data
    # torch first finds the data's range (when not given), then makes the bin edges
    _refuse_wide_unsigned(input, "aminmax_cpu" if float(min) == float(max) else "linspace_cpu")
    if data.dtype.kind != "f" and not _dtype.is_bfloat16_array(data):
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{input.dtype._legacy}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for bins")
    low, high = float(min), float(max)
    if low == high and data.size:
        low, high = float(data.min()), float(data.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {low} max "
                           f"{high}")
    # torch's linear-interpolation kernel: pos = (elt - left) * bins / (right - left), each
    # step in the input's type (reduced types rounded after each), the right edge in the last bin
    kind = data.dtype
    work = np.float32 if _dtype.is_bfloat16_array(data) else kind.type

    def rounded(values):
        return values.astype(kind).astype(work) if work is not kind.type else values

    left, right = kind.type(low), kind.type(high)
    values = data[(data >= left) & (data <= right)]
    positions = rounded(rounded(values.astype(work) - work(left)) * work(bins))
    positions = rounded(positions / rounded(work(right) - work(left)))
    positions = np.minimum(positions.astype(np.int64), bins - 1)
    counts = np.bincount(positions, minlength=bins)[:bins]
    return _wrap(counts.astype(data.dtype))


def bincount(input, weights=None, minlength=0):  # noqa: A002 - torch's name
    """``torch.bincount``: occurrences of each non-negative integer (weighted sums with
    ``weights``)."""
    _require_tensor(input, "bincount", "input", 1)
    if _vmap_state.active:  # torch's slow fallback: per example, stacked
        result = per_example_call(bincount, "bincount", (input,), {"weights": weights,
                                                                    "minlength": minlength})
        if result is not NotImplemented:
            return result
    data = input._data
    _refuse_wide_unsigned(input, "bincount_cpu")
    if data.dtype.kind not in "iub" or data.dtype.kind == "b":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for "
                                  f"'{input.dtype._legacy}'")
    if data.ndim != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _wrap(np.bincount(data, minlength=minlength).astype(np.int64))
    if weights.ndim != 1 or weights.shape[0] != data.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    weight_data = weights._data
    # torch's bincount: float weights give float, any other dtype (half too) double
    dtype = np.float32 if weight_data.dtype == np.float32 else np.float64
    result = np.bincount(data, weights=weight_data.astype(np.float64), minlength=minlength)
    return _wrap(result.astype(dtype))
