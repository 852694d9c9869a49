"""Index-driven ops: index_select, gather, scatter, scatter_add, index_add, masked_fill,
masked_select, take, nonzero. Index tensors must be int64 (torch's rule for these ops)."""

from __future__ import annotations

import numpy as np

from . import _layout
from ._forward import auto_linear
from . import _batching_rules as batch
from . import _uint
from .registry import Op, array_kernel, keep_index, register
from .shape import _wrap_dim
from ..autograd._vmap_state import state as _vmap_state
from ._batching import per_example_call
from .._dtype import from_numpy_dtype
from ._float_kernels import fma
from .shape import SliceBackward
from .._construct import check_scalar_write
from .. import _meta
from .registry import _sum_to, zeros_of
from ._promote import check_broadcast
from .. import _dtype
from .elementwise import _integer_alpha, MulScalar


_DTYPE_MESSAGES = {
    "index_select": "index_select(): Expected dtype int32 or int64 for index",
    "take": "take(): Expected a long tensor for index, but got {legacy}",
    "index_add": "index_add_(): Expected dtype int32/int64 for index but got: {legacy}",
}


# torch checks the index dtype of these in their kernels, which an empty index never runs
_EMPTY_INDEX_ANY_DTYPE = frozenset(("gather", "scatter", "scatter_add"))


def _index_array(index, what: str = "index") -> np.ndarray:
    from ..tensor import Tensor

    array = index._data if isinstance(index, Tensor) else np.asarray(index)
    if array.dtype.kind != "i" or what == "take" and array.dtype != np.int64:
        # unsigned indices (uint8 ... uint64) too, as torch; take wants int64 only
        name = what.rstrip("_")
        if not array.size and name in _EMPTY_INDEX_ANY_DTYPE:
            return array.astype(np.int64)
        message = _DTYPE_MESSAGES.get(name, f"{name}(): Expected dtype int32/int64 for index")
        raise RuntimeError(message.format(legacy=from_numpy_dtype(array.dtype)._legacy))
    return array.astype(np.int64, copy=False)


# Note: 0-d tensors in scatter and gather
# torch's scatter/gather kernels and shape checks read a 0-d self, index or src as a 1-element
# 1-d tensor (ensure_nonempty_dim/ensure_nonempty_size): zeros(10).scatter_(0, tensor(3),
# value=1) is the 'Transforms' tutorial's one-hot, zeros(5).gather(0, tensor(2)) is 0-d (the
# index's shape), tensor(4.).gather(0, tensor([0, 0])) is [4, 4].
def _nonempty(array: np.ndarray) -> np.ndarray:
    """``array`` as the kernels read it (Note: 0-d tensors in scatter and gather); a view."""
    return array.reshape(1) if array.ndim == 0 else array


def _along(dim: int, index: np.ndarray, ndim: int) -> tuple:
    """Full index tuple for take_along_axis-style access: index along ``dim``, aranges else."""
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids[:ndim])


@register
class IndexSelect(Op):
    node = "IndexSelectBackward0"
    index_saves = {"index": ()}
    uint_kernel = staticmethod(_uint.index_select_kernel)
    complex_ok = True
    vmap = batch.dims("dim")
    torch_names = ("index_select", "repeat_interleave")

    @staticmethod
    def forward(ctx, a, dim, index):
        # a 0-d tensor is one slice along dim 0; torch's result stays 0-d
        return np.take(a, index, axis=dim) if a.ndim else a.copy()

    def backward(self, grad):
        p = self._params
        # torch's index_select_backward: zeros(...).index_add_(...), in place (_version 1)
        result = IndexAdd.apply(grad.new_zeros(self.input_shape()), grad, dim=p["dim"],
                                index=p["index"])
        result._bump_version()
        return result

    jvp = auto_linear


