"""``leafgrad.linalg``: matrix functions with torch's names, errors and gradients.

Every function accepts batches of matrices ``(..., m, n)``.

>>> import leafgrad as torch
>>> A = torch.tensor([[2., 1.], [1., 3.]], requires_grad=True)
>>> torch.linalg.det(A)
tensor(5., grad_fn=<LinalgDetBackward0>)
"""

from __future__ import annotations

from . import _argparse
from . import ops as _ops
from ._dtype import as_dtype as _as_dtype  # Note: Python types as dtypes
from ._out import EXPECT, Out, Resize, Rules, castable, same_as, takes_out
from ._functions_linalg import linalg_eig as _eig_result
from ._functions_linalg import linalg_eig_out as _eig_out
from ._functions_linalg import linalg_eigh as _eigh_result
from ._functions_linalg import linalg_eigh_out as _eigh_out
from ._functions_linalg import linalg_qr as _qr_result
from ._functions_linalg import linalg_qr_out as _qr_out
from ._functions_linalg import linalg_slogdet as _slogdet_result
from ._functions_linalg import linalg_slogdet_out as _slogdet_out
from ._functions_linalg import linalg_svd as _svd_result
from ._functions_linalg import linalg_svd_out as _svd_out
from .autograd.grad_mode import state as _grad_state
from .ops.linalg_decomp import LinAlgError
from .ops.linalg_eig import eigvals_out_node as _eigvals_out_node
from .tensor import Tensor as _Tensor

_MATRIX_POWER = Rules(castable("matrix_power: Expected result to be safely castable from {R} dtype, "
                               "but got result with dtype {O}"), EXPECT)

__all__ = [
    "LinAlgError", "inv", "det", "slogdet", "solve", "solve_triangular", "cholesky", "qr", "svd",
    "svdvals", "eig", "eigvals", "eigh", "eigvalsh", "norm", "vector_norm", "matrix_norm",
    "matrix_power", "pinv", "matmul", "diagonal", "cross",
]


@takes_out(Out("linalg_cross", EXPECT, overlap="full"))
def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim`` (broadcasting the other dims)."""
    return _ops.linalg_cross(input, other, dim=dim)


@takes_out(Out("linalg_inv_ex", EXPECT))
def inv(A):
    """The inverse of each square matrix; raises ``LinAlgError`` for a singular one."""
    return _ops.linalg_inv(A)


@takes_out(Out("_linalg_det", EXPECT))
def det(A):
    """The determinant of each square matrix."""
    return _ops.linalg_det(A)


@takes_out(Out("_linalg_slogdet", (EXPECT, EXPECT), returns=_slogdet_out))
def slogdet(A):
    """``(sign, logabsdet)`` with ``det(A) = sign * exp(logabsdet)``."""
    return _slogdet_result(_ops.linalg_slogdet(A))


@takes_out(Out("_linalg_solve_ex", EXPECT))
def solve(A, B, *, left=True):
    """``X`` with ``A @ X = B`` (``left=True``) or ``X @ A = B``; B may be a vector."""
    return _ops.linalg_solve(A, B, left=left)


@takes_out(Out("linalg_solve_triangular", same_as("expected scalar type {R} but found {O}"),
               overlap=True))
def solve_triangular(*args, **kwargs):
    """``solve_triangular(A, B, *, upper, left=True, unitriangular=False)``: ``solve`` for a
    triangular ``A`` (only its ``upper`` or lower triangle is read)."""
    A, B, upper, left, unitriangular = _solve_triangular_arguments(args, kwargs)
    return _ops.linalg_solve_triangular(A, B, upper=upper, left=left,
                                        unitriangular=unitriangular)


def _solve_triangular_arguments(args: tuple, kwargs: dict) -> tuple:
    """The arguments as torch's parser reads them, with its messages (its pluralisation too:
    "missing 1 required positional arguments", "takes from 3 to 2 positional arguments")."""
    name = "linalg_solve_triangular()"
    if len(args) > 2:
        raise TypeError(f"{name} takes from 3 to 2 positional arguments but {len(args)} were "
                        "given")
    required = ("input", "B", "upper")  # (torch's parser calls A "input")
    given = dict(zip(required, args), **kwargs)
    for index, key in enumerate(required):
        if key not in given:  # torch lists every required parameter from the first missing one
            missing = required[index:]
            plural = "s" if len(missing) == 1 else ""
            raise TypeError(f"{name} missing {len(missing)} required positional "
                            f"argument{plural}: " + ", ".join(f'"{k}"' for k in missing))
    for key in kwargs:
        if key not in ("input", "B", "upper", "left", "unitriangular"):
            raise TypeError(f"{name} got an unexpected keyword argument '{key}'")
    for key in ("upper", "left", "unitriangular"):
        if key in given and given[key].__class__ is not bool:
            raise TypeError(f"linalg_solve_triangular(): argument '{key}' must be bool, not "
                            f"{type(given[key]).__name__}")
    return (given["input"], given["B"], given["upper"], given.get("left", True),
            given.get("unitriangular", False))


@takes_out(Out("linalg_cholesky_ex", EXPECT))
def cholesky(A, *, upper=False):
    """``L`` with ``A = L @ L.mT`` for a symmetric positive-definite ``A`` (``L.mT`` if upper)."""
    return _ops.linalg_cholesky(A, upper=upper)


@takes_out(Out("linalg_qr", (EXPECT, EXPECT), returns=_qr_out))
def qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q @ R``, Q orthonormal columns and R upper triangular."""
    return _qr_result(_ops.linalg_qr(A, mode))


@takes_out(Out("_linalg_svd", (EXPECT, EXPECT, EXPECT), returns=_svd_out,
               resize=Resize(order=(0, 2, 1))))
