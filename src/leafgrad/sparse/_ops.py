"""Sparse COO operations: conversions, products, sums and elementwise arithmetic, with their
nodes (see _autograd.py). Each forward follows the CPU kernel torch 2.13 runs (the order of
additions, what is coalesced, the coalesced flag of the result), each backward torch's formula
in derivatives.yaml."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from ..autograd.grad_mode import state as _grad_state
from ..tensor import Tensor, _wrap
from ._autograd import SparseNode, record, refuse_capture
from ._tensor import SparseTensor, coalesce_arrays, linear_keys, make

_INT64 = np.dtype(np.int64)


def _is_sparse(value) -> bool:
    return value.__class__ is SparseTensor


# -- conversions ---------------------------------------------------------------------------------
class SparseCooTensorWithDimsAndTensorsBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (gather(grad, self.saved("indices")),)


def from_values(indices: np.ndarray, values: Tensor, shape: tuple,
                coalesced: bool = False) -> SparseTensor:
    """A sparse tensor with ``values`` (a Tensor, recorded as torch's sparse_coo_tensor does
    when it requires grad) at ``indices``."""
    result = make(indices, values._data, shape, coalesced)
    return record(SparseCooTensorWithDimsAndTensorsBackward0, (values,), result,
                  indices=indices)


def gather(source: Tensor, indices: np.ndarray) -> Tensor:
    """``source`` (dense or sparse) read at each column of ``indices`` (its sparse dims):
    shape ``(nnz, *dense dims)``; a recorded Tensor expression."""
    if not _is_sparse(source):
        if not indices.shape[0]:  # no sparse dims: every entry reads the whole tensor
            return source.unsqueeze(0).expand((indices.shape[1],) + tuple(source.shape))
        return source[tuple(_wrap(row) for row in indices)]
    source = coalesce(source)
    sizes = source._data.shape[:indices.shape[0]]
    keys = linear_keys(source._sp_indices, sizes)
    wanted = linear_keys(indices, sizes)
    positions = np.searchsorted(keys, wanted)
    found = positions < keys.size
    found[found] = keys[positions[found]] == wanted[found]
    values = values_of(source)
    if not keys.size:
        shape = (indices.shape[1],) + values._data.shape[1:]
        return _wrap(np.zeros(shape, values._data.dtype))
    picked = values[_wrap(np.where(found, positions, 0))]
    if found.all():
        return picked
    mask = found.reshape((-1,) + (1,) * (picked.ndim - 1))
    return picked * _wrap(mask.astype(picked._data.dtype))


class ValuesBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (from_values(self.saved("indices"), grad, self.saved("shape"),
                            self.saved("coalesced")),)


def values_of(sparse: SparseTensor) -> Tensor:
    """``sparse.values()`` without the coalesced check (ValuesBackward0)."""
    result = _wrap(sparse._sp_values)
    return record(ValuesBackward0, (sparse,), result, indices=sparse._sp_indices,
                  shape=sparse._data.shape, coalesced=sparse._sp_coalesced)


values = values_of


class ToDenseBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        if _is_sparse(grad):
            return (grad,)
        indices = self.saved("indices")  # the input's coalesced indices (torch's sparse_mask)
        return (from_values(indices, gather(grad, indices), grad._data.shape, True),)


def to_dense(sparse: SparseTensor, dtype=None, masked_grad=None) -> Tensor:
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    refuse_capture()
    shape = sparse._data.shape
    values = sparse._sp_values
    out = np.zeros(shape, values.dtype)
    if values.size:
        # torch's add_out_dense_sparse_cpu: the coalesced values added one by one
        indices, values = coalesce_arrays(sparse._sp_indices, values,
                                          shape[:sparse._sp_indices.shape[0]])
        if indices.shape[0]:
            np.add.at(out, tuple(indices), values)
        else:  # no sparse dims: the one (coalesced) entry is the whole tensor
            out = out + values[0]
    result = _wrap(out)
    if _grad_state.grad_enabled and sparse.requires_grad:
        keys_source = sparse if sparse._sp_coalesced else None
        indices = keys_source._sp_indices if keys_source is not None else coalesce_arrays(
            sparse._sp_indices, sparse._sp_values, shape[:sparse._sp_indices.shape[0]])[0]
        return record(ToDenseBackward0, (sparse,), result, indices=indices)
    return result


class ToSparseBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (to_dense(grad) if _is_sparse(grad) else grad,)


class ToSparseBackward1(ToSparseBackward0):
    __slots__ = ()


def to_sparse(dense: Tensor, sparse_dim=None) -> SparseTensor:
    """``dense.to_sparse(sparse_dim)``: the nonzero entries (rows of the trailing dense dims
    with any nonzero), in row-major order, coalesced."""
    data = dense._data
    ndim = data.ndim
    if sparse_dim is None:
        dims = ndim
    else:
        dims = sparse_dim
        if not 0 <= dims <= ndim:
            raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{ndim}] "
                               f"range, but {dims} is given")
        if ndim > 0 and dims == 0:
            raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when "
                               "self.dim()>0")
    array = np.asarray(data)
    if dims == 0:
        indices = np.zeros((0, 1), np.int64)
        values = array.reshape((1,) + array.shape).copy()
    else:
        nonzero = array != 0
        if dims < ndim:
            rest = int(np.prod(array.shape[dims:]))
            nonzero = nonzero.reshape(array.shape[:dims] + (rest,)).any(-1)
        found = np.nonzero(nonzero)
        indices = np.array(found, dtype=np.int64).reshape(dims, found[0].size)
        values = array[tuple(indices)].copy()
    result = make(indices, values, array.shape, True)
    node = ToSparseBackward1 if sparse_dim is None else ToSparseBackward0
    return record(node, (dense,), result)


class CoalesceBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def coalesce(sparse: SparseTensor) -> SparseTensor:
    if sparse._sp_coalesced:
        return sparse
    shape = sparse._data.shape
    indices, values = coalesce_arrays(sparse._sp_indices, sparse._sp_values,
                                      shape[:sparse._sp_indices.shape[0]])
    return record(CoalesceBackward0, (sparse,), make(indices, values, shape, True))


class CloneBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def clone(sparse: SparseTensor) -> SparseTensor:
    result = make(sparse._sp_indices.copy(), sparse._sp_values.copy(), sparse._data.shape,
                  sparse._sp_coalesced)
    return record(CloneBackward0, (sparse,), result)


class TBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (transpose(grad, 0, 1, TBackward0),)


class TransposeBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (transpose(grad, self.saved("dim0"), self.saved("dim1")),)


def transpose(tensor, dim0: int, dim1: int, node=TransposeBackward0):
    if not _is_sparse(tensor):
        return tensor.t() if node is TBackward0 else tensor.transpose(dim0, dim1)
    sparse_dim = tensor._sp_indices.shape[0]
    ndim = tensor._data.ndim
    from ..tensor import _wrap_dim

    dim0, dim1 = _wrap_dim(dim0, ndim), _wrap_dim(dim1, ndim)
    if dim0 == dim1:
        result = make(tensor._sp_indices, tensor._sp_values, tensor._data.shape,
                      tensor._sp_coalesced)
        return record(node, (tensor,), result, dim0=dim0, dim1=dim1)
    if dim0 >= sparse_dim or dim1 >= sparse_dim:
        raise RuntimeError(f"transpose: dims must be sparse dimensions of a sparse tensor; "
                           f"got {dim0} and {dim1} for sparse_dim {sparse_dim}")
    order = list(range(sparse_dim))
    order[dim0], order[dim1] = order[dim1], order[dim0]
    shape = list(tensor._data.shape)
    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    result = make(tensor._sp_indices[order], tensor._sp_values, tuple(shape),
                  tensor._sp_coalesced and not tensor._sp_indices.shape[1])
    return record(node, (tensor,), result, dim0=dim0, dim1=dim1)


def t(tensor):
    ndim = tensor._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but "
                           f"got {tensor.sparse_dim()} sparse and {tensor.dense_dim()} dense "
                           "dimensions")
    if ndim < 2:
        return transpose(tensor, 0, 0, TBackward0)
    return transpose(tensor, 0, 1, TBackward0)


# -- products ------------------------------------------------------------------------------------
def _check_matrices(mat1, mat2, name: str = "addmm") -> None:
    for tensor in (mat1, mat2):
        if tensor._data.ndim != 2:
            raise RuntimeError(f"{name}: matrices expected, got {tensor._data.ndim}D tensor")


def _spmm_arrays(indices, values, dense, rows: int, alpha=1, beta=0, start=None):
    """torch's s_addmm_out_sparse_dense worker: the result's rows start as ``beta * start``
    (zeros for beta 0), then each stored entry (row, col, v), in the order stored, adds
    ``alpha * v`` times the dense row ``col`` into its row as one fused multiply-add
    (MKL's axpy)."""
    dtype = dense.dtype
    if start is None or beta == 0:
        out = np.zeros((rows, dense.shape[1]), dtype)
    elif beta == 1:
        out = np.array(np.broadcast_to(start, (rows, dense.shape[1])), dtype)
    else:
        out = np.array(np.broadcast_to(start * np.asarray(beta, dtype), (rows, dense.shape[1])),
                       dtype)
    if not values.size:
        return out
    row_of, col_of = indices[0], indices[1]
    scaled = values if alpha == 1 else values * np.asarray(alpha, dtype)
    # the k-th stored entry of every row at once, k = 0, 1, ...: each row's additions stay in
    # the stored order
    order = np.argsort(row_of, kind="stable")
    sorted_rows = row_of[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_rows[1:] != sorted_rows[:-1])))
    counts = np.diff(np.append(starts, sorted_rows.size))
    from ..ops._float_kernels import fma

    for k in range(int(counts.max())):
        groups = np.flatnonzero(counts > k)
        entries = order[starts[groups] + k]
        target = row_of[entries]
        weights = scaled[entries][:, None]
        products = dense[col_of[entries]]
        if dtype.kind == "f":
            out[target] = fma(weights, products, out[target]).astype(dtype, copy=False)
        else:
            out[target] = out[target] + weights * products
    return out


class SparseAddmmBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        alpha, beta = self.saved("alpha"), self.saved("beta")
        mat1, mat2 = self.saved("mat1"), self.saved("mat2")
        grad_self = grad_mat1 = grad_mat2 = None
        if self.needs_grad(0):
            grad_self = grad if beta == 1 else grad * beta
        if self.needs_grad(1):
            # torch's mm_mat1_sparse_backward: grad @ mat2^T, at mat1's (coalesced) entries
            product = grad.mm(mat2.t())
            if alpha != 1:
                product = product * alpha
            indices = self.saved("coalesced_indices")
            mask = make(indices, np.zeros(indices.shape[1], mat1._data.dtype), mat1._data.shape,
                        True)  # (only its pattern is read)
            grad_mat1 = sparse_mask(product, mask)
        if self.needs_grad(2):
            grad_mat2 = mm(t(mat1), grad)
            if alpha != 1:
                grad_mat2 = grad_mat2 * alpha
        return (grad_self, grad_mat1, grad_mat2)


def addmm(input, mat1: SparseTensor, mat2: Tensor, *, beta=1, alpha=1,
          node=SparseAddmmBackward0) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` for a sparse mat1 and dense mat2 and input
    (torch's _sparse_addmm)."""
    _check_matrices(mat1, mat2)
    if mat1._sp_indices.shape[0] != 2:
        raise RuntimeError(f"addmm: matrices expected, got {mat1._sp_indices.shape[0]}D tensor")
    if mat1._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"expected scalar type {_dtype_name(mat1)} but found "
                           f"{_dtype_name(mat2)}")
    refuse_capture()
    rows, inner = mat1._data.shape
    if mat2._data.shape[0] != inner:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {inner}, got "
                           f"{mat2._data.shape[0]}")
    start = None
    if input is not None:
        if input._data.dtype != mat1._data.dtype:
            raise RuntimeError(f"expected scalar type {_dtype_name(mat1)} but found "
                               f"{_dtype_name(input)}")
        _check_expand(input._data.shape, (rows, mat2._data.shape[1]))
        start = np.asarray(input._data)
    dense = np.asarray(mat2._data)
    out = _spmm_arrays(mat1._sp_indices, mat1._sp_values, dense, rows, alpha, beta, start)
    result = _wrap(out)
    inputs = (input, mat1, mat2)
    if not _grad_state.grad_enabled or not any(
            isinstance(x, Tensor) and x.requires_grad for x in inputs):
        return result
    coalesced_indices = mat1._sp_indices if mat1._sp_coalesced else coalesce_arrays(
        mat1._sp_indices, mat1._sp_values, mat1._data.shape)[0]
    return record(node, inputs, result, mat1=mat1, mat2=mat2, alpha=alpha, beta=beta,
                  coalesced_indices=coalesced_indices)


def _check_expand(shape: tuple, target: tuple) -> None:
    """torch's expand check (the last dims first), for addmm's input."""
    if len(shape) > len(target):
        raise RuntimeError(f"The number of sizes provided ({len(target)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({len(shape)})")
    for back in range(1, len(shape) + 1):
        have, want = shape[-back], target[-back]
        if have != want and have != 1:
            raise RuntimeError(f"The expanded size of the tensor ({want}) must match the "
                               f"existing size ({have}) at non-singleton dimension "
                               f"{len(target) - back}.  Target sizes: {list(target)}.  Tensor "
                               f"sizes: {list(shape)}")


def _dtype_name(tensor) -> str:
    return tensor.dtype._legacy


def sparse_mm(mat1, mat2) -> Tensor:
    """torch.sparse.mm: sparse @ dense (SparseAddmmBackward0), sparse @ sparse."""
    if not _is_sparse(mat1) and not _is_sparse(mat2):
        return mat1.mm(mat2)
    if _is_sparse(mat2):
        if not _is_sparse(mat1):  # torch.sparse.mm's composite: (mat2^T @ mat1^T)^T
            return sparse_mm(transpose(mat2, 0, 1), mat1.transpose(0, 1)).transpose(0, 1)
        return sparse_sparse_mm(mat1, mat2)
    if mat2._data.ndim < 2:
        _dim_error(mat2._data.ndim)
    return addmm(None, mat1, mat2, beta=0)


def _dim_error(ndim: int):
    raise IndexError(f"Dimension out of range (expected to be in range of [-{max(ndim, 1)}, "
                     f"{max(ndim, 1) - 1}], but got 1)")


class MmBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        mat1, mat2 = self.saved("mat1"), self.saved("mat2")
        grad_mat1 = grad_mat2 = None
        if self.needs_grad(0):
            grad_mat1 = mm(grad, t(mat2))  # torch gives a sparse mat1 a dense gradient here
        if self.needs_grad(1):
            grad_mat2 = mm(t(mat1), grad)
        return (grad_mat1, grad_mat2)


def mm(mat1, mat2) -> Tensor:
    """torch.mm with a sparse operand (MmBackward0)."""
    if not _is_sparse(mat1) and not _is_sparse(mat2):
        return mat1.mm(mat2)
    if _is_sparse(mat1) and _is_sparse(mat2):
        return sparse_sparse_mm(mat1, mat2)
    if _is_sparse(mat1):
        if mat2._data.ndim < 2:
            _dim_error(mat2._data.ndim)
        with _no_grad():
            result = addmm(None, mat1, mat2, beta=0)
    else:
        # dense @ sparse: (sparse^T @ dense^T)^T, as torch computes it: the result has the
        # transposed layout
        _check_matrices(mat1, mat2, "mm")
        with _no_grad():
            result = _wrap(addmm(None, transpose(mat2, 0, 1), mat1.transpose(0, 1),
                                 beta=0)._data.T)
    return record(MmBackward0, (mat1, mat2), result, mat1=mat1, mat2=mat2)


class SparseSparseMatmulBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        mat1, mat2 = self.saved("mat1"), self.saved("mat2")
        grad_mat1 = grad_mat2 = None
        if self.needs_grad(0):
            grad_mat1 = _mask_like(sparse_sparse_mm(_as_sparse(grad), t(mat2)), mat1)
        if self.needs_grad(1):
            grad_mat2 = _mask_like(sparse_sparse_mm(t(mat1), _as_sparse(grad)), mat2)
        return (grad_mat1, grad_mat2)


def _as_sparse(tensor):
    return tensor if _is_sparse(tensor) else to_sparse(tensor)


def _mask_like(grad, like: SparseTensor):
    indices = like._sp_indices if like._sp_coalesced else coalesce_arrays(
        like._sp_indices, like._sp_values, like._data.shape)[0]
    return from_values(indices, gather(grad, indices), like._data.shape)


def sparse_sparse_mm(mat1: SparseTensor, mat2: SparseTensor) -> SparseTensor:
    """sparse @ sparse: a coalesced sparse product (SparseSparseMatmulBackward0)."""
    _check_matrices(mat1, mat2, "mm")
    if mat1._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1._data.shape[0]}x"
                           f"{mat1._data.shape[1]} and {mat2._data.shape[0]}x"
                           f"{mat2._data.shape[1]})")
    a = coalesce(mat1.detach()) if not mat1._sp_coalesced else mat1
    b = coalesce(mat2.detach()) if not mat2._sp_coalesced else mat2
    rows, cols = mat1._data.shape[0], mat2._data.shape[1]
    # the product as a dense matrix of the two, summed per output entry
    left = np.zeros(mat1._data.shape, mat1._data.dtype)
    left[tuple(a._sp_indices)] = a._sp_values
    right = np.zeros(mat2._data.shape, mat2._data.dtype)
    right[tuple(b._sp_indices)] = b._sp_values
    product = left @ right
    pattern = (np.abs(left) > 0).astype(np.int64) @ (np.abs(right) > 0).astype(np.int64)
    indices = np.array(np.nonzero(pattern), dtype=np.int64).reshape(2, -1)
    result = make(indices, product[tuple(indices)], (rows, cols), True)
    return record(SparseSparseMatmulBackward0, (mat1, mat2), result, mat1=mat1, mat2=mat2)


class _no_grad:
    def __enter__(self):
        self.previous = _grad_state.grad_enabled
        _grad_state.grad_enabled = False

    def __exit__(self, *exc):
        _grad_state.grad_enabled = self.previous


# -- sums ----------------------------------------------------------------------------------------
class SumBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        indices, shape = self.saved("indices"), self.saved("shape")
        dense = self.saved("dense_shape")
        values = grad.expand((indices.shape[1],) + dense)
        return (from_values(indices, values, shape, True),)


class SparseSumBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        indices, shape = self.saved("indices"), self.saved("shape")
        kept_sparse, dense_dims = self.saved("kept_sparse"), self.saved("dense_dims")
        sparse_dim = indices.shape[0]
        if self._saved.get("keepdim_shape") is not None:  # sum(dim, keepdim=True)
            full = indices.copy()
            full[[d for d in range(sparse_dim) if d not in kept_sparse]] = 0
            picked = gather(grad, full).expand((indices.shape[1],) + tuple(shape[sparse_dim:]))
            return (from_values(indices, picked, shape, True),)
        if _is_sparse(grad):
            picked = gather(grad, indices[kept_sparse]) if kept_sparse else \
                values_of(grad).expand((indices.shape[1],) + grad._sp_values.shape[1:])
        elif kept_sparse:
            picked = grad[tuple(_wrap(indices[d]) for d in kept_sparse)]
        else:
            picked = grad.expand((indices.shape[1],) + grad._data.shape)
        for dim in dense_dims:  # summed dense dims come back as size-1 dims, broadcast
            picked = picked.unsqueeze(1 + dim - sparse_dim)
        picked = picked.expand((indices.shape[1],) + tuple(shape[sparse_dim:]))
        if dense_dims:
            picked = picked.contiguous()  # (torch's _sparse_sum_backward materialises them)
        return (from_values(indices, picked, shape, bool(kept_sparse)),)


def sparse_sum(sparse: SparseTensor, dim=None, dtype=None, *, node=SparseSumBackward0,
               raw: bool = False):
    """torch.sparse.sum: every element (a dense 0-d tensor: the coalesced values summed, or
    the stored ones with ``raw``, as Tensor.sum() does) or over ``dim`` (sparse unless every
    sparse dim is summed). Over dims, torch sums the stored values as they are: the kept
    indices are coalesced afterwards (duplicates added in stored order)."""
    from ..tensor import _wrap_dim

    shape = sparse._data.shape
    ndim = len(shape)
    source = sparse if dtype is None else to_dtype(sparse, dtype)
    sparse_dim = source._sp_indices.shape[0]
    indices = source._sp_indices if source._sp_coalesced else coalesce_arrays(
        source._sp_indices, source._sp_values, shape[:sparse_dim])[0]  # the gradient's
    if dim is None:
        values = source._sp_values if raw else coalesce(source.detach())._sp_values
        result = _wrap(_dense_sum(values, None))
        return record(SumBackward0, (source,), result, indices=indices, shape=shape,
                      dense_shape=tuple(shape[sparse_dim:]))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = sorted({_wrap_dim(d, ndim) for d in dims})
    kept_sparse = [d for d in range(sparse_dim) if d not in dims]
    dense_dims = [d for d in dims if d >= sparse_dim]
    values = source._sp_values
    if dense_dims:
        values = _dense_sum(values, tuple(1 + d - sparse_dim for d in dense_dims))
    if not kept_sparse:
        out = _dense_sum(values, 0) if values.shape[0] else np.zeros(values.shape[1:],
                                                                      values.dtype)
        result = _wrap(np.asarray(out))
    else:
        new_shape = tuple(shape[d] for d in range(ndim) if d not in dims)
        new_indices, values = coalesce_arrays(source._sp_indices[kept_sparse], values,
                                              tuple(shape[d] for d in kept_sparse))
        result = make(new_indices, values, new_shape, True)
    return record(node, (source,), result, indices=indices, shape=shape,
                  kept_sparse=kept_sparse, dense_dims=dense_dims, dims=dims)


def _dense_sum(values: np.ndarray, axis) -> np.ndarray:
    """A dense sum in leafgrad's (torch's) order of additions."""
    with _no_grad():
        tensor = _wrap(values)
        return np.asarray((tensor.sum() if axis is None else tensor.sum(axis))._data)


# -- elementwise -------------------------------------------------------------------------------
def _result_dtype(*operands):
    return _dtype.result_type(*operands)


class AddBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        alpha = self.saved("alpha")
        return (grad, grad if alpha == 1 else grad * alpha)


class SubBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        alpha = self.saved("alpha")
        return (grad, -grad if alpha == 1 else grad * -alpha)


def add(self, other, alpha=1, node=AddBackward0):
    """sparse + sparse (torch's add_out_sparse_contiguous merge) and dense + sparse."""
    if not isinstance(other, Tensor) or not _is_sparse(other):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                           "instead.")
    if self._data.shape != other._data.shape:
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but "
                           f"{list(self._data.shape)} != {list(other._data.shape)}")
    dtype = _dtype.promote_types(self.dtype, other.dtype).np
    sign = -1 if node is SubBackward0 else 1
    value = np.asarray(alpha * sign, dtype)
    if not other._nnz():
        result = make(self._sp_indices.copy(), self._sp_values.astype(dtype),
                      self._data.shape, self._sp_coalesced)
    elif not self._nnz():
        values = other._sp_values.astype(dtype) * value
        result = make(other._sp_indices.copy(), values.astype(dtype, copy=False),
                      self._data.shape, other._sp_coalesced)
    else:
        result = _merge(self, other, value, dtype)
    return record(node, (self, other), result, alpha=alpha)


def _merge(t: SparseTensor, src: SparseTensor, value, dtype) -> SparseTensor:
    """torch's add_out_sparse_contiguous: walk both index lists as if sorted; equal indices
    share one output entry, which gets t's value then ``value`` times src's."""
    t_idx, s_idx = t._sp_indices, src._sp_indices
    t_vals, s_vals = t._sp_values.astype(dtype), src._sp_values.astype(dtype)
    sizes = t._data.shape[:t_idx.shape[0]]
    t_keys, s_keys = linear_keys(t_idx, sizes).tolist(), linear_keys(s_idx, sizes).tolist()
    t_nnz, s_nnz = len(t_keys), len(s_keys)
    from_t, from_s = [], []  # per output entry: the t and src entry (or -1)
    ti = si = 0
    while ti < t_nnz or si < s_nnz:
        if ti >= t_nnz:
            cmp = -1
        elif si >= s_nnz:
            cmp = 1
        else:
            cmp = (t_keys[ti] < s_keys[si]) - (t_keys[ti] > s_keys[si])
        a = b = -1
        if cmp >= 0:
            a = ti
            ti += 1
        if cmp <= 0:
            b = si
            si += 1
        from_t.append(a)
        from_s.append(b)
    from_t, from_s = np.array(from_t, np.int64), np.array(from_s, np.int64)
    count = from_t.size
    out = np.zeros((count,) + t_vals.shape[1:], dtype)
    has_t, has_s = from_t >= 0, from_s >= 0
    out[has_t] = out[has_t] + t_vals[from_t[has_t]]
    out[has_s] = out[has_s] + value * s_vals[from_s[has_s]]
    indices = np.where(has_s, s_idx[:, np.maximum(from_s, 0)], t_idx[:, np.maximum(from_t, 0)])
    return make(indices.astype(np.int64).reshape(t_idx.shape[0], count), out, t._data.shape,
                t._sp_coalesced and src._sp_coalesced)


class DenseAddBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        alpha = self.saved("alpha")
        return (grad, grad if alpha == 1 else grad * alpha)


def dense_add(dense: Tensor, sparse: SparseTensor, alpha=1, subtract=False) -> Tensor:
    """dense + sparse: the dense tensor with the stored values added one by one, in their
    order (duplicates are not summed first); a dense result."""
    if dense._data.shape != sparse._data.shape:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has "
                           f"size {list(dense._data.shape)} while other has size "
                           f"{list(sparse._data.shape)} (FYI: dense-sparse addition does not "
                           "currently support broadcasting)")
    dtype = _dtype.promote_types(dense.dtype, sparse.dtype).np
    out = np.array(dense._data, dtype)
    _scatter_add(out, sparse._sp_indices, sparse._sp_values, -alpha if subtract else alpha)
    result = _wrap(out)
    node = DenseSubBackward0 if subtract else DenseAddBackward0
    return record(node, (dense, sparse), result, alpha=alpha)


class DenseSubBackward0(DenseAddBackward0):
    __slots__ = ()

    def backward(self, grad):
        alpha = self.saved("alpha")
        return (grad, -grad if alpha == 1 else grad * -alpha)


DenseAddBackward0.__name__ = DenseAddBackward0.__qualname__ = "AddBackward0"
DenseSubBackward0.__name__ = DenseSubBackward0.__qualname__ = "SubBackward0"


class MulBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        other = self.saved("other")
        self_ = self.saved("self")
        grad_self = grad_other = None
        if self.needs_grad(0):
            grad_self = mul(grad, other)
        if self.needs_grad(1):
            grad_other = mul(grad, self_)
        return (grad_self, grad_other)


def mul(a, b):
    """``a * b`` where one operand is sparse: times a number or 0-d tensor (the pattern
    kept), times a dense tensor (the sparse one coalesced, the dense one read at its
    entries), times a sparse tensor (the entries both have)."""
    if not _is_sparse(a):
        a, b = b, a
        swapped = True
    else:
        swapped = False
    if not isinstance(b, Tensor) or (not _is_sparse(b) and b._data.ndim == 0):
        dtype = _result_dtype(a, b)
        scalar = b._data if isinstance(b, Tensor) else b
        values = a._sp_values.astype(dtype.np) * np.asarray(scalar, dtype.np)
        result = make(a._sp_indices, values.astype(dtype.np, copy=False), a._data.shape,
                      a._sp_coalesced)
    elif _is_sparse(b):
        result = _mul_sparse(a, b)
    else:
        result = _mul_dense(a, b)
    operands = (b, a) if swapped else (a, b)
    return record(MulBackward0, operands, result, self=operands[0], other=operands[1])


def _mul_dense(sparse: SparseTensor, dense: Tensor) -> SparseTensor:
    dtype = _dtype.promote_types(sparse.dtype, dense.dtype).np
    if dense._data.shape != sparse._data.shape[-dense._data.ndim:] and \
            dense._data.shape != sparse._data.shape:
        raise RuntimeError(f"mul(sparse, dense): shapes {list(sparse._data.shape)} and "
                           f"{list(dense._data.shape)} cannot be broadcast")
    if not sparse._nnz():
        return make(np.zeros((sparse._data.ndim, 0), np.int64), np.zeros(0, dtype),
                    sparse._data.shape, True)
    # torch's intersection_binary_op_sparse_dense_out: the entries as stored (an uncoalesced
    # tensor stays so), each times the dense value at its index
    if dense._data.ndim > sparse._data.ndim:
        raise RuntimeError(f"mul(sparse, dense): a dense operand of higher rank "
                           f"({dense._data.ndim} > {sparse._data.ndim}) is not supported")
    source = sparse
    sparse_dim = source._sp_indices.shape[0]
    dense_dim = source._sp_values.ndim - 1
    array = np.asarray(dense._data)
    if array.ndim <= dense_dim:
        picked = array
    else:
        skip = sparse._data.ndim - array.ndim
        index = tuple(source._sp_indices[d] for d in range(skip, sparse_dim))
        picked = array[index] if skip == 0 else array[(Ellipsis,) + index]
    values = (picked.astype(dtype) * source._sp_values.astype(dtype)).astype(dtype,
                                                                          copy=False)
    return make(source._sp_indices, values, sparse._data.shape, source._sp_coalesced)


def _mul_sparse(a: SparseTensor, b: SparseTensor) -> SparseTensor:
    """The entries both have. Coalesced operands give the coalesced intersection; otherwise
    torch's intersection kernel walks the operand with fewer entries (the first on a tie) in
    its stored order and reads the other, coalesced, at each (an uncoalesced result)."""
    if a._data.shape != b._data.shape:
        raise RuntimeError(f"mul(sparse, sparse): shapes {list(a._data.shape)} and "
                           f"{list(b._data.shape)} differ")
    dtype = _dtype.promote_types(a.dtype, b.dtype).np
    sizes = a._data.shape[:a._sp_indices.shape[0]]
    both = a._sp_coalesced and b._sp_coalesced
    source_first = a._nnz() <= b._nnz()
    source, probe = (a, b) if source_first else (b, a)
    pi, pv = (probe._sp_indices, probe._sp_values) if probe._sp_coalesced else \
        coalesce_arrays(probe._sp_indices, probe._sp_values, sizes)
    probe_keys = linear_keys(pi, sizes)
    keys = linear_keys(source._sp_indices, sizes)
    positions = np.searchsorted(probe_keys, keys)
    found = positions < probe_keys.size
    found[found] = probe_keys[positions[found]] == keys[found]
    entries = np.flatnonzero(found)
    mine = source._sp_values[entries].astype(dtype)
    theirs = pv[positions[entries]].astype(dtype)
    values = mine * theirs if source_first else theirs * mine
    indices = np.ascontiguousarray(source._sp_indices[:, entries])
    return make(indices, values.astype(dtype, copy=False), a._data.shape, both)


class DivBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (mul(grad, 1 / self.saved("other")),) if _is_sparse(grad) else \
            (grad / self.saved("other"),)


def div(sparse: SparseTensor, other):
    if isinstance(other, Tensor) and (_is_sparse(other) or other._data.ndim):
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor "
                           f"divisor (got shape {list(other.shape)} for divisor)")
    dtype = _result_dtype(sparse, other)
    if not dtype.is_floating_point and not dtype.is_complex:
        dtype = _dtype.get_default_dtype()
    divisor = other._data if isinstance(other, Tensor) else other
    with np.errstate(divide="ignore", invalid="ignore"):
        values = sparse._sp_values.astype(dtype.np) / np.asarray(divisor, dtype.np)
    result = make(sparse._sp_indices, values.astype(dtype.np, copy=False), sparse._data.shape,
                  sparse._sp_coalesced)
    value = other.item() if isinstance(other, Tensor) else other
    return record(DivBackward0, (sparse, other), result, other=value)


class NegBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (-grad,)


def neg(sparse: SparseTensor) -> SparseTensor:
    result = make(sparse._sp_indices, -sparse._sp_values, sparse._data.shape,
                  sparse._sp_coalesced)
    return record(NegBackward0, (sparse,), result)


class PowBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        exponent, base = self.saved("exponent"), self.saved("self")
        if exponent == 0:
            return (mul(grad, 0),)
        return (mul(grad, mul(pow(base, exponent - 1), exponent)),)


def pow(sparse: SparseTensor, exponent) -> SparseTensor:
    if isinstance(exponent, Tensor):
        if exponent._data.ndim:
            raise RuntimeError("pow: exponent of a sparse tensor must be a scalar")
        exponent = exponent.item()
    if exponent == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make "
                           "the result tensor dense")
    with _no_grad():
        source = coalesce(sparse.detach())
    dtype = _result_dtype(sparse, exponent)
    base = _wrap(source._sp_values.astype(dtype.np, copy=False))
    with _no_grad():
        values = (base ** exponent)._data
    result = make(source._sp_indices, values, sparse._data.shape, True)
    return record(PowBackward0, (sparse,), result, exponent=exponent, self=sparse)


class ToCopyBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        return (to_dtype(grad, self.saved("dtype")),)


def to_dtype(sparse, dtype):
    if not _is_sparse(sparse):
        return sparse.to(dtype)
    if sparse.dtype == dtype:
        return sparse
    result = make(sparse._sp_indices, sparse._sp_values.astype(dtype.np), sparse._data.shape,
                  sparse._sp_coalesced)
    if not sparse._sp_values.flags.c_contiguous:
        result.__dict__["_strided_values"] = True  # (torch's copy keeps the values' strides)
    return record(ToCopyBackward0, (sparse,), result, dtype=sparse.dtype)


class AddmmBackward0(SparseAddmmBackward0):
    """torch.addmm with a sparse mat1: torch's AddmmBackward0, whose mat1 gradient is dense
    (``grad @ mat2^T``, as torch.mm's)."""

    __slots__ = ()

    def backward(self, grad):
        grad_self, _, grad_mat2 = super().backward(grad) if (
            self.needs_grad(0) or self.needs_grad(2)) else (None, None, None)
        grad_mat1 = None
        if self.needs_grad(1):
            alpha = self.saved("alpha")
            grad_mat1 = mm(grad, self.saved("mat2").t())
            if alpha != 1:
                grad_mat1 = grad_mat1 * alpha
        return (grad_self, grad_mat1, grad_mat2)


def accumulate_sparse(leaf: Tensor, grad: SparseTensor) -> None:
    """AccumulateGrad of a dense leaf given a sparse gradient (``(sparse * dense)``'s, for the
    dense operand): stored sparse as torch stores it, or added to the dense one it has."""
    old = leaf._grad_value
    if old is None:
        leaf._grad_value = stored_grad(grad)
    elif _is_sparse(old):
        leaf._grad_value = add(old, grad)
    else:
        leaf._grad_value = dense_add(old, grad)


def stored_grad(grad):
    """What AccumulateGrad stores of a first gradient. A sparse one is re-made around its
    indices and values when those are contiguous (torch's _sparse_coo_tensor_unsafe, whose
    coalesced flag is set only below two entries), else cloned (its flag kept: sum()'s
    expanded values, also through ``.to(dtype)``, whose copy keeps their strides). (torch
    also clones when something else holds the gradient, which a leaf reached by two paths
    sometimes meets: its flag can differ there; docs/known-differences.md.)"""
    if not _is_sparse(grad):
        return grad if grad._node is None else grad.detach()
    values = grad._sp_values
    if values.flags.c_contiguous and not grad.__dict__.get("_strided_values"):
        return make(grad._sp_indices, values, grad._data.shape, grad._nnz() < 2)
    return make(grad._sp_indices.copy(), values.copy(), grad._data.shape, grad._sp_coalesced)


class SparseMaskBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        indices = self.saved("indices")
        masked = from_values(indices, gather(grad, indices), grad._data.shape)
        return (to_dense(masked),)


def sparse_mask(dense: Tensor, mask) -> SparseTensor:
    """``dense.sparse_mask(mask)``: the dense values at each of ``mask``'s stored indices (its
    order and duplicates kept)."""
    if not _is_sparse(mask):
        from ._tensor import _BACKENDS_TAIL

        raise NotImplementedError(
            "Could not run 'aten::sparse_mask' with arguments from the 'CPU' backend. This "
            "could be because the operator doesn't exist for this backend, or was omitted "
            "during the selective/custom build process (if using custom build). If you are a "
            "Facebook employee using PyTorch on mobile, please visit "
            "https://fburl.com/ptmfixes for possible resolutions. 'aten::sparse_mask' is only "
            "available for these backends: [Meta, SparseCPU, SparseCsrCPU, SparseCsrMeta, "
            + _BACKENDS_TAIL)
    if tuple(dense.shape) != mask._data.shape:
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(dense.shape)} but mask has size {list(mask._data.shape)}")
    indices = mask._sp_indices
    array = np.asarray(dense._data)
    values = array[tuple(indices)] if indices.shape[0] else np.broadcast_to(
        array, (indices.shape[1],) + array.shape).copy()
    result = make(indices, np.ascontiguousarray(values), mask._data.shape, mask._sp_coalesced)
    return record(SparseMaskBackward0, (dense,), result, indices=indices)


def dense_add_(dense: Tensor, sparse: SparseTensor, alpha=1) -> Tensor:
    """``dense.add_(sparse, alpha=alpha)``: the stored values times alpha added in place one
    by one (an optimizer's step with a sparse gradient)."""
    from ..tensor import LEAF_INPLACE, check_inplace_allowed

    check_inplace_allowed(dense, leaf_first=True)
    if _grad_state.grad_enabled and (dense.requires_grad or sparse.requires_grad):
        if dense._requires_grad and dense._node is None:
            raise RuntimeError(LEAF_INPLACE)
        raise RuntimeError("leafgrad: an in-place dense += sparse that records a graph is not "
                           "supported")
    if dense._data.shape != sparse._data.shape:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has "
                           f"size {list(dense._data.shape)} while other has size "
                           f"{list(sparse._data.shape)} (FYI: dense-sparse addition does not "
                           "currently support broadcasting)")
    _scatter_add(dense._data, sparse._sp_indices, sparse._sp_values, alpha)
    dense._bump_version()
    return dense


def _scatter_add(out: np.ndarray, indices: np.ndarray, values: np.ndarray, alpha) -> None:
    """``out[index] += alpha * value`` for each stored entry in order, each a fused
    multiply-add as torch's dense += sparse kernel computes it (duplicates one after another)."""
    refuse_capture()
    if not indices.shape[1]:
        return
    dtype = out.dtype
    scale = np.asarray(alpha, dtype)
    if not indices.shape[0]:  # no sparse dims: every entry adds to the whole tensor
        for value in values:
            out[...] = _fused(scale, value.astype(dtype), out, dtype)
        return
    keys = linear_keys(indices, out.shape[:indices.shape[0]])
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    rank = np.empty(keys.size, np.int64)
    rank[order] = np.arange(keys.size) - np.repeat(starts, np.diff(np.append(starts, keys.size)))
    for k in range(int(rank.max()) + 1):
        entries = np.flatnonzero(rank == k)
        where = tuple(indices[:, entries])
        out[where] = _fused(scale, values[entries].astype(dtype), out[where], dtype)


def _fused(scale, values, current, dtype):
    if dtype.kind == "f":
        from ..ops._float_kernels import fma

        return fma(np.broadcast_to(scale, values.shape), values, current).astype(dtype,
                                                                                   copy=False)
    return current + scale * values


# -- select, unsqueeze, permute ------------------------------------------------------------------
class SelectBackward0(SparseNode):
    """torch's select_backward: a dense gradient goes back into zeros of the input's shape;
    a sparse one has no kernel (torch's error)."""

    __slots__ = ()

    def backward(self, grad):
        if _is_sparse(grad):
            from ._tensor import backend_error

            raise backend_error("aten::select_backward")
        shape, dim, index = self.saved("shape"), self.saved("dim"), self.saved("index")
        zeros = grad.new_zeros(shape)
        zeros[(slice(None),) * dim + (index,)] = grad
        return (zeros,)


def select(sparse: SparseTensor, dim: int, index: int):
    """``sparse.select(dim, index)`` (and ``sparse[index]``): the entries at ``index`` along a
    sparse dim (a dense result once no sparse dim is left: their values summed in stored
    order), or the values' slice along a dense dim."""
    from ..tensor import _wrap_dim

    shape = sparse._data.shape
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, len(shape))
    size = shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    index %= size
    indices, values = sparse._sp_indices, sparse._sp_values
    sparse_dim = indices.shape[0]
    new_shape = shape[:dim] + shape[dim + 1:]
    if dim >= sparse_dim:
        picked = np.ascontiguousarray(np.take(values, index, axis=1 + dim - sparse_dim))
        result = make(indices, picked, new_shape, sparse._sp_coalesced)
    else:
        entries = np.flatnonzero(indices[dim] == index)
        if sparse_dim == 1:
            total = np.zeros(values.shape[1:], values.dtype)
            for entry in entries:  # (the stored order)
                total = total + values[entry]
            result = _wrap(np.asarray(total, values.dtype))
        else:
            kept = np.ascontiguousarray(np.delete(indices[:, entries], dim, axis=0))
            result = make(kept, values[entries], new_shape, entries.size < 2)
    return record(SelectBackward0, (sparse,), result, shape=shape, dim=dim, index=index)


class UnsqueezeBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        if _is_sparse(grad):
            from ._tensor import backend_error

            raise backend_error("aten::as_strided", "cpu")
        return (grad.squeeze(self.saved("dim")),)


def unsqueeze(sparse: SparseTensor, dim: int) -> SparseTensor:
    from ..tensor import _wrap_dim

    shape = sparse._data.shape
    dim = _wrap_dim(dim, len(shape) + 1)
    indices, values = sparse._sp_indices, sparse._sp_values
    sparse_dim = indices.shape[0]
    new_shape = shape[:dim] + (1,) + shape[dim:]
    if dim <= sparse_dim:
        rows = np.insert(indices, dim, 0, axis=0).reshape(sparse_dim + 1, indices.shape[1])
        result = make(rows, values, new_shape, indices.shape[1] < 2)
    else:
        result = make(indices, np.expand_dims(values, 1 + dim - sparse_dim), new_shape,
                      indices.shape[1] < 2)
    return record(UnsqueezeBackward0, (sparse,), result, dim=dim)


class PermuteBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        inverse = tuple(np.argsort(self.saved("dims")).tolist())
        return (permute(grad, inverse) if _is_sparse(grad) else grad.permute(inverse),)


def permute(sparse: SparseTensor, dims) -> SparseTensor:
    from ..tensor import _wrap_dim

    ndim = sparse._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {ndim} is not equal to len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, ndim) for d in dims)
    if len(set(dims)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    sparse_dim = sparse._sp_indices.shape[0]
    if any((d < sparse_dim) != (k < sparse_dim) for k, d in enumerate(dims)):
        raise RuntimeError("permute(sparse_coo): transpositions between sparse and dense "
                           "dimensions are not allowed.Only transpositions within sparse and "
                           "dense dimensions are supported.")
    shape = tuple(sparse._data.shape[d] for d in dims)
    indices = np.ascontiguousarray(sparse._sp_indices[list(dims[:sparse_dim])])
    values = sparse._sp_values
    if ndim > sparse_dim:
        values = np.ascontiguousarray(values.transpose(
            (0,) + tuple(1 + d - sparse_dim for d in dims[sparse_dim:])))
    identity = dims == tuple(range(ndim))
    coalesced = sparse._sp_coalesced if identity else False
    return record(PermuteBackward0, (sparse,), make(indices, values, shape, coalesced),
                  dims=dims)


class CatBackward0(SparseNode):
    """torch's cat backward narrows the gradient: a dense one is cut into the inputs' pieces,
    a sparse one has no kernel for it (torch's as_strided error)."""

    __slots__ = ()

    def backward(self, grad):
        if _is_sparse(grad):
            from ._tensor import backend_error

            raise backend_error("aten::as_strided", "cpu")
        dim, sizes = self.saved("dim"), self.saved("sizes")
        pieces, start = [], 0
        for size in sizes:
            pieces.append(grad.narrow(dim, start, size))
            start += size
        return tuple(pieces)


def cat(tensors, dim: int = 0) -> SparseTensor:
    """torch.cat of sparse tensors along a sparse dim: the entries of each in turn, their
    indices along ``dim`` moved past the tensors before (an uncoalesced result)."""
    from ..tensor import _wrap_dim

    tensors = list(tensors)
    for position, tensor in enumerate(tensors):
        if not _is_sparse(tensor):
            raise RuntimeError(f"Concatenating sparse tensors, but a dense tensor was found at "
                               f"position {position}.")
    first = tensors[0]
    ndim = first._data.ndim
    dim = _wrap_dim(dim, ndim)
    sparse_dim = first._sp_indices.shape[0]
    for position, tensor in enumerate(tensors[1:], 1):
        shape = tensor._data.shape
        if tensor._data.ndim != ndim or any(
                d != dim and shape[d] != first._data.shape[d] for d in range(ndim)):
            raise RuntimeError(f"All tensors must have the same shape: {list(first._data.shape)}"
                               f" (except in the concatenating dimension), but found shape: "
                               f"{list(shape)} at position {position}.")
        if tensor._sp_indices.shape[0] != sparse_dim:
            raise RuntimeError("leafgrad: torch.cat of sparse tensors with different sparse "
                               "dims is not supported")
    if dim >= sparse_dim:
        raise NotImplementedError("leafgrad: torch.cat of sparse tensors along a dense dim is "
                                  "not supported")
    dtype = first.dtype
    for tensor in tensors[1:]:
        dtype = _dtype.promote_types(dtype, tensor.dtype)
    rows, values, offset = [], [], 0
    for tensor in tensors:
        moved = tensor._sp_indices.copy()
        moved[dim] += offset
        offset += tensor._data.shape[dim]
        rows.append(moved)
        values.append(tensor._sp_values.astype(dtype.np, copy=False))
    shape = first._data.shape[:dim] + (offset,) + first._data.shape[dim + 1:]
    result = make(np.concatenate(rows, axis=1), np.concatenate(values, axis=0), shape, False)
    return record(CatBackward0, tuple(tensors), result, dim=dim,
                  sizes=[t._data.shape[dim] for t in tensors])


def empty_like_sparse(sparse: SparseTensor, dtype=None, requires_grad=False) -> SparseTensor:
    """zeros_like of a sparse tensor: no entries, the same sparse and dense dims."""
    shape = sparse._data.shape
    sparse_dim = sparse._sp_indices.shape[0]
    np_dtype = sparse._sp_values.dtype if dtype is None else dtype.np
    result = make(np.zeros((sparse_dim, 0), np.int64), np.zeros((0,) + shape[sparse_dim:],
                                                                 np_dtype), shape, True)
    return result._set_requires_grad(requires_grad) if requires_grad else result