@register
class IndexAdd(Op):
    """``self.index_add(dim, index, source)``: source slices added at the indexed positions."""

    node = "IndexAddBackward0"
    index_saves = {"index": (1,)}  # only the source's gradient reads it
    uint_kernel = staticmethod(_uint.index_add_kernel)
    complex_ok = True
    vmap = batch.dims("dim")
    inputs = ("self", "source")
    torch_names = ("index_add",)

    @staticmethod
    def forward(ctx, a, source, dim, index, alpha=1):
        out = np.array(a, copy=True)
        if alpha != 1 and out.ndim > 1 and out.dtype in _FUSED and source.dtype == out.dtype:
            return _index_add_fused(out, source, dim, index, out.dtype.type(alpha))
        if alpha != 1:
            # torch casts alpha to the dtype (an integer's wraps: uint8 alpha=-1 is 255; a
            # float alpha truncates: 0.5 is 0)
            if source.dtype.kind in "biu" and type(alpha) in (int, float):
                alpha = np.asarray(_integer_alpha(source.dtype, alpha)).astype(source.dtype)
            source = source * alpha
        if out.ndim == 0:  # one slice; index is [0] or [-1] (in self's dtype: a bool stays one)
            added = out + source.sum() * index.size if source.ndim else out + source * index.size
            return np.asarray(added).astype(out.dtype, copy=False)
        moved = np.moveaxis(out, dim, 0)
        np.add.at(moved, index, np.moveaxis(source, dim, 0))
        return _layout.contiguous(out)

    def backward(self, grad):
        p = self._params
        grad_source = None
        if self.needs_grad(1):
            grad_source = index_source_grad(grad, p["dim"], p["index"], self.input_shape(1))
            if p.get("alpha", 1) != 1:  # (maybe_multiply: mul.Scalar, MulBackward1)

                grad_source = MulScalar.apply(grad_source, other=p["alpha"])
        return grad, grad_source

    jvp = auto_linear


_FUSED = (np.dtype(np.float32), np.dtype(np.float64))


def _index_add_fused(out: np.ndarray, source: np.ndarray, dim: int, index: np.ndarray, alpha):
    """index_add with an alpha into a tensor of two or more dims: torch adds slice by slice
    through its add kernel, ``self + alpha * source`` rounded once (vec::fmadd, and the
    contracted scalar loop), in the index's order; a 1-d self takes a scalar loop that
    rounds the product first (the caller's path). Repeated positions are added in rounds
    (the k-th occurrence of every position at once), which keeps each position's order."""
    moved = np.moveaxis(out, dim, 0)
    slices = np.moveaxis(source, dim, 0)
    index = np.asarray(index, dtype=np.int64).reshape(-1) % max(moved.shape[0], 1)
    order = np.argsort(index, kind="stable")
    ranked = index[order]
    first = np.r_[True, ranked[1:] != ranked[:-1]] if ranked.size else ranked.astype(bool)
    positions = np.arange(ranked.size)
    starts = np.maximum.accumulate(np.where(first, positions, 0)) if ranked.size else positions
    occurrence = np.empty_like(positions)
    occurrence[order] = positions - starts
    for round_ in range(int(occurrence.max(initial=-1)) + 1):
        chosen = np.nonzero(occurrence == round_)[0]
        targets = index[chosen]
        moved[targets] = fma(alpha, slices[chosen], moved[targets])
    return _layout.contiguous(out)


def index_source_grad(grad, dim: int, index: np.ndarray, source_shape: tuple):
    """index_add's and index_copy's source gradient as derivatives.yaml writes it:
    ``grad.index_select(dim, index).expand_as(source)`` (an ExpandBackward0 node under
    create_graph, even of the same shape), and for a 0-d source ``grad.index_select(dim,
    index.squeeze(0))``, which the engine sums to the source's shape (SumBackward0)."""
    if source_shape:
        return IndexSelect.apply(grad, dim=dim, index=index).expand(source_shape)
    if grad.ndim == 0:
        return IndexSelect.apply(grad, dim=dim, index=index.reshape(()))
    return IndexSelect.apply(grad, dim=dim, index=index.reshape((1,))).sum()


@register
class Gather(Op):
    node = "GatherBackward0"
    index_saves = {"index": ()}
    uint_kernel = "scatter_gather_tensor_cpu"
    complex_ok = True
    vmap = batch.dims("dim", arrays=("index",))
    torch_names = ("gather", "take_along_dim")

    @staticmethod
    def forward(ctx, a, dim, index):
        if not index.size:  # torch checks no shapes then: index may have fewer dims
            return np.empty(index.shape, a.dtype)
        flat = _nonempty(a)  # Note: 0-d tensors in scatter and gather
        return flat[_along(dim, _nonempty(index), flat.ndim)].reshape(index.shape)

    def backward(self, grad):
        p = self._params
        # torch's gather_backward: new_zeros(...).scatter_add_(...), in place (_version 1)
        result = ScatterAdd.apply(grad.new_zeros(self.input_shape()), grad, dim=p["dim"],
                                  index=p["index"])
        result._bump_version()
        return result

    jvp = auto_linear


