"""Top-level linear-algebra names torch keeps for old code: ``torch.cholesky_solve``,
``cholesky_inverse``, ``triangular_solve``, ``lu``, ``lu_solve``, ``lu_unpack``, ``qr`` and
``matrix_exp`` (see _linalg_more.py)."""

from __future__ import annotations

from ._linalg_more import cholesky_inverse, cholesky_solve, lu_unpack_ as lu_unpack, matrix_exp
from ._linalg_more import lu_legacy as lu, lu_solve_legacy as lu_solve, qr_legacy as qr
from ._linalg_more import geqrf, householder_product, triangular_solve

__all__ = ["geqrf", "orgqr", "cholesky_solve", "cholesky_inverse", "triangular_solve", "lu",
           "lu_solve", "lu_unpack", "qr", "matrix_exp"]


def orgqr(input, tau):  # noqa: A002 - torch's name
    """The Q of a QR decomposition from ``geqrf``'s packed form: ``linalg.householder_product``
    under LAPACK's name (torch's alias)."""
    return householder_product(input, tau)
