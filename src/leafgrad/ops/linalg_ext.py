"""Matrix products beyond ``ops/linalg.py`` and the triangle/diagonal ops.

``baddbmm``, ``addmv``, ``trace``, ``tril``/``triu``, ``diag_embed`` and ``diag`` are primitives
(one node each, as in torch); ``outer`` and ``kron`` are composites that build the same graph
torch builds (``MulBackward0`` and ``UnsafeViewBackward0`` on top). This module is also the one
``ops/__init__.py`` star-imports for the whole linalg topic: it re-exports the contractions
(``linalg_contract.py``), inverse/determinants/solvers (``linalg_decomp.py``), factorizations
(``linalg_factor.py``) and norms (``linalg_norm.py``).
"""

from __future__ import annotations

import numpy as np

from .._dtype import from_numpy_dtype
from ._forward import auto_linear, jvp_sum
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from .linalg import _NAMES as _CPP_NAMES, _REDUCED, Bmm, Mv, baddbmm_float, real_scalars
from . import _isa, _layout
from . import _batching_rules as batch
from .registry import Op, register
from .shape import _wrap_dim
from .shape_ext import Diagonal, DiagonalBackward
from .elementwise import _scale
from .linalg import Addmm
from .shape import UnsafeView


def _legacy_name(array: np.ndarray) -> str:
    return from_numpy_dtype(array.dtype)._legacy


def _c_name(array: np.ndarray) -> str:
    """The C++ type torch's baddbmm message names (``double``, ``long int``)."""
    return _CPP_NAMES.get(array.dtype.name, _legacy_name(array).lower())


def _expanded_size_error(target: tuple, have: tuple) -> RuntimeError:
    """torch's message when ``self`` of an addmm-like op does not broadcast to the product."""
    lead = len(target) - len(have)
    for i in range(len(have) - 1, -1, -1):
        if have[i] != 1 and have[i] != target[lead + i]:
            return RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match the existing "
                f"size ({have[i]}) at non-singleton dimension {lead + i}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(have)}"
            )
    return RuntimeError(f"expand: cannot broadcast {list(have)} to {list(target)}")


def _add_scaled(bias: np.ndarray, product: np.ndarray, beta, alpha) -> np.ndarray:
    """``beta * bias + alpha * product`` with ``bias`` broadcast to the product's shape.

    With ``beta == 0`` the bias is ignored, NaNs included (torch's rule for the add*mm family).
    """
    if alpha != 1:
        product = product * alpha
    try:
        fits = np.broadcast_shapes(bias.shape, product.shape) == product.shape
    except ValueError:
        fits = False
    if not fits:
        raise _expanded_size_error(product.shape, bias.shape)
    if beta == 0:
        return product
    return product + (bias * beta if beta != 1 else bias)


def _scaled(grad, factor):
    """torch's maybe_multiply(grad, factor): a Scalar product (MulBackward1) unless 1."""
    return grad if factor == 1 else _scale(grad, factor)


