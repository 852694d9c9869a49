"""Samples for the linear-algebra ops (ops/linalg_ext.py, linalg_decomp.py, linalg_factor.py,
linalg_norm.py).

Matrices that must be invertible or positive-definite are built inside the sample from the
unconstrained random input (``a + 4 I``, ``a a^T + 3 I``), so finite differences never leave the
well-conditioned region. Factor outputs (Q, U, V) are only differentiated through functions that
do not depend on the factors' sign choices (``Q @ R``, ``U diag(S) Vh``, ``V * V``); test_linalg
compares the factors themselves with torch.
"""

from __future__ import annotations

from .samples import Sample

A = "any"
S33, S23, S32, S233 = (3, 3), (2, 3), (3, 2), (2, 3, 3)


def _eye(lib, n):
    return lib.eye(n, dtype=lib.float64)


def _regular(lib, a):
    """A well-conditioned square matrix (batch) from an unconstrained one."""
    return a + 4 * _eye(lib, a.shape[-1])


def _spd(lib, a):
    """A symmetric positive-definite matrix (batch) from an unconstrained square one."""
    return a @ a.mT + 3 * _eye(lib, a.shape[-1])


def _sym(lib, a):
    return a + a.mT


def _qr_product(lib, a, mode="reduced"):
    q, r = lib.linalg.qr(a, mode=mode)
    return q @ r


def _qr_squares(lib, a, mode="reduced"):
    """Q * Q and R * R do not depend on the signs of Q's columns (R's rows)."""
    q, r = lib.linalg.qr(a, mode=mode)
    return (q * q).sum() + (r * r).sum(-1)


def _eigh_weighted(lib, a):
    values, vectors = lib.linalg.eigh(_sym(lib, a), UPLO="U")
    return (vectors * vectors) @ lib.diag_embed(values)


def _eig_product(lib, a):
    """V diag(L) V^H: each column's phase e^{i phi} cancels against its conjugate."""
    values, vectors = lib.linalg.eig(a)
    return lib.view_as_real((vectors * values.unsqueeze(-2)) @ vectors.mH)


def _usv(lib, a, full_matrices=False):
    u, s, vh = lib.linalg.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    return u[..., :k] @ lib.diag_embed(s) @ vh[..., :k, :]


