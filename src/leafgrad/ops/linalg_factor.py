"""Factorizations: ``cholesky``, ``qr``, ``svd``/``svdvals``, ``eigh``/``eigvalsh``, ``pinv``.

Forwards are NumPy's LAPACK calls: the routines torch's CPU build calls, from another LAPACK,
so the factors' signs usually agree with torch's but are not guaranteed to. Backwards are
torch's formulas from FunctionsManual.cpp (``cholesky_backward``, ``linalg_qr_backward``,
``svd_backward``, ``linalg_eig_backward``, ``pinv_backward``) written with Tensor ops. The outputs are saved as outputs (see ``MultiOutputOp``), so double backward
differentiates through the factorization again, as in torch.

The gradients of ``svd``/``eigh``/``qr`` factors are only defined for loss functions invariant
under the factors' sign choices, and assume distinct singular values / eigenvalues (torch's
assumptions too). Complex inputs use the same formulas with conjugate transposes (``.mH``, which
is ``.mT`` for real tensors); their singular vectors and eigenvectors are defined up to a phase
e^{i phi} per column, and torch's backwards refuse a loss that depends on that phase (the checks
are copied here with torch's tolerance and message).
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor, _wrap
from .linalg_decomp import (
    MultiOutputOp, _batch_prefix, _check_float, _check_matrix, _check_square_float, _LinAlgError,
    _diag_embed, _matmul, solve_triangular,
)
from . import _lapack
from . import _layout
from . import _batching_rules as batch
from .registry import Op, register
from .._dtype import from_numpy_dtype
from ._blas import mm
from .linalg import _bmm


def _real_dtype(a: np.ndarray) -> np.dtype:
    """The dtype of singular values and eigenvalues: real, of a's precision."""
    return a.real.dtype


def _real_diagonal(a: np.ndarray) -> np.ndarray:
    """The real parts of a's diagonals as diagonal matrices."""
    out = np.zeros_like(a)
    np.einsum("...ii->...i", out)[...] = np.einsum("...ii->...i", a).real
    return out


def _check_phase_invariant(imaginary: Tensor, name: str, what: str, quantity: str) -> None:
    """torch's check that a complex loss does not depend on the vectors' phases: the imaginary
    parts of diag(V^H gV) (resp. their sum for U and V) are close to zero (rtol = atol = 1e-2)."""
    values = np.asarray(imaginary._data)
    if not np.allclose(values, 0, rtol=1e-2, atol=1e-2):
        raise RuntimeError(f"{name}: The {what} in the complex case are specified up to "
                           "multiplication by e^{i phi}. The specified loss function depends on "
                           f"{quantity}, making it ill-defined." if name == "svd_backward" else
                           f"{name}: The {what} in the complex case are specified up to "
                           "multiplication by e^{i phi}. The specified loss function depends on "
                           f"{quantity}, so it is ill-defined.")


def _eye(n: int, like: Tensor) -> Tensor:
    return _wrap(np.eye(n, dtype=like._data.dtype))


def _inverse_upper(r: Tensor) -> Tensor:
    """R^{-1} for an upper-triangular R (a triangular solve against the identity)."""
    return solve_triangular(r, _eye(r.shape[-1], r).expand(*r.shape), upper=True)


# -- Cholesky -------------------------------------------------------------------------------------


def _not_positive_definite(a: np.ndarray) -> _LinAlgError:
    """torch's message: the first batch element and leading minor where potrf stops."""
    n = a.shape[-1]
    for index, matrix in enumerate(a.reshape(-1, n, n)):
        for order in range(1, n + 1):
            try:
                np.linalg.cholesky(matrix[:order, :order])
            except np.linalg.LinAlgError:
                return _LinAlgError(
                    f"linalg.cholesky: {_batch_prefix(a, index)}The factorization could not be "
                    "completed because the input is not positive-definite (the leading minor of "
                    f"order {order} is not positive-definite)."
                )
    return _LinAlgError(
        "linalg.cholesky: The factorization could not be completed because the input is not "
        "positive-definite."
    )


