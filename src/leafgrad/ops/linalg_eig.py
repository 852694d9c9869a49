"""``linalg.eig``/``linalg.eigvals``: eigenvalues and eigenvectors of general square matrices.

The results are complex for every input (complex64 for float32/complex64, complex128 for
float64/complex128). The forward is NumPy's ``np.linalg.eig``: LAPACK's ``geev``, the routine
torch's CPU build calls (from MKL; NumPy's comes from OpenBLAS). Both normalise each
eigenvector to unit 2-norm with its largest component real, so torch's and leafgrad's vectors
agree up to a sign (a unit phase for complex inputs) per column, and in single precision the
two LAPACKs sometimes list the eigenvalues in another order. Only quantities invariant under
those choices are comparable (``A V = V diag(L)``, ``|V|``, the eigenvalues as a set).

The backward and the forward-mode formula are torch's ``linalg_eig_backward`` and
``linalg_eig_jvp`` (FunctionsManual.cpp, non-Hermitian case), written with Tensor ops so a
double backward differentiates through the factorization again. They assume distinct
eigenvalues; the loss must not depend on the eigenvectors' phases, which torch checks (and
this check is copied with torch's tolerance and message).
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor, _wrap
from . import _batching_rules as batch
from . import _layout
from .linalg_decomp import MultiOutputOp, _check_matrix, _diag_embed, _matmul, solve
from .linalg_factor import _check_phase_invariant, _may_need_grad
from .registry import register
from .._dtype import from_numpy_dtype


def _complex_dtype(a: np.ndarray) -> np.dtype:
    return np.result_type(a.dtype, np.complex64)


def _check_input(a: np.ndarray, name: str) -> None:
    """torch's checks, in torch's order: the complex result type, the rank, squareness, the
    kernel's dtypes (no Half), finite entries."""
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"Unknown Complex ScalarType for {from_numpy_dtype(a.dtype)._legacy}")
    _check_matrix(a, name)
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if a.dtype == np.float16:
        raise NotImplementedError("\"linalg_eig_out_cpu\" not implemented for 'Half'")
    if not np.isfinite(a).all():
        # torch's eigvals skips this check when no gradient is needed and then crashes in LAPACK
        # (a segmentation fault, torch 2.13); leafgrad raises eig's error for it too.
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")


def _gaps(values: Tensor) -> Tensor:
    """E_ij = L_j - L_i off the diagonal, 1 on it (it only ever divides zeros or is replaced)."""
    n = values.shape[-1]
    eye = _wrap(np.eye(n, dtype=values._data.dtype))
    return values.unsqueeze(-2) - values.unsqueeze(-1) + eye


@register
class LinalgEig(MultiOutputOp):
    """Eigenvalues and unit-norm eigenvectors of a square matrix: ``A V = V diag(L)``;
    ``eigvals`` is output 0 of the same node (torch computes V when a gradient may need it)."""

    node = "LinalgEigBackward0"
    bfloat16_kernel = "linalg_eig_out_cpu"  # torch has no bfloat16 kernel
    uint_ok = True  # the forward raises torch's own error for uint16/32/64
    complex_ok = True
    vmap = batch.leading
    inputs = ("A",)
    output_names = ("eigenvalues", "eigenvectors")
    torch_names = ("linalg.eig", "linalg.eigvals")

    @staticmethod
    def forward(ctx, a, compute_v=True, name="linalg.eig"):
        _check_input(a, name)
        dtype = _complex_dtype(a)
        if not compute_v:
            values = np.linalg.eigvals(a) if a.size else np.empty(a.shape[:-1], dtype)
            return _layout.contiguous(values.astype(dtype, copy=False)), np.empty((0,), dtype)
        if a.size:
            values, vectors = np.linalg.eig(a)
        else:
            values, vectors = np.empty(a.shape[:-1], dtype), np.empty(a.shape, dtype)
        return (_layout.contiguous(values.astype(dtype, copy=False)),
                _layout.column_major(vectors.astype(dtype, copy=False)))

    def backward(self, grads):
        # torch's linalg_eig_backward (is_hermitian=false):
        # gA = V^-H (diag(gL) + (V^H gV - V^H V diag(Re(diag(V^H gV)))) / conj(E)) V^H,
        # E_ij = L_j - L_i; the diagonal of the second term stays when gL is undefined
        g_values, g_vectors = self.padded(grads, 2)
        values, vectors = self.outputs()
        if g_values is None and g_vectors is None:
            return None
        vectors_h = vectors.mH
        if g_vectors is None:
            return solve(vectors_h, g_values.unsqueeze(-1) * vectors_h)
        inner = _matmul(vectors_h, g_vectors)
        diagonal = inner.diagonal(0, -2, -1)
        _check_phase_invariant(diagonal.imag, "linalg_eig_backward", "eigenvectors",
                               "this quantity")
        inner = inner - _matmul(vectors_h, vectors * diagonal.real.unsqueeze(-2))
        inner = inner / _gaps(values).conj()
        if g_values is not None:
            inner = inner - _diag_embed(inner.diagonal(0, -2, -1)) + _diag_embed(g_values)
        return solve(vectors_h, _matmul(inner, vectors_h))

    def jvp(self, tangents, primals, result):
        # torch's linalg_eig_jvp (is_hermitian=false): with dP = V^-1 dA V,
        # dL = diag(dP), dV = V (X - diag(Re(diag(V^H V X)))), X = dP / E off the diagonal
        values, vectors = result
        tangent = tangents[0].to(vectors.dtype)
        product = solve(vectors, _matmul(tangent, vectors))
        d_values = product.diagonal(0, -2, -1)
        off_diagonal = product - _diag_embed(d_values)
        step = off_diagonal / _gaps(values)
        norms = _matmul(vectors.mH, _matmul(vectors, step)).diagonal(0, -2, -1).real
        return d_values, _matmul(vectors, step - _diag_embed(norms.to(vectors.dtype)))


def eig(a: Tensor) -> tuple:
    return LinalgEig.apply(a)


def eigvals(a: Tensor) -> Tensor:
    return LinalgEig.apply(a, compute_v=_may_need_grad(a), name="linalg.eigvals")[0]


class _EigvalsOutNode(LinalgEig):
    """What torch records for ``linalg.eigvals(A, out=out)`` when A requires grad: its composite
    ``out=`` form has no derivative, so ``out`` gets a node named ``NotImplemented`` whose
    backward raises (like heaviside's in elementwise_misc.py). Not in the op table."""

    node = "NotImplemented"
    qualified_name = "torch::autograd::NotImplemented"
    multi_output = False
    output_names = ()
    inputs = ("self",)

    @staticmethod
    def forward(ctx, a):
        return LinalgEig.forward(ctx, a, compute_v=False, name="linalg.eigvals")[0]

    def backward(self, grad):
        raise RuntimeError("derivative for aten::linalg_eigvals is not implemented")

    def jvp(self, tangents, primals, result):
        raise NotImplementedError(
            "Trying to use forward AD with aten::linalg_eigvals that does not support it.")


_EigvalsOutNode.__name__ = _EigvalsOutNode.__qualname__ = "NotImplemented"


def eigvals_out_node(a: Tensor) -> Tensor:
    """eigvals(a) recorded under torch's ``NotImplemented`` node (see _EigvalsOutNode)."""
    return _EigvalsOutNode.apply(a)
