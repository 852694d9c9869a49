"""Scatters added for torch-namespace coverage: ``select_scatter``, ``slice_scatter``,
``diagonal_scatter`` (a copy of ``self`` with one view of it replaced by ``src``),
``masked_scatter`` (``source``'s leading elements, in row-major order, written where ``mask`` is
True) and ``index_reduce`` (``scatter_reduce`` with a vector index along ``dim``).

Gradients are torch's (derivatives.yaml): ``self`` gets ``grad`` with the written part zeroed,
``src`` the written part of ``grad``; for masked_scatter the source's unread elements get 0;
index_reduce uses scatter_reduce's formulas (ops/scatter_reduce.py) on the expanded index.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._dtype import from_numpy_dtype
from ..tensor import Tensor, _wrap
from . import _layout, _uint
from ._forward import auto_linear
from . import _batching_rules as batch
from .registry import Op, array_kernel, keep_index, register
from .scatter_reduce import ScatterReduce
from .shape import _wrap_dim
from .shape_ext import Diagonal
from .gather import _index_array, check_index_add_bounds
from ..autograd.anomaly_mode import _user_stacklevel
from ..autograd._vmap_state import state as _vmap_state
from .inplace import inplace as _inplace
from .linalg_ext import _expanded_size_error
from ._promote import check_broadcast
from .shape import Slice
from .._info import is_warn_always_enabled
from .._out import check_no_overlap

__all__ = ["SelectScatter", "SliceScatter", "DiagonalScatter", "MaskedScatter",
           "MaskedScatterBackward", "IndexReduce",
           "select_scatter", "slice_scatter", "diagonal_scatter", "masked_scatter",
           "index_reduce"]


def _slice_index(ndim: int, dim: int, key) -> tuple:
    index = [slice(None)] * ndim
    index[dim] = key
    return tuple(index)


def _check_src(src_shape: tuple, slice_shape: tuple) -> None:
    if tuple(src_shape) != tuple(slice_shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src_shape)}, slice size = {list(slice_shape)}")


class _ViewScatter(Op):
    """``self`` copied, with ``_view(copy)`` overwritten by ``src`` (cast to self's dtype)."""

    inputs = ("self", "src")
    complex_ok = True
    uint_ok = True  # torch copies any dtype (Note: wide unsigned)

    @classmethod
    def _view(cls, array: np.ndarray, params: dict) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def _view_of(cls, tensor, params: dict):  # the same view as a Tensor op (for backward)
        raise NotImplementedError  # pragma: no cover

    @classmethod
    def forward(cls, ctx, a, src, **params):
        out = _layout.copy_like(a)  # torch's self.clone(): self's layout
        view = cls._view(out, params)
        _check_src(src.shape, view.shape)
        view[...] = src
        return out

    def backward(self, grad):
        grad_self = grad_src = None
        if self.needs_grad(0):
            src_shape = self.input_shape(1)
            grad_self = type(self).apply(grad, grad.new_zeros(src_shape), **self._params)
        if self.needs_grad(1):
            grad_src = self._view_of(grad, self._params)
        return grad_self, grad_src

    jvp = auto_linear


@register
class SelectScatter(_ViewScatter):
    node = "SelectScatterBackward0"
    vmap = batch.dims("dim")
    torch_names = ("select_scatter", "Tensor.select_scatter")

    @classmethod
    def _view(cls, array, params):
        return array[_slice_index(array.ndim, params["dim"], params["index"])]

    @classmethod
    def _view_of(cls, tensor, params):
        return tensor.select(params["dim"], params["index"])

    @classmethod
    def forward(cls, ctx, a, src, dim, index):
        out = _layout.copy_like(a)
        _check_src(src.shape, out[_slice_index(out.ndim, dim, index)].shape)
        out[_slice_index(out.ndim, dim, index)] = src
        return out


@register
class SliceScatter(_ViewScatter):
    node = "SliceScatterBackward0"
    vmap = batch.dims("dim")
    torch_names = ("slice_scatter", "Tensor.slice_scatter")

    @classmethod
    def _view(cls, array, params):
        key = slice(params["start"], params["end"], params["step"])
        return array[_slice_index(array.ndim, params["dim"], key)]

    @classmethod
    def _view_of(cls, tensor, params):
        return Slice.apply(tensor, dim=params["dim"], start=params["start"], end=params["end"],
                           step=params["step"])

    @classmethod
    def forward(cls, ctx, a, src, dim, start, end, step):
        return _ViewScatter.forward.__func__(cls, ctx, a, src, dim=dim, start=start, end=end,
                                             step=step)


@register
class DiagonalScatter(_ViewScatter):
    node = "DiagonalScatterBackward0"
    vmap = batch.dims("dim1", "dim2")
    torch_names = ("diagonal_scatter", "Tensor.diagonal_scatter")

    @classmethod
    def _view(cls, array, params):
        return Diagonal.forward(None, array, params["offset"], params["dim1"], params["dim2"])

    @classmethod
    def _view_of(cls, tensor, params):
        return tensor.diagonal(params["offset"], params["dim1"], params["dim2"])

    @classmethod
    def forward(cls, ctx, a, src, offset, dim1, dim2):
        return _ViewScatter.forward.__func__(cls, ctx, a, src, offset=offset, dim1=dim1,
                                             dim2=dim2)


# -- masked_scatter -------------------------------------------------------------------------------


@register
class MaskedScatter(Op):
    """``self`` (broadcast with ``mask``) with the True positions taking ``source``'s leading
    elements in row-major order."""

    node = "MaskedScatterBackward0"
    index_saves = {"mask": ()}  # Note: saved index tensors (registry.py)
    inputs = ("self", "source")
    broadcasts = True
    complex_ok = True
    torch_names = ("masked_scatter", "Tensor.masked_scatter")
    uint_kernel = "masked_scatter"

    @staticmethod
    def forward(ctx, a, source, mask, aliased=False):
        shape = np.broadcast_shapes(a.shape, mask.shape)
        out = np.array(np.broadcast_to(a, shape), copy=True, order="C")
        where = np.broadcast_to(mask, shape)
        count = int(where.sum())
        if source.size < count:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        if aliased:
            _scatter_as_read(out, a, source, where)
        else:
            out[where] = source.reshape(-1)[:count]
        return out

    def backward(self, grad):
        from .. import cat

        mask = self.index_tensor("mask")  # the kept mask: the formula's ops keep it too
        mask = _wrap(self._params["mask"]) if mask is None else mask
        grad_self = grad_source = None
        if self.needs_grad(0):
            # derivatives.yaml: grad.masked_fill(mask, 0) (MaskedFillBackward0 under
            # create_graph; leafgrad's where recorded WhereBackward0: generated-program seeds
            # 10033718, 10033896, 10035218, 20009616)
            grad_self = self.pass_index(grad._masked_zero(mask), "mask", "mask")
        if self.needs_grad(1):
            shape = self.input_shape(1)
            if _vmap_state.active:  # a batched grad: the composite masked_scatter_backward
                selected = grad.masked_select(mask)
                missing = int(np.prod(shape)) - selected.shape[0]
                if missing > 0:
                    selected = cat([selected, grad.new_zeros((missing,))])
                grad_source = selected.view(shape)
            else:  # torch's op, its own node (seeds 10030142, 10032813, 20010966)
                grad_source = MaskedScatterBackward.apply(grad, mask=mask._data,
                                                          sizes=tuple(shape))
                self.pass_index(grad_source, "mask", "mask")
        return grad_self, grad_source

    jvp = auto_linear


@register
class MaskedScatterBackward(Op):
    """torch's masked_scatter_backward(grad_output, mask, sizes): ``grad_output``'s elements
    where ``mask`` is True in row-major order, zero-padded to ``sizes``' element count and viewed
    as ``sizes`` (masked_scatter's source gradient, recorded as its own node)."""

    node = "MaskedScatterBackwardBackward0"
    index_saves = {"mask": ()}
    complex_ok = True
    inputs = ("grad_output",)
    torch_names = ()

    @staticmethod
    def forward(ctx, grad_output, mask, sizes):
        shape = np.broadcast_shapes(grad_output.shape, mask.shape)
        selected = np.broadcast_to(grad_output, shape)[np.broadcast_to(mask, shape)]
        missing = int(np.prod(sizes)) - selected.size
        if missing > 0:
            selected = np.concatenate([selected, np.zeros(missing, selected.dtype)])
        return selected.reshape(sizes)

    def backward(self, grad):
        # derivatives.yaml: zeros_like(grad_output).masked_scatter(mask, grad)
        mask = self._params["mask"]
        zeros = grad.new_zeros(tuple(self.input_shape()))
        return self.pass_index(MaskedScatter.apply(zeros, grad, mask=mask), "mask", "mask")

    def jvp(self, tangents, primals, result):
        # derivatives.yaml: masked_scatter_backward(grad_output_t, mask, grad_output_t.sizes()),
        # grad_output's shape, so a result of another shape gets the size-mismatch error
        tangent, sizes = tangents[0], self._params["sizes"]
        if tuple(tangent.shape) != tuple(sizes):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor, this is not supported. Tensor is of size {list(sizes)} "
                f"while the given forward gradient is of size {list(tangent.shape)}.")
        return MaskedScatterBackward.apply(tangent, mask=self._params["mask"], sizes=sizes)


