"""The ``leafgrad.<name>(...)`` forms of the view, shape-building and index ops."""

from __future__ import annotations

import warnings

from ._out import CAT, EXPECT, Out, Resize, same_as, takes_out
from . import _argparse
from . import ops as _ops
from .tensor import Tensor

__all__ = [
    "split", "chunk", "diagonal", "movedim", "moveaxis", "unflatten", "as_strided", "tile",
    "repeat_interleave", "flip", "fliplr", "flipud", "roll", "rot90", "hstack", "vstack",
    "atleast_1d", "atleast_2d", "broadcast_to", "broadcast_tensors", "meshgrid", "index_select",
    "gather", "take_along_dim", "scatter", "scatter_add", "scatter_reduce", "index_add", "index_fill", "index_copy",
    "put", "masked_fill",
    "masked_select", "take", "nonzero", "argwhere",
]


def split(tensor, split_size_or_sections, dim=0):
    return tensor.split(split_size_or_sections, dim)  # (its checks: Tensor.split)


@_argparse.declared("chunk")
def chunk(input, chunks, dim=0):
    return input.chunk(chunks, dim)  # (its checks: Tensor.chunk)


def diagonal(input, offset=0, dim1=0, dim2=1):
    return _ops.diagonal(input, offset, dim1, dim2)


@_argparse.parsed("movedim")
def movedim(input, source, destination):
    if not (source.__class__ is int and destination.__class__ is int
            or _argparse.plain_ints(source) and _argparse.plain_ints(destination)):
        source, destination = _argparse.movedim_dims("movedim", source, destination)
    return _ops.movedim(input, source, destination)


@_argparse.parsed("moveaxis")
def moveaxis(input, source, destination):
    if not (source.__class__ is int and destination.__class__ is int
            or _argparse.plain_ints(source) and _argparse.plain_ints(destination)):
        source, destination = _argparse.movedim_dims("moveaxis", source, destination)
    return _ops.movedim(input, source, destination)


def unflatten(input, dim, sizes):
    return _ops.unflatten(input, dim, sizes)


def as_strided(input, size, stride, storage_offset=None):
    return _ops.as_strided_public(input, size, stride, storage_offset)


@_argparse.parsed("tile")
def tile(input, dims):
    if not _argparse.plain_ints(dims):
        dims = _argparse.int_list("tile", "dims", dims, 2, sized=False)
    return _ops.tile(input, tuple(dims))


def repeat_interleave(input=None, repeats=None, dim=None, *, output_size=None):
    """``torch.repeat_interleave(input, repeats, dim)``, or with one tensor of counts
    (``torch.repeat_interleave(repeats)``) the indices each repeated that many times."""
    from .ops.shape_ext import repeat_interleave_counts

    if input is None or repeats is None and dim is None:
        counts = repeats if input is None else input
        if counts is None:
            from ._argparse import invalid_combination

            raise invalid_combination("repeat_interleave", (), {})
        return repeat_interleave_counts(counts, output_size)
    return _ops.repeat_interleave(input, repeats, dim, output_size)


@_argparse.parsed("flip")
def flip(input, dims):
    if not _argparse.plain_ints(dims):
        dims = _argparse.int_list("flip", "dims", dims, sized=False)
    return _ops.flip(input, dims)


def fliplr(input):
    return _ops.shape_ext.fliplr(input)


def flipud(input):
    return _ops.shape_ext.flipud(input)


def roll(input, shifts, dims=None):
    if shifts.__class__ is not int:
        shifts = _argparse.int_list("roll", "shifts", shifts, 2)
    if dims is not None and dims.__class__ is not int:
        dims = _argparse.int_list("roll", "dims", dims, 3)
    return _ops.roll(input, shifts, dims)


@_argparse.parsed("rot90")
def rot90(input, k=1, dims=(0, 1)):
    if k.__class__ is not int:
        k = _argparse.int_arg("rot90", "k", k, 2)
    if not _argparse.plain_ints(dims):
        dims = _argparse.int_list("rot90", "dims", dims, sized=False)
    return _ops.rot90(input, k, dims)


