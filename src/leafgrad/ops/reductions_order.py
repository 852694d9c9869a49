"""Order-based reductions: sort, topk, kthvalue, median, nanmedian, mode.

Note: ties. These ops return indices, and their gradient goes to those indices, so which of
several equal values is picked must be torch's pick. torch's CPU kernels decide it with
libstdc++'s std::sort / std::nth_element / std::partial_sort (sort, topk, mode), its own
quickselect (kthvalue) or an index tie-break (median). Rows without ties have one right answer
and take a vectorised NumPy path; rows with ties replay torch's algorithm (``_ordering``).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _argparse
from . import _layout, _ordering, return_types
from .reductions import (
    MultiOutput, evenly_distribute, evenly_read_jvp, gather_at_indices, one_dim, select_backward,
)
from . import _batching_rules as batch
from . import _uint
from .registry import Op, register
from . import _inference_writes as _writes

# -- rows: the reduced dim moved last, everything else flattened ----------------------------------


def _as_rows(a: np.ndarray, dim: int) -> tuple:
    moved = np.moveaxis(a, dim, -1)
    return moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1]), moved.shape


def _from_rows(rows: np.ndarray, moved_shape: tuple, dim: int, keepdim: bool = True):
    """Rows back to the input's layout; the last axis (size 1 when reduced) goes back to dim."""
    out = np.moveaxis(rows.reshape(moved_shape[:-1] + (rows.shape[1],)), -1, dim)
    return (out if keepdim else out.squeeze(dim)).copy()  # C order (not ascontiguousarray: 0-d)


def _tied_rows(rows: np.ndarray) -> np.ndarray:
    """Which rows hold two equal values (NaNs count as equal to each other, as in torch)."""
    if rows.shape[1] < 2:
        return np.zeros(rows.shape[0], bool)
    ordered = np.sort(rows, axis=1)
    tied = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    if rows.dtype.kind == "f":
        tied |= np.isnan(rows).sum(axis=1) >= 2
    return tied


def _stable_order(rows: np.ndarray, descending: bool) -> np.ndarray:
    """Stable argsort per row with NaN above every number (last ascending, first descending)."""
    if not descending:
        return np.argsort(rows, axis=1, kind="stable")
    # Sorting the reversed row ascending and reversing back keeps equal values in input order.
    size = rows.shape[1]
    return (size - 1 - np.argsort(rows[:, ::-1], axis=1, kind="stable"))[:, ::-1]


def _items(row: np.ndarray) -> list:
    return list(zip(_ordering.ranks(row), range(len(row))))


def _less(descending: bool):
    return (lambda x, y: x[0] > y[0]) if descending else (lambda x, y: x[0] < y[0])


def _value_indices_backward(node, grads, keepdim: bool):
    if grads[0] is None:
        return None
    return select_backward(grads[0], node._params["dim"], node.saved("indices"),
                           node.input_shape(), keepdim)


class _Selecting(MultiOutput):
    """Ops returning (values, int64 indices) whose gradient goes to the indexed entries."""

    saves = {"indices": ("self",)}
    keeps_dim = False  # sort and topk keep the reduced dim; the others follow ``keepdim``

    def backward(self, grads):
        keepdim = self.keeps_dim or self._params.get("keepdim", False)
        return _value_indices_backward(self, grads, keepdim)

    def jvp(self, tangents, primals, result):
        # torch's gather_with_keepdimed_indices: the tangent at the selected indices
        keepdim = self.keeps_dim or self._params.get("keepdim", False)
        dim = self._params["dim"]
        return gather_at_indices(tangents[0], dim, result[1]._data, keepdim), None


def _scalar_result(ctx, a: np.ndarray) -> tuple:
    indices = np.zeros((), np.int64)
    if ctx is not None:
        ctx.keep("indices", indices)
    return a.copy(), indices


def _finish(ctx, rows, order, moved_shape, dim, keepdim=True) -> tuple:
    values = np.take_along_axis(rows, order, 1)
    indices = _from_rows(order.astype(np.int64), moved_shape, dim, keepdim)
    if ctx is not None:
        ctx.keep("indices", indices)
    return _from_rows(values, moved_shape, dim, keepdim), indices


