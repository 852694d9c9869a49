"""``leafgrad.asarray`` and ``leafgrad.frombuffer``: tensors over existing memory (a tensor, a
NumPy array, any object with the buffer protocol) where torch shares it, copies where it must.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _argparse, _dtype
from ._alloc import share_with_numpy
from ._creation import INT_REQUIRES_GRAD, _finish, copied, numpy_source
from .tensor import Tensor, _wrap

__all__ = ["asarray", "frombuffer"]

_WARNED = {"requires_grad": False, "read_only": False}  # torch's once-per-process warnings
_READ_ONLY = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
    "means you can write to the underlying (supposedly non-writable) buffer using the tensor. "
    "You may want to copy the buffer to protect its data or make it writable before converting "
    "it to a tensor. This type of warning will be suppressed for the rest of this program.")


def frombuffer(buffer, *args, dtype=None, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor over the bytes of ``buffer`` (bytes, bytearray, memoryview, array.array,
    ...), sharing its memory: ``count`` elements of ``dtype`` from byte ``offset`` (-1: all).

    >>> leafgrad.frombuffer(bytearray(b"\\x01\\x00\\x02\\x00"), dtype=leafgrad.int16)
    tensor([1, 2], dtype=torch.int16)
    """
    if args:  # torch's parser words it so: dtype and the rest are keyword-only
        raise TypeError(f"frombuffer() takes from 2 to 1 positional arguments but "
                        f"{len(args) + 1} were given")
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    dtype = _argparse.dtype_arg("frombuffer", dtype)
    for name, value in (("count", count), ("offset", offset)):
        if not _argparse._is_int(value):
            raise TypeError(f"frombuffer(): argument '{name}' must be int, not "
                            f"{_argparse.typename(value)}")
    return _from_buffer(buffer, dtype, int(count), int(offset), requires_grad)


def _from_buffer(buffer, dtype, count: int, offset: int, requires_grad) -> Tensor:
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length = view.nbytes
    size = np.dtype(dtype.np).itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) "
                         f"must be a multiple of element size ({size})")
    if count < 0:
        count = (length - offset) // size
    if offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    if requires_grad and np.dtype(dtype.np).kind not in "fc":
        raise RuntimeError(INT_REQUIRES_GRAD)
    if view.readonly and not _WARNED["read_only"]:
        _WARNED["read_only"] = True
        warnings.warn(_READ_ONLY, UserWarning, stacklevel=3)
    raw = view.cast("B") if view.ndim != 1 or view.format != "B" else view
    array = np.frombuffer(raw, dtype=dtype.np, count=count, offset=offset)
    return _finish(array, bool(requires_grad), shares=True)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """``obj`` as a tensor, sharing memory when it can (a tensor of the right dtype is returned
    itself; NumPy arrays and buffers are wrapped) unless ``copy=True``; ``copy=False`` refuses
    to copy.

    >>> t = leafgrad.ones(2)
    >>> leafgrad.asarray(t) is t
    True
    """
    dtype = _argparse.dtype_arg("asarray", dtype)
    for name, value in (("copy", copy), ("requires_grad", requires_grad)):
        if value is not None and not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"asarray(): argument '{name}' must be bool, not "
                            f"{_argparse.typename(value)}")
    if device is not None:
        from ._device import use

        use(device)
    if isinstance(obj, Tensor):
        return _from_tensor(obj, dtype, copy, requires_grad)
    if isinstance(obj, (np.ndarray, np.generic)):
        # (torch warns of a read-only array only when the tensor will alias it)
        aliased = isinstance(obj, np.ndarray) and not copy and (
            dtype is None or dtype.np == obj.dtype)
        array = numpy_source(np.asarray(obj), aliased)
        tensor = _wrap(array)
        if dtype is not None and dtype.np != array.dtype:
            if copy is False:
                raise _alias_error(_dtype.from_numpy_dtype(array.dtype), dtype)
            tensor = _wrap(copied(array, dtype.np, isinstance(obj, np.ndarray)))
        elif copy:
            tensor = _wrap(copied(array, None, isinstance(obj, np.ndarray)))
        if tensor._data is array:
            share_with_numpy(array)
        return _finish(tensor._data, bool(requires_grad), shares=tensor._data is array)
    if _has_buffer(obj):
        tensor = _from_buffer(obj, dtype or _dtype.get_default_dtype(), -1, 0, False)
        if copy:
            tensor = _wrap(tensor._data.copy())
        return _finish(tensor._data, bool(requires_grad), shares=not copy)
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    from ._creation import tensor as new_tensor

    return new_tensor(obj, dtype=dtype, requires_grad=bool(requires_grad))


def _has_buffer(obj) -> bool:
    if isinstance(obj, (str, int, float, complex, bool)) or obj is None:
        return False
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _alias_error(have, want) -> ValueError:
    return ValueError(f"can't alias tensor with dtype '{have._legacy}' into dtype "
                      f"'{want._legacy}'.")


def _from_tensor(obj: Tensor, dtype, copy, requires_grad) -> Tensor:
    """torch's rules: copy when asked or when the dtype differs (unless copy=False, which then
    refuses); then requires_grad, when given, is set on a leaf (the same object when nothing
    was copied), or detaches a non-leaf asked not to require grad."""
    tensor = obj
    wrong_dtype = dtype is not None and dtype is not tensor.dtype
    if copy or (copy is None and wrong_dtype):
        tensor = tensor.to(dtype) if wrong_dtype else tensor.clone()
    elif wrong_dtype:
        raise _alias_error(tensor.dtype, dtype)
    if requires_grad is None:
        if obj.requires_grad and not _WARNED["requires_grad"]:
            _WARNED["requires_grad"] = True
            warnings.warn(
                "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad "
                "instead of False. Pass requires_grad=False explicitly to get the old behavior "
                "and silence this warning.", UserWarning, stacklevel=3)
        return tensor
    if requires_grad and _dtype.kind(tensor._data) not in "fc":
        raise RuntimeError(INT_REQUIRES_GRAD)
    if tensor.is_leaf:
        return tensor._set_requires_grad(bool(requires_grad))
    return tensor if requires_grad else tensor.detach()
