"""Extrema: max/min (of everything, along a dim with indices, or of two tensors), amax/amin,
argmax/argmin. Ties: max()/amax share the gradient evenly among equal values; max(dim) picks
the first extremum's index (a NaN wins), as torch's CPU kernels do."""

from __future__ import annotations

import numpy as np

from .. import _argparse
from ..tensor import Tensor, _wrap
from . import _layout, return_types
from .reductions import (
    MultiOutput, all_dims, check_nonempty, constant, dims_of, evenly_distribute,
    evenly_read_jvp, gather_at_indices, one_dim, select_backward,
)
from . import _batching_rules as batch
from . import _uint
from .registry import Op, array_kernel, register
from . import _inference_writes as _writes


# -- max / min ------------------------------------------------------------------------------------


# Note: the NaN of a whole-tensor max/min
# torch's max()/min()/aminmax() over every element (its all-reduce kernel) builds a NaN result
# by OR-ing a comparison mask into it: all bits set for float32/float64 (0xFE00 for float16,
# through its float conversion), whatever NaN the input held, once it has two elements or
# more. bfloat16 (rounded from float32 on a 0-d result) and the dim forms keep the input's NaN.
_ALL_ONES_NAN = {np.dtype(np.float32): np.uint32(0xFFFFFFFF),
                 np.dtype(np.float64): np.uint64(0xFFFFFFFFFFFFFFFF),
                 np.dtype(np.float16): np.uint16(0xFE00)}


def whole_reduce_nan(result: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``result`` of a whole-tensor max/min of ``a`` with torch's NaN bits (see Note: the NaN
    of a whole-tensor max/min)."""
    bits = _ALL_ONES_NAN.get(result.dtype)
    if bits is None or a.size < 2 or not np.isnan(result).any():
        return result
    result = np.array(result, copy=True)
    result.view(bits.dtype)[np.isnan(result)] = bits
    return result


class _ExtremumAll(Op):
    """max() / min() of every element; ties (or NaNs) share the gradient evenly."""

    saves = {"self": ("self",), "result": ("self",)}
    fname = ""
    reduce = None

    @classmethod
    def forward(cls, ctx, a):
        check_nonempty(cls.fname, a, None)
        return whole_reduce_nan(np.asarray(cls.reduce(a)), a)

    def backward(self, grad):
        return evenly_distribute(grad, self.saved("self"), self.saved("result"))

    def jvp(self, tangents, primals, result):
        return evenly_read_jvp(tangents[0], primals[0], result)


@register
class MaxAll(_ExtremumAll):
    node = "MaxBackward1"
    inference_writes = 1  # Note: kernels' writes on inference operands
    complex_message = '"max_all" not implemented for \'ComplexFloat\''
    vmap = batch.reduce_all("Amax")
    torch_names = ("max",)
    fname = "max"
    reduce = staticmethod(np.max)


@register
class MinAll(_ExtremumAll):
    node = "MinBackward1"
    inference_writes = 1  # Note: kernels' writes on inference operands
    complex_message = '"min_all" not implemented for \'ComplexFloat\''
    vmap = batch.reduce_all("Amin")
    torch_names = ("min",)
    fname = "min"
    reduce = staticmethod(np.min)


class _ExtremumDim(MultiOutput):
    """max(dim) / min(dim): values and the index of the first extremum (a NaN wins), as torch."""

    saves = {"indices": ("self",)}
    fname = ""
    arg = None

    @classmethod
    def forward(cls, ctx, a, dim, keepdim=False):
        if a.ndim == 0:
            values, indices = a.copy(), np.zeros((), np.int64)
        else:
            check_nonempty(cls.fname, a, (dim,))
            indices = cls.arg(a, axis=dim, keepdims=True).astype(np.int64)
            values = np.take_along_axis(a, indices, dim)
            if not keepdim:
                values, indices = values.squeeze(dim), indices.squeeze(dim)
            values, indices = _layout.contiguous(values), _layout.contiguous(indices)
        if ctx is not None:
            ctx.keep("indices", indices)
        return values, indices

    def backward(self, grads):
        if grads[0] is None:
            return None
        params = self._params
        return select_backward(grads[0], params["dim"], self.saved("indices"),
                               self.input_shape(), params["keepdim"])

    def jvp(self, tangents, primals, result):
        # torch's gather_with_keepdimed_indices: the tangent at the selected index
        return gather_at_indices(tangents[0], self._params["dim"], result[1]._data,
                                 self._params["keepdim"]), None


@register
class MaxDim(_ExtremumDim):
    node = "MaxBackward0"
    inference_writes = staticmethod(_writes.values_and_indices)
    uint_kernel = staticmethod(_uint.unless_trivial("max_cpu"))
    complex_message = 'max(): does not support complex input'
    complex_error_type = "RuntimeError"
    vmap = batch.dims("dim")
    torch_names = ("max",)
    fname = "max"
    arg = staticmethod(np.argmax)


@register
class MinDim(_ExtremumDim):
    node = "MinBackward0"
    inference_writes = staticmethod(_writes.values_and_indices)
    complex_message = 'min(): does not support complex input'
    complex_error_type = "RuntimeError"
    vmap = batch.dims("dim")
    torch_names = ("min",)
    fname = "min"
    arg = staticmethod(np.argmin)


def _binary_extremum(name: str, a, b):
    """torch.max(a, b) is torch.maximum(a, b) (MaximumBackward0): the math topic's op."""
    method = getattr(a, "maximum" if name == "max" else "minimum", None)
    if method is None:
        raise NotImplementedError(f"{name}(input, other) needs Tensor.{name}imum")
    return method(b)