def _src_block(src: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The leading block of src that index's positions read (a 0-d src is a size-1 block in
    every dim, as torch's ensure_nonempty_size reads it)."""
    if src.ndim == 0:
        src = src.reshape((1,) * index.ndim)
    return src[tuple(slice(0, n) for n in index.shape)]


@register
class ScatterAdd(Op):
    node = "ScatterAddBackward0"
    index_saves = {"index": (1,)}  # only the source's gradient reads it
    uint_kernel = "scatter_gather_tensor_cpu"
    complex_ok = True
    vmap = batch.dims("dim", arrays=("index",))
    inputs = ("self", "src")
    torch_names = ("scatter_add",)

    @staticmethod
    def forward(ctx, a, src, dim, index):
        out = np.array(a, copy=True, order="C")
        if not index.size:  # nothing to add (torch checks no src size then)
            return out
        flat, index = _nonempty(out), _nonempty(index)  # Note: 0-d tensors in scatter and gather
        np.add.at(flat, _along(dim, index, flat.ndim), _src_block(src, index))
        return out

    def backward(self, grad):
        p = self._params
        grad_src = None
        if self.needs_grad(1):
            gathered = Gather.apply(grad, dim=p["dim"], index=p["index"])
            grad_src = _pad_to(gathered, self.input_shape(1))
        return grad, grad_src

    jvp = auto_linear


@register
class Scatter(Op):
    """``scatter(dim, index, src)``: the written positions of self get no gradient."""

    node = "ScatterBackward0"
    index_saves = {"index": ()}
    uint_kernel = "scatter_gather_tensor_cpu"
    complex_ok = True
    vmap = batch.dims("dim", arrays=("index",))
    inputs = ("self", "src")
    torch_names = ("scatter",)

    @staticmethod
    def forward(ctx, a, src, dim, index):
        out = np.array(a, copy=True, order="C")
        if not index.size:  # nothing to write (torch checks no src size then)
            return out
        flat, index = _nonempty(out), _nonempty(index)  # Note: 0-d tensors in scatter and gather
        flat[_along(dim, index, flat.ndim)] = _src_block(src, index)
        return out

    def backward(self, grad):
        p = self._params
        grad_self = grad_src = None
        if self.needs_grad(0):
            grad_self = ScatterValue.apply(grad, dim=p["dim"], index=p["index"], value=0)
        if self.needs_grad(1):
            grad_src = _pad_to(Gather.apply(grad, dim=p["dim"], index=p["index"]),
                               self.input_shape(1))
        return grad_self, grad_src

    jvp = auto_linear


@register
class ScatterValue(Op):
    node = "ScatterBackward1"
    index_saves = {"index": ()}
    uint_kernel = "scatter_gather_scalar_cpu"
    complex_ok = True
    vmap = batch.dims("dim", arrays=("index",))
    torch_names = ("scatter",)

    @staticmethod
    def forward(ctx, a, dim, index, value):
        out = np.array(a, copy=True, order="C")
        if index.size:
            flat, index = _nonempty(out), _nonempty(index)  # Note: 0-d tensors in scatter...
            flat[_along(dim, index, flat.ndim)] = value
        return out

    def backward(self, grad):
        p = self._params
        return ScatterValue.apply(grad, dim=p["dim"], index=p["index"], value=0)

    def jvp(self, tangents, primals, result):
        p = self._params  # torch: self_t.scatter(dim, index, 0)
        return ScatterValue.apply(tangents[0], dim=p["dim"], index=p["index"], value=0)


def _pad_to(grad, shape):
    """``src`` may be larger than ``index``; entries never read get a zero gradient."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    if not shape:  # a 0-d src read as a size-1 block: its one element's gradient
        return grad.reshape(())

    out = grad
    for dim, (have, want) in enumerate(zip(grad.shape, shape)):
        if have != want:
            sizes = list(out.shape)
            sizes[dim] = want
            out = SliceBackward.apply(out, input_sizes=tuple(sizes), dim=dim, start=0, end=have,
                                      step=1)
    return out


@register
class MaskedFill(Op):
    node = "MaskedFillBackward0"
    overlap_writes = ("masked_fill_", "mask", "scalar")  # (Note: writes through expanded
    # tensors, ops/inplace.py)
    index_saves = {"mask": ()}
    uint_kernel = "masked_fill"
    complex_ok = True
    vmap = batch.elementwise
    broadcasts = True
    torch_names = ("masked_fill",)

    @staticmethod
    def forward(ctx, a, mask, value):
        # torch: expand_outplace(self, mask), a contiguous clone, masked_fill_: a mask may grow
        # the result (the in-place form refuses that before it gets here)
        shape = np.broadcast_shapes(a.shape, mask.shape)
        out = np.array(np.broadcast_to(a, shape), copy=True, order="C")
        out[np.broadcast_to(mask, shape)] = value
        return out

    def backward(self, grad):
        return grad._masked_zero(self._params["mask"])

    def jvp(self, tangents, primals, result):
        return tangents[0]._masked_zero(self._params["mask"])  # torch: self_t.masked_fill(mask, 0)


@register
class MaskedFillTensor(Op):
    """masked_fill with a 0-d tensor value: the value gets the sum of the masked gradient."""
    checks_overlap = False  # torch reads the 0-d value; an alias of self is fine

    node = "MaskedFillBackward1"
    overlap_writes = ("masked_fill_", "mask", "scalar")
    index_saves = {"mask": ()}
    uint_kernel = "masked_fill"
    complex_ok = True
    vmap = batch.masked_fill_tensor
    inputs = ("self", "value")
    broadcasts = True  # self's gradient is summed back when the mask grew the result
    torch_names = ("masked_fill",)

    @staticmethod
    def forward(ctx, a, value, mask):
        if value.ndim != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        shape = np.broadcast_shapes(a.shape, mask.shape)  # (as MaskedFill's)
        out = np.array(np.broadcast_to(a, shape), copy=True, order="C")
        out[np.broadcast_to(mask, shape)] = value
        return out

    def backward(self, grad):
        mask = self._params["mask"]
        grad_self = grad._masked_zero(mask) if self.needs_grad(0) else None
        grad_value = None
        if self.needs_grad(1):
            # torch's masked_fill_backward: grad.masked_select(mask).sum() (MaskedSelectBackward0
            # under create_graph; the sum runs over the selected elements only), and
            # where(mask, grad, 0).sum() for a batched grad (vmap: a data-dependent shape)
            from ..tensor import _wrap

            if _vmap_state.active:
                from .. import where

                grad_value = where(_wrap(mask), grad, 0).sum()
            else:
                selected = grad.masked_select(_wrap(mask))
                grad_value = self.pass_index(selected, "mask", "mask").sum()
        return grad_self, grad_value

    jvp = auto_linear


@register
class MaskedSelect(Op):
    node = "MaskedSelectBackward0"
    index_saves = {"mask": ()}
    uint_kernel = "masked_select"
    complex_ok = True
    torch_names = ("masked_select",)
    mask_params = ("mask",)
    # a mask batched under vmap gives each example its own result size: torch refuses it
    vmap_refuses = ("mask", "vmap: Attempted to vmap over `mask` in torch.masked_select(self, "
                    "mask) We cannot support this because for each batch this would return a "
                    "differently shaped Tensor. Please file an issue at "
                    "https://github.com/pytorch/pytorch/issues if you need this feature.")

    @staticmethod
    def forward(ctx, a, mask):
        shape = np.broadcast_shapes(a.shape, mask.shape)
        return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]

    def backward(self, grad):
        # torch's masked_select_backward: zeros_like(input broadcast with mask), then
        # masked_scatter_(mask, grad) in place (MaskedScatterBackward0 under create_graph,
        # _version 1: generated-program seed 20000112; leafgrad wrote it with _index_put_impl_)
        from .scatter_extra import MaskedScatter
        from ..tensor import _wrap

        mask = self._params["mask"]
        shape = np.broadcast_shapes(self.input_shape(), mask.shape)
        zeros = _wrap(array_kernel(zeros_of, grad._data, shape=shape))
        full = MaskedScatter.apply(zeros, grad, mask=mask)
        full._bump_version()
        full = self.pass_index(full, "mask", "mask")
        # (the engine's validate_outputs sums a gradient of another shape back; one of the
        # input's shape, a 0-d one too, is returned as it is: MaskedScatterBackward0)
        if tuple(full.shape) == tuple(self.input_shape()):
            return full
        return _sum_to(full, self.input_shape())

    jvp = auto_linear


@register
class Take(Op):
    node = "TakeBackward0"
    index_saves = {"index": ()}
    complex_ok = True
    torch_names = ("take",)

    @staticmethod
    def forward(ctx, a, index):
        size = a.size
        if index.size and (index.max() >= size or index.min() < -size):
            bad = int(index.max()) if index.max() >= size else int(index.min())
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {size} "
                             "elements.")
        return a.reshape(-1)[index]

    def backward(self, grad):
        # torch's take backward: zeros_like(self).put_(index, grad, accumulate=True), in place
        # (PutBackward0 under create_graph, _version 1; leafgrad wrote _index_put_impl_ into a
        # flat zeros and viewed it back)
        from .gather_fill import Put
        from ..tensor import _wrap

        zeros = _wrap(array_kernel(zeros_of, grad._data, shape=tuple(self.input_shape())))
        # (put_ reads the index flat; a kernel, so leafgrad.compile replays it per call)
        index = array_kernel(np.ravel, self._params["index"])
        result = Put.apply(zeros, grad, index=index, accumulate=True)
        result._bump_version()
        return self.pass_index(result, "index", "index")

    jvp = auto_linear


# -- functions --------------------------------------------------------------------------------

# Note: index bounds
# gather/scatter/index_select/index_add take indices in [0, size): torch raises for -1 where
# NumPy would wrap around to the last entry. Only indexing (a[-1], a[tensor([-1])]) wraps.
def _out_of_bounds(array: np.ndarray, size: int, dim: int | None = None):
    """The first offending index value in the order torch's scatter/gather kernels report it
    (row-major; without ``dim``: the largest too-big value, else the smallest negative one)."""
    if not array.size:
        return None
    high, low = array.max(), array.min()
    if high < size and low >= 0:
        return None
    if dim is not None and array.ndim:
        ordered = array.reshape(-1)
        return int(ordered[np.argmax((ordered < 0) | (ordered >= size))])
    return int(high) if high >= size else int(low)


def check_scatter_gather_bounds(array: np.ndarray, size: int, dim: int) -> None:
    """scatter's and gather's bounds check, as a check kernel: leafgrad.compile replays it on
    each call's index (a negative index would otherwise wrap around in NumPy)."""

    array_kernel(_scatter_gather_bounds, array, size=size, dim=dim)


def _scatter_gather_bounds(array: np.ndarray, size: int, dim: int) -> np.ndarray:
    bad = _out_of_bounds(array, size, dim)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    return np.zeros(0, dtype=bool)


_scatter_gather_bounds.always_runs = True  # leafgrad.compile: never dropped as dead code


def check_scatter_src_dtype(tensor, src) -> None:
    """scatter's and scatter_add's src must have self's dtype (checked before the shapes)."""
    from ..tensor import Tensor

    if isinstance(src, Tensor) and src.dtype is not tensor.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def check_index_add_source(tensor, dim: int, array: np.ndarray, source) -> None:
    """index_add's dtype and shape rules in torch's order (index_func_meta_impl), with its
    messages (NumPy would cast, or give its broadcasting error); ``dim`` is wrapped."""
    if source.dtype is not tensor.dtype:
        raise RuntimeError(f"index_add_(): self ({tensor.dtype._legacy}) and source "
                           f"({source.dtype._legacy}) must have the same scalar type")
    if dim != 0 and dim >= source.ndim:
        raise RuntimeError(f"index_add_(): Indexing dim {dim} is out of bounds of the source "
                           f"tensor with dim {source.ndim}")
    count = source.shape[dim] if source.ndim else 1
    if array.size != count:
        if not source.ndim:  # torch's message reads source.size(dim) of a 0-d source: it raises
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        raise RuntimeError(f"index_add_(): Number of indices ({array.size}) should be equal to "
                           f"source.size(dim): ({count}), for dim: {dim}")
    # the shapes but dim (whole shapes when either is 0-d) must be equal
    self_sizes, source_sizes = list(tensor.shape), list(source.shape)
    if source.ndim and tensor.ndim:
        del self_sizes[dim], source_sizes[dim]
    if self_sizes != source_sizes:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(tensor.shape)} "
                           f"source.shape = {list(source.shape)}")


