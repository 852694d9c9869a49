"""``tensor[index]``: basic indexing as a chain of views, advanced indexing as one Index op.

torch's order is kept so graphs match: ints become ``select``, slices ``slice`` (a bare ``:`` is
skipped unless it is the whole index), ``None`` ``unsqueeze``, a lone ``...`` an alias; integer
or bool tensors/lists then go to ``IndexBackward0`` in one step.
"""

from __future__ import annotations

import array
import collections
import collections.abc
import operator
import warnings

import numpy as np

from . import _layout
from ._forward import auto_linear
from . import _batching_rules as batch
from . import _uint
from .._compile.state import state as _capture
from .._construct import check_scalar_write, unsigned_fill
from .elementwise import Copy
from .inplace import inplace
from .registry import Op, _sum_to, array_kernel, keep_index, register, zeros_of
from .shape import Alias, Select, Slice, Unsqueeze
from ..tensor import Tensor, _wrap
from .._out import check_no_overlap, check_partial_overlap
from .._argparse import typename

# (module-level imports: a function-level ``from . import`` runs importlib's _handle_fromlist
# on every call, ~1 us each; setitem made ~17 of them per write)


def _tensor_cls():
    return Tensor


# -- sequences in an index, as torch's python_variable_indexing.cpp reads them ------------------

_SEQUENCE_AS_TUPLE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result")
_SEQUENCES = (list, tuple, range, str, bytes, bytearray, memoryview, array.array,
              collections.deque)


def _is_sequence(item) -> bool:
    """Python's sequence protocol as torch asks for it (``PySequence_Check``): lists, tuples,
    ranges, strings, buffers, deques and other classes with ``__getitem__`` and ``__len__``
    that are not mappings."""
    if isinstance(item, _SEQUENCES):
        return True
    if isinstance(item, (dict, np.generic, np.ndarray, collections.abc.Mapping)) \
            or isinstance(item, Tensor):
        return False
    kind = type(item)
    return hasattr(kind, "__getitem__") and hasattr(kind, "__len__")


def _treated_as_tuple(index) -> bool:
    """NumPy's old rule, which torch keeps (with a deprecation warning): a short non-tuple
    sequence holding a tensor, a sequence, a slice, ``...`` or None is a tuple of indices."""
    try:
        count = len(index)
    except TypeError:
        return False
    if count >= 32:
        return False
    for i in range(count):
        try:
            item = index[i]
        except Exception:  # (torch clears the error and reads it as one index)
            return False
        if isinstance(item, (Tensor, slice)) or item is Ellipsis or item is None \
                or _is_sequence(item):
            return True
    return False


def _index_array(item):
    """torch's ``indexing_tensor_from_data``: a sequence or NumPy array used as an index
    becomes a bool (or uint8) array, or else an int64 one (floats truncated); a 0-d one an
    int."""
    if isinstance(item, np.ndarray):
        array_ = item
        if array_.dtype.kind not in "biu":
            if array_.dtype.kind == "O":
                from .._creation import tensor as make

                array_ = make(item.tolist())._data
            if array_.dtype.kind not in "biu":
                array_ = array_.astype(np.int64)
    else:
        from .._creation import tensor as make

        if not isinstance(item, (list, tuple)):
            item = [item[i] for i in range(len(item))]  # a range, deque, buffer, ...
        array_ = make(item)._data  # torch.tensor's inference and errors
        if array_.dtype != np.bool_:
            array_ = array_.astype(np.int64)
    if array_.ndim == 0 and array_.dtype != np.bool_:
        return int(array_)
    return array_


def _convertible(item) -> bool:
    return isinstance(item, np.ndarray) or (
        _is_sequence(item) and not isinstance(item, (str, bytes)))


def canonical_index(index):
    """``index`` with the sequences and NumPy arrays in it made index arrays, and a
    non-tuple sequence that torch reads as a tuple made one (with torch's warning)."""
    if isinstance(index, tuple):
        if any(_convertible(item) for item in index):
            return tuple(_index_array(item) if _convertible(item) else item for item in index)
        return index
    if isinstance(index, np.ndarray):
        return _index_array(index)
    if not _is_sequence(index):
        return index
    if _treated_as_tuple(index):
        warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=4)
        return canonical_index(tuple(index[i] for i in range(len(index))))
    if isinstance(index, (str, bytes)):
        return index
    return _index_array(index)


