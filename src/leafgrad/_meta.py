"""The meta device: tensors with a shape, dtype and strides but no data (torch's 'meta').

Note: meta tensors
A meta tensor's array is a ``MetaArray``: a read-only NumPy array over zeroed memory that is
never written (``np.zeros`` takes it from calloc, so the pages stay untouched and cost no
memory), with the tensor's real strides, so views (``t()``, ``expand``, slicing) keep torch's
strides by being NumPy views. ``Tensor.device`` is ``meta`` exactly when the array is one.

An op with a meta input (``Op.apply``, once the process has made a meta tensor) runs its
forward on those zeros, which gives the result's shape and dtype (shape inference by running
the kernel), and the result becomes a fresh ``MetaArray`` (contiguous strides; views stay views
of their input's). The computed values are dropped; the cost is one op's output in memory while
it runs. Because the forward sees zeros, an op that raises on values (an integer division by
zero, a Cholesky factorisation) raises on meta tensors where torch's shape functions do not.
Ops whose result shape depends on the values (``nonzero``, ``unique``, ``masked_select``,
``x[mask]``) raise torch's NotImplementedError, as do the conversions that read values. In-place
ops check their operands and write nothing (random fills draw nothing). A single meta tensor is
limited to what calloc may reserve (about the machine's memory).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SEEN", "MetaArray", "new", "like", "is_meta"]

# Set once the process makes a meta tensor: only then do ops look for meta operands (the same
# pattern as COMPLEX_SEEN in ops/inplace.py), so CPU-only programs pay nothing.
SEEN = [False]

NO_DATA = "Cannot copy out of meta tensor; no data!"
ITEM = "Tensor.item() cannot be called on meta tensors"
NUMPY = ("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
         "to host memory first.")


class MetaArray(np.ndarray):
    """The array of a meta tensor (see Note: meta tensors). NumPy keeps the class on views and
    on ufunc results, so a meta operand cannot turn into a CPU tensor unnoticed (``_wrap``)."""


def _extent(shape: tuple, strides: tuple) -> int:
    if any(size == 0 for size in shape):
        return 0
    return 1 + sum((size - 1) * stride for size, stride in zip(shape, strides))


def contiguous_strides(shape: tuple) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def new(shape, dtype, strides=None) -> MetaArray:
    """A meta array of ``shape`` and NumPy ``dtype``; ``strides`` in elements (contiguous by
    default)."""
    SEEN[0] = True
    shape = tuple(int(size) for size in shape)
    dtype = np.dtype(dtype)
    strides = contiguous_strides(shape) if strides is None else tuple(strides)
    backing = np.zeros(max(_extent(shape, strides), 1), dtype)  # calloc: untouched pages
    array = np.lib.stride_tricks.as_strided(
        backing, shape, tuple(s * dtype.itemsize for s in strides)).view(MetaArray)
    array.flags.writeable = False
    return array


def dense_strides(array: np.ndarray):
    """``array``'s strides in elements when it is dense (covers its memory once: a layout an
    op chose, such as torch's for an elementwise op on a transposed input), else None."""
    itemsize = array.itemsize
    if not array.size or not all(s >= 0 and s % itemsize == 0 for s in array.strides):
        return None
    strides = tuple(s // itemsize for s in array.strides)
    if 1 + sum((n - 1) * s for n, s in zip(array.shape, strides)) != array.size:
        return None
    return strides


def like(array: np.ndarray) -> MetaArray:
    """A meta array with ``array``'s shape, dtype and (dense) layout."""
    return new(array.shape, array.dtype, dense_strides(array))


def is_meta(tensor) -> bool:
    return type(tensor._data) is MetaArray


def as_meta(array: np.ndarray, sources: list) -> MetaArray:
    """``array`` (an op's result computed from meta operands) as a meta array: a view of one of
    the operands' memory stays that view, anything else becomes a new meta array."""
    if isinstance(array, MetaArray) and not array.flags.writeable:
        return array
    for source in sources:
        if np.may_share_memory(array, source):
            view = array.view(MetaArray)
            view.flags.writeable = False
            return view
    return like(array)


def check_devices(tensors) -> None:
    """torch's error for operands on different devices (a CPU 0-d tensor may join meta ones,
    as torch's wrapped scalars)."""
    expected = None
    for tensor in tensors:
        meta = is_meta(tensor)
        if expected is None:
            if meta or tensor._data.ndim:
                expected = meta
            continue
        if meta != expected and (meta or tensor._data.ndim):
            have, want = ("meta", "cpu") if meta else ("cpu", "meta")
            raise RuntimeError(f"Tensor on device {have} is not on the expected device {want}!")


def refuse(name: str) -> None:
    """torch's error for an op with no meta kernel (a result shape that depends on values)."""
    if name == "nonzero":
        raise NotImplementedError(
            "The register_meta function for torch.nonzero() raises unimplemented by default, as "
            "a correct data-independent implementation does not exist. This implementation "
            "returns a fake value, assuming all elements of the tensor are non-zero. To enable "
            "this registration, please set "
            "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")
    raise NotImplementedError(
        f"aten::{name}: attempted to run this operator with Meta tensors, but there was no fake "
        "impl or Meta kernel registered. You may have run into this message while using an "
        "operator with PT2 compilation APIs (torch.compile/torch.export); in order to use this "
        "operator with those APIs you'll need to add a fake impl. Please see the following for "
        "next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")


def convert_outputs(result, sources: list):
    """Make ``result`` (a tensor or tuple of tensors an op computed from meta operands) meta."""
    from .tensor import Tensor

    for tensor in (result if isinstance(result, tuple) else (result,)):
        if isinstance(tensor, Tensor) and type(tensor._data) is not MetaArray or (
                isinstance(tensor, Tensor) and tensor._data.flags.writeable):
            tensor._data = as_meta(tensor._data, sources)
    return result