def _size(shape: tuple, d: int) -> int:
    """torch's ensure_nonempty_size: a 0-d tensor has size 1 in dim 0; past the last dim,
    size(d)'s IndexError."""
    if not shape:
        return 1
    if d >= len(shape):
        rank = len(shape)
        raise IndexError(f"Dimension out of range (expected to be in range of [-{rank}, "
                         f"{rank - 1}], but got {d})")
    return shape[d]


def check_gather_shapes(tensor, dim: int, array: np.ndarray) -> None:
    """gather's shape checks in torch's order (Note: 0-d tensors in scatter and gather)."""
    rank = max(tensor.ndim, 1)
    if max(array.ndim, 1) != rank:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(rank):
        if d != dim and _size(array.shape, d) > _size(tuple(tensor.shape), d):
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(array.shape)} to be "
                f"no larger than self {list(tensor.shape)} apart from dimension {dim}")


def check_scatter_shapes(tensor, dim: int, array: np.ndarray, src) -> None:
    """scatter/scatter_add/scatter_reduce's shape checks in torch's order: none for an empty
    index; the ranks of self and index; index no larger than self (apart from dim), then than
    src, reading src.size(d) for each of self's dims until one is too small (an IndexError past
    src's last dim); the ranks of src and index; the size error (Note: 0-d tensors in scatter
    and gather)."""
    from ..tensor import Tensor

    if not array.size:
        return
    rank = max(tensor.ndim, 1)
    if max(array.ndim, 1) != rank:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    shape, src_shape = tuple(tensor.shape), tuple(src.shape) if isinstance(src, Tensor) else None
    too_big = any(d != dim and _size(array.shape, d) > _size(shape, d) for d in range(rank))
    if not too_big and src_shape is not None:
        too_big = any(_size(array.shape, d) > _size(src_shape, d) for d in range(rank))
    if src_shape is None:
        if too_big:
            raise RuntimeError(
                f"Expected index {list(array.shape)} to be no larger than self {list(shape)} "
                f"apart from dimension {dim}")
        return
    if max(len(src_shape), 1) != max(array.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if too_big:
        raise RuntimeError(
            f"Expected index {list(array.shape)} to be no larger than self {list(shape)} apart "
            f"from dimension {dim} and to be no larger size than src {list(src_shape)}")


def check_index_add_bounds(array: np.ndarray, size: int) -> None:
    if _out_of_bounds(array, size) is not None:
        raise IndexError("index out of range in self")


def flat_index(index, array: np.ndarray, size: int, dim: int | None = None) -> np.ndarray:
    """index_add's (and index_reduce's) bounds check and flat int64 index, as one kernel of
    ``index``'s own array: leafgrad.compile replays it from each call's index values (and
    raises as eager code does) instead of refusing an array no op made (Note: masks as kernels
    in activation.py). ``array``: ``index`` as ``_index_array`` gave it (a list's array)."""
    from ..tensor import Tensor

    return array_kernel(_flat_in_bounds, index._data if isinstance(index, Tensor) else array,
                        size=size, dim=dim)


def _flat_in_bounds(array: np.ndarray, size: int, dim: int | None = None) -> np.ndarray:
    flat = array.astype(np.int64, copy=False).reshape(-1)
    if dim is not None:  # index_add_ of a tensor of 2+ dims: torch names the first bad index
        bad = _out_of_bounds(flat, size, dim)
        if bad is not None:
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                               f"{size}")
    check_index_add_bounds(flat, size)
    return flat