def _non_empty(name: str, tensors) -> None:
    """torch's stacking functions refuse an empty list before anything else."""
    if isinstance(tensors, (list, tuple)) and not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@takes_out(Out("cat", CAT, overlap="full"))
def hstack(tensors):
    _non_empty("hstack", tensors)
    return _ops.hstack(tensors)


@takes_out(Out("cat", CAT, overlap="full"))
def vstack(tensors):
    _non_empty("vstack", tensors)
    return _ops.vstack(tensors)


def _atleast(name: str, one, tensors: tuple):
    """torch's atleast_Nd calling convention: one tensor gives a tensor; several tensors, or
    one list/tuple of them (empty included), give a tuple."""
    from ._argparse import invalid_combination
    from .tensor import Tensor

    if len(tensors) == 1:
        tensors = tensors[0]
        if isinstance(tensors, Tensor):
            return one(tensors)
        if not isinstance(tensors, (list, tuple)):
            raise invalid_combination(name, (tensors,), {})
    for index, tensor in enumerate(tensors):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected Tensor as element {index} in argument 0, but got "
                            f"{type(tensor).__name__}")
    return tuple(one(tensor) for tensor in tensors)


def atleast_1d(*tensors):
    """``torch.atleast_1d``: 0-d tensors become 1-d; see ``_atleast`` for the call forms."""
    return _atleast("atleast_1d", _ops.atleast_1d, tensors)


def atleast_2d(*tensors):
    """``torch.atleast_2d``: 0-d -> (1, 1), 1-d (n,) -> (1, n)."""
    return _atleast("atleast_2d", _ops.atleast_2d, tensors)


def broadcast_to(input, size):
    return _ops.broadcast_to(input, size)


def broadcast_tensors(*tensors):
    return _ops.broadcast_tensors(*tensors)


_MESHGRID_WARNED = [False]


def meshgrid(*tensors, indexing=None):
    if indexing is None:
        from ._info import is_warn_always_enabled

        if not _MESHGRID_WARNED[0] or is_warn_always_enabled():  # torch's TORCH_WARN_ONCE,
            _MESHGRID_WARNED[0] = True  # raised under torch/functional.py's meshgrid
            warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass "
                          "the indexing argument.", UserWarning, stacklevel=1)
        indexing = "ij"
    return _ops.meshgrid(*tensors, indexing=indexing)


@takes_out(Out("index_select", same_as("index_select(): self and result must have the same scalar "
                                        "type"), overlap="full"))
@_argparse.declared("index_select")
def index_select(input, dim, index):
    if dim.__class__ is not int:  # (a tensor of several elements failed in bool())
        dim = _argparse.int_arg("index_select", "dim", dim, 2)
    return _ops.index_select(input, dim, index)


@takes_out(Out("gather", EXPECT, overlap="full"))
@_argparse.declared("gather")
def gather(input, dim, index, *, sparse_grad=False):
    for position, name, value in ((1, "input", input), (3, "index", index)):
        if not isinstance(value, Tensor):
            raise TypeError(f"gather(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")
    return input.gather(dim, index, sparse_grad=sparse_grad)