# -- index_reduce ---------------------------------------------------------------------------------


@register
class IndexReduce(ScatterReduce):
    """``index_reduce``: ScatterReduce with the vector index expanded along ``dim`` to the
    source's shape (its forward, backward and forward-mode formulas)."""

    node = "IndexReduceBackward0"
    torch_names = ("index_reduce", "Tensor.index_reduce")
    prod_double_backward_error = (
        "index_reduce(): Double backward is unsupported for source when >1 zeros in source "
        "are scattered to the same position in self")
    # complex: prod/mean over slices without a derivative (the rest refused in index_reduce())
    complex_ok = True
    complex_autograd = False
    uint_kernel = staticmethod(_uint.index_reduce_kernel)


INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")
_index_reduce_warned = []


def _expanded_index(index: np.ndarray, source_shape: tuple, dim: int) -> np.ndarray:
    if len(source_shape) == 0:
        return index.reshape(())
    shape = [1] * len(source_shape)
    shape[dim] = index.size
    return np.ascontiguousarray(np.broadcast_to(index.reshape(shape), source_shape))


def _index_reduce_index(array: np.ndarray, size: int, source_shape: tuple,
                        dim: int) -> np.ndarray:
    flat = array.astype(np.int64, copy=False).reshape(-1)
    check_index_add_bounds(flat, size)
    return _expanded_index(flat, source_shape, dim)


