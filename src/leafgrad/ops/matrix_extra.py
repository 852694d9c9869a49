"""Matrix ops added for torch-namespace coverage: ``addr`` (outer-product update), ``addbmm``
(sum of a batch of products) and ``block_diag``; ``chain_matmul`` is ``linalg.multi_dot``
(leafgrad/_linalg_more.py) behind torch's deprecation warning.

Each is one node, as in torch (``AddrBackward0``, ``AddbmmBackward0``, ``BlockDiagBackward0``),
with torch's derivatives.yaml formulas written with Tensor ops.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from ..tensor import _wrap
from . import _float_kernels, _layout, _promote
from ._forward import auto_linear, jvp_sum
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from .linalg import _REDUCED, addbmm_float, real_scalars
from .linalg_ext import _expanded_size_error, _legacy_name, _scaled
from .math_unary import _not_implemented
from .registry import Op, register
from .._info import is_warn_always_enabled

__all__ = ["Addr", "Addbmm", "BlockDiag", "addr", "addbmm", "block_diag", "chain_matmul"]


def _expand_to(bias: np.ndarray, shape: tuple) -> np.ndarray:
    """``bias`` broadcast to ``shape`` with torch's expand errors."""
    if bias.ndim > len(shape):
        raise RuntimeError(
            f"expand(torch.{_legacy_name(bias)}Tensor{{{list(bias.shape)}}}, size={list(shape)}): "
            f"the number of sizes provided ({len(shape)}) must be greater or equal to the number "
            f"of dimensions in the tensor ({bias.ndim})")
    try:
        fits = np.broadcast_shapes(bias.shape, shape) == tuple(shape)
    except ValueError:
        fits = False
    if not fits:
        raise _expanded_size_error(tuple(shape), bias.shape)
    return bias


def _check_scalars(dtype: np.dtype, beta, alpha) -> None:
    """torch's addr rules for beta and alpha with integer and bool results."""
    for name, value in (("beta", beta), ("alpha", alpha)):
        if isinstance(value, complex) and dtype.kind not in "iubc":
            real_scalars(dtype, False, value)  # torch's overflow error for an imaginary part
        if isinstance(value, bool):
            if dtype != np.bool_:
                raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        elif dtype.kind in "iub" and isinstance(value, (float, complex)):
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                               "floating point number.")


def _wide_unsigned(dtype: np.dtype) -> bool:
    return dtype.kind == "u" and dtype.itemsize > 1


def _cast_to(tensor, dtype):
    """``tensor`` in ``dtype`` (a differentiable cast when it differs)."""
    return tensor if tensor._data.dtype == dtype else tensor.to(_dtype.from_numpy_dtype(dtype))


# -- addr -------------------------------------------------------------------------------------


# Note: torch's addr kernel
# torch's addr is an elementwise kernel over (self, vec1, vec2) broadcast to (n, m), in the
# operands' dtype: ``alpha * vec1 * vec2`` for beta 0, else ``beta * self + alpha * vec1 *
# vec2``, the scalars cast to the dtype first. float16/bfloat16 arithmetic rounds after every
# operation. float32/float64 run vectorised over blocks of 2 x 8 (2 x 4) elements of the inner
# dim, where the compiler fuses the last product into the sum, fma(alpha * vec1, vec2,
# beta * self); the elements past the last block take the scalar loop, where it fuses the
# first, fma(beta, self, alpha * vec1 * vec2), as it does everywhere when self is constant
# along the inner dim (a column or a number broadcast). Computed as outer(vec1, vec2) * alpha + self *
# beta (the old way) 1 in 4 float32 results differed.
def _addr_float(bias, vec1, vec2, beta, alpha, shape):
    dtype = vec1.dtype
    cast = dtype.type
    scaled = vec1 * cast(alpha)  # (rounded to the dtype)
    product = np.multiply.outer(scaled, vec2)
    full = bias if bias.shape == shape else None  # the layout source (torch's kernel's)

    def laid_out(result):
        result = np.array(result, dtype=dtype, order="C")  # (canonical size-1 strides)
        return result if full is None else _layout.like(result, full)

    if cast(beta) == 0:  # self ignored, NaNs included
        return laid_out(product)
    bias = np.broadcast_to(bias, shape)

    if dtype.name in _REDUCED:
        return laid_out(bias * cast(beta) + product)
    # the output takes self's layout; its inner dim is the last one unless self is column-major
    column_major = full is not None and full.ndim == 2 and full.flags.f_contiguous \
        and not full.flags.c_contiguous
    inner = shape[0] if column_major else shape[1]
    if bias.strides[0 if column_major else 1] == 0 and inner > 1:
        # self constant along the inner dim (a column or a number): fused the other way
        return laid_out(_float_kernels.fma(cast(beta), bias, product))
    out = _float_kernels.fma(scaled[:, None], vec2[None, :], bias * cast(beta))
    block = 64 // dtype.itemsize  # two AVX2 vectors
    start = inner - inner % block
    if start < inner:
        tail = (slice(start, None), slice(None)) if column_major else (slice(None),
                                                                        slice(start, None))
        out[tail] = _float_kernels.fma(cast(beta), bias[tail], product[tail])
    return laid_out(out)


