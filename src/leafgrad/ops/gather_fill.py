"""index_fill, index_copy and put (issue 11 item 12): writes at indexed positions, with
torch's formulas (derivatives.yaml) and errors.

- ``index_fill(dim, index, value)``: IndexFillBackward0 for a number value, IndexFillBackward1
  for a 0-d tensor value (whose gradient is the sum of the filled positions' gradients);
- ``index_copy(dim, index, source)``: IndexCopyBackward0 (source slices land at the indices);
- ``put(index, source, accumulate=False)``: PutBackward0 on the flattened tensor.
All three are linear in their tensor inputs, so their forward-mode formulas are the op
applied to the tangents (``auto_linear``), except that a filled value of a number has no
tangent (the positions it fills get 0).
"""

from __future__ import annotations

import numpy as np

from ._forward import auto_linear
from .gather import IndexSelect, Take, index_source_grad
from .registry import Op, array_kernel, register
from .shape import _wrap_dim
from .._out import check_no_overlap
from .._construct import check_scalar_write
from .. import _argparse
from .._argparse import typename
from .. import _dtype


def _slices(array: np.ndarray, dim: int) -> np.ndarray:
    """A view of ``array`` with ``dim`` first (a 0-d array counts as one slice)."""
    return np.moveaxis(array, dim, 0) if array.ndim else array.reshape(1)


@register
class IndexFill(Op):
    node = "IndexFillBackward0"
    overlap_writes = ("index_fill_", "mask", "scalar")  # (Note: writes through expanded
    # tensors, ops/inplace.py)
    index_saves = {"index": ()}  # Note: saved index tensors (registry.py)
    complex_ok = True
    torch_names = ("index_fill", "Tensor.index_fill_")

    @staticmethod
    def forward(ctx, a, dim, index, value):
        out = np.array(a, copy=True, order="K")  # torch keeps the input's layout
        _slices(out, dim)[index] = value
        return out

    def backward(self, grad):
        p = self._params
        return IndexFill.apply(grad, dim=p["dim"], index=p["index"], value=0)

    def jvp(self, tangents, primals, result):
        p = self._params  # torch: self_t.index_fill(dim, index, 0)
        return IndexFill.apply(tangents[0], dim=p["dim"], index=p["index"], value=0)


@register
class IndexFillTensor(Op):
    node = "IndexFillBackward1"
    overlap_writes = ("index_fill_", "mask", "scalar")
    index_saves = {"index": ()}  # Note: saved index tensors (registry.py)
    complex_ok = True
    inputs = ("self", "value")
    torch_names = ("index_fill", "Tensor.index_fill_")

    @staticmethod
    def forward(ctx, a, value, dim, index):
        out = np.array(a, copy=True, order="K")  # torch keeps the input's layout
        _slices(out, dim)[index] = value
        return out

    def backward(self, grad):
        p = self._params
        grad_self = grad_value = None
        if self.needs_grad(0):
            grad_self = IndexFill.apply(grad, dim=p["dim"], index=p["index"], value=0)
        if self.needs_grad(1):
            # each filled position once, however often its index repeats (torch: _unique)
            # (a kernel: leafgrad.compile replays it from each call's index)
            unique = array_kernel(np.unique, p["index"])
            grad_value = IndexSelect.apply(grad, dim=p["dim"], index=unique).sum()
        return grad_self, grad_value

    jvp = auto_linear


@register
class IndexCopy(Op):
    node = "IndexCopyBackward0"
    index_saves = {"index": ()}  # Note: saved index tensors (registry.py)
    complex_ok = True
    inputs = ("self", "source")
    torch_names = ("index_copy", "Tensor.index_copy_")

    @staticmethod
    def forward(ctx, a, source, dim, index):
        out = np.array(a, copy=True, order="C")  # torch's index_copy output is row-major
        _slices(out, dim)[index] = _slices(source, dim)
        return out

    def backward(self, grad):
        p = self._params
        grad_self = grad_source = None
        if self.needs_grad(0):
            grad_self = IndexFill.apply(grad, dim=p["dim"], index=p["index"], value=0)
        if self.needs_grad(1):
            grad_source = index_source_grad(grad, p["dim"], p["index"], self.input_shape(1))
        return grad_self, grad_source

    jvp = auto_linear


@register
class Put(Op):
    node = "PutBackward0"
    index_saves = {"index": ()}  # Note: saved index tensors (registry.py)
    uint_kernel = "take_put_cpu"
    complex_ok = True
    inputs = ("self", "source")
    torch_names = ("put", "Tensor.put_")

    @staticmethod
    def forward(ctx, a, source, index, accumulate):
        work = np.array(a, copy=True, order="C")  # the flat index is row-major
        flat = work.reshape(-1)
        if accumulate:
            np.add.at(flat, index, source.reshape(-1))
        else:
            flat[index] = source.reshape(-1)
        if a.flags.c_contiguous:
            return work
        out = np.empty_like(a, order="K")  # torch keeps the input's layout
        out[...] = work
        return out

    def backward(self, grad):
        p = self._params
        grad_self = grad_source = None
        if self.needs_grad(0):
            grad_self = grad if p["accumulate"] else Put.apply(
                grad, grad.new_zeros(self.input_shape(1)), index=p["index"], accumulate=False)
        if self.needs_grad(1):
            grad_source = Take.apply(grad, index=p["index"]).reshape(self.input_shape(1))
        return grad_self, grad_source

    jvp = auto_linear


# -- argument checks (torch's messages), shared by the functions and the in-place methods -------


