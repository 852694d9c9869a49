"""Matrix inverse, determinants and solvers (``torch.linalg``), batched; factorizations are in
linalg_factor.py.

Forwards call NumPy's LAPACK wrappers; backwards are torch's formulas (derivatives.yaml and
FunctionsManual.cpp) written with Tensor ops, so second derivatives come for free. Every op
works on batches ``(..., m, n)``; complex inputs follow torch's formulas with ``A^H`` (``.mH``,
which is ``.mT`` for real tensors) and conjugated factors (Note: torch's convention for complex
gradients, ops/complex.py).

Note: LAPACK error reports
torch reports the first zero pivot of the LU factorization (``inv``) or the first leading minor
that is not positive-definite (``cholesky``), per batch element. NumPy only says "Singular
matrix", so on failure we recompute that number: ``_first_zero_pivot`` runs getrf's unblocked
algorithm (partial pivoting, multiply by the reciprocal pivot). Different LAPACKs round
differently, so on an exactly singular matrix the reported pivot can differ from torch's; on the
small integer matrices such errors usually come from it agrees (test_linalg checks some).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as _dtype

from ..autograd.grad_mode import state as _grad_state
from ..autograd.graph import SavedTensor
from ..tensor import Tensor, _wrap
from . import _float_kernels
from . import _lapack
from . import _layout
from .reduce import _sum_dims
from ._forward import jvp_sum
from . import _batching_rules as batch
from .complex import conj
from .registry import Op, plain_backward, register
from ._bfloat16 import legacy_name
from .linalg import matmul
from .math_logic import Where
from .._dtype import from_numpy_dtype
from .complex import real_part


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix the algorithm cannot handle (singular, not PD)."""


# torch exports the class ``torch._C._LinAlgError`` as ``torch.linalg.LinAlgError``; keeping its
# class name makes ``type(error).__name__`` agree with torch's.
LinAlgError = _LinAlgError


# -- input checks ---------------------------------------------------------------------------------


def _check_matrix(a: np.ndarray, name: str) -> None:
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")


def _low_precision(a: np.ndarray, name: str):
    """bfloat16 as ``_check_float`` refuses float16 (``Op.bfloat16_kernel``)."""
    if a.ndim < 2 or a.dtype.kind != "V":
        return None
    return RuntimeError(f"{name}: Low precision dtypes not supported. Got {legacy_name(a)}")