@takes_out(Out("gather", EXPECT, overlap="full"))
def take_along_dim(input, indices, dim=None):
    """``input``'s values at ``indices`` along ``dim`` (both broadcast over the other dims),
    or, without ``dim``, at flat ``indices`` into ``input.view(-1)``."""
    if dim is None:
        return _ops.gather(input.view(-1), 0, _ops.take_along_index(indices.view(-1)))
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    if indices.dtype.name != "int64":
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype._legacy}")
    dim = _ops.wrap_dim(dim, input.ndim)
    if input.ndim == 0:  # torch wraps dim as for one dim, then asks the 0-d tensor its size
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    indices_shape = _along_broadcast(input.shape, indices.shape, dim)
    input_shape = _along_broadcast(indices.shape, input.shape, dim)
    # torch broadcasts the input whatever its shape: an ExpandBackward0 below the gather
    input = input.broadcast_to(input_shape)
    index = _ops.take_along_index(indices.broadcast_to(indices_shape))
    size = input_shape[dim]
    values = index._data
    if size and values.size and (values.min() < 0 or values.max() >= size):
        # torch 2.13 takes the indices along dim modulo its size (-1 is the last, 5 of 5 the
        # first); the flat form (dim=None) still refuses them
        index = _ops.take_along_index(index.remainder(size))
    return _ops.gather(input, dim, index)


def _along_broadcast(other: tuple, own: tuple, dim: int) -> tuple:
    """``own`` broadcast against ``other`` except along ``dim`` (torch's infer_size)."""
    from .ops._promote import check_broadcast

    other = list(other)
    other[dim] = own[dim]
    check_broadcast(tuple(other), tuple(own))
    return tuple(max(a, b) if min(a, b) != 0 else 0 for a, b in zip(other, own))


@takes_out(Out("scatter", EXPECT, overlap="self"))
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    return _ops.scatter(input, dim, index, src, value, reduce)


@takes_out(Out("scatter_reduce", EXPECT, overlap="self"))
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    return _ops.scatter_reduce(input, dim, index, src, reduce, include_self)


@takes_out(Out("scatter_add", EXPECT, overlap="self"))
def scatter_add(input, dim, index, src):
    return _ops.scatter_add(input, dim, index, src)


def index_fill(input, dim, index, value):
    return input.index_fill(dim, index, value)


@takes_out(Out("index_copy", EXPECT, overlap="self"))
def index_copy(input, dim, index, source):
    return input.index_copy(dim, index, source)


def put(input, index, source, accumulate=False):
    return input.put(index, source, accumulate)


@takes_out(Out("index_add", EXPECT, overlap="self"))
def index_add(input, dim, index, source, *, alpha=1):
    if alpha.__class__ is not int and alpha.__class__ is not float:
        alpha = _argparse.real_scalar(_argparse.number("index_add", "alpha", alpha),
                                      input.dtype)
    return _ops.index_add(input, dim, index, source, alpha)


def masked_fill(input, mask, value):
    from .methods.shape import _fill_value

    _fill_value("masked_fill", (input, mask, value))
    return _ops.masked_fill(input, mask, value)


@takes_out(Out("masked_select", same_as("masked_select(): self and result must have the same "
                                         "scalar type"), overlap="full"))
def masked_select(input, mask):
    return _ops.masked_select(input, mask)


@takes_out(Out("take", same_as("take(): self and out expected to have the same dtype, but got "
                                "self.dtype = {R} and out.dtype = {O}"), overlap="full"))
def take(input, index):
    return _ops.take(input, index)


# torch's CPU kernel gives an out it had to resize nonzero's own column-major strides (1, N),
# also where a dim of size 1 or 0 leaves them free (an out of the right shape keeps its own)
_NONZERO_OUT = Out(None, same_as("nonzero: Expected out tensor to have scalar type Long but got "
                                 "scalar type{O}"), resize=Resize(layout=lambda index, had: "exact"))


def _nonzero_out(args, kwargs):
    """nonzero's out= spec; torch's binding refuses out= with as_tuple=True before anything."""
    as_tuple = kwargs.get("as_tuple", False)
    if as_tuple.__class__ is not bool:
        _argparse.bool_arg("nonzero", "as_tuple", as_tuple)
    if as_tuple:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    return _NONZERO_OUT


@takes_out(_nonzero_out)
def nonzero(input, *, as_tuple=False):
    if as_tuple.__class__ is not bool:
        _argparse.bool_arg("nonzero", "as_tuple", as_tuple)
    return _ops.nonzero(input, as_tuple)


def argwhere(input):
    return _ops.argwhere(input)