@register
class Addr(Op):
    """``beta * self + alpha * outer(vec1, vec2)``; the three operands promote together."""

    node = "AddrBackward0"
    complex_ok = True
    inputs = ("self", "vec1", "vec2")
    saves = {"vec1": ("vec2",), "vec2": ("vec1",)}
    broadcasts = True
    uint_ok = True  # the forward raises torch's addr_cpu error after its checks
    torch_names = ("addr", "Tensor.addr")
    bfloat16_native = True  # Note: torch's addr kernel

    @staticmethod
    def forward(ctx, bias, vec1, vec2, beta=1, alpha=1):
        for name, vec in (("vec1", vec1), ("vec2", vec2)):
            if vec.ndim != 1:
                raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec.ndim}-D")
        dtypes = [bias.dtype, vec1.dtype, vec2.dtype]
        if len(set(dtypes)) > 1 and any(_wide_unsigned(d) for d in dtypes):
            # torch expands self, then promotes the dtypes pairwise (whatever their dims),
            # which refuses any mix with uint16/32/64 (Note: wide unsigned)
            _expand_to(bias, (vec1.shape[0], vec2.shape[0]))
            common = _dtype.from_numpy_dtype(dtypes[0])
            for other in dtypes[1:]:
                common = _dtype.promote_types(common, _dtype.from_numpy_dtype(other))
        dtype = _promote.result_np_dtype(bias, vec1, vec2)
        _check_scalars(dtype, beta, alpha)
        if dtype.kind != "c":  # a complex number with no imaginary part: its real part
            beta, alpha = (v.real if isinstance(v, complex) else v for v in (beta, alpha))
        shape = (vec1.shape[0], vec2.shape[0])
        bias = _expand_to(bias, shape)
        if _wide_unsigned(dtype):  # torch checks dtypes and sizes first (Note: wide unsigned)
            raise _not_implemented("addr_cpu", bias.astype(dtype, copy=False))
        bias, vec1, vec2 = (a.astype(dtype, copy=False) for a in (bias, vec1, vec2))
        if dtype == np.bool_:  # torch: (beta && self) || (alpha && vec1 ⊗ vec2)
            outer = np.logical_and.outer(vec1, vec2) & bool(alpha)
            out = (outer | bias) if beta else outer
            return np.broadcast_to(out, shape).copy()
        if (dtype.kind == "f" or dtype.name in _REDUCED) and type(beta) in (int, float) \
                and type(alpha) in (int, float):
            with np.errstate(all="ignore"):
                return _addr_float(bias, vec1, vec2, beta, alpha, shape)
        with np.errstate(all="ignore"):
            product = np.multiply.outer(vec1, vec2)
            if alpha != 1:
                product = product * np.asarray(alpha).astype(dtype)
            if beta == 0:  # the bias is ignored, NaNs included (torch's rule for add*mm)
                return np.asarray(product, dtype=dtype)
            scaled = bias if beta == 1 else bias * np.asarray(beta).astype(dtype)
            # torch's kernel is elementwise over (self, outer): a full-shape self's layout
            return _layout.like(np.asarray(product + scaled, dtype=dtype), bias)

    def backward(self, grad):
        p = self._params
        alpha, beta = p.get("alpha", 1), p.get("beta", 1)
        dtype = grad._data.dtype
        grad_self = grad_vec1 = grad_vec2 = None
        # torch: grad * conj(beta), grad.mv(conj(vec2)) * conj(alpha), grad.t().mv(conj(vec1)) *
        # conj(alpha)
        if self.needs_grad(0):
            grad_self = _scaled(grad, conj(beta))
        if self.needs_grad(1):
            grad_vec1 = _scaled(grad.mv(conj(_cast_to(self.saved("vec2"), dtype))), conj(alpha))
        if self.needs_grad(2):
            grad_vec2 = _scaled(grad.t().mv(conj(_cast_to(self.saved("vec1"), dtype))),
                                conj(alpha))
        return grad_self, grad_vec1, grad_vec2

    def jvp(self, tangents, primals, result):
        _, vec1, vec2 = primals
        alpha, beta = self._params.get("alpha", 1), self._params.get("beta", 1)
        return jvp_sum(tangents, lambda t: _scaled(t, beta),
                       lambda t: _scaled(t.outer(vec2), alpha),
                       lambda t: _scaled(vec1.outer(t), alpha))


