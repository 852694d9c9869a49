"""``tensor[index]``: basic indexing as a chain of views, advanced indexing as one Index op.

torch's order is kept so graphs match: ints become ``select``, slices ``slice`` (a bare ``:`` is
skipped unless it is the whole index), ``None`` ``unsqueeze``, a lone ``...`` an alias; integer
or bool tensors/lists then go to ``IndexBackward0`` in one step.
"""

from __future__ import annotations

import numpy as np

from .registry import Op, register


def _tensor_cls():
    from ..tensor import Tensor

    return Tensor


def _is_advanced(item) -> bool:
    Tensor = _tensor_cls()
    if isinstance(item, Tensor):
        return item.ndim > 0 or item.dtype.name == "bool"
    return isinstance(item, (list, np.ndarray)) or isinstance(item, bool)


def _as_index_array(item) -> np.ndarray:
    Tensor = _tensor_cls()
    array = item._data if isinstance(item, Tensor) else np.asarray(item)
    if isinstance(item, bool):
        array = np.asarray(item)
    if array.dtype.kind == "f" or (array.dtype.kind not in "iub"):
        if array.size == 0 and isinstance(item, list):
            return array.astype(np.int64)
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if array.dtype == np.uint8:
        array = array.astype(bool)
    return array


def _normalise(tensor, index) -> list:
    """Expand ``...`` and check the number of indexed dims; returns the list of items."""
    Tensor = _tensor_cls()
    items = list(index) if isinstance(index, tuple) else [index]
    consumed = 0
    for item in items:
        if item is None or item is Ellipsis:
            continue
        if isinstance(item, Tensor) and item.dtype.name == "bool" or (
            isinstance(item, np.ndarray) and item.dtype == np.bool_
        ):
            consumed += max(np.ndim(item._data if isinstance(item, Tensor) else item), 1)
        elif isinstance(item, bool):
            continue
        else:
            consumed += 1
    if consumed > tensor.ndim:
        raise IndexError(f"too many indices for tensor of dimension {tensor.ndim}")
    if sum(1 for item in items if item is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in [i for i in items if not isinstance(i, (Tensor, np.ndarray, list))]:
        position = next(
            k for k, i in enumerate(items)
            if not isinstance(i, (Tensor, np.ndarray, list)) and i is Ellipsis
        )
        items[position:position + 1] = [slice(None)] * (tensor.ndim - consumed)
    return items


def getitem(tensor, index):
    from . import Alias, Slice, Unsqueeze, select

    Tensor = _tensor_cls()
    if index is Ellipsis or index == (Ellipsis,) if not isinstance(index, Tensor) else False:
        return Alias.apply(tensor)
    items = _normalise(tensor, index)
    lone_full_slice = len(items) == 1 and isinstance(items[0], slice) and items[0] == slice(None)
    result = tensor
    dim = 0
    advanced = []  # per remaining dim after the basic pass: slice(None) or an index array
    any_advanced = False
    for item in items:
        if item is None:
            result = Unsqueeze.apply(result, dim=dim)
            advanced.append(slice(None))
            dim += 1
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool) or (
            isinstance(item, Tensor) and item.ndim == 0 and item.dtype.name != "bool"
        ):
            position = int(item)
            size = result.shape[dim]
            if not -size <= position < size:
                raise IndexError(
                    f"index {position} is out of bounds for dimension {dim} with size {size}"
                )
            result = select(result, dim, position)
        elif isinstance(item, slice):
            size = result.shape[dim]
            if item.step is not None and item.step <= 0:
                raise ValueError("step must be greater than zero")
            if item != slice(None) or lone_full_slice:  # torch skips a bare ':'
                start, stop, step = item.indices(size)
                stop = max(stop, start)
                result = Slice.apply(result, dim=dim, start=start, end=stop, step=step)
            advanced.append(slice(None))
            dim += 1
        elif _is_advanced(item):
            array = _as_index_array(item)
            any_advanced = True
            if array.dtype == np.bool_:
                advanced.append(array)
                dim += max(array.ndim, 1) if array.ndim else 0
                if array.ndim == 0:
                    result = Unsqueeze.apply(result, dim=dim)
                    advanced[-1] = array.reshape(1)
                    dim += 1
            else:
                size = result.shape[dim]
                if array.size and (array.max() >= size or array.min() < -size):
                    bad = int(array.max()) if array.max() >= size else int(array.min())
                    raise IndexError(
                        f"index {bad} is out of bounds for dimension {dim} with size {size}"
                    )
                advanced.append(array)
                dim += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got " + type(item).__name__ + ")"
            )
    if not any_advanced:
        return result
    while advanced and isinstance(advanced[-1], slice):
        advanced.pop()
    return Index.apply(result, index=tuple(advanced))


@register
class Index(Op):
    """Advanced indexing (a copy, not a view)."""

    node = "IndexBackward0"
    torch_names = ("Tensor.__getitem__", "index_select")

    @staticmethod
    def forward(ctx, a, index):
        return np.array(a[index], copy=True)

    def backward(self, grad):
        return IndexBackward.apply(grad, input_sizes=self.input_shape(), index=self._params["index"])


@register
class IndexBackward(Op):
    """Zeros with ``grad`` added at the indexed positions (repeated indices accumulate)."""

    node = "IndexPutImplBackward0"
    torch_names = ("index_put",)

    @staticmethod
    def forward(ctx, grad, input_sizes, index):
        out = np.zeros(input_sizes, dtype=grad.dtype)
        np.add.at(out, index, grad)
        return out

    def backward(self, grad):
        return Index.apply(grad, index=self._params["index"])


def setitem(tensor, index, value) -> None:
    """``tensor[index] = value`` outside recording; recorded writes (CopySlices) come in #3."""
    from ..autograd.grad_mode import state
    from ..tensor import LEAF_INPLACE, VIEW_OF_LEAF_INPLACE

    Tensor = _tensor_cls()
    value_requires = isinstance(value, Tensor) and value._requires_grad
    if state.grad_enabled and (tensor._requires_grad or value_requires):
        if tensor._grad_fn is None and tensor._requires_grad:
            raise RuntimeError(LEAF_INPLACE)
        base = tensor._base
        if base is not None and base._grad_fn is None and base._requires_grad:
            raise RuntimeError(VIEW_OF_LEAF_INPLACE)
        raise NotImplementedError(
            "leafgrad does not yet record assignment into a tensor that requires grad "
            "(torch's CopySlices); do it under no_grad or build the tensor with cat/stack"
        )
    view = getitem(tensor, index)
    data = value._data if isinstance(value, Tensor) else value
    if view._base is not None or view._data.base is not None and np.shares_memory(
        view._data, tensor._data
    ):
        np.copyto(view._data, np.broadcast_to(data, view._data.shape), casting="unsafe")
    else:
        items = tuple(
            (i._data if isinstance(i, Tensor) else i) for i in
            (index if isinstance(index, tuple) else (index,))
        )
        tensor._data[items] = data
    tensor._bump_version()
