"""Reductions: sum and mean, over everything or over dims."""

from __future__ import annotations

import math

import numpy as np

from .. import _argparse
from .. import _dtype
from .._dtype import as_dtype
from ..backends import cpu as _cpu
from . import _cascade_sum, _layout
from ._forward import auto_linear
from . import _batching_rules as batch
from . import _uint
from .registry import OPS, Op, register  # (OPS[name]: an op of a module loaded later)
from ..tensor import _wrap_dim
from ._bfloat16 import to_bfloat16


def reduce_dims(dim, ndim: int) -> tuple:
    """Normalise ``dim`` (int, tuple or list, possibly negative) to sorted positive dims."""
    if dim.__class__ is int:
        dims = (dim,)
    elif _argparse.is_int_item(dim):  # a NumPy integer, a one-element integer (or bool)
        dims = (int(dim.item()) if _argparse._is_tensor(dim) else int(dim),)  # tensor
    elif dim.__class__ is tuple or dim.__class__ is list:
        dims = dim
    else:  # (a bool, a float, a string, an array, a tensor of several elements: the parser's
        # TypeError, which functions declared in SIGNATURES restate for the call as given)
        raise TypeError(f"argument 'dim' must be tuple of ints, not {_argparse.typename(dim)}")
    result = []
    for d in dims:
        if d.__class__ is not int:
            if not _argparse.is_int_item(d):
                raise TypeError(f"argument 'dim' must be tuple of ints, but found element of "
                                f"type {_argparse.typename(d)}")
            d = int(d.item()) if _argparse._is_tensor(d) else int(d)
        d = _wrap_dim(d, ndim)
        if d in result:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        result.append(d)
    return tuple(sorted(result))


def _sum_dtype(a: np.ndarray, dtype) -> np.dtype | None:
    if dtype is not None:
        return dtype.np
    if a.dtype.kind in "biu":
        return np.dtype(np.int64)  # torch sums bools and integers in int64
    return None


def _sum_all(a: np.ndarray, dtype) -> np.ndarray:
    """Sum of every element; floats in torch's order of additions (``_cascade_sum``)."""
    if dtype is None and a.dtype.char in "fd" and a.flags.c_contiguous \
            and 0 < a.size <= _cascade_sum.GRAIN:
        return _cascade_sum.one_thread_total(a)  # the usual case, straight to its kernel
    out_dtype = _sum_dtype(a, dtype)
    if out_dtype is not None and out_dtype != a.dtype:
        a = a.astype(out_dtype)
    if not a.flags.c_contiguous:
        a = _cascade_sum.in_memory_order(a)
    if _cascade_sum.applies(a):
        return _cascade_sum.total(a)
    if _cascade_sum.strided_applies(a):
        return _cascade_sum.strided_total(a)
    if a.dtype == np.float16 and a.size:
        # Note: float16 sums and means; a strided 1-d tensor takes torch's scalar loop
        if a.flags.c_contiguous or a.ndim - a.shape.count(1) <= 1:
            flat = a.reshape(-1)  # (a view: one dim of size > 1)
            return _cascade_sum.reduced_total(flat, _to_float16, flat.flags.c_contiguous)
        # a non-dense tensor: torch sums a float32 copy (in stride order) and rounds once
        copy = _cascade_sum.stride_order_copy(a)
        if copy is not None:
            return _cascade_sum.total(copy.astype(np.float32)).astype(np.float16)
    return np.asarray(a.sum(dtype=out_dtype))


def _to_float16(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float16)


def _bfloat16_total(out, operands, params):
    """``bfloat16_finish`` of the full sum: torch's order for bfloat16 (``reduced_total``) in
    place of float32's rounded once."""
    a = operands[0]
    if a.__class__ is not np.ndarray or not a.size or out.__class__ is not np.ndarray:
        return out
    if not a.flags.c_contiguous:
        a = _cascade_sum.in_memory_order(a)
        if not (a.flags.c_contiguous or a.ndim == 1):
            return out
    return _cascade_sum.reduced_total(a, lambda values: to_bfloat16(values, False))


