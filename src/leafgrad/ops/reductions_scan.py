"""Scans along a dim: cumsum and cumprod (the latter with torch's zero-safe gradient)."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._dtype import as_dtype
from . import _layout
from ._forward import auto_linear
from .reduce import _sum_dtype
from .reductions import constant, one_dim
from . import _batching_rules as batch
from . import _uint
from .registry import Op, register
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from .shape_ext import Flip
from . import _inference_writes as _writes
from .._dtype import from_numpy_dtype
from ..autograd.grad_mode import is_grad_enabled, no_grad


def _torch_dtype(np_dtype):
    return from_numpy_dtype(np_dtype)


def _reversed_cumsum(tensor, dim: int):
    """sum_{k >= j} t_k along ``dim`` (flip, cumsum, flip: differentiable again)."""
    flipped = Flip.apply(tensor, dims=(dim,))
    return Flip.apply(Cumsum.apply(flipped, dim=dim), dims=(dim,))


# torch's CPU scans carry the running value in a wider type than float32/float16 (its
# acc_type: double for float, float for half) and round each output from it.
_SCAN_ACCUMULATOR = {np.dtype(np.float32): np.float64, np.dtype(np.float16): np.float32}


def _scan(scan, a: np.ndarray, dim: int, acc) -> np.ndarray:
    out_dtype = np.dtype(acc) if acc is not None else a.dtype
    wide = _SCAN_ACCUMULATOR.get(out_dtype)
    if wide is None and out_dtype.name == "bfloat16":
        wide = np.float32  # (bfloat16's acc_type is float too)
    if a.dtype != out_dtype:
        a = a.astype(out_dtype)  # torch scans self.to(dtype): the input is rounded first
    if wide is None:
        return scan(a, axis=dim, dtype=acc)
    return scan(a, axis=dim, dtype=wide).astype(out_dtype)


@register
class Cumsum(Op):
    node = "CumsumBackward0"
    inference_writes = staticmethod(_writes.scan_copy)
    uint_kernel = staticmethod(_uint.only_with_dtype("cumsum_out_cpu"))
    complex_ok = True
    vmap = batch.dims("dim")
    torch_names = ("cumsum",)

    @staticmethod
    def forward(ctx, a, dim, dtype=None):
        acc = _sum_dtype(a, dtype)  # integers and bools accumulate in int64, as torch
        if a.ndim == 0:
            return np.array(a, dtype=acc or a.dtype)
        out = _layout.contiguous(_scan(np.cumsum, a, dim, acc))
        if out.dtype.kind in "fc" or _dtype.is_bfloat16_array(out):
            # torch's running sum starts at +0., so a run of -0. sums to +0. (NumPy's starts
            # at the first element and keeps -0.: a cumprod gradient of zeros had the other
            # signs, generated-program seed 27302)
            np.add(out, 0, out=out)
        return out

    def backward(self, grad):
        shape, dtype = self._input_meta[0]
        if grad._data.dtype != dtype:  # torch casts the gradient to the input's dtype first
            grad = grad.to(_torch_dtype(dtype))
        dim = self._params["dim"]
        if grad.numel() <= 1 or shape[dim] == 1:
            return grad
        return _reversed_cumsum(grad, dim)

    jvp = auto_linear


@register
class Cumprod(Op):
    node = "CumprodBackward0"
    inference_writes = staticmethod(_writes.scan_copy)
    uint_kernel = staticmethod(_uint.only_with_dtype("cumprod_out_cpu"))
    complex_ok = True
    vmap = batch.dims("dim")
    backward_reads_values = True  # its backward branches on the input's values
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("cumprod",)

    @staticmethod
    def forward(ctx, a, dim, dtype=None):
        acc = _sum_dtype(a, dtype)
        if a.ndim == 0:
            return np.array(a, dtype=acc or a.dtype)
        if a.dtype.kind == "c" and a.shape[dim]:
            # torch's running product starts at 1: the first slice is 1 * a, a complex product
            # (an infinite component gives NaN: (inf-infj) -> nan+nanj), where NumPy's scan
            # starts at the first element as it is
            a = np.array(a)
            first = (slice(None),) * dim + (0,)
            with np.errstate(invalid="ignore"):
                a[first] = np.multiply(a.dtype.type(1), a[first])
        return _layout.contiguous(_scan(np.cumprod, a, dim, acc))

    def backward(self, grad):
        a = self.saved("self")
        dim = self._params["dim"]
        if a.numel() <= 1 or a.shape[dim] == 1:
            return grad
        if grad.dtype != a.dtype:
            grad = grad.to(a.dtype)
        if not np.any(a._data == 0):
            # d out_k / d a_j = out_k / a_j for k >= j (torch's formula for inputs without 0s),
            # conjugated for complex inputs (Note: torch's convention for complex gradients)
            return _reversed_cumsum(conj(self.saved("result")) * grad, dim) / conj(a)

        if is_grad_enabled():
            return _cumprod_grad_recorded(grad, a, dim)
        return _cumprod_grad_with_zeros(grad, a, self.saved("result"), dim)

    def jvp(self, tangents, primals, result):
        # torch's cumprod_jvp: d out_k = sum_{j <= k} t_j * prod_{i <= k, i != j} a_i
        a, tangent = primals[0], tangents[0]
        dim = self._params["dim"]
        if a.numel() <= 1 or a.shape[dim] == 1:
            return tangent.to(result.dtype)
        if tangent.dtype != a.dtype:
            tangent = tangent.to(a.dtype)
        if not np.any(a._data == 0):
            out = (tangent / a).cumsum(dim) * result
        else:
            out = _cumprod_jvp_with_zeros(tangent, a, dim)
        return out.to(result.dtype)


def _cumprod_grad_with_zeros(grad, a, result, dim: int):
    """torch's O(n) cumprod_backward of an input with zeros (grad mode off), step by step: up
    to each slice's first zero, reversed_cumsum(out * grad) / a; at the first zero, the sum of
    cumprod(a between the first and second zero) * grad there, times the output just before it
    (1 at the start); 0 after. (Through an inf or NaN factor this differs from the exact
    products: 0 * inf in torch's own terms.)"""
    from .._creation import zeros

    with no_grad():
        a_conj, out_conj = conj(a), conj(result)
        w = out_conj * grad
        is_zero = a == 0
        cumsum = is_zero.cumsum(dim)
        grad_input = zeros(a.shape, dtype=grad.dtype)
        mask = cumsum == 0
        before = _reversed_cumsum(w.masked_fill(~mask, 0.0), dim) / a_conj
        grad_input.masked_scatter_(mask, before.masked_select(mask))
        mask = cumsum == 1
        first_zero_index = mask.max(dim, keepdim=True).indices
        first_zero_mask = zeros(mask.shape, dtype=mask.dtype).scatter_(
            dim, first_zero_index, 1).logical_and_(mask)
        mask = mask & ~first_zero_mask
        previous = out_conj.gather(dim, (first_zero_index - 1).relu_()).masked_fill_(
            first_zero_index == 0, 1.0)
        at_zero = (a_conj.masked_fill(~mask, 1.0).cumprod(dim)
                   .mul_(grad.masked_fill(cumsum != 1, 0.0))
                   .sum(dim, keepdim=True).mul_(previous))
        grad_input.masked_scatter_(first_zero_mask, at_zero.masked_select(first_zero_mask))
    return grad_input


def _cumprod_grad_recorded(grad, a, dim: int):
    """torch's cumprod_backward of an input with zeros under grad mode (create_graph): slice k
    of the gradient is ``sum(grad[k:] * omitted_products, dim)``, the products of every factor
    up to each j but a_k (``prod(a[:k]) * cumprod(a[k+1:])``), copied into a zero tensor one
    slice at a time: the same graph (CopySlices of SumBackward1s) and values as torch's."""
    from .._creation import ones, zeros
    from . import cat

    size = a.shape[dim]
    a = conj(a)
    head = (slice(None),) * dim
    grad_input = zeros(a.shape, dtype=grad.dtype)
    ones_size = list(a.shape)
    ones_size[dim] = 1
    unit = ones(1, dtype=grad.dtype).expand(ones_size)
    for k in range(size):
        if k == 0:
            omitted = cat([unit, a[head + (slice(1, None),)].cumprod(dim)], dim)
        else:
            until = a[head + (slice(0, k),)].prod(dim, keepdim=True)
            if k == size - 1:
                omitted = until
            else:
                after = a[head + (slice(k + 1, None),)].cumprod(dim)
                omitted = cat([until, until.expand_as(after) * after], dim)
        grad_input.select(dim, k).copy_((grad[head + (slice(k, None),)] * omitted).sum(dim))
    return grad_input


def _cumprod_jvp_with_zeros(tangent, a, dim: int):
    """The forward-mode counterpart of ``_cumprod_grad_with_zeros``: out_k sums, over j <= k,
    tangent_j times the product of every a_i (i <= k) but a_j; no division by a_j."""
    last = a.ndim - 1
    size = a.shape[dim]
    moved, tangent_moved = a.transpose(dim, last), tangent.transpose(dim, last)
    rows = moved.unsqueeze(-2).expand(*moved.shape[:-1], size, size)  # rows[..., j, k] = a_k
    eye = np.eye(size)
    rows = rows * constant(1 - eye, a) + constant(eye, a)
    partial = Cumprod.apply(rows, dim=rows.ndim - 1)  # partial[..., j, k]: a_j left out
    upper = constant(np.triu(np.ones((size, size))), a)  # keeps j <= k
    summed = (partial * upper * tangent_moved.unsqueeze(-1)).sum(-2)
    return summed.transpose(dim, last)


def _scan_dtype(tensor, dtype, kernel: str):
    """A scan's ``dtype=`` (Note: Python types as dtypes); torch has no bool kernel for it
    (a 0-d tensor is copied without one)."""
    dtype = as_dtype(dtype)
    if dtype is _dtype.bool and tensor.ndim:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    return dtype


def cumsum(tensor, dim, dtype=None):
    dtype = _scan_dtype(tensor, dtype, "cumsum_out_cpu")
    return Cumsum.apply(tensor, dim=one_dim(dim, tensor.ndim, "cumsum"), dtype=dtype)


def cumprod(tensor, dim, dtype=None):
    dtype = _scan_dtype(tensor, dtype, "cumprod_out_cpu")
    return Cumprod.apply(tensor, dim=one_dim(dim, tensor.ndim, "cumprod"), dtype=dtype)
