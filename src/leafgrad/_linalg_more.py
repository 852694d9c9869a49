"""More of ``torch.linalg`` (real and complex dtypes): LU (``lu_factor``, ``lu``,
``lu_solve``, the ``_ex`` forms), ``lstsq``, ``matrix_rank``, ``multi_dot``, ``vecdot``, ``matrix_exp``, ``cond``,
``tensorinv``, ``tensorsolve``, ``vander``, ``householder_product``, and the legacy top-level
``cholesky_solve``, ``cholesky_inverse``, ``triangular_solve``, ``lu_solve``, ``lu_unpack``,
``qr``.

Note: composites
Most are composites of ops that already have gradients (triangular solves, matmul, pinv,
cumprod...), so their gradients are exact and differentiable twice, but their ``grad_fn`` is the
last op of the composite rather than torch's single node; ``lu``, ``lu_unpack``, ``lstsq``
and ``householder_product`` are run as one node with torch's name whose backward
differentiates the composite (Note: named composites). Some are primitives written as autograd Functions with torch's formulas and torch's node
names: ``lu_factor_ex`` (``LinalgLuFactorExBackward0``), ``lu_solve``
(``LinalgLuSolveBackward0``; with MKL its values are torch's getrs call's),
``cholesky_solve`` and ``cholesky_inverse`` (``CholeskySolveBackward0``,
``CholeskyInverseBackward0``; the composites under vmap and forward AD) and ``matrix_exp``
(``LinalgMatrixExpBackward0``: the backward is the matrix exponential of a block matrix, so
it is itself differentiable).

With MKL, LU (getrf), cholesky_solve (potrs) and cholesky_inverse (potri) are torch's own
LAPACK calls, so torch's bits (ops/_lapack.py, Note: torch's LU solve). Without it values agree
with torch to rounding: LU is an unblocked right-looking elimination with LAPACK's pivot choice
(first largest magnitude). matrix_exp is a degree-13 Pade approximant with scaling and squaring
(torch uses Bader-Blanes-Casas Taylor polynomials: last bits differ).

Apart from ``lu_solve``, none of these takes ``out=`` yet (torch's do): passing it raises
TypeError rather than being ignored.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from . import _dtype as _dtype

from ._functions_linalg import _return_type
from ._out import EXPECT, Out, takes_out
from .ops import _lapack, _layout
from .autograd.function import Function
from .tensor import Tensor, _wrap

__all__ = [
    "lu_factor", "lu_factor_ex", "lu", "lu_solve", "lu_unpack_", "solve_ex", "inv_ex",
    "cholesky_ex", "lstsq", "matrix_rank", "multi_dot", "vecdot", "matrix_exp", "cond",
    "tensorinv", "tensorsolve", "vander", "householder_product", "geqrf",
]

Geqrf = _return_type("geqrf", ("a", "tau"))
LuFactor = _return_type("linalg_lu_factor", ("LU", "pivots"))
LuFactorEx = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
Lu = _return_type("linalg_lu", ("P", "L", "U"))
LuUnpack = _return_type("lu_unpack", ("P", "L", "U"))
SolveEx = _return_type("linalg_solve_ex", ("result", "info"))
InvEx = _return_type("linalg_inv_ex", ("inverse", "info"))
LuWithInfo = _return_type("_lu_with_info", ("LU", "pivots", "info"))
CholeskyEx = _return_type("linalg_cholesky_ex", ("L", "info"))
Lstsq = _return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
TriangularSolve = _return_type("triangular_solve", ("solution", "cloned_coefficient"))
Qr = _return_type("qr", ("Q", "R"))

_LAPACK_DTYPES = ("float32", "float64", "complex64", "complex128")
_NOT_FLOAT_OR_DOUBLE = "This function doesn't handle types other than float and double"


def _lib():
    import leafgrad

    return leafgrad


def _float_check(a: Tensor, kernel: str) -> None:
    if a.dtype.name not in _LAPACK_DTYPES:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{a.dtype._legacy}'")


def _matrix_check(a: Tensor, name: str) -> None:
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")


def _square_check(a: Tensor, name: str) -> None:
    _matrix_check(a, name)
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


# -- LU -------------------------------------------------------------------------------------------
def _getrf(a: np.ndarray):
    """LAPACK getrf's result on a batch: packed LU, 1-based int32 pivots and info (the first
    zero pivot, 1-based; 0 when none), by partial pivoting on the largest magnitude. With MKL
    its own getrf, as torch calls it (Note: torch's LU solve, ops/_lapack.py)."""
    replayed = _lapack.getrf(a)
    if replayed is not None:
        return _layout.column_major(replayed[0]), replayed[1], replayed[2]
    lu = np.array(a, dtype=a.dtype, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.shape[:-2]
    flat = lu.reshape((int(np.prod(batch)), m, n))  # (-1 cannot be inferred with m * n == 0)
    pivots = np.zeros((flat.shape[0], k), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    rows = np.arange(flat.shape[0])
    for j in range(k):
        column = flat[:, j:, j]
        # LAPACK's i?amax: |x| for real, |re| + |im| for complex (its cabs1)
        column = np.abs(column.real) + np.abs(column.imag) if lu.dtype.kind == "c" else \
            np.abs(column)
        p = j + np.argmax(column, axis=1)
        pivots[:, j] = p + 1
        swap = p != j
        if swap.any():
            upper = flat[rows[swap], j, :].copy()
            flat[rows[swap], j, :] = flat[rows[swap], p[swap], :]
            flat[rows[swap], p[swap], :] = upper
        pivot = flat[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1, pivot)
        with np.errstate(all="ignore"):
            factors = np.where(zero[:, None], flat[:, j + 1:, j], flat[:, j + 1:, j] / safe[:, None])
        flat[:, j + 1:, j] = factors
        flat[:, j + 1:, j + 1:] -= factors[:, :, None] * flat[:, j, None, j + 1:]
    return (_layout.column_major(lu.reshape(batch + (m, n))), pivots.reshape(batch + (k,)),
            info.reshape(batch))


def _permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """Row order ``perm`` with ``A[perm] = L @ U`` from LAPACK's sequential swaps."""
    batch = pivots.shape[:-1]
    flat = pivots.reshape((int(np.prod(batch)), pivots.shape[-1]))  # k may be 0
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        target = flat[:, j].astype(np.int64) - 1
        held = perm[rows, j].copy()
        perm[rows, j] = perm[rows, target]
        perm[rows, target] = held
    return perm.reshape(batch + (m,))


class _LuFactor(Function):
    @staticmethod
    def forward(a, lu_array, pivots):
        return _wrap(lu_array)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)
        ctx.pivots = inputs[2]

    @staticmethod
    def backward(ctx, grad):
        # torch's lu_factor_ex_backward: linalg_lu_backward of the L and U parts of grad
        (packed,) = ctx.saved_tensors
        perm, lower, upper = _lu_unpack_composite(packed, _wrap(ctx.pivots))
        k = min(packed.shape[-2:])
        return _lu_backward(grad[..., :, :k], grad[..., :k, :], perm, lower, upper), None, None

    @staticmethod
    def jvp(ctx, grad_a, grad_lu, grad_pivots):
        # torch's lu_factor_ex_jvp: linalg_lu_jvp's dL and dU packed as LU is
        (packed,) = ctx.saved_tensors
        perm, lower, upper = _lu_unpack_composite(packed, _wrap(ctx.pivots))
        d_lower, d_upper = _lu_jvp(grad_a, perm, lower, upper)
        m, n = grad_a.shape[-2:]
        if m >= n:
            d_lower[..., :n, :].add_(d_upper)
            return d_lower
        d_upper[..., :, :m].add_(d_lower)
        return d_upper


def _lu_backward(g_lower, g_upper, perm, lower, upper):
    """torch's linalg_lu_backward (A = P L U, L m x k, U k x n): square, gA = P L^-H
    [(L^H gL).tril(-1) + (gU U^H).triu()] U^-H; wide (U = [U1 U2]), gA = P L^-H [gU1.triu() +
    ((L^H gL - gU.triu() U^H).tril(-1)) U1^-H | gU2]; tall (L = [L1; L2]), gA = P [gL1.tril(-1)
    + L1^-H (gU U^H - L^H gL.tril(-1)).triu() | gL2] U^-H."""
    lib = _lib()
    solve = lib.linalg.solve_triangular
    m, n = lower.shape[-2], upper.shape[-1]
    k = min(m, n)
    if m == n:
        grad = (lower.mH @ g_lower).tril(-1) + (g_upper @ upper.mH).triu()
        grad = solve(upper.mH, grad, upper=False, left=False)
        grad = solve(lower.mH, grad, upper=True, unitriangular=True)
    elif m < n:
        grad = lower.mH @ g_lower - g_upper.triu() @ upper.mH
        grad = solve(upper[..., :, :k].mH, grad.tril(-1), upper=False, left=False)
        grad = lib.cat([grad + g_upper[..., :, :k].triu(), g_upper[..., :, k:]], -1)
        grad = solve(lower.mH, grad, upper=True, unitriangular=True)
    else:
        grad = g_upper @ upper.mH - lower.mH @ g_lower.tril(-1)
        grad = solve(lower[..., :k, :].mH, grad.triu(), upper=True, unitriangular=True)
        grad = lib.cat([grad + g_lower[..., :k, :].tril(-1), g_lower[..., k:, :]], -2)
        grad = solve(upper.mH, grad, upper=False, left=False)
    return perm @ grad


def _lu_jvp(d_a, perm, lower, upper):
    """torch's linalg_lu_jvp: dK = L1^-1 P^T dA1 U1^-1, dL1 = L1 dK.tril(-1), dU1 = dK.triu()
    U1; wide: dU2 = L1^-1 P^T dA2 - dK.tril(-1) U2; tall: dL2 = P^T dA2 U1^-1 - L2 dK.triu()."""
    lib = _lib()
    solve = lib.linalg.solve_triangular
    m, n = d_a.shape[-2:]
    k = min(m, n)
    permuted = perm.mT @ d_a
    lower1, upper1 = lower[..., :k, :k], upper[..., :k, :k]
    d_k = solve(lower1, permuted[..., :k, :k], upper=False, unitriangular=True)
    d_k = solve(upper1, d_k, upper=True, left=False)
    d_lower1 = lower1 @ d_k.tril(-1)
    d_upper1 = d_k.triu() @ upper1
    if m == n:
        return d_lower1, d_upper1
    if m < n:
        d_upper2 = solve(lower1, permuted[..., :, k:], upper=False, unitriangular=True) - \
            d_k.tril(-1) @ upper[..., :, k:]
        return d_lower1, lib.cat([d_upper1, d_upper2], -1)
    d_lower2 = solve(upper1, permuted[..., k:, :], upper=True, left=False) - \
        lower[..., k:, :] @ d_k.triu()
    return lib.cat([d_lower1, d_lower2], -2), d_upper1


_LuFactor._backward_cls.__name__ = _LuFactor._backward_cls.__qualname__ = \
    "LinalgLuFactorExBackward0"
_LuFactor._backward_cls.__module__ = "builtins"  # a C++ class in torch, printed bare


def _lu_dims(A, name: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``: the packed LU factorization ``A = P L U`` (LAPACK's layout,
    1-based int32 pivots) and the index of the first zero pivot (0 when none)."""
    _lu_dims(A, "torch.lu_factor")
    _float_check(A, "lu_cpu")
    if not pivot and A.numel():  # torch factors an empty matrix whatever pivot is
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    packed, pivots, info = _getrf(A._data)
    if check_errors and info.any():
        raise _lu_error("torch.linalg.lu_factor_ex", info)
    result = _LuFactor.apply(A, packed, pivots)
    return LuFactorEx((result, _wrap(pivots), _wrap(info)))


def _lu_error(name: str, info: np.ndarray):
    flat = info.reshape(-1)
    index = int(np.nonzero(flat)[0][0])
    prefix = f"(Batch element {index}): " if info.ndim else ""
    zero = int(flat[index])
    return RuntimeError(f"{name}: {prefix}U[{zero},{zero}] is zero and using it on lu_solve would "
                       "result in a division by zero. If you still want to perform the "
                       "factorization, consider calling linalg.lu(A, pivot) or "
                       "linalg.lu_factor_ex(A, pivot)")


def lu_factor(A, *, pivot=True):
    """``(LU, pivots)`` of ``lu_factor_ex``; a zero pivot raises torch's error."""
    _lu_dims(A, "torch.lu_factor")
    _float_check(A, "lu_cpu")
    if not pivot and A.numel():  # torch factors an empty matrix whatever pivot is
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    packed, pivots, info = lu_factor_ex(A, pivot=pivot)
    if info._data.any():
        raise _lu_error("torch.linalg.lu_factor", info._data)
    return LuFactor((packed, pivots))


# Note: named composites
# torch computes lu, lu_unpack, lstsq and householder_product as one op with one node; leafgrad's
# are composites of differentiable ops. ``_named`` runs such a composite without recording and
# hangs the outputs from one node with torch's name, whose backward runs the composite again
# from the same inputs with recording on and differentiates it (so a create_graph backward
# gives a differentiable result: double backward works). Under vmap and forward AD the
# composite runs as is.
_NAMED: dict = {}


def _named_function(name: str):
    made = _NAMED.get(name)
    if made is not None:
        return made

    def forward(ctx, composite, constant, *inputs):
        from .autograd.grad_mode import no_grad

        ctx.composite = composite
        with no_grad():
            outputs = tuple(composite(*inputs))
        # (integer outputs and those torch gives no node are not differentiable: P, rank)
        ctx.mark_non_differentiable(*[o for i, o in enumerate(outputs) if isinstance(o, Tensor)
                                      and (i in constant or not (o.dtype.is_floating_point
                                                                 or o.dtype.is_complex))])
        ctx.save_for_backward(*inputs)
        return outputs

    def backward(ctx, *grads):
        from .autograd import grad as autograd_grad
        from .autograd.grad_mode import enable_grad, is_grad_enabled

        inputs = ctx.saved_tensors
        wanted = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad
                  and ctx.needs_input_grad[i + 2]]
        create = is_grad_enabled()
        if not create:
            # differentiate from fresh leaves: the recomputation's graph stays apart from the
            # one this backward runs in (the inputs' own history is being freed as it runs)
            inputs = tuple(t.detach().requires_grad_(t.requires_grad) if isinstance(t, Tensor)
                           else t for t in inputs)
        with enable_grad():
            outputs = ctx.composite(*inputs)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        result = [None] * len(inputs)
        if pairs and wanted:
            found = autograd_grad([o for o, _ in pairs], [inputs[i] for i in wanted],
                                  [g for _, g in pairs], create_graph=create, allow_unused=True)
            for index, value in zip(wanted, found):
                result[index] = value if value is not None else inputs[index].new_zeros(
                    inputs[index].shape)
        return (None, None, *result)

    made = type(name, (Function,), {"forward": staticmethod(forward),
                                    "backward": staticmethod(backward)})
    made._backward_cls.__name__ = made._backward_cls.__qualname__ = name
    made._backward_cls.__module__ = "builtins"  # a C++ class in torch, printed bare
    _NAMED[name] = made
    return made


def _named(name: str, composite, *inputs, constant: tuple = ()) -> tuple:
    """``composite(*inputs)``'s outputs from one node called ``name``, those at the indexes
    ``constant`` without one (Note: named composites)."""
    from .autograd.grad_mode import is_grad_enabled

    if not (_replayable() and is_grad_enabled()
            and any(isinstance(t, Tensor) and t.requires_grad for t in inputs)):
        return tuple(composite(*inputs))
    return tuple(_named_function(name).apply(composite, constant, *inputs))


def lu_unpack_(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """``(P, L, U)`` from a packed LU and its pivots (torch.lu_unpack): L and U from one
    LuUnpackBackward0 node."""
    return LuUnpack(_named("LuUnpackBackward0", lambda data: _lu_unpack_composite(
        data, LU_pivots, unpack_data, unpack_pivots), LU_data, constant=(0,)))


def _lu_unpack_composite(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    lib = _lib()
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    if unpack_data:
        lower = LU_data[..., :, :k].tril(-1) + lib.eye(m, k, dtype=LU_data.dtype)
        upper = LU_data[..., :k, :].triu()
    else:
        lower = lib.empty(0, dtype=LU_data.dtype)
        upper = lib.empty(0, dtype=LU_data.dtype)
    if unpack_pivots:
        perm = _permutation(LU_pivots._data, m)
        permutation = np.zeros(perm.shape + (m,), LU_data._data.dtype)
        np.put_along_axis(permutation, perm[..., :, None], 1, axis=-1)
        permutation = np.swapaxes(permutation, -1, -2)  # P[perm[i], i] = 1
        p = _wrap(np.ascontiguousarray(permutation))
    else:
        p = lib.empty(0, dtype=LU_data.dtype)
    return LuUnpack((p, lower, upper))


def lu(A, *, pivot=True):
    """``(P, L, U)`` with ``A = P @ L @ U``."""
    _lu_dims(A, "linalg.lu")
    _float_check(A, "lu_cpu")
    if not pivot and A.numel():  # torch factors an empty matrix whatever pivot is
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    return Lu(_named("LinalgLuBackward0", lambda a: _lu_composite(a, pivot), A, constant=(0,)))


def _lu_composite(A, pivot):  # noqa: N803
    packed, pivots, _ = lu_factor_ex(A)
    return tuple(_lu_unpack_composite(packed, pivots, unpack_pivots=pivot))


def _permute_rows(b: Tensor, perm: np.ndarray, inverse: bool) -> Tensor:
    order = np.argsort(perm, axis=-1) if inverse else perm
    cols = b.shape[-1]
    index = np.broadcast_to(order[..., :, None], order.shape + (cols,))
    batch = np.broadcast_shapes(index.shape[:-2], tuple(b.shape[:-2]))
    index = np.ascontiguousarray(np.broadcast_to(index, batch + index.shape[-2:]))
    b = b.expand(batch + tuple(b.shape[-2:]))
    return b.gather(-2, _wrap(index.astype(np.int64)))


def _lu_solve_composite(LU, pivots, B, left, adjoint):  # noqa: N803
    """lu_solve from differentiable ops (triangular solves and a row permutation)."""
    lib = _lib()
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return _lu_solve_composite(LU, pivots, B.mH, True, not adjoint).mH
    m = LU.shape[-1]
    lower = LU.tril(-1) + lib.eye(m, dtype=LU.dtype)
    upper = LU.triu()
    perm = _permutation(pivots._data, m)
    if not adjoint:  # A = P L U: X = U^{-1} L^{-1} P^T B
        x = _permute_rows(B, perm, inverse=False)
        x = lib.linalg.solve_triangular(lower, x, upper=False, unitriangular=True)
        return lib.linalg.solve_triangular(upper, x, upper=True)
    x = lib.linalg.solve_triangular(upper.mH, B, upper=False)
    x = lib.linalg.solve_triangular(lower.mH, x, upper=True, unitriangular=True)
    return _permute_rows(x, perm, inverse=True)


def _lu_solve_values(LU, pivots, B, left, adjoint) -> np.ndarray:  # noqa: N803
    """torch's solution with torch's strides (each matrix by columns; X A = B's the transpose
    of that): MKL's getrs on the factors where torch's call is replayed (X A = B solved as
    A^H X^H = B^H), else the composite's values."""
    rhs = B._data if left else np.conj(np.swapaxes(B._data, -1, -2))
    solution = _lapack.getrs(LU._data, pivots._data, rhs, adjoint == left)
    if solution is None:
        from .autograd.grad_mode import no_grad

        with no_grad():
            solution = _lu_solve_composite(LU.detach(), pivots, B.detach(), left, adjoint)._data
        if not left:
            solution = np.conj(np.swapaxes(solution, -1, -2))
    solution = _layout.column_major(solution)  # the solved system's X (X^H when right)
    return solution if left else np.conj(np.swapaxes(solution, -1, -2))


class _LuSolve(Function):
    """linalg.lu_solve with torch's node and formulas: gB = lu_solve(LU, pivots, gX, left,
    not adjoint), gLU = linalg_lu_solve_LU (with A = P L U and op() the transposes the four
    forms imply: left != adjoint: gR = -U^-H op(gX) op(X)^H, gLU = (L^-H gR U^H).tril(-1) +
    gR.triu(); else gR = -P^T op(X) op(gX)^H P L^-H, gLU = gR.tril(-1) + (L^H gR U^-H).triu())."""

    @staticmethod
    def forward(LU, B, pivots, left, adjoint, solution):  # noqa: N803
        return _wrap(solution)

    @staticmethod
    def setup_context(ctx, inputs, output):
        # (the pivots come as an array: torch's node has no edge for them)
        ctx.pivots, ctx.left, ctx.adjoint = _wrap(inputs[2]), inputs[3], inputs[4]
        ctx.save_for_backward(inputs[0], output)

    @staticmethod
    def backward(ctx, grad):
        lib = _lib()
        packed, x = ctx.saved_tensors
        left, adjoint, pivots = ctx.left, ctx.adjoint, ctx.pivots
        grad_lu = grad_b = None
        if ctx.needs_input_grad[1]:
            grad_b = lu_solve(packed, pivots, grad, left=left, adjoint=not adjoint)
        if ctx.needs_input_grad[0]:
            m = packed.shape[-1]
            lower = packed.tril(-1) + lib.eye(m, dtype=packed.dtype)
            upper = packed.triu()
            solve = lib.linalg.solve_triangular
            if left != adjoint:
                g_r = solve(upper.mH, -(grad if left else grad.mH) @ (x.mH if left else x),
                            upper=False)
                g_lower = solve(lower.mH, g_r @ upper.mH, upper=True, unitriangular=True)
                grad_lu = g_lower.tril(-1) + g_r.triu()
            else:
                perm = lu_unpack_(packed, pivots, unpack_data=False)[0]
                g_r = -perm.mH @ (x if left else x.mH) @ (grad.mH if left else grad) @ perm
                g_r = solve(lower.mH, g_r, upper=True, left=False, unitriangular=True)
                g_upper = solve(upper.mH, lower.mH @ g_r, upper=False, left=False).triu()
                grad_lu = g_r.tril(-1) + g_upper
        return grad_lu, grad_b, None, None, None, None


_LuSolve._backward_cls.__name__ = _LuSolve._backward_cls.__qualname__ = "LinalgLuSolveBackward0"
_LuSolve._backward_cls.__module__ = "builtins"  # a C++ class in torch, printed bare


def _lu_solve_checks(LU, pivots, B, left) -> None:  # noqa: N803
    """torch's checks of linalg.lu_solve's arguments, in its order."""
    if not (LU.dtype.is_floating_point or LU.dtype.is_complex):
        raise RuntimeError("torch.linalg.lu_solve: Expected a floating point or complex tensor as "
                           f"input. Got {LU.dtype._legacy}")
    if LU.dtype != B.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found "
                           f"LU of type {LU.dtype._legacy} and B of type {B.dtype._legacy} "
                           "instead")
    if pivots.dtype.name != "int32":
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    for tensor, name in ((LU, "A"), (B, "B")):
        if tensor.ndim < 2:
            raise RuntimeError(f"{'torch.' if name == 'A' else ''}linalg.lu_solve: The input "
                               f"tensor {name} must have at least 2 dimensions.")
        if name == "A" and LU.shape[-1] != LU.shape[-2]:
            raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but "
                               f"they are {LU.shape[-2]} by {LU.shape[-1]} matrices")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x"
                           f"{B.shape[-1]})")
    if pivots.ndim == 0 or pivots.shape[-1] != n:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the "
                           f"same, but got pivots with shape {list(pivots.shape)} instead")
    batches = (tuple(B.shape[:-2]), tuple(LU.shape[:-2]))
    for index in range(1, min(map(len, batches)) + 1):  # (broadcast from the right)
        a, b = batches[0][-index], batches[1][-index]
        if a != b and a != 1 and b != 1:
            dim = max(map(len, batches)) - index
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                               f"at non-singleton dimension {dim}")