@register
class LinalgCholeskyEx(Op):
    """``L`` with ``A = L L^T`` from A's lower triangle, or ``U`` with ``A = U^T U`` from its
    upper triangle (``upper=True``)."""

    node = "LinalgCholeskyExBackward0"
    complex_ok = True
    vmap = batch.leading
    saves = {"result": ("self",)}
    torch_names = ("linalg.cholesky",)
    bfloat16_kernel = "cholesky_cpu"  # torch has no bfloat16 kernel

    @staticmethod
    def forward(ctx, a, upper=False):
        _check_square_float(a, "linalg.cholesky", "cholesky_cpu")
        replayed = _lapack.potrf(a, upper)  # torch's own call (Note: torch's LU solve)
        if replayed is not None:
            if replayed[1].any():
                raise _not_positive_definite(np.conj(np.swapaxes(a, -1, -2)) if upper else a)
            return _layout.column_major(replayed[0])
        if upper:  # U from A's upper triangle is L^H of A^H's lower one
            a = np.conj(np.swapaxes(a, -1, -2))
        if a.dtype.kind == "c":
            # LAPACK's potrf reads the lower triangle and the real part of the diagonal: the
            # Hermitian matrix they define, so that NumPy's call sees what torch's sees
            strict = np.tril(a, -1)
            a = strict + np.conj(np.swapaxes(strict, -1, -2)) + _real_diagonal(a)
        try:
            lower = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise _not_positive_definite(a) from None
        return _layout.column_major(np.conj(np.swapaxes(lower, -1, -2)) if upper else lower)

    def backward(self, grad):
        # gA = L^{-H} phi(L^H gL) L^{-1}, phi(X) = tril(X) with its strict part mirrored
        # (conjugated) and the diagonal halved (torch's cholesky_backward).
        lower = self.saved("result")
        if self._params.get("upper", False):
            lower, grad = lower.mH, grad.mH
        g_a = _matmul(lower.mH, grad).tril()
        g_a = 0.5 * (g_a + g_a.tril(-1).mH)
        g_a = solve_triangular(lower.mH, g_a, upper=True, left=True)
        return solve_triangular(lower, g_a, upper=False, left=False)

    def jvp(self, tangents, primals, result):
        # torch's cholesky_jvp: dL = L phi(L^{-1} dA L^{-T}), phi = the lower triangle with the
        # diagonal halved
        lower = result.mT if self._params.get("upper", False) else result
        inner = solve_triangular(lower, tangents[0], upper=False, left=True)
        inner = solve_triangular(lower.mT, inner, upper=True, left=False)
        inner = inner.tril() - _diag_embed(inner.diagonal(0, -2, -1) * 0.5)
        out = _matmul(lower, inner)
        return out.mT if self._params.get("upper", False) else out


# -- QR -------------------------------------------------------------------------------------------

_QR_NEEDS_Q = (
    "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
    "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
)