def _is_advanced(item) -> bool:
    if isinstance(item, Tensor):
        return item.ndim > 0 or item.dtype.name == "bool"
    return isinstance(item, (list, np.ndarray)) or isinstance(item, bool)


_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.bool_))
_UINT8_INDEX = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                "instead.")


def _as_index_array(item) -> np.ndarray:
    array = item._data if isinstance(item, Tensor) else np.asarray(item)
    if isinstance(item, bool):
        array = np.asarray(item)
    if array.dtype.kind == "f" or (array.dtype.kind not in "iub") or (
            isinstance(item, Tensor) and array.dtype not in _INDEX_DTYPES):
        # (torch takes only long, int, byte and bool index tensors: int8/int16 and the wide
        # unsigned ones are refused; a 0-d one of them in x[i] is an int, see _split)
        if array.size == 0 and isinstance(item, list):
            return array.astype(np.int64)
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if array.dtype == np.uint8:
        warnings.warn(_UINT8_INDEX, UserWarning, stacklevel=4)  # (torch's TORCH_WARN, each time)
        return array.astype(bool)
    return array


def _normalise(tensor, index, positions: list) -> list:
    """Expand ``...`` and check the number of indexed dims; returns the list of items and fills
    ``positions`` with each item's place in the index as written (torch's "dimension" in an
    out-of-bounds message: x[None, 0, 5] of a (2, 3, 4) tensor reports dimension 2)."""
    items = list(index) if isinstance(index, tuple) else [index]
    positions.extend(range(len(items)))
    consumed = 0
    for item in items:
        if item is None or item is Ellipsis:
            continue
        if isinstance(item, Tensor) and item.dtype.name == "bool" or (
            isinstance(item, np.ndarray) and item.dtype == np.bool_
        ):
            consumed += np.ndim(item._data if isinstance(item, Tensor) else item)  # 0-d: none
        elif isinstance(item, bool):
            continue
        else:
            consumed += 1
    if consumed > tensor.ndim:
        if tensor.ndim == 0 and len(items) == 1:
            first = items[0]
            if isinstance(first, slice):
                _check_step(first)  # (torch reads the slice before applying it)
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            if isinstance(first, (int, np.integer)) and not isinstance(first, bool) and first:
                # (torch: only 0 is "invalid"; any other int is out of bounds of a size-0 dim)
                raise IndexError(f"index {int(first)} is out of bounds for dimension 0 with size 0")
            if isinstance(first, (int, np.integer)) and not isinstance(first, bool):
                raise IndexError(
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                )
        raise IndexError(f"too many indices for tensor of dimension {tensor.ndim}")
    marks = sum(1 for item in items if item is Ellipsis)
    if marks:
        # torch expands every ``...`` to the dims the other items leave (so x[..., None, ...]
        # works); whole-dim slices past the last dim are no-ops, an integer there is out of
        # bounds (for a dim of size 0, as torch reports it)
        fill = tensor.ndim - consumed
        expanded = []
        places = []
        for place, item in enumerate(items):
            expanded.extend([_FROM_ELLIPSIS] * fill if item is Ellipsis else [item])
            places.extend([place] * fill if item is Ellipsis else [place])
        excess = consumed + fill * marks - tensor.ndim
        while excess and expanded:
            last = max(k for k, item in enumerate(expanded)
                       if item is not None and item is not _FROM_ELLIPSIS) if any(
                item is not None and item is not _FROM_ELLIPSIS for item in expanded) else -1
            trailing = [k for k, item in enumerate(expanded) if item is _FROM_ELLIPSIS and k > last]
            if not trailing:
                position = tensor.ndim
                for item in expanded:
                    if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                        raise IndexError(f"index {int(item)} is out of bounds for dimension "
                                         f"{position} with size 0")
                raise IndexError(f"too many indices for tensor of dimension {tensor.ndim}")
            del expanded[trailing[-1]]
            del places[trailing[-1]]
            excess -= 1
        items = expanded
        positions[:] = places
    return items


def _index_typename(item) -> str:
    """The type torch names (CPython's tp_name: NumPy's scalars are dotted)."""
    kind = type(item)
    return f"numpy.{kind.__name__}" if kind.__module__ == "numpy" else kind.__name__