# -- addbmm ---------------------------------------------------------------------------------------


def _dim_error(ndim: int, dim: int) -> IndexError:
    return IndexError(f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
                      f"{max(ndim, 1) - 1}], but got {dim})")


@register
class Addbmm(Op):
    """``beta * self + alpha * sum_b(batch1[b] @ batch2[b])``."""

    node = "AddbmmBackward0"
    complex_ok = True
    inputs = ("self", "batch1", "batch2")
    saves = {"batch1": ("batch2",), "batch2": ("batch1",)}
    broadcasts = True
    uint_ok = True  # the forward raises torch's addmm_impl_cpu_ error after its checks
    torch_names = ("addbmm", "Tensor.addbmm")
    bfloat16_native = "always"  # Note: the add*bmm kernels (linalg.py)

    @staticmethod
    def forward(ctx, bias, batch1, batch2, beta=1, alpha=1):
        # torch's order: the result's size from batch1.size(1) and batch2.size(2), self expanded
        # to it, then the dtypes, the batch counts and the matrix sizes
        if batch1.ndim < 2:
            raise _dim_error(batch1.ndim, 1)
        if batch2.ndim < 3:
            raise _dim_error(batch2.ndim, 2)
        shape = (batch1.shape[1], batch2.shape[2])
        bias = _expand_to(bias, shape)
        for name, other in (("self", bias), ("mat1", batch1)):
            if other.dtype != batch2.dtype:
                raise RuntimeError(
                    f"{name} and mat2 must have the same dtype, but got {_legacy_name(other)} "
                    f"and {_legacy_name(batch2)}")
        if batch1.ndim != 3 or batch2.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if batch1.shape[0] != batch2.shape[0]:
            raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                               f"{batch1.shape[0]} and {batch2.shape[0]}")
        if batch1.shape[2] != batch2.shape[1]:
            raise RuntimeError(
                f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
                f"{batch2.shape[1]}x{batch2.shape[2]})")
        dtype = batch2.dtype
        if dtype == np.bool_ or (_wide_unsigned(dtype) and batch1.size and batch2.size):
            # uint16/32/64: torch's kernel refuses after the checks, unless there is nothing
            # to multiply (no batches, or an empty inner dim) (Note: wide unsigned)
            raise _not_implemented("addmm_impl_cpu_", batch2)
        beta, alpha = real_scalars(dtype, True, beta, alpha)
        if dtype.kind in "iu":  # integer kernels take the scalars as integers
            alpha, beta = int(alpha), int(beta)
        if (dtype.kind == "f" or dtype.name in _REDUCED) and bias.dtype == batch1.dtype == dtype \
                and type(beta) in (int, float) and type(alpha) in (int, float):
            return addbmm_float(bias, batch1, batch2, beta, alpha)  # Note: the add*bmm kernels
        with np.errstate(all="ignore"):
            product = np.matmul(batch1, batch2).sum(axis=0, dtype=dtype)
            if alpha != 1:
                product = product * np.asarray(alpha).astype(dtype)
            if beta == 0:
                return np.ascontiguousarray(np.broadcast_to(product, shape), dtype=dtype)
            scaled = bias if beta == 1 else bias * np.asarray(beta).astype(dtype)
            return np.asarray(product + scaled, dtype=dtype)

    def backward(self, grad):
        # the baddbmm formulas with grad expanded over the batches (conj: Note: torch's
        # convention for complex gradients)
        p = self._params
        alpha, beta = conj(p.get("alpha", 1)), conj(p.get("beta", 1))
        grad_self = grad_batch1 = grad_batch2 = None
        if self.needs_grad(0):
            grad_self = _scaled(grad, beta)
        if self.needs_grad(1) or self.needs_grad(2):
            count = self.input_shape(1)[0]
            expanded = grad.unsqueeze(0).expand(count, *grad.shape)
            if self.needs_grad(1):
                batch2 = conj(self.saved("batch2").transpose(1, 2))
                grad_batch1 = _scaled(expanded.bmm(batch2), alpha)
            if self.needs_grad(2):
                batch1 = conj(self.saved("batch1").transpose(1, 2))
                grad_batch2 = _scaled(batch1.bmm(expanded), alpha)
        return grad_self, grad_batch1, grad_batch2

    def jvp(self, tangents, primals, result):
        _, batch1, batch2 = primals
        alpha, beta = self._params.get("alpha", 1), self._params.get("beta", 1)
        return jvp_sum(tangents, lambda t: _scaled(t, beta),
                       lambda t: _scaled(t.bmm(batch2).sum(0), alpha),
                       lambda t: _scaled(batch1.bmm(t).sum(0), alpha))


