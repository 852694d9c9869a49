"""Sparse operations for neural networks: torch.sparse.softmax/log_softmax and embedding's
sparse gradient (their nodes as in _ops.py)."""

from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import state as _grad_state
from ..tensor import Tensor, _wrap
from ._autograd import SparseNode, record
from ._ops import _no_grad, coalesce, from_values, gather, linear_keys, make, to_dtype
from ._tensor import SparseTensor


# -- softmax -------------------------------------------------------------------------------------
class SparseSoftmaxBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        out, dim = self.saved("output"), self.saved("dim")
        g = gather(grad, out._sp_indices)
        y = _wrap(out._sp_values)
        product = g * y
        summed = _group_sum(product, out, dim)
        return (from_values(out._sp_indices, y * (g - summed), out._data.shape),)


class SparseLogSoftmaxBackward0(SparseNode):
    __slots__ = ()

    def backward(self, grad):
        out, dim = self.saved("output"), self.saved("dim")
        g = gather(grad, out._sp_indices)
        y = _wrap(out._sp_values)
        summed = _group_sum(g, out, dim)
        return (from_values(out._sp_indices, g - y.exp() * summed, out._data.shape),)


def _groups(indices: np.ndarray, dim: int, sizes: tuple) -> np.ndarray:
    """Which group (the entries sharing every index but ``dim``'s) each entry is in."""
    rest = [d for d in range(indices.shape[0]) if d != dim]
    keys = linear_keys(indices[rest], tuple(sizes[d] for d in rest))
    return np.unique(keys, return_inverse=True)[1].reshape(-1)


def _group_sum(values: Tensor, out: SparseTensor, dim: int) -> Tensor:
    sparse_dim = out._sp_indices.shape[0]
    if dim >= sparse_dim:  # a dense dim: within each entry's values
        return values.sum(dim - sparse_dim + 1, keepdim=True)
    groups = _groups(out._sp_indices, dim, out._data.shape)
    count = int(groups.max()) + 1 if groups.size else 0
    summed = values.new_zeros((count,) + tuple(values.shape[1:])).index_add(
        0, _wrap(groups), values)
    return summed[_wrap(groups)]


def softmax(sparse: SparseTensor, dim: int, dtype=None, log: bool = False):
    """torch.sparse.softmax / log_softmax over ``dim``: the entries stored along each line,
    unstored ones taken as minus infinity (so they stay unstored)."""
    from ..tensor import _wrap_dim

    if dtype is not None:
        sparse = to_dtype(sparse, dtype)
    ndim = sparse._data.ndim
    dim = _wrap_dim(dim, ndim)
    with _no_grad():
        source = coalesce(sparse.detach())
    indices, values = source._sp_indices, source._sp_values
    sparse_dim = indices.shape[0]
    if dim >= sparse_dim:
        with _no_grad():
            tensor = _wrap(values)
            out = (tensor.log_softmax(dim - sparse_dim + 1) if log
                   else tensor.softmax(dim - sparse_dim + 1))._data
    else:
        out = np.empty_like(values)
        groups = _groups(indices, dim, sparse._data.shape)
        with _no_grad():
            for group in np.unique(groups):
                members = np.flatnonzero(groups == group)
                line = _wrap(values[members])
                out[members] = (line.log_softmax(0) if log else line.softmax(0))._data
    result = make(indices, out, sparse._data.shape, True)
    node = SparseLogSoftmaxBackward0 if log else SparseSoftmaxBackward0
    if _grad_state.grad_enabled and sparse.requires_grad:
        saved_result = make(indices, out, sparse._data.shape, True)
        return record(node, (sparse,), result, output=saved_result, dim=dim)
    return result


class EmbeddingBackward0(SparseNode):
    """embedding(sparse=True): the weight's gradient holds one row per looked-up index (in
    order, the padding index left out), uncoalesced, as torch's embedding_sparse_backward."""

    __slots__ = ()

    def backward(self, grad):
        if self.saved("scale_grad_by_freq"):
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with "
                               "sparse gradients")
        indices, padding_idx = self.saved("indices").reshape(-1), self.saved("padding_idx")
        shape = self.saved("shape")
        rows = grad.reshape(-1, shape[1])
        if padding_idx is not None:
            keep = np.flatnonzero(indices != padding_idx)
            indices = indices[keep]
            rows = rows[_wrap(keep)]
        return (from_values(indices.reshape(1, -1).astype(np.int64), rows, shape),)


def embedding(weight: Tensor, indices: np.ndarray, padding_idx, scale_grad_by_freq) -> Tensor:
    from .. import ops as dense_ops

    with _no_grad():
        result = dense_ops.Embedding.apply(weight, indices=indices, padding_idx=padding_idx,
                                           scale_grad_by_freq=scale_grad_by_freq)
    return record(EmbeddingBackward0, (weight,), result, indices=np.asarray(indices),
                  padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq,
                  shape=tuple(weight.shape))