def _check_step(item: slice) -> None:
    """torch's errors for a slice step that is not positive (Python's message for 0)."""
    if item.step is not None and item.step <= 0:
        raise ValueError("slice step cannot be zero" if item.step == 0 else
                         "step must be greater than zero")


_FROM_ELLIPSIS = slice(None)  # the whole-dim slices a ``...`` stands for (compared by identity)


def check_index_put(tensor, arrays, values=None, masked: bool = False) -> None:
    """index_put_'s checks with torch's messages (NumPy's say "arrays" and "axis"), in its
    order: the indices broadcast together, the values fit the result and have ``tensor``'s
    dtype (not on the masked_fill_ path, ``masked``: see check_index_put_), the bounds."""
    dim = 0
    for array in arrays:  # (expandTensors: each mask against the dims it covers)
        if array.dtype == np.bool_ and array.ndim:
            covered = tuple(tensor.shape[dim:dim + array.ndim])
            if array.shape != covered:
                j = next((k for k, (x, y) in enumerate(zip(array.shape, covered)) if x != y),
                         len(covered))
                raise IndexError(
                    f"The shape of the mask {list(array.shape)} at index {j} does not match the "
                    f"shape of the indexed tensor {list(tensor.shape)} at index {dim + j}")
        dim += max(array.ndim, 1) if array.dtype == np.bool_ else 1
    _check_index_shapes(list(arrays))
    if values is not None and not masked:
        check_index_put_value(tensor, arrays, values)
    if _writes_nothing(tensor.shape, arrays):  # torch's kernel checks indices as it writes
        return
    dim = 0
    for array in arrays:
        if array.dtype == np.bool_:
            dim += max(array.ndim, 1)
            continue
        check_index_bounds(array, tensor.shape[dim] if dim < tensor.ndim else 0, dim)
        dim += 1


def _writes_nothing(shape: tuple, arrays) -> bool:
    """Whether index_put_ through ``arrays`` (one per leading dim of ``shape``) writes no
    element: the indices broadcast to an empty shape, or a dim they leave is empty."""
    dims = sum(max(a.ndim, 1) if a.dtype == np.bool_ else 1 for a in arrays)
    if 0 in shape[dims:]:
        return True
    sizes = [(int(np.count_nonzero(a)),) if a.dtype == np.bool_ else a.shape for a in arrays]
    try:
        return 0 in np.broadcast_shapes(*sizes)
    except ValueError:
        return False


def check_index_bounds(array: np.ndarray, size: int, dim: int) -> None:
    """An integer index array's bounds (torch's message; NumPy's says "axis"), as a check
    kernel: leafgrad.compile replays it on each call's index values."""

    array_kernel(_index_bounds, array, size=size, dim=dim)


def _index_bounds(array: np.ndarray, size: int, dim: int) -> np.ndarray:
    if array.size and (array.max() >= size or array.min() < -size):
        if not size:  # (torch's own wording for a dim of size 0)
            raise IndexError("index is out of bounds for dimension with size 0")
        bad = int(array.max()) if array.max() >= size else int(array.min())
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    return np.zeros(0, dtype=bool)


_index_bounds.always_runs = True  # leafgrad.compile: a check, never dropped as dead code


_MASK_DTYPES = (np.bool_, np.uint8)


def check_index_put_(tensor, indices: tuple, values, accumulate, inplace: bool = True) -> bool:
    """index_put_'s checks before it reads the indices: their count, then memory overlap
    (``inplace``; index_put writes a clone). Returns whether torch takes the masked_fill_
    path (see check_index_put_overlap)."""
    if len(indices) > tensor.ndim:
        raise IndexError(f"too many indices for tensor of dimension {tensor.ndim} "
                         f"(got {len(indices)})")
    present = [item for item in indices if item is not None]
    mask = present[0] if len(present) == 1 and isinstance(present[0], Tensor) and \
        present[0]._data.dtype in _MASK_DTYPES else None
    if not inplace:
        return mask is not None and not accumulate and isinstance(values, Tensor) \
            and values._data.size == 1
    return check_index_put_overlap(tensor, values, indices, mask, accumulate)


