"""Legacy Tensor methods old tutorials call: ``new``, ``new_empty_strided``, ``resize_`` and
its forms, ``storage``/``untyped_storage``."""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from .. import _argparse
from ..autograd.function import Function
from .._argparse import given, invalid_combination, typename
from ..autograd.grad_mode import state as grad_state
from .._argparse import varargs_keyword
from .._alloc import check_resizable


class LegacyMethods:
    __slots__ = ()

    def new(self, *args, **kwargs):
        """torch's legacy constructor in this tensor's dtype (see leafgrad._legacy)."""
        from .._legacy import construct

        return construct(self.dtype, args, kwargs, method=True)

    def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                          requires_grad=False, pin_memory=False):
        from .._legacy import empty_strided

        return empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                             device=device, requires_grad=requires_grad)

    # -- storages (read access; see leafgrad._storage) ------------------------------------------
    def untyped_storage(self):
        from .._storage import untyped_storage

        return untyped_storage(self)

    def storage(self):
        from .._storage import typed_storage

        return typed_storage(self)

    # -- storage replacement and subclassing ------------------------------------------------
    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """Make this tensor look at other memory, in place: ``set_()`` (an empty storage),
        ``set_(tensor)`` (the tensor's memory, shape and strides), ``set_(storage, offset,
        size, stride=())`` and ``set_(tensor, offset, size, stride=())`` (a view of that
        memory, strides in elements; contiguous when not given). The version counter is this
        tensor's own, bumped; views of the old memory keep it."""
        from .._storage import TypedStorage, UntypedStorage, _buffer
        from ..tensor import Tensor, check_inplace_allowed

        is_storage = isinstance(source, (UntypedStorage, TypedStorage))
        if source is not None and not isinstance(source, Tensor) and not is_storage or \
                source is None and (size is not None or stride is not None):
            raise _set_error(source, storage_offset, size, stride)
        _check_set_allowed(self)
        check_inplace_allowed(self)
        dtype = self._data.dtype
        if source is None:
            data = np.empty(0, dtype)
        elif isinstance(source, Tensor) and size is None:
            if source._data.dtype != dtype:
                raise RuntimeError(f"Could not set tensor of type {_c_type(source._data.dtype)} "
                                   f"to a tensor of type {_c_type(dtype)}")
            data = source._data.view()
        else:
            if size is None:
                raise _set_error(source, storage_offset, size, stride)
            if isinstance(source, Tensor):
                if source._data.dtype != dtype:
                    raise RuntimeError("Could not set tensor of type "
                                       f"{_c_type(source._data.dtype)} to a tensor of type "
                                       f"{_c_type(dtype)}")
                flat = _buffer(source._data)
            else:
                flat = source._bytes
            data = _storage_view(flat, dtype, storage_offset, size, stride)
        self._data = data
        self._bump_version()
        return self

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, dispatch_sizes_strides_policy=None,
                       dispatch_device=False, dispatch_layout=False, _extra_dispatch_keys=None,
                       storage_size=None):
        """``Tensor._make_subclass(cls, data, require_grad)``: a detached alias of ``data`` (same
        memory and version counter, no history) as an instance of ``cls``, a leaf requiring
        grad as asked (how subclasses' ``__new__`` and torch's Parameter make themselves)."""
        from ..tensor import Tensor

        if not isinstance(cls, type):
            raise TypeError(f"cls must be a type (got {type(cls).__name__})")
        if not issubclass(cls, Tensor):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                            "Tensor is not possible. Make sure your class inherits from Tensor.")
        if not isinstance(data, Tensor):
            raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, "
                            f"not {type(data).__name__}")
        out = data.detach().as_subclass(cls)
        if require_grad:
            out.requires_grad_(True)
        return out

    @_argparse.parsed("Tensor.as_subclass", method=True)
    def as_subclass(self, cls):
        """An alias of this tensor (AliasBackward0 when it has history) as an instance of
        ``cls``, a subclass of Tensor: same memory and version counter, still in the graph."""
        from .. import ops as _ops
        from ..tensor import Tensor

        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                            "Tensor is not possible. Make sure your class inherits from Tensor.")
        alias = _ops.Alias.apply(self)
        if type(alias) is cls:
            return alias
        out = object.__new__(cls)
        for slot in Tensor.__slots__:
            if slot in ("__weakref__", "__dict__"):
                continue
            try:
                value = object.__getattribute__(alias, slot)
            except AttributeError:  # a slot set only on some tensors
                continue
            object.__setattr__(out, slot, value)
        return out

    # -- resizing ------------------------------------------------------------------------------
    def resize_(self, *sizes, memory_format=None, size=None):
        """Change the shape in place, keeping the storage's leading elements in order; new
        elements (when growing) are zeros here (torch leaves them uninitialised)."""
        from .._creation import _size
        from ..tensor import check_inplace_allowed

        if size is not None:  # (torch's keyword form: resize_(size=(2, 3)))

            sizes = varargs_keyword(sizes, size, "resize_", "size")
        if self._requires_grad and not grad_state.inference:  # (inference mode: no autograd)
            raise RuntimeError("cannot resize variables that require grad")
        listed = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
        if builtins.any(isinstance(s, int) and s < 0 for s in listed):
            raise RuntimeError("numel: integer multiplication overflow")
        shape = _size(sizes, "resize_")
        check_inplace_allowed(self)
        if tuple(shape) == self._data.shape:
            return self
        count = int(np.prod(shape, dtype=np.int64))
        storage = _storage_from_offset(self._data)
        if storage is not None and storage.size >= count:
            self._data = storage[:count].reshape(shape)
        else:
            check_resizable(self._data)
            kept = storage if storage is not None else self._data.reshape(-1)
            grown = np.zeros(count, self._data.dtype)
            grown[:min(kept.size, count)] = kept[:count]
            self._data = grown.reshape(shape)
        if self._base is not None:
            from ..tensor import restride_view

            restride_view(self)
        self._bump_version()  # a resize that changes the shape counts as a write, as in torch
        return self

    def resize_as_(self, the_template, memory_format=None):
        return self.resize_(the_template.shape)

    def resize(self, *sizes):
        """Deprecated out-of-place resize: a resized copy (``ResizeBackward`` with a gradient)."""
        warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
        return _resized_copy(self, sizes)

    def resize_as(self, tensor):
        warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
        return _resized_copy(self, tuple(tensor.shape))


