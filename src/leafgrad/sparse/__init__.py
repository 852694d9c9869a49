"""leafgrad.sparse: torch.sparse's COO tensors on the CPU.

>>> a = leafgrad.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
>>> leafgrad.sparse.mm(a, leafgrad.ones(2, 1))
tensor([[2.],
        [3.]])
"""

from __future__ import annotations

from ._tensor import SparseTensor
from ._construct import (  # noqa: F401 - torch.sparse's legacy constructors
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,
    IntTensor, LongTensor, ShortTensor, check_sparse_tensor_invariants, sparse_coo_tensor)
from . import _nn, _ops, _methods  # noqa: F401 - (_methods gives SparseTensor its methods)

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "spmm",
           "check_sparse_tensor_invariants", "FloatTensor", "DoubleTensor", "LongTensor"]


def mm(mat1, mat2):
    """``mat1 @ mat2`` with a sparse ``mat1`` (torch.sparse.mm): a dense result for a dense
    ``mat2`` (SparseAddmmBackward0), a sparse one for a sparse ``mat2``."""
    return _ops.sparse_mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` for a sparse ``mat1`` (torch.sparse.addmm)."""
    return _ops.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):  # noqa: A001 - torch's name
    """The sum of a sparse tensor's values: all of them (a dense 0-d tensor) or over ``dim``
    (torch.sparse.sum)."""
    if not isinstance(input, SparseTensor):
        return input.sum() if dim is None else input.sum(dim, dtype=dtype)
    return _ops.sparse_sum(input, dim, dtype)


def softmax(input, dim, *, dtype=None):
    """Softmax over the stored entries of each line along ``dim``; unstored ones count as
    minus infinity and stay unstored (torch.sparse.softmax)."""
    return _nn.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """log of torch.sparse.softmax (torch.sparse.log_softmax)."""
    return _nn.softmax(input, dim, dtype, log=True)


def spmm(mat1, mat2):
    return _ops.mm(mat1, mat2)
