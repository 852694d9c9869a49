"""Tensor methods torch has that the topic mixins did not: bitwise and set-like functions,
``cross``, in-place shape changes (``unsqueeze_``...), and small queries (``itemsize``...)."""

from __future__ import annotations

import weakref

from .. import _argparse
from .. import _dtype as _dtype

from . import lazy_ops as _ops
from .._compile.state import state as capture
from ..autograd.forward_ad import set_tangent


def _tensor():
    from ..tensor import Tensor

    return Tensor


_SHARED: dict = {}  # id of a tensor share_memory_() was called on -> weak reference


class ExtraMethods:
    __slots__ = ()

    # -- bitwise (the operators' ops) --------------------------------------------------------
    def bitwise_and(self, other):
        if other.__class__ not in _argparse.NUMBERS and not isinstance(other, _tensor()):
            other = _argparse.operand("bitwise_and", other, (other,))
        return self & other

    def bitwise_or(self, other):
        if other.__class__ not in _argparse.NUMBERS and not isinstance(other, _tensor()):
            other = _argparse.operand("bitwise_or", other, (other,))
        return self | other

    def bitwise_xor(self, other):
        if other.__class__ not in _argparse.NUMBERS and not isinstance(other, _tensor()):
            other = _argparse.operand("bitwise_xor", other, (other,))
        return self ^ other

    def bitwise_not(self):
        if self.dtype.is_floating_point:
            raise NotImplementedError(
                f"\"bitwise_not_cpu\" not implemented for '{self.dtype._legacy}'")
        return ~self

    def bitwise_and_(self, other):
        return _ops.inplace(_ops.BitwiseAnd, self, other)

    def bitwise_or_(self, other):
        return _ops.inplace(_ops.BitwiseOr, self, other)

    def bitwise_xor_(self, other):
        return _ops.inplace(_ops.BitwiseXor, self, other)

    def bitwise_not_(self):
        if self.dtype.is_floating_point:
            raise NotImplementedError(
                f"\"bitwise_not_cpu\" not implemented for '{self.dtype._legacy}'")
        return _ops.inplace(_ops.BitwiseNot, self)

    def bitwise_left_shift(self, other):
        if other.__class__ not in _argparse.NUMBERS and not isinstance(other, _tensor()):
            other = _argparse.operand("bitwise_left_shift", other, (other,))
        return _ops.LeftShift.apply(self, other)

    def bitwise_right_shift(self, other):
        if other.__class__ not in _argparse.NUMBERS and not isinstance(other, _tensor()):
            other = _argparse.operand("bitwise_right_shift", other, (other,))
        return _ops.RightShift.apply(self, other)

    def bitwise_left_shift_(self, other):
        _check_shift_result(self, other)
        return _ops.inplace(_ops.LeftShift, self, other)

    def bitwise_right_shift_(self, other):
        _check_shift_result(self, other)
        return _ops.inplace(_ops.RightShift, self, other)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        return _ops.scatter_reduce(self, dim, index, src, reduce, include_self)

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        return _ops.scatter_reduce(self, dim, index, src, reduce, include_self, inplace=True)

    # -- others --------------------------------------------------------------------------------
    def cross(self, other, dim=None):
        return _ops.cross(self, other, dim)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
        from .._functions_extra import unique

        return unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        from .._functions_extra import unique_consecutive

        return unique_consecutive(self, return_inverse, return_counts, dim)

    def type_as(self, other):
        return self.to(other.dtype)

    def is_signed(self) -> bool:
        return _dtype.kind(self._data) in "if"

    def is_nonzero(self) -> bool:
        from .._functions_extra import is_nonzero

        return is_nonzero(self)

    def is_same_size(self, other) -> bool:
        return self.shape == other.shape

    def get_device(self) -> int:
        return -1  # the CPU

    def ravel(self):
        from .._functions_composites import ravel  # torch: contiguous().view(-1)

        return ravel(self)

    def positive(self):
        if self._data.dtype.kind == "b":
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def storage_offset(self) -> int:
        data = self._data
        if not data.size:  # NumPy does not move an empty view (tensor.py: _empty_view_offset)
            offset = self.__dict__.get("_empty_offset")
            if offset is not None:
                return offset
        root = data
        while root.base is not None and hasattr(root.base, "__array_interface__"):
            root = root.base
        offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        return offset // data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def is_cpu(self) -> bool:
        return True

    # -- devices and memory kinds this CPU-only library never has (torch's answers) -----------
    is_xpu = property(lambda self: False)
    is_mps = property(lambda self: False)
    is_xla = property(lambda self: False)
    is_ipu = property(lambda self: False)
    is_mtia = property(lambda self: False)
    is_maia = property(lambda self: False)
    is_vulkan = property(lambda self: False)

    def is_distributed(self) -> bool:
        return False

    def pin_memory(self, device=None):
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def share_memory_(self):
        """Moves nothing (leafgrad's memory is the process's); the tensor and its views
        report ``is_shared()`` afterwards, as torch's do. (Recorded outside the tensor: an
        attribute would travel into checkpoints.)"""
        root = self._base if self._base is not None else self
        key = id(root)
        _SHARED[key] = weakref.ref(root, lambda _, key=key: _SHARED.pop(key, None))
        return self

    def is_shared(self) -> bool:
        root = self._base if self._base is not None else self
        entry = _SHARED.get(id(root))
        return entry is not None and entry() is root

    @property
    def name(self):
        return None  # torch's named-tensor name of an unnamed tensor

    @property
    def volatile(self) -> bool:
        import warnings

        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)
        return False

    def const_data_ptr(self) -> int:
        return self.data_ptr()

    def is_set_to(self, tensor) -> bool:
        """Whether both tensors view the same memory with the same offset, sizes and strides."""
        a, b = self._data, tensor._data
        return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
                and a.shape == b.shape and self.stride() == tensor.stride()
                and a.dtype == b.dtype)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """A strided tensor is dense already: itself (or a copy in ``dtype``)."""
        return self if dtype is None else self.to(dtype)

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """The nonzero entries as a sparse COO tensor (leafgrad.sparse)."""
        from ..sparse import _ops as sparse_ops

        return sparse_ops.to_sparse(self, sparse_dim)

    def to_sparse_coo(self):
        from ..sparse import _ops as sparse_ops

        return sparse_ops.to_sparse(self, None)

    def sparse_mask(self, mask):
        """This tensor's values at ``mask``'s stored indices, as a sparse tensor
        (leafgrad.sparse)."""
        from ..sparse import _ops as sparse_ops

        return sparse_ops.sparse_mask(self, mask)

    # sparse tensors' queries: a dense tensor refuses them as torch does
    def coalesce(self):
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")

    def is_coalesced(self):
        raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got "
                           "Strided")

    def indices(self):
        raise RuntimeError("indices expected sparse coordinate tensor layout but got Strided")

    def values(self):
        raise RuntimeError("values expected sparse tensor layout but got Strided")

    def dense_dim(self) -> int:
        return self._data.ndim

    def sparse_dim(self) -> int:
        return 0

    # -- in-place shape changes: the tensor itself becomes the view ----------------------------
    def _become(self, view):
        """Take ``view``'s data and history (torch changes the tensor's metadata in place)."""
        from ..autograd.grad_mode import state
        from ..tensor import check_inplace_allowed

        check_inplace_allowed(self)
        base = self._base
        if state.grad_enabled and base is not None:  # torch's check_inplace, as ops/inplace.py
            from ..tensor import VIEW_OF_LEAF_INPLACE, check_view_rebase

            if self._requires_grad or base._requires_grad:
                check_view_rebase(self, indirect=False)
            if base._node is None and base._requires_grad:
                raise RuntimeError(VIEW_OF_LEAF_INPLACE)
        if state.grad_enabled and self._requires_grad and self._node is None:
            from ..tensor import LEAF_INPLACE, VIEW_OF_LEAF_INPLACE

            raise RuntimeError(LEAF_INPLACE if base is None else VIEW_OF_LEAF_INPLACE)

        if capture.active:
            capture.tracer.become(self)
        self._data = view._data
        if self._base is not None:  # a view stays a view of its base, one step further
            self._view_steps = view._view_steps
        if view._node is not None:
            self._node = view._node
            self._output_nr = view._output_nr
        tangent = getattr(view, "_fw_grad", None)
        if tangent is not None:  # a dual tensor's tangent changes shape with it

            set_tangent(self, tangent)
        self._bump_version()
        if self._base is not None and view._node is not None:
            # torch's set_gradient_edge: a view given a new grad_fn is current at this version
            # (Note: views and in-place ops), so t_() on a view keeps TBackward1
            self._view_version = self._vc[0]
        return self

    # each records torch's in-place node (UnsqueezeBackward1, ...: ops/shape_inplace.py)
    def unsqueeze_(self, dim):
        return self._become(_ops.shape_inplace.UnsqueezeInplace.apply(
            self, dim=_ops.wrap_dim(dim, self.ndim + 1)))

    def squeeze_(self, dim=None):
        ndim = self.ndim
        if dim is None:
            view = _ops.shape_inplace.SqueezeAllInplace.apply(self)
        elif isinstance(dim, (tuple, list)):
            dims = tuple(_ops.wrap_dim(d, ndim) for d in dim)
            view = _ops.shape_inplace.SqueezeDimsInplace.apply(self, dims=dims)
        else:
            view = _ops.shape.SqueezeLast.apply(self, dim=_ops.wrap_dim(dim, ndim))
        return self._become(view)

    def t_(self):
        if self.ndim > 2:
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                               f"{self.ndim}D")
        return self._become(_ops.shape_inplace.TInplace.apply(self))

    def transpose_(self, dim0, dim1):
        ndim = self.ndim
        return self._become(_ops.shape_inplace.TransposeInplace.apply(
            self, dim0=_ops.wrap_dim(dim0, ndim), dim1=_ops.wrap_dim(dim1, ndim)))

    def swapaxes_(self, axis0, axis1):
        return self.transpose_(axis0, axis1)

    swapdims_ = transpose_

    def as_strided_(self, size, stride, storage_offset=None):
        # torch counts the offset from the start of the storage (None: the tensor's own), as
        # the public as_strided does; checked the same way before any memory is read
        from ..ops.shape_ext import check_strided

        size, stride = tuple(size), tuple(stride)
        relative = 0 if storage_offset is None else int(storage_offset) - self.storage_offset()
        check_strided(self._data, size, stride, relative, may_precede=True)
        return self._become(_ops.shape_inplace.AsStridedInplace.apply(
            self, size=size, stride=stride, storage_offset=relative))


def _check_shift_result(target, other):
    """torch checks an in-place shift's result type before its kernel refuses floats."""
    have = _dtype.result_type(target, other)
    if not _dtype.can_cast(have, target.dtype):
        data = getattr(other, "_data", None)
        if data is not None and data.shape != target._data.shape:
            # TensorIterator's shape error comes first
            from ..ops.inplace import _check_broadcast_shape

            _check_broadcast_shape(target, [data])
        raise RuntimeError(f"result type {have._legacy} can't be cast to the desired output "
                           f"type {target.dtype._legacy}")