def _check_nonempty_dim(name: str, a: np.ndarray, dim: int) -> None:
    if a.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def _not_for_bool(a: np.ndarray, kernel: str) -> None:
    if a.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


# -- sort -----------------------------------------------------------------------------------------


def _sort_row(row: np.ndarray, descending: bool) -> list:
    items = _items(row)
    _ordering.sort(items, _less(descending))
    return [index for _, index in items]


@register
class Sort(_Selecting):
    node = "SortBackward0"
    inference_writes = (1, 1)  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = ' Sort does not support complex dtypes on CPU'
    complex_error_type = "RuntimeError"
    vmap = batch.dims("dim")
    keeps_dim = True
    torch_names = ("sort", "argsort", "msort")

    @staticmethod
    def forward(ctx, a, dim, descending=False, stable=False):
        if a.ndim == 0:
            return _scalar_result(ctx, a)
        size = a.shape[dim]
        rows, moved_shape = _as_rows(a, dim)
        if size > 1 and a.strides[dim] == 0:
            # torch skips sorting an expanded (stride 0) dim: the indices stay 0..n-1.
            order = np.broadcast_to(np.arange(size), rows.shape)
        else:
            order = _stable_order(rows, descending)
            if not stable:
                for r in np.flatnonzero(_tied_rows(rows)):
                    order[r] = _sort_row(rows[r], descending)
        values, indices = _finish(ctx, rows, order, moved_shape, dim)
        return _layout.like(values, a), _layout.like(indices, a)


@register
class SortStable(Sort):
    node = "SortBackward1"  # torch's node for sort(stable=...) given as a keyword
    vmap = batch.dims("dim")
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    torch_names = ("sort",)


def sort(tensor, dim=-1, descending=False, stable=None):
    op = Sort if stable is None else SortStable
    values, indices = op.apply(tensor, dim=one_dim(dim, tensor.ndim, "sort"),
                               descending=bool(descending), stable=bool(stable))
    return return_types.sort((values, indices))


def argsort(tensor, dim=-1, descending=False, stable=False):
    return sort(tensor, dim, descending, stable).indices


def msort(tensor):
    return sort(tensor, 0).values


# -- topk -----------------------------------------------------------------------------------------


def _topk_row(row: np.ndarray, k: int, largest: bool, ordered: bool) -> list:
    items = _items(row)
    less = _less(largest)
    if k * 64 <= len(items):
        _ordering.partial_sort(items, k, less)
    else:
        _ordering.nth_element(items, k - 1, less)
        if ordered:
            _ordering.sort_range(items, 0, k - 1, less)
    return [index for _, index in items[:k]]


@register
class Topk(_Selecting):
    node = "TopkBackward0"
    uint_kernel = staticmethod(_uint.unless_trivial("topk_cpu", empty=False))
    complex_message = ' topk does not support complex dtypes on CPU'
    complex_error_type = "RuntimeError"
    vmap = batch.dims("dim")
    keeps_dim = True
    torch_names = ("topk",)

    @staticmethod
    def forward(ctx, a, k, dim, largest=True, sorted=True):  # noqa: A002 - torch's name
        if not 0 <= k <= (a.shape[dim] if a.ndim else 1):  # (torch checks k first)
            raise RuntimeError("selected index k out of range")
        if a.dtype == np.bool_:
            raise RuntimeError("topk does not support bool dtypes on CPU")
        if a.ndim == 0:
            return _scalar_result(ctx, a)
        size = a.shape[dim]
        rows, moved_shape = _as_rows(a, dim)
        order = _stable_order(rows, largest)[:, :k]
        if k:
            # Unsorted results come in the order nth_element leaves: replay it for every row.
            replay = _tied_rows(rows) | (not sorted and k * 64 > size)
            for r in np.flatnonzero(replay):
                order[r] = _topk_row(rows[r], k, largest, sorted)
        return _finish(ctx, rows, order, moved_shape, dim)


