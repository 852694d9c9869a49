"""Shape ops added for torch-namespace coverage: ``Tensor.unfold`` (a view of sliding windows),
``narrow_copy`` and the ``unsafe_split``/``unsafe_chunk`` family.

``unsafe_split`` returns pieces that share memory with the input but are not views (no
``_base``, their own version counters), as torch's: "unsafe" because in-place changes to a piece
are not tracked against the input. Their nodes are ``UnsafeSplitBackward0`` and
``UnsafeSplitWithSizesBackward0``.
"""

from __future__ import annotations

import numpy as np

from ._forward import auto_linear
from . import _batching_rules as batch
from .registry import Op, register
from .shape import SliceBackward, _View, _wrap_dim
from .shape_ext import _join_split_grads, _slice, _split_sizes

__all__ = ["Unfold", "UnfoldBackward", "NarrowCopy", "UnsafeSplit", "UnsafeSplitWithSizes",
           "unfold", "narrow_copy", "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"]


def _windows(a: np.ndarray, dimension: int, size: int, step: int) -> np.ndarray:
    """The strided view: ``dimension`` becomes the window count, a new last dim the window."""
    if a.ndim == 0:
        shape, strides = (size,), (a.itemsize,)
    else:
        count = (a.shape[dimension] - size) // step + 1
        shape = a.shape[:dimension] + (count,) + a.shape[dimension + 1:] + (size,)
        strides = list(a.strides)
        strides[dimension] = a.strides[dimension] * step
        strides = tuple(strides) + (a.strides[dimension],)
    # Overlapping windows (step < size) alias memory. torch lets in-place ops write through
    # them (the order of the writes is unspecified), so the view stays writeable here too.
    return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=a.flags.writeable)


_unfold_dims = batch.dims("dimension")


def _unfold_rule(cls, args, params):
    """unfold along a dim of the examples; a 0-d example (its window is the new dim) takes the
    per-example loop."""
    if batch._logical_rank(args[0]) == 0:
        return NotImplemented
    return _unfold_dims(cls, args, params)


@register
class Unfold(_View):
    """``Tensor.unfold(dimension, size, step)``: every window of ``size`` elements, ``step``
    apart, along ``dimension`` (a view, as torch's)."""

    node = "UnfoldBackward0"
    vmap = _unfold_rule
    uint_ok = True  # views and copies work for any dtype (Note: wide unsigned)
    torch_names = ("Tensor.unfold",)

    @staticmethod
    def forward(ctx, a, dimension, size, step):
        return _windows(a, dimension, size, step)

    def backward(self, grad):
        p = self._params
        return UnfoldBackward.apply(grad, input_sizes=self.input_shape(),
                                    dimension=p["dimension"], size=p["size"], step=p["step"])

    jvp = auto_linear


@register
class UnfoldBackward(Op):
    """Each window's gradient added back at its place in an input-shaped zero tensor."""

    node = "UnfoldBackwardBackward0"
    complex_ok = True
    vmap = batch.dims("dimension", sizes="input_sizes")
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, input_sizes, dimension, size, step):
        out = np.zeros(input_sizes, dtype=grad.dtype)
        if len(input_sizes) == 0:
            out[()] = grad.sum() if grad.size else 0
            return out
        count = grad.shape[dimension]
        moved = np.moveaxis(grad, dimension, -2)  # (..., count, size)
        target = np.moveaxis(out, dimension, -1)  # (..., length), a view of out
        for offset in range(size):  # one vectorised add per position within the window
            target[..., offset:offset + count * step:step] += moved[..., offset]
        return out

    def backward(self, grad):
        p = self._params
        return Unfold.apply(grad, dimension=p["dimension"], size=p["size"], step=p["step"])

    jvp = auto_linear