@register
class Baddbmm(Op):
    """``beta * self + alpha * (batch1 @ batch2)`` for 3-d batches."""
    autocast = "lower_precision_fp"  # torch's CPU autocast list

    node = "BaddbmmBackward0"
    uint_kernel = "baddbmm"
    complex_ok = True
    vmap = batch.addmm
    inputs = ("self", "batch1", "batch2")
    saves = {"batch1": ("batch2",), "batch2": ("batch1",)}
    broadcasts = True
    torch_names = ("baddbmm", "Tensor.baddbmm")
    bfloat16_native = "always"  # Note: the add*bmm kernels (linalg.py)

    @staticmethod
    def forward(ctx, bias, batch1, batch2, beta=1, alpha=1):
        if bias.dtype == batch1.dtype != batch2.dtype:  # torch's bmm check comes first then
            raise RuntimeError(f"expected scalar type {_legacy_name(batch1)} but found "
                               f"{_legacy_name(batch2)}")
        if not bias.dtype == batch1.dtype == batch2.dtype:
            raise RuntimeError(
                f"Input dtypes must be the same, got: input {_c_name(bias)}, batch1: "
                f"{_c_name(batch1)}, batch2: {_c_name(batch2)}"
            )
        if (batch1.dtype.kind == "f" or batch1.dtype.name in _REDUCED) and batch1.ndim == 3 \
                and batch2.ndim == 3 and batch1.shape[0] == batch2.shape[0] \
                and batch1.shape[2] == batch2.shape[1] and type(beta) in (int, float) \
                and type(alpha) in (int, float):
            shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
            try:
                fits = np.broadcast_shapes(bias.shape, shape) == shape
            except ValueError:
                fits = False
            if not fits:
                raise _expanded_size_error(shape, bias.shape)
            return baddbmm_float(bias, batch1, batch2, beta, alpha)
        if batch1.dtype.kind == "b":  # (Bmm's own refusal would name bmm)
            real_scalars(batch1.dtype, True, beta, alpha, kernel="baddbmm")
        product = Bmm.forward(None, batch1, batch2)
        beta, alpha = real_scalars(batch1.dtype, True, beta, alpha, kernel="baddbmm")
        return _add_scaled(bias, product, beta, alpha)

    def backward(self, grad):
        # derivatives.yaml: grad * beta.conj(), grad.bmm(batch2.mH) * alpha.conj(),
        # batch1.mH.bmm(grad) * alpha.conj()
        p = self._params
        alpha, beta = conj(p.get("alpha", 1)), conj(p.get("beta", 1))
        grad_self = grad_batch1 = grad_batch2 = None
        if self.needs_grad(0):
            grad_self = _scaled(grad, beta)
        if self.needs_grad(1):
            grad_batch1 = _scaled(grad.bmm(conj(self.saved("batch2").transpose(1, 2))), alpha)
        if self.needs_grad(2):
            grad_batch2 = _scaled(conj(self.saved("batch1").transpose(1, 2)).bmm(grad), alpha)
        return grad_self, grad_batch1, grad_batch2

    def jvp(self, tangents, primals, result):
        # torch: beta * self_t + alpha * batch1_t.bmm(batch2_p) + alpha * batch1_p.bmm(batch2_t)
        _, batch1, batch2 = primals
        alpha, beta = self._params.get("alpha", 1), self._params.get("beta", 1)
        return jvp_sum(tangents, lambda t: _scaled(t, beta),
                       lambda t: _scaled(t.bmm(batch2), alpha),
                       lambda t: _scaled(batch1.bmm(t), alpha))