def _strided_vector_sum(a: np.ndarray, dims: tuple, keepdim: bool, values=None):
    """The sum over ``dims`` of a strided float vector (``_cascade_sum.strided_applies``)
    when they hold all its elements (torch's scalar row sum), else None. ``values``: the
    elements to add in ``a``'s place (nansum's copy with NaNs read as 0)."""
    if not _cascade_sum.strided_applies(a):
        return None
    reduced = {d % a.ndim for d in dims}
    if any(n != 1 for d, n in enumerate(a.shape) if d not in reduced):
        return None
    shape = tuple(1 if d in reduced else n for d, n in enumerate(a.shape)
                  if keepdim or d not in reduced)
    return _cascade_sum.strided_total(a if values is None else values).reshape(shape)


def _strided_rows_sum(a: np.ndarray, dims: tuple, keepdim: bool):
    """The sum over one dim of float32/float64 rows that are strided vectors (``x[..., ::2]``;
    the reduced dim's stride the smallest, not the element size), else None: torch's
    scalar_inner_sum (SumKernel.cpp), each row's scalar row sum (four interleaved partials);
    NumPy's pairwise sum gave another last bit on most rows (ModuleInfo replay: a pooled
    strided input)."""
    reduced = {d % a.ndim for d in dims} if a.ndim else set()
    wide = [d for d in reduced if a.shape[d] != 1]  # (dims of size 1 add nothing)
    if len(wide) != 1 or a.dtype.kind != "f" or a.dtype.itemsize < 4 or not a.size \
            or a.size > _cascade_sum.ORDER_LIMIT and not _cpu.torch_bits:
        return None
    dim = wide[0]
    length, step = a.shape[dim], a.strides[dim]
    others = [abs(a.strides[d]) for d, n in enumerate(a.shape) if d != dim and n > 1]
    if length < 2 or step <= a.itemsize or not others or step >= min(others):
        return None
    rows = np.moveaxis(a, dim, 0).reshape(length, -1)  # (a copy, columns = the rows)
    out = _cascade_sum._row_sum(np.ascontiguousarray(rows)) + a.dtype.type(0)
    return out.reshape(tuple(1 if d in reduced else n for d, n in enumerate(a.shape)
                             if keepdim or d not in reduced))


