"""Reductions beyond sum and mean: prod, logsumexp, nansum/nanmean, all/any, count_nonzero, and
the helpers the other reductions modules share.

Extrema (max/min, amax/amin, argmax/argmin) live in reductions_extrema.py, statistics (var, std,
vector norms) in reductions_stats.py, scans (cumsum, cumprod) in reductions_scan.py and the
order-based ops (sort, topk, median, mode, kthvalue) in reductions_order.py; this module's
``__all__`` gathers all of them for ``leafgrad.ops``.

Note: dims. Functions here take torch's ``dim`` (None, an int, or a tuple/list of ints, possibly
negative) and pass ops a sorted tuple of wrapped dims (``reduce.reduce_dims``). For a 0-d
tensor a valid dim (0 or -1) reduces nothing, so ops get ``()``.
"""

from __future__ import annotations

import numpy as np

from .. import _argparse
from .. import _dtype
from .._dtype import as_dtype
from ._bfloat16 import to_bfloat16
from ..tensor import Tensor, _wrap, _wrap_dim
from . import _float_kernels, _layout, return_types
from ._forward import logsumexp_jvp
from .elementwise import Div
from .gather import MaskedFillTensor, Scatter
from .reduce import (_bfloat16_total, _expand_back, _mean_check, _strided_vector_sum, _sum_all,
                     _sum_dims, _sum_dtype, reduce_dims)
from . import _batching_rules as batch
from . import _uint
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from .registry import Op, array_kernel, plain_backward, register, zeros_of
from .gather import Gather
from .._dtype import from_numpy_dtype, get_default_dtype

# -- shared helpers (also used by the other reductions_* modules) ---------------------------------


def dims_of(dim, ndim: int):
    """torch's ``dim`` argument as None (every dim) or a sorted tuple of wrapped dims."""
    if dim is None:
        return None
    dims = reduce_dims(dim, ndim)
    return () if ndim == 0 else dims


def all_dims(dims, ndim: int) -> tuple:
    return tuple(range(ndim)) if dims is None else dims


def one_dim(dim, ndim: int, name: str) -> int:
    """A single ``dim`` argument (ops such as max(dim) take exactly one int)."""
    if dim.__class__ is not int:
        dim = _argparse.int_arg(name, "dim", dim, 2)
    return _wrap_dim(dim, ndim)


def check_nonempty(name: str, a: np.ndarray, dims, error=RuntimeError, hint: bool = True) -> None:
    """torch's errors for reducing an empty tensor (or an empty dim) without an identity."""
    if a.size:
        return
    if dims is None or (len(dims) == 0 and a.ndim > 0):
        message = f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
        if hint:
            message += " Specify the reduction dim with the 'dim' argument."
        raise error(message)
    for d in dims:
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def unsqueeze_dims(grad: Tensor, dims: tuple) -> Tensor:
    for d in dims:  # sorted, so each lands in place
        grad = grad.unsqueeze(d)
    return grad


def gather_at_indices(tangent: Tensor, dim: int, indices: np.ndarray, keepdim: bool) -> Tensor:
    """torch's ``gather_with_keepdimed_indices``: the entries of ``tangent`` a values-and-indices
    reduction selected (the forward-mode formula of max(dim), sort, topk, median...)."""
    if tangent.ndim == 0:
        return tangent * 1
    if not keepdim:
        indices = np.expand_dims(indices, dim)
    out = Gather.apply(tangent, dim=dim, index=indices)
    return out if keepdim else out.squeeze(dim)


def constant(array: np.ndarray, like: Tensor) -> Tensor:
    """A tensor that never requires grad, in ``like``'s dtype (masks and counts in formulas)."""
    return _wrap(np.asarray(array, dtype=like._data.dtype))