_index_reduce_index.always_runs = True  # leafgrad.compile: a check, never dropped as dead code


def _check_index_reduce_kernel(tensor, reduce, include_self) -> None:
    """torch's index_reduce kernels for complex and bool self: include_self=False's
    initialisation has neither, nor has a vector's kernel (index_func_); the per-slice path
    has complex prod/mean and bool prod/amax/amin (its mean's floor division has no bool
    kernel)."""
    kind = tensor._data.dtype.kind
    if kind not in "cb":
        return
    name = tensor.dtype._legacy
    kernel = None
    if not include_self:
        kernel = "index_reduce_func_exclude_input_init"
    elif tensor.ndim <= 1:
        kernel = "index_func_"
    elif kind == "c" and reduce in ("amax", "amin"):
        kernel = "maximum_cpu" if reduce == "amax" else "minimum_cpu"
    elif kind == "b" and reduce == "mean":
        kernel = "div_floor_cpu"
    if kernel is not None:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def index_reduce(tensor, dim, index, source, reduce, include_self=True, inplace=False):
    """Checks in torch's order (its messages name the in-place kernel), then the op."""
    import warnings

    if not _index_reduce_warned or is_warn_always_enabled():
        _index_reduce_warned.append(True)
        # at the user's line, whichever wrappers (method, keyword aliases) led here
        warnings.warn("index_reduce() is in beta and the API may change at any time.",
                      UserWarning, stacklevel=_user_stacklevel())
    dim = _wrap_dim(dim, tensor.ndim)
    if not isinstance(index, Tensor) or index._data.ndim > 1:
        data = index._data if isinstance(index, Tensor) else np.asarray(index)
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {data.ndim} with "
            f"type: {from_numpy_dtype(data.dtype)._legacy} and size: {list(data.shape)}")
    if index._data.dtype not in (np.int32, np.int64):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype._legacy}")
    array = _index_array(index, "index_reduce").reshape(-1)
    if source.ndim and dim >= source.ndim:
        raise RuntimeError(f"index_reduce_(): Indexing dim {dim} is out of bounds of the source "
                           f"tensor with dim {source.ndim}")
    count = source.shape[dim] if source.ndim else 1
    if array.size != count:
        raise RuntimeError(f"index_reduce_(): Number of indices ({array.size}) should be equal "
                           f"to source.size(dim): ({count}), for dim: {dim}")
    if tensor.dtype is not source.dtype:
        raise RuntimeError(f"index_reduce_(): self ({tensor.dtype._legacy}) and source "
                           f"({source.dtype._legacy}) must have the same scalar type")
    rest = [n for k, n in enumerate(tensor.shape) if k != dim]
    if tensor.ndim != source.ndim or rest != [n for k, n in enumerate(source.shape) if k != dim]:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(tensor.shape)} "
                           f"source.shape = {list(source.shape)}")
    if inplace:
        check_no_overlap(tensor, index, source)
    _check_index_reduce_kernel(tensor, reduce, include_self)
    size = tensor.shape[dim] if tensor.ndim else 1
    if reduce not in INDEX_REDUCTIONS:
        check_index_add_bounds(array, size)  # torch checks the bounds first
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    # the bounds check and the expanded index as one kernel of the index's array, so that
    # leafgrad.compile replays them from each call's index (gather.py flat_index)
    params = {"dim": dim, "index": array_kernel(_index_reduce_index, index._data, size=size,
                                                source_shape=tuple(source.shape), dim=dim),
              "reduce": reduce, "include_self": bool(include_self)}
    if inplace:
        return keep_index(_inplace(IndexReduce, tensor, source, **params), index)
    return keep_index(IndexReduce.apply(tensor, source, **params), index)