def check_index_put_value(tensor, arrays: tuple, values) -> None:
    """The values broadcast to the indexing result, then have ``tensor``'s dtype."""
    if not isinstance(values, Tensor):
        return
    check_index_put_values(tuple(tensor.shape), tuple(arrays), tuple(values.shape))
    if values.dtype is not tensor.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{tensor.dtype._legacy} for the destination and "
                           f"{values.dtype._legacy} for the source.")



def check_index_put_overlap(tensor, values, indices: tuple, mask=None,
                            accumulate: bool = False) -> bool:
    """index_put_'s memory checks, in torch's order (_index_put_impl_). ``mask`` is the index
    when it is a single bool/uint8 mask (among Nones): with a one-element value, not
    accumulating, torch takes masked_fill_ (and returns True here), which only refuses a mask
    partly overlapping ``tensor`` and casts the value. Otherwise neither the values nor any
    index tensor may share memory with ``tensor``, not even all of it."""
    if not isinstance(values, Tensor):
        return False
    if mask is not None and not accumulate and values._data.size == 1:
        if isinstance(mask, Tensor):
            if mask._data.dtype == np.uint8:  # (masked_fill_ asks for bool before anything)
                raise RuntimeError("masked_fill_ only supports boolean masks, but got mask "
                                   "with dtype unsigned char")
            check_partial_overlap(tensor, mask)
        return True
    check_no_overlap(tensor, values, *indices)
    return False


def getitem(tensor, index):

    index = canonical_index(index)
    if index is Ellipsis or (isinstance(index, tuple) and len(index) == 1
                             and index[0] is Ellipsis):
        return Alias.apply(tensor)
    result, advanced = _split(tensor, index)
    if advanced is None:
        # every item kept its whole dim: torch still returns a new view (AliasBackward0)
        return Alias.apply(tensor) if result is tensor else result
    return keep_index(Index.apply(result, index=advanced), index_tensors(index), "indices")


def index_tensors(index) -> tuple:
    """The tensors among an index's items, which the node saves (Note: saved index tensors)."""
    items = index if isinstance(index, tuple) else (index,)
    return tuple(item for item in items if isinstance(item, Tensor) and _is_advanced(item))


def _split(tensor, index, deferred: list | None = None):
    """Apply the basic part of an index as views (torch's order); return the view and the
    advanced index still to apply to it (None when there is none). With ``deferred`` (setitem),
    the index arrays' bounds checks are appended to it, not run: index_put_ checks the values
    first, and uint8 indices warn only when index_put_ reads them."""

    positions = []
    items = _normalise(tensor, index, positions)
    lone_slice = isinstance(index, slice)  # x[a:b]; in a tuple, whole-dim slices are skipped
    result = tensor
    dim = 0
    advanced = []  # per remaining dim after the basic pass: slice(None) or an index array
    any_advanced = False
    bounds = []  # (index array, dim size, dim), checked once the result is known non-empty
    indexed = 0  # dims indexed by arrays so far: torch's bounds message counts only those
    for place, item in zip(positions, items):
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
                    f"index {position} is out of bounds for dimension {place} with size {size}"
                )
            result = Select.apply(result, dim=dim, index=position % size)  # (in bounds)
        elif isinstance(item, slice):
            size = result.shape[dim]
            _check_step(item)
            # torch skips a slice that keeps the whole dim, unless it is the lone index; it
            # asks of the slice as written (start 0 or none, stop none or >= the size, step 1
            # or none), so x[..., -1:2] of a size-1 dim is still a SliceBackward0 (generated-
            # program seed 36846)
            whole = (item.start is None or int(item.start) == 0) and (
                item.stop is None or int(item.stop) >= size) and (
                item.step is None or int(item.step) == 1)
            start, stop, step = item.indices(size)
            stop = max(stop, start)
            if lone_slice or not whole:
                result = Slice.apply(result, dim=dim, start=start, end=stop, step=step)
                if result._node is not None:
                    result._node._params["as_written"] = item  # (Note: slice bounds as written)
            advanced.append(slice(None))
            dim += 1
        elif _is_advanced(item):
            if deferred is None:
                array = _as_index_array(item)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    array = _as_index_array(item)
            any_advanced = True
            if array.dtype == np.bool_:
                covered = tuple(result.shape[dim:dim + array.ndim])
                if array.ndim and array.shape != covered:
                    j = next((k for k, (x, y) in enumerate(zip(array.shape, covered)) if x != y),
                             len(covered))
                    raise IndexError(
                        f"The shape of the mask {list(array.shape)} at index {j} does not "
                        f"match the shape of the indexed tensor {list(result.shape)} at index "
                        f"{dim + j}")
                advanced.append(array)
                dim += max(array.ndim, 1) if array.ndim else 0
                indexed += max(array.ndim, 1)
                if array.ndim == 0:
                    result = Unsqueeze.apply(result, dim=dim)
                    # torch's boolToIndexingTensor: a 0-d True is the index [0] of the new
                    # dim, a False an empty one (long indices, not a mask: x[True] = v of
                    # another dtype is index_put_'s dtype error, not a masked_fill_)
                    advanced[-1] = np.zeros(1 if array else 0, dtype=np.int64)
                    dim += 1
            else:
                bounds.append((array, result.shape[dim], indexed))
                advanced.append(array)
                dim += 1
                indexed += 1
        elif isinstance(item, (str, bytes)):  # torch makes a tensor of it first
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got " + _index_typename(item) + ")"
            )
    if not any_advanced:
        return result, None
    while advanced and isinstance(advanced[-1], slice):
        advanced.pop()
    _check_index_shapes(advanced)
    if bounds and _indexes_anything(tuple(result.shape), advanced):
        if deferred is not None:
            deferred.extend(bounds)
        else:
            for array, size, dim in bounds:
                check_index_bounds(array, size, dim)
    return result, tuple(advanced)