def _solve_bfloat16(a: np.ndarray, b: np.ndarray):
    """linalg.solve with a bfloat16 operand: torch's dtype check, then no bfloat16 LU kernel."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or a.dtype.kind not in "fcV":
        return None  # the forward's own checks come first
    if a.dtype != b.dtype:
        return RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A "
                            f"of type {legacy_name(a)} and B of type {legacy_name(b)} instead")
    return NotImplementedError("\"lu_cpu\" not implemented for 'BFloat16'")


def _check_float(a: np.ndarray, name: str, kernel: str | None = None) -> None:
    """Floating or complex inputs only; float16 is refused too (torch's CPU LAPACK kernels lack
    it), with the message of torch's ``kernel`` dispatch when given, else of the op's own check."""
    if a.dtype.kind not in "fc":
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{from_numpy_dtype(a.dtype)._legacy}"
        )
    if a.dtype == np.float16:
        if kernel is not None:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Half'")
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got Half")


def _check_square(a: np.ndarray, name: str) -> None:
    _check_matrix(a, name)
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices"
        )


def _check_square_float(a: np.ndarray, name: str, kernel: str | None = None) -> None:
    _check_square(a, name)
    _check_float(a, name, kernel)


def _batch_prefix(a: np.ndarray, index: int) -> str:
    return f"(Batch element {index}): " if a.ndim > 2 else ""


def _first_zero_pivot(a: np.ndarray) -> tuple:
    """``(batch index, 1-based pivot)`` of the first exactly-zero LU pivot, or ``(None, 0)``."""
    n = a.shape[-1]
    lu = np.array(a, dtype=np.float64 if a.dtype == np.float16 else a.dtype).reshape(-1, n, n)
    info = np.zeros(lu.shape[0], dtype=np.int64)
    rows = np.arange(lu.shape[0])
    for j in range(n):
        pivot_rows = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        top = lu[rows, j].copy()
        lu[rows, j] = lu[rows, pivot_rows]
        lu[rows, pivot_rows] = top
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        scale = np.where(zero, 0, 1 / np.where(zero, 1, pivot))
        lu[:, j + 1:, j] *= scale[:, None]
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    failed = np.flatnonzero(info)
    if failed.size == 0:
        return None, 0
    return int(failed[0]), int(info[failed[0]])


def _singular_error(a: np.ndarray, name: str) -> _LinAlgError:
    batch, pivot = _first_zero_pivot(a)
    if batch is None:  # LAPACK found a zero our recomputation rounded away; name the last one
        batch, pivot = 0, a.shape[-1]
    if name == "solve":
        return _LinAlgError(
            f"torch.linalg.solve: {_batch_prefix(a, batch)}The solver failed because the input "
            "matrix is singular."
        )
    return _LinAlgError(
        f"linalg.inv: {_batch_prefix(a, batch)}The diagonal element {pivot} is zero, the "
        "inversion could not be completed because the input matrix is singular."
    )


def _diag_embed(vector: Tensor) -> Tensor:
    from .linalg_ext import diag_embed

    return diag_embed(vector)


def _matmul(a: Tensor, b: Tensor) -> Tensor:
    return matmul(a, b)


# -- inverse, determinants ------------------------------------------------------------------------


@register
class LinalgInvEx(Op):
    """The inverse of each square matrix; a singular one raises ``LinAlgError``."""

    node = "LinalgInvExBackward0"
    complex_ok = True
    vmap = batch.leading
    inputs = ("A",)
    saves = {"result": ("A",)}
    torch_names = ("linalg.inv", "inverse", "Tensor.inverse", "linalg.matrix_power")
    bfloat16_kernel = staticmethod(lambda arrays, params: _low_precision(arrays[0], "linalg.inv"))

    @staticmethod
    def forward(ctx, a):
        _check_square_float(a, "linalg.inv")
        # torch's inverse is linalg.solve(A, I): Note: torch's LU solve (_lapack.py)
        replayed = _lapack.solve(a, np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape))
        if replayed is not None:
            if replayed[1].any():
                raise _singular_error(a, "inv")
            return _layout.column_major(replayed[0])
        try:
            return _layout.column_major(np.linalg.inv(a))
        except np.linalg.LinAlgError:
            raise _singular_error(a, "inv") from None

    def backward(self, grad):
        inverse_h = self.saved("result").mH
        return -_matmul(inverse_h, _matmul(grad, inverse_h))

    def jvp(self, tangents, primals, result):
        # torch: -inverse @ A_t @ inverse
        return -_matmul(_matmul(result, tangents[0]), result)


@register
class LinalgDet(Op):
    """The determinant of each square matrix."""

    node = "LinalgDetBackward0"
    bfloat16_kernel = "lu_cpu"  # torch has no bfloat16 kernel
    uint_ok = True  # the forward raises torch's own error for uint16/32/64
    complex_ok = True
    vmap = batch.leading
    backward_reads_values = True  # its backward branches on the input's values
    inputs = ("A",)
    saves = {"A": ("A",), "result": ("A",)}
    torch_names = ("linalg.det", "det", "Tensor.det")

    @staticmethod
    def forward(ctx, a):
        _check_square_float(a, "linalg.det", "lu_cpu")
        factored = _lu_of_transpose(a)
        if factored is not None:  # torch's det_P * prod(diag(LU)) (Note: torch's LU solve)
            packed, pivots = factored
            diagonal = np.diagonal(packed, axis1=-2, axis2=-1)
            return np.asarray(_lapack.permutation_sign(pivots, a.dtype) * np.prod(diagonal, -1))
        return np.asarray(np.linalg.det(a))

    def backward(self, grad):
        a, det = self.saved("A"), self.saved("result")
        if a._data.size == 0:
            return grad.new_zeros(a.shape)
        # The gradient solves A^H G = (grad * conj(det)) I: conj(det(A)) times the inverse's
        # conjugate transpose.
        eps = _dtype.np_finfo(a._data.dtype).eps
        singular = np.abs(det._data) < 100 * eps
        if not np.any(singular):
            n = a.shape[-1]
            scaled = _diag_embed((grad * conj(det)).unsqueeze(-1).expand(*det.shape, n))
            return _inverse_h_times(a, scaled)
        # Near-singular: torch takes the adjugate from an SVD when recording a graph (so that
        # higher derivatives exist); otherwise it solves with a perturbed LU, which gives zeros
        # where det is exactly 0 and, up to rounding, the adjugate elsewhere. We use the
        # adjugate for the whole batch in both cases, zeroed where det == 0 without a graph.
        adjugate = _det_backward_singular(grad, a)
        if not _grad_state.grad_enabled and np.any(det._data == 0):
            keep = _wrap(np.asarray(det._data != 0, dtype=a._data.dtype))
            adjugate = adjugate * keep.unsqueeze(-1).unsqueeze(-1)
        return adjugate

    def jvp(self, tangents, primals, result):
        # torch's linalg_det_jvp: det * tr(A^{-1} A_t). Near a singular matrix, tr(adj(A) A_t)
        # from the SVD, as the backward; 0 where det is exactly 0, as torch's perturbed LU
        # solve (and leafgrad's unrecorded backward) give there.
        a, tangent = primals[0], tangents[0]
        if a._data.size == 0:
            return result * 0
        eps = _dtype.np_finfo(a._data.dtype).eps
        if not np.any(np.abs(result._data) < 100 * eps):
            return solve(a, tangent).diagonal(0, -2, -1).sum(-1) * result
        ones = _wrap(np.ones(result.shape, a._data.dtype))
        derivative = (_det_backward_singular(ones, a) * tangent).sum((-2, -1))
        return derivative * _wrap(np.asarray(result._data != 0, dtype=a._data.dtype))


def _det_backward_singular(grad: Tensor, a: Tensor) -> Tensor:
    """grad * adj(A)^H = grad * conj(det(U) det(Vh)) * U diag(prod_{j != i} S_j) Vh."""
    from .linalg_factor import svd

    u, s, vh = svd(a)
    # unit modulus (+-1 for real A): constant on the manifold
    signs = np.conj(np.linalg.det(u._data) * np.linalg.det(vh._data))
    alpha = grad * _wrap(np.asarray(signs, dtype=a._data.dtype))
    n = s.shape[-1]
    others = None
    for j in range(n):
        # singular value j enters every product except its own
        keep = _wrap(np.eye(n, dtype=s._data.dtype)[j])
        factor = s[..., j:j + 1] * (1 - keep) + keep
        others = factor if others is None else others * factor
    weights = alpha.unsqueeze(-1) * others
    return _matmul(u * weights.unsqueeze(-2), vh)


class MultiOutputOp(Op):
    """Base of the ops with several outputs whose backward needs those outputs as Tensors.

    The outputs are saved as torch saves them: unpacked, each is a tensor whose ``grad_fn`` is
    this node, so a backward formula written with them is differentiable again through the
    op itself (gradgradcheck of ``svd``, ``eigh``, ``qr`` depends on it). They are saved under
    torch's names (``output_names``, read back as ``grad_fn._saved_U``); ``save_input`` keeps
    input 0 too, as ``_saved_A``. ``saves`` stays empty: the registry's plan only serves
    single-output ops.
    """

    multi_output = True
    output_names: tuple = ()
    save_input = False

    @classmethod
    def _wrap_outputs(cls, arrays, args, node):
        outputs = super()._wrap_outputs(arrays, args, node)
        saved = node._saved
        for name, output in zip(cls.output_names, outputs):
            saved[name] = SavedTensor(output, is_output=True)
        if cls.save_input:
            saved["A"] = SavedTensor(args[0])
        return outputs

    @staticmethod
    def padded(grads: list, count: int) -> list:
        """The engine's list of output grads stops at the last output that got one."""
        return list(grads) + [None] * (count - len(grads))

    def outputs(self) -> tuple:
        return tuple(self.saved(name) for name in self.output_names)