def select_backward(grad: Tensor, dim: int, indices: np.ndarray, shape: tuple,
                    keepdim: bool) -> Tensor:
    """torch's ``value_selecting_reduction_backward``: grad goes to the selected positions."""
    # a 0-d input is scattered too, its indices and grad as they are (torch records a
    # ScatterBackward0 there: generated-program seed 41876, max(dim) of a 0-d tensor)
    if not keepdim and len(shape):
        grad = grad.unsqueeze(dim)
        # a kernel: leafgrad.compile sees the view of the kept indices (Note: masks as kernels
        # in activation.py)
        indices = array_kernel(np.expand_dims, indices, dim)
    result = Scatter.apply(grad.new_zeros(shape), grad, dim=dim, index=indices)
    # torch's zeros(...).scatter_(...) leaves the gradient at _version 2 (its scatter_ with a
    # tensor source counts twice), as measured on max/sort/topk/kthvalue/median/cummax
    result._bump_version()
    result._bump_version()
    return result


class MultiOutput(Op):
    """Base of the topic's multi-output ops (Op.apply wraps each output on its own)."""

    multi_output = True


def evenly_distribute(grad: Tensor, self: Tensor, value: Tensor) -> Tensor:
    """torch's ``evenly_distribute_backward``: ties (or NaNs, if the value is NaN) share grad."""
    # the ties, their count and the rest are kernels, so leafgrad.compile recomputes them on
    # every replay (dividing by the count as a 0-d array of grad's dtype: the bits of dividing
    # by the Python int)
    # torch's CPU steps: grad.new_zeros(sizes).masked_fill_(ties, grad / ties.sum()), so a
    # create_graph gradient's node is MaskedFillBackward1 with an edge for the zeros (None)
    others = array_kernel(_not_ties, self._data, value._data)
    count = array_kernel(_tie_count, others, dtype=grad._data.dtype)
    ties = array_kernel(np.logical_not, others)
    zeros = _wrap(array_kernel(zeros_of, grad._data, shape=self._data.shape))
    result = MaskedFillTensor.apply(zeros, grad / _wrap(count), mask=ties)
    result._bump_version()  # (the masked_fill_ into the zeros: _version 1, as torch's)
    return result


def _not_ties(data: np.ndarray, result: np.ndarray) -> np.ndarray:
    """The entries not equal to the extremum (not NaN, if the extremum is NaN)."""
    if result.dtype.kind == "f" and np.isnan(result):
        return ~np.isnan(data)
    return ~(data == result)


def _tie_count(others: np.ndarray, dtype) -> np.ndarray:
    return np.asarray(int(others.size - others.sum()), dtype=dtype)


def evenly_read_jvp(tangent: Tensor, self: Tensor, value: Tensor) -> Tensor:
    """torch's ``evenly_read_jvp``: the mean of the tangent over the entries equal to the value
    (the forward-mode formula of max(), min(), median())."""
    mask = constant(self._data == value._data, tangent)
    return (mask * (tangent / mask.sum())).sum()


# -- prod -----------------------------------------------------------------------------------------


def _prod_safe_zeros(grad: Tensor, a: Tensor, dim: int) -> Tensor:
    """d prod / d a_i as the product of the others: exclusive cumprods from both ends.

    No division, so it is right with zeros in ``a`` and differentiable again (torch's
    ``prod_safe_zeros_backward``).
    """
    from . import cat, flip, narrow
    from .reductions_scan import Cumprod

    size = a.shape[dim]
    if a.numel() == 0:
        return grad.expand(a.shape)
    if size == 1:  # the product of no others: torch returns the gradient itself (seed 68000)
        return grad
    ones_shape = list(a.shape)
    ones_shape[dim] = 1
    ones = constant(np.ones(ones_shape), grad)
    before = cat([ones, narrow(a, dim, 0, size - 1)], dim)
    after = cat([ones, flip(narrow(a, dim, 1, size - 1), (dim,))], dim)
    exclusive_before = Cumprod.apply(before, dim=dim)
    exclusive_after = flip(Cumprod.apply(after, dim=dim), (dim,))
    return grad * (exclusive_before * exclusive_after)