_flat_in_bounds.always_runs = True  # leafgrad.compile: a check, never dropped as dead code



def index_select(tensor, dim, index):
    array = _index_array(index, "index_select")
    if array.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    dim = _wrap_dim(dim, tensor.ndim)
    size = tensor.shape[dim] if tensor.ndim else 1
    if tensor.ndim > 1 and array.size and size == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    # torch's CPU kernel checks an index with two messages: dim 1 of a tensor of 2 or more
    # dims (index_select_out_cpu_dim1_) and an empty tensor give the RuntimeError, any other
    # dim (the contiguous-slice path) and 0-d/1-d tensors the IndexError
    data_check = tensor.ndim > 1 and (dim == 1 or tensor._data.size == 0)

    # the bounds check and the flat view are a kernel, so leafgrad.compile checks every
    # call's index instead of refusing the view (Note: masks as kernels in activation.py)
    flat = array_kernel(_checked_vector, array, size=size, scalar=not data_check)
    return keep_index(IndexSelect.apply(tensor, dim=dim, index=flat), index)


def _checked_vector(array, size: int, scalar: bool):
    bad = _out_of_bounds(array, size)
    if bad is not None:
        if scalar:  # (torch's "index out of range in self" check)
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    return array.reshape(-1)


def gather(tensor, dim, index):
    array = _index_array(index, "gather")
    dim = _wrap_dim(dim, tensor.ndim)
    if array.size:  # an empty index gathers nothing: torch checks no shapes then
        check_gather_shapes(tensor, dim, array)
    check_scatter_gather_bounds(array, tensor.shape[dim] if tensor.ndim else 1, dim)
    return keep_index(Gather.apply(tensor, dim=dim, index=array), index)


