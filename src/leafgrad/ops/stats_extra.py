"""Statistics ops added with the coverage work: aminmax (both extrema in one pass) and renorm.

The composite statistics (quantile, cov, corrcoef, histogram, gradient) are written with other
ops in ops/stats_composite.py.
"""

from __future__ import annotations

import numpy as np

from .. import _argparse
from ..tensor import Tensor, _wrap_dim
from . import _layout, _uint
from . import _batching_rules as batch
from .reductions import MultiOutput, constant, unsqueeze_dims
from ._float_kernels import magnitude
from .registry import Op, register
from . import return_types
from .reductions_stats import _norm_backward, _norm_jvp, LinalgVectorNorm
from .reductions_extrema import whole_reduce_nan
from .._dtype import from_numpy_dtype


def _scale_grad_by_count(grad, a: np.ndarray, result: np.ndarray, dims: tuple, keepdim: bool):
    """torch's scale_grad_by_count: the gradient shared evenly among the entries equal to the
    extremum (as amax/amin; count and mask are constants)."""
    if not keepdim:
        grad = unsqueeze_dims(grad, dims)
        result = np.expand_dims(result, dims)
    mask = result == a
    count = mask.sum(axis=dims, keepdims=True)
    return (grad / constant(count, grad)) * constant(mask, grad)


def _extremum_jvp(tangent, a: np.ndarray, result: np.ndarray, dims: tuple, keepdim: bool):
    """torch's amaxamin_jvp: the mean of the tangent over the extremal entries."""
    extremum = result if keepdim else np.expand_dims(result, dims)
    mask = constant(a == extremum, tangent)
    return (tangent * mask).sum(dims, keepdim=keepdim) / mask.sum(dims, keepdim=keepdim)


@register
class Aminmax(MultiOutput):
    """(min, max) over ``dim`` (every dim when None); each shares its gradient evenly among
    ties, as amin/amax do (torch's derivatives.yaml for aminmax)."""

    node = "AminmaxBackward0"
    inference_writes = (1, 1)  # Note: kernels' writes on inference operands
    saves = {"self": ("self",), "extrema": ("self",)}
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("aminmax",)
    uint_kernel = staticmethod(_uint.aminmax_kernel)

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        low = np.amin(a, axis=dim, keepdims=keepdim)
        high = np.amax(a, axis=dim, keepdims=keepdim)
        if ctx is not None:
            ctx.keep("extrema", (low, high))  # arrays: the formulas use them as constants
        return _layout.contiguous(low), _layout.contiguous(high)

    def backward(self, grads):
        dims, keepdim = self._params["dim"], self._params["keepdim"]
        a = self.saved("self")._data
        low, high = self.saved("extrema")
        total = None
        for grad, result in zip(grads, (low, high)):
            if grad is None:
                continue
            part = _scale_grad_by_count(grad, a, result, dims, keepdim)
            total = part if total is None else total + part
        return total

    def jvp(self, tangents, primals, result):
        dims, keepdim = self._params["dim"], self._params["keepdim"]
        a = primals[0]._data
        return tuple(_extremum_jvp(tangents[0], a, r._data, dims, keepdim) for r in result)


def aminmax(*args, _method=False, **kwargs):
    _argparse.check("Tensor.aminmax" if _method else "aminmax", args[1:] if _method else args,
                    kwargs)
    tensor = kwargs.get("input", args[0] if args else None)
    dim, keepdim = kwargs.get("dim"), bool(kwargs.get("keepdim", False))
    if isinstance(dim, Tensor):
        dim = int(dim.item())  # a 0-d integer tensor stands for an int
    data = tensor._data
    if dim is None:
        if data.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        dims = tuple(range(data.ndim))
        if data.ndim == 0 and data.dtype.kind == "u" and data.dtype.itemsize > 1:
            # over everything even a 0-d tensor goes to the kernel (Note: wide unsigned)
            raise NotImplementedError(
                f"\"aminmax_cpu\" not implemented for '{tensor.dtype._legacy}'")
    else:
        wrapped = _wrap_dim(int(dim), data.ndim)
        if data.ndim and data.shape[wrapped] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {wrapped} to have non-zero size.")
        dims = (wrapped,) if data.ndim else ()
    low, high = Aminmax.apply(tensor, dim=dims, keepdim=keepdim)
    if dim is None:  # (Note: the NaN of a whole-tensor max/min, reductions_extrema.py)

        for result in (low, high):
            result._data = whole_reduce_nan(result._data, data)
    return return_types.aminmax((low, high))


# -- renorm ---------------------------------------------------------------------------------------


def _renorm_norm(a: np.ndarray, p: float, dims: tuple) -> np.ndarray:
    return LinalgVectorNorm.forward(None, a, ord=p, dim=dims, keepdim=True)