@register
class NarrowCopy(Op):
    """``narrow_copy``: a fresh tensor of the narrowed part (torch's backward is slice's)."""

    node = "NarrowCopyBackward0"
    complex_ok = True
    vmap = batch.dims("dim")
    uint_ok = True  # views and copies work for any dtype (Note: wide unsigned)
    torch_names = ("narrow_copy", "Tensor.narrow_copy")

    @staticmethod
    def forward(ctx, a, dim, start, length):
        # (a copy always: ascontiguousarray returned the input itself for a whole narrow)
        return np.array(_slice(a, dim, start, start + length), copy=True, order="C")

    def backward(self, grad):
        p = self._params
        return SliceBackward.apply(grad, input_sizes=self.input_shape(), dim=p["dim"],
                                   start=p["start"], end=p["start"] + p["length"], step=1)

    jvp = auto_linear


@register
class UnsafeSplit(Op):
    node = "UnsafeSplitBackward0"
    complex_ok = True
    bfloat16_native = "always"  # slices of the input (its strides), whatever the dtype
    vmap = batch.dims("dim")
    multi_output = True
    uint_ok = True  # views and copies work for any dtype (Note: wide unsigned)
    torch_names = ("unsafe_split", "unsafe_chunk", "Tensor.unsafe_split",
                   "Tensor.unsafe_chunk")

    @staticmethod
    def forward(ctx, a, split_size, dim):
        size = a.shape[dim]
        starts = range(0, size, split_size) if size else [0]
        return tuple(_slice(a, dim, s, min(s + split_size, size)) for s in starts)

    def backward(self, grads):
        return _join_split_grads(self, grads, _split_sizes(self))

    jvp = auto_linear


@register
class UnsafeSplitWithSizes(Op):
    node = "UnsafeSplitWithSizesBackward0"
    complex_ok = True
    bfloat16_native = "always"  # slices of the input (its strides), whatever the dtype
    vmap = batch.dims("dim")
    multi_output = True
    uint_ok = True  # views and copies work for any dtype (Note: wide unsigned)
    torch_names = ("unsafe_split_with_sizes", "Tensor.unsafe_split_with_sizes")

    @staticmethod
    def forward(ctx, a, split_sizes, dim):
        out, start = [], 0
        for size in split_sizes:
            out.append(_slice(a, dim, start, start + size))
            start += size
        return tuple(out)

    def backward(self, grads):
        return _join_split_grads(self, grads, list(self._params["split_sizes"]))

    jvp = auto_linear


# -- functions ------------------------------------------------------------------------------------


def unfold(tensor, dimension, size, step):
    ndim = tensor.ndim
    dimension = _wrap_dim(dimension, max(ndim, 1))
    length = tensor.shape[dimension] if ndim else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {dimension} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(tensor, dimension=dimension, size=size, step=step)


def narrow_copy(tensor, dim, start, length):
    if tensor.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= tensor.ndim:  # (ATen's own check; a dim below -ndim is maybe_wrap_dim's)
        raise RuntimeError(
            "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement "
            "request to PyTorch.)")
    dim = _wrap_dim(dim, tensor.ndim)
    size = tensor.shape[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return NarrowCopy.apply(tensor, dim=dim, start=start, length=length)


def unsafe_split(tensor, split_size, dim=0):
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, tensor.ndim)
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and tensor.shape[dim] > 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {tensor.shape[dim]}")
    return UnsafeSplit.apply(tensor, split_size=max(split_size, 1), dim=dim)


def unsafe_split_with_sizes(tensor, split_sizes, dim=0):
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    given, dim = dim, _wrap_dim(dim, tensor.ndim)
    sizes = tuple(int(s) for s in split_sizes)
    if sum(sizes) != tensor.shape[dim]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {tensor.shape[dim]} (input "
            f"tensor's size at dimension {given}), but got split_sizes={list(sizes)}")
    return UnsafeSplitWithSizes.apply(tensor, split_sizes=sizes, dim=dim)


def unsafe_chunk(tensor, chunks, dim=0):
    if tensor.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = _wrap_dim(dim, tensor.ndim)
    size = tensor.shape[dim]
    split_size = -(-size // chunks) if size else 1
    return UnsafeSplit.apply(tensor, split_size=max(split_size, 1), dim=dim)