def topk(tensor, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    values, indices = Topk.apply(tensor, k=int(k), dim=one_dim(dim, tensor.ndim, "topk"),
                                 largest=bool(largest), sorted=bool(sorted))
    return return_types.topk((values, indices))


# -- kthvalue -------------------------------------------------------------------------------------


def _kth_row(row: np.ndarray, k: int) -> int:
    values, indices = _ordering.ranks(row), list(range(len(row)))
    _ordering.quick_select(values, indices, k - 1, lambda x, y: x > y)
    return indices[k - 1]


@register
class KthvalueOp(_Selecting):
    node = "KthvalueBackward0"
    inference_writes = (1, 1)  # Note: kernels' writes on inference operands
    uint_kernel = staticmethod(_uint.unless_trivial("kthvalue_cpu"))
    vmap = batch.dims("dim")
    torch_names = ("kthvalue",)

    @staticmethod
    def forward(ctx, a, k, dim, keepdim=False):
        # (torch's order: the empty dim, k's range, then the dtype's kernel)
        if a.ndim == 0:
            if k != 1:
                raise RuntimeError("kthvalue(): selected number k out of range for dimension 0")
            return _scalar_result(ctx, a)  # (a copy: no kernel, so a bool one is fine too)
        _check_nonempty_dim("kthvalue", a, dim)
        if not 1 <= k <= a.shape[dim]:
            raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
        _not_for_bool(a, "kthvalue_cpu")
        rows, moved_shape = _as_rows(a, dim)
        order = _stable_order(rows, False)[:, k - 1:k].copy()
        for r in np.flatnonzero(_tied_rows(rows)):
            order[r, 0] = _kth_row(rows[r], k)
        return _finish(ctx, rows, order, moved_shape, dim, keepdim)


def kthvalue(tensor, k, dim=-1, keepdim=False):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("kthvalue", keepdim)
    if k.__class__ is not int:  # (the decorated callers give torch's parser error)
        k = _argparse.int_arg("kthvalue", "k", k)
    values, indices = KthvalueOp.apply(tensor, k=k, dim=one_dim(dim, tensor.ndim, "kthvalue"),
                                       keepdim=keepdim)
    return return_types.kthvalue((values, indices))


# -- median / nanmedian ---------------------------------------------------------------------------


def _lower_median(values: np.ndarray):
    middle = (values.size - 1) // 2
    return np.partition(values, middle)[middle]


class _MedianAll(Op):
    """The lower median of every element (NaN if any is NaN, unless ``skip_nan``)."""

    saves = {"self": ("self",), "result": ("self",)}
    skip_nan = False

    @classmethod
    def forward(cls, ctx, a):
        _not_for_bool(a, "median_cpu")
        flat = a.reshape(-1)
        if a.dtype.kind == "f":
            nan = np.isnan(flat)
            if cls.skip_nan:
                flat = flat[~nan]
            elif nan.any():
                return np.array(np.nan, dtype=a.dtype)
            if flat.size == 0:
                return np.array(np.nan, dtype=a.dtype)
        elif flat.size == 0:
            return np.array(np.iinfo(a.dtype).min, dtype=a.dtype)  # torch's NaN cast to int
        return np.asarray(_lower_median(flat))

    def backward(self, grad):
        return evenly_distribute(grad, self.saved("self"), self.saved("result"))

    def jvp(self, tangents, primals, result):
        return evenly_read_jvp(tangents[0], primals[0], result)


@register
class MedianAll(_MedianAll):
    node = "MedianBackward0"
    vmap = batch.reduce_all("MedianDim")
    torch_names = ("median",)


@register
class NanmedianAll(_MedianAll):
    node = "NanmedianBackward0"
    complex_message = '"median_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.reduce_all("NanmedianDim")
    torch_names = ("nanmedian",)
    skip_nan = True


class _MedianDim(_Selecting):
    """Median along dim. Equal values are ordered by index (torch's comparator), so the pick is
    the stable-sorted middle. median returns the first NaN of a row that has one; nanmedian
    skips NaNs, and on an all-NaN row returns what nth_element leaves first."""

    skip_nan = False

    @classmethod
    def forward(cls, ctx, a, dim, keepdim=False):
        _not_for_bool(a, "median_out")
        if a.ndim == 0:
            return _scalar_result(ctx, a)
        _check_nonempty_dim("median", a, dim)
        rows, moved_shape = _as_rows(a, dim)
        size = rows.shape[1]
        order = _stable_order(rows, False)
        nan = np.isnan(rows) if rows.dtype.kind == "f" else np.zeros(rows.shape, bool)
        if cls.skip_nan:
            middle = np.maximum(size - nan.sum(axis=1) - 1, 0) // 2  # C++ rounds -1 / 2 to 0
            picked = order[np.arange(rows.shape[0]), middle]
            for r in np.flatnonzero(nan.all(axis=1)):
                items = list(range(size))
                _ordering.nth_element(items, 0, lambda x, y: False)  # all NaN: all equivalent
                picked[r] = items[0]
        else:
            picked = order[:, (size - 1) // 2].copy()
            with_nan = nan.any(axis=1)
            picked[with_nan] = np.argmax(nan[with_nan], axis=1)
        return _finish(ctx, rows, picked[:, None], moved_shape, dim, keepdim)


@register
class MedianDim(_MedianDim):
    node = "MedianBackward1"
    inference_writes = (1, 1)  # Note: kernels' writes on inference operands
    complex_message = '"median_out" not implemented for \'ComplexFloat\''
    vmap = batch.dims("dim")
    torch_names = ("median",)


@register
class NanmedianDim(_MedianDim):
    node = "NanmedianBackward1"
    inference_writes = (1, 1)  # Note: kernels' writes on inference operands
    complex_message = '"median_out" not implemented for \'ComplexFloat\''
    vmap = batch.dims("dim")
    torch_names = ("nanmedian",)
    skip_nan = True


def _median(all_op, dim_op, result_type, tensor, dim, keepdim):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim(result_type.__name__, keepdim)
    if dim is None:
        return all_op.apply(tensor)
    name = "nanmedian" if all_op is NanmedianAll else "median"
    values, indices = dim_op.apply(tensor, dim=one_dim(dim, tensor.ndim, name),
                                   keepdim=keepdim)
    return result_type((values, indices))


def median(tensor, dim=None, keepdim=False):
    return _median(MedianAll, MedianDim, return_types.median, tensor, dim, keepdim)


def nanmedian(tensor, dim=None, keepdim=False):
    return _median(NanmedianAll, NanmedianDim, return_types.nanmedian, tensor, dim, keepdim)


# -- mode -----------------------------------------------------------------------------------------


def _mode_row(row: np.ndarray) -> int:
    """torch's mode kernel: std::sort by value, then the first longest run's last index."""
    has_nan = row.dtype.kind == "f" and np.isnan(row).any()
    # With NaNs the C++ compares raw floats (NaN is neither < nor > anything); replay that.
    keys = row.tolist() if has_nan else _ordering.ranks(row)
    items = list(zip(keys, range(len(keys))))
    _ordering.sort(items, lambda x, y: x[0] < y[0])
    best_index, best_count, count = 0, 0, 0
    for i, (key, index) in enumerate(items):
        count += 1
        if i == len(items) - 1 or key != items[i + 1][0]:
            if count > best_count:
                best_index, best_count = index, count
            count = 0
    return best_index


@register
class Mode(_Selecting):
    node = "ModeBackward0"
    inference_writes = staticmethod(_writes.mode_values)
    uint_kernel = staticmethod(_uint.unless_trivial("mode_cpu"))
    vmap = batch.dims("dim")
    torch_names = ("mode",)

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        if a.ndim == 0:
            return _scalar_result(ctx, a)
        _check_nonempty_dim("mode", a, dim)
        rows, moved_shape = _as_rows(a, dim)
        # All values distinct: every run has length 1 and the smallest value wins.
        picked = np.argmin(rows, axis=1)
        replay = _tied_rows(rows)
        if rows.dtype.kind == "f":
            replay |= np.isnan(rows).any(axis=1)
        for r in np.flatnonzero(replay):
            picked[r] = _mode_row(rows[r])
        return _finish(ctx, rows, picked[:, None], moved_shape, dim, keepdim)


def mode(tensor, dim=-1, keepdim=False):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("mode", keepdim)
    values, indices = Mode.apply(tensor, dim=one_dim(dim, tensor.ndim, "mode"), keepdim=keepdim)
    return return_types.mode((values, indices))