@takes_out(Out("linalg_lu_solve", EXPECT))
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):  # noqa: N803
    """``X`` with ``A X = B`` (or ``X A = B``, or with ``A^H``) from ``lu_factor``'s result."""
    _lu_solve_checks(LU, pivots, B, left)
    if not (_replayable() and isinstance(LU, Tensor) and isinstance(B, Tensor)
            and isinstance(pivots, Tensor) and LU.ndim >= 2 and LU.dtype == B.dtype):
        return _lu_solve_composite(LU, pivots, B, left, adjoint)  # (vmap and forward AD)
    solution = _lu_solve_values(LU, pivots, B, left, adjoint)
    return _LuSolve.apply(LU, B, pivots._data, left, adjoint, solution)


# -- _ex forms ------------------------------------------------------------------------------------
def solve_ex(A, B, *, left=True, check_errors=False):
    """``(result, info)`` of ``linalg.solve``; a singular A gives info > 0 instead of raising
    (the result then holds the infs/NaNs the division by the zero pivot makes)."""
    lib = _lib()
    try:
        return SolveEx((lib.linalg.solve(A, B, left=left),
                        _wrap(np.zeros(A.shape[:-2], np.int32))))
    except RuntimeError as error:
        if check_errors or "singular" not in str(error):
            raise
    packed, pivots, info = lu_factor_ex(A.detach())
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    rhs = B.detach().unsqueeze(-1) if vector else B.detach()
    with np.errstate(all="ignore"):
        x = lu_solve(packed, pivots, rhs, left=left)
    return SolveEx((x.squeeze(-1) if vector else x, info))


