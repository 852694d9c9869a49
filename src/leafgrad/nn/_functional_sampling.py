"""``F.gumbel_softmax`` and ``F.affine_grid`` (with its op, ``AffineGridGeneratorBackward0``).

gumbel_softmax draws its noise as torch does: ``-empty_like(logits).exponential_().log()``,
where CPU ``exponential_`` takes one 53-bit uniform ``u`` per element from the generator (the
stream ``rand`` of float64 uses) and returns ``-log1p(-u)`` in double precision, rounded to
the tensor's dtype.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype
from ..ops._forward import auto_linear
from ..ops.linalg import _bmm
from ..ops.registry import Op, register
from .. import _rng
from ..tensor import _wrap
from .._dtype import from_numpy_dtype

__all__ = ["gumbel_softmax", "affine_grid"]


def _exponential(shape, dtype: np.dtype, generator=None) -> np.ndarray:
    """torch's CPU ``exponential_()`` (rate 1) for float32/float64 tensors."""
    gen = _rng._generator(generator)
    count = int(np.prod(shape))
    u = _rng._uniform53(gen, count)
    values = _rng._libm_map(math.log1p, -u)  # the C library's log1p, as ATen calls it
    return (-values).astype(dtype).reshape(shape)


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1):
    """Samples of the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    Gumbel noise ``g``; ``hard`` returns one-hot vectors whose gradient is the soft sample's
    (the straight-through estimator)."""
    from .. import zeros_like

    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", UserWarning,
                      stacklevel=2)
    if not logits.dtype.is_floating_point:
        raise RuntimeError(
            f"exponential_ expects a floating point tensor, but got {logits.dtype._legacy}")
    noise = _wrap(_exponential(tuple(logits.shape), logits._data.dtype))
    gumbels = -noise.log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


def _linspace_from_neg_one(steps: int, align_corners: bool, dtype) -> np.ndarray:
    """ATen's grid coordinates along one dim: linspace(-1, 1), shrunk by (n - 1) / n unless
    ``align_corners``; a single step is 0."""
    from .. import linspace

    if steps <= 1:
        return np.zeros(1, dtype=dtype)
    values = linspace(-1, 1, steps, dtype=from_numpy_dtype(dtype))
    if not align_corners:
        values = values * (steps - 1) / steps
    return values._data


def _base_grid(size, align_corners: bool, dtype) -> np.ndarray:
    """(prod(spatial), dims + 1) homogeneous coordinates: x varies fastest, then y (then z)."""
    dtype = _dtype.bfloat16.np if dtype == "bfloat16" else dtype
    spatial = list(size[2:])
    dims = len(spatial)
    axes = [_linspace_from_neg_one(s, align_corners, dtype) for s in spatial]  # (D,) H, W
    base = np.ones(tuple(spatial) + (dims + 1,), dtype=dtype)
    for k in range(dims):  # column k is the coordinate of the spatial dim counted from the last
        axis = dims - 1 - k
        shape = [1] * dims
        shape[axis] = spatial[axis]
        base[..., k] = np.broadcast_to(axes[axis].reshape(shape), tuple(spatial))
    return base.reshape(-1, dims + 1)


def _batched(base: np.ndarray, n: int) -> np.ndarray:
    """The base grid once per matrix, as torch's (N, HW, dims + 1) tensor (row-major)."""
    return np.ascontiguousarray(np.broadcast_to(base[None], (n,) + base.shape))


@register
class AffineGridGenerator(Op):
    """``grid[n, p] = theta[n] @ [x_p, y_p, (z_p,) 1]`` over the base grid of ``size``."""

    node = "AffineGridGeneratorBackward0"
    torch_names = ("nn.functional.affine_grid",)

    @staticmethod
    def forward(ctx, theta, size, align_corners, grid_dtype=None):
        # torch builds the base grid in theta's dtype (bfloat16 rounding each step), then
        # multiplies in float32 (Note: opmath for bfloat16): theta arrives widened here
        # then ``base_grid.view(N, HW, dims + 1).bmm(theta.transpose(1, 2))``: torch's bmm
        # kernel, whose small products add in order (a NumPy matmul rounded otherwise)
        base = _base_grid(size, align_corners, grid_dtype or theta.dtype)
        n, dims = size[0], len(size) - 2
        grid = _batched(base, n).astype(theta.dtype, copy=False)
        grid = _bmm(grid, np.swapaxes(theta, 1, 2))
        return np.ascontiguousarray(grid.reshape((n,) + tuple(size[2:]) + (dims,)))

    def backward(self, grad):
        size, align = self._params["size"], self._params["align_corners"]
        # torch: base_grid.view(N, HW, dims + 1).transpose(1, 2).bmm(grad.view(N, HW, dims))
        n, dims = size[0], len(size) - 2
        base = _wrap(_batched(_base_grid(size, align, grad._data.dtype), n))
        flat = grad.reshape(n, -1, dims)
        return base.transpose(1, 2).bmm(flat).transpose(1, 2)

    jvp = auto_linear


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3)
    or (N, 3, 4), for ``grid_sample``."""
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. See "
            "the documentation of grid_sample for details.", UserWarning, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(
            f"Expected theta to have floating point type, but got {theta.dtype}".replace(
                "leafgrad.", "torch."))
    shown = _size_repr(size)
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                f"{shown}. Got {_size_repr(theta.shape)}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                f"{shown}. Got {_size_repr(theta.shape)}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {shown}.")
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.", UserWarning, stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {shown}")
    if theta.dtype in (_dtype.float16, _dtype.bfloat16) and min(spatial) == 1:
        # ATen makes a one-step axis with at::tensor(0), which has no half kernels
        raise NotImplementedError(f'"tensor_cpu" not implemented for \'{theta.dtype._legacy}\'')
    if theta.shape[0] != size[0]:  # ATen's bmm of the (N, HW, 3) base grid with theta^T
        rows, cols = theta.shape[-1], theta.shape[-2]
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, "
            f"{rows}] but got: [{theta.shape[0]}, {rows}].")
    params = {"size": tuple(size), "align_corners": bool(align_corners)}
    if theta.dtype is _dtype.bfloat16:
        params["grid_dtype"] = "bfloat16"
    return AffineGridGenerator.apply(theta, **params)


def _size_repr(size) -> str:
    """How torch prints the size argument / a tensor's shape in these messages."""
    if type(size).__name__ == "Size":
        return f"torch.Size({list(size)})"
    return str(size)