@register
class LinalgSlogdet(MultiOutputOp):
    """``(sign, log|det|)`` of each square matrix."""

    node = "LinalgSlogdetBackward0"
    bfloat16_kernel = staticmethod(lambda arrays, params: _low_precision(arrays[0], "linalg.slogdet"))
    uint_ok = True  # the forward raises torch's own error for uint16/32/64
    complex_ok = True
    vmap = batch.leading
    inputs = ("A",)
    output_names = ("sign",)  # kept for parity with torch's node; the formula needs only A
    save_input = True
    torch_names = (
        "linalg.slogdet", "slogdet", "logdet", "Tensor.slogdet", "Tensor.logdet",
    )

    @staticmethod
    def forward(ctx, a):
        _check_square_float(a, "linalg.slogdet")
        factored = _lu_of_transpose(a)
        if factored is not None:  # torch's: from the LU's diagonal (Note: torch's LU solve)
            packed, pivots = factored
            diagonal = np.diagonal(packed, axis1=-2, axis2=-1)
            sign = _lapack.permutation_sign(pivots, a.dtype) * np.prod(np.sign(diagonal), -1)
            with np.errstate(divide="ignore"):
                logs = _float_kernels.log(np.abs(diagonal))  # (torch's log bits)
            return np.asarray(sign), np.asarray(_sum_dims(logs, (logs.ndim - 1,), False, None,
                                                          True))
        sign, logabsdet = np.linalg.slogdet(a)
        return np.asarray(sign), np.asarray(logabsdet)

    def backward(self, grads):
        grad_sign, grad = self.padded(grads, 2)
        a = self.saved("A")
        if a._data.dtype.kind == "c":
            # torch's slogdet_backward: g = g_logabsdet - i Im(conj(g_sign) sign), gA = g A^{-H}
            # (a complex sign moves with A; a real one is piecewise constant)
            if grad_sign is None and grad is None:
                return None
            if grad is not None:
                grad = grad.to(a.dtype)
            if grad_sign is not None:
                rotation = real_part(conj(grad_sign) * self.saved("sign"), imaginary=True) * 1j
                grad = -rotation if grad is None else grad - rotation
        elif grad is None:  # the sign is piecewise constant: no gradient flows through it
            return None
        scaled = _diag_embed(grad.unsqueeze(-1).expand(*grad.shape, a.shape[-1]))
        return _inverse_h_times(a, scaled)

    def jvp(self, tangents, primals, result):
        # torch's slogdet_jvp: (0, tr(A^{-1} A_t)); nan for a singular A, as torch's LU solve gives
        sign = result[0]
        try:
            trace = solve(primals[0], tangents[0]).diagonal(0, -2, -1).sum(-1)
        except _LinAlgError:
            trace = _wrap(np.full(sign.shape, np.nan, dtype=sign._data.dtype))
        return sign * 0, trace