def take_along_index(index):
    """take_along_dim's index: torch gathers with a broadcast copy of it, so the node keeps that
    copy and a later in-place change to ``index`` neither reaches nor stops the backward."""
    from ..tensor import Tensor

    return index.clone() if isinstance(index, Tensor) else index


def scatter(tensor, dim, index, src=None, value=None, reduce=None):
    from ..tensor import Tensor

    array = _index_array(index, "scatter")
    dim = _wrap_dim(dim, tensor.ndim)
    if src is None:
        src = value
    check_scatter_src_dtype(tensor, src)
    check_scatter_shapes(tensor, dim, array, src)
    check_scatter_gather_bounds(array, tensor.shape[dim] if tensor.ndim else 1, dim)
    if reduce is not None:
        return scatter_reduce_legacy(tensor, dim, array, src, reduce)
    if isinstance(src, Tensor):
        return keep_index(Scatter.apply(tensor, src, dim=dim, index=array), index)
    return keep_index(ScatterValue.apply(tensor, dim=dim, index=array, value=src), index)


def scatter_add(tensor, dim, index, src):
    dim = _wrap_dim(dim, tensor.ndim)
    array = _index_array(index, "scatter_add")
    check_scatter_src_dtype(tensor, src)
    check_scatter_shapes(tensor, dim, array, src)
    check_scatter_gather_bounds(array, tensor.shape[dim] if tensor.ndim else 1, dim)
    return keep_index(ScatterAdd.apply(tensor, src, dim=dim, index=array), index)