def _in_bounds(index, shape: tuple):
    """``index`` with its integer arrays clipped into their dims (0 for a dim of size 0, whose
    array is then replaced by an empty slice's worth): only for an empty tensor, whose result is
    empty whatever the index values."""
    if not isinstance(index, tuple):
        index = (index,)
    fixed = []
    dim = 0
    for item in index:
        if isinstance(item, np.ndarray) and item.dtype != np.bool_:
            size = shape[dim]
            fixed.append(np.clip(item, -size, size - 1) if size else np.zeros_like(item))
            dim += 1
        elif isinstance(item, np.ndarray):
            fixed.append(item)
            dim += max(item.ndim, 1)
        else:
            fixed.append(item)
            dim += item is not None
    return tuple(fixed)


def _indexes_anything(shape: tuple, advanced) -> bool:
    """Whether ``x[advanced]`` of a tensor of ``shape`` has any element: torch's index kernels
    check the bounds element by element, so an empty result checks none (generated-program
    seed 95852: ``x[1:-1, None, [3, 0]]`` of a (2, 3, 4) tensor is empty, not an error)."""
    dims = 0
    indices = []
    for item in advanced:
        if isinstance(item, np.ndarray):
            covered = max(item.ndim, 1) if item.dtype == np.bool_ else 1
            if any(size == 0 for size in shape[dims:dims + covered]) and item.dtype == np.bool_:
                return False
            indices.append(item if item.dtype != np.bool_ else item.nonzero()[0])
            dims += covered
        else:
            if shape[dims] == 0:
                return False
            dims += 1
    if any(size == 0 for size in shape[dims:]):
        return False
    return all(size for size in np.broadcast_shapes(*(i.shape for i in indices)))


def _check_index_shapes(advanced: list) -> None:
    """torch's message when the index tensors do not broadcast together (a k-d mask counts as
    k index tensors of its number of True entries, as torch turns it into them)."""
    if len(advanced) < 2:
        return  # one index tensor (or mask of at most 1 dim): nothing to broadcast
    shapes = []
    for item in advanced:
        if isinstance(item, np.ndarray):
            if item.dtype == np.bool_:
                shapes.extend([(int(item.sum()),)] * max(item.ndim, 1))
            else:
                shapes.append(item.shape)
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        listed = ", ".join(str(list(shape)) for shape in shapes)
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         f"shapes {listed}") from None


def _strip_leading_ones(value):
    """torch's slicePrefix1sSize: ``x[index] = value`` first views ``value`` without its leading
    size-1 dims (ViewBackward0 when that changes its shape)."""
    shape = tuple(value.shape)
    start = 0
    while start < len(shape) and shape[start] == 1:
        start += 1
    return value.view(shape[start:]) if start else value