@register
class Prod(Op):
    node = "ProdBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_kernel = staticmethod(_uint.only_with_dtype("prod_out_cpu"))
    complex_ok = True
    vmap = batch.reduce_all("ProdDim")
    backward_reads_values = True  # its backward branches on the input's values
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("prod",)

    @staticmethod
    def forward(ctx, a, dtype=None):
        return np.asarray(np.prod(a, dtype=_sum_dtype(a, dtype)))

    def backward(self, grad):
        a = self.saved("self")
        if a.ndim == 0:
            return grad
        if a.dtype != grad.dtype:
            a = a.to(grad.dtype)
        zeros = int(np.count_nonzero(a._data == 0))
        if zeros == 0:
            return grad * conj(self.saved("result") / a)
        if zeros > 1 and plain_backward():
            return grad.new_zeros(a.shape)  # every partial product contains a zero
        return _prod_safe_zeros(grad, conj(a).reshape(-1), 0).view(a.shape)

    def jvp(self, tangents, primals, result):
        # torch: (prod_backward(ones_like(result), self_p, result) * self_t).sum()
        return (self.backward(_ones_like(result)) * tangents[0]).sum()


@register
class ProdDim(Op):
    node = "ProdBackward1"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_kernel = staticmethod(_uint.only_with_dtype("prod_out_cpu"))
    complex_ok = True
    vmap = batch.dims("dim")
    backward_reads_values = True  # its backward branches on the input's values
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("prod",)

    # torch's float16/bfloat16 prod over a dim multiplies in the dtype, each product rounded
    # (no float accumulator): the bfloat16 forward sees its bfloat16 array
    bfloat16_native = True

    @staticmethod
    def forward(ctx, a, dim, keepdim=False, dtype=None):
        bf16 = _dtype._bfloat16_np
        if a.dtype == bf16 and dtype is not None:  # (another dtype asked for: in float32)
            wide = np.prod(a.astype(np.float32), axis=dim if a.ndim else None,
                           keepdims=keepdim and a.ndim > 0,
                           dtype=np.float32 if dtype.np == bf16 else dtype.np)
            return _layout.contiguous(to_bfloat16(wide) if dtype.np == bf16 else np.asarray(wide))
        if a.ndim == 0:
            return np.array(a, dtype=_sum_dtype(a, dtype) or a.dtype)
        if dtype is None and (a.dtype == np.float16 or a.dtype == bf16) and a.shape[dim]:
            # NumPy's reduce carries a float16 product in float32; accumulate rounds each step
            out = np.multiply.accumulate(a, axis=dim).take([-1], axis=dim)
            return _layout.contiguous(out if keepdim else out.squeeze(dim))
        return _layout.contiguous(np.prod(a, axis=dim, keepdims=keepdim,
                                          dtype=_sum_dtype(a, dtype)))

    def backward(self, grad):
        a = self.saved("self")
        if a.ndim == 0:
            return grad
        if a.dtype != grad.dtype:
            a = a.to(grad.dtype)
        dim, result = self._params["dim"], self.saved("result")
        if not self._params["keepdim"]:
            grad, result = grad.unsqueeze(dim), result.unsqueeze(dim)
        if not np.any(a._data == 0):
            return grad * conj(result / a)
        return _prod_safe_zeros(grad, conj(a), dim)

    def jvp(self, tangents, primals, result):
        # torch: (prod_backward(ones_like(result), self_p, result, dim, keepdim) * self_t)
        #        .sum(dim, keepdim)
        if primals[0].ndim == 0:
            return tangents[0]
        p = self._params
        return (self.backward(_ones_like(result)) * tangents[0]).sum(p["dim"], keepdim=p["keepdim"])


def _ones_like(tensor: Tensor) -> Tensor:
    return _wrap(np.ones(tensor._data.shape, tensor._data.dtype))


