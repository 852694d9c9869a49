"""SparseTensor's methods and operators: each calls a sparse operation of _ops.py."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from ..tensor import Tensor, _wrap
from . import _ops
from ._autograd import SparseNode, record
from ._tensor import SparseTensor, backend_error

__all__: list = []


def _method(fn):
    setattr(SparseTensor, fn.__name__, fn)
    return fn


def _is_sparse(value) -> bool:
    return value.__class__ is SparseTensor


@_method
def to_dense(self, dtype=None, *, masked_grad=None):
    return _ops.to_dense(self, dtype, masked_grad)


@_method
def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    if sparse_dim is not None and sparse_dim != self.sparse_dim():
        raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim "
                           "argument !=self.sparse_dim() is not supported")
    return self


@_method
def to_sparse_coo(self):
    return self


@_method
def coalesce(self):
    return _ops.coalesce(self)


@_method
def t(self):
    return _ops.t(self)


@_method
def transpose(self, dim0, dim1):
    return _ops.transpose(self, dim0, dim1)


SparseTensor.swapaxes = SparseTensor.swapdims = SparseTensor.transpose
SparseTensor.T = property(lambda self: _ops.t(self))
SparseTensor.mT = property(lambda self: _ops.transpose(self, -2, -1))


@_method
def clone(self, *, memory_format=None):
    return _ops.clone(self)


@_method
def __add__(self, other):
    return _ops.add(self, other)


@_method
def add(self, other, *, alpha=1):
    return _ops.add(self, other, alpha)


@_method
def __sub__(self, other):
    return _ops.add(self, other, 1, _ops.SubBackward0)


@_method
def sub(self, other, *, alpha=1):
    return _ops.add(self, other, alpha, _ops.SubBackward0)


def _scalar_plus_sparse(other, sparse):
    raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                       f"[] while other has size {list(sparse.shape)} (FYI: dense-sparse "
                       "addition does not currently support broadcasting)")


@_method
def __radd__(self, other):
    if isinstance(other, Tensor) and not _is_sparse(other):
        return _ops.dense_add(other, self)
    # torch computes ``number + sparse`` as sparse.add(number)
    raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")


@_method
def __rsub__(self, other):
    if isinstance(other, Tensor) and not _is_sparse(other):
        return _ops.dense_add(other, self, subtract=True)
    _scalar_plus_sparse(other, self)


@_method
def __mul__(self, other):
    return _ops.mul(self, other)


SparseTensor.__rmul__ = SparseTensor.mul = SparseTensor.multiply = SparseTensor.__mul__


@_method
def __truediv__(self, other):
    return _ops.div(self, other)


SparseTensor.div = SparseTensor.divide = SparseTensor.true_divide = SparseTensor.__truediv__


@_method
def __neg__(self):
    return _ops.neg(self)


SparseTensor.neg = SparseTensor.negative = SparseTensor.__neg__


@_method
def __pow__(self, exponent):
    return _ops.pow(self, exponent)


SparseTensor.pow = SparseTensor.__pow__


@_method
def mm(self, mat2):
    return _ops.mm(self, mat2)


SparseTensor.spmm = SparseTensor.mm


class MvBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        mat, vec = self.saved("mat"), self.saved("vec")
        grad_mat = grad_vec = None
        if self.needs_grad(0):
            grad_mat = grad.unsqueeze(1) * vec.unsqueeze(0)  # torch: grad.ger(vec), dense
        if self.needs_grad(1):
            grad_vec = _ops.mm(_ops.t(mat), grad.unsqueeze(1)).squeeze(1)
        return (grad_mat, grad_vec)


@_method
def mv(self, vec):
    if vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, 2, {vec.ndim}")
    if vec.shape[0] != self.shape[-1]:
        raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
    with _ops._no_grad():
        result = _ops.addmm(None, self, _wrap(np.asarray(vec._data)[:, None]), beta=0)
    result = _wrap(result._data[:, 0].copy())
    return record(MvBackward0, (self, vec), result, mat=self, vec=vec)


@_method
def __matmul__(self, other):
    if isinstance(other, Tensor) and not _is_sparse(other) and other.ndim == 1:
        return self.mv(other)
    return _ops.mm(self, other)


SparseTensor.matmul = SparseTensor.__matmul__


@_method
def __rmatmul__(self, other):
    return _ops.mm(other, self)


class SumBackward0(SparseNode):
    """Tensor.sum() of a sparse tensor: torch's generic formula, a dense gradient."""

    __slots__ = ()

    def backward(self, grad):
        return (grad.expand(self.saved("shape")),)