# -- solvers --------------------------------------------------------------------------------------


def _broadcast_batches(b: np.ndarray, a: np.ndarray) -> tuple:
    """The common batch shape of B and A, with torch's message (B's sizes are "tensor a")."""
    batch_b, batch_a = b.shape[:-2], a.shape[:-2]
    try:
        return np.broadcast_shapes(batch_b, batch_a)
    except ValueError:
        pass
    for i in range(1, min(len(batch_a), len(batch_b)) + 1):
        if batch_b[-i] != batch_a[-i] and 1 not in (batch_b[-i], batch_a[-i]):
            raise RuntimeError(
                f"The size of tensor a ({batch_b[-i]}) must match the size of tensor b "
                f"({batch_a[-i]}) at non-singleton dimension {max(len(batch_a), len(batch_b)) - i}"
            )
    raise RuntimeError("batch dimensions do not broadcast")


def _is_vector_rhs(a_ndim: int, b_shape: tuple, a_shape: tuple) -> bool:
    # torch's linalg_solve_is_vector_rhs
    return len(b_shape) == 1 or (len(b_shape) == a_ndim - 1 and b_shape == a_shape[:-1])


def _lu_of_transpose(a: np.ndarray):
    """(LU, pivots) as torch's det and slogdet factor A: its transpose when A is contiguous
    (the same memory, column-major), A itself otherwise; None where not replayed."""
    if a.dtype.kind == "c" or a.shape[-1] == 0:
        return None
    factored = _lapack.getrf(np.swapaxes(a, -1, -2) if a.flags.c_contiguous else a)
    return None if factored is None else factored[:2]