@register
class LinalgQr(MultiOutputOp):
    """``A = Q R`` by Householder reflections; ``mode`` is reduced, complete or r."""

    node = "LinalgQrBackward0"
    inference_writes = (1, 2)  # Note: kernels' writes on inference operands
    bfloat16_kernel = "geqrf_cpu"  # torch has no bfloat16 kernel
    uint_ok = True  # the forward raises torch's own error for uint16/32/64
    complex_ok = True
    vmap = batch.leading
    inputs = ("A",)
    output_names = ("Q", "R")
    torch_names = ("linalg.qr",)

    @staticmethod
    def forward(ctx, a, mode="reduced"):
        _check_matrix(a, "linalg.qr")
        _check_float(a, "linalg.qr", "geqrf_cpu")
        if mode not in ("reduced", "complete", "r"):
            raise RuntimeError(
                f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
                "(default), 'r', or 'complete'"
            )
        replayed = _lapack.qr(a, mode)  # torch's own calls (Note: torch's LU solve)
        if mode == "r":  # torch returns an empty Q
            r = replayed[1] if replayed is not None else np.linalg.qr(a, mode="r")
            return np.empty((0,), dtype=a.dtype), _layout.column_major(r.astype(a.dtype))
        q, r = replayed if replayed is not None else np.linalg.qr(a, mode=mode)
        return (_layout.column_major(q.astype(a.dtype, copy=False)),
                _layout.column_major(r.astype(a.dtype, copy=False)))

    def backward(self, grads):
        mode = self._params.get("mode", "reduced")
        if mode == "r":
            raise RuntimeError(_QR_NEEDS_Q)
        g_q, g_r = self.padded(grads, 2)
        q, r = self.outputs()
        m, n = q.shape[-2], r.shape[-1]
        if mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > "
                "ncols."
            )
        if g_q is None and g_r is None:
            return None
        if g_q is None:
            g_a = _matmul(g_r, r.mH)
        elif g_r is None:
            g_a = -_matmul(q.mH, g_q)
        else:
            g_a = _matmul(g_r, r.mH) - _matmul(q.mH, g_q)
        complex_input = q._data.dtype.kind == "c"
        if m >= n:
            # syminvadj(triu(X)) = X + X^H with the real part of the diagonal halved
            # (for real X: triu(X) + triu(X, 1)^T)
            upper = g_a.triu()
            if complex_input:
                both = upper + upper.mH
                adjoint = both - _diag_embed(both.diagonal(0, -2, -1).real * 0.5)
            else:
                adjoint = upper + upper.triu(1).mT
            g_a = _matmul(q, adjoint)
            if g_q is not None:
                g_a = g_a + g_q
            return solve_triangular(r.mH, g_a, upper=False, left=False)
        from . import cat

        # trilImInvAdjSkew(-X) = tril(X^H - X), the imaginary part of its diagonal halved
        skew = (g_a.mH - g_a).tril()
        if complex_input:
            skew = skew - _diag_embed(skew.diagonal(0, -2, -1).imag * 0.5j)
        g_a = _matmul(q, skew)
        g_a = solve_triangular(r[..., :m].mH, g_a, upper=False, left=False)
        g_a = cat([g_a, g_a.new_zeros((*r.shape[:-1], n - m))], dim=-1)
        if g_r is not None:
            g_a = g_a + _matmul(q, g_r)
        return g_a

    def jvp(self, tangents, primals, result):
        # torch's linalg_qr_jvp
        mode = self._params.get("mode", "reduced")
        if mode == "r":
            raise RuntimeError(_QR_NEEDS_Q)
        q, r = result
        tangent = tangents[0]
        m, n = tangent.shape[-2], tangent.shape[-1]
        if mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        if m >= n:
            # dR = syminv(sym(Q^T dA R^{-1})) R, dQ = dA R^{-1} - Q syminv(...)
            tangent_rinv = solve_triangular(r, tangent, upper=True, left=False)
            product = _matmul(q.mT, tangent_rinv)
            upper = (product + product.mT).triu()
            upper = upper - _diag_embed(upper.diagonal(0, -2, -1) * 0.5)
            return tangent_rinv - _matmul(q, upper), _matmul(upper, r)
        # m < n: A = Q [R1 R2] with R1 square; the square case's skew part Omega moves R2 too
        from . import cat

        r1, r2 = r[..., :m], r[..., m:]
        product = _matmul(_matmul(q.mT, tangent[..., :m]), _inverse_upper(r1))
        lower = product.tril(-1)
        omega = lower - lower.mT
        d_r1 = _matmul(product - omega, r1)
        d_r2 = _matmul(q.mT, tangent[..., m:]) - _matmul(omega, r2)
        return _matmul(q, omega), cat([d_r1, d_r2], dim=-1)


# -- SVD ------------------------------------------------------------------------------------------