# -- functions (torch's checks, then the op) ------------------------------------------------------


def _check_grad_dtype(tensor, src, name: str, complex_ok: bool = False) -> None:
    """torch refuses to record these ops for an integer result (a src requiring grad written
    into an integer self) and for complex results."""
    from ..autograd.grad_mode import state

    if not state.grad_enabled or not (src._may_require_grad() or tensor._may_require_grad()):
        return
    kind = _dtype.kind(tensor._data)
    if kind == "c" and not complex_ok:
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                           "with complex dtype.")
    if src._may_require_grad() and kind not in "fc":
        raise RuntimeError(f"Autograd not support dtype: {tensor.dtype._legacy}")


def select_scatter(tensor, src, dim, index):
    if tensor.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, tensor.ndim)
    size = tensor.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(tensor.shape)} at dimension {dim}")
    _check_grad_dtype(tensor, src, "select_scatter")
    return SelectScatter.apply(tensor, src, dim=dim, index=index % size)


def slice_scatter(tensor, src, dim=0, start=None, end=None, step=1):
    if tensor.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, tensor.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = tensor.shape[dim]
    start, end, _ = slice(start, end).indices(size)  # torch clamps as Python slices do
    end = max(end, start)
    _check_grad_dtype(tensor, src, "slice_scatter")
    return SliceScatter.apply(tensor, src, dim=dim, start=start, end=end, step=step)


def diagonal_scatter(tensor, src, offset=0, dim1=0, dim2=1):
    ndim = tensor.ndim
    dim1, dim2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    _check_grad_dtype(tensor, src, "diagonal_scatter", complex_ok=True)
    return DiagonalScatter.apply(tensor, src, offset=offset, dim1=dim1, dim2=dim2)


def _expand_error(mask: np.ndarray, shape: tuple) -> RuntimeError:
    if mask.ndim > len(shape):
        return RuntimeError(
            f"expand(CPUBoolType{{{list(mask.shape)}}}, size={list(shape)}): the number of sizes "
            f"provided ({len(shape)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({mask.ndim})")

    return _expanded_size_error(tuple(shape), mask.shape)


def _scatter_as_read(out, a, source, where) -> None:
    """masked_scatter_ with a contiguous source in ``a``'s own memory: torch checks no overlap
    and writes ``a`` in row-major order, reading source element k after the writes before it
    (``x.masked_scatter_(x >= 1, x[:9])`` spreads x[0]). ``out`` holds ``a``'s values."""
    grid = np.indices(a.shape).reshape(a.ndim, a.size)
    start = a.__array_interface__["data"][0]
    addresses = start + (np.asarray(a.strides).reshape(-1, 1) * grid).sum(0)
    position_of = dict(zip(addresses.tolist(), range(a.size)))
    first = source.__array_interface__["data"][0]
    values = source.reshape(-1).copy()
    flat = out.reshape(-1)
    for k, position in enumerate(np.flatnonzero(where)):
        own = position_of.get(first + k * source.itemsize)
        flat[position] = values[k] if own is None else flat[own]


def masked_scatter(tensor, mask, source, inplace=False):
    array = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if array.dtype != np.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{from_numpy_dtype(array.dtype)._legacy}")
    if tensor.dtype is not source.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{tensor.dtype._legacy} and {source.dtype._legacy}")
    if inplace:
        try:
            fits = np.broadcast_shapes(array.shape, tuple(tensor.shape)) == tuple(tensor.shape)
        except ValueError:
            fits = False
        if not fits:
            raise _expand_error(array, tuple(tensor.shape))
        params = {"mask": array}
        if source._data.flags.c_contiguous and np.may_share_memory(source._data, tensor._data):
            params["aliased"] = True  # (torch's source.contiguous() is then source itself)
        return keep_index(_inplace(MaskedScatter, tensor, source, **params), mask, "mask")

    if array.shape != tuple(tensor.shape):
        check_broadcast(array.shape, tuple(tensor.shape))
    return keep_index(MaskedScatter.apply(tensor, source, mask=array), mask, "mask")