def _extremum(name: str, all_op, dim_op, tensor, dim, keepdim, other):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim(name, keepdim)
    if other is not None:
        return _binary_extremum(name, tensor, other)
    if isinstance(dim, Tensor):
        return _binary_extremum(name, tensor, dim)
    if dim is None:
        return all_op.apply(tensor)
    if isinstance(dim, (tuple, list)):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, "
            f"{type(dim).__name__}), but expected one of:"
        )
    values, indices = dim_op.apply(tensor, dim=one_dim(dim, tensor.ndim, name), keepdim=keepdim)
    return getattr(return_types, name)((values, indices))


def reduce_max(tensor, dim=None, keepdim=False, other=None):
    """``torch.max``: of everything, along ``dim`` (values, indices), or of two tensors."""
    return _extremum("max", MaxAll, MaxDim, tensor, dim, keepdim, other)


def reduce_min(tensor, dim=None, keepdim=False, other=None):
    """``torch.min``: of everything, along ``dim`` (values, indices), or of two tensors."""
    return _extremum("min", MinAll, MinDim, tensor, dim, keepdim, other)


# -- amax / amin ----------------------------------------------------------------------------------


class _Amax(Op):
    """amax/amin over dims (all when none given); ties share the gradient evenly."""

    saves = {"self": ("self",), "result": ("self",)}
    fname = ""
    reduce = None

    @classmethod
    def forward(cls, ctx, a, dim, keepdim=False, restored=0):
        return _layout.contiguous(cls.reduce(a, axis=dim, keepdims=keepdim))

    def backward(self, grad):
        # torch's scale_grad_by_count: (grad / count) * mask, with count and mask constants.
        dims, keepdim = self._params["dim"], self._params["keepdim"]
        restored = self._params.get("restored", 0)
        if restored and not self.input_shape(0):  # (a batched one under vmap is not 0-d)
            # a 0-d input with dims named: torch's restore_reduced_dims gives the gradient a
            # size-1 dim per name (a reshape), and the engine sums it back to 0-d
            # (SumBackward0): a -0. gradient becomes +0. (generated-program seed 207114)
            count, mask = array_kernel(_ties_and_count, self.saved("self")._data,
                                       self.saved("result")._data, dims=dims, keepdim=True,
                                       dtype=grad._data.dtype)
            scaled = (grad.reshape((1,) * restored) / _wrap(count)) * _wrap(mask)
            return scaled.sum()
        if not keepdim:
            # torch's restore_reduced_dims: a reshape (ViewBackward0 under create_graph, where
            # an unsqueeze would record UnsqueezeBackward0; generated-program seed 46534)
            shape = list(self.input_shape(0))
            for d in dims:
                shape[d] = 1
            grad = grad.reshape(tuple(shape))
        # one kernel (leafgrad.compile replays it): Note: masks as kernels in activation.py
        count, mask = array_kernel(_ties_and_count, self.saved("self")._data,
                                   self.saved("result")._data, dims=dims, keepdim=keepdim,
                                   dtype=grad._data.dtype)
        return (grad / _wrap(count)) * _wrap(mask)

    def jvp(self, tangents, primals, result):
        # torch's amaxamin_jvp: the mean of the tangent over the extremal entries
        dims, keepdim = self._params["dim"], self._params["keepdim"]
        extremum = result._data if keepdim else np.expand_dims(result._data, dims)
        mask = constant(primals[0]._data == extremum, tangents[0])
        return (tangents[0] * mask).sum(dims, keepdim=keepdim) / mask.sum(dims, keepdim=keepdim)


