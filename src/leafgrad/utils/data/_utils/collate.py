"""``default_collate`` (a list of samples -> one batch) and ``default_convert``, with torch's
rules per element type; ``collate`` with a ``collate_fn_map`` registry (element type -> function)
is the extension point torch documents, and ``default_collate`` is ``collate`` with
``default_collate_fn_map``.

>>> collate([{"a": 1}, {"a": 2}], collate_fn_map=default_collate_fn_map)
{'a': tensor([1, 2])}
"""

from __future__ import annotations

import collections.abc
import copy
import re
from typing import Callable

import numpy as np

from .... import _dtype
from ...._creation import as_tensor, tensor
from ...._functions import stack
from ...._layouts import strided
from ....tensor import Tensor
from .worker import get_worker_info

__all__ = ["collate", "collate_float_fn", "collate_int_fn", "collate_numpy_array_fn",
           "collate_numpy_scalar_fn", "collate_str_fn", "collate_tensor_fn", "default_collate",
           "default_collate_fn_map", "default_collate_err_msg_format", "default_convert"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
    "found {}")


def default_convert(data):
    """NumPy arrays and scalars to tensors, recursively through mappings and sequences
    (mutable containers are copied with ``copy.copy`` and refilled, so their type and extra
    state survive, as in torch)."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if (elem_type.__name__ == "ndarray"
                and np_str_obj_array_pattern.search(data.dtype.str) is not None):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate ``batch``: the function registered in ``collate_fn_map`` for the first element's
    type (exact type first, then the first key it is an instance of), else recurse into
    mappings, namedtuples and sequences."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    def inner(samples):
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: inner([d[key] for d in batch]) for key in elem})
                return clone
            return elem_type({key: inner([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: inner([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(inner(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [inner(samples) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = inner(samples)
                return clone
            return elem_type([inner(samples) for samples in transposed])
        except TypeError:
            return [inner(samples) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map: dict | None = None):
    """Stack along a new first dim; inside a worker the batch is in shared memory, as torch's
    worker processes put it (``is_shared()`` is True)."""
    elem = batch[0]
    if elem.is_nested:
        raise RuntimeError(
            "Batches of nested tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately.")
    if elem.layout is not strided:
        raise RuntimeError(
            "Batches of sparse tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately.")
    out = stack(batch, 0)
    if get_worker_info() is not None:
        out.share_memory_()
    return out


def collate_numpy_array_fn(batch, *, collate_fn_map: dict | None = None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map: dict | None = None):
    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map: dict | None = None):
    return tensor(batch, dtype=_dtype.float64)


def collate_int_fn(batch, *, collate_fn_map: dict | None = None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map: dict | None = None):
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack tensors (and arrays, numbers) along a new first dim; recurse into dicts,
    namedtuples and sequences (``collate`` with ``default_collate_fn_map``).

    >>> default_collate([(1, 2.0), (3, 4.0)])
    [tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