def _storage_from_offset(array: np.ndarray):
    """The 1-d run of the storage ``array`` views, from its first element on, or None when
    the storage is not a plain contiguous buffer NumPy can show."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.c_contiguous:
        return None
    flat = root.reshape(-1)
    start = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if array.size == 0 and start == 0 and root.size == 0:
        return flat
    if start % array.itemsize or root.dtype != array.dtype:
        return None
    return flat[start // array.itemsize:]


def _resized_copy(tensor, sizes):
    """torch's ``Tensor.resize`` is an autograd.Function (``Resize``, node ``ResizeBackward``)
    that may only change the shape: a view of the contiguous data with the new sizes."""
    from .._creation import _size

    sizes = _size(tuple(sizes), "resize")
    count = _numel(sizes)
    if tensor.numel() != count:
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({count} elements in total), but "
            f"the given tensor has a size of {'x'.join(map(str, tensor.shape))} "
            f"({tensor.numel()} elements). autograd's resize can only change the shape of a "
            "given tensor, while preserving the number of elements. ")

    class Resize(Function):
        @staticmethod
        def forward(ctx, input):
            ctx.input_sizes = input.shape
            return input.contiguous().view(sizes)

        @staticmethod
        def backward(ctx, grad):
            return grad.contiguous().view(ctx.input_sizes)

    return Resize.apply(tensor)


def _numel(shape) -> int:
    return int(np.prod(tuple(shape), dtype=np.int64))


_C_TYPES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _c_type(dtype) -> str:
    """The C++ type name torch's set_ prints for a dtype."""
    return _C_TYPES.get(np.dtype(dtype).name, np.dtype(dtype).name)


def _check_set_allowed(tensor) -> None:
    from ..autograd.grad_mode import state

    if state.grad_enabled and tensor._requires_grad and tensor._node is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _set_error(source, storage_offset, size, stride) -> TypeError:
    return invalid_combination("set_", given(source, storage_offset if size is not None else
                                             None, size, stride), {})


def _storage_view(flat: np.ndarray, dtype, offset: int, size, stride) -> np.ndarray:
    """Elements ``offset``, ``offset + stride``... of the bytes ``flat`` read as ``dtype``."""
    itemsize = np.dtype(dtype).itemsize
    size = tuple(int(n) for n in size)
    if stride is None or len(stride) == 0:
        stride, step = [], 1
        for n in reversed(size):
            stride.insert(0, step)
            step *= max(n, 1)
    stride = tuple(int(n) for n in stride)
    elements = flat.size // itemsize
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > elements:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of "
            f"bounds for storage of size {elements * itemsize}")
    typed = flat[:elements * itemsize].view(dtype)
    return np.lib.stride_tricks.as_strided(typed[offset:] if needed else typed[:0], size,
                                           tuple(s * itemsize for s in stride))
