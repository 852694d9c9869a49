"""Tensor methods for the linear-algebra ops (ops/linalg_ext.py and the modules it gathers)."""

from __future__ import annotations

from .. import _argparse
from . import lazy_ops as _ops


class LinalgMethods:
    __slots__ = ()

    def outer(self, vec2):
        return _ops.outer(self, vec2)

    ger = outer

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        if beta.__class__ is not int and beta.__class__ is not float or \
                alpha.__class__ is not int and alpha.__class__ is not float:
            beta, alpha = _argparse.beta_alpha("addmm", (mat1, mat2), beta, alpha)
        if getattr(mat1, "is_sparse", False):  # (leafgrad.sparse: torch's _sparse_addmm)
            from ..sparse import _ops as sparse_ops

            return sparse_ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha,
                                    node=sparse_ops.AddmmBackward0)
        return _ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        if beta.__class__ is not int and beta.__class__ is not float:
            beta = _argparse.number("addmv", "beta", beta)
        if alpha.__class__ is not int and alpha.__class__ is not float:
            alpha = _argparse.number("addmv", "alpha", alpha)
        return _ops.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        if beta.__class__ is not int and beta.__class__ is not float or \
                alpha.__class__ is not int and alpha.__class__ is not float:
            beta, alpha = _argparse.beta_alpha("baddbmm", (batch1, batch2), beta, alpha)
        return _ops.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def trace(self):
        return _ops.trace(self)

    def tril(self, diagonal=0):
        if diagonal.__class__ is not int:
            diagonal = _argparse.int_arg("tril", "diagonal", diagonal, 1, symint=True)
        return _ops.tril(self, diagonal)

    def triu(self, diagonal=0):
        if diagonal.__class__ is not int:
            diagonal = _argparse.int_arg("triu", "diagonal", diagonal, 1, symint=True)
        return _ops.triu(self, diagonal)

    def tril_(self, diagonal=0):
        if diagonal.__class__ is not int:
            diagonal = _argparse.int_arg("tril_", "diagonal", diagonal, 1, symint=True)
        return _ops.tril_(self, diagonal)

    def triu_(self, diagonal=0):
        if diagonal.__class__ is not int:
            diagonal = _argparse.int_arg("triu_", "diagonal", diagonal, 1, symint=True)
        return _ops.triu_(self, diagonal)

    def diag(self, diagonal=0):
        if diagonal.__class__ is not int:
            diagonal = _argparse.int_arg("diag", "diagonal", diagonal, 1)
        return _ops.diag(self, diagonal)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        return _ops.diag_embed(self, offset, dim1, dim2)

    def kron(self, other):
        if not isinstance(other, type(self)):
            _argparse.check("Tensor.kron", (other,))
        return _ops.kron(self, other)

    def inverse(self):
        return _ops.linalg_inv(self)

    def det(self):
        return _ops.linalg_det(self)

    def logdet(self):
        return _ops.logdet(self)

    def slogdet(self):
        from .._functions_linalg import slogdet_result

        return slogdet_result(_ops.linalg_slogdet(self))

    def svd(self, some=True, compute_uv=True):
        from .._functions_linalg import svd

        return svd(self, some, compute_uv)

    def eig(self, eigenvectors=False, *, e=None, v=None):
        from .._functions_linalg import EIG_REMOVED

        raise RuntimeError(EIG_REMOVED)

    def solve(self, A):  # noqa: N803 - removed in torch 1.9: torch's pointer to linalg
        from .._functions_linalg import SOLVE_REMOVED

        raise RuntimeError(SOLVE_REMOVED)

    def symeig(self, eigenvectors=False, upper=True):
        from .._functions_linalg import SYMEIG_REMOVED

        raise RuntimeError(SYMEIG_REMOVED)

    def lstsq(self, A):  # noqa: N803
        from .._functions_linalg import LSTSQ_REMOVED

        raise RuntimeError(LSTSQ_REMOVED)

    def pinverse(self, rcond=1e-15):
        return _ops.linalg_pinv(self, rtol=rcond)

    def matrix_power(self, n):
        if n.__class__ is not int:
            n = _argparse.int_arg("matrix_power", "n", n, 1)
        return _ops.linalg_matrix_power(self, n)