@register
class LinalgSvd(MultiOutputOp):
    """``A = U diag(S) Vh`` (S descending); ``svdvals`` is output 1 of the same node."""

    node = "LinalgSvdBackward0"
    bfloat16_kernel = "linalg_svd_cpu"  # torch has no bfloat16 kernel
    uint_ok = True  # the forward raises torch's own error for uint16/32/64
    complex_ok = True
    vmap = batch.leading
    inputs = ("A",)
    output_names = ("U", "S", "Vh")
    torch_names = ("linalg.svd", "linalg.svdvals", "svd", "Tensor.svd")

    @staticmethod
    def forward(ctx, a, full_matrices=True, compute_uv=True):
        _check_matrix(a, "linalg.svd")
        _check_float(a, "linalg.svd", "linalg_svd_cpu")
        replayed = _lapack.svd(a, full_matrices, compute_uv)  # torch's own calls
        if not compute_uv:
            empty = np.empty((0,), dtype=a.dtype)
            values = replayed[1] if replayed is not None else np.linalg.svd(a, compute_uv=False)
            return empty, values.astype(_real_dtype(a)), empty
        u, s, vh = replayed if replayed is not None else np.linalg.svd(
            a, full_matrices=full_matrices)
        return (_layout.column_major(u.astype(a.dtype, copy=False)),
                _layout.contiguous(s.astype(_real_dtype(a), copy=False)),
                _layout.column_major(vh.astype(a.dtype)))

    def backward(self, grads):
        g_u, g_s, g_vh = self.padded(grads, 3)
        u, s, vh = self.outputs()
        if self._params.get("full_matrices", True):
            k = s.shape[-1]
            u, vh = u[..., :k], vh[..., :k, :]
            g_u = None if g_u is None else g_u[..., :k]
            g_vh = None if g_vh is None else g_vh[..., :k, :]
        return _svd_backward(g_u, g_s, g_vh, u, s, vh)

    def jvp(self, tangents, primals, result):
        # torch's linalg_svd_jvp; the full_matrices case pads with zeros, as torch does
        u, s, vh = result
        tangent = tangents[0]
        full = self._params.get("full_matrices", True)
        m, n, k = tangent.shape[-2], tangent.shape[-1], s.shape[-1]
        if full:
            u, vh = u[..., :k], vh[..., :k, :]
        v = vh.mT
        product = (_matmul(u.mT, _matmul(tangent, v)) if m >= n
                   else _matmul(_matmul(u.mT, tangent), v))
        d_s = product.diagonal(0, -2, -1)
        product = product - _diag_embed(d_s)
        squares = s * s
        gaps = squares.unsqueeze(-2) - squares.unsqueeze(-1) + _eye(k, s)
        d_u = product * s.unsqueeze(-2)
        d_u = _matmul(u, (d_u + d_u.mT) / gaps)
        if m > k:
            from . import cat

            projected = _matmul(tangent, v / s.unsqueeze(-2))
            d_u = d_u + projected - _matmul(u, _matmul(u.mT, projected))
            if full:
                d_u = cat([d_u, d_u.new_zeros((*d_u.shape[:-1], m - k))], dim=-1)
        d_vh = s.unsqueeze(-1) * product
        d_vh = _matmul(-(d_vh + d_vh.mT) / gaps, vh)
        if n > k:
            from . import cat

            projected = _matmul(u.mT / s.unsqueeze(-1), tangent)
            d_vh = d_vh + projected - _matmul(_matmul(projected, v), vh)
            if full:
                d_vh = cat([d_vh, d_vh.new_zeros((*d_vh.shape[:-2], n - k, n))], dim=-2)
        return d_u, d_s, d_vh


def _svd_backward(g_u, g_s, g_vh, u, s, vh):
    """torch's svd_backward for inputs with distinct singular values (full rank if
    rectangular):  gA = U [(skew(U^H gU) / E) S + S (skew(V^H gV) / E) + diag(gS)
    (+ diag(U^H gU) / (2 S) for complex inputs)] V^H (+ the terms for the part of gU / gV
    outside the span of U / V)."""
    if g_u is None and g_s is None and g_vh is None:
        return None
    m, n = u.shape[-2], vh.shape[-1]
    complex_input = u._data.dtype.kind == "c"
    if g_u is None and g_vh is None:
        if complex_input:
            g_s = g_s.to(u.dtype)
        if m >= n:
            return _matmul(u, g_s.unsqueeze(-1) * vh)
        return _matmul(u * g_s.unsqueeze(-2), vh)
    k = s.shape[-1]
    s_col, s_row = s.unsqueeze(-1), s.unsqueeze(-2)
    squares = s * s
    # E_jk = S_k^2 - S_j^2 off the diagonal; the diagonal is 1 (it only ever divides zeros)
    gaps = squares.unsqueeze(-2) - squares.unsqueeze(-1) + _eye(k, s)
    uhgu = vhgv = None
    if g_u is not None:
        uhgu = _matmul(u.mH, g_u)
        uhgu = uhgu - uhgu.mH
    if g_vh is not None:
        vhgv = _matmul(vh, g_vh.mH)
        vhgv = vhgv - vhgv.mH
    if complex_input:
        # the loss must not depend on the phases: Im diag(U^H gU) = -Im diag(V^H gV)
        imaginary = 0
        if uhgu is not None:
            imaginary = uhgu.diagonal(0, -2, -1).imag
        if vhgv is not None:
            imaginary = imaginary + vhgv.diagonal(0, -2, -1).imag
        if not isinstance(imaginary, int):
            _check_phase_invariant(imaginary, "svd_backward", "singular vectors",
                                   "this phase term")
    if uhgu is not None and vhgv is not None:
        inner = (uhgu * s_row + s_col * vhgv) / gaps
    elif uhgu is not None:
        inner = (uhgu / gaps) * s_row
    else:
        inner = s_col * (vhgv / gaps)
    if g_s is not None:
        inner = inner + _diag_embed(g_s)
    if complex_input and uhgu is not None and vhgv is not None:
        inner = inner + _diag_embed(uhgu.diagonal(0, -2, -1) / (2 * s))
    if m > n and g_u is not None:
        g_a = _matmul(u, inner)
        g_u_sinv = g_u / s_row
        g_a = g_a + g_u_sinv - _matmul(u, _matmul(u.mH, g_u_sinv))
        return _matmul(g_a, vh)
    if m < n and g_vh is not None:
        g_a = _matmul(inner, vh)
        sinv_g_vh = g_vh / s_col
        g_a = g_a + sinv_g_vh - _matmul(_matmul(sinv_g_vh, vh.mH), vh)
        return _matmul(u, g_a)
    if m >= n:
        return _matmul(u, _matmul(inner, vh))
    return _matmul(_matmul(u, inner), vh)


