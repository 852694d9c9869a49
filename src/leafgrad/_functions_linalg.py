"""The ``leafgrad.<name>(...)`` forms of the linear-algebra ops, and their named-tuple results.

>>> import leafgrad as torch
>>> torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(3, 1))
tensor([[3.],
        [3.]])
"""

from __future__ import annotations

import operator

from . import _argparse
from . import ops as _ops
from ._out import CAST, EXPECT, Out, Resize, Rules, castable, same_as, takes_out

__all__ = [
    "outer", "ger", "einsum", "tensordot", "addmm", "addmv", "baddbmm", "trace", "tril", "triu",
    "diag", "diag_embed", "kron", "inverse", "det", "logdet", "slogdet", "svd", "pinverse",
    "matrix_power", "eig", "solve", "symeig", "lstsq", "matrix_rank",
]


class _StructSeq(tuple):
    """A tuple with named fields that behaves like torch's ``torch.return_types`` structseqs:
    built from one sequence, unpacks and indexes like a tuple, prints field by field."""

    __slots__ = ()
    _names: tuple = ()

    def __new__(cls, sequence):
        items = tuple(sequence)
        if len(items) != len(cls._names):
            raise TypeError(
                f"leafgrad.return_types.{cls.__name__} takes a {len(cls._names)}-sequence "
                f"({len(items)}-sequence given)"
            )
        return super().__new__(cls, items)

    def __repr__(self) -> str:
        body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._names, self))
        return f"leafgrad.return_types.{type(self).__name__}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _return_type(name: str, fields: tuple) -> type:
    namespace = {
        "__slots__": (), "__module__": "leafgrad.return_types", "_names": fields,
        "n_fields": len(fields), "n_sequence_fields": len(fields), "n_unnamed_fields": 0,
    }
    for index, field in enumerate(fields):
        namespace[field] = property(operator.itemgetter(index))
    cls = type(name, (_StructSeq,), namespace)
    cls.__qualname__ = name
    return cls


_MATRIX_POWER = Rules(castable("matrix_power: Expected result to be safely castable from {R} dtype, "
                               "but got result with dtype {O}"), EXPECT)
linalg_slogdet = _return_type("linalg_slogdet", ("sign", "logabsdet"))
slogdet_result = _return_type("slogdet", ("sign", "logabsdet"))
linalg_qr = _return_type("linalg_qr", ("Q", "R"))
linalg_svd = _return_type("linalg_svd", ("U", "S", "Vh"))
svd_result = _return_type("svd", ("U", "S", "V"))
linalg_eigh = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eig = _return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
# what the out= forms return: the out tensors, under torch's <name>_out types
linalg_slogdet_out = _return_type("linalg_slogdet_out", ("sign", "logabsdet"))
slogdet_out = _return_type("slogdet_out", ("sign", "logabsdet"))
linalg_qr_out = _return_type("linalg_qr_out", ("Q", "R"))
linalg_svd_out = _return_type("linalg_svd_out", ("U", "S", "Vh"))
linalg_eigh_out = _return_type("linalg_eigh_out", ("eigenvalues", "eigenvectors"))
linalg_eig_out = _return_type("linalg_eig_out", ("eigenvalues", "eigenvectors"))


@takes_out(Out("mul", CAST, overlap=True))
def outer(input, vec2):
    """Outer product of two vectors: ``out[i, j] = input[i] * vec2[j]``."""
    return _ops.outer(input, vec2)


ger = outer


