"""``F.grid_sample`` on 4-D input (``GridSampler2DBackward0``): bilinear or nearest sampling
with zeros, border or reflection padding, as ATen's CPU kernel computes it.

The forward runs on arrays. The backward is written with Tensor ops (gathers of the input at
the four corners with constant indices, corner weights computed from the grid as Tensors), so
that its own gradient, and any higher one, is recorded; ATen's formulas are the same sums:
``grad_input`` adds ``grad * weight`` at each in-bounds corner, ``grad_grid`` is the sum over
channels of ``grad * d(sample)/d(coordinate)`` times the derivative of the coordinate map
(unnormalising, clipping, reflecting).
"""

from __future__ import annotations

import numpy as np

from ..ops._double_backward import RecordedFormula, records_double_backward
from ..ops.registry import Op, register

__all__ = ["grid_sample"]

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


def _unnormalize(coord, size: int, align_corners: bool):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low: int, twice_high: int, lib):
    """ATen's reflect_coordinates, on arrays (lib=np) or Tensors (lib=None)."""
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    if lib is np:
        distance = np.abs(coord - low)
        flips = np.floor(distance / span)
        extra = np.fmod(distance, span)
        return np.where(flips % 2 == 0, extra + low, span - extra + low)
    from ..ops.math_logic import Where
    from ..tensor import _wrap

    distance = (coord - low).abs()
    data = distance._data
    flips = np.floor(data / span)
    extra = distance - _wrap((flips * span).astype(data.dtype))
    return Where.apply(extra + low, span - extra + low, condition=_wrap(flips % 2 == 0))


def _source_index(coord, size: int, padding: int, align_corners: bool, lib):
    """Grid coordinate in [-1, 1] -> pixel coordinate, with the padding mode applied."""
    coord = _unnormalize(coord, size, align_corners)
    if padding == 1:
        return coord.clip(0, size - 1) if lib is np else coord.clamp(0, size - 1)
    if padding == 2:
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1), lib)
        else:
            coord = _reflect(coord, -1, 2 * size - 1, lib)
        return coord.clip(0, size - 1) if lib is np else coord.clamp(0, size - 1)
    return coord


def _corners(ix: np.ndarray, iy: np.ndarray, width: int, height: int):
    """The four bilinear corners: (x, y) integer positions and in-bounds masks."""
    x0, y0 = np.floor(ix), np.floor(iy)
    corners = []
    for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):  # nw, ne, sw, se
        x, y = (x0 + dx).astype(np.int64), (y0 + dy).astype(np.int64)
        inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
        corners.append((x, y, inside))
    return x0, y0, corners


def _gather(flat: np.ndarray, x, y, inside, width: int) -> np.ndarray:
    """flat (N, C, H*W) at positions (N, Ho, Wo) -> (N, C, Ho, Wo), zero outside."""
    n, c = flat.shape[:2]
    index = np.where(inside, y * width + x, 0).reshape(n, 1, int(np.prod(inside.shape[1:])))
    values = np.take_along_axis(flat, np.broadcast_to(index, (n, c, index.shape[-1])), 2)
    return values.reshape((n, c) + x.shape[1:]) * inside[:, None]