# -- eigh -----------------------------------------------------------------------------------------


@register
class LinalgEigh(MultiOutputOp):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix, read from
    its ``UPLO`` triangle."""

    node = "LinalgEighBackward0"
    bfloat16_kernel = "linalg_eigh_cpu"  # torch has no bfloat16 kernel
    complex_ok = True
    vmap = batch.leading
    inputs = ("A",)
    output_names = ("eigenvalues", "eigenvectors")
    torch_names = ("linalg.eigh", "linalg.eigvalsh")

    @staticmethod
    def forward(ctx, a, UPLO="L", compute_v=True):  # noqa: N803 - torch's name
        if UPLO not in ("L", "U"):
            raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
        _check_matrix(a, "linalg.eigh")
        if a.shape[-1] != a.shape[-2]:
            raise RuntimeError(
                f"linalg.eigh: A must be batches of square matrices, but they are {a.shape[-2]} "
                f"by {a.shape[-1]} matrices"
            )
        if a.dtype.kind not in "fc" or a.dtype == np.float16:
            raise NotImplementedError(
                f"\"linalg_eigh_cpu\" not implemented for '{from_numpy_dtype(a.dtype)._legacy}'"
            )
        replayed = _lapack.eigh(a, UPLO == "U", compute_v)  # torch's own calls
        if not compute_v:
            values = replayed[0] if replayed is not None else np.linalg.eigvalsh(a, UPLO)
            return values.astype(_real_dtype(a)), np.empty((0,), dtype=a.dtype)
        values, vectors = replayed if replayed is not None else np.linalg.eigh(a, UPLO)
        return (_layout.contiguous(values.astype(_real_dtype(a), copy=False)),
                _layout.column_major(vectors.astype(a.dtype, copy=False)))

    def backward(self, grads):
        # torch's linalg_eig_backward, Hermitian case:
        # gA = V (diag(gL) + skew(V^H gV) / (2 E)) V^H,  E_ij = L_j - L_i (1 on the diagonal)
        g_values, g_vectors = self.padded(grads, 2)
        values, vectors = self.outputs()
        if g_values is None and g_vectors is None:
            return None
        complex_input = vectors._data.dtype.kind == "c"
        if g_values is not None and complex_input:
            g_values = g_values.to(vectors.dtype)
        if g_vectors is None:
            return _matmul(vectors * g_values.unsqueeze(-2), vectors.mH)
        inner = _matmul(vectors.mH, g_vectors)
        if complex_input:
            _check_phase_invariant(inner.diagonal(0, -2, -1).imag, "linalg_eigh_backward",
                                   "eigenvectors", "this quantity")
        inner = 0.5 * (inner - inner.mH)
        if complex_input:  # the skew-Hermitian part's diagonal is the phase term: dropped
            inner = inner - _diag_embed(inner.diagonal(0, -2, -1))
        gaps = values.unsqueeze(-2) - values.unsqueeze(-1) + _eye(values.shape[-1], values)
        inner = inner / gaps
        if g_values is not None:
            inner = inner + _diag_embed(g_values)
        return _matmul(vectors, _matmul(inner, vectors.mH))

    def jvp(self, tangents, primals, result):
        # torch's linalg_eig_jvp, Hermitian case: dL = diag(V^T dA V),
        # dV = V ((V^T dA V) / E) with E_ij = L_j - L_i and a zero diagonal
        values, vectors = result
        product = _matmul(_matmul(vectors.mT, tangents[0]), vectors)
        d_values = product.diagonal(0, -2, -1)
        k = values.shape[-1]
        gaps = values.unsqueeze(-2) - values.unsqueeze(-1) + _eye(k, values)
        off_diagonal = _wrap(1 - np.eye(k, dtype=values._data.dtype))
        return d_values, _matmul(vectors, product / gaps * off_diagonal)


# -- pseudo-inverse -------------------------------------------------------------------------------


def _pinv_bfloat16(a: np.ndarray):
    """torch's pinv has no bfloat16 kernel: its dtype check's message (``Op.bfloat16_kernel``)."""
    if a.dtype.kind != "V":
        return None
    return RuntimeError(
        f"linalg.pinv(BFloat16{{{list(a.shape)}}}): expected a tensor with 2 or more dimensions "
        "of float, double, cfloat or cdouble types")


@register
class LinalgPinv(Op):
    """Moore-Penrose pseudo-inverse; singular values <= max(atol, rtol * s_max) count as 0."""

    node = "LinalgPinvBackward0"
    bfloat16_kernel = staticmethod(lambda arrays, params: _pinv_bfloat16(arrays[0]))
    uint_ok = True  # the forward raises torch's own error for uint16/32/64
    complex_ok = True
    vmap = batch.leading
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("linalg.pinv", "pinverse", "Tensor.pinverse")

    @staticmethod
    def forward(ctx, a, atol=None, rtol=None, hermitian=False):
        if a.ndim < 2 or a.dtype.kind not in "fc" or a.dtype == np.float16:
            raise RuntimeError(
                f"linalg.pinv({from_numpy_dtype(a.dtype)._legacy}{{{list(a.shape)}}}): expected a "
                "tensor with 2 or more dimensions of float, double, cfloat or cdouble types"
            )
        atol, rtol = _atol_rtol(a.dtype, *a.shape[-2:], atol, rtol)
        if hermitian:
            values, vectors = np.linalg.eigh(a)
            magnitude = np.abs(values)
            cutoff = np.maximum(atol, rtol * magnitude.max(axis=-1, keepdims=True, initial=0))
            inverse = np.where(magnitude > cutoff, 1 / np.where(magnitude > cutoff, values, 1), 0)
            result = (vectors * inverse[..., None, :]) @ np.conj(np.swapaxes(vectors, -1, -2))
            return result.astype(a.dtype)
        replayed = _lapack.svd(a, False, True)  # torch's own calls
        u, s, vh = replayed if replayed is not None else np.linalg.svd(a, full_matrices=False)
        cutoff = np.maximum(atol, rtol * s.max(axis=-1, keepdims=True, initial=0))
        inverse = np.where(s > cutoff, 1 / np.where(s > cutoff, s, 1), 0)
        scaled = np.conj(np.swapaxes(vh, -1, -2)) * inverse[..., None, :]
        u_h = np.conj(np.swapaxes(u, -1, -2))
        if replayed is not None:  # torch's at::matmul of the two: MKL's gemm (batched: bmm)

            if scaled.ndim == 2:
                product = mm(scaled, u_h)
                if product is not None:
                    return product
            else:
                rows, columns = scaled.shape[-2], u_h.shape[-1]
                product = _bmm(scaled.reshape(-1, rows, scaled.shape[-1]),
                               u_h.reshape(-1, u_h.shape[-2], columns))
                return product.reshape(scaled.shape[:-2] + (rows, columns))
        return scaled @ u_h

    def backward(self, grad):
        # torch's pinv_backward, arranged so the largest products are smallest (pinv_t and
        # grad_t are the conjugate transposes)
        a, pinv_a = self.saved("self"), self.saved("result")
        m, n = a.shape[-2], a.shape[-1]
        pinv_t, grad_t = pinv_a.mH, grad.mH
        if m <= n:
            k = _matmul(grad_t, pinv_a)
            k_pinv_t = _matmul(k, pinv_t)
            return (-_matmul(pinv_a, k).mH + k_pinv_t - _matmul(_matmul(a, pinv_a), k_pinv_t)
                    + _matmul(_matmul(pinv_t, pinv_a), grad_t - _matmul(k, a)))
        k = _matmul(pinv_a, grad_t)
        pinv_t_k = _matmul(pinv_t, k)
        return (-_matmul(k, pinv_a).mH + _matmul(_matmul(grad_t - _matmul(a, k), pinv_a), pinv_t)
                + pinv_t_k - _matmul(_matmul(pinv_t_k, pinv_a), a))

    def jvp(self, tangents, primals, result):
        # torch's pinv_jvp (real case), arranged so the largest products are smallest
        a, pinv_a, tangent = primals[0], result, tangents[0]
        m, n = a.shape[-2], a.shape[-1]
        tangent_t, pinv_t = tangent.mT, pinv_a.mT
        if m <= n:
            k = _matmul(pinv_t, tangent_t)
            return (_matmul(pinv_a, k - k.mT - _matmul(k, _matmul(a, pinv_a)))
                    + _matmul(tangent_t - _matmul(pinv_a, _matmul(a, tangent_t)),
                              _matmul(pinv_t, pinv_a)))
        k = _matmul(pinv_a, tangent)
        k_t = k.mT
        return (_matmul(k_t - k - _matmul(_matmul(pinv_a, a), k_t), pinv_a)
                + _matmul(_matmul(pinv_a, pinv_t), tangent_t - _matmul(_matmul(tangent_t, a),
                                                                       pinv_a)))


# -- functions ------------------------------------------------------------------------------------


def cholesky(a: Tensor, *, upper: bool = False) -> Tensor:
    return LinalgCholeskyEx.apply(a, upper=upper)


def qr(a: Tensor, mode: str = "reduced") -> tuple:
    return LinalgQr.apply(a, mode=mode)


def svd(a: Tensor, full_matrices: bool = True) -> tuple:
    return LinalgSvd.apply(a, full_matrices=full_matrices)


def svdvals(a: Tensor) -> Tensor:
    # torch computes U and V only when a gradient (reverse or forward mode) may need them; S is
    # output 1 either way.
    return LinalgSvd.apply(a, full_matrices=False, compute_uv=_may_need_grad(a))[1]


def _may_need_grad(a: Tensor) -> bool:
    from ..autograd.forward_ad import get_tangent, state

    return a._may_require_grad() or (state.level is not None and get_tangent(a) is not None)


def eigh(a: Tensor, UPLO: str = "L") -> tuple:  # noqa: N803 - torch's name
    return LinalgEigh.apply(a, UPLO=UPLO)


def eigvalsh(a: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    return LinalgEigh.apply(a, UPLO=UPLO, compute_v=_may_need_grad(a))[0]


def _atol_rtol(dtype, m: int, n: int, atol, rtol):
    """torch's get_atol_rtol for pinv and matrix_rank, unsqueezed to compare with a batch of
    singular values: float64 unless given as arrays (a tensor's data); rtol defaults to
    eps * max(m, n) where atol is not positive (elementwise, for a tensor atol)."""
    if rtol is None:
        default = np.finfo(dtype).eps * max(m, n)
        rtol = default if atol is None else np.where(np.asarray(atol) > 0, 0.0, default)
    atol = 0.0 if atol is None else atol
    return (np.asarray(atol, dtype=None if isinstance(atol, np.ndarray) else np.float64)[..., None],
            np.asarray(rtol, dtype=None if isinstance(rtol, np.ndarray) else np.float64)[..., None])


def pinv(a: Tensor, *, atol=None, rtol=None, hermitian: bool = False) -> Tensor:
    # (tolerances given as tensors broadcast against the batch: handed over as arrays)
    atol = atol._data if isinstance(atol, Tensor) else atol
    rtol = rtol._data if isinstance(rtol, Tensor) else rtol
    return LinalgPinv.apply(a, atol=atol, rtol=rtol, hermitian=hermitian)
