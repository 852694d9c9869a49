"""Statistics ops added with the coverage work: aminmax (both extrema in one pass) and renorm.

The composite statistics (quantile, cov, corrcoef, histogram, gradient) are written with other
ops in ops/stats_composite.py.
"""

from __future__ import annotations

import numpy as np

from ..tensor import _wrap_dim
from . import _layout
from . import _batching_rules as batch
from .reductions import MultiOutput, constant, unsqueeze_dims
from .registry import Op, register


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
    saves = {"self": ("self",), "extrema": ("self",)}
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("aminmax",)

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


def aminmax(tensor, *, dim=None, keepdim=False):
    from . import return_types

    if dim is not None and (not isinstance(dim, (int, np.integer)) or isinstance(dim, bool)):
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    data = tensor._data
    if dim is None:
        if data.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        dims = tuple(range(data.ndim))
    else:
        wrapped = _wrap_dim(int(dim), data.ndim)
        if data.ndim and data.shape[wrapped] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {wrapped} to have non-zero size.")
        dims = (wrapped,) if data.ndim else ()
    return return_types.aminmax(Aminmax.apply(tensor, dim=dims, keepdim=keepdim))


__all__ = ["Aminmax", "aminmax"]