def prod(tensor, dim=None, keepdim=False, dtype=None):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("prod", keepdim)
    dtype = as_dtype(dtype)  # Note: Python types as dtypes
    if dim is None:
        return Prod.apply(tensor, dtype=dtype)
    if isinstance(dim, (tuple, list)):
        raise TypeError(
            "prod() received an invalid combination of arguments - got (Tensor, tuple), but "
            "expected one of:"
        )
    return ProdDim.apply(tensor, dim=one_dim(dim, tensor.ndim, "prod"), keepdim=keepdim,
                         dtype=dtype)


# -- logsumexp ------------------------------------------------------------------------------------


@register
class Logsumexp(Op):
    """log(sum(exp(x))) computed stably: the max (0 where it is infinite) is factored out."""

    node = "LogsumexpBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.dims("dim")
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("logsumexp",)

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        if a.dtype.kind not in "fc":  # torch promotes integral inputs to the default float dtype

            a = a.astype(get_default_dtype().np)
        if a.size == 0:
            with np.errstate(divide="ignore"):  # log(0) = -inf: the sum over nothing
                return np.asarray(np.log(np.sum(np.exp(a), axis=dim, keepdims=keepdim)))
        # complex inputs factor out the largest real part (torch's logsumexp_out_impl)
        shift = np.amax(a.real, axis=dim, keepdims=True)
        shift = np.where(np.isinf(shift), 0, shift).astype(a.dtype)
        with np.errstate(all="ignore"):
            if a.dtype.kind == "f":
                # torch's steps and kernels: exp_ and log_ are its unary ops (MKL's vector
                # functions for float32), the sum its cascade (NumPy's own float32 exp and log
                # differ in the last bit, and so did the result: generated-program seed 24718)
                # (np.asarray: 0-d arithmetic gives NumPy scalars, which MKL cannot read)
                summed = _sum_dims(_float_kernels.exp(np.asarray(a - shift)), dim, keepdim, None)
                out = _float_kernels.log(np.asarray(summed))
                return _layout.contiguous(out + (shift if keepdim else shift.squeeze(dim)))
            out = np.log(np.sum(np.exp(a - shift), axis=dim, keepdims=True)) + shift
        return _layout.contiguous(out if keepdim else out.squeeze(dim))

    def backward(self, grad):
        dims, result = self._params["dim"], self.saved("result")
        if not self._params["keepdim"]:
            grad, result = unsqueeze_dims(grad, dims), unsqueeze_dims(result, dims)
        return grad * conj((self.saved("self") - result).exp())

    def jvp(self, tangents, primals, result):
        p = self._params
        return logsumexp_jvp(primals[0], tangents[0], p["dim"], p["keepdim"])


def logsumexp(tensor, dim, keepdim=False):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("logsumexp", keepdim)
    dims = dims_of(dim, tensor.ndim)
    if not dims and not keepdim and tensor.ndim and tensor._data.size:
        # dim=() reduces every dim into a 0-d result, which torch's kernel then refuses to
        # write its keepdim-shaped values into (an empty input takes another path)
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"[{', '.join('1' * tensor.ndim)}]")
    return Logsumexp.apply(tensor, dim=dims or all_dims(None, tensor.ndim), keepdim=keepdim)


# -- nansum / nanmean -----------------------------------------------------------------------------


def _bfloat16_nansum(out, operands, params):
    """``bfloat16_finish`` of nansum over every dim: the bfloat16 full sum's order
    (``_cascade_sum.reduced_total``) with NaNs read as 0."""
    a = operands[0]
    if (a.__class__ is not np.ndarray or not a.size or len(params["dim"]) != a.ndim
            or params.get("dtype") is not None):
        return out
    zeroed = a.copy(order="K")
    zeroed[np.isnan(zeroed)] = 0
    total = _bfloat16_total(out, [zeroed], params)
    return total.reshape((1,) * a.ndim) if params.get("keepdim") else total


_FLOAT_ACCUMULATORS = (np.dtype(np.float32), np.dtype(np.float64))


