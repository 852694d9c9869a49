"""torch.sparse_coo_tensor and the legacy torch.sparse.FloatTensor(...) constructors."""

from __future__ import annotations


import numpy as np

from .. import _dtype
from ..tensor import Size, Tensor
from . import _ops
from ._tensor import SparseTensor, linear_keys, make

__all__ = ["sparse_coo_tensor", "legacy_constructor", "check_sparse_tensor_invariants"]

_INVARIANTS_WARNED = [False]


class check_sparse_tensor_invariants:  # noqa: N801 - torch's name
    """torch.sparse.check_sparse_tensor_invariants: whether sparse_coo_tensor checks its
    indices by default (off, as in torch), as a context manager or a global switch."""

    _enabled = False
    _explicit = False

    @staticmethod
    def is_enabled() -> bool:
        return check_sparse_tensor_invariants._enabled

    @staticmethod
    def enable() -> None:
        check_sparse_tensor_invariants._enabled = True
        check_sparse_tensor_invariants._explicit = True

    @staticmethod
    def disable() -> None:
        check_sparse_tensor_invariants._enabled = False
        check_sparse_tensor_invariants._explicit = True

    def __init__(self, enable: bool = True):
        self.state = enable
        self.saved_state = None

    def __enter__(self):
        self.saved_state = check_sparse_tensor_invariants._enabled
        check_sparse_tensor_invariants._enabled = self.state
        check_sparse_tensor_invariants._explicit = True
        return self

    def __exit__(self, *exc):
        check_sparse_tensor_invariants._enabled = self.saved_state


def _warn_invariants() -> None:
    # torch's TORCH_WARN_ONCE when a constructor reads the global setting never set explicitly
    if _INVARIANTS_WARNED[0] or check_sparse_tensor_invariants._explicit:
        return
    _INVARIANTS_WARNED[0] = True
    from .._warn import warn

    warn("Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will "
         "occur when operating on a sparse tensor which violates the invariants, but checks "
         "incur performance overhead. To silence this warning, explicitly opt in or out. See "
         "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.  (Triggered "
         "internally at /__w/pytorch/pytorch/aten/src/ATen/Context.cpp:816.)")


def _as_indices(indices) -> np.ndarray:
    if isinstance(indices, Tensor):
        if isinstance(indices, SparseTensor):
            raise RuntimeError("indices expected a strided tensor")
        array = np.asarray(indices._data)
        return array if array.dtype == np.int64 else array.astype(np.int64)
    from .._creation import tensor

    return np.asarray(tensor(indices, dtype=_dtype.int64)._data)


def _as_values(values, dtype) -> Tensor:
    if isinstance(values, Tensor):
        if dtype is not None and values.dtype != dtype:
            return values.to(dtype)
        return values
    from .._creation import tensor

    return tensor(values, dtype=dtype)


def _check_invariants(indices: np.ndarray, shape: tuple, coalesced: bool) -> None:
    sparse_dim = indices.shape[0]
    for dim in range(sparse_dim):
        row = indices[dim]
        if row.size and row.min() < 0:
            raise RuntimeError(f"found negative index {int(row.min())} for dim {dim}")
        if row.size and row.max() >= shape[dim]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is "
                               f"{shape[dim]} but found index {int(row.max())}")
    if coalesced and indices.shape[1] > 1:
        keys = linear_keys(indices, shape[:sparse_dim])
        if not (keys[1:] > keys[:-1]).all():
            raise RuntimeError("cannot set is_coalesced to true if indices correspond to "
                               "uncoalesced COO tensor")


_NO_SIZE = object()


def _check_device(where) -> None:
    from .._device import device as device_cls

    target = where if isinstance(where, device_cls) else device_cls(where)
    if target.type == "cuda":
        raise RuntimeError("PyTorch is not linked with support for cuda devices")
    if target.type != "cpu":
        raise NotImplementedError(f"leafgrad: sparse tensors on the {target.type} device are "
                                  "not supported (the CPU only)")