@register
class Renorm(Op):
    """Each slice ``select(dim, i)`` whose p-norm exceeds maxnorm scaled to norm maxnorm: the
    factor is maxnorm / (norm + 1e-7), computed in the input's dtype as torch's CPU kernel."""

    node = "RenormBackward0"
    complex_ok = True  # the norm of the moduli (torch's renorm and renorm_backward)
    saves = {"self": ("self",)}
    vmap = batch.dims("dims")  # the reduced dims: vmap's batch dims stay out of the norm
    torch_names = ("renorm",)
    uint_ok = True  # the forward raises torch's error (Note: wide unsigned)

    @staticmethod
    def forward(ctx, a, p, dims, maxnorm):
        if a.dtype.kind == "u" and a.dtype.itemsize > 1:
            # torch 2.13 fails an internal assert choosing the accumulate type; leafgrad
            # raises the same RuntimeError (first line) so that programs behave alike

            raise RuntimeError(
                'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
                'AccumulateType.cpp":23, please report a bug to PyTorch. Unrecognized '
                f"ScalarType: {from_numpy_dtype(a.dtype)._legacy}")
        if a.dtype.kind not in "fc":
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor "
                               f"as input. Got {from_numpy_dtype(a.dtype)._legacy}")
        # the norm in the input's precision (float16: in float32, then the factor in float16)
        wide = a.astype(np.float32) if a.dtype == np.float16 else a
        norm = _renorm_norm(magnitude(wide) if wide.dtype.kind == "c" else wide, p, dims)
        eps = norm.dtype.type(1e-7)
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(norm > maxnorm, (maxnorm / (norm + eps)).astype(norm.dtype),
                              norm.dtype.type(1))
        return _layout.contiguous((a * factor.astype(a.dtype)).astype(a.dtype, copy=False))

    def backward(self, grad):
        # torch's renorm_backward: maxnorm/(n + eps) * (grad - nb/(n + eps)) where the slice is
        # scaled, nb being the norm's gradient for sum(self * grad) over the slice; else grad

        a = self.saved("self")
        p, dims, maxnorm = (self._params[k] for k in ("p", "dims", "maxnorm"))
        complex_input = a._data.dtype.kind == "c"
        # the norm is real: of the moduli for complex input, and so is its gradient's weight
        norm = LinalgVectorNorm.apply(a.abs() if complex_input else a, ord=p, dim=dims,
                                      keepdim=True)
        grad_output = a.conj() * grad
        if complex_input:
            grad_output = grad_output.real
        grad_output = grad_output.sum(dims, keepdim=True)
        nb = _norm_backward(grad_output, a, p, norm, dims, True)
        inverse = (norm + 1e-7).reciprocal()
        scaled = inverse * maxnorm * (grad - inverse * nb)
        return scaled.where(constant(norm._data > maxnorm, norm).bool(), grad)

    def jvp(self, tangents, primals, result):
        # d(x * m / (n + eps)) = m / (n + eps) * (t - x * dn / (n + eps)) where scaled

        a, tangent = primals[0], tangents[0]
        p, dims, maxnorm = (self._params[k] for k in ("p", "dims", "maxnorm"))
        norm = LinalgVectorNorm.apply(a, ord=p, dim=dims, keepdim=True)
        norm_tangent = _norm_jvp(a, tangent, p, norm, dims, True)
        inverse = (norm + 1e-7).reciprocal()
        scaled = inverse * maxnorm * (tangent - a * inverse * norm_tangent)
        return scaled.where(constant(norm._data > maxnorm, norm).bool(), tangent)


def _renorm_args(name: str, args: tuple, kwargs: dict) -> tuple:
    """(tensor, params) of a renorm call, with torch's argument errors, then its value errors."""
    _argparse.check(name, args[1:] if name.startswith("Tensor.") else args, kwargs)
    names = ("input", "p", "dim", "maxnorm")
    values = dict(zip(names, args))  # a method's self is the input
    values.update(kwargs)
    tensor = values["input"]
    p = _argparse.scalar(values["p"])
    maxnorm = _argparse.scalar(values["maxnorm"])
    dim = _wrap_dim(int(values["dim"]), tensor.ndim)
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    p, maxnorm = float(p), float(maxnorm)
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {_number(maxnorm)}")
    if tensor.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {tensor.ndim} "
                           "dimensions")
    dims = tuple(d for d in range(tensor.ndim) if d != dim)  # every dim but dim
    return tensor, {"p": p, "dims": dims, "maxnorm": maxnorm}


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def renorm(*args, **kwargs):
    tensor, params = _renorm_args("renorm", args, kwargs)
    return Renorm.apply(tensor, **params)


def tensor_renorm(*args, **kwargs):
    tensor, params = _renorm_args("Tensor.renorm", args, kwargs)
    return Renorm.apply(tensor, **params)


def renorm_(*args, **kwargs):
    from .inplace import inplace

    tensor, params = _renorm_args("Tensor.renorm_", args, kwargs)
    return inplace(Renorm, tensor, **params)


__all__ = ["Aminmax", "aminmax", "Renorm", "renorm", "renorm_", "tensor_renorm"]
