"""More scans along a dim: cummax/cummin (running extremum and its index) and logcumsumexp.

Note: cummax ties. torch's CPU kernel walks the dim keeping ``(value, index)`` and replaces both
when ``x >= value`` (cummin: ``x <= value``) or ``x`` is NaN; so a tie moves the index to the
later element, and after a NaN every later NaN takes the index. Equivalently, the index at ``i``
is the last ``j <= i`` whose element equals the running extremum at ``j`` (or is NaN once the
extremum is NaN), which is what ``_running_extremum`` computes without a Python loop.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as _dtype

from . import _layout, _uint
from . import _batching_rules as batch
from .reductions import MultiOutput, constant, gather_at_indices, one_dim
from .. import _argparse
from ..tensor import Tensor
from .registry import Op, register
from .reductions_scan import _SCAN_ACCUMULATOR
from .shape_ext import Flip
from . import return_types
from .._dtype import from_numpy_dtype
from .._out import _C10
from .reductions_scan import Cumprod, Cumsum
from .gather import ScatterAdd


def _running_extremum(a: np.ndarray, dim: int, accumulate) -> tuple:
    """(values, int64 indices) of the running max/min of ``a`` along ``dim`` (see Note: cummax
    ties)."""
    running = accumulate(a, axis=dim)  # NaN propagates through np.maximum/np.minimum
    hit = a == running
    floating = a.dtype.kind == "f"
    if floating and np.isnan(running.take(-1, axis=dim)).any():  # a NaN reaches the end
        hit |= np.isnan(a)
    shape = [1] * a.ndim
    shape[dim] = a.shape[dim]
    positions = np.arange(a.shape[dim], dtype=np.int64).reshape(shape)
    indices = np.maximum.accumulate(np.where(hit, positions, 0), axis=dim)
    values = running
    if floating and (running == 0).any():
        # torch's ">=" lets a later 0.0 replace -0.0 (and the reverse): read the values at the
        # indices, which NumPy's maximum does not promise
        values = np.take_along_axis(a, indices, dim)
    return _layout.contiguous(values), _layout.contiguous(indices)


class _Cumextremum(MultiOutput):
    """cummax/cummin: values and indices; the gradient adds into the selected positions
    (torch's ``cummaxmin_backward``: a scatter_add onto zeros)."""

    saves = {"self": ("self",), "indices": ("self",)}  # self: torch saves it (derivatives.yaml)
    accumulate = None

    @classmethod
    def forward(cls, ctx, a, dim):
        if a.ndim == 0:
            values, indices = a.copy(), np.zeros((), np.int64)
        elif a.size == 0:
            values, indices = a.copy(), np.zeros(a.shape, np.int64)
        else:
            values, indices = _running_extremum(a, dim, cls.accumulate)
        if ctx is not None:
            ctx.keep("indices", indices)
        return values, indices

    def backward(self, grads):
        grad = grads[0]
        if grad is None:
            return None
        shape = self.input_shape()
        if grad.numel() == 0:  # torch's cummaxmin_backward returns the (empty) input itself
            return self.saved("self")
        result = ScatterAdd.apply(grad.new_zeros(shape), grad, dim=self._params["dim"],
                                  index=self.saved("indices"))
        # torch's cummaxmin_backward writes at::zeros and then scatter_add_s into it: the
        # gradient's _version is 2 (generated-program seed 20005124)
        result._bump_version()
        result._bump_version()
        return result

    def jvp(self, tangents, primals, result):
        # the tangent at the selected index (torch: self_t.gather(dim, indices))
        if result[1].ndim == 0:
            return tangents[0] * 1, None
        return gather_at_indices(tangents[0], self._params["dim"], result[1]._data, True), None


@register
class Cummax(_Cumextremum):
    node = "CummaxBackward0"
    inference_writes = (1, 1)  # Note: kernels' writes on inference operands
    vmap = batch.dims("dim")
    torch_names = ("cummax",)
    uint_kernel = staticmethod(_uint.unless_trivial("cummax_cpu"))
    accumulate = staticmethod(np.maximum.accumulate)


@register
class Cummin(_Cumextremum):
    node = "CumminBackward0"
    inference_writes = (1, 1)  # Note: kernels' writes on inference operands
    vmap = batch.dims("dim")
    torch_names = ("cummin",)
    uint_kernel = staticmethod(_uint.unless_trivial("cummin_cpu"))
    accumulate = staticmethod(np.minimum.accumulate)


def _complex_log_add_exp(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """torch's _log_add_exp_helper for complex numbers: ordered by real part, NaNs infectious,
    two infinite real parts of one sign handled apart from log1p(exp(min - max)) + max."""
    swap = x.real < y.real
    low, high = np.where(swap, x, y), np.where(swap, y, x)
    with np.errstate(all="ignore"):
        out = np.log1p(np.exp(low - high)) + high
        both_infinite = ~np.isfinite(low.real) & (low.real == high.real)
        out = np.where(both_infinite & (low.real < 0), low, out)
        out = np.where(both_infinite & (low.real > 0), np.log(np.exp(low) + np.exp(high)), out)
    nan = np.isnan(x.real) | np.isnan(x.imag) | np.isnan(y.real) | np.isnan(y.imag)
    return np.where(nan, complex(np.nan, np.nan), out)


def _complex_logcumsumexp(a: np.ndarray, dim: int) -> np.ndarray:
    """The running log-add-exp of complex values, carried in complex128 (torch's acc type for
    complex64), one step along ``dim`` at a time (vectorised over the other dims)."""
    moved = np.moveaxis(a.astype(np.complex128), dim, 0)
    out = np.empty_like(moved)
    running = np.full(moved.shape[1:], complex(-np.inf, 0.0))
    for index in range(moved.shape[0]):
        running = _complex_log_add_exp(moved[index], running)
        out[index] = running
    return np.moveaxis(out, 0, dim).astype(a.dtype)


def _reverse_logcumsumexp(tensor, dim: int):
    flipped = Flip.apply(tensor, dims=(dim,))
    return Flip.apply(Logcumsumexp.apply(flipped, dim=dim), dims=(dim,))


@register
class Logcumsumexp(Op):
    """log(cumsum(exp(x))) without overflow: each step is log(exp(s) + exp(x)) computed as
    max + log1p(exp(min - max)), carried in float64 for float32/float16 (torch's acc type)."""

    node = "LogcumsumexpBackward0"
    complex_ok = True
    vmap = batch.dims("dim")
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("logcumsumexp",)
    uint_kernel = "logcumsumexp_out_cpu"

    @staticmethod
    def forward(ctx, a, dim):
        if a.dtype.kind not in "fc":
            name = from_numpy_dtype(a.dtype)._legacy
            raise NotImplementedError(
                f'"logcumsumexp_out_cpu" not implemented for \'{name}\'')
        if a.ndim == 0 or a.size == 0:
            return a.copy()
        if a.dtype.kind == "c":
            return _layout.contiguous(_complex_logcumsumexp(a, dim))
        wide = _SCAN_ACCUMULATOR.get(a.dtype, a.dtype)
        with np.errstate(invalid="ignore"):
            out = np.logaddexp.accumulate(a.astype(wide, copy=False), axis=dim)
        # torch's running value starts at -inf: the first step is x + log1p(0), so -0. is +0.
        # (NumPy's accumulate copies the first element)
        out += 0
        return _layout.contiguous(out.astype(a.dtype, copy=False))

    def backward(self, grad):
        # torch's logcumsumexp_backward: the positive and negative parts of grad are summed in
        # log space, so no exp(-result) overflows: grad_j = sum_{k >= j} grad_k exp(x_j - out_k)
        a, result = self.saved("self"), self.saved("result")
        if grad.ndim == 0 or grad.numel() == 0:
            return grad
        dim = self._params["dim"]
        if grad.is_complex():  # no sign split needed: the log of a complex number exists
            log_grad = grad.conj().log()
            return (_reverse_logcumsumexp(log_grad - result, dim) + a).exp().conj()
        lowest = constant(_dtype.np_finfo(grad._data.dtype).min, grad)
        log_abs = grad.abs().log()
        positive = log_abs.where(grad > 0, lowest)
        negative = log_abs.where(grad < 0, lowest)
        out_positive = (_reverse_logcumsumexp(positive - result, dim) + a).exp()
        out_negative = (_reverse_logcumsumexp(negative - result, dim) + a).exp()
        return out_positive - out_negative

    def jvp(self, tangents, primals, result):
        # torch's logcumsumexp_jvp: cumsum(t exp(x - m)) / (cumsum(exp(x - m)) + 1e-13), m the
        # max along dim; the 1e-13 makes a prefix whose exp(x - m) all underflow give 0, not 0/0
        a, tangent = primals[0], tangents[0]
        dim = self._params["dim"]
        if a.ndim == 0:
            return tangent * 1
        if a.shape[dim] == 0:  # torch's max(dim) refuses it
            raise IndexError(f"max(): Expected reduction dim {dim} to have non-zero size.")
        if a.is_complex():  # torch's complex branch skips the max shift
            shifted = a.exp()
        else:
            shifted = (a - a.amax(dim, keepdim=True).detach()).exp()
        return (shifted * tangent).cumsum(dim) / (shifted.cumsum(dim) + 1e-13)


_REQUIRED = object()  # dim has no default: torch's argument parser names it when missing


def _dim_arg(dim, tensor, name: str) -> int:
    if dim is _REQUIRED:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    if isinstance(dim, str):
        raise TypeError(f"{name}(): argument 'dim' must be int, not str")
    if isinstance(dim, Tensor) and dim.ndim == 0 and dim.dtype.name.startswith(("int", "uint")):
        dim = int(dim.item())  # torch reads a 0-d integer tensor as an int
    return one_dim(dim, tensor.ndim, name)


def _parse(name: str, args: tuple, kwargs: dict, method: bool) -> tuple:
    """(tensor, wrapped dim) of a cummax/cummin/logcumsumexp call, with the argument parser's
    TypeErrors (a method's args start with self)."""
    _argparse.check(f"Tensor.{name}" if method else name, args[1:] if method else args, kwargs)
    values = dict(zip(("input", "dim"), args))
    values.update(kwargs)
    tensor = values["input"]
    return tensor, _dim_arg(values["dim"], tensor, name)


def cummax(*args, _method=False, **kwargs):
    tensor, dim = _parse("cummax", args, kwargs, _method)
    return return_types.cummax(Cummax.apply(tensor, dim=dim))


def cummin(*args, _method=False, **kwargs):
    tensor, dim = _parse("cummin", args, kwargs, _method)
    return return_types.cummin(Cummin.apply(tensor, dim=dim))


def logcumsumexp(*args, _method=False, **kwargs):
    tensor, dim = _parse("logcumsumexp", args, kwargs, _method)
    return Logcumsumexp.apply(tensor, dim=dim)


def _scan_(op, name: str, tensor, dim, dtype):
    """``Tensor.cumsum_``/``cumprod_``: the scan written into ``tensor``, in its own dtype."""
    from .inplace import inplace

    if dim is _REQUIRED:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    own = from_numpy_dtype(tensor._data.dtype)
    if dtype is not None and dtype is not own:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {_C10[own.name]} and output "
                           f"tensor dtype {_C10[dtype.name]} should match")
    if tensor._data.dtype == np.bool_:
        raise NotImplementedError(f'"{name[:-1]}_out_cpu" not implemented for \'Bool\'')
    return inplace(op, tensor, dim=_dim_arg(dim, tensor, name), dtype=own)


def cumsum_(tensor, dim=_REQUIRED, *, dtype=None):
    return _scan_(Cumsum, "cumsum_", tensor, dim, dtype)


def cumprod_(tensor, dim=_REQUIRED, *, dtype=None):
    return _scan_(Cumprod, "cumprod_", tensor, dim, dtype)


__all__ = ["Cummax", "Cummin", "Logcumsumexp", "cummax", "cummin", "logcumsumexp", "cumsum_",
           "cumprod_"]
