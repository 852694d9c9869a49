"""``torch.svd_lowrank`` and ``torch.pca_lowrank``: randomized low-rank SVD and PCA.

The method is Halko, Martinsson and Tropp (2009), "Finding structure with randomness"
(arXiv:0909.4061): a random projection ``A @ R`` (R standard normal, drawn from the default
generator as torch draws it, so a seed gives torch's R), ``niter`` rounds of subspace
iteration with a QR after every product (Algorithm 4.4), then the SVD of the small matrix
``Q^H A`` (Algorithm 5.1). Every step is an ordinary differentiable op.
"""

from __future__ import annotations

from . import _dtype
from .tensor import Tensor

__all__ = ["svd_lowrank", "pca_lowrank", "get_approximate_basis"]


def _floating(A: Tensor):
    """The dtype the random matrix is drawn in: A's own floating or complex dtype, float32 for
    integer inputs."""
    if A.is_complex() or A.dtype in (_dtype.float16, _dtype.float32, _dtype.float64):
        return A.dtype
    return _dtype.float32


def get_approximate_basis(A: Tensor, q: int, niter: int | None = 2, M: Tensor | None = None):
    """An orthonormal ``Q`` with ``q`` columns such that ``Q Q^H (A - M)`` approximates
    ``A - M`` (M defaults to zero), without forming ``A - M``."""
    from . import linalg, randn

    niter = 2 if niter is None else niter

    def times(left, right, centre=None):
        product = left.matmul(right)
        return product if centre is None else product - centre.matmul(right)

    R = randn(A.shape[-1], q, dtype=_floating(A))
    Q = linalg.qr(times(A, R, M)).Q
    for _ in range(niter):
        Q = linalg.qr(times(A.mH, Q, None if M is None else M.mH)).Q
        Q = linalg.qr(times(A, Q, M)).Q
    return Q


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):
    """``(U, S, V)`` with ``A - M ≈ U diag(S) V^H`` for a matrix or a batch of them, of rank
    ``q`` (a slight overestimate of A's rank; default 6). Random: seed the generator to
    repeat it."""
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    wide = m < n
    if wide:  # work on the tall conjugate transpose
        A = A.mH
        if M is not None:
            M = M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    from . import linalg

    U, S, Vh = linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if wide:
        U, V = V, U
    return U, S, V


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2):
    """Principal components of the rows of ``A``: ``(U, S, V)`` of the centred data (columns'
    means subtracted when ``center``), ``q`` of them (default ``min(6, m, n)``)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)