SAMPLES = {
    "Baddbmm": [
        Sample(lambda lib, c, x, y: lib.baddbmm(c, x, y), (((2, 3, 5), A), ((2, 3, 4), A),
                                                          ((2, 4, 5), A))),
        Sample(lambda lib, c, x, y: lib.baddbmm(c, x, y, beta=0.5, alpha=2), (((5,), A),
               ((2, 3, 4), A), ((2, 4, 5), A)), note="broadcast self"),
        Sample(lambda lib, c, x, y: c.baddbmm(x.transpose(1, 2), y), (((1, 3, 1), A),
               ((2, 4, 3), A), ((2, 4, 1), A)), note="non-contiguous batch1"),
    ],
    "Addmv": [
        Sample(lambda lib, c, m, v: lib.addmv(c, m, v), (((3,), A), ((3, 4), A),
                                                       ((4,), A))),
        Sample(lambda lib, c, m, v: lib.addmv(c, m, v, beta=2, alpha=0.5), (((), A), ((3, 4), A),
               ((4,), A)), note="0-d self"),
        Sample(lambda lib, c, m, v: c.addmv(m.t(), v), (((1,), A), ((4, 3), A), ((4,), A)),
               note="non-contiguous mat"),
    ],
    "Trace": [
        Sample(lambda lib, a: lib.trace(a), ((S33, A),)),
        Sample(lambda lib, a: a.trace(), (((2, 4), A),), note="rectangular"),
        Sample(lambda lib, a: a.t().trace(), (((4, 2), A),)),
    ],
    "Tril": [
        Sample(lambda lib, a: a.tril(), (((3, 4), A),)),
        Sample(lambda lib, a: lib.tril(a, -1), ((S233, A),)),
        Sample(lambda lib, a: a.t().tril(1), (((4, 3), A),)),
        Sample(lambda lib, a: (a * 1).tril_(), ((S33, A),), note="in place"),
    ],
    "Triu": [
        Sample(lambda lib, a: a.triu(), (((3, 4), A),)),
        Sample(lambda lib, a: lib.triu(a, 1), ((S233, A),)),
        Sample(lambda lib, a: a.triu(-5), ((S23, A),)),
        Sample(lambda lib, a: (a * 1).triu_(-1), ((S33, A),), note="in place"),
    ],
    "DiagEmbed": [
        Sample(lambda lib, v: lib.diag(v), (((3,), A),)),
        Sample(lambda lib, v: v.diag(-1), (((3,), A),)),
        Sample(lambda lib, a: lib.diag_embed(a), ((S23, A),)),
        Sample(lambda lib, a: a.diag_embed(1, 0, 2), ((S23, A),)),
        Sample(lambda lib, a: lib.diag_embed(a[:, ::2], dim1=-1, dim2=0), (((2, 4), A),)),
    ],
    "DiagonalCopy": [
        Sample(lambda lib, a: lib.diag(a), (((3, 4), A),)),
        Sample(lambda lib, a: a.diag(-1), ((S33, A),)),
        Sample(lambda lib, a: lib.diag(a.t(), 2), (((4, 3), A),)),
    ],
    "LinalgInvEx": [
        Sample(lambda lib, a: lib.linalg.inv(_regular(lib, a)), ((S33, A),)),
        Sample(lambda lib, a: lib.inverse(_regular(lib, a)), ((S233, A),)),
        Sample(lambda lib, a: _regular(lib, a).inverse(), (((1, 1), A),)),
    ],
    "LinalgDet": [
        Sample(lambda lib, a: lib.linalg.det(a), ((S33, A),)),
        Sample(lambda lib, a: lib.det(_regular(lib, a)), (((2, 2, 2), A),)),
        Sample(lambda lib, a: a.det(), (((1, 1), A),)),
        Sample(lambda lib, a: lib.linalg.det(a.mT), ((S233, A),), note="non-contiguous"),
    ],
    "LinalgSlogdet": [
        Sample(lambda lib, a: lib.linalg.slogdet(_regular(lib, a))[1], ((S33, A),)),
        Sample(lambda lib, a: lib.linalg.slogdet(a).logabsdet, ((S233, A),)),
        Sample(lambda lib, a: lib.slogdet(_regular(lib, a)).sign, ((S33, A),),
               note="the sign has no gradient"),
    ],
    "LinalgSolveEx": [
        Sample(lambda lib, a, b: lib.linalg.solve(_regular(lib, a), b), ((S33, A), (S32, A))),
        Sample(lambda lib, a, b: lib.linalg.solve(_regular(lib, a), b), ((S33, A), ((3,), A)),
               note="vector right-hand side"),
        Sample(lambda lib, a, b: lib.linalg.solve(_regular(lib, a), b), ((S233, A), (S32, A)),
               note="batched A, broadcast B"),
        Sample(lambda lib, a, b: lib.linalg.solve(_regular(lib, a), b), ((S233, A), (S23, A)),
               note="batch of vectors"),
        Sample(lambda lib, a, b: lib.linalg.solve(_regular(lib, a), b), ((S233, A), ((3,), A)),
               note="one vector for a batch of matrices"),
        Sample(lambda lib, a, b: lib.linalg.solve(_regular(lib, a), b, left=False),
               ((S33, A), (S23, A))),
    ],
    "LinalgSolveTriangular": [
        Sample(lambda lib, a, b: lib.linalg.solve_triangular(_regular(lib, a), b, upper=False),
               ((S33, A), (S32, A))),
        Sample(lambda lib, a, b: lib.linalg.solve_triangular(_regular(lib, a), b, upper=True,
                                                             left=False),
               ((S233, A), (S23, A))),
        Sample(lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True, unitriangular=True),
               ((S33, "unit"), (S32, A))),
    ],
    "LinalgCholeskyEx": [
        Sample(lambda lib, a: lib.linalg.cholesky(_spd(lib, a)), ((S33, A),)),
        Sample(lambda lib, a: lib.linalg.cholesky(_spd(lib, a), upper=True), ((S233, A),)),
        Sample(lambda lib, a: lib.linalg.cholesky(_spd(lib, a)), (((1, 1), A),)),
    ],
    "LinalgQr": [
        Sample(_qr_product, (((4, 3), A),)),
        Sample(lambda lib, a: lib.linalg.qr(a).Q ** 2, (((4, 3), A),),
               note="Q only; Q * Q ignores column signs"),
        Sample(lambda lib, a: lib.linalg.qr(a).R ** 2, ((S233, A),), note="R only"),
        Sample(_qr_product, (((3, 5), A),), note="wide"),
        Sample(lambda lib, a: _qr_squares(lib, a, "complete"), (((2, 4), A),),
               note="complete, wide"),
    ],
    "LinalgSvd": [
        Sample(lambda lib, a: _usv(lib, a), (((4, 3), A),)),
        Sample(lambda lib, a: _usv(lib, a), (((2, 3, 4), A),), note="batched, wide"),
        Sample(lambda lib, a: _usv(lib, a, full_matrices=True), (((4, 2), A),)),
        Sample(lambda lib, a: lib.linalg.svdvals(a), (((3, 4), A),)),
        Sample(lambda lib, a: lib.linalg.svd(a, False).U ** 2, ((S33, A),),
               note="U only; sign-invariant"),
        Sample(lambda lib, a: lib.linalg.svd(a, False).Vh ** 2, (((2, 4), A),),
               note="Vh only, wide"),
    ],
    "LinalgEigh": [
        Sample(lambda lib, a: lib.linalg.eigh(_sym(lib, a)).eigenvalues, ((S33, A),)),
        Sample(lambda lib, a: lib.linalg.eigvalsh(_sym(lib, a)), ((S233, A),)),
        Sample(lambda lib, a: lib.linalg.eigh(_sym(lib, a)).eigenvectors ** 2, ((S33, A),),
               note="eigenvectors up to sign"),
        Sample(lambda lib, a: _eigh_weighted(lib, a), ((S233, A),)),
    ],
    # complex results end in view_as_real; eigenvectors only through phase-invariant functions
    # (torch's and NumPy's LAPACKs choose different signs: ops/linalg_eig.py)
    "LinalgEig": [
        Sample(lambda lib, a: lib.view_as_real(lib.linalg.eigvals(a)), ((S33, A),)),
        Sample(lambda lib, a: lib.view_as_real(lib.linalg.eig(a).eigenvalues), ((S233, A),),
               note="batched"),
        Sample(lambda lib, a: lib.linalg.eig(a).eigenvectors.abs(), ((S33, A),),
               check_node=False, note="|V|: independent of the phases"),
        Sample(_eig_product, ((S233, A),), note="eigenvalues and eigenvectors"),
    ],
    "LinalgPinv": [
        Sample(lambda lib, a: lib.linalg.pinv(a), (((4, 3), A),)),
        Sample(lambda lib, a: lib.linalg.pinv(a), (((2, 2, 3), A),), note="batched, wide"),
        Sample(lambda lib, a: lib.pinverse(a), ((S33, A),)),
        Sample(lambda lib, a: lib.linalg.pinv(_spd(lib, a), hermitian=True), ((S33, A),)),
    ],
}