@register
class Nansum(Op):
    node = "NansumBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    bfloat16_finish = staticmethod(_bfloat16_nansum)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = 'nansum on CPU does not support complex inputs'
    complex_error_type = "RuntimeError"
    vmap = batch.dims("dim", all_dims=True)
    saves = {"self": ("self",)}
    torch_names = ("nansum", "nanmean")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False, dtype=None, whole=False):
        full = len(dim) == a.ndim
        if dtype is not None and a.dtype.kind == "f" and dtype.np in _FLOAT_ACCUMULATORS:
            # torch's kernel loads the input in the result's dtype and sums there, in the
            # order of a sum without dtype=
            a, dtype = a.astype(dtype.np), None
        if dtype is None and a.dtype.kind == "f" and a.size and (
                a.dtype != np.float16 or full and a.ndim - a.shape.count(1) <= 1
                or full and a.flags.c_contiguous):
            # the sum's order with NaNs read as 0, as torch's kernel loads them. Not float16
            # over some dims: torch's sum computes those in float32, its nansum in float16
            # (rounding as it stores each row's sum), which leafgrad does not replay.
            zeroed = a.copy(order="K")
            zeroed[np.isnan(zeroed)] = 0
            strided = _strided_vector_sum(a, tuple(dim), keepdim, zeroed)
            if strided is not None:  # (torch's scalar loop reads the strided input)
                return strided
            if full:
                out = _sum_all(zeroed, None)
                return out.reshape((1,) * a.ndim) if keepdim else out
            return _layout.contiguous(_sum_dims(zeroed, tuple(dim), keepdim, None))
        return _layout.contiguous(np.nansum(a, axis=dim, keepdims=keepdim,
                                            dtype=_sum_dtype(a, dtype)))

    def backward(self, grad):
        a = self.saved("self")
        if grad._data.dtype != a._data.dtype:  # torch: nansum_backward(grad.to(self's dtype),
            grad = grad.to(a.dtype)  # ...): the cast comes first (ToCopyBackward0 below)
        dims = all_dims(self._params["dim"], a.ndim)
        expanded = _expand_back(grad, a.shape, dims, self._params["keepdim"],
                                self._params.get("whole", False))
        return expanded * constant(~np.isnan(a._data), grad)

    def jvp(self, tangents, primals, result):
        # torch: where(self_p.isnan(), 0, self_t).sum(dim, keepdim, dtype)
        p = self._params
        kept = tangents[0]._masked_zero(primals[0].isnan())
        return kept.sum(p["dim"], keepdim=p["keepdim"], dtype=p.get("dtype"))


def nansum(tensor, dim=None, keepdim=False, dtype=None):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("nansum", keepdim)
    dtype = as_dtype(dtype)  # Note: Python types as dtypes
    if dtype is not None and dtype.is_complex and not tensor.is_complex():
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{dtype._legacy}'")
    dims = dims_of(dim, tensor.ndim)
    if not dims:  # None, () or []: every dim (torch's gradient is then expanded as it is)
        return Nansum.apply(tensor, dim=all_dims(None, tensor.ndim), keepdim=keepdim,
                            dtype=dtype, whole=True)
    return Nansum.apply(tensor, dim=dims, keepdim=keepdim, dtype=dtype)


def nanmean(tensor, dim=None, keepdim=False, dtype=None):
    """nansum divided by the count of non-NaN values (torch's composite: DivBackward0)."""
    dtype = as_dtype(dtype)  # Note: Python types as dtypes
    data = tensor._data
    if data.dtype.kind not in "fcV":  # V: bfloat16 (Note: bfloat16); nansum refuses complex

        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{from_numpy_dtype(data.dtype)._legacy}"
        )
    if dtype is not None:
        _mean_check(data, dtype, "nanmean")
    dims = dims_of(dim, tensor.ndim)
    count = np.sum(~np.isnan(data), axis=dims or all_dims(None, tensor.ndim),
                   keepdims=keepdim, dtype=np.int64)
    return Div.apply(nansum(tensor, dims, keepdim, dtype), _wrap(np.asarray(count)))