def inv_ex(A, *, check_errors=False):
    """``(inverse, info)`` of ``linalg.inv``; a singular A gives info > 0 instead of raising."""
    lib = _lib()
    try:
        return InvEx((lib.linalg.inv(A), _wrap(np.zeros(A.shape[:-2], np.int32))))
    except RuntimeError as error:
        if check_errors and "singular" in str(error):
            raise type(error)(str(error).replace("linalg.inv:", "linalg.inv_ex:", 1)) from None
        if "singular" not in str(error):
            raise
    packed, pivots, info = lu_factor_ex(A.detach())
    eye = lib.eye(A.shape[-1], dtype=A.dtype).expand(tuple(A.shape))
    with np.errstate(all="ignore"):
        return InvEx((lu_solve(packed, pivots, eye), info))


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``(L, info)`` of ``linalg.cholesky``; info is the order of the first leading minor that
    is not positive-definite (0 when none) instead of an error."""
    lib = _lib()
    try:
        return CholeskyEx((lib.linalg.cholesky(A, upper=upper),
                           _wrap(np.zeros(A.shape[:-2], np.int32))))
    except RuntimeError as error:
        if check_errors and "positive-definite" in str(error):
            raise type(error)(str(error).replace("linalg.cholesky:", "linalg.cholesky_ex:",
                                                 1)) from None
        if "positive-definite" not in str(error):
            raise
    # the order of the first failing minor, per matrix; the factor is returned as NaN-free
    # partial work is not reproduced (see the report): the failed matrices' L is left as A's
    # triangle, as LAPACK's potrf leaves the unfactored part
    data = A._data if not upper else np.swapaxes(A._data, -1, -2)
    flat = data.reshape((-1,) + data.shape[-2:])
    info = np.zeros(flat.shape[0], np.int32)
    factors = np.tril(flat).astype(flat.dtype)
    n = flat.shape[-1]
    for index, matrix in enumerate(flat):
        for order in range(1, n + 1):
            try:
                factors[index] = np.tril(matrix)
                factors[index][:order, :order] = np.linalg.cholesky(matrix[:order, :order])
            except np.linalg.LinAlgError:
                info[index] = order
                break
    factors = factors.reshape(data.shape)
    if upper:
        factors = np.swapaxes(factors, -1, -2)
    return CholeskyEx((_wrap(np.ascontiguousarray(factors)), _wrap(info.reshape(A.shape[:-2]))))


# -- least squares, rank, condition --------------------------------------------------------------
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B`` (min-norm for rank-deficient A), with torch's
    ``(solution, residuals, rank, singular_values)`` per driver (default ``gelsy``); the
    solution and residuals from one LinalgLstsqBackward0 node."""
    return Lstsq(_named("LinalgLstsqBackward0", lambda a, b: _lstsq_composite(
        a, b, rcond, driver), A, B, constant=(2, 3)))