@register
class Addmv(Op):
    """``beta * self + alpha * (mat @ vec)``."""

    node = "AddmvBackward0"
    uint_kernel = "addmv_impl_cpu"
    complex_ok = True
    vmap = batch.addmm
    inputs = ("self", "mat", "vec")
    saves = {"mat": ("vec",), "vec": ("mat",)}
    broadcasts = True
    torch_names = ("addmv", "Tensor.addmv")
    bfloat16_native = "always"  # Note: float16 and bfloat16 addmv

    @staticmethod
    def forward(ctx, bias, mat, vec, beta=1, alpha=1):
        if mat.ndim != 2 or vec.ndim != 1 or bias.ndim > 1:
            raise RuntimeError(
                f"vector + matrix @ vector expected, got {bias.ndim}, {mat.ndim}, {vec.ndim}"
            )
        rows = mat.shape[0]
        if mat.shape[1] != vec.shape[0] or (bias.ndim == 1 and bias.shape[0] not in (1, rows)):
            size = bias.shape[0] if bias.ndim == 1 else 1
            raise RuntimeError(
                f"size mismatch, got input ({size}), mat ({rows}x{mat.shape[1]}), vec "
                f"({vec.shape[0]})"
            )
        if not bias.dtype == mat.dtype == vec.dtype:
            raise RuntimeError(
                "addmv input tensors must have the same dtype, but got "
                f"{_legacy_name(bias)}, {_legacy_name(mat)}, and {_legacy_name(vec)}"
            )
        if mat.dtype.name in _REDUCED and mat.size:
            return _reduced_addmv(bias, mat, vec, beta, alpha)
        product = Mv.forward(None, mat, vec)
        beta, alpha = real_scalars(mat.dtype, False, beta, alpha, kernel="addmv_impl_cpu")
        return _add_scaled(bias, product, beta, alpha)

    def backward(self, grad):
        # derivatives.yaml: grad * beta.conj(), outer(grad, vec.conj()) * alpha.conj(),
        # mat.mH.mv(grad) * alpha.conj()
        p = self._params
        alpha, beta = conj(p.get("alpha", 1)), conj(p.get("beta", 1))
        grad_self = grad_mat = grad_vec = None
        if self.needs_grad(0):
            grad_self = _scaled(grad, beta)
        if self.needs_grad(1):
            grad_mat = _scaled(outer(grad, conj(self.saved("vec"))), alpha)
        if self.needs_grad(2):
            grad_vec = _scaled(conj(self.saved("mat").t()).mv(grad), alpha)
        return grad_self, grad_mat, grad_vec

    def jvp(self, tangents, primals, result):
        # torch: beta * self_t + alpha * mat_t.mv(vec_p) + alpha * mat_p.mv(vec_t)
        _, mat, vec = primals
        alpha, beta = self._params.get("alpha", 1), self._params.get("beta", 1)
        return jvp_sum(tangents, lambda t: _scaled(t, beta), lambda t: _scaled(t.mv(vec), alpha),
                       lambda t: _scaled(mat.mv(t), alpha))


# Note: float16 and bfloat16 addmv
# torch's addmv of float16/bfloat16 runs cpublas gemv in BLAS's column-major frame. A matrix
# whose rows are contiguous (the frame's transposed operand, and any other layout, copied so
# first) gives torch's addmm of a one-column product (the half-precision gemm replay,
# linalg.py); a matrix whose columns are contiguous gives the matrix-vector product rounded to
# the dtype, then ``beta * self + alpha * product`` rounded. Both are torch's bits where beta
# and alpha are powers of two or 0 (the plain float32 formula, before: another result on 1-2
# in 10 elements of one layout); with other scalars about a tenth of the elements still
# differ (torch's loops take them in the dtype and scale the vector first: not replayed).
# bfloat16 products of more than 4096 multiply-adds on a processor with AVX-512 go to oneDNN
# instead (ops/_isa.py's ONEDNN_BF16): a float32 sum, rounded once.


def _reduced_addmv(bias, mat, vec, beta, alpha):
    rows, cols = mat.shape
    bias = np.broadcast_to(bias, (rows,))
    item = mat.itemsize
    s0, s1 = mat.strides[0] // item, mat.strides[1] // item
    beta, alpha = real_scalars(mat.dtype, False, beta, alpha, kernel="addmv_impl_cpu")
    wide, dtype = np.float32, mat.dtype
    if not (s0 == 1 and (cols == 1 or s1 >= max(1, rows))):  # gemv 'T' (or a copy)
        if not (s1 == 1 and (rows == 1 or s0 >= max(1, cols))):
            mat = np.ascontiguousarray(mat)
        return Addmm.forward(None, bias[:, None], mat, vec[:, None], beta, alpha)[:, 0]
    product = Mv.forward(None, mat.astype(wide), vec.astype(wide))
    if dtype.name == "bfloat16" and _isa.ONEDNN_BF16 and rows * cols > _isa.ONEDNN_MIN_PRODUCTS:
        # oneDNN's matmul (Blas.cpp's use_mkldnn_matmul): ``beta * self + alpha * product`` in
        # float32, rounded once
        with np.errstate(all="ignore"):
            product *= wide(alpha)
            if beta != 0:
                product += wide(beta) * bias.astype(wide)
        return product.astype(dtype)
    product = product.astype(dtype).astype(wide)
    with np.errstate(all="ignore"):  # (gemv takes beta and alpha in the matrix's dtype)
        product *= wide(wide(alpha).astype(dtype))
        if beta != 0:
            product += wide(wide(beta).astype(dtype)) * bias.astype(wide)
    return product.astype(dtype)


