"""Minimal ``TypedStorage``/``UntypedStorage``: what ``t.storage()`` and ``t.untyped_storage()``
give old code to inspect (size, bytes, element values, the data pointer shared by views).

Scope (decided for leafgrad): read access only. A storage is a flat view of the NumPy buffer
behind the tensor and its views, so ``data_ptr()`` compares as in torch and values are live;
writing through a storage, resizing it, sharing memory or building tensors from a storage are
not provided.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _dtype

__all__ = ["TypedStorage", "UntypedStorage"]

_TYPED_DEPRECATED = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
    "only storage class. This should only matter to you if you are using storages directly.  To "
    "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")


def _root(array: np.ndarray) -> np.ndarray:
    root = array
    while True:
        base = root.base
        if not isinstance(base, np.ndarray):
            # np.lib.stride_tricks.as_strided (unfold, as_strided) puts a DummyArray holding
            # the viewed array between the two
            base = getattr(base, "base", None)
            if not isinstance(base, np.ndarray):
                return root
        root = base


def _buffer(array: np.ndarray) -> np.ndarray:
    """The bytes of the whole buffer ``array`` views (the tensor's storage)."""
    root = _root(array)
    if root.flags.c_contiguous:
        return root.reshape(-1).view(np.uint8)
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)  # not a plain buffer: a copy


class UntypedStorage:
    """The bytes behind a tensor."""

    __module__ = "leafgrad.storage"  # torch's public home of the storage classes

    def __init__(self, data: np.ndarray):
        self._bytes = data

    @property
    def device(self):
        from ._device import device

        return device("cpu")

    def data_ptr(self) -> int:
        return self._bytes.__array_interface__["data"][0]

    def untyped(self) -> "UntypedStorage":
        """The storage itself (torch's ``untyped()`` on an untyped storage)."""
        return self

    def nbytes(self) -> int:
        return self._bytes.size

    def size(self) -> int:
        return self._bytes.size

    def __len__(self) -> int:
        return self._bytes.size

    def element_size(self) -> int:
        return 1

    def tolist(self) -> list:
        return self._bytes.tolist()

    def __getitem__(self, index):
        return self._bytes.tolist()[index]

    def __iter__(self):
        return iter(self._bytes.tolist())

    def __repr__(self) -> str:
        body = "\n".join(f" {value}" for value in self._bytes.tolist())
        return f"{body}\n[leafgrad.storage.UntypedStorage(device=cpu) of size {len(self)}]"


class TypedStorage:
    """The elements behind a tensor, in its dtype (deprecated in torch, still read by old
    code)."""

    __module__ = "leafgrad.storage"

    def __init__(self, data: np.ndarray, dtype: _dtype.dtype):
        self._bytes = data
        self.dtype = dtype

    @property
    def device(self):
        from ._device import device

        return device("cpu")

    def _values(self) -> np.ndarray:
        usable = self._bytes.size - self._bytes.size % self.dtype.itemsize
        return self._bytes[:usable].view(self.dtype.np)

    def data_ptr(self) -> int:
        return self._bytes.__array_interface__["data"][0]

    def nbytes(self) -> int:
        return self._bytes.size

    def size(self) -> int:
        return self._values().size

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def tolist(self) -> list:
        return self._values().tolist()

    def __getitem__(self, index):
        return self._values().tolist()[index]

    def __iter__(self):
        return iter(self._values().tolist())

    def untyped(self) -> UntypedStorage:
        return UntypedStorage(self._bytes)

    def __repr__(self) -> str:
        body = "\n".join(f" {value}" for value in self._values().tolist())
        return (f"{body}\n[leafgrad.storage.TypedStorage(dtype={self.dtype!r}, device=cpu) of "
                f"size {len(self)}]")


def untyped_storage(tensor) -> UntypedStorage:
    return UntypedStorage(_buffer(tensor._data))


_warned = []


def typed_storage(tensor) -> TypedStorage:
    if not _warned:  # torch warns once per process (set_warn_always does not change that)
        _warned.append(True)
        warnings.warn(_TYPED_DEPRECATED, UserWarning, stacklevel=3)
    return TypedStorage(_buffer(tensor._data), tensor.dtype)


# -- the legacy typed storage classes (torch.FloatStorage and friends, torch.Storage) ---------

class _LegacyStorageMeta(type):
    """``isinstance(s, FloatStorage)``: a TypedStorage of that dtype (torch's
    _LegacyStorageMeta)."""

    dtype: _dtype.dtype

    def __instancecheck__(cls, instance) -> bool:
        if type(instance) is TypedStorage:
            return instance.dtype is cls.dtype
        return False


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """``FloatStorage(n)`` (n elements, uninitialised in torch: zeros here),
    ``FloatStorage(sequence)`` (its values) or ``FloatStorage()``: a TypedStorage of the
    class's dtype, with torch's deprecation warning (once per process)."""

    def __new__(cls, *args, **kwargs):
        import operator

        if kwargs:
            raise TypeError(f"{cls.__name__}.__new__ got unexpected keyword arguments "
                            f"{sorted(kwargs)}")
        if len(args) > 1:
            raise TypeError(f"{cls.__name__}.__new__ received an invalid combination of "
                            "arguments")
        if not _warned:
            _warned.append(True)
            warnings.warn(_TYPED_DEPRECATED, UserWarning, stacklevel=2)
        np_dtype = cls.dtype.np
        if not args:
            values = np.zeros(0, np_dtype)
        else:
            try:  # (a size: a Python or NumPy integer)
                size = operator.index(args[0])
            except TypeError:
                values = np.asarray(list(args[0]), dtype=np_dtype)
            else:
                if size < 0:
                    raise RuntimeError(f"Storage size calculation overflowed with sizes=[{size}]")
                values = np.zeros(size, np_dtype)
        return TypedStorage(values.reshape(-1).view(np.uint8), cls.dtype)


def _legacy_storage_classes() -> dict:
    classes = {}
    for name, dtype in (("DoubleStorage", _dtype.float64), ("FloatStorage", _dtype.float32),
                        ("HalfStorage", _dtype.float16), ("LongStorage", _dtype.int64),
                        ("IntStorage", _dtype.int32), ("ShortStorage", _dtype.int16),
                        ("CharStorage", _dtype.int8), ("ByteStorage", _dtype.uint8),
                        ("BoolStorage", _dtype.bool), ("BFloat16Storage", _dtype.bfloat16),
                        ("ComplexDoubleStorage", _dtype.complex128),
                        ("ComplexFloatStorage", _dtype.complex64)):
        classes[name] = _LegacyStorageMeta(name, (_LegacyStorage,), {
            "dtype": dtype, "__module__": "leafgrad", "__qualname__": name})
    return classes


LEGACY_STORAGES = _legacy_storage_classes()