def _lstsq_composite(A, B, rcond, driver):  # noqa: N803
    lib = _lib()
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of "
                           "(gels, gelsy, gelsd, gelss)")
    if A.dtype is not B.dtype:
        raise RuntimeError("torch.linalg.lstsq: Expected input and other to have the same dtype, "
                           f"but got input's dtype {A.dtype._legacy} and other's dtype "
                           f"{B.dtype._legacy}")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if not 0 <= A.ndim - B.ndim <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() "
                           "and (input.dim() - other.dim()) <= 1")
    # torch's vector case (linalg_solve_is_vector_rhs): a 1-d B, or B of A's batch shape
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    rhs = B.unsqueeze(-1) if vector else B
    if rhs.shape[-2] != m:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size("
                           f"{-1 if vector else -2})")
    if A.dtype.name not in _LAPACK_DTYPES:  # (torch's LAPACK dispatch)
        raise RuntimeError(_NOT_FLOAT_OR_DOUBLE)
    if rcond is None:
        rcond = float(_dtype.np_finfo(A._data.dtype).eps) * max(m, n)
    singular = np.linalg.svd(A._data, compute_uv=False) if A.numel() else \
        np.zeros(A.shape[:-2] + (0,), A._data.dtype)
    largest = singular[..., :1] if singular.shape[-1] else singular
    rank = (singular > rcond * largest).sum(-1).astype(np.int64) if singular.shape[-1] else \
        np.zeros(A.shape[:-2], np.int64)
    if driver == "gels":
        solution = lib.linalg.pinv(A) @ rhs
    else:
        solution = lib.linalg.pinv(A, rtol=rcond) @ rhs
    # residuals and singular values are real for complex input (torch's toRealValueType)
    empty = lib.empty(0, dtype=_dtype.from_numpy_dtype(np.empty(0, A._data.dtype).real.dtype))
    full_rank = bool((rank == min(m, n)).all())
    if m > n and driver != "gelsy" and full_rank:
        error = A @ solution - rhs
        residuals = ((error.abs() if error.is_complex() else error) ** 2).sum(-2)
    else:
        residuals = empty
    from .autograd.forward_ad import get_tangent, set_tangent

    dual = get_tangent(solution) is not None
    if not (solution.requires_grad or dual):  # (a rebuilt solution would lose its tangent)
        # torch's layout: the first n rows of a column-major (..., max(m, n), k) buffer
        rows = max(m, n)
        buffer = np.zeros(solution.shape[:-2] + (rows, solution.shape[-1]),
                          solution._data.dtype)
        buffer = _layout.column_major(buffer)
        buffer[..., :n, :] = solution._data
        solution = _wrap(buffer[..., :n, :])
    solution = solution.squeeze(-1) if vector else solution
    rank_out = lib.empty(0, dtype=lib.int64) if driver == "gels" else _wrap(rank)
    values = _wrap(singular) if driver in ("gelsd", "gelss") else empty.clone()
    if dual and not residuals.numel():
        # torch's linalg_lstsq_residuals_jvp gives an empty residuals an empty tangent
        set_tangent(residuals, lib.empty(0, dtype=residuals.dtype))
    return Lstsq((solution, residuals, rank_out, values))


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values above ``max(atol, rtol * largest)`` (rtol defaults to
    eps * max(m, n) when no tolerance is given)."""
    _matrix_check(A, "torch.linalg.matrix_rank")
    if A.dtype.name not in _LAPACK_DTYPES:  # (torch's LAPACK dispatch)
        raise RuntimeError(_NOT_FLOAT_OR_DOUBLE)
    if tol is not None:
        atol, rtol = tol, 0.0
    # complex input keeps its imaginary part; eps is that of the matching real dtype
    data = A._data.astype(np.float64) if A._data.dtype.kind not in "fc" else A._data
    m, n = A.shape[-2:]
    if hermitian:
        singular = np.abs(np.linalg.eigvalsh(data))
        singular = np.sort(singular, axis=-1)[..., ::-1]
    else:
        singular = np.linalg.svd(data, compute_uv=False)
    from .ops.linalg_factor import _atol_rtol

    # torch's linalg_matrix_rank: tol = max(atol, rtol * s_max) per matrix, tolerances given
    # as tensors broadcasting against the batch; zeros when there are no singular values
    atol, rtol = _atol_rtol(singular.dtype, m, n, atol._data if isinstance(atol, Tensor) else atol,
                            rtol._data if isinstance(rtol, Tensor) else rtol)
    if singular.size:
        tolerance = np.maximum(atol, rtol * singular.max(axis=-1, keepdims=True))
    else:
        tolerance = np.zeros_like(singular)
    return _wrap((singular > tolerance).sum(-1).astype(np.int64))


def cond(A, p=None):
    """The condition number of ``A`` in the norm ``p``, as torch's linalg_cond: the ratio of
    extreme singular values for p None/+-2, sum(s) * sum(1/s) for 'nuc', else
    norm(A) * norm(inv(A)) with an inverse that failed read as infinities; 0 for empty
    matrices."""
    lib = _lib()
    if isinstance(p, str):
        _square_check(A, f"linalg.cond(ord={p})")
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
        if not A.numel():
            return lib.zeros(A.shape[:-2], dtype=A.dtype)
        if p == "nuc":
            # (matrix_norm's nuc refuses infinities: torch uses the definition directly)
            values = lib.linalg.svdvals(A)
            return values.sum(-1) * values.reciprocal().sum(-1)
        return _cond_by_inverse(lib, A, p)
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    order = 2 if p is None else p
    if abs(float(order)) not in (1.0, 2.0, math.inf):  # (C++'s stream prints the double: 3)
        raise RuntimeError(f"linalg.cond got an invalid norm type: {float(order):g}")
    if not A.numel():  # NumPy leaves 0x0 undefined; torch gives 0 in the real dtype
        real = A.dtype.to_real() if A.dtype.is_complex else A.dtype
        return lib.zeros(A.shape[:-2], dtype=real)
    if abs(float(order)) == 2.0:
        values = lib.linalg.svdvals(A)
        largest, smallest = values.narrow(-1, 0, 1), values.narrow(-1, -1, 1)
        result = smallest / largest if order == -2 else largest / smallest
        return result.squeeze(-1)
    # torch prints a float order as C++'s std::to_string: 1.000000, inf
    shown = f"{order:f}" if isinstance(order, float) else str(order)
    _square_check(A, f"linalg.cond(ord={shown})")
    return _cond_by_inverse(lib, A, order)


def _cond_by_inverse(lib, A, order):
    inverse, info = lib.linalg.inv_ex(A)
    inverse = inverse.masked_fill((info > 0).unsqueeze(-1).unsqueeze(-1), math.inf)
    result = lib.linalg.matrix_norm(A, order) * lib.linalg.matrix_norm(inverse, order)
    # 0 * inf: NumPy's convention is inf
    return result.nan_to_num_(math.inf, math.inf, -math.inf)


# -- products -------------------------------------------------------------------------------------
def vecdot(x, y, *, dim=-1):
    """``sum(x * y, dim)`` (x conjugated for complex inputs), broadcasting x and y."""
    if x.dtype is not y.dtype:
        raise RuntimeError("linalg.vecdot: Expected x and y to have the same dtype, but found x "
                           f"of type {x.dtype._legacy} and y of type {y.dtype._legacy} instead")
    if x.ndim == 1 and y.ndim == 1 and dim in (0, -1):
        return x.vdot(y)  # torch's linalg_vecdot of two vectors (VdotBackward0, BLAS's dot)
    if x.dtype.is_complex:
        x = x.conj()
    return (x * y).sum(dim)


def multi_dot(tensors):
    """The product of a chain of matrices in the cheapest order (the first and last may be
    vectors), as torch's matrix-chain ordering."""
    tensors = list(tensors)
    count = len(tensors)
    if count < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {count}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for index in range(1, count - 1):
        if tensors[index].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {index} must be 2D but got "
                               f"{tensors[index].ndim}D")
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        from ._out import _C10  # torch names the dtypes as C++ types here (float, double)

        other = next(i for i, t in enumerate(tensors) if t.dtype is not first.dtype)
        raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor 0 "
                           f"is {_C10[first.dtype.name]} and tensor {other} "
                           f"{_C10[tensors[other].dtype.name]}")
    matrices = [first.unsqueeze(0) if first.ndim == 1 else first] + tensors[1:-1] + \
        [last.unsqueeze(-1) if last.ndim == 1 else last]
    for index in range(count - 1):
        if matrices[index].shape[1] != matrices[index + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {index} and {index + 1} with shapes "
                f"{list(tensors[index].shape)} and {list(tensors[index + 1].shape)} cannot be "
                "multiplied")
    # torch multiplies the 2-d forms and views the product in the result's shape (the grad_fn
    # is ViewBackward0 in every case)
    shape = ([first.shape[0]] if first.ndim == 2 else []) + (
        [last.shape[1]] if last.ndim == 2 else [])
    if count == 2:
        result = matrices[0] @ matrices[1]
    elif count == 3:
        a, b = matrices[0].shape
        c, d = matrices[2].shape
        cost1 = (a * c) * (b + d)  # (AB)C
        cost2 = (b * d) * (a + c)  # A(BC)
        if cost1 > cost2:
            result = matrices[0] @ (matrices[1] @ matrices[2])
        else:
            result = (matrices[0] @ matrices[1]) @ matrices[2]
    else:
        result = _chain(matrices)
    return result.view(shape)