def _inverse_h_times(a: Tensor, rhs: Tensor) -> Tensor:
    """``A^{-H} rhs`` for det's and slogdet's backward. Recorded, torch solves with A^H (as
    here); otherwise it reuses the forward's factors (Note: torch's LU solve, _lapack.py):
    of A^T for a contiguous A (a plain solve on them), of A otherwise (the transposed one)."""
    if plain_backward() and a._data.dtype.kind != "c":
        array = a._data
        contiguous = array.flags.c_contiguous
        factored = np.swapaxes(array, -1, -2) if contiguous else array
        batch = _broadcast_batches(rhs._data, array)
        replayed = _lapack.solve(np.broadcast_to(factored, batch + array.shape[-2:]),
                                 rhs._data, True, adjoint=not contiguous)
        if replayed is not None and not replayed[1].any():
            return _wrap(_layout.column_major(replayed[0]))
    return solve(a.mH, rhs)


def _plain_solve_grad(a: Tensor, grad: Tensor, left: bool):
    """linalg.solve's ``A^{-H} G`` (``G A^{-H}``) as torch's backward computes it when nothing
    records it: lu_solve on the forward's factors of A (Note: torch's LU solve, _lapack.py);
    None where that is not replayed."""
    if a._data.dtype.kind == "c":
        return None
    batch = _broadcast_batches(grad._data, a._data)
    a_full = np.broadcast_to(a._data, batch + a.shape[-2:])
    replayed = _lapack.solve(a_full, grad._data, left, adjoint=True)
    if replayed is None or replayed[1].any():
        return None
    out = replayed[0]
    return _wrap(_layout.column_major(out) if left else _layout.contiguous(out))


def _numpy_solve(a_full: np.ndarray, b_full: np.ndarray, left: bool) -> np.ndarray:
    """linalg.solve through NumPy's LAPACK (where torch's MKL calls are not replayed)."""
    try:
        if left:
            return np.linalg.solve(a_full, b_full)
        return np.swapaxes(
            np.linalg.solve(np.swapaxes(a_full, -1, -2), np.swapaxes(b_full, -1, -2)), -1, -2)
    except np.linalg.LinAlgError:
        raise _singular_error(a_full, "solve") from None