# -- block_diag -----------------------------------------------------------------------------------


def _as_matrix_shape(shape: tuple) -> tuple:
    if len(shape) == 0:
        return (1, 1)
    if len(shape) == 1:
        return (1, shape[0])
    return shape


@register
class BlockDiag(Op):
    """The tensors (0-d as 1x1, 1-d as one row) on the diagonal of a zero matrix."""

    node = "BlockDiagBackward0"
    masks_unneeded_grads = False  # a tensor list (Note: unneeded input gradients)
    complex_ok = True
    uint_ok = True  # a copy of any dtype; mixed dtypes reach torch's promotion error in forward
    torch_names = ("block_diag",)

    @staticmethod
    def forward(ctx, *arrays):
        for index, array in enumerate(arrays):
            if array.ndim > 2:
                raise RuntimeError(
                    "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                    f"{index} has {array.ndim} dimensions")
        if not arrays:
            return np.zeros((1, 0), _dtype.get_default_dtype().np)
        dtype = _promote.result_np_dtype(*arrays)
        shapes = [_as_matrix_shape(a.shape) for a in arrays]
        out = np.zeros((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), dtype)
        row = column = 0
        for array, (rows, columns) in zip(arrays, shapes):
            out[row:row + rows, column:column + columns] = array.reshape(rows, columns)
            row += rows
            column += columns
        return out

    def backward(self, grad):
        grads = []
        row = column = 0
        for shape, _ in self._input_meta:
            rows, columns = _as_matrix_shape(shape)
            # every block, needed or not (Note: unneeded input gradients, ops/registry.py)
            block = grad[row:row + rows, column:column + columns]
            grads.append(block.reshape(shape))
            row += rows
            column += columns
        return tuple(grads)

    jvp = auto_linear


# -- functions ------------------------------------------------------------------------------------


def addr(bias, vec1, vec2, beta=1, alpha=1):
    return Addr.apply(bias, vec1, vec2, beta=beta, alpha=alpha)


def addbmm(bias, batch1, batch2, beta=1, alpha=1):
    return Addbmm.apply(bias, batch1, batch2, beta=beta, alpha=alpha)


def block_diag(*tensors):
    if not tensors:
        return _wrap(BlockDiag.forward(None))
    return BlockDiag.apply(*tensors)


_chain_matmul_warned = []


def chain_matmul(*matrices):
    """torch.chain_matmul: deprecated (a UserWarning, once per process unless
    ``set_warn_always(True)``); ``linalg.multi_dot`` of 2-d tensors."""
    import warnings

    from .._linalg_more import multi_dot

    if not _chain_matmul_warned or is_warn_always_enabled():
        _chain_matmul_warned.append(True)
        warnings.warn(
            "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
            "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
            "rather than multiple parameters.", UserWarning, stacklevel=3)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for matrix in matrices:
        if matrix.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {matrix.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)