def _chain(matrices):
    """The textbook matrix-chain order (torch's matrix_chain_order), then the products."""
    count = len(matrices)
    dims = [matrices[0].shape[0]] + [m.shape[1] for m in matrices]
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k

    def product(i, j):
        if i == j:
            return matrices[i]
        return product(i, split[i][j]) @ product(split[i][j] + 1, j)

    return product(0, count - 1)


def vander(x, *, N=None):  # noqa: N803 - torch's name
    """``x[..., :, None] ** arange(N)``: the Vandermonde matrix, powers increasing."""
    lib = _lib()
    if x.dtype == _dtype.bool or x.dtype.is_floating_point and x.dtype.itemsize == 2:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, "
                           f"but got {x.dtype._legacy}")
    x = x.unsqueeze(-1) if x.ndim == 0 else x  # (torch's linalg_vander: a 0-d x is one point)
    if N is None:
        N = x.shape[-1]  # noqa: N806
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = lib.ones_like(x).unsqueeze(-1)
    powers = x.unsqueeze(-1).expand(tuple(x.shape) + (N - 1,)).cumprod(-1)
    return lib.cat([ones, powers], -1)


def householder_product(A, tau):
    """The first n columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` with ``v_i``
    the i-th column of A below the diagonal and a 1 on it (LAPACK's orgqr), from one
    LinalgHouseholderProductBackward0 node."""
    return _named("LinalgHouseholderProductBackward0",
                  lambda a, t: (_householder_composite(a, t),), A, tau)[0]