def svd(A, full_matrices=True):
    """``(U, S, Vh)`` with ``A = U @ diag(S) @ Vh`` and S descending."""
    return _svd_result(_ops.linalg_svd(A, full_matrices))


@takes_out(Out("_linalg_svd", EXPECT))
def svdvals(A):
    """The singular values of ``A``, descending."""
    return _ops.linalg_svdvals(A)


def _eig_rule(name: str, what: str):
    return castable(f"torch.linalg.{name}: Expected {what} to be safely castable from {{R}} "
                    f"dtype, but got {what} with dtype {{O}}")


@takes_out(Out("linalg_eig", (_eig_rule("eig", "eigenvalues"), _eig_rule("eig", "eigenvectors")),
               returns=_eig_out,
               # eigenvectors resized from an out with elements stay row-major (torch)
               resize=Resize(layout=lambda index, had_elements: not (index and had_elements))))
def eig(A):
    """``(eigenvalues, eigenvectors)`` of a square matrix, complex for every input dtype;
    each eigenvector has unit norm (its phase is LAPACK's choice)."""
    return _eig_result(_ops.linalg_eig(A))


@takes_out(Out(None, _eig_rule("eigvals", "eigenvalues"), out_name="aten::linalg_eigvals"))
def _eigvals(A):  # noqa: N803
    return _ops.linalg_eigvals(A)


def eigvals(A, *, out=None):  # noqa: N803
    """The eigenvalues of a square matrix, complex for every input dtype."""
    if out is None or not (_grad_state.grad_enabled and isinstance(A, _Tensor)
                           and A._may_require_grad()):
        return _eigvals(A, out=out)
    # torch's eigvals(out=) takes an input that requires grad: out gets the values and a
    # NotImplemented node whose backward raises (ops/linalg_eig.py, _EigvalsOutNode). An out
    # that is a view keeps its base's history (torch would record CopySlices over it).
    _eigvals(A.detach(), out=out)
    if out._base is None:
        marker = _eigvals_out_node(A)
        out._node, out._output_nr, out._requires_grad = marker._node, 0, True
    return out


@takes_out(Out("_linalg_eigh", (EXPECT, EXPECT), returns=_eigh_out, order=(1, 0),
               resize=Resize(order=(1, 0))))
def eigh(A, UPLO="L"):  # noqa: N803 - torch's name
    """``(eigenvalues, eigenvectors)`` of a symmetric matrix, eigenvalues ascending."""
    return _eigh_result(_ops.linalg_eigh(A, UPLO))


@takes_out(Out("_linalg_eigh", EXPECT))
def eigvalsh(A, UPLO="L"):  # noqa: N803
    """The eigenvalues of a symmetric matrix, ascending."""
    return _ops.linalg_eigvalsh(A, UPLO)


@takes_out(Out(None, same_as("linalg.norm expected out tensor dtype {R} but got: {O}"), mode="copy"))
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - torch's name
    """A vector norm, or a matrix norm when ``ord`` is given for 2 dims."""
    if ord is not None and ord.__class__ is not int and ord.__class__ is not float and \
            not isinstance(ord, str):  # (torch's overloads: Scalar? ord, str ord)
        ord = _argparse.number("linalg_norm", "ord", ord, overloads=((A, ord), {}))  # noqa: A001
    return _ops.linalg_norm(A, ord, dim, keepdim, dtype=_as_dtype(dtype))


@takes_out(Out("linalg_vector_norm", EXPECT, internal_overlap=False))
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """``sum(|x|^ord)^(1/ord)`` over ``dim`` (all dims by default)."""
    return _ops.linalg_vector_norm(x, ord, dim, keepdim, dtype=_as_dtype(dtype))


@takes_out(Out(None, same_as("linalg.matrix_norm expected out tensor dtype {R} but got: {O}"),
              mode="copy"))
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    """Frobenius, nuclear, spectral (2), 1 or inf norm of the matrices in ``dim``."""
    if ord.__class__ is not int and ord.__class__ is not float and not isinstance(ord, str):
        ord = _argparse.number("linalg_matrix_norm", "ord", ord,  # noqa: A001
                               overloads=((A, ord), {}))
    return _ops.linalg_matrix_norm(A, ord, dim, keepdim, dtype=_as_dtype(dtype))


@takes_out(Out("matmul", _MATRIX_POWER))
def matrix_power(A, n):
    """``A`` multiplied by itself ``n`` times (``inv(A)`` for negative ``n``)."""
    return _ops.linalg_matrix_power(A, n)


@takes_out(Out("linalg_pinv", castable("linalg.pinv: Expected result to be safely castable from {R} dtype, but got result with dtype {O}")))
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """Moore-Penrose pseudo-inverse (``rcond`` is the older name of ``rtol``)."""
    if rcond is not None:
        rtol = rcond
    return _ops.linalg_pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


@takes_out(Out("matmul", EXPECT, internal_overlap=False))
def matmul(input, other):
    """Same as ``leafgrad.matmul``."""
    return _ops.matmul(input, other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of the matrices in the last two dims (a view)."""
    return A.diagonal(offset, dim1, dim2)


from ._linalg_more import (  # noqa: E402 - LU, lstsq and the rest (see _linalg_more.py)
    cholesky_ex, cond, householder_product, inv_ex, lstsq, lu, lu_factor, lu_factor_ex, lu_solve,
    matrix_exp, matrix_rank, multi_dot, solve_ex, tensorinv, tensorsolve, vander, vecdot,
)

__all__ += [
    "cholesky_ex", "cond", "householder_product", "inv_ex", "lstsq", "lu", "lu_factor",
    "lu_factor_ex", "lu_solve", "matrix_exp", "matrix_rank", "multi_dot", "solve_ex", "tensorinv",
    "tensorsolve", "vander", "vecdot",
]
