"""Legacy Tensor methods old tutorials call: ``new``, ``new_empty_strided``, ``resize_`` and
its forms, ``storage``/``untyped_storage``."""

from __future__ import annotations

import builtins
import warnings

import numpy as np


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

    # -- resizing ------------------------------------------------------------------------------
    def resize_(self, *sizes, memory_format=None):
        """Change the shape in place, keeping the storage's leading elements in order; new
        elements (when growing) are zeros here (torch leaves them uninitialised)."""
        from .._creation import _size
        from ..tensor import check_inplace_allowed

        if self._requires_grad:
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
            kept = storage if storage is not None else self._data.reshape(-1)
            grown = np.zeros(count, self._data.dtype)
            grown[:min(kept.size, count)] = kept[:count]
            self._data = grown.reshape(shape)
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
    from ..autograd.function import Function

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