def _householder_composite(A, tau):  # noqa: N803
    lib = _lib()
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 "
                           "dimensions.")
    m, n = A.shape[-2:]
    k = tau.shape[-1] if tau.ndim else 0
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if n < k:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError("torch.linalg.householder_product: Expected tau to have one "
                           "dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {A.ndim}")
    if A.dtype is not tau.dtype:
        raise RuntimeError("torch.linalg.householder_product: tau dtype "
                           f"{tau.dtype._legacy} does not match input dtype {A.dtype._legacy}")
    if A.dtype.name not in _LAPACK_DTYPES:  # (LAPACK's orgqr)
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{A.dtype._legacy}'")
    eye = lib.eye(m, dtype=A.dtype)
    reflectors = A.tril(-1) + eye[:, :n]
    result = eye[:, :n].expand(tuple(A.shape))
    for i in range(k - 1, -1, -1):
        v = reflectors[..., :, i:i + 1]
        result = result - tau[..., i, None, None] * (v @ (v.mH @ result))
    return result


# -- geqrf ----------------------------------------------------------------------------------------
class _Geqrf(Function):
    """LAPACK's geqrf: R on and above the diagonal, the Householder vectors below it, and their
    scales tau; torch has no derivative for it (the node raises when run)."""

    @staticmethod
    def forward(ctx, a):
        data = a._data
        batch = data.shape[:-2]
        m, n = data.shape[-2:]
        packed = np.empty(data.shape, data.dtype)
        scales = np.empty(batch + (min(m, n),), data.dtype)
        for index in np.ndindex(*batch):
            if data[index].size:
                h, tau = np.linalg.qr(data[index], mode="raw")  # h is geqrf's output transposed
                packed[index] = h.T
                scales[index] = tau
        # LAPACK writes column-major matrices, as torch returns them
        if not packed.size:  # torch's strides of an empty one: (1, max(m, 1)) per matrix
            strides, running = [1, max(m, 1)], max(m, 1) * max(n, 1)
            for size in reversed(batch):
                strides.insert(0, running)
                running *= max(size, 1)
            return _lib().empty_strided(data.shape, tuple(strides), dtype=a.dtype), _wrap(scales)
        packed = np.swapaxes(np.ascontiguousarray(np.swapaxes(packed, -1, -2)), -1, -2)
        return _wrap(packed), _wrap(scales)

    @staticmethod
    def backward(ctx, grad_a, grad_tau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


_Geqrf._backward_cls.__name__ = _Geqrf._backward_cls.__qualname__ = "GeqrfBackward0"
_Geqrf._backward_cls.__module__ = "builtins"  # a C++ class in torch: <GeqrfBackward0 object>


def geqrf(input):  # noqa: A002 - torch's name
    """``(a, tau)``: a QR decomposition in LAPACK's packed form (torch.geqrf); see
    ``linalg.householder_product`` for Q."""
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input.dtype.name not in _LAPACK_DTYPES:
        raise NotImplementedError(f'"geqrf_cpu" not implemented for '
                                  f"'{input.dtype._legacy}'")
    return Geqrf(_Geqrf.apply(input))


# -- matrix exponential ---------------------------------------------------------------------------
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm(a: np.ndarray) -> np.ndarray:
    """Higham's scaling and squaring with the degree-13 Pade approximant, in float64."""
    work = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    n = work.shape[-1]
    if work.size == 0:
        return work.copy()
    norm = np.abs(work).sum(-2).max(-1)
    with np.errstate(divide="ignore"):
        squarings = np.maximum(0, np.ceil(np.log2(norm / _THETA13))).astype(np.int64)
    squarings = np.where(np.isfinite(norm), squarings, 0)
    scale = np.ldexp(1.0, -squarings)[..., None, None]
    x = work * scale
    eye = np.broadcast_to(np.eye(n), x.shape)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    b = _PADE13
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2
             + b[1] * eye)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + \
        b[0] * eye
    result = np.linalg.solve(v - u, v + u)
    flat = result.reshape((-1, n, n))
    counts = np.broadcast_to(squarings, result.shape[:-2]).reshape(-1)
    for index, count in enumerate(counts):
        for _ in range(int(count)):
            flat[index] = flat[index] @ flat[index]
    return flat.reshape(result.shape)


