"""``leafgrad.<view>_copy(...)``: the views' values in fresh memory (see Note: view copies in
ops/shape_copy.py), and ``split_with_sizes``."""

from __future__ import annotations

import functools

from ._functions_math import _require_tensor
from .tensor import Tensor
from ._out import EXPECT, Out, takes_out
from . import ops as _ops
from .ops import shape_copy as _copies

__all__ = [
    "alias_copy", "detach_copy", "diagonal_copy", "expand_copy", "permute_copy", "select_copy",
    "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy",
    "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy",
    "view_as_real_copy", "view_as_complex_copy", "as_strided_copy", "indices_copy",
    "values_copy", "split_with_sizes", "as_strided_scatter",
]

def _copy_out(fn):
    """torch's ``out=`` of a copy: an out of the result's dtype, resized (with the usual
    warning); unlike most out= kernels it accepts inputs that require grad (an out that requires
    grad is refused). The values are computed without recording, then out joins the graph as
    in ``join_out``."""
    with_out = takes_out(Out(None, EXPECT, out_name=f"aten::{fn.__name__}"))(fn)

    @functools.wraps(with_out)
    def call(*args, out=None, **kwargs):
        if out is None:
            return with_out(*args, **kwargs)
        from .autograd.grad_mode import no_grad, state

        recording = state.grad_enabled
        if recording and isinstance(out, Tensor) and out._may_require_grad():
            return with_out(*args, out=out, **kwargs)  # raises torch's out= error
        with no_grad():
            result = with_out(*args, out=out, **kwargs)
        if recording:
            _copies.join_out(out, args[0] if args else kwargs["input"], fn.__name__)
        return result

    return call


def _int(function: str, argument: str, position: int, value) -> int:
    from .methods.misc import _int as check

    return check(function, argument, position, value)


def _ints(function: str, argument: str, position: int, value) -> tuple:
    from . import _argparse

    if isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            if _argparse._is_int(item):
                continue
            kind = _argparse.typename(item)
            if index:  # torch's parser checks the first element, then unpacks the rest
                raise TypeError(f"{function}(): argument '{argument}' failed to unpack the "
                                f"object at pos {position} with error \"type must be tuple of "
                                f"ints,but got {kind}\"")
            raise TypeError(f"{function}(): argument '{argument}' (position {position}) must "
                            f"be tuple of ints, but found element of type {kind} at pos 0")
        return tuple(int(v) for v in value)
    raise TypeError(f"{function}(): argument '{argument}' (position {position}) must be tuple of "
                    f"ints, not {_argparse.typename(value)}")


@_copy_out
def alias_copy(input):  # noqa: A002 - torch's names throughout
    """A copy of ``input`` recorded as ``AliasBackward0_copy``."""
    _require_tensor(input, "alias_copy", "input", 1)
    return _copies.as_copy(lambda t: _copies.Alias.apply(t), input)


@_copy_out
def detach_copy(input):  # noqa: A002
    """A copy of ``input``; torch gives it a node without a derivative (``NotImplemented``)."""
    _require_tensor(input, "detach_copy", "input", 1)
    return _copies.detach_copy(input)