def _ties_and_count(a, result, dims, keepdim, dtype):
    """amax/amin's backward constants: the count of extremal entries per reduced slice and
    their mask, in the gradient's dtype."""
    if not keepdim:
        result = np.expand_dims(result, dims)
    mask = result == a
    count = mask.sum(axis=dims, keepdims=True)
    return np.asarray(count, dtype=dtype), np.asarray(mask, dtype=dtype)


@register
class Amax(_Amax):
    node = "AmaxBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_kernel = staticmethod(_uint.unless_trivial("max_values_cpu", zero_d=False))
    complex_message = '"max_values_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("amax",)
    fname = "amax"
    reduce = staticmethod(np.amax)


@register
class Amin(_Amax):
    node = "AminBackward0"
    inference_writes = staticmethod(_writes.floating_only)
    complex_message = '"min_values_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("amin",)
    fname = "amin"
    reduce = staticmethod(np.amin)


def _amax_dims(name: str, tensor, dim) -> tuple:
    dims = dims_of(dim, tensor.ndim) or None  # () and None: every dim
    if dims and not tensor._data.size:  # torch names an empty dim as it was given (-1)
        given = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        for shown in given:  # (dims_of checked them)
            if tensor._data.shape[shown] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {shown} to have non-zero "
                                 "size.")
    check_nonempty(name, tensor._data, dims)
    return all_dims(dims, tensor.ndim)


def _restored(tensor, dim, keepdim) -> dict:
    """For a 0-d input with dims named (and not kept): how many size-1 dims torch's backward
    restores (see _Amax.backward)."""
    if tensor.ndim or keepdim or dim is None:
        return {}
    count = 1 if isinstance(dim, (int, np.integer)) else len(dim)
    return {"restored": count} if count else {}


def amax(tensor, dim=(), keepdim=False):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("amax", keepdim)
    return Amax.apply(tensor, dim=_amax_dims("amax", tensor, dim), keepdim=keepdim,
                      **_restored(tensor, dim, keepdim))


def amin(tensor, dim=(), keepdim=False):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("amin", keepdim)
    return Amin.apply(tensor, dim=_amax_dims("amin", tensor, dim), keepdim=keepdim,
                      **_restored(tensor, dim, keepdim))


# -- argmax / argmin ------------------------------------------------------------------------------


class _ArgExtremum(Op):
    """Index of the first maximum/minimum (a NaN wins); int64 and never differentiable."""

    differentiable = False
    fname = ""
    arg = None

    @classmethod
    def forward(cls, ctx, a, dim=None, keepdim=False):
        if a.dtype == np.bool_:
            raise RuntimeError(f"{cls.fname}(): does not support bool input")
        if dim is None:
            check_nonempty(cls.fname, a, None, error=IndexError, hint=False)
            out = np.asarray(cls.arg(a), dtype=np.int64)
            return out.reshape((1,) * a.ndim) if keepdim else out
        if a.ndim == 0:
            return np.zeros((), np.int64)
        check_nonempty(cls.fname, a, (dim,), error=IndexError, hint=False)
        return _layout.contiguous(cls.arg(a, axis=dim, keepdims=keepdim).astype(np.int64))


@register
class Argmax(_ArgExtremum):
    node = "ArgmaxBackward0"  # never recorded: the output is an integer tensor
    complex_message = "argmax(): does not support complex input"
    complex_error_type = "RuntimeError"
    vmap = batch.dims("dim", none=batch.reduce_all("Argmax"))
    torch_names = ("argmax",)
    fname = "argmax"
    arg = staticmethod(np.argmax)


@register
class Argmin(_ArgExtremum):
    node = "ArgminBackward0"
    complex_message = 'argmin(): does not support complex input'
    complex_error_type = "RuntimeError"
    vmap = batch.dims("dim", none=batch.reduce_all("Argmin"))
    torch_names = ("argmin",)
    fname = "argmin"
    arg = staticmethod(np.argmin)


def argmax(tensor, dim=None, keepdim=False):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("argmax", keepdim)
    if dim is not None:
        dim = one_dim(dim, tensor.ndim, "argmax")
    return Argmax.apply(tensor, dim=dim, keepdim=keepdim)


def argmin(tensor, dim=None, keepdim=False):
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim("argmin", keepdim)
    if dim is not None:
        dim = one_dim(dim, tensor.ndim, "argmin")
    return Argmin.apply(tensor, dim=dim, keepdim=keepdim)