class _MatrixExp(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        ctx.save_for_forward(a)
        return _wrap(np.ascontiguousarray(_expm(a._data).astype(a._data.dtype)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return _matrix_exp_differential(a.mH, grad)

    @staticmethod
    def jvp(ctx, tangent):
        (a,) = ctx.saved_tensors
        return _matrix_exp_differential(a, tangent)


def _matrix_exp_differential(a, direction):
    """torch's linalg_matrix_exp_differential: the top-right block of exp([[A, E], [0, A]]),
    with A^H for the backward (adjoint) and A itself for the jvp."""
    lib = _lib()
    n = a.shape[-1]
    top = lib.cat([a, direction], -1)
    bottom = lib.cat([lib.zeros_like(a), a], -1)
    block = lib.cat([top, bottom], -2)
    return _MatrixExp.apply(block)[..., :n, n:]


_MatrixExp._backward_cls.__name__ = _MatrixExp._backward_cls.__qualname__ = \
    "LinalgMatrixExpBackward0"
_MatrixExp._backward_cls.__module__ = "builtins"  # a C++ class in torch, printed bare


def matrix_exp(A):
    """``exp(A) = sum_k A^k / k!`` of each square matrix."""
    _square_check(A, "linalg.matrix_exp")
    if A.dtype.name not in ("float16",) + _LAPACK_DTYPES:
        raise NotImplementedError(f'"linalg_matrix_exp" not implemented for '
                                  f"'{A.dtype._legacy}'")
    if A.shape[-1] == 1:
        return A.exp()
    return _MatrixExp.apply(A)


# -- tensor inverse and solve ---------------------------------------------------------------------
def tensorinv(A, ind=2):
    """The tensor ``X`` with ``tensordot(X, A, ind) = I``: ``inv`` of A seen as a matrix."""
    lib = _lib()
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    front, back = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows, cols = math.prod(front), math.prod(back)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return lib.linalg.inv(A.reshape(rows, cols)).reshape(back + front)


def tensorsolve(A, B, dims=None):
    """``X`` with ``tensordot(A, X, X.ndim) = B``."""
    lib = _lib()
    if dims is not None:
        dims = [d + A.ndim if d < 0 else d for d in dims]
        order = [d for d in range(A.ndim) if d not in dims] + list(dims)
        A = A.permute(order)
    result_shape = tuple(A.shape[B.ndim:])
    rows = B.numel()
    cols = math.prod(result_shape)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return lib.linalg.solve(A.reshape(rows, cols), B.reshape(rows)).reshape(result_shape)


# -- legacy top-level forms -----------------------------------------------------------------------
_DEPRECATED = {}


def _deprecated_once(name: str, message: str, inside: bool = False) -> None:
    """torch's TORCH_WARN_ONCE deprecations, attributed to the user's line (see _warn.py), or
    (``inside``: torch warns from its own Python code, as torch.lu in torch/functional.py) to
    leafgrad's function."""
    from . import _warn
    from ._info import is_warn_always_enabled

    if name not in _DEPRECATED or is_warn_always_enabled():
        _DEPRECATED[name] = True
        if inside:
            warnings.warn(message, UserWarning, stacklevel=2)
        else:
            _warn.warn(message)


def _replayable() -> bool:
    """Whether cholesky_solve/cholesky_inverse may run as one Function over torch's LAPACK
    call: not under vmap or a forward-AD level (those see the composites' ops)."""
    from .autograd._vmap_state import state as vmap_state
    from .autograd.forward_ad import state as dual_state

    return not (vmap_state.active or dual_state.active)


def cholesky_solve(B, L, upper=False):  # noqa: N803
    """``X`` with ``(L L^H) X = B`` (``U^H U`` if upper) from a Cholesky factor."""
    lib = _lib()
    if (_replayable() and isinstance(B, Tensor) and isinstance(L, Tensor) and B.ndim >= 2
            and L.ndim >= 2
            and B.dtype == L.dtype and B._data.dtype.char in "fd"
            and L.shape[-1] == L.shape[-2] == B.shape[-2]):
        batch = tuple(lib.broadcast_shapes(tuple(B.shape[:-2]), tuple(L.shape[:-2])))
        b = B.expand(batch + tuple(B.shape[-2:]))
        factor = L.expand(batch + tuple(L.shape[-2:]))
        if not b.numel() or not factor.numel():  # nothing to solve: torch's node all the same
            solution = np.zeros(b.shape, b._data.dtype)
        else:
            solution = _lapack.potrs(factor._data, b._data, upper)
        if solution is not None:  # torch's potrs (Note: torch's LU solve, ops/_lapack.py)
            return _CholeskySolve.apply(b, factor, upper, _layout.column_major(solution), L)
    return _cholesky_solve_composite(B, L, upper)


class _CholeskySolve(Function):
    """cholesky_solve with torch's node and formula (cholesky_solve_backward): gB =
    cholesky_solve(gX, L), gL = -(C + C^H) L (``-U (C + C^H)`` if upper) with C = gB X^H,
    the factor's gradient a full matrix."""

    @staticmethod
    def forward(b, factor, upper, solution, unexpanded):
        return _wrap(solution)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.upper = inputs[2]
        ctx.save_for_backward(inputs[4], output)

    @staticmethod
    def backward(ctx, grad):
        # (with the factor as passed, before broadcasting: torch's matmul of a batch by one
        # matrix is one product, where a batch of broadcast copies is a batched one)
        factor, result = ctx.saved_tensors
        grad_b = cholesky_solve(grad, factor, ctx.upper)
        common = grad_b @ result.mH
        common = common + common.mH
        grad_factor = -(factor @ common) if ctx.upper else -(common @ factor)
        return grad_b, grad_factor, None, None, None


_CholeskySolve._backward_cls.__name__ = _CholeskySolve._backward_cls.__qualname__ = \
    "CholeskySolveBackward0"
_CholeskySolve._backward_cls.__module__ = "builtins"  # a C++ class in torch, printed bare


class _CholeskyInverse(Function):
    """cholesky_inverse with torch's node and formula (cholesky_inverse_backward):
    gL = -(R (G + G^H) R) L (``-U R (G + G^H) R`` if upper), R the result."""

    @staticmethod
    def forward(factor, upper, inverse):
        return _wrap(inverse)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.upper = inputs[1]
        ctx.save_for_backward(inputs[0], output)

    @staticmethod
    def backward(ctx, grad):
        factor, result = ctx.saved_tensors
        common = result @ ((grad + grad.mH) @ result)
        return (-(factor @ common) if ctx.upper else -(common @ factor)), None, None


_CholeskyInverse._backward_cls.__name__ = _CholeskyInverse._backward_cls.__qualname__ = \
    "CholeskyInverseBackward0"
_CholeskyInverse._backward_cls.__module__ = "builtins"  # a C++ class in torch, printed bare


def _cholesky_solve_composite(B, L, upper=False):  # noqa: N803
    lib = _lib()
    if upper:
        x = lib.linalg.solve_triangular(L.mH, B, upper=False)
        return lib.linalg.solve_triangular(L, x, upper=True)
    x = lib.linalg.solve_triangular(L, B, upper=False)
    return lib.linalg.solve_triangular(L.mH, x, upper=True)


def cholesky_inverse(L, upper=False):  # noqa: N803
    """The inverse of ``L L^H`` (``U^H U`` if upper) from its Cholesky factor."""
    lib = _lib()
    if _replayable() and isinstance(L, Tensor) and L.ndim >= 2 \
            and L.shape[-1] == L.shape[-2] and L._data.dtype.char in "fd":
        # (empty factors too: torch's node over an empty result)
        inverse = _lapack.potri(L._data, upper) if L.numel() else np.zeros(L.shape, L._data.dtype)
        if inverse is not None:  # torch's potri (Note: torch's LU solve, ops/_lapack.py)
            return _CholeskyInverse.apply(L, upper, _layout.column_major(inverse))
    eye = lib.eye(L.shape[-1], dtype=L.dtype).expand(tuple(L.shape))
    return cholesky_solve(eye, L, upper)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """Deprecated: ``(X, A.clone())`` with ``A X = b`` (``A^T X = b`` if transpose)."""
    lib = _lib()
    _deprecated_once(
        "triangular_solve",
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will "
        "be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
        "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
        "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B).")
    from .autograd._vmap_state import state as vmap_state

    if vmap_state.active or not (isinstance(b, Tensor) and isinstance(A, Tensor)
                                 and b.ndim >= 2 and A.ndim >= 2 and b.dtype == A.dtype):
        matrix = A.mT if transpose else A  # (vmap sees the composite)
        solution = lib.linalg.solve_triangular(matrix, b, upper=upper != transpose,
                                               unitriangular=unitriangular)
        return TriangularSolve((solution, A.clone()))
    from .autograd.grad_mode import no_grad

    with no_grad():
        matrix = A.mT if transpose else A
        solution = lib.linalg.solve_triangular(matrix, b, upper=upper != transpose,
                                               unitriangular=unitriangular)
    batch = tuple(solution.shape[:-2])
    coefficient = _layout.column_major(np.broadcast_to(A._data, batch + tuple(A.shape[-2:])))
    return TriangularSolve(_TriangularSolve.apply(b, A, solution._data, coefficient, upper,
                                                  transpose, unitriangular))


class _TriangularSolve(Function):
    """torch.triangular_solve as torch's one node, TriangularSolveBackward0, with its formulas:
    gb = triangular_solve(gX, A^*, upper, not transpose), gA = -gb X^H (-X^* gb^T when
    transpose) on A's triangle, plus the cloned coefficient's gradient; the jvp
    triangular_solve(db - dA X, A, ...) takes dA whole and untransposed, as torch's
    generic_solve_jvp does, and the coefficient's tangent is dA."""

    @staticmethod
    def forward(b, A, solution, coefficient, upper, transpose, unitriangular):  # noqa: N803
        return _wrap(solution), _wrap(coefficient)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.upper, ctx.transpose, ctx.unitriangular = inputs[4:7]
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(inputs[1], output[0])
        ctx.save_for_forward(inputs[1], output[0])

    @staticmethod
    def backward(ctx, grad_x, grad_m):
        lib = _lib()
        a, x = ctx.saved_tensors
        upper, transpose, unitriangular = ctx.upper, ctx.transpose, ctx.unitriangular
        grad_b = grad_a = None
        if grad_x is not None:
            grad_b = lib.triangular_solve(grad_x, a.conj(), upper, not transpose,
                                          unitriangular)[0]
            if ctx.needs_input_grad[1]:
                grad_a = -(x.conj() @ grad_b.mT) if transpose else -(grad_b @ x.mH)
                grad_a = grad_a.triu(int(unitriangular)) if upper else \
                    grad_a.tril(-int(unitriangular))
        if ctx.needs_input_grad[1] and grad_m is not None:
            grad_a = grad_m if grad_a is None else grad_a + grad_m
        if grad_a is not None and tuple(grad_a.shape) != tuple(a.shape):
            grad_a = grad_a.sum_to_size(tuple(a.shape))  # (A broadcast over b's batch)
        if grad_b is not None and not ctx.needs_input_grad[0]:
            grad_b = None
        return grad_b, grad_a, None, None, None, None, None

    @staticmethod
    def jvp(ctx, grad_b, grad_a, *constants):
        lib = _lib()
        a, x = ctx.saved_tensors
        rhs = grad_b if grad_b is not None else lib.zeros_like(x)
        if grad_a is not None:
            rhs = rhs - grad_a @ x
        solution = lib.triangular_solve(rhs, a, ctx.upper, ctx.transpose, ctx.unitriangular)[0]
        if grad_a is not None and tuple(x.shape[:-2]) != tuple(a.shape[:-2]):
            # torch sets A's tangent on the coefficient broadcast over b's batch, and refuses it
            shape = list(x.shape[:-2]) + list(a.shape[-2:])
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor, this is not supported. Tensor is of size {shape} while the "
                f"given forward gradient is of size {list(grad_a.shape)}.")
        return solution, grad_a


_TriangularSolve._backward_cls.__name__ = _TriangularSolve._backward_cls.__qualname__ = \
    "TriangularSolveBackward0"
_TriangularSolve._backward_cls.__module__ = "builtins"  # a C++ class in torch, printed bare


def lu_solve_legacy(b, LU_data, LU_pivots):  # noqa: N803
    """Deprecated ``torch.lu_solve(b, LU, pivots)``: ``linalg.lu_solve(LU, pivots, b)``."""
    _deprecated_once(
        "lu_solve",
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
        "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
        "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
        "X = torch.linalg.lu_solve(LU, pivots, B)")
    return lu_solve(LU_data, LU_pivots, b)


def lu_legacy(A, pivot=True, get_infos=False, out=None):  # noqa: N803
    """Deprecated ``torch.lu``: ``linalg.lu_factor_ex``'s ``(LU, pivots)``, with ``info``
    when ``get_infos``; a singular matrix does not raise (torch checks only LAPACK's
    argument errors here). ``out`` (a tuple of as many tensors) is resized and filled."""
    _deprecated_once(
        "lu",
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)", inside=True)
    packed, pivots, info = lu_factor_ex(A, pivot=pivot)
    if out is not None and len(out) != (3 if get_infos else 2):
        raise TypeError(f"expected tuple of {3 if get_infos else 2} elements but got {len(out)}")
    result = LuWithInfo((packed, pivots, info)) if get_infos else (packed, pivots)
    if out is None:
        return result
    for target, value in zip(out, result):
        target.resize_(value.shape).copy_(value)
    return out


def qr_legacy(input, some=True):  # noqa: A002
    """Deprecated ``torch.qr(A, some)``: ``linalg.qr(A, 'reduced' if some else 'complete')``."""
    lib = _lib()
    _deprecated_once(
        "qr",
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
        "'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, "
        "'reduced' if some else 'complete')")
    q, r = lib.linalg.qr(input, "reduced" if some else "complete")
    return Qr((q, r))
