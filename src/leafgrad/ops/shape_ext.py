"""More views (split, chunk, diagonal, as_strided) and shape builders (repeat, flip, roll, rot90).

The composites at the end (hstack, tile, meshgrid, ...) are built from ops that already exist,
in the same order torch builds them, so their grad_fn names match.
"""

from __future__ import annotations

import numpy as np

from .._alloc import check_storage
from . import _layout
from ._forward import auto_linear
from . import _batching_rules as batch
from . import _uint
from .registry import Op, register
from ._promote import check_broadcast
from .shape import Slice, _View, _wrap_dim
from . import _inference_writes as _writes
from .shape import Cat
from .gather import index_select
from .._memory_format import contiguous_format
from .shape import Alias
from .registry import array_kernel, zeros_of


@register
class Split(_View):
    """Equal chunks of ``split_size`` along ``dim`` (the last one may be shorter)."""

    node = "SplitBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.dims("dim")
    multi_output = True
    torch_names = ("split", "chunk", "Tensor.split", "Tensor.chunk")

    @staticmethod
    def forward(ctx, a, split_size, dim):
        size = a.shape[dim]
        starts = range(0, size, split_size) if size else [0]
        return tuple(_slice(a, dim, s, min(s + split_size, size)) for s in starts)

    @classmethod
    def view_step(cls, params: dict, output_nr: int) -> tuple:
        start = output_nr * params["split_size"]
        return (Slice, {"dim": params["dim"], "start": start,
                        "end": start + params["split_size"], "step": 1})

    def backward(self, grads):
        return _join_split_grads(self, grads, _split_sizes(self))

    jvp = auto_linear


@register
class SplitWithSizes(_View):
    node = "SplitWithSizesBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.dims("dim")
    multi_output = True
    torch_names = ("split",)

    @staticmethod
    def forward(ctx, a, split_sizes, dim):
        out, start = [], 0
        for size in split_sizes:
            out.append(_slice(a, dim, start, start + size))
            start += size
        return tuple(out)

    @classmethod
    def view_step(cls, params: dict, output_nr: int) -> tuple:
        start = sum(params["split_sizes"][:output_nr])
        end = start + params["split_sizes"][output_nr]
        return (Slice, {"dim": params["dim"], "start": start, "end": end, "step": 1})

    def backward(self, grads):
        return _join_split_grads(self, grads, list(self._params["split_sizes"]))

    jvp = auto_linear


def _slice(a: np.ndarray, dim: int, start: int, end: int) -> np.ndarray:
    index = [slice(None)] * a.ndim
    index[dim] = slice(start, end)
    return a[tuple(index)]


def _split_sizes(node) -> list:
    size = node.input_shape()[node._params["dim"]]
    step = node._params["split_size"]
    return [min(step, size - s) for s in range(0, size, step)] if size else [0]


def _join_split_grads(node, grads, sizes):
    dim = node._params["dim"]
    shape = list(node.input_shape())
    grads = list(grads) + [None] * (len(sizes) - len(grads))
    present = next(g for g in grads if g is not None)
    parts = []
    for grad, size in zip(grads, sizes):
        if grad is None:
            shape[dim] = size
            grad = present.new_zeros(tuple(shape))
        parts.append(grad)
    return Cat.apply(*parts, dim=dim)


@register
class Diagonal(_View):
    node = "DiagonalBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.dims("dim1", "dim2")
    torch_names = ("diagonal", "Tensor.diagonal")

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        view = np.diagonal(a, offset, dim1, dim2)
        if a.flags.writeable:  # NumPy marks diagonal views read-only; torch writes through them
            view.flags.writeable = True
        return view

    def backward(self, grad):
        p = self._params
        return DiagonalBackward.apply(grad, input_sizes=self.input_shape(), offset=p["offset"],
                                      dim1=p["dim1"], dim2=p["dim2"])

    jvp = auto_linear


@register
class DiagonalBackward(Op):
    node = "DiagonalBackwardBackward0"
    complex_ok = True
    vmap = batch.dims("dim1", "dim2", extra_rank=1, sizes="input_sizes")
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, input_sizes, offset, dim1, dim2):
        out = np.zeros(input_sizes, dtype=grad.dtype)
        view = np.diagonal(out, offset, dim1, dim2)
        view.flags.writeable = True  # NumPy marks diagonal views read-only; out is ours
        view[...] = grad
        return out

    def backward(self, grad):
        p = self._params
        return Diagonal.apply(grad, offset=p["offset"], dim1=p["dim1"], dim2=p["dim2"])

    jvp = auto_linear