# -- all / any / count_nonzero --------------------------------------------------------------------


class _Truth(Op):
    """all/any: bool results (uint8 for uint8 inputs, as torch); ``dim=()`` reduces nothing."""

    differentiable = False
    reduce = None

    @classmethod
    def forward(cls, ctx, a, dim=None, keepdim=False):
        truth = a != 0
        if dim is None:
            out = np.asarray(cls.reduce(truth))
            if keepdim:
                out = out.reshape((1,) * a.ndim)
        else:
            out = _layout.contiguous(cls.reduce(truth, axis=dim, keepdims=keepdim))
        return out.astype(np.uint8) if a.dtype == np.uint8 else out


@register
class All(_Truth):
    node = "AllBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    complex_ok = True  # a complex number is true where either part is nonzero
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("all",)
    reduce = staticmethod(np.all)


@register
class Any(_Truth):
    node = "AnyBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    complex_ok = True  # a complex number is true where either part is nonzero
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("any",)
    reduce = staticmethod(np.any)


def reduce_all(tensor, dim=None, keepdim=False):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("all", keepdim)
    return All.apply(tensor, dim=dims_of(dim, tensor.ndim), keepdim=keepdim)


def reduce_any(tensor, dim=None, keepdim=False):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("any", keepdim)
    return Any.apply(tensor, dim=dims_of(dim, tensor.ndim), keepdim=keepdim)


@register
class CountNonzero(Op):
    node = "CountNonzeroBackward0"
    complex_ok = True  # nonzero: either part
    uint_kernel = staticmethod(_uint.count_nonzero_kernel)
    vmap = batch.dims("dim", all_dims=True)
    differentiable = False
    torch_names = ("count_nonzero",)

    @staticmethod
    def forward(ctx, a, dim=None):
        return _layout.contiguous(np.sum(a != 0, axis=dim, dtype=np.int64))


def count_nonzero(tensor, dim=None):
    dims = dims_of(dim, tensor.ndim)
    if not dims and dim is not None:  # dim=(): every dim, as torch's dim_IntList
        dims = tuple(range(tensor.ndim))
    return CountNonzero.apply(tensor, dim=dims)


# The rest of the topic; imported last because they use the helpers above.
from .reductions_extrema import (  # noqa: E402
    Amax, Amin, Argmax, Argmin, MaxAll, MaxDim, MinAll, MinDim, amax, amin, argmax, argmin,
    reduce_max, reduce_min,
)
from .reductions_scan import Cumprod, Cumsum, cumprod, cumsum  # noqa: E402
from .reductions_stats import (  # noqa: E402
    LinalgVectorNorm, Std, StdMean, Var, VarMean, std, std_mean, tensor_norm, var, var_mean,
)
from .reductions_order import (  # noqa: E402
    KthvalueOp, MedianAll, MedianDim, Mode, NanmedianAll, NanmedianDim, Sort, SortStable, Topk,
    argsort, kthvalue, median, msort, nanmedian, mode, sort, topk,
)

__all__ = [
    "Prod", "ProdDim", "MaxAll", "MinAll", "MaxDim", "MinDim", "Amax", "Amin", "Argmax",
    "Argmin", "Logsumexp", "Nansum", "All", "Any", "CountNonzero", "Cumsum", "Cumprod", "Var",
    "Std", "VarMean", "StdMean", "LinalgVectorNorm", "Sort", "SortStable", "Topk", "KthvalueOp",
    "MedianAll", "MedianDim", "NanmedianAll", "NanmedianDim", "Mode",
    "prod", "reduce_max", "reduce_min", "amax", "amin", "argmax", "argmin", "logsumexp",
    "nansum", "nanmean", "reduce_all", "reduce_any", "count_nonzero", "cumsum", "cumprod", "var",
    "std", "var_mean", "std_mean", "tensor_norm", "sort", "argsort", "msort", "topk",
    "kthvalue", "median", "nanmedian", "mode", "return_types",
]