def einsum(*args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``."""
    return _ops.einsum(*args)


@takes_out(Out(None, same_as("tensordot: Expected the output tensor to have dtype {R}, but got an "
                             "output tensor with dtype {O}"), mode="copy", grad_error=(
    "tensordot(): the 'out' tensor was specified and requires gradients, and its shape does not "
    "match the expected result. Either remove the 'out' argument, ensure it does not require "
    "gradients, or make sure its shape matches the expected output.")))
def tensordot(a, b, dims=2):
    """Contract the last ``dims`` dims of ``a`` with the first of ``b`` (or explicit lists)."""
    return _ops.tensordot(a, b, dims)


@takes_out(Out("addmm", EXPECT, overlap=True))
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    if beta.__class__ is not int and beta.__class__ is not float or \
            alpha.__class__ is not int and alpha.__class__ is not float:
        beta, alpha = _argparse.beta_alpha("addmm", (input, mat1, mat2), beta, alpha, True)
    if getattr(mat1, "is_sparse", False):  # (leafgrad.sparse: torch's _sparse_addmm)
        from .sparse import _ops as _sparse_ops

        return _sparse_ops.addmm(input, mat1, mat2, beta=beta, alpha=alpha,
                                 node=_sparse_ops.AddmmBackward0)
    return _ops.addmm(input, mat1, mat2, beta=beta, alpha=alpha)


@takes_out(Out("addmv", EXPECT))
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    if beta.__class__ is not int and beta.__class__ is not float:
        beta = _argparse.number("addmv", "beta", beta)
    if alpha.__class__ is not int and alpha.__class__ is not float:
        alpha = _argparse.number("addmv", "alpha", alpha)
    return _ops.addmv(input, mat, vec, beta=beta, alpha=alpha)


@takes_out(Out("baddbmm", EXPECT))
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices."""
    if beta.__class__ is not int and beta.__class__ is not float or \
            alpha.__class__ is not int and alpha.__class__ is not float:
        beta, alpha = _argparse.beta_alpha("baddbmm", (input, batch1, batch2), beta, alpha,
                                           True)
    return _ops.baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def trace(input):
    """Sum of the main diagonal of a 2-d tensor."""
    return _ops.trace(input)


@takes_out(Out("tril", EXPECT, internal_overlap=False))
def tril(input, diagonal=0):
    """The lower triangle of the last two dims (on and below ``diagonal``)."""
    if diagonal.__class__ is not int:
        diagonal = _argparse.int_arg("tril", "diagonal", diagonal, 2, symint=True)
    return _ops.tril(input, diagonal)


@takes_out(Out("triu", EXPECT, internal_overlap=False))
def triu(input, diagonal=0):
    """The upper triangle of the last two dims (on and above ``diagonal``)."""
    if diagonal.__class__ is not int:
        diagonal = _argparse.int_arg("triu", "diagonal", diagonal, 2, symint=True)
    return _ops.triu(input, diagonal)


@takes_out(Out(None, EXPECT, out_name="aten::diagonal_copy"))
def diag(input, diagonal=0):
    """A 1-d input as a diagonal matrix, or a 2-d input's diagonal as a vector."""
    if diagonal.__class__ is not int:
        diagonal = _argparse.int_arg("diag", "diagonal", diagonal, 2)
    return _ops.diag(input, diagonal)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """The last dim of ``input`` laid on a diagonal of two new dims."""
    return _ops.diag_embed(input, offset, dim1, dim2)


# torch's kron_out resizes out to the result's shape, row-major, and multiplies into a view
# of it (the result's own layout would follow its operands')
@takes_out(Out("mul", CAST, overlap=True, resize=Resize(layout=lambda index, had: False)))
def kron(input, other):
    """Kronecker product."""
    from . import _argparse
    from .tensor import Tensor

    if not (isinstance(input, Tensor) and isinstance(other, Tensor)):
        _argparse.check("kron", (input, other))
    return _ops.kron(input, other)


@takes_out(Out("linalg_inv_ex", EXPECT))
def inverse(input):
    """Same as ``leafgrad.linalg.inv``."""
    return _ops.linalg_inv(input)


def det(input):
    """Same as ``leafgrad.linalg.det``."""
    return _ops.linalg_det(input)


def logdet(input):
    """log(det(input)): nan where the determinant is negative."""
    return _ops.logdet(input)


@takes_out(Out("_linalg_slogdet", (EXPECT, EXPECT), returns=slogdet_out))
def slogdet(input):
    """``(sign, logabsdet)`` of the determinant, as ``leafgrad.return_types.slogdet``."""
    return slogdet_result(_ops.linalg_slogdet(input))


def svd(input, some=True, compute_uv=True):
    """The older SVD API: ``(U, S, V)`` with ``input = U diag(S) V^T``."""
    if not compute_uv:
        values = _ops.linalg_svdvals(input)
        # torch fills U and V with zeros of their full (square) shapes, whatever ``some`` is
        m, n = input.shape[-2], input.shape[-1]
        zeros_u = input.new_zeros((*input.shape[:-2], m, m))
        zeros_v = input.new_zeros((*input.shape[:-2], n, n))
        return svd_result((zeros_u, values, zeros_v))
    u, s, vh = _ops.linalg_svd(input, full_matrices=not some)
    return svd_result((u, s, vh.mT))


EIG_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` "
    "returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors mimicking "
    "complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
    "L_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) "
    "should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)"
)


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed (torch 1.9); torch 2.13 keeps it to raise this pointer to ``linalg.eig``."""
    raise RuntimeError(EIG_REMOVED)


SOLVE_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.solve` is "
    "deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
    "reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
    "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\n"
    "X = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)")
SYMEIG_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. The default behavior "
    "has changed from using the upper triangular portion of the matrix by default to using the "
    "lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced "
    "with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = "
    "torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = "
    "torch.linalg.eigh(A, UPLO='U' if upper else 'L')")
LSTSQ_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is "
    "deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed arguments "
    "and does not return the QR decomposition in the returned tuple (although it returns other "
    "information about the problem).\n\nTo get the QR decomposition consider using "
    "`torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the residuals of the "
    "solution in the last m - n columns of the returned value whenever m > n. In "
    "torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned named "
    "tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution"
    "[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")
MATRIX_RANK_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
    "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
    "`torch.linalg.matrix_rank()` to 'hermitian'.")


def solve(input, A, *, out=None):  # noqa: A002, N803 - torch's names
    """Removed (torch 1.9); torch 2.13 keeps it to raise this pointer to ``linalg.solve``."""
    raise RuntimeError(SOLVE_REMOVED)


def symeig(input, eigenvectors=False, upper=True, *, out=None):  # noqa: A002
    """Removed (torch 1.9); torch 2.13 keeps it to raise this pointer to ``linalg.eigh``."""
    raise RuntimeError(SYMEIG_REMOVED)


def lstsq(input, A, *, out=None):  # noqa: A002, N803
    """Removed (torch 1.9); torch 2.13 keeps it to raise this pointer to ``linalg.lstsq``."""
    raise RuntimeError(LSTSQ_REMOVED)


def matrix_rank(input, tol=None, symmetric=False, *, out=None):  # noqa: A002
    """Removed (torch 1.9); torch 2.13 keeps it to raise this pointer to
    ``linalg.matrix_rank``."""
    raise RuntimeError(MATRIX_RANK_REMOVED)


def pinverse(input, rcond=1e-15):
    """Pseudo-inverse with singular values below ``rcond * max`` treated as zero."""
    return _ops.linalg_pinv(input, rtol=rcond)


@takes_out(Out("matmul", _MATRIX_POWER))
def matrix_power(input, n):
    """Same as ``leafgrad.linalg.matrix_power``."""
    if n.__class__ is not int:
        n = _argparse.int_arg("matrix_power", "n", n, 2)
    return _ops.linalg_matrix_power(input, n)