_TRACE_ACCUMULATOR = {"e": np.dtype(np.float32), "f": np.dtype(np.float64),
                      "F": np.dtype(np.complex128)}


@register
class Trace(Op):
    """Sum of the main diagonal of a matrix (rectangular allowed)."""

    node = "TraceBackward0"
    uint_kernel = "trace"
    complex_ok = True
    vmap = batch.trace
    torch_names = ("trace", "Tensor.trace")

    @staticmethod
    def forward(ctx, a):
        if a.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        if a.dtype == np.bool_:
            raise NotImplementedError("\"trace\" not implemented for 'Bool'")
        # Like sum, integer traces accumulate (and come back) in int64.
        if a.dtype.kind in "iu":
            return np.asarray(np.trace(a, dtype=np.int64))
        # ATen's trace_cpu: one loop down the diagonal adding into acc_type<T, false> from 0
        # (double for float32, float for float16/bfloat16, complex<double> for complex64),
        # then the cast (NumPy's pairwise sum in float32 was a last bit off on a 50x50 matrix)
        wide = _TRACE_ACCUMULATOR.get(a.dtype.char, a.dtype)
        diagonal = np.diagonal(a).astype(wide)
        total = np.add.accumulate(diagonal)[-1] + wide.type(0) if diagonal.size else wide.type(0)
        return np.asarray(total).astype(a.dtype)

    def backward(self, grad):
        # torch's trace_backward: zeros(rows * cols).index_fill_(0, every (cols + 1)-th
        # position, grad).view(rows, cols): ViewBackward0 <- IndexFillBackward1 under
        # create_graph, and _version 2 (the zeros and the fill written in place)
        from .._creation import arange

        rows, cols = self.input_shape()
        flat = grad.new_zeros(rows * cols)
        flat._bump_version()
        # (the diagonal's min(rows, cols) positions: a tall matrix has no more)
        flat.index_fill_(0, arange(0, min(rows, cols) * (cols + 1), cols + 1), grad)
        return flat.view(rows, cols)

    jvp = auto_linear


def _check_triangle(a: np.ndarray, name: str) -> None:
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


@register
class Tril(Op):
    """The lower triangle (on and below ``diagonal``) of the last two dims; the rest zeroed."""

    node = "TrilBackward0"
    uint_kernel = "tril"
    complex_ok = True
    vmap = batch.leading
    torch_names = ("tril", "Tensor.tril", "Tensor.tril_")

    @staticmethod
    def forward(ctx, a, diagonal=0):
        _check_triangle(a, "tril")
        return _layout.contiguous(np.tril(a, diagonal))

    def backward(self, grad):
        return grad.tril(self._params.get("diagonal", 0))

    jvp = auto_linear


@register
class Triu(Op):
    """The upper triangle (on and above ``diagonal``) of the last two dims; the rest zeroed."""

    node = "TriuBackward0"
    uint_kernel = "triu"
    complex_ok = True
    vmap = batch.leading
    torch_names = ("triu", "Tensor.triu", "Tensor.triu_")

    @staticmethod
    def forward(ctx, a, diagonal=0):
        _check_triangle(a, "triu")
        return _layout.contiguous(np.triu(a, diagonal))

    def backward(self, grad):
        return grad.triu(self._params.get("diagonal", 0))

    jvp = auto_linear


@register
class DiagEmbed(Op):
    """Vectors along the last dim placed on a diagonal (``offset``) of new dims ``dim1, dim2``."""

    node = "DiagEmbedBackward0"
    inference_writes = 2  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.dims("dim1", "dim2", extra_rank=1)
    torch_names = ("diag_embed", "diag", "Tensor.diag_embed", "Tensor.diag")

    @staticmethod
    def forward(ctx, a, offset=0, dim1=-2, dim2=-1):
        dim1, dim2 = _embed_dims(a.ndim, dim1, dim2)
        size = a.shape[-1] + abs(offset)
        shape = list(a.shape[:-1])
        for dim in sorted((dim1, dim2)):
            shape.insert(dim, size)
        return DiagonalBackward.forward(None, a, tuple(shape), offset, dim1, dim2)

    def backward(self, grad):
        p = self._params
        dim1, dim2 = _embed_dims(len(self.input_shape()), p.get("dim1", -2), p.get("dim2", -1))
        return Diagonal.apply(grad, offset=p.get("offset", 0), dim1=dim1, dim2=dim2)

    jvp = auto_linear