@register
class LinalgSolveEx(Op):
    """``X`` with ``A X = B`` (``left=True``) or ``X A = B``; B may be a (batch of) vector(s)."""

    node = "LinalgSolveExBackward0"
    bfloat16_kernel = staticmethod(lambda arrays, params: _solve_bfloat16(*arrays[:2]))
    complex_ok = True
    vmap = batch.solve
    inputs = ("A", "B")
    saves = {"A": ("A", "B"), "result": ("A",)}
    broadcasts = True
    torch_names = ("linalg.solve",)

    @staticmethod
    def forward(ctx, a, b, left=True):
        _check_square(a, "linalg.solve")
        _check_float(a, "linalg.solve", "lu_cpu")
        if a.dtype != b.dtype:
            raise RuntimeError(
                "linalg.solve: Expected A and B to have the same dtype, but found A of type "
                f"{from_numpy_dtype(a.dtype)._legacy} and B of type "
                f"{from_numpy_dtype(b.dtype)._legacy} instead"
            )
        vector = _is_vector_rhs(a.ndim, b.shape, a.shape)
        if vector and not left:
            raise RuntimeError(
                "linalg.solve: Vector broadcasting of the left hand side is not supported for "
                "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)"
            )
        matrix = b[..., None] if vector else b
        _check_matrix(matrix, "linalg.solve")
        n = a.shape[-1]
        if (matrix.shape[-2] if left else matrix.shape[-1]) != n:
            rows, cols = matrix.shape[-2:]
            equation = "AX = B" if left else "XA = B"
            raise RuntimeError(
                f"linalg.solve: Incompatible shapes of A and B for the equation {equation} "
                f"({n}x{n} and {rows}x{cols})"
            )
        batch = _broadcast_batches(matrix, a)
        a_full = np.broadcast_to(a, batch + a.shape[-2:])
        b_full = np.broadcast_to(matrix, batch + matrix.shape[-2:])
        replayed = _lapack.solve(a_full, b_full, left)  # Note: torch's LU solve (_lapack.py)
        if replayed is not None:
            out, singular = replayed
            if singular.any():
                raise _singular_error(a_full, "solve")
        else:
            out = _numpy_solve(a_full, b_full, left)
        # torch's layouts: column-major solutions; a batch of vectors as the columns of a
        # matrix (its last batch dim innermost); X of XA = B is the transpose of a column-major
        # solution of A^T X^T = B^T, so row-major
        if vector:
            return _layout.column_major(out[..., 0])
        return _layout.column_major(out) if left else _layout.contiguous(out)

    def backward(self, grad):
        # X = A^{-1} B: gB = A^{-H} gX, gA = -gB X^H   (X = B A^{-1}: gB = gX A^{-H}, gA = -X^H gB)
        a = self.saved("A")
        left = self._params.get("left", True)
        vector = _is_vector_rhs(len(self.input_shape(0)), self.input_shape(1),
                                self.input_shape(0))
        grad_matrix = grad.unsqueeze(-1) if vector else grad
        grad_b = _plain_solve_grad(a, grad_matrix, left) if plain_backward() else None
        if grad_b is None:  # (recorded: torch solves with A^H, as here)
            grad_b = solve(a.mH, grad_matrix, left=left)
        grad_a = None
        if self.needs_grad(0):
            x = self.saved("result")
            x = x.unsqueeze(-1) if vector else x
            grad_a = -_matmul(grad_b, x.mH) if left else -_matmul(x.mH, grad_b)
        if vector:
            grad_b = grad_b.squeeze(-1)
        return grad_a, grad_b if self.needs_grad(1) else None

    def jvp(self, tangents, primals, result):
        # torch's linalg_solve_jvp: solve(A, B_t - A_t X) (left) or solve(A, B_t - X A_t) (right)
        a, b = primals
        left = self._params.get("left", True)
        vector = _is_vector_rhs(a.ndim, tuple(b.shape), tuple(a.shape))
        x = result.unsqueeze(-1) if vector else result

        def through_a(t):
            return -_matmul(t, x) if left else -_matmul(x, t)

        def through_b(t):
            return t.unsqueeze(-1) if vector else t

        rhs = jvp_sum(tangents, through_a, through_b)
        out = solve(a, rhs, left=left)
        return out.squeeze(-1) if vector else out