def _invalid_combination(args: tuple, kwargs: dict) -> TypeError:
    """torch's argument-parser error for a call no overload of sparse_coo_tensor takes."""
    def name(value):
        return "Tensor" if isinstance(value, Tensor) else type(value).__name__

    got = [name(a) for a in args] + [f"{k}={name(v)}" for k, v in kwargs.items()]
    return TypeError(f"sparse_coo_tensor() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:")


def sparse_coo_tensor(indices, values=None, size=_NO_SIZE, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None,
                      is_coalesced=None) -> SparseTensor:
    """A sparse COO tensor with ``values`` at the columns of ``indices`` (torch's).

    >>> leafgrad.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2)).to_dense()
    tensor([[0., 2.],
            [3., 0.]])
    """
    if size is None or (size is not _NO_SIZE and not isinstance(size, (tuple, list, Size))):
        given = {k: v for k, v in (("dtype", dtype), ("device", device),
                                   ("requires_grad", requires_grad),
                                   ("check_invariants", check_invariants),
                                   ("is_coalesced", is_coalesced))
                 if v is not None and v is not False}
        raise _invalid_combination((indices, values, size), given)
    if size is _NO_SIZE:
        size = None
    if device is not None:
        _check_device(device)
    if values is None:  # sparse_coo_tensor(size): empty
        shape = tuple(int(s) for s in indices)
        dtype = dtype or _dtype.get_default_dtype()
        result = make(np.zeros((len(shape), 0), np.int64), np.zeros(0, dtype.np), shape, True)
        return result._set_requires_grad(requires_grad) if requires_grad else result
    if check_invariants is None:
        _warn_invariants()
        check = check_sparse_tensor_invariants._enabled
    else:
        check = bool(check_invariants)
    index_array = _as_indices(indices)
    value_tensor = _as_values(values, dtype)
    if requires_grad and not (value_tensor.dtype.is_floating_point
                              or value_tensor.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    if index_array.ndim != 2:
        if size is None:
            raise RuntimeError(f"indices must be sparse_dim x nnz, but got: "
                               f"{list(index_array.shape)}")
        sparse_dim = index_array.shape[0] if index_array.ndim else 0
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) "
                           f"= {len(size)}, sparse_dim = {sparse_dim}, dense_dim = "
                           f"{max(value_tensor.ndim - 1, 0)}")
    sparse_dim, nnz = index_array.shape
    value_shape = tuple(value_tensor.shape)
    value_nnz = value_shape[0] if value_shape else 1
    if nnz != value_nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{nnz}, nnz from values: {value_nnz}")
    dense_shape = value_shape[1:]
    if size is None:
        if nnz:
            lowest = index_array.min(axis=1)
            for dim in range(sparse_dim):
                if lowest[dim] < 0:
                    raise RuntimeError(f"found negative index {int(lowest[dim])} for dim {dim}")
            sparse_shape = tuple(int(m) + 1 for m in index_array.max(axis=1))
        else:
            sparse_shape = (0,) * sparse_dim
        shape = sparse_shape + dense_shape
    else:
        if not all(isinstance(s, (int, np.integer)) for s in size):
            raise _invalid_combination((indices, values, size), {})
        shape = tuple(int(s) for s in size)
        if any(s < 0 for s in shape):
            raise RuntimeError("numel: integer multiplication overflow")
        if len(shape) != sparse_dim + len(dense_shape):
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: "
                               f"len(size) = {len(shape)}, sparse_dim = {sparse_dim}, "
                               f"dense_dim = {len(dense_shape)}")
        if tuple(shape[sparse_dim:]) != dense_shape:
            raise RuntimeError(f"values has incorrect size, expected {[nnz, *shape[sparse_dim:]]}"
                               f", got {list(value_shape)}")
    coalesced = nnz < 2 if is_coalesced is None else bool(is_coalesced)
    if check:
        _check_invariants(index_array, shape, bool(is_coalesced))
    if value_tensor.requires_grad:
        result = _ops.from_values(index_array, value_tensor, shape, coalesced)
    else:
        result = make(index_array, np.asarray(value_tensor._data), shape, coalesced)
    if requires_grad:
        result._requires_grad = True
    return result