def _sum_dims(a: np.ndarray, dims: tuple, keepdim: bool, dtype, ordered: bool = True,
              unlimited: bool = False) -> np.ndarray:
    """Sum over ``dims``; one dim of a contiguous float array in torch's order, non-adjacent
    dims too where ``ordered`` (see Note: statistics in NumPy's order); ``unlimited``: see
    ``_cascade_sum.applies``."""
    if dtype is None and len(dims) == 1 and a.dtype.char in "fd" and \
            _cascade_sum.applies(a, unlimited):
        # the usual case first: one dim of a C-contiguous float32/float64 array, where every
        # branch below before ``along`` declines (no cast, no permutation, no strided rows)
        out = _cascade_sum.along(a, dims[0], keepdim)
        if out is not None:
            return out
    out_dtype = _sum_dtype(a, dtype)
    if out_dtype is not None and out_dtype != a.dtype:
        a = a.astype(out_dtype)
    if a.dtype == np.float16 and a.size:
        # Note: float16 sums and means. torch adds float16 in float32 (its opmath type) and
        # rounds the result once: float32's order of additions, then the cast (NumPy adds an
        # outer dim's rows in float16, rounding after each). Over every dim the full sum's
        # order, each thread's part rounded (_sum_all).
        if a.ndim and len(dims) == a.ndim:
            total = _sum_all(a, None)
            if total.dtype == np.float16:
                return total.reshape((1,) * a.ndim) if keepdim else total
        run = sorted(d % a.ndim for d in dims)
        if a.flags.c_contiguous and run and run == list(range(run[0], a.ndim)):
            # the trailing dims of a contiguous tensor: torch's float16 inner kernel (its lanes
            # add pairs of elements 8 apart, not float32's), each row's sum rounded once
            kept = a.shape[:run[0]]
            rows = a.reshape(math.prod(kept), -1).astype(np.float32)
            out = _cascade_sum.reduced_rows(rows).astype(np.float16)
            shape = kept + (1,) * len(run) if keepdim else kept
            return out.reshape(shape)
        return np.asarray(_sum_dims(a.astype(np.float32), dims, keepdim, None, ordered, True)
                          .astype(np.float16))
    if a.dtype.kind == "f" and len(dims) < a.ndim:
        perm = _cascade_sum.dense_permutation(a, dims)
        if perm is not None:  # a transposed tensor: the sum of its contiguous permutation
            inner = tuple(sorted(perm.index(d) for d in dims))
            out = _sum_dims(a.transpose(perm), inner, True, None, ordered, unlimited)
            out = np.ascontiguousarray(out.transpose(np.argsort(perm)))
            if not keepdim:
                out = out.reshape(tuple(n for d, n in enumerate(a.shape) if d not in dims))
            return out
    strided = _strided_vector_sum(a, dims, keepdim)
    if strided is not None:
        return strided
    strided = _strided_rows_sum(a, dims, keepdim)
    if strided is not None:
        return strided
    if not a.flags.c_contiguous and a.ndim > 1 and len({d % a.ndim for d in dims}) == a.ndim:
        flat = _cascade_sum.in_memory_order(a)  # every dim: the full sum's order
        if _cascade_sum.applies(flat, unlimited):
            out = _cascade_sum.total(flat)
            return out.reshape((1,) * a.ndim) if keepdim else out
    if len(dims) == 1 and _cascade_sum.applies(a, unlimited):
        out = _cascade_sum.along(a, dims[0], keepdim)
        if out is not None:
            return out
    elif dims and _cascade_sum.applies(a, unlimited) and a.flags.c_contiguous:
        # several adjacent dims of a contiguous array: torch's TensorIterator merges them into
        # one, so they add in the order of one dim (all of them: the full sum's)
        run = sorted(d % a.ndim for d in dims)
        if run == list(range(run[0], run[-1] + 1)):
            kept = a.shape[:run[0]] + a.shape[run[-1] + 1:]
            if len(run) == a.ndim:
                out = _cascade_sum.total(a)
            else:
                merged = a.reshape(a.shape[:run[0]] + (-1,) + a.shape[run[-1] + 1:])
                out = _cascade_sum.along(merged, run[0], False)
            if out is not None:
                shape = (tuple(1 if i in run else n for i, n in enumerate(a.shape)) if keepdim
                         else kept)
                return np.asarray(out).reshape(shape)
        else:
            out = _several_dims(a, run, unlimited) if ordered else None
            if out is not None:
                shape = (tuple(1 if i in run else n for i, n in enumerate(a.shape)) if keepdim
                         else tuple(n for i, n in enumerate(a.shape) if i not in run))
                return out.reshape(shape)
    return a.sum(axis=dims, keepdims=keepdim, dtype=out_dtype)


_ORDERED_LIMIT = 1 << 16  # elements (as the 2-norm's lane order, reductions_stats.py)


def _several_dims(a: np.ndarray, dims: list, unlimited: bool = False):
    """Sum over non-adjacent ``dims`` in torch's order (``_cascade_sum.several``); size-1
    dimensions are dropped first, as TensorIterator does. None when that leaves one run of
    reduced dims or none (the callers' NumPy sum), and for more than ``_ORDERED_LIMIT``
    elements unless ``backends.cpu.torch_bits``: the ordered sum costs several NumPy passes
    (BatchNorm2d's backward, whose own formula is not torch's kernel anyway, took 45% longer
    on a 32x16x14x14 input with it)."""
    if 0 in a.shape or (a.size > _ORDERED_LIMIT and not (_cpu.torch_bits or unlimited)):
        return None
    keep = [i for i, n in enumerate(a.shape) if n != 1]
    squeezed = a.reshape([a.shape[i] for i in keep])
    dims = [keep.index(d) for d in dims if a.shape[d] != 1]
    if not dims:
        return None
    if len(dims) == squeezed.ndim:
        return _cascade_sum.total(squeezed)
    if dims == list(range(dims[0], dims[-1] + 1)):
        merged = squeezed.reshape(squeezed.shape[:dims[0]] + (-1,) + squeezed.shape[dims[-1] + 1:])
        return _cascade_sum.along(merged, dims[0], False)
    return _cascade_sum.several(squeezed, dims)


