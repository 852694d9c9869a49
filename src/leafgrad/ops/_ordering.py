"""The selection and sorting algorithms torch's CPU kernels run, so that ties break as in torch.

torch's ``sort`` (not stable), ``topk``, ``mode`` and ``kthvalue`` return *indices*, and among
equal values which index comes first is decided by the algorithm: libstdc++'s introsort,
introselect and heap routines (``std::sort``, ``std::nth_element``, ``std::partial_sort``) and
torch's own quickselect (``quick_select_template`` in aten/src/ATen/native/Sorting.cpp). The
gradient of those ops flows to the returned indices, so matching torch's gradient means
reproducing these algorithms step by step. The ops only call in here for rows that contain ties;
without ties every correct algorithm gives the same answer and NumPy's is used.

Every function works in place on a list ``v`` of items and takes ``less(a, b)``, the strict
comparison the C++ code was given. Positions are list indices (the C++ iterators).
"""

from __future__ import annotations

from typing import Callable, Sequence

Less = Callable[[object, object], bool]
_THRESHOLD = 16  # libstdc++'s _S_threshold: ranges this short are left to insertion sort


def _lg(n: int) -> int:
    return n.bit_length() - 1


# -- heap (bits/stl_heap.h) -----------------------------------------------------------------------


def _push_heap(v: list, first: int, hole: int, top: int, value, less: Less) -> None:
    parent = (hole - 1) // 2
    while hole > top and less(v[first + parent], value):
        v[first + hole] = v[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = value


def _adjust_heap(v: list, first: int, hole: int, length: int, value, less: Less) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(v[first + child], v[first + child - 1]):
            child -= 1
        v[first + hole] = v[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        hole = child - 1
    _push_heap(v, first, hole, top, value, less)


def _make_heap(v: list, first: int, last: int, less: Less) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(v, first, parent, length, v[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(v: list, first: int, last: int, result: int, less: Less) -> None:
    value = v[result]
    v[result] = v[first]
    _adjust_heap(v, first, 0, last - first, value, less)


def _heap_select(v: list, first: int, middle: int, last: int, less: Less) -> None:
    _make_heap(v, first, middle, less)
    for i in range(middle, last):
        if less(v[i], v[first]):
            _pop_heap(v, first, middle, i, less)


def _sort_heap(v: list, first: int, last: int, less: Less) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(v, first, last, last, less)


# -- introsort / introselect (bits/stl_algo.h) ----------------------------------------------------


def _move_median_to_first(v: list, result: int, a: int, b: int, c: int, less: Less) -> None:
    if less(v[a], v[b]):
        if less(v[b], v[c]):
            pick = b
        elif less(v[a], v[c]):
            pick = c
        else:
            pick = a
    elif less(v[a], v[c]):
        pick = a
    elif less(v[b], v[c]):
        pick = c
    else:
        pick = b
    v[result], v[pick] = v[pick], v[result]


def _unguarded_partition(v: list, first: int, last: int, pivot: int, less: Less) -> int:
    while True:
        while less(v[first], v[pivot]):
            first += 1
        last -= 1
        while less(v[pivot], v[last]):
            last -= 1
        if not first < last:
            return first
        v[first], v[last] = v[last], v[first]
        first += 1


def _unguarded_partition_pivot(v: list, first: int, last: int, less: Less) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(v, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(v, first + 1, last, first, less)


def _unguarded_linear_insert(v: list, last: int, less: Less) -> None:
    value = v[last]
    prev = last - 1
    while less(value, v[prev]):
        v[last] = v[prev]
        last = prev
        prev -= 1
    v[last] = value


def _insertion_sort(v: list, first: int, last: int, less: Less) -> None:
    if first == last:
        return
    for i in range(first + 1, last):
        if less(v[i], v[first]):
            value = v[i]
            v[first + 1:i + 1] = v[first:i]
            v[first] = value
        else:
            _unguarded_linear_insert(v, i, less)


def _final_insertion_sort(v: list, first: int, last: int, less: Less) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(v, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(v, i, less)
    else:
        _insertion_sort(v, first, last, less)


def _introsort_loop(v: list, first: int, last: int, depth: int, less: Less) -> None:
    # The C++ recurses on [cut, last) and loops on [first, cut). The two parts are disjoint, so
    # the order they are processed in does not change the result; a stack replaces recursion.
    stack = [(first, last, depth)]
    while stack:
        first, last, depth = stack.pop()
        while last - first > _THRESHOLD:
            if depth == 0:
                _heap_select(v, first, last, last, less)  # __partial_sort(first, last, last)
                _sort_heap(v, first, last, less)
                break
            depth -= 1
            cut = _unguarded_partition_pivot(v, first, last, less)
            stack.append((cut, last, depth))
            last = cut


def sort(v: list, less: Less) -> None:
    """``std::sort(v.begin(), v.end(), less)`` as libstdc++ does it."""
    if len(v) > 1:
        _introsort_loop(v, 0, len(v), _lg(len(v)) * 2, less)
        _final_insertion_sort(v, 0, len(v), less)


def sort_range(v: list, first: int, last: int, less: Less) -> None:
    """``std::sort(v.begin() + first, v.begin() + last, less)``."""
    if last - first > 1:
        _introsort_loop(v, first, last, _lg(last - first) * 2, less)
        _final_insertion_sort(v, first, last, less)


def nth_element(v: list, nth: int, less: Less) -> None:
    """``std::nth_element(v.begin(), v.begin() + nth, v.end(), less)``."""
    first, last = 0, len(v)
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(v, first, nth + 1, last, less)
            v[first], v[nth] = v[nth], v[first]
            return
        depth -= 1
        cut = _unguarded_partition_pivot(v, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, first, last, less)


def partial_sort(v: list, middle: int, less: Less) -> None:
    """``std::partial_sort(v.begin(), v.begin() + middle, v.end(), less)``."""
    _heap_select(v, 0, middle, len(v), less)
    _sort_heap(v, 0, middle, less)


# -- torch's quickselect (kthvalue) ---------------------------------------------------------------


def quick_select(values: list, indices: list, k: int,
                 gt_or_nan: Callable[[object, object], bool]) -> None:
    """torch's ``quick_select_template``: puts the k-th element (0-based) at position ``k``."""

    def swap(i: int, j: int) -> None:
        values[i], values[j] = values[j], values[i]
        indices[i], indices[j] = indices[j], indices[i]

    left, right = 0, len(values) - 1
    while True:
        if right <= left:
            return
        if right == left + 1:
            if gt_or_nan(values[left], values[right]):
                swap(left, right)
            return
        swap((left + right) >> 1, left + 1)
        if gt_or_nan(values[left + 1], values[right]):
            swap(left + 1, right)
        if gt_or_nan(values[left], values[right]):
            swap(left, right)
        if gt_or_nan(values[left + 1], values[left]):
            swap(left + 1, left)
        i, j = left + 1, right
        pivot = values[left]
        while True:
            i += 1
            while gt_or_nan(pivot, values[i]):
                i += 1
            j -= 1
            while gt_or_nan(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1


def ranks(row: Sequence[float]) -> list:
    """Dense integer ranks of a row's values; every NaN gets one rank above all numbers.

    torch's comparators treat NaNs as equal to each other and above every number, and equal
    numbers as ties; comparing ranks gives the same answers faster than comparing floats.
    """
    import numpy as np

    row = np.asarray(row)
    if row.dtype.kind == "f":
        nan = np.isnan(row)
        finite = np.where(nan, 0, row)
    else:
        nan = np.zeros(row.shape, bool)
        finite = row
    _, inverse = np.unique(finite, return_inverse=True)
    inverse = inverse.reshape(row.shape).astype(np.int64)
    if nan.any():
        inverse[nan] = inverse.max() + 1 if row.size else 0
    return inverse.tolist()
