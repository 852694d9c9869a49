"""``leafgrad.linalg``: matrix functions with torch's names, errors and gradients.

Every function accepts batches of matrices ``(..., m, n)``.

>>> import leafgrad as torch
>>> A = torch.tensor([[2., 1.], [1., 3.]], requires_grad=True)
>>> torch.linalg.det(A)
tensor(5., grad_fn=<LinalgDetBackward0>)
"""

from __future__ import annotations

from . import ops as _ops
from ._functions_linalg import linalg_eigh as _eigh_result
from ._functions_linalg import linalg_qr as _qr_result
from ._functions_linalg import linalg_slogdet as _slogdet_result
from ._functions_linalg import linalg_svd as _svd_result
from .ops.linalg_decomp import LinAlgError

__all__ = [
    "LinAlgError", "inv", "det", "slogdet", "solve", "solve_triangular", "cholesky", "qr", "svd",
    "svdvals", "eigh", "eigvalsh", "norm", "vector_norm", "matrix_norm", "matrix_power", "pinv",
    "matmul", "diagonal", "cross",
]


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along ``dim`` (broadcasting the other dims)."""
    return _ops.linalg_cross(input, other, dim=dim, out=out)


def inv(A):
    """The inverse of each square matrix; raises ``LinAlgError`` for a singular one."""
    return _ops.linalg_inv(A)


def det(A):
    """The determinant of each square matrix."""
    return _ops.linalg_det(A)


def slogdet(A):
    """``(sign, logabsdet)`` with ``det(A) = sign * exp(logabsdet)``."""
    return _slogdet_result(_ops.linalg_slogdet(A))


def solve(A, B, *, left=True):
    """``X`` with ``A @ X = B`` (``left=True``) or ``X @ A = B``; B may be a vector."""
    return _ops.linalg_solve(A, B, left=left)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """``solve`` for a triangular ``A`` (only its ``upper`` or lower triangle is read)."""
    return _ops.linalg_solve_triangular(A, B, upper=upper, left=left,
                                        unitriangular=unitriangular)


def cholesky(A, *, upper=False):
    """``L`` with ``A = L @ L.mT`` for a symmetric positive-definite ``A`` (``L.mT`` if upper)."""
    return _ops.linalg_cholesky(A, upper=upper)


def qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q @ R``, Q orthonormal columns and R upper triangular."""
    return _qr_result(_ops.linalg_qr(A, mode))


def svd(A, full_matrices=True):
    """``(U, S, Vh)`` with ``A = U @ diag(S) @ Vh`` and S descending."""
    return _svd_result(_ops.linalg_svd(A, full_matrices))


def svdvals(A):
    """The singular values of ``A``, descending."""
    return _ops.linalg_svdvals(A)


def eigh(A, UPLO="L"):  # noqa: N803 - torch's name
    """``(eigenvalues, eigenvectors)`` of a symmetric matrix, eigenvalues ascending."""
    return _eigh_result(_ops.linalg_eigh(A, UPLO))


def eigvalsh(A, UPLO="L"):  # noqa: N803
    """The eigenvalues of a symmetric matrix, ascending."""
    return _ops.linalg_eigvalsh(A, UPLO)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - torch's name
    """A vector norm, or a matrix norm when ``ord`` is given for 2 dims."""
    return _ops.linalg_norm(A, ord, dim, keepdim, dtype=dtype)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """``sum(|x|^ord)^(1/ord)`` over ``dim`` (all dims by default)."""
    return _ops.linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    """Frobenius, nuclear, spectral (2), 1 or inf norm of the matrices in ``dim``."""
    return _ops.linalg_matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def matrix_power(A, n):
    """``A`` multiplied by itself ``n`` times (``inv(A)`` for negative ``n``)."""
    return _ops.linalg_matrix_power(A, n)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """Moore-Penrose pseudo-inverse (``rcond`` is the older name of ``rtol``)."""
    if rcond is not None:
        rtol = rcond
    return _ops.linalg_pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


def matmul(input, other):
    """Same as ``leafgrad.matmul``."""
    return _ops.matmul(input, other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of the matrices in the last two dims (a view)."""
    return A.diagonal(offset, dim1, dim2)