@register
class AsStridedPublic(_View):
    """``as_strided(size, stride, storage_offset)`` over the tensor's own memory."""

    node = "AsStridedBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    torch_names = ("as_strided",)

    @staticmethod
    def forward(ctx, a, size, stride, storage_offset):
        # Offsets and strides count elements from this tensor's first element (the public
        # as_strided turns torch's offset, counted from the start of the storage, into this).
        # (the offset moves through memory, not through a's logical order: a transposed
        # tensor's offset 1 is its second element in memory, as in torch's storage; a negative
        # one reaches memory before the first element, inside the same storage)
        itemsize = a.itemsize
        if ctx is not None:
            ctx.keep("in_strides", tuple(s // itemsize for s in a.strides))
        if storage_offset > 0:
            start = np.lib.stride_tricks.as_strided(
                a, shape=(storage_offset + 1,), strides=(itemsize,))[storage_offset:]
        elif storage_offset < 0:
            start = np.lib.stride_tricks.as_strided(
                a, shape=(1 - storage_offset,), strides=(-itemsize,))[-storage_offset:]
        else:
            start = a
        strides = tuple(s * itemsize for s in stride)
        # read-only where elements share memory, as an expanded view (Note: writes through
        # expanded tensors, inplace.py): copy_ and the other writes refuse as torch's
        overlapping = any(st == 0 and n > 1 for n, st in zip(size, stride))
        return np.lib.stride_tricks.as_strided(start, shape=tuple(size), strides=strides,
                                               writeable=not overlapping)

    def backward(self, grad):
        # Note: an empty as_strided view's gradient. torch's as_strided_backward returns
        # zeros of the input's sizes for a view with a size-0 dim, before recording anything:
        # under create_graph that gradient requires no grad, whatever the incoming one does
        # (generated-program seed 300078: zero_() on an empty slice regenerates the view as
        # as_strided, and x.grad after backward(create_graph=True) was a non-leaf)
        if 0 in grad.shape:
            return grad.new_zeros(self.input_shape())
        p = self._params
        inputs = (self.input_shape(), self._saved["in_strides"], 0)
        result = AsStridedScatterAdd.apply(
            grad, source=(p["size"], p["stride"], p["storage_offset"]), target=inputs,
            divide_target=True)
        # torch's as_strided_backward writes the gradient into new zeros (copy_ or index_add_:
        # _version 1)
        result._bump_version()
        return result

    jvp = auto_linear


def _maybe_overlapping(geometry) -> bool:
    """torch's _maybe_overlapping_memory: the dims by increasing stride, each stride past the
    furthest element of the dims before it (size-1 dims left out, which never overlap)."""
    shape, strides, _ = geometry
    furthest = 0
    for stride, size in sorted((st, sz) for sz, st in zip(shape, strides) if sz != 1):
        if size == 0:
            return False
        if stride <= furthest:
            return True
        furthest += stride * (size - 1)
    return False


def _memory_index(geometry) -> np.ndarray:
    """Each element's place in memory, in elements from the input's first element."""
    shape, strides, offset = geometry
    index = np.full(tuple(shape), offset, dtype=np.int64)
    for dim, (n, step) in enumerate(zip(shape, strides)):
        index += (np.arange(n, dtype=np.int64) * step).reshape(
            [-1 if k == dim else 1 for k in range(len(shape))])
    return index


@register
class AsStridedScatterAdd(Op):
    """as_strided's backward (torch's as_strided_backward): ``grad``, laid out in memory by
    the ``source`` geometry (overlapping places add up), read back through the ``target``
    geometry (the input's own: its sizes, strides and offset 0). Memory the input does not
    cover gets nothing; where the input overlaps itself (an expanded input) each place's sum
    is shared among the elements on it (``divide_target``), as torch divides by the count.
    Swapping the geometries gives the adjoint, the backward's own backward."""

    node = "AsStridedBackwardBackward0"
    complex_ok = True
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, source, target, divide_target):
        source_index, target_index = _memory_index(source), _memory_index(target)
        low = min(source_index.min(initial=0), target_index.min(initial=0))
        size = 1 + max(source_index.max(initial=0), target_index.max(initial=0)) - low
        source_index, target_index = source_index - low, target_index - low
        # the input's geometry is the target here, the source in the adjoint
        input_index = target_index if divide_target else source_index
        counts = np.bincount(input_index.ravel(), minlength=size)
        overlaps = counts.max(initial=0) > 1
        values = grad
        if overlaps and not divide_target:  # the adjoint: share before laying out
            values = grad / counts[source_index]
        memory = np.zeros(size, dtype=grad.dtype)
        if _maybe_overlapping(source):
            np.add.at(memory, source_index, values)
        else:  # torch copies into the zeroed storage: a gradient's -0. stays
            memory[source_index] = values
        out = memory[target_index]
        if overlaps and divide_target:
            out = out / counts[target_index]
        return out.astype(grad.dtype, copy=False)

    def backward(self, grad):
        p = self._params
        return AsStridedScatterAdd.apply(grad, source=p["target"], target=p["source"],
                                         divide_target=not p["divide_target"])

    jvp = auto_linear


# -- builders -------------------------------------------------------------------------------------


@register
class Repeat(Op):
    node = "RepeatBackward0"
    inference_writes = staticmethod(_writes.repeat_copy)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.shape("repeats")
    torch_names = ("Tensor.repeat", "tile")

    @staticmethod
    def forward(ctx, a, repeats):
        lead = len(repeats) - a.ndim
        full = (1,) * lead + a.shape
        shape = tuple(r * s for r, s in zip(repeats, full))
        negative = [n for n in shape if n < 0]
        if negative:
            raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: "
                               f"{list(shape)}")
        check_storage(shape, a.itemsize)
        # one allocation of the result, filled by broadcasting (np.tile allocates step by step:
        # a huge repeat filled memory for seconds before failing)
        out = np.empty(shape, a.dtype)
        split = [n for pair in zip(repeats, full) for n in pair]
        out.reshape(split)[...] = a.reshape([n for s in full for n in (1, s)])
        return out

    def backward(self, grad):
        # torch's repeat_backward, step by step so that a create_graph gradient records its
        # nodes (it recorded a view and a sum where torch sums the new leading dims alone:
        # generated-program seed 23134): zeros for a zero repeat, a sum over each leading dim,
        # then one reshape to (repeat, size) pairs for the dims repeated more than once and
        # one sum over those repeats
        repeats = self._params["repeats"]
        shape = tuple(self.input_shape())
        if 0 in repeats:
            from ..tensor import _wrap

            return _wrap(array_kernel(zeros_of, grad._data, shape=shape))
        lead = len(repeats) - len(shape)
        for _ in range(lead):
            grad = grad.sum(0)
        sizes, summed = [], []
        for repeat, size in zip(repeats[lead:], shape):
            if repeat != 1:
                sizes.append(repeat)
                summed.append(len(sizes) - 1)
            sizes.append(size)
        if summed:
            grad = grad.reshape(sizes).sum(summed)
        return grad

    jvp = auto_linear