def _long_index(index, message: str, error=RuntimeError) -> np.ndarray:
    from ..tensor import Tensor

    if not isinstance(index, Tensor):
        raise TypeError(f"{message.split('(')[0]}(): argument 'index' must be Tensor, not "
                        f"{typename(index)}")
    array = index._data
    if array.dtype != np.int64:
        raise error(message.format(legacy=index.dtype._legacy))
    return array


# The index checks that read the index's values, and the flat (wrapped) index the op gets, are
# one kernel of the index tensor's own array each: leafgrad.compile replays them from each
# call's index values and raises as eager code does, instead of refusing an array no op made
# (Note: masks as kernels in activation.py).


def _index_fill_index(array: np.ndarray, size: int, dim: int) -> np.ndarray:
    array = array.reshape(-1)
    bad = array[(array < -size) | (array >= size)]
    if bad.size:
        raise IndexError(f"index {int(bad[0])} is out of bounds for dimension {dim} with size "
                         f"{size}")
    return np.where(array < 0, array + size, array)


def _index_copy_index(array: np.ndarray, size: int, dim: int) -> np.ndarray:
    array = array.reshape(-1)
    bad = array[(array < 0) | (array >= size)]
    if bad.size:
        raise IndexError(f"index_copy_(): index {int(bad[0])} is out of bounds for dimension "
                         f"{dim} with size {size}")
    return array


def _put_index(array: np.ndarray, size: int) -> np.ndarray:
    array = array.reshape(-1)
    bad = array[(array < -size) | (array >= size)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of "
                         f"{size} elements.")
    return np.where(array < 0, array + size, array)


for _check in (_index_fill_index, _index_copy_index, _put_index):
    _check.always_runs = True  # leafgrad.compile: a check, never dropped as dead code


def index_fill_args(tensor, dim, index, value, inplace: bool = False):
    """``(op, tensors, params)`` for ``tensor.index_fill(dim, index, value)`` (``inplace``:
    ``index_fill_``, which also refuses an index sharing memory with ``tensor``)."""
    from ..tensor import Tensor

    array = _long_index(index, "index_fill_(): Expected dtype int64 for index.", IndexError)
    if inplace:
        check_no_overlap(tensor, index)
    dim = _wrap_dim(dim, tensor.ndim)
    if array.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = tensor.shape[dim] if tensor.ndim else 1
    array = array_kernel(_index_fill_index, index._data, size=size, dim=dim)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        return IndexFillTensor, (value,), {"dim": dim, "index": array}

    if value.__class__ is complex and tensor._data.dtype.kind != "c":
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not "
                           "supported")  # (the kernel's first check, before the conversion)
    if tensor._data.dtype.kind != "u" or tensor._data.dtype.itemsize == 1:  # (wide unsigned:
        value = check_scalar_write(value, tensor.dtype)  # torch's kernel refuses them first)
    elif value.__class__ is int:
        check_scalar_write(value, _dtype.float64)  # (only the conversion to a C number)
    return IndexFill, (), {"dim": dim, "index": array, "value": value}


def index_copy_args(tensor, dim, index, source, inplace: bool = False):
    """``(op, tensors, params)`` for ``index_copy`` (``inplace``: ``index_copy_``, whose index
    and source may not share memory with ``tensor``: torch checks after the shapes, before the
    bounds)."""
    dim = _wrap_dim(dim, tensor.ndim)
    if inplace:  # torch's first check after the dim
        check_no_overlap(tensor, index, source)
    array = _long_index(index, "index_copy_(): Expected a long tensor for index, but got "
                               "{legacy}")
    if array.ndim > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{array.ndim})")
    count = source.shape[dim] if source.ndim else 1
    if array.size != count:
        raise IndexError(f"index_copy_(): Number of indices ({array.size}) should be equal to "
                         f"source.size(dim) ({count})")
    if source.dtype is not tensor.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {tensor.dtype._legacy} and (source) "
                           f"{source.dtype._legacy}")
    self_rest = [n for i, n in enumerate(tensor.shape) if i != dim]
    source_rest = [n for i, n in enumerate(source.shape) if i != dim]
    if tensor.ndim and source.ndim and self_rest != source_rest:
        bad = next(i for i, (x, y) in enumerate(zip(self_rest, source_rest)) if x != y) \
            if len(self_rest) == len(source_rest) else 0
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
            f"slice shape: {self_rest[bad] if self_rest else 1} at dimension {bad + (bad >= dim)}"
            f" and source slice shape: {source_rest[bad] if source_rest else 1} at dimension 0.")
    size = tensor.shape[dim] if tensor.ndim else 1
    array = array_kernel(_index_copy_index, index._data, size=size, dim=dim)
    return IndexCopy, (source,), {"dim": dim, "index": array}


def put_args(tensor, index, source, accumulate, name: str = "put_"):
    """``(op, tensors, params)`` for ``put`` and ``put_`` (whose index and source may not share
    memory with ``tensor``)."""
    from ..tensor import Tensor

    if not isinstance(source, Tensor):
        raise TypeError(f"{name}(): argument 'source' (position 2) must be Tensor, not "
                        f"{_argparse.typename(source)}")
    array = _long_index(index, "put_(): Expected a long tensor for index, but got {legacy}")
    if array.size != source.numel():
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, index.numel() = "
                         f"{array.size}")
    if source.dtype is not tensor.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {tensor.dtype._legacy} and source.dtype = "
                           f"{source.dtype._legacy}")
    if name == "put_":
        check_no_overlap(tensor, index, source)
    array = array_kernel(_put_index, index._data, size=tensor.numel())
    return Put, (source,), {"index": array, "accumulate": bool(accumulate)}