@register
class LinalgSolveTriangular(Op):
    """``X`` with ``A X = B`` (or ``X A = B``) reading only A's ``upper`` or lower triangle."""

    node = "LinalgSolveTriangularBackward0"
    bfloat16_kernel = "triangular_solve_cpu"  # torch has no bfloat16 kernel
    uint_kernel = "triangular_solve_cpu"
    complex_ok = True
    vmap = batch.solve
    inputs = ("self", "B")
    saves = {"self": ("self", "B"), "result": ("self",)}
    broadcasts = True
    torch_names = ("linalg.solve_triangular",)

    @staticmethod
    def forward(ctx, a, b, upper, left=True, unitriangular=False):
        _check_square(a, "linalg.solve_triangular")
        _check_float(a, "linalg.solve_triangular", "triangular_solve_cpu")
        _check_matrix(b, "linalg.solve_triangular")
        if b.dtype != a.dtype:  # torch computes in A's dtype (B is cast, as by copy_)
            if b.dtype.kind == "c" and a.dtype.kind != "c":
                import warnings

                warnings.warn("Casting complex values to real discards the imaginary part",
                              UserWarning, stacklevel=2)
                b = b.real
            b = b.astype(a.dtype)
        batch = _broadcast_batches(b, a)
        replayed = _lapack.trsm(np.broadcast_to(a, batch + a.shape[-2:]),
                                np.broadcast_to(b, batch + b.shape[-2:]), upper, left,
                                unitriangular)
        if replayed is not None:  # torch's trsm call (Note: torch's LU solve, _lapack.py)
            return _layout.column_major(replayed)
        triangle = np.triu(a) if upper else np.tril(a)
        if unitriangular:
            triangle = triangle.copy()
            np.einsum("...ii->...i", triangle)[...] = 1
        batch = _broadcast_batches(b, a)
        a_full = np.broadcast_to(triangle, batch + a.shape[-2:])
        b_full = np.broadcast_to(b, batch + b.shape[-2:])
        # NumPy has no triangular solver; an LU solve of a triangular matrix gives the same X.
        with np.errstate(divide="ignore", invalid="ignore"):
            try:
                if left:
                    return _layout.column_major(np.linalg.solve(a_full, b_full))
                return _layout.column_major(np.swapaxes(np.linalg.solve(
                    np.swapaxes(a_full, -1, -2), np.swapaxes(b_full, -1, -2)), -1, -2))
            except np.linalg.LinAlgError:  # a zero on the diagonal: LAPACK's trtrs gives inf/nan
                return _layout.column_major(_substitute(a_full, b_full, upper, left))

    def backward(self, grad):
        p = self._params
        upper, left, unit = p["upper"], p.get("left", True), p.get("unitriangular", False)
        a = self.saved("self")
        grad_b = solve_triangular(a.mH, grad, upper=not upper, left=left, unitriangular=unit)
        grad_a = None
        if self.needs_grad(0):
            x_t = self.saved("result").mH
            grad_a = -_matmul(grad_b, x_t) if left else -_matmul(x_t, grad_b)
            grad_a = grad_a.triu(int(unit)) if upper else grad_a.tril(-int(unit))
        return grad_a, grad_b if self.needs_grad(1) else None

    def jvp(self, tangents, primals, result):
        # torch's linalg_solve_triangular_forward_AD: solve_triangular(A, B_t - proj(A_t) X)
        p = self._params
        upper, left, unit = p["upper"], p.get("left", True), p.get("unitriangular", False)

        def through_a(t):
            projected = t.triu(int(unit)) if upper else t.tril(-int(unit))
            return -_matmul(projected, result) if left else -_matmul(result, projected)

        rhs = jvp_sum(tangents, through_a, lambda t: t)
        return solve_triangular(primals[0], rhs, upper=upper, left=left, unitriangular=unit)


def _substitute(a: np.ndarray, b: np.ndarray, upper: bool, left: bool) -> np.ndarray:
    """Plain back/forward substitution (divisions by zero give inf/nan, as LAPACK's)."""
    if not left:
        a, b, upper = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper
    n = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-1], b.shape[:-2] + (n,)) + b.shape[-1:],
                 dtype=b.dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in order:
            rest = np.einsum("...k,...km->...m", a[..., i, :], x)
            x[..., i, :] = (b[..., i, :] - rest) / a[..., i, i, None]
    return x if left else np.swapaxes(x, -1, -2)




# -- functions ------------------------------------------------------------------------------------


def inv(a: Tensor) -> Tensor:
    return LinalgInvEx.apply(a)


def det(a: Tensor) -> Tensor:
    return LinalgDet.apply(a)


def slogdet(a: Tensor) -> tuple:
    """``(sign, logabsdet)``; the namespace layer wraps it in torch's named tuple."""
    return LinalgSlogdet.apply(a)


def logdet(a: Tensor) -> Tensor:
    """log(det(A)): nan for a negative determinant, -inf for a singular matrix."""
    _check_square_float(a._data, "logdet")
    sign, logabsdet = LinalgSlogdet.apply(a)
    if a._data.dtype.kind == "c":  # torch: log(sign) + logabsdet
        return sign.log() + logabsdet
    # torch: where(sign == -1, nan, logabsdet), so the node is WhereBackward0
    return Where.apply(float("nan"), logabsdet, condition=sign == -1)


def solve(a: Tensor, b: Tensor, *, left: bool = True) -> Tensor:
    return LinalgSolveEx.apply(a, b, left=left)


def solve_triangular(a: Tensor, b: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    return LinalgSolveTriangular.apply(a, b, upper=upper, left=left, unitriangular=unitriangular)