@register
class Flip(Op):
    node = "FlipBackward0"
    inference_writes = staticmethod(_writes.flip_clone)
    uint_kernel = staticmethod(_uint.flip_kernel)
    complex_ok = True
    vmap = batch.dims("dims")
    torch_names = ("flip", "fliplr", "flipud")

    @staticmethod
    def forward(ctx, a, dims):
        return _flipped_copy(a, dims)

    def backward(self, grad):
        return Flip.apply(grad, dims=self._params["dims"])

    jvp = auto_linear


@register
class Roll(Op):
    node = "RollBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.dims("dims")
    torch_names = ("roll",)

    @staticmethod
    def forward(ctx, a, shifts, dims):
        if not a.size:  # torch returns an empty tensor's clone, with its strides
            return _layout.copy_like(a)
        if dims is None:
            return np.roll(a.reshape(-1), shifts).reshape(a.shape)
        return _layout.contiguous(np.roll(a, shifts, dims))

    def backward(self, grad):
        shifts, dims = self._params["shifts"], self._params["dims"]
        negated = tuple(-s for s in shifts) if isinstance(shifts, tuple) else -shifts
        return Roll.apply(grad, shifts=negated, dims=dims)

    jvp = auto_linear


def _flipped_copy(a: np.ndarray, dims) -> np.ndarray:
    """``a`` flipped along ``dims``, in new memory laid out like ``a`` (torch's flip copies):
    flipping only size-1 dims is ``a``'s own layout, which ``like`` returned as it was, so the
    result shared the input's memory (generated-program seed 20750: x.flip(-1) -= w changed
    x)."""
    out = _layout.like(np.flip(a, dims), a)
    return np.array(out, copy=True, order="K") if np.may_share_memory(out, a) else out