def index_result_shape(shape: tuple, index: tuple) -> tuple:
    """The shape of ``x[index]`` for an ``x`` of ``shape`` (computed on a zero-strided array)."""
    probe = np.lib.stride_tricks.as_strided(np.zeros(1, np.bool_), shape=shape,
                                            strides=(0,) * len(shape))
    # integer indices as zeros: the shape does not depend on them (bounds are checked apart)
    index = tuple(np.zeros(item.shape, np.intp) if isinstance(item, np.ndarray)
                  and item.dtype != np.bool_ else item for item in index)
    return probe[index].shape


def check_index_put_values(shape: tuple, index: tuple, values_shape: tuple) -> tuple:
    """index_put_'s check: the values broadcast to the indexing result (torch's message; NumPy
    says "could not be broadcast" or "cannot assign"). Returns the result's shape."""
    result = index_result_shape(shape, index)
    fits = len(values_shape) <= len(result) and all(
        v in (1, r) for v, r in zip(values_shape[::-1], result[::-1]))
    if not fits:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values_shape)} cannot be "
                           f"broadcast to indexing result of shape {list(result)}")
    return result


@register
class Index(Op):
    """Advanced indexing (a copy, not a view)."""

    node = "IndexBackward0"
    index_saves = {"indices": ()}  # the index tensors (Note: saved index tensors)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.index
    torch_names = ("Tensor.__getitem__", "index_select")
    mask_params = ("index",)
    # a boolean mask batched under vmap: a result size per example, which torch refuses
    vmap_refuses = ("index", "vmap: We do not support batching operators that can support "
                    "dynamic shape. Attempting to batch over indexing with a boolean mask.")

    @staticmethod
    def forward(ctx, a, index):
        if not a.size:  # (an empty result: torch checks no index's bounds, NumPy would)
            index = _in_bounds(index, a.shape)
        out = np.array(a[index], copy=True, order="C")
        if out.ndim > 1 and out.size and not (a.flags.c_contiguous and all(
                item.__class__ is slice or item.ndim <= 1 or item.flags.c_contiguous
                for item in index)):
            return _index_layout(out, a, index)
        return out

    def backward(self, grad):
        return index_backward(grad, self.input_shape(), self._params["index"])

    jvp = auto_linear


def _index_layout(out: np.ndarray, a: np.ndarray, index: tuple) -> np.ndarray:
    """``out`` (row-major) in the order of dims torch's index kernel gives it: TensorIterator
    over the source restrided to the result's shape (its strides on the dims it keeps, 0 on
    the dims the indices replace) and the index tensors (their strides on those dims, 0 on
    the others), in that order (Note: output layout, _layout.py). x.t()[[1, 0]] keeps the
    transposed order of the dims it does not index (generated-program seed 20005270: a
    reshape of such a result was a view here, a copy in torch: UnsafeViewBackward0)."""
    advanced = [k for k, item in enumerate(index) if item.__class__ is not slice]
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1))
    shapes, rows = [], []
    for k in advanced:
        item = index[k]
        if item.dtype == np.bool_:  # torch indexes with mask.nonzero()'s columns
            shapes.append((int(np.count_nonzero(item)),))
        else:
            shapes.append(item.shape)
    replaced = np.broadcast_shapes(*shapes)
    before, after, dim = [], [], 0
    for k, item in enumerate(index):
        width = item.ndim if item.__class__ is not slice and item.dtype == np.bool_ else 1
        if item.__class__ is slice:
            (before if adjacent and k < advanced[0] else after).append(a.strides[dim])
        dim += width
    after.extend(a.strides[dim:])
    place = len(before)
    rows.append(before + [0] * len(replaced) + after)
    for k, shape in zip(advanced, shapes):
        item = index[k]
        if item.dtype == np.bool_:
            strides = (8,) if shape[0] > 1 else (0,)
        else:
            strides = item.strides
        pad = len(replaced) - len(shape)
        # (broadcast to the indices' shape, then reshaped with size-1 dims around it: those
        # keep a stride where the result's dim has size 1 too, as a view's size-1 dims do)
        strides = [0] * pad + list(strides)
        shape = (1,) * pad + tuple(shape)
        outer = shape[0] * strides[0] if shape else 8
        inner = strides[-1] if shape else 8
        full = [outer] * place + strides + [inner] * (out.ndim - place - len(replaced))
        rows.append([0 if size != 1 and (k < place or k >= place + len(replaced)
                                         or shape[k - place] == 1) else stride
                     for k, (size, stride) in enumerate(zip(out.shape, full))])
    order = _layout._iterator_order(out.shape, rows)
    wanted = [0] * out.ndim
    step = out.itemsize
    for dim in order:
        wanted[dim] = step
        step *= out.shape[dim]
    if tuple(wanted) == out.strides:
        return out
    result = np.lib.stride_tricks.as_strided(np.empty(out.size, out.dtype), out.shape,
                                             tuple(wanted))
    np.copyto(result, out)
    return result


