"""Tensor methods of the legacy linear-algebra functions (see leafgrad._linalg_more)."""

from __future__ import annotations


class LinalgMoreMethods:
    __slots__ = ()

    def matrix_exp(self):
        from .._linalg_more import matrix_exp

        return matrix_exp(self)

    def geqrf(self):
        from .._linalg_more import geqrf

        return geqrf(self)

    def orgqr(self, input2):
        from .._linalg_more import householder_product

        return householder_product(self, input2)

    def cholesky_solve(self, input2, upper=False):
        from .._linalg_more import cholesky_solve

        return cholesky_solve(self, input2, upper)

    def cholesky_inverse(self, upper=False):
        from .._linalg_more import cholesky_inverse

        return cholesky_inverse(self, upper)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        from .._linalg_more import triangular_solve

        return triangular_solve(self, A, upper, transpose, unitriangular)

    def lu_solve(self, LU_data, LU_pivots):  # noqa: N803 - torch's names
        from .._linalg_more import lu_solve_legacy

        return lu_solve_legacy(self, LU_data, LU_pivots)

    def qr(self, some=True):
        from .._linalg_more import qr_legacy

        return qr_legacy(self, some)

    def lu(self, pivot=True, get_infos=False):
        from .._linalg_more import lu_legacy

        return tuple(lu_legacy(self, pivot=pivot, get_infos=get_infos))  # a plain tuple in torch