def _expand_back(grad, shape: tuple, dims: tuple, keepdim: bool, whole: bool = False):
    """Undo a reduction's shape change on ``grad``, then broadcast it to ``shape``.

    ``whole``: the call named no dims (dim=None given, or () / []): torch's sum_backward
    then expands the gradient as it is (no UnsqueezeBackward0 nodes under create_graph)."""
    if not keepdim and not (whole and len(dims) == len(shape)):
        for d in dims:  # dims are sorted, so each unsqueeze lands in place
            grad = grad.unsqueeze(d)
    return grad.expand(shape)


@register
class Sum(Op):
    node = "SumBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_kernel = staticmethod(_uint.only_with_dtype("sum_cpu"))
    complex_ok = True
    vmap = batch.reduce_all("SumDim")
    torch_names = ("sum",)
    bfloat16_finish = staticmethod(_bfloat16_total)

    @staticmethod
    def forward(ctx, a, dtype=None):
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        return _sum_all(a, dtype)

    def backward(self, grad):
        return grad.expand(self.input_shape())

    jvp = auto_linear


def _bfloat16_sum_dims(out, operands, params):
    """``bfloat16_finish`` of a sum over every dim given as dims: the full sum's."""
    a = operands[0]
    if a.__class__ is not np.ndarray or not a.ndim or len(params["dim"]) != a.ndim:
        return out
    total = _bfloat16_total(out, operands, params)
    return total.reshape((1,) * a.ndim) if params.get("keepdim") else total


@register
class SumDim(Op):
    node = "SumBackward1"
    inference_writes = 1  # Note: kernels' writes on inference operands
    bfloat16_finish = staticmethod(_bfloat16_sum_dims)
    uint_kernel = staticmethod(_uint.only_with_dtype("sum_cpu"))
    complex_ok = True
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("sum",)

    @staticmethod
    def forward(ctx, a, dim, keepdim=False, dtype=None, ordered=True, whole=False):
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        return _layout.contiguous(_sum_dims(a, dim, keepdim, dtype, ordered))

    def backward(self, grad):
        params = self._params
        return _expand_back(grad, self.input_shape(), params["dim"], params["keepdim"],
                            params.get("whole", False))

    jvp = auto_linear


def _mean_check(a: np.ndarray, dtype, name: str = "mean") -> None:
    if dtype is None and a.dtype.kind not in "fc":
        legacy = _dtype.from_numpy_dtype(a.dtype)._legacy
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {legacy}"
        )
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Optional dtype must be either a floating "
            f"point or complex dtype. Got: {dtype._legacy}"
        )


def _mean_all(a: np.ndarray, unlimited: bool = False) -> np.ndarray:
    """The mean of a non-empty ``a``: torch divides its sum by the count."""
    if not a.flags.c_contiguous:
        a = _cascade_sum.in_memory_order(a)
        if a.dtype.kind == "f" and unlimited and not (a.ndim == 1 or a.flags.c_contiguous):
            a = np.ascontiguousarray(a)  # torch's float32 copy of a non-dense float16 tensor
    if _cascade_sum.applies(a, unlimited):
        return np.asarray(_cascade_sum.total(a) / a.dtype.type(a.size))
    if _cascade_sum.strided_applies(a):
        return np.asarray(_cascade_sum.strided_total(a) / a.dtype.type(a.size))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(a.mean(dtype=a.dtype))


def _bfloat16_mean(out, operands, params):
    """``bfloat16_finish`` of the full mean: torch's float32 sum of the float32 copy (past
    ORDER_LIMIT too), divided by the count, rounded once."""
    a = operands[0]
    if (a.__class__ is not np.ndarray or a.size <= _cascade_sum.ORDER_LIMIT
            or params.get("dtype") is not None or out.__class__ is not np.ndarray):
        return out
    return to_bfloat16(_mean_all(a, True), False)