def index_add(tensor, dim, index, source, alpha=1):
    array = _index_array(index, "index_add").reshape(-1)
    check_index_add_source(tensor, _wrap_dim(dim, tensor.ndim), array, source)
    wrapped = _wrap_dim(dim, tensor.ndim)
    array = flat_index(index, array, tensor.shape[wrapped] if tensor.ndim else 1,
                       wrapped if tensor.ndim > 1 else None)
    result = IndexAdd.apply(tensor, source, dim=_wrap_dim(dim, tensor.ndim), index=array,
                            alpha=alpha)
    return keep_index(result, index)


def _mask_array(mask):
    from ..tensor import Tensor

    array = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if array.dtype != np.bool_:
        from ..tensor import _C_NAMES

        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{_C_NAMES[array.dtype.name]}"
        )
    return array


def check_complex_fill(tensor, value) -> None:
    """torch fills with a 0-d value tensor's value.item(): a complex value's conversion to a
    real dtype is checked as a Python scalar's ("value cannot be converted to type int64_t
    without overflow" for a non-zero imaginary part), whatever the mask."""
    if value.ndim == 0 and value.dtype.is_complex and not tensor.dtype.is_complex:
        check_scalar_write(value.item(), tensor.dtype)


def masked_fill(tensor, mask, value):
    from ..tensor import Tensor

    array = _mask_array(mask)
    if array.shape != tensor.shape:
        check_broadcast(array.shape, tensor.shape)

    if isinstance(value, Tensor):
        check_complex_fill(tensor, value)
        return keep_index(MaskedFillTensor.apply(tensor, value, mask=array), mask, "mask")

    if tensor._data.dtype.kind != "u" or tensor._data.dtype.itemsize == 1:  # (wide unsigned:
        value = check_scalar_write(value, tensor.dtype)  # torch's kernel refuses them first)
    elif value.__class__ is int:
        check_scalar_write(value, _dtype.float64)  # (only the conversion to a C number)
    return keep_index(MaskedFill.apply(tensor, mask=array, value=value), mask, "mask")