class SumBackward1(_ops.SparseSumBackward0):
    """Tensor.sum(dim) of a sparse tensor: torch's generic formula expands the gradient,
    which fails for the sparse one a sparse result gets."""

    __slots__ = ()

    def backward(self, grad):
        if _is_sparse(grad):
            raise RuntimeError("expand is unsupported for Sparse tensors")
        shape = self.saved("shape")
        if self._saved.get("keepdim_shape") is None:
            for dim in sorted(self.saved("dims")):
                grad = grad.unsqueeze(dim)
        return (grad.expand(shape),)


@_method
def sum(self, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        with _ops._no_grad():
            result = _ops.sparse_sum(self, None, dtype, raw=True)
        return record(SumBackward0, (self,), result, shape=tuple(self.shape))
    result = _ops.sparse_sum(self, dim, dtype, node=SumBackward1)
    if keepdim:
        result = _keep_dims(result, self, dim)
    return result


def _keep_dims(result, source: SparseTensor, dim):
    """sum(dim, keepdim=True): the summed dims back as size-1 dims (index 0)."""
    from ..tensor import _wrap_dim

    ndim = source.ndim
    dims = sorted({_wrap_dim(d, ndim) for d in ((dim,) if isinstance(dim, int) else dim)})
    node, requires = result._node, result._requires_grad
    shape = tuple(1 if d in dims else s for d, s in enumerate(source.shape))
    if not _is_sparse(result):
        data = np.asarray(result._data).reshape(shape)
        kept = _wrap(data)
    else:
        sparse_dim = source.sparse_dim()
        rows, values, k = [], result._sp_values, 0
        for d in range(sparse_dim):
            if d in dims:
                rows.append(np.zeros(result._nnz(), np.int64))
            else:
                rows.append(result._sp_indices[k])
                k += 1
        dense_dims = [d - sparse_dim for d in dims if d >= sparse_dim]
        for d in dense_dims:
            values = np.expand_dims(values, 1 + d)
        indices = np.array(rows, np.int64).reshape(sparse_dim, -1)
        from ._tensor import make

        kept = make(indices, values, shape, result._nnz() < 2)  # (torch: the flag is unset)
    kept._node, kept._requires_grad = node, requires
    if node is not None:
        node._saved["keepdim_shape"] = shape
    return kept


@_method
def to(self, *args, **kwargs):
    dtype = kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, _dtype.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            dtype = arg.dtype
    return self if dtype is None else _ops.to_dtype(self, dtype)


for _name, _target in (("double", _dtype.float64), ("float", _dtype.float32),
                       ("half", _dtype.float16), ("long", _dtype.int64),
                       ("int", _dtype.int32), ("bool", _dtype.bool)):
    setattr(SparseTensor, _name, (lambda target: lambda self, memory_format=None:
                                  _ops.to_dtype(self, target))(_target))


@_method
def softmax(self, dim, dtype=None):
    raise backend_error("aten::_softmax", "comparison")


@_method
def log_softmax(self, dim, dtype=None):
    raise backend_error("aten::_log_softmax", "comparison")


@_method
def __setitem__(self, index, value):
    raise NotImplementedError("leafgrad: indexing a sparse tensor is not supported; call "
                              ".to_dense() first")


@_method
def __eq__(self, other):
    raise backend_error("aten::eq.Tensor" if isinstance(other, Tensor) else "aten::eq.Scalar",
                        "comparison")


SparseTensor.__hash__ = lambda self: id(self)


# -- zero-preserving elementwise functions -------------------------------------------------------
# torch's SparseCPU kernels for f(0) == 0: f of the coalesced values, a coalesced result. Their
# backwards are torch's generic formulas, which work on a sparse tensor for some (abs, relu,
# log1p, ...) and fail for others in torch's own way (sin's needs cos, which has no sparse
# kernel): each is given here as torch runs it.

def _unary_node(name: str, formula=None, error=None):
    def backward(self, grad):
        if error is not None:
            raise error(self.saved("shape"))
        indices, values, shape = self.saved("indices"), self.saved("values"), self.saved("shape")
        if formula is None:  # a piecewise-constant function: torch's zero gradient
            return (_ops.from_values(np.zeros((indices.shape[0], 0), np.int64),
                                     _wrap(np.zeros((0,) + values.shape[1:], values.dtype)),
                                     shape, True),)
        picked = _ops.gather(grad, indices)
        return (_ops.from_values(indices, formula(picked, _wrap(values)), shape, True),)

    return type(name, (SparseNode,), {"__slots__": (), "backward": backward})


def _division_error(shape):
    return RuntimeError("Sparse division requires a scalar or zero-dim dense tensor divisor "
                        f"(got shape {list(shape)} for divisor)")


def _add_error(shape):
    return RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")


_UNARY = {
    "abs": ("AbsBackward0", lambda g, x: g * x.sign(), None),
    "relu": ("ReluBackward0", lambda g, x: g * (x > 0).to(g.dtype), None),
    "log1p": ("Log1PBackward0", lambda g, x: g / (x + 1), None),
    "deg2rad": ("Deg2RadBackward0", lambda g, x: g * (np.pi / 180), None),
    "rad2deg": ("Rad2DegBackward0", lambda g, x: g * (180 / np.pi), None),
    "frac": ("FracBackward0", lambda g, x: g, None),
    "sign": ("SignBackward0", None, None),
    "floor": ("FloorBackward0", None, None),
    "ceil": ("CeilBackward0", None, None),
    "round": ("RoundBackward0", None, None),
    "trunc": ("TruncBackward0", None, None),
    "sqrt": ("SqrtBackward0", None, "division"),
    "sin": ("SinBackward0", None, ("aten::cos", "comparison")),
    "sinh": ("SinhBackward0", None, ("aten::cosh", "elementwise")),
    "tanh": ("TanhBackward0", None, ("aten::tanh_backward", "elementwise")),
    "erf": ("ErfBackward0", None, ("aten::exp", "elementwise")),
    "expm1": ("Expm1Backward0", None, "add"),
    "asin": ("AsinBackward0", None, "add"),
    "atan": ("AtanBackward0", None, "add"),
    "tan": ("TanBackward0", None, "add"),
    "asinh": ("AsinhBackward0", None, "add"),
}


def _unary_method(name: str, node):
    def method(self):
        with _ops._no_grad():
            source = _ops.coalesce(self.detach())
            values = getattr(_wrap(source._sp_values), name)()._data
        result = make(source._sp_indices, values, self._data.shape, True)
        return record(node, (self,), result, indices=source._sp_indices,
                      values=source._sp_values, shape=self._data.shape)

    method.__name__ = name
    return method


def _install_unary() -> None:
    from ._tensor import make as _make

    globals()["make"] = _make
    for name, (node_name, formula, error) in _UNARY.items():
        if error == "division":
            raise_error = _division_error
        elif error == "add":
            raise_error = _add_error
        elif error is not None:
            raise_error = (lambda spec: lambda shape: backend_error(*spec))(error)
        else:
            raise_error = None
        node = _unary_node(node_name, formula, raise_error)
        setattr(SparseTensor, name, _unary_method(name, node))


_install_unary()
SparseTensor.square = lambda self: _ops.pow(self, 2)
SparseTensor.absolute = SparseTensor.abs
SparseTensor.fix = SparseTensor.trunc


# -- in-place forms (an optimizer's state: momentum buffers of sparse gradients) -------------
def _check_inplace(self) -> None:
    from ..autograd.grad_mode import state
    from ..tensor import LEAF_INPLACE

    if state.grad_enabled and self.requires_grad:
        if self._node is None:
            raise RuntimeError(LEAF_INPLACE)
        raise RuntimeError("leafgrad: in-place ops on a sparse tensor that records a graph are "
                           "not supported")


def _become(self, result) -> "SparseTensor":
    self._data = result._data
    self._sp_indices, self._sp_values = result._sp_indices, result._sp_values
    self._sp_coalesced = result._sp_coalesced
    self._bump_version()
    return self


@_method
def mul_(self, other):
    _check_inplace(self)
    with _ops._no_grad():
        return _become(self, _ops.mul(self, other))


@_method
def add_(self, other, *, alpha=1):
    _check_inplace(self)
    with _ops._no_grad():
        return _become(self, _ops.add(self, other, alpha))


@_method
def zero_(self):
    _check_inplace(self)
    shape = self._data.shape
    empty = make(np.zeros((self.sparse_dim(), 0), np.int64),
                 np.zeros((0,) + shape[self.sparse_dim():], self._sp_values.dtype), shape, True)
    return _become(self, empty)


@_method
def select(self, dim, index):
    return _ops.select(self, dim, index)


@_method
def unsqueeze(self, dim):
    return _ops.unsqueeze(self, dim)


@_method
def permute(self, *dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return _ops.permute(self, dims)


def __getitem__(self, index):  # noqa: N807 - installed as the method below
    items = index if isinstance(index, tuple) else (index,)
    if len(items) > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    if all(isinstance(item, int) and not isinstance(item, bool) for item in items) and items:
        for dim, item in enumerate(items):  # (torch names the dim indexed, in self)
            size = self.shape[dim]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {dim} with size "
                                 f"{size}")
        result = self
        for item in items:
            result = result.select(0, item)
        return result
    if isinstance(index, slice) or any(isinstance(item, slice) for item in items):
        if items and isinstance(items[0], slice) and items[0] == slice(None) and \
                len(items) == 2 and isinstance(items[1], int):
            return self.select(1, items[1])
        raise backend_error("aten::as_strided", "cpu")
    raise backend_error("aten::index.Tensor")


SparseTensor.__getitem__ = __getitem__