@register
class Rot90(Op):
    node = "Rot90Backward0"
    inference_writes = staticmethod(_writes.rot90_writes)
    uint_kernel = "flip_cpu"
    complex_ok = True
    vmap = batch.dims("dims")
    torch_names = ("rot90",)

    @staticmethod
    def forward(ctx, a, k, dims):
        # torch: k = 1 and 3 flip one dim (a copy laid out like the input), then transpose
        # that copy (a view), so the result is not contiguous; k = 0 is a contiguous clone.
        k %= 4
        first, second = dims
        if k == 0:
            return np.array(a, copy=True, order="C")
        if k == 2:
            return _flipped_copy(a, dims)
        flipped = _flipped_copy(a, second if k == 1 else first)
        return np.swapaxes(flipped, first, second)

    def backward(self, grad):
        return Rot90.apply(grad, k=-self._params["k"], dims=self._params["dims"])

    jvp = auto_linear


# -- functions ----------------------------------------------------------------------------------


def split(tensor, split_size_or_sections, dim=0):
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    given, dim = dim, _wrap_dim(dim, tensor.ndim)  # (torch's messages name the dim as given)
    if isinstance(split_size_or_sections, int):
        if split_size_or_sections < 0:
            raise RuntimeError("split expects split_size be non-negative, but got "
                               f"split_size={split_size_or_sections}")
        if split_size_or_sections == 0 and tensor.shape[dim] > 0:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                f"{tensor.shape[dim]}"
            )
        return Split.apply(tensor, split_size=split_size_or_sections, dim=dim)
    sizes = tuple(int(s) for s in split_size_or_sections)
    if sum(sizes) != tensor.shape[dim]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {tensor.shape[dim]} (input "
            f"tensor's size at dimension {given}), but got split_sizes={list(sizes)}"
        )
    return SplitWithSizes.apply(tensor, split_sizes=sizes, dim=dim)