@register
class Mean(Op):
    node = "MeanBackward0"
    inference_writes = 2  # Note: kernels' writes on inference operands
    uint_ok = True  # the forward raises torch's own error for uint16/32/64
    complex_ok = True
    vmap = batch.reduce_all("MeanDim")
    torch_names = ("mean",)
    bfloat16_finish = staticmethod(_bfloat16_mean)

    @staticmethod
    def forward(ctx, a, dtype=None):
        _mean_check(a, dtype)
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
            ctx.keep("self_sym_numel", a.size)
        if dtype is not None:
            a = a.astype(dtype.np)
        if a.size == 0:  # torch's 0 / 0 (its sign bit), without NumPy's "Mean of empty slice"
            with np.errstate(invalid="ignore"):
                return np.divide(np.zeros((), a.dtype), a.dtype.type(0))
        if a.dtype == np.float16:  # Note: float16 sums and means
            return np.asarray(_mean_all(a.astype(np.float32), True).astype(np.float16))
        return _mean_all(a)

    def backward(self, grad):
        shape = self.input_shape()
        return OPS["DivScalar"].apply(grad.expand(shape), other=int(np.prod(shape)))

    jvp = auto_linear


def _bfloat16_mean_dims(out, operands, params):
    """``bfloat16_finish`` of a mean over dims: torch's float32 order past ORDER_LIMIT too."""
    a = operands[0]
    if (a.__class__ is not np.ndarray or a.size <= _cascade_sum.ORDER_LIMIT
            or params.get("dtype") is not None or out.__class__ is not np.ndarray):
        return out
    return to_bfloat16(_mean_dims(a, params["dim"], params.get("keepdim", False),
                                  params.get("ordered", True), True), out.ndim > 0)


@register
class MeanDim(Op):
    node = "MeanBackward1"
    inference_writes = 2  # Note: kernels' writes on inference operands
    bfloat16_finish = staticmethod(_bfloat16_mean_dims)
    uint_ok = True  # the forward raises torch's own error for uint16/32/64
    complex_ok = True
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("mean",)

    @staticmethod
    def forward(ctx, a, dim, keepdim=False, dtype=None, ordered=True, whole=False):
        _mean_check(a, dtype)
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
            ctx.keep("self_sym_numel", a.size)  # (torch's node keeps it: grad_fn._saved_...)
        if dtype is not None:
            a = a.astype(dtype.np)
        if a.dtype == np.float16 and a.size:  # Note: float16 sums and means
            return np.asarray(_mean_dims(a.astype(np.float32), dim, keepdim, ordered, True)
                              .astype(np.float16))
        return _mean_dims(a, dim, keepdim, ordered, False)

    def backward(self, grad):
        params = self._params
        shape = self.input_shape()
        count = 1
        for d in params["dim"]:
            count *= shape[d]
        expanded = _expand_back(grad, shape, params["dim"], params["keepdim"],
                                params.get("whole", False))
        return OPS["DivScalar"].apply(expanded, other=count)

    jvp = auto_linear


def _mean_dims(a: np.ndarray, dim: tuple, keepdim: bool, ordered: bool, unlimited: bool):
    """The mean over ``dim``: torch divides its sum by the count."""
    if len(dim) == 1 and _cascade_sum.applies(a, unlimited):
        total = _cascade_sum.along(a, dim[0], keepdim)
        if total is not None:
            return total / a.dtype.type(a.shape[dim[0]])
    elif dim and a.size and a.dtype.kind == "f" and (
            _cascade_sum.applies(a, unlimited)
            or _cascade_sum.dense_permutation(a, dim) is not None):
        count = 1
        for d in dim:
            count *= a.shape[d]
        return _layout.contiguous(np.asarray(
            _sum_dims(a, tuple(dim), keepdim, None, ordered, unlimited) / a.dtype.type(count)))
    strided = _strided_vector_sum(a, tuple(dim), keepdim) if dim else None
    if strided is not None:
        return np.asarray(strided / a.dtype.type(a.size))
    strided = _strided_rows_sum(a, tuple(dim), keepdim) if dim else None
    if strided is not None:
        return np.asarray(strided / a.dtype.type(math.prod(a.shape[d] for d in dim)))
    with np.errstate(invalid="ignore", divide="ignore"):
        if a.size == 0:  # no NumPy "Mean of empty slice" warning; sum / 0 is nan or 0-size
            total = a.sum(axis=dim, keepdims=keepdim, dtype=a.dtype)
            count = int(np.prod([a.shape[d] for d in np.atleast_1d(dim)])) if dim is not None \
                else a.size
            return _layout.contiguous(np.asarray(total / a.dtype.type(count)))
        return _layout.contiguous(a.mean(axis=dim, keepdims=keepdim, dtype=a.dtype))