def _embed_dims(ndim: int, dim1: int, dim2: int) -> tuple:
    if ndim == 0:
        raise IndexError(
            "Dimension out of range (expected to be in range of [-1, 0], but got -2)"
        )
    dim1, dim2 = _wrap_dim(dim1, ndim + 1), _wrap_dim(dim2, ndim + 1)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dim1, dim2


@register
class DiagonalCopy(Op):
    """``torch.diag`` of a matrix: a copy of one diagonal.

    torch 2.13 routes ``diag(matrix)`` through ``diagonal_copy``; its node prints as
    ``DiagonalBackward0_copy`` and its output is not a view, so neither is ours.
    """

    node = "DiagonalBackward0_copy"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.dims("dim1", "dim2")
    torch_names = ("diag",)

    @staticmethod
    def forward(ctx, a, offset=0, dim1=0, dim2=1):
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        return np.diagonal(a, offset, dim1, dim2).copy()

    def backward(self, grad):
        p = self._params
        return DiagonalBackward.apply(grad, input_sizes=self.input_shape(),
                                      offset=p.get("offset", 0), dim1=p.get("dim1", 0),
                                      dim2=p.get("dim2", 1))

    jvp = auto_linear


# -- functions ------------------------------------------------------------------------------------


def _check_vector(tensor, name: str, what: str) -> None:
    if tensor.ndim != 1:
        raise RuntimeError(f"{name}: Expected 1-D argument {what}, but got {tensor.ndim}-D")


def outer(a, b):
    """torch.outer / ger: ``a.reshape(-1, 1) * b`` (so the node is ``MulBackward0``)."""
    from . import reshape

    _check_vector(a, "outer", "self")
    _check_vector(b, "outer", "vec2")
    return reshape(a, (-1, 1)) * b


def addmm(bias, mat1, mat2, beta=1, alpha=1):
    for name, other in (("self", bias), ("mat1", mat1)):
        if other.dtype != mat2.dtype:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got "
                f"{other.dtype._legacy} and {mat2.dtype._legacy}"
            )
    return Addmm.apply(bias, mat1, mat2, beta=beta, alpha=alpha)


def addmv(bias, mat, vec, beta=1, alpha=1):
    return Addmv.apply(bias, mat, vec, beta=beta, alpha=alpha)


def baddbmm(bias, batch1, batch2, beta=1, alpha=1):
    return Baddbmm.apply(bias, batch1, batch2, beta=beta, alpha=alpha)


def trace(tensor):
    return Trace.apply(tensor)


def tril(tensor, diagonal=0):
    return Tril.apply(tensor, diagonal=int(diagonal))  # (a NumPy integer is an int)


def triu(tensor, diagonal=0):
    return Triu.apply(tensor, diagonal=int(diagonal))


def tril_(tensor, diagonal=0):
    from .inplace import inplace

    _check_triangle(tensor._data, "tril")
    return inplace(Tril, tensor, diagonal=diagonal)


def triu_(tensor, diagonal=0):
    from .inplace import inplace

    _check_triangle(tensor._data, "triu")
    return inplace(Triu, tensor, diagonal=diagonal)


def diag_embed(tensor, offset=0, dim1=-2, dim2=-1):
    return DiagEmbed.apply(tensor, offset=offset, dim1=dim1, dim2=dim2)