def index_backward(grad, input_sizes: tuple, index):
    """torch's index_backward: ``_index_put_impl_(zeros, indices, grad, accumulate=True)``,
    whose node has an edge for the zeros too (None)."""

    zeros = _wrap(array_kernel(zeros_of, grad._data, shape=tuple(input_sizes)))
    result = IndexBackward.apply(zeros, grad, index=index)
    result._bump_version()  # (torch writes the zeros in place: the gradient's _version is 1)
    return result


@register
class IndexBackward(Op):
    """``self`` with ``values`` added at the indexed positions (repeated indices accumulate);
    ``self`` is the zeros of index_backward."""

    node = "IndexPutImplBackward0"
    index_saves = {"indices": ()}  # under create_graph (Note: saved index tensors)
    complex_ok = True
    inputs = ("self", "values")
    torch_names = ("index_put",)

    @staticmethod
    def forward(ctx, a, values, index):
        out = np.array(a, copy=True)
        np.add.at(out, index, values)
        return out

    def backward(self, grad):
        index = self._params["index"]
        return (grad if self.needs_grad(0) else None,
                Index.apply(grad, index=index) if self.needs_grad(1) else None)

    jvp = auto_linear


def _has_advanced(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return any(_is_advanced(item) for item in items)


def setitem(tensor, index, value) -> None:
    """``tensor[index] = value``: basic indices copy into a view (CopySlices when recorded),
    advanced ones use ``index_put_`` (IndexPutBackward0)."""

    if not isinstance(value, Tensor):  # (torch reads the value before the index)
        value = _scalar_tensor(value, tensor)
    index = canonical_index(index)
    if _has_advanced(index):
        # As torch does: the basic part of the index becomes a view (so a write through it is
        # CopySlices on the base), then index_put_ applies the advanced part to that view.
        bounds = []
        view, advanced = _split(tensor, index, bounds)
        arrays = [item for item in advanced if isinstance(item, np.ndarray)]
        masks = [item for item in index_tensors(index) if item._data.dtype in _MASK_DTYPES]
        mask = (masks[0] if masks else arrays[0]) \
            if len(arrays) == 1 and arrays[0].dtype == np.bool_ else None
        value = _strip_leading_ones(value)  # before torch's checks, as its setitem does
        if not check_index_put_overlap(view, value, index_tensors(index), mask):
            if any(item._data.dtype == np.uint8 for item in index_tensors(index)):
                warnings.warn(_UINT8_INDEX, UserWarning, stacklevel=3)
            check_index_put_value(view, advanced, value)
            for array, size, dim in bounds:  # (index_put_'s kernel: after the values' checks)
                check_index_bounds(array, size, dim)
        inplace(IndexPut, view, value, index=advanced)
        keep_index(view, index_tensors(index), "indices")
        return
    if _selects_everything(tensor.shape, index):
        view = tensor  # torch's applySlice returns self for a whole slice: no view, no CopySlices
    else:
        view = getitem(tensor, index)
        if view is tensor:
            view = getitem(tensor, (Ellipsis,))
    _copy_to(view, value)


def _selects_everything(shape: tuple, index) -> bool:
    """Whether a basic index is only Ellipsis and slices that start at 0, step 1 and reach the
    end of their dim (torch's applySlice keeps ``self`` for those: ``x[:] = v`` writes x)."""
    items = index if isinstance(index, tuple) else (index,)
    if any(item is not Ellipsis and not isinstance(item, slice) for item in items):
        return False
    slices = [item for item in items if item is not Ellipsis]
    if len(items) - len(slices) > 1:
        return not slices  # (x[..., ...] = v writes x; slices around two ellipses take a view)
    if len(slices) > len(shape):
        return False  # torch's too-many-indices error comes from the view
    cut = items.index(Ellipsis) if Ellipsis in items else len(items)
    dims = list(range(cut)) + list(range(len(shape) - (len(slices) - cut), len(shape)))
    for dim, item in zip(dims, slices):
        start = 0 if item.start is None else operator.index(item.start)
        step = 1 if item.step is None else operator.index(item.step)
        stop = None if item.stop is None else operator.index(item.stop)
        if start != 0 or step != 1 or stop is not None and stop < shape[dim]:
            return False
    return True


def _copy_to(view, value) -> None:
    """torch's copy_to for ``x[basic index] = value``: copy_ when the shapes are equal, fill_ for
    a 0-d value, else copy_ from value viewed without its leading size-1 dims and expanded."""

    if tuple(view.shape) == tuple(value.shape):
        inplace(Copy, view, value)
    elif value.ndim == 0:
        view.fill_(value)
    else:
        shape = tuple(value.shape)
        start = 0
        while start < len(shape) and shape[start] == 1:
            start += 1
        value = value.view(shape[start:])
        if tuple(value.shape) != tuple(view.shape):
            value = value.expand(view.shape)  # (torch's expand_inplace: setitem's own error)
        inplace(Copy, view, value)


def _scalar_tensor(value, like):
    # torch's setitem takes a tensor or a Python int, float, bool or complex (NumPy integers
    # count as ints; np.float64 and np.complex128 are a float and a complex): not a list, an
    # ndarray, None, np.float32 or np.bool_
    if not isinstance(value, (int, float, complex, np.integer)):
        raise TypeError(f"can't assign a {typename(value)} to a {like.type()}")
    dtype = like._data.dtype
    if isinstance(value, complex):  # torch's checked conversion to the tensor's dtype
        from .._functions_more import check_fill_value

        value = check_fill_value(like, value, setitem=True)
    else:
        value = check_scalar_write(value, like.dtype, setitem=True)  # (Note: checked scalar
        # writes, _construct.py)
    if dtype.kind == "u":  # uint16/32/64: torch's fill conversion (-1 wraps, NaN raises)
        value = unsigned_fill(value, dtype)
    with np.errstate(over="ignore"):  # (a float16 gets inf, as torch's)
        result = _wrap(np.asarray(value, dtype=dtype))
    if _capture.active:  # made from a Python number: a constant of a leafgrad.compile capture
        _capture.tracer.created_tensor(result)
    return result


@register
class IndexPut(Op):
    """``self[index] = values`` (index_put_): the overwritten entries get no gradient."""

    node = "IndexPutBackward0"
    overlap_writes = ("index_put_", "indices", "tensor")  # (Note: writes through expanded
    # tensors, ops/inplace.py)
    index_saves = {"indices": ()}  # the index tensors (Note: saved index tensors)
    uint_kernel = staticmethod(_uint.index_put_kernel)
    complex_ok = True
    vmap = batch.index_put
    inputs = ("self", "values")
    torch_names = ("index_put_", "Tensor.__setitem__")

    @staticmethod
    def forward(ctx, a, values, index, accumulate=False):
        shape = check_index_put_values(a.shape, index, values.shape)
        out = a.copy()
        if 0 in shape:  # no element written: torch's kernel checks no index (and NumPy would)
            return out
        if values.shape != shape:  # NumPy's boolean assignment takes no broadcasting value
            values = np.broadcast_to(values, shape)
        if accumulate:
            np.add.at(out, index, values)
        else:
            out[index] = values
        return out

    def backward(self, grad):
        index = self._params["index"]
        accumulate = self._params.get("accumulate", False)
        grad_self = grad_values = None
        if self.needs_grad(0):
            grad_self = grad if accumulate else IndexPut.apply(grad, grad.new_zeros(()),
                                                               index=index)
        if self.needs_grad(1):

            grad_values = _sum_to(Index.apply(grad, index=index), self.input_shape(1))
        return grad_self, grad_values

    jvp = auto_linear