def sum(tensor, dim=None, keepdim=False, dtype=None):  # noqa: A001 - torch's name
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("sum", keepdim)
    if dtype is not None:
        dtype = as_dtype(dtype)  # Note: Python types as dtypes
    if dim is None:
        if keepdim:  # (torch's sum.dim_IntList with no dim: every dim, kept as size 1)
            return SumDim.apply(tensor, dim=tuple(range(tensor.ndim)), keepdim=True,
                                 dtype=dtype, whole=True)
        return Sum.apply(tensor, dtype=dtype)
    dims = reduce_dims(dim, tensor.ndim)
    if not dims or tensor.ndim == 0:  # dim=() or []: torch's dim_IntList reduces every dim
        return SumDim.apply(tensor, dim=tuple(range(tensor.ndim)), keepdim=keepdim,
                            dtype=dtype, whole=True)
    return SumDim.apply(tensor, dim=dims, keepdim=keepdim, dtype=dtype)


# Note: statistics in NumPy's order
# A sum over non-adjacent dims ((0, 2, 3) of an (N, C, H, W) array) adds in torch's order
# (_cascade_sum.several) for torch's own reductions: several NumPy passes, ~7x NumPy's sum on
# a 32x16x8x8 array. The normalisations' backward formulas (norm.py) sum over exactly such
# dims, eight times per BatchNorm2d layer, but torch computes those sums inside its batch-norm
# kernel, in yet another order, so the ordered sums buy no bits there (measured on five
# shapes, train and eval: 0-72% of the gradients equal torch's with either order, neither
# ahead). They pass ``ordered=False``, NumPy's order: a recorded parameter, so a backward
# under create_graph and a leafgrad.compile replay give the same bits as a plain one.

def stat_sum(tensor, dims: tuple, keepdim: bool = False):
    """``tensor.sum(dims, keepdim)`` (sorted non-negative ``dims``) in NumPy's order."""
    return SumDim.apply(tensor, dim=dims, keepdim=keepdim, ordered=False)


def stat_mean(tensor, dims: tuple, keepdim: bool = False):
    """``tensor.mean(dims, keepdim)`` (sorted non-negative ``dims``) in NumPy's order."""
    return MeanDim.apply(tensor, dim=dims, keepdim=keepdim, ordered=False)


def mean(tensor, dim=None, keepdim=False, dtype=None):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("mean", keepdim)
    if dtype is not None:
        dtype = as_dtype(dtype)  # Note: Python types as dtypes
    if dim is None:
        if keepdim:  # (torch's mean.dim_IntList with no dim: every dim, kept as size 1)
            return MeanDim.apply(tensor, dim=tuple(range(tensor.ndim)), keepdim=True,
                                 dtype=dtype, whole=True)
        return Mean.apply(tensor, dtype=dtype)
    dims = reduce_dims(dim, tensor.ndim)
    if not dims or tensor.ndim == 0:  # dim=() or []: torch's dim_IntList reduces every dim
        return MeanDim.apply(tensor, dim=tuple(range(tensor.ndim)), keepdim=keepdim,
                            dtype=dtype, whole=True)
    return MeanDim.apply(tensor, dim=dims, keepdim=keepdim, dtype=dtype)