def diag(tensor, diagonal=0):
    """A vector to a diagonal matrix, or a matrix's diagonal (a copy) to a vector."""
    if tensor.ndim == 1:
        return DiagEmbed.apply(tensor, offset=diagonal, dim1=0, dim2=1)
    if tensor.ndim == 2:
        return DiagonalCopy.apply(tensor, offset=diagonal, dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {tensor.ndim}D")


def kron(a, b):
    """Kronecker product, built like torch's: interleave singleton dims, multiply, reshape."""
    ndim = max(a.ndim, b.ndim)
    a_shape = (1,) * (ndim - a.ndim) + tuple(a.shape)
    b_shape = (1,) * (ndim - b.ndim) + tuple(b.shape)
    a_view, b_view, result_shape = [], [], []
    for size_a, size_b in zip(a_shape, b_shape):
        a_view += [size_a, 1]
        b_view += [1, size_b]
        result_shape.append(size_a * size_b)
    product = UnsafeView.apply(a, shape=tuple(a_view)) * UnsafeView.apply(b, shape=tuple(b_view))
    return UnsafeView.apply(product, shape=tuple(result_shape))


# The ``torch.linalg`` functions are exported with a ``linalg_`` prefix: plain ``norm``, ``inv``
# or ``svd`` would shadow other names in ``leafgrad.ops`` (``ops.norm`` is a module).
from .linalg_contract import einsum, tensordot  # noqa: E402
from .linalg_decomp import (  # noqa: E402
    LinAlgError, LinalgDet, LinalgInvEx, LinalgSlogdet, LinalgSolveEx, LinalgSolveTriangular,
    MultiOutputOp,
)
from .linalg_decomp import det as linalg_det, inv as linalg_inv, logdet  # noqa: E402
from .linalg_decomp import slogdet as linalg_slogdet, solve as linalg_solve  # noqa: E402
from .linalg_decomp import solve_triangular as linalg_solve_triangular  # noqa: E402
from .linalg_factor import (  # noqa: E402
    LinalgCholeskyEx, LinalgEigh, LinalgPinv, LinalgQr, LinalgSvd,
)
from .linalg_factor import cholesky as linalg_cholesky, eigh as linalg_eigh  # noqa: E402
from .linalg_factor import eigvalsh as linalg_eigvalsh, pinv as linalg_pinv  # noqa: E402
from .linalg_factor import qr as linalg_qr, svd as linalg_svd  # noqa: E402
from .linalg_eig import LinalgEig  # noqa: E402
from .linalg_eig import eig as linalg_eig, eigvals as linalg_eigvals  # noqa: E402
from .linalg_factor import svdvals as linalg_svdvals  # noqa: E402
from .linalg_norm import matrix_norm as linalg_matrix_norm  # noqa: E402
from .linalg_norm import matrix_power as linalg_matrix_power, norm as linalg_norm  # noqa: E402
from .linalg_norm import vector_norm as linalg_vector_norm  # noqa: E402

__all__ = [
    # ops
    "Addmv", "Baddbmm", "DiagEmbed", "DiagonalCopy", "LinalgCholeskyEx", "LinalgDet",
    "LinalgEig", "LinalgEigh", "LinalgInvEx", "LinalgPinv", "LinalgQr", "LinalgSlogdet", "LinalgSolveEx",
    "LinalgSolveTriangular", "LinalgSvd", "Trace", "Tril", "Triu",
    "LinAlgError", "MultiOutputOp",
    # torch.<name>
    "addmm", "addmv", "baddbmm", "diag", "diag_embed", "einsum", "kron", "logdet", "outer",
    "tensordot", "trace", "tril", "tril_", "triu", "triu_",
    # torch.linalg.<name>
    "linalg_cholesky", "linalg_det", "linalg_eig", "linalg_eigh",
    "linalg_eigvals", "linalg_eigvalsh", "linalg_inv",
    "linalg_matrix_norm", "linalg_matrix_power", "linalg_norm", "linalg_pinv", "linalg_qr",
    "linalg_slogdet", "linalg_solve", "linalg_solve_triangular", "linalg_svd", "linalg_svdvals",
    "linalg_vector_norm",
]