_LEGACY_WARNED: set = set()
_LEGACY_FORMS = {
    "size": ("torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
             "torch.sparse_coo_tensor(shape, dtype=, device=). (Triggered internally at "
             "/__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:684.)"),
    "values": ("torch.sparse.SparseTensor(indices, values, *, device=) is deprecated.  Please "
               "use torch.sparse_coo_tensor(indices, values, dtype=, device=). (Triggered "
               "internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:641.)"),
    "shape": ("torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  "
              "Please use torch.sparse_coo_tensor(indices, values, shape, dtype=, device=). "
              "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/"
              "tensor_new.cpp:653.)"),
}


def _legacy_warn(form: str) -> None:
    if form in _LEGACY_WARNED:
        return
    _LEGACY_WARNED.add(form)
    from .._warn import warn

    warn(_LEGACY_FORMS[form])


def legacy_constructor(dtype, args: tuple, kwargs: dict) -> SparseTensor:
    """torch.sparse.FloatTensor(indices, values[, size]) and (*sizes): the values keep their
    own dtype, as torch's (deprecated) constructor keeps them."""
    if kwargs.keys() - {"device"}:
        raise TypeError("new() received an invalid combination of arguments")
    if len(args) in (2, 3) and isinstance(args[0], Tensor) and isinstance(args[1], Tensor):
        indices, values = args[0], args[1]
        if indices.dtype != _dtype.int64:
            if len(args) == 2:
                raise RuntimeError(f"expected scalar type Long but found "
                                   f"{_dtype_name(indices.dtype)}")
            raise RuntimeError("indices must be an int64 tensor")
        _legacy_warn("shape" if len(args) == 3 else "values")
        sizes = (tuple(args[2]),) if len(args) == 3 else ()
        return sparse_coo_tensor(indices, values, *sizes, check_invariants=False)
    sizes = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list, Size)) else args
    if not all(isinstance(s, (int, np.integer)) for s in sizes):
        names = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"new() received an invalid combination of arguments - got ({names}), "
                        "but expected one of:")
    if args:
        _legacy_warn("size")
    shape = tuple(int(s) for s in sizes) if args else (0,)
    return make(np.zeros((len(shape), 0), np.int64), np.zeros(0, dtype.np), shape, True)


def _dtype_name(dtype) -> str:
    return dtype._legacy


class _LegacySparseType(type):
    """``torch.sparse.FloatTensor`` and its kin: constructors, and the classes
    ``isinstance`` checks a sparse tensor's dtype against."""

    def __call__(cls, *args, **kwargs):
        return legacy_constructor(cls.dtype, args, kwargs)

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, SparseTensor) and instance.dtype == cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'leafgrad.sparse.{cls.__name__}'>"


def _legacy_class(name: str, dtype):
    return _LegacySparseType(name, (), {"dtype": dtype, "is_sparse": True, "is_cuda": False})


FloatTensor = _legacy_class("FloatTensor", _dtype.float32)
DoubleTensor = _legacy_class("DoubleTensor", _dtype.float64)
HalfTensor = _legacy_class("HalfTensor", _dtype.float16)
BFloat16Tensor = _legacy_class("BFloat16Tensor", _dtype.bfloat16)
LongTensor = _legacy_class("LongTensor", _dtype.int64)
IntTensor = _legacy_class("IntTensor", _dtype.int32)
ShortTensor = _legacy_class("ShortTensor", _dtype.int16)
CharTensor = _legacy_class("CharTensor", _dtype.int8)
ByteTensor = _legacy_class("ByteTensor", _dtype.uint8)
BoolTensor = _legacy_class("BoolTensor", _dtype.bool)