def chunk(tensor, chunks, dim=0):
    if tensor.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    chunks = int(chunks)  # (a NumPy integer is an int: no uint8 arithmetic below)
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    dim = _wrap_dim(dim, tensor.ndim)
    size = tensor.shape[dim]
    if size == 0:
        # torch: `chunks` empty pieces from split_with_sizes (a split would give one: seed
        # 32816, where leafgrad returned one SplitBackward0 piece)
        return SplitWithSizes.apply(tensor, split_sizes=(0,) * chunks, dim=dim)
    return Split.apply(tensor, split_size=-(-size // chunks), dim=dim)


def diagonal(tensor, offset=0, dim1=0, dim2=1):
    ndim = tensor.ndim
    wrapped1, wrapped2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if wrapped1 == wrapped2:  # (torch names the dims as given)
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    dim1, dim2 = wrapped1, wrapped2
    return Diagonal.apply(tensor, offset=offset, dim1=dim1, dim2=dim2)


def movedim(tensor, source, destination):
    from . import permute

    ndim = tensor.ndim
    source = [source] if isinstance(source, (int, np.integer)) else list(source)
    destination = [destination] if isinstance(destination, (int, np.integer)) \
        else list(destination)
    if len(source) != len(destination):
        raise RuntimeError(
            "movedim: Invalid source or destination dims: source "
            f"({source} dims) should contain the same number of dims as destination "
            f"({destination} dims)"
        )
    given = (list(source), list(destination))
    source = [_wrap_dim(d, ndim) for d in source]
    destination = [_wrap_dim(d, ndim) for d in destination]
    for name, dims, spelled in (("source", source, given[0]),
                                ("destination", destination, given[1])):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({spelled})")
    if ndim == 0:  # torch: a scalar's movedim is a no-op alias (AliasBackward0)

        return Alias.apply(tensor)
    order = [d for d in range(ndim) if d not in source]
    result = [None] * ndim
    for s, d in zip(source, destination):
        result[d] = s
    rest = iter(order)
    dims = [r if r is not None else next(rest) for r in result]
    return permute(tensor, dims)


def unflatten(tensor, dim, sizes):
    from . import view

    if tensor.ndim == 0:  # (torch's message wraps maybe_wrap_dim's)
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {dim} "
                           "but tensor has no dimensions")
    dim = _wrap_dim(dim, tensor.ndim)
    given = sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = tensor.shape
    if sizes.count(-1) > 1:  # (torch wraps infer_size's message)
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be "
                           "inferred")
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1]))
        if known == 0 and shape[dim] == 0:
            raise RuntimeError(
                "unflatten got an unexpected error:\ncannot reshape tensor of 0 elements into "
                f"shape {list(sizes)} because the unspecified dimension size -1 can be any value "
                "and is ambiguous")
        if known and shape[dim] % known == 0:
            sizes = tuple(shape[dim] // known if s == -1 else s for s in sizes)
    if -1 in sizes or int(np.prod(sizes)) != shape[dim]:  # (torch names the sizes as given)
        raise RuntimeError(
            f"unflatten: Provided sizes {list(given)} don't multiply up to the size of dim {dim} "
            f"({shape[dim]}) in the input tensor"
        )
    return view(tensor, (shape[:dim] + sizes + shape[dim + 1:],))


def check_strided(data: np.ndarray, size: tuple, stride: tuple, storage_offset: int,
                  *, may_precede: bool = False) -> None:
    """torch's checks of an ``as_strided`` geometry, in its order, before any memory is read.
    The offset counts from the tensor's first element (see AsStridedPublic); the bound is the
    end of its buffer. With ``may_precede`` the offset may reach back to the buffer's start
    (the public as_strided, whose offset torch counts from the start of the storage)."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    root = data
    # (the same walk as Tensor.storage_offset: np.lib.stride_tricks.as_strided's arrays hang
    # off a DummyArray whose base is the owner)
    while root.base is not None and hasattr(root.base, "__array_interface__"):
        root = root.base
    start = data.__array_interface__["data"][0]
    low = root.__array_interface__["data"][0]  # the owner: one contiguous buffer
    high = low + root.nbytes
    before = (start - low) // data.itemsize  # torch counts from the storage's start
    if may_precede:
        storage_offset_seen = storage_offset + before
    else:
        storage_offset_seen = storage_offset
    if storage_offset_seen < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset_seen}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    if 0 in size:
        return
    needed = (storage_offset + 1 + sum((n - 1) * st for n, st in zip(size, stride)))
    if start + needed * data.itemsize > high:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{storage_offset + before}, and itemsize {data.itemsize} requiring a storage size "
            f"of {(needed + before) * data.itemsize} are out of bounds for storage of size "
            f"{high - low}")


def as_strided(tensor, size, stride, storage_offset=None):
    """``storage_offset`` counts from the tensor's first element; None is 0 (internal callers
    mean the tensor's own memory; the public forms convert torch's storage offset)."""
    size, stride = tuple(size), tuple(stride)
    storage_offset = 0 if storage_offset is None else int(storage_offset)
    check_strided(tensor._data, size, stride, storage_offset, may_precede=True)
    return AsStridedPublic.apply(tensor, size=size, stride=stride, storage_offset=storage_offset)


def as_strided_public(tensor, size, stride, storage_offset=None):
    """torch's as_strided: ``storage_offset`` counts from the start of the storage, and its
    default is the tensor's own offset."""
    if storage_offset is not None:
        storage_offset = int(storage_offset) - tensor.storage_offset()
    return as_strided(tensor, size, stride, storage_offset)


def repeat(tensor, repeats):
    if len(repeats) < tensor.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
            "tensor"
        )
    return Repeat.apply(tensor, repeats=tuple(int(r) for r in repeats))


def tile(tensor, dims):
    dims = tuple(dims)
    if len(dims) < tensor.ndim:
        dims = (1,) * (tensor.ndim - len(dims)) + dims
    return Repeat.apply(tensor, repeats=dims)


def flip(tensor, dims):
    dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    wrapped = tuple(_wrap_dim(d, tensor.ndim) for d in dims)
    for index, d in enumerate(wrapped):  # (torch's dim_list_to_bitset)
        if d in wrapped[:index]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if tensor.ndim == 0:
        wrapped = ()  # a 0-d tensor accepts dim 0 (or -1); there is nothing to reverse
    return Flip.apply(tensor, dims=wrapped)


def fliplr(tensor):
    if tensor.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(tensor, (1,))


def flipud(tensor):
    if tensor.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(tensor, (0,))


def roll(tensor, shifts, dims=None):
    # torch's roll_common: shifts required; with no dims one shift rolls the flattened tensor;
    # else one shift per dim, each dim wrapped (a 0-d tensor has none to name)
    shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        return Roll.apply(tensor, shifts=shifts[0], dims=None)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims)}")
    if tensor.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    return Roll.apply(tensor, shifts=shifts, dims=tuple(_wrap_dim(d, tensor.ndim) for d in dims))


