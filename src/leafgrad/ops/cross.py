"""The 3-vector cross product along one dim (``linalg.cross``, ``torch.cross``)."""

from __future__ import annotations

import numpy as np

from . import _layout, _promote
from ._forward import jvp_sum
from . import _batching_rules as batch
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from .registry import Op, register
from ._float_kernels import fma


@register
class LinalgCross(Op):
    """``a x b`` along ``dim`` (size 3), broadcasting the other dims."""

    node = "LinalgCrossBackward0"
    uint_kernel = "cross"
    complex_ok = True
    vmap = batch.dims("dim")
    inputs = ("self", "other")
    saves = {"self": ("other",), "other": ("self",)}
    broadcasts = True
    bfloat16_native = True  # torch's kernel rounds each product and difference (_cross_rounded)
    torch_names = ("linalg.cross", "cross")

    @staticmethod
    def forward(ctx, a, b, dim=-1):
        a, b = _promote.binary(a, b)
        if a.dtype == np.bool_:
            raise NotImplementedError("\"cross\" not implemented for 'Bool'")
        if a.dtype in (np.float32, np.float64):
            return _layout.contiguous(_cross_fma(a, b, dim))
        if a.dtype.name == "bfloat16":
            return _layout.contiguous(_cross_rounded(a, b, dim))
        return _layout.contiguous(np.cross(a, b, axisa=dim, axisb=dim, axisc=dim))

    def backward(self, grad):
        # d/da <g, a x b> = b x g ; d/db <g, a x b> = g x a (torch: other.conj() x grad,
        # grad x self.conj())
        dim = self._params.get("dim", -1)
        grad_self = grad_other = None
        if self.needs_grad(0):
            grad_self = LinalgCross.apply(conj(self.saved("other")), grad, dim=dim)
        if self.needs_grad(1):
            grad_other = LinalgCross.apply(grad, conj(self.saved("self")), dim=dim)
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        # torch: linalg_cross(self_t, other_p, dim) + linalg_cross(self_p, other_t, dim)
        a, b = primals
        dim = self._params.get("dim", -1)
        return jvp_sum(tangents, lambda t: LinalgCross.apply(t, b, dim=dim),
                       lambda t: LinalgCross.apply(a, t, dim=dim))


def _cross_fma(a: np.ndarray, b: np.ndarray, dim: int) -> np.ndarray:
    """float32/float64 cross products as torch's cross kernel rounds them: its
    ``a[i] * b[j] - a[j] * b[i]`` contracted by the compiler into
    ``fma(a[i], b[j], -(a[j] * b[i]))`` (measured: every bit of 3000 random float64 rows)."""
    a, b = np.moveaxis(a, dim, -1), np.moveaxis(b, dim, -1)
    parts = [fma(a[..., i], b[..., j], -(a[..., j] * b[..., i]))
             for i, j in ((1, 2), (2, 0), (0, 1))]
    return np.stack(parts, axis=dim).astype(a.dtype, copy=False)


def _cross_rounded(a: np.ndarray, b: np.ndarray, dim: int) -> np.ndarray:
    """bfloat16 cross products as torch's kernel computes them in c10::BFloat16 arithmetic:
    each product and the difference rounded to bfloat16 (measured: every bit)."""
    dtype = a.dtype
    a = np.moveaxis(a, dim, -1).astype(np.float32)
    b = np.moveaxis(b, dim, -1).astype(np.float32)

    def rounded(x):
        return x.astype(dtype).astype(np.float32)

    parts = [rounded(a[..., i] * b[..., j]) - rounded(a[..., j] * b[..., i])
             for i, j in ((1, 2), (2, 0), (0, 1))]
    return np.stack(parts, axis=dim).astype(dtype)


def linalg_cross(input, other, *, dim=-1):
    if input.ndim != other.ndim:
        raise RuntimeError(
            f"linalg.cross: inputs must have the same number of dimensions."
        )
    ndim = input.ndim
    sizes = (input.size(dim), other.size(dim))  # (torch's size(dim): its dim-range errors)
    wrapped = dim + ndim if dim < 0 else dim
    if sizes != (3, 3):
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {sizes[0]} and "
            f"{sizes[1]}"
        )
    return LinalgCross.apply(input, other, dim=wrapped - ndim)


def cross(input, other, dim=None):
    """torch.cross: with no dim, the first dim of size 3 (deprecated in torch, with a warning)."""
    if dim is None:
        import warnings

        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning, stacklevel=2)
        dim = next((i for i, size in enumerate(np.broadcast_shapes(input.shape, other.shape))
                    if size == 3), -1)
    return linalg_cross(input, other, dim=dim)