@_copy_out
def diagonal_copy(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    _require_tensor(input, "diagonal_copy", "input", 1)
    return _copies.as_copy(_ops.diagonal, input, _int("diagonal_copy", "offset", 2, offset),
                           _int("diagonal_copy", "dim1", 3, dim1),
                           _int("diagonal_copy", "dim2", 4, dim2))


@_copy_out
def expand_copy(input, size, *, implicit=False):  # noqa: A002
    _require_tensor(input, "expand_copy", "input", 1)
    return _copies.as_copy(_ops.expand, input, _ints("expand_copy", "size", 2, size))


@_copy_out
def permute_copy(input, dims):  # noqa: A002
    _require_tensor(input, "permute_copy", "input", 1)
    return _copies.as_copy(_ops.permute, input, _ints("permute_copy", "dims", 2, dims))


@_copy_out
def select_copy(input, dim, index):  # noqa: A002
    _require_tensor(input, "select_copy", "input", 1)
    _copies.check_complex_grad(input, "select_copy")
    return _copies.as_copy(_ops.select, input, _int("select_copy", "dim", 2, dim),
                           _int("select_copy", "index", 3, index))


def _slice_view(tensor, dim, start, end, step):
    if tensor.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = _ops.wrap_dim(dim, tensor.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start, end, _ = slice(start, end).indices(tensor.shape[dim])  # clamped as Python's slices
    return _copies.Slice.apply(tensor, dim=dim, start=start, end=max(end, start), step=step)


@_copy_out
def slice_copy(input, dim=0, start=None, end=None, step=1):  # noqa: A002
    _require_tensor(input, "slice_copy", "input", 1)
    _copies.check_complex_grad(input, "slice_copy")
    start = None if start is None else _int("slice_copy", "start", 3, start)
    end = None if end is None else _int("slice_copy", "end", 4, end)
    return _copies.as_copy(_slice_view, input, _int("slice_copy", "dim", 2, dim), start, end,
                           _int("slice_copy", "step", 5, step))


def split_copy(input, split_size, dim=0, *, out=None):  # noqa: A002
    _require_tensor(input, "split_copy", "input", 1)
    split_size = _int("split_copy", "split_size", 2, split_size)
    dim = _int("split_copy", "dim", 3, dim)
    if out is not None:
        return _pieces_out("split_copy_Tensor_out()", out, input, "copy",
                           lambda t: _copies.split_copy(t, split_size, dim))
    return _copies.split_copy(input, split_size, dim)


def split_with_sizes_copy(input, split_sizes, dim=0, *, out=None):  # noqa: A002
    _require_tensor(input, "split_with_sizes_copy", "input", 1)
    sizes = _ints("split_with_sizes_copy", "split_sizes", 2, split_sizes)
    dim = _int("split_with_sizes_copy", "dim", 3, dim)
    if out is not None:
        return _pieces_out("split_with_sizes_copy_out", out, input, "resize",
                           lambda t: _copies.split_with_sizes_copy(t, sizes, dim))
    return _copies.split_with_sizes_copy(input, sizes, dim)


def split_with_sizes(input, split_sizes, dim=0):  # noqa: A002
    """Views of consecutive pieces of ``input`` along ``dim``, of the given sizes."""
    _require_tensor(input, "split_with_sizes", "input", 1)
    sizes = _ints("split_with_sizes", "split_sizes", 2, split_sizes)
    return _ops.split(input, list(sizes), _int("split_with_sizes", "dim", 3, dim))


@_copy_out
def squeeze_copy(input, dim=None):  # noqa: A002
    _require_tensor(input, "squeeze_copy", "input", 1)
    from . import _argparse

    if isinstance(dim, (tuple, list)) and all(_argparse._is_int(d) for d in dim):
        dim = [int(d) for d in dim]
    elif _argparse._is_int(dim):
        dim = int(dim)
    elif dim is not None:  # three overloads: (), (int dim), (int[] dim)
        raise _argparse.invalid_combination("squeeze_copy", (input, dim), {})
    return _copies.as_copy(_ops.squeeze, input, dim)


@_copy_out
def t_copy(input):  # noqa: A002
    _require_tensor(input, "t_copy", "input", 1)
    return _copies.as_copy(_ops.t, input)


@_copy_out
def transpose_copy(input, dim0, dim1):  # noqa: A002
    _require_tensor(input, "transpose_copy", "input", 1)
    return _copies.as_copy(_ops.transpose, input, _int("transpose_copy", "dim0", 2, dim0),
                           _int("transpose_copy", "dim1", 3, dim1))


def unbind_copy(input, dim=0, *, out=None):  # noqa: A002
    _require_tensor(input, "unbind_copy", "input", 1)
    dim = _int("unbind_copy", "dim", 2, dim)
    if out is not None:
        from .autograd.grad_mode import state

        if state.grad_enabled and any(isinstance(o, Tensor) and o._may_require_grad() for o in out):
            raise RuntimeError("unbind_copy(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        return _pieces_out("unbind_copy_int_out", out, input, "resize",
                           lambda t: _copies.unbind_copy(t, dim))
    return _copies.unbind_copy(input, dim)


def _pieces_out(name: str, out, input, mode: str, pieces):  # noqa: A002
    """The multi-output copies' ``out=`` (a list, one tensor per piece; torch returns None).
    split_copy copies each piece into its out as ``copy_`` would (broadcast and cast, no
    resize); split_with_sizes_copy and unbind_copy check each out's dtype, then resize it (with
    the usual warning when it had elements). Nothing joins the graph."""
    from ._out import EXPECT as same_dtype, _warn_resize, resize
    from .autograd.grad_mode import no_grad

    with no_grad():
        parts = pieces(input.detach())
    out = list(out)
    if len(out) != len(parts):
        raise RuntimeError(f"{name} expected an out= argument of size {len(parts)}, got size "
                           f"{len(out)}")
    with no_grad():
        for part, target in zip(parts, out):
            if mode == "copy":
                target.copy_(part)
                continue
            same_dtype.check(part.dtype, target.dtype)
            if tuple(target.shape) != tuple(part.shape):
                _warn_resize(tuple(target.shape), tuple(part.shape))
                resize(target, tuple(part.shape))
                target._bump_version()  # torch's resize_ moves the version too
            target.copy_(part)
    return None


@_copy_out
def unfold_copy(input, dimension, size, step):  # noqa: A002
    from .ops.shape_misc import unfold

    _require_tensor(input, "unfold_copy", "input", 1)
    return _copies.as_copy(unfold, input, _int("unfold_copy", "dimension", 2, dimension),
                           _int("unfold_copy", "size", 3, size),
                           _int("unfold_copy", "step", 4, step))


@_copy_out
def unsqueeze_copy(input, dim):  # noqa: A002
    _require_tensor(input, "unsqueeze_copy", "input", 1)
    return _copies.as_copy(_ops.unsqueeze, input, _int("unsqueeze_copy", "dim", 2, dim))


@_copy_out
def view_copy(input, size):  # noqa: A002
    """``input.view(size)`` or ``input.view(dtype)`` in fresh memory."""
    from . import _argparse
    from ._dtype import dtype as _dtype_type
    from .ops.shape import infer_shape

    _require_tensor(input, "view_copy", "input", 1)
    if isinstance(size, _dtype_type):
        return input.view(size).clone()  # torch: no node for the dtype overload (as view)
    if not (isinstance(size, (tuple, list)) and (not size or _argparse._is_int(size[0]))):
        raise _argparse.invalid_combination("view_copy", (input, size), {})
    shape = infer_shape(_ints("view_copy", "size", 2, size), input.numel())
    return _copies.ViewCopy.apply(input, shape=shape)


@_copy_out
def view_as_real_copy(input):  # noqa: A002
    from ._functions_complex import view_as_real

    _require_tensor(input, "view_as_real_copy", "input", 1)
    return _copies.as_copy(view_as_real, input)


@_copy_out
def view_as_complex_copy(input):  # noqa: A002
    from ._functions_complex import view_as_complex

    _require_tensor(input, "view_as_complex_copy", "input", 1)
    return _copies.as_copy(view_as_complex, input)


@_copy_out
def as_strided_copy(input, size, stride, storage_offset=None):  # noqa: A002
    _require_tensor(input, "as_strided_copy", "input", 1)
    size = _ints("as_strided_copy", "size", 2, size)
    stride = _ints("as_strided_copy", "stride", 3, stride)
    offset = 0 if storage_offset is None else _int("as_strided_copy", "storage_offset", 4,
                                                   storage_offset)
    return _copies.as_copy(_ops.as_strided, input, size, stride, offset)


def indices_copy(input):  # noqa: A002
    """Sparse tensors only; torch raises for a dense (strided) one, as here."""
    _require_tensor(input, "indices_copy", "input", 1)
    raise RuntimeError("indices expected sparse coordinate tensor layout but got Strided")


def values_copy(input):  # noqa: A002
    """Sparse tensors only; torch raises for a dense (strided) one, as here."""
    _require_tensor(input, "values_copy", "input", 1)
    raise RuntimeError("values expected sparse tensor layout but got Strided")



def as_strided_scatter(input, src, size, stride, storage_offset=None):  # noqa: A002
    """A copy of ``input`` whose ``as_strided(size, stride, storage_offset)`` region is ``src``."""
    _require_tensor(input, "as_strided_scatter", "input", 1)
    _require_tensor(src, "as_strided_scatter", "src", 2)
    size = _ints("as_strided_scatter", "size", 3, size)
    stride = _ints("as_strided_scatter", "stride", 4, stride)
    if storage_offset is not None:
        storage_offset = _int("as_strided_scatter", "storage_offset", 5, storage_offset)
    return _copies.as_strided_scatter(input, src, size, stride, storage_offset)