def rot90(tensor, k=1, dims=(0, 1)):
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if tensor.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {tensor.ndim}")
    wrapped = tuple(_wrap_dim(d, tensor.ndim) for d in dims)
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    dims = wrapped
    return Rot90.apply(tensor, k=k % 4, dims=dims)


def repeat_interleave(tensor, repeats, dim=None, output_size=None):
    """Uniform repeats: unsqueeze, expand, copy, view (torch's path; ViewBackward0).
    ``output_size`` (the result's length along ``dim``) must be the true one."""
    from . import Clone, expand, reshape, unsqueeze

    Tensor = type(tensor)
    if dim is None:
        # torch's self.flatten(): a 1-d tensor as it is (no ViewBackward0 below the
        # index_select: generated-program seed 20001600)
        tensor = tensor.flatten()
        dim = 0
    if isinstance(repeats, Tensor) and tensor.ndim == 0:  # (torch asks its size at the dim
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")  # given)
    dim = _wrap_dim(dim, tensor.ndim)
    if tensor.ndim == 0:  # (torch unsqueezes at dim + 1 first: its range error)
        unsqueeze(tensor, dim + 1)
    if isinstance(repeats, Tensor):  # torch: index_select by the repeated indices
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.numel() == 1:  # one count for every index
            repeats = expand(reshape(repeats, (1,)), ((tensor.shape[dim],),))
        elif repeats.shape[0] != tensor.shape[dim]:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.shape[0]} and input.size({dim}) = "
                               f"{tensor.shape[dim]}")
        index = repeat_interleave_counts(repeats, output_size)
        return index_select(tensor, dim, index._data.astype(np.int64))
    count = int(repeats)
    _check_output_size(output_size, tensor.shape[dim] * count, "repeat_interleave")
    shape = list(tensor.shape)
    expanded = expand(unsqueeze(tensor, dim + 1), (shape[:dim + 1] + [count] + shape[dim + 1:],))
    shape[dim] *= count

    # (torch clones with MemoryFormat::Contiguous: the view then works for any input layout)
    return Clone.apply(expanded, memory_format=contiguous_format).view(*shape)


def _check_output_size(output_size, length: int, uniform_name) -> None:
    """torch's checks of ``output_size``: a negative one cannot be allocated; a wrong one is
    named as such for a uniform count, or fails the allocation check for a repeats tensor."""
    if output_size is None:
        return
    if uniform_name is not None and output_size != length:
        raise RuntimeError(f"{uniform_name}: Invalid output_size, expected {length} but got "
                           f"{output_size}")
    if output_size < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {output_size}: "
                           f"[{output_size}]")
    if output_size != length:
        raise RuntimeError("allocated size does not match required size")


def repeat_interleave_counts(repeats, output_size=None):
    """``torch.repeat_interleave(repeats)``: each index ``i`` repeated ``repeats[i]`` times,
    in repeats' integer dtype."""
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    counts = repeats._data
    if counts.dtype not in (np.int32, np.int64):
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{repeats.dtype._legacy}'")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    _check_output_size(output_size, int(counts.sum()), None)
    from ..tensor import _wrap

    return _wrap(np.repeat(np.arange(len(counts), dtype=counts.dtype), counts))


def hstack(tensors):
    from . import cat

    tensors = [atleast_1d(t) for t in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    from . import cat

    return cat([atleast_2d(t) for t in tensors], 0)


def atleast_1d(tensor):
    return tensor.reshape(1) if tensor.ndim == 0 else tensor


def atleast_2d(tensor):
    if tensor.ndim == 0:
        return tensor.reshape(1, 1)
    return tensor.unsqueeze(0) if tensor.ndim == 1 else tensor


def broadcast_to(tensor, shape):
    from . import expand

    return expand(tensor, tuple(shape))


def broadcast_tensors(*tensors):
    shape = ()
    for t in tensors:  # torch's order of checks, so its message names the same sizes
        check_broadcast(shape, tuple(t.shape))
        shape = np.broadcast_shapes(shape, tuple(t.shape))
    # torch expands only the tensors that need it: one already of the broadcast shape is
    # returned itself (no view, no ExpandBackward0)
    if all(tuple(t.shape) == shape for t in tensors):
        return tensors
    from . import expand  # (ops/__init__.py's, defined after this module)

    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


def meshgrid(*tensors, indexing="ij"):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}"
        )
    count = len(tensors)
    swap = indexing == "xy" and count >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = tuple(t.numel() for t in order)
    grids = []
    for i, t in enumerate(order):
        view_shape = [1] * count
        view_shape[i] = -1
        grids.append(t.view(*view_shape).expand(*shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)