def _refuse_meta(name: str, *tensors) -> None:
    """torch's NotImplementedError for an op whose result shape depends on the values of a
    meta operand (Note: meta tensors, _meta.py)."""
    from ..tensor import Tensor

    if _meta.SEEN[0] and any(isinstance(t, Tensor) and _meta.is_meta(t) for t in tensors):
        _meta.refuse(name)


def masked_select(tensor, mask):
    from ..tensor import Tensor

    _refuse_meta("masked_select", tensor, mask)

    array = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if array.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if array.shape != tensor.shape:
        check_broadcast(array.shape, tensor.shape)
    return keep_index(MaskedSelect.apply(tensor, mask=array), mask, "mask")


def take(tensor, index):
    return keep_index(Take.apply(tensor, index=_index_array(index, "take")), index)


def nonzero(tensor, as_tuple=False):
    from ..tensor import _wrap

    if _vmap_state.active:  # torch has no batching rule: a result size per example
        per_example_call(nonzero, "nonzero_numpy" if as_tuple else "nonzero", (tensor,), {},
                         dynamic=not as_tuple, no_fallback=as_tuple)
    _refuse_meta("nonzero", tensor)

    data = tensor._data
    if data.dtype.kind == "u" and data.itemsize > 1:  # Note: wide unsigned support (_uint.py)
        raise NotImplementedError(
            f"\"nonzero_count_cpu\" not implemented for '{tensor.dtype._legacy}'")
    if as_tuple:
        if data.ndim == 0:
            return (_wrap(np.nonzero(data.reshape(1))[0].astype(np.int64)),)
        return tuple(_wrap(i.astype(np.int64)) for i in np.nonzero(data))
    return _wrap(_column_major(np.argwhere(data).astype(np.int64)))


def _column_major(found: np.ndarray) -> np.ndarray:
    """nonzero's (N, ndim) result in torch's layout: strides (1, N), also where a dim of size
    1 or 0 leaves NumPy free to normalise them."""
    count, ndim = found.shape
    column = np.lib.stride_tricks.as_strided(np.empty(count * ndim, np.int64), (count, ndim),
                                             (8, 8 * count))
    column[...] = found
    return column


def argwhere(tensor):
    if _vmap_state.active:  # torch's slow fallback: per example, stacked
        result = per_example_call(argwhere, "argwhere", (tensor,), {})
        if result is not NotImplemented:
            return result
    return nonzero(tensor)


class _ScatterReduceLegacyNode(Op):
    """The node of ``scatter(..., reduce=)``: torch has no derivative for it (its node is
    named NotImplemented and its backward raises); not in the op table, as it has no
    gradient to test."""

    node = "NotImplemented"
    qualified_name = "torch::autograd::NotImplemented"
    complex_ok = True  # torch adds/multiplies complex values too
    inputs = ("self", "src")
    _save_plan = ()

    @staticmethod
    def forward(ctx, a, src, dim, index, reduce):
        out = np.array(a, copy=True, order="C")
        if not index.size:
            return out
        flat, index = _nonempty(out), _nonempty(index)  # Note: 0-d tensors in scatter and gather
        where = _along(dim, index, flat.ndim)
        if isinstance(src, np.ndarray):
            src = _src_block(src, index).astype(a.dtype, copy=False)
        else:
            src = np.full(index.shape, src, dtype=a.dtype)
        (np.add if reduce == "add" else np.multiply).at(flat, where, src)
        return out

    def backward(self, grad):
        raise RuntimeError("derivative for aten::scatter is not implemented")

    def jvp(self, tangents, primals, result):
        raise NotImplementedError(
            "Trying to use forward AD with aten::scatter that does not support it.")


_ScatterReduceLegacyNode.__name__ = _ScatterReduceLegacyNode.__qualname__ = "NotImplemented"


def scatter_reduce_legacy(tensor, dim, array, src, reduce):
    """``scatter(dim, index, src, reduce='add'|'multiply')``: every index adds (multiplies)
    its source value in, repeated indices included."""
    import warnings

    from ..tensor import Tensor

    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor):  # a number src is not deprecated
        warnings.warn(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.", UserWarning, stacklevel=3)
    return _ScatterReduceLegacyNode.apply(tensor, src, dim=dim, index=array, reduce=reduce)