@register
class GridSampler2d(Op):
    """Samples (N, C, H, W) input at the (N, Ho, Wo, 2) grid's (x, y) points."""

    node = "GridSampler2DBackward0"
    inputs = ("input", "grid")
    # the input also for its own gradient: a create_graph backward's node has its edge
    saves = {"input": ("input", "grid"), "grid": ("input", "grid")}
    torch_names = ("nn.functional.grid_sample",)

    @staticmethod
    def forward(ctx, x, grid, mode, padding, align_corners):
        n, c, height, width = x.shape
        ix = _source_index(grid[..., 0], width, padding, align_corners, np)
        iy = _source_index(grid[..., 1], height, padding, align_corners, np)
        flat = x.reshape(n, c, height * width)
        if mode == 1:
            xs, ys = np.rint(ix).astype(np.int64), np.rint(iy).astype(np.int64)
            inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
            return _gather(flat, xs, ys, inside, width).astype(x.dtype)
        x0, y0, corners = _corners(ix, iy, width, height)
        fx, fy = ix - x0, iy - y0
        weights = ((1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy)
        out = np.zeros((n, c) + ix.shape[1:], dtype=x.dtype)
        for (xs, ys, inside), weight in zip(corners, weights):
            out += _gather(flat, xs, ys, inside, width) * weight[:, None]
        return out

    def backward(self, grad):
        p = self._params
        want_input, want_grid = self.needs_grad(0), self.needs_grad(1)
        x = self.saved("input")
        if records_double_backward():  # torch's GridSampler2DBackwardBackward0 (one node)
            return GridSampler2dBackward.apply(
                grad, x, self.saved("grid"),
                mode=p["mode"], padding=p["padding"], align_corners=p["align_corners"],
                mask=(want_input, want_grid))
        return _backward_formula(grad, x, self.saved("grid"), self.input_shape(0), p["mode"],
                                 p["padding"], p["align_corners"], want_input, want_grid)

    def jvp(self, tangents, primals, result):
        # torch has no forward-mode formula for grid_sampler_2d; this differentiates the
        # sampling written as Tensor ops (gathers and corner weights), as the backward does
        from ..ops._forward import jvp_by_decomposition

        p = self._params
        return jvp_by_decomposition(
            lambda x, grid: _sample_composite(x, grid, p["mode"], p["padding"],
                                              p["align_corners"]), primals, tangents)


def _backward_formula(grad, x_in, grid, shape, mode, padding, align, want_input, want_grid):
    """(grad_input, grad_grid) of grid_sample as Tensor ops (ATen's sums); ``x_in`` is only
    read for the grid's gradient."""
    from ..tensor import _wrap

    n, c, height, width = shape
    gx, gy = grid[..., 0], grid[..., 1]
    ix = _source_index(gx, width, padding, align, None)
    iy = _source_index(gy, height, padding, align, None)
    grad_input = grad_grid = None
    if mode == 1:
        xs = np.rint(ix._data).astype(np.int64)
        ys = np.rint(iy._data).astype(np.int64)
        inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
        if want_input:
            grad_input = _scatter(grad, [(xs, ys, inside, None)], shape)
        if want_grid:  # (zeros, as torch's: no graph to the grid, and no -0.)
            from .. import zeros_like

            grad_grid = zeros_like(grid)
        return grad_input, grad_grid
    x0, y0, corners = _corners(ix._data, iy._data, width, height)
    fx = ix - _wrap(x0)
    fy = iy - _wrap(y0)
    weights = ((1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy)
    if want_input:
        grad_input = _scatter(grad, [(xs, ys, inside, w) for (xs, ys, inside), w in
                                     zip(corners, weights)], shape)
    if want_grid:
        flat = x_in.reshape(n, c, height * width)
        values = [_gather_t(flat, xs, ys, inside, width) for xs, ys, inside in corners]
        nw, ne, sw, se = values
        # d(sample)/d(ix) and d(sample)/d(iy), per channel
        d_ix = (ne - nw) * (1 - fy).unsqueeze(1) + (se - sw) * fy.unsqueeze(1)
        d_iy = (sw - nw) * (1 - fx).unsqueeze(1) + (se - ne) * fx.unsqueeze(1)
        g_ix = (grad * d_ix).sum(1) * _wrap(_coordinate_slope(gx._data, width, padding,
                                                             align))
        g_iy = (grad * d_iy).sum(1) * _wrap(_coordinate_slope(gy._data, height, padding,
                                                             align))
        grad_grid = _stack_last(g_ix, g_iy)
    return grad_input, grad_grid


@register
class GridSampler2dBackward(RecordedFormula, Op):
    """torch's grid_sampler_2d_backward(grad_output, input, grid) recorded by a create_graph
    backward: one node (GridSampler2DBackwardBackward0) with edges to all three and outputs
    (grad_input, grad_grid); its value is the plain backward's formula, its own gradient that
    formula's (ops/_double_backward.py, Note: recorded formulas)."""

    node = "GridSampler2DBackwardBackward0"
    inputs = ("grad_output", "input", "grid")
    saves = {name: ("grad_output", "input", "grid") for name in ("grad_output", "input", "grid")}
    torch_names = ()

    @classmethod
    def apply(cls, grad, x, grid, mask, **params):
        outputs = super().apply(grad, x, grid, mask=mask, **params)
        return tuple(out if wanted else None for out, wanted in zip(outputs, mask))

    def backward(self, grads):
        results = list(super().backward(grads))
        if (self._params["mode"] == 1 and results[2] is None and grads[0] is not None
                and self.needs_grad(2)):
            # nearest: grad_input's gradient in the grid is torch's defined zeros (the
            # formula's indices are constants here, so it found no path)
            from .. import zeros_like

            results[2] = zeros_like(self.saved("grid"))
        return tuple(results)

    @staticmethod
    def formula(grad, x, grid, mode, padding, align_corners, mask):
        return _backward_formula(grad, x, grid, tuple(x.shape), mode, padding, align_corners,
                                 *mask)


def _sample_composite(x, grid, mode, padding, align):
    """grid_sample as Tensor ops (the forward-mode decomposition)."""
    from ..tensor import _wrap

    n, c, height, width = x.shape
    ix = _source_index(grid[..., 0], width, padding, align, None)
    iy = _source_index(grid[..., 1], height, padding, align, None)
    flat = x.reshape(n, c, height * width)
    if mode == 1:
        xs, ys = np.rint(ix._data).astype(np.int64), np.rint(iy._data).astype(np.int64)
        inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
        return _gather_t(flat, xs, ys, inside, width)
    x0, y0, corners = _corners(ix._data, iy._data, width, height)
    fx, fy = ix - _wrap(x0), iy - _wrap(y0)
    weights = ((1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy)
    out = None
    for (xs, ys, inside), weight in zip(corners, weights):
        term = _gather_t(flat, xs, ys, inside, width) * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _stack_last(a, b):
    from .. import stack

    return stack([a, b], -1)


def _coordinate_slope(coord: np.ndarray, size: int, padding: int, align: bool) -> np.ndarray:
    """d(pixel coordinate)/d(grid coordinate): the unnormalising scale, times 0 where a
    clip holds the coordinate at the edge and -1 where a reflection reverses it (ATen's
    clip_coordinates_set_grad / reflect_coordinates_set_grad)."""
    scale = (size - 1) / 2 if align else size / 2
    slope = np.full(coord.shape, scale, dtype=coord.dtype)
    unnorm = _unnormalize(coord, size, align)
    if padding == 1:
        slope = np.where((unnorm <= 0) | (unnorm >= size - 1), 0, slope)
    elif padding == 2:
        twice_low, twice_high = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
        if twice_low == twice_high:
            return np.zeros_like(slope)
        low = twice_low / 2
        span = (twice_high - twice_low) / 2
        shifted = unnorm - low
        sign = np.where(shifted < 0, -1.0, 1.0)
        distance = np.abs(shifted)
        flips = np.floor(distance / span)
        sign = np.where(flips % 2 == 0, sign, -sign)
        reflected = _reflect(unnorm, twice_low, twice_high, np)
        sign = np.where((reflected <= 0) | (reflected >= size - 1), 0, sign)
        slope = slope * sign
    return slope.astype(coord.dtype)


def _gather_t(flat, xs, ys, inside, width):
    """Tensor form of _gather: differentiable in ``flat``."""
    from ..tensor import _wrap

    n, c = flat.shape[:2]
    index = np.where(inside, ys * width + xs, 0).reshape(n, 1, int(np.prod(inside.shape[1:])))
    index = np.ascontiguousarray(np.broadcast_to(index, (n, c, index.shape[-1])))
    values = flat.gather(2, _wrap(index)).reshape((n, c) + xs.shape[1:])
    return values * _wrap(inside[:, None].astype(flat._data.dtype))


def _scatter(grad, corners, shape):
    """Sum of grad * weight into each in-bounds corner of a zero (N, C, H, W) input."""
    from .. import zeros
    from ..tensor import _wrap

    n, c, height, width = shape
    total = zeros((n, c, height * width), dtype=grad.dtype)
    for xs, ys, inside, weight in corners:
        share = grad if weight is None else grad * weight.unsqueeze(1)
        share = share * _wrap(inside[:, None].astype(grad._data.dtype))
        index = np.where(inside, ys * width + xs, 0).reshape(n, 1, int(np.prod(inside.shape[1:])))
        index = np.ascontiguousarray(np.broadcast_to(index, (n, c, index.shape[-1])))
        total = total.scatter_add(2, _wrap(index), share.reshape(n, c, index.shape[-1]))
    return total.reshape(n, c, height, width)


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners=None):
    """Sample ``input`` (N, C, H, W) at ``grid`` (N, Ho, Wo, 2) points in [-1, 1] (x first)."""
    import warnings

    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. See "
            "the documentation of grid_sample for details.", UserWarning, stacklevel=2)
        align_corners = False
    if input.dim() == 5 or mode == "bicubic":
        raise NotImplementedError(
            "leafgrad: grid_sample supports 4-D input with bilinear or nearest mode only")
    if input.dim() != 4 or grid.dim() != 4 or grid.shape[-1] != 2 \
            or grid.shape[0] != input.shape[0]:
        _shape_error(input, grid)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        # torch dispatches on the input's dtype before comparing the grid's
        raise NotImplementedError("\"grid_sampler_2d_cpu_kernel_impl\" not implemented for "
                                  f"'{input.dtype._legacy}'")
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"expected scalar type {_name(input.dtype)} but found {_name(grid.dtype)}")
    return GridSampler2d.apply(input, grid, mode=_MODES[mode], padding=_PADDING[padding_mode],
                               align_corners=bool(align_corners))


def _name(dtype) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half"}.get(
        str(dtype).split(".")[1], str(dtype).split(".")[1])


def _shape_error(input, grid):
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, "
            f"but got grid with sizes {list(grid.shape)}")
    raise RuntimeError(
        f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
        f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
