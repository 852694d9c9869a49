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
from ..ops.registry import Op, array_kernel, plain_backward, register

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
        if x.dtype.name in _EXACT and grid.dtype == x.dtype:
            return sample_exact(x, grid, mode, padding, align_corners)
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
        if records_double_backward() or _recorded_in_capture():
            # torch's GridSampler2DBackwardBackward0 (one node; under leafgrad.compile too,
            # whose values are then the kernel's, as eagerly)
            return GridSampler2dBackward.apply(
                grad, x, self.saved("grid"),
                mode=p["mode"], padding=p["padding"], align_corners=p["align_corners"],
                mask=(want_input, want_grid))
        grid = self.saved("grid")
        if plain_backward() and x._data.dtype.name in _EXACT \
                and grid._data.dtype == x._data.dtype == grad._data.dtype:
            from ..tensor import _wrap

            # one kernel: leafgrad.compile records and replays the same call (registry.py)
            grad_input, grad_grid = array_kernel(
                _backward_kernel, grad._data, x._data, grid._data, mode=p["mode"],
                padding=p["padding"], align_corners=p["align_corners"], want_input=want_input)
            return (_wrap(grad_input) if want_input else None,
                    _wrap(grad_grid) if want_grid else None)
        return _backward_formula(grad, x, grid, self.input_shape(0), p["mode"],
                                 p["padding"], p["align_corners"], want_input, want_grid)

    def jvp(self, tangents, primals, result):
        # torch has no forward-mode formula for grid_sampler_2d; this differentiates the
        # sampling written as Tensor ops (gathers and corner weights), as the backward does
        from ..ops._forward import jvp_by_decomposition

        p = self._params
        return jvp_by_decomposition(
            lambda x, grid: _sample_composite(x, grid, p["mode"], p["padding"],
                                              p["align_corners"]), primals, tangents)


def _backward_kernel(grad, x, grid, mode, padding, align_corners, want_input):
    """``sample_backward_exact``'s two arrays (an empty one for an input gradient not asked
    for), for ``array_kernel``."""
    grad_input, grad_grid = sample_backward_exact(grad, x, grid, mode, padding, align_corners,
                                                  want_input)
    return (grad_input if want_input else np.zeros(0, x.dtype)), grad_grid


def _recorded_in_capture() -> bool:
    from ..ops.norm import _recorded_in_capture as recorded

    return recorded()


def _backward_formula(grad, x_in, grid, shape, mode, padding, align, want_input, want_grid):
    """(grad_input, grad_grid) of grid_sample as Tensor ops (ATen's sums); ``x_in`` is only
    read for the grid's gradient."""
    from ..tensor import _wrap

    n, c, height, width = shape
    if mode == 2:
        return _bicubic_formula(grad, x_in, grid, shape, padding, align, want_input, want_grid)
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

    @classmethod
    def forward(cls, ctx, grad, x, grid, mode, padding, align_corners, mask):
        # the values are ATen's kernel's (Note: grid_sample's bits); the formula records the
        # node's own derivatives
        if x.dtype.name in _EXACT and grid.dtype == x.dtype == grad.dtype:
            grad_input, grad_grid = sample_backward_exact(grad, x, grid, mode, padding,
                                                          align_corners, mask[0])
            empty = np.zeros(0, x.dtype)
            return (grad_input if mask[0] else empty, grad_grid if mask[1] else empty)
        return super().forward(ctx, grad, x, grid, mode=mode, padding=padding,
                               align_corners=align_corners, mask=mask)

    @staticmethod
    def formula(grad, x, grid, mode, padding, align_corners, mask):
        return _backward_formula(grad, x, grid, tuple(x.shape), mode, padding, align_corners,
                                 *mask)


def _sample_composite(x, grid, mode, padding, align):
    """grid_sample as Tensor ops (the forward-mode decomposition)."""
    from ..tensor import _wrap

    n, c, height, width = x.shape
    if mode == 2:
        terms = _bicubic_terms(x, grid, padding, align)
        out = None
        for value, wx, wy, _, _, _ in terms:
            term = value * (wx * wy).unsqueeze(1)
            out = term if out is None else out + term
        return out
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


def _cubic_weights(t, derivative: bool) -> list:
    """The four cubic convolution weights of Tensor fractions ``t`` (or their derivatives in
    t), as Tensor ops (A = -0.75)."""
    a = _CUBIC_A

    def outer(s):  # a s^3 - 5a s^2 + 8a s - 4a, for 1 <= s <= 2
        return ((s * a - 5 * a) * s + 8 * a) * s - 4 * a

    def outer_slope(s):
        return (s * (3 * a) - 10 * a) * s + 8 * a

    def inner(s):  # (a + 2) s^3 - (a + 3) s^2 + 1, for s <= 1
        return (s * (a + 2) - (a + 3)) * s * s + 1

    def inner_slope(s):
        return (s * (3 * (a + 2)) - 2 * (a + 3)) * s

    if derivative:
        return [outer_slope(t + 1), inner_slope(t), -inner_slope(1 - t), -outer_slope(2 - t)]
    return [outer(t + 1), inner(t), inner(1 - t), outer(2 - t)]


def _bicubic_terms(x, grid, padding: int, align: bool):
    """Bicubic sampling as Tensor ops: for each of the 16 neighbours (i, j), its values
    (N, C, Ho, Wo), weights wx_i, wy_j, slopes dwx_i, dwy_j (N, Ho, Wo) and position; the
    fractions differentiable in the grid, the neighbours' positions constants."""
    from ..tensor import _wrap

    n, c, height, width = x.shape
    ix = _unnormalize(grid[..., 0], width, align)
    iy = _unnormalize(grid[..., 1], height, align)
    fx, fy = np.floor(ix._data), np.floor(iy._data)
    tx, ty = ix - _wrap(fx), iy - _wrap(fy)
    wx, wy = _cubic_weights(tx, False), _cubic_weights(ty, False)
    dx, dy = _cubic_weights(tx, True), _cubic_weights(ty, True)
    flat = x.reshape(n, c, height * width)
    terms = []
    for i in range(4):
        for j in range(4):
            xi, yi, inside = _cubic_position(fx + (i - 1), fy + (j - 1), width, height,
                                             padding, align)
            value = _gather_t(flat, xi, yi, inside, width)
            terms.append((value, wx[i], wy[j], dx[i], dy[j], (xi, yi, inside)))
    return terms


def _bicubic_formula(grad, x_in, grid, shape, padding, align, want_input, want_grid):
    """(grad_input, grad_grid) of bicubic grid_sample as Tensor ops: the input's gradient
    spreads grad * wx_i * wy_j to each neighbour; the grid's is the sum over channels of
    grad * value * slope times the unnormalising scale (ATen takes no derivative of the
    padding here)."""
    n, c, height, width = shape
    terms = _bicubic_terms(x_in, grid, padding, align)
    grad_input = grad_grid = None
    if want_input:
        grad_input = _scatter(grad, [(xi, yi, inside, wx * wy) for _, wx, wy, _, _,
                                     (xi, yi, inside) in terms], shape)
    if want_grid:
        g_ix = g_iy = None
        for value, wx, wy, dx, dy, _ in terms:
            weighted = (grad * value).sum(1)
            part_x, part_y = weighted * (dx * wy), weighted * (dy * wx)
            g_ix = part_x if g_ix is None else g_ix + part_x
            g_iy = part_y if g_iy is None else g_iy + part_y
        scale_x = (width - 1) / 2 if align else width / 2
        scale_y = (height - 1) / 2 if align else height / 2
        grad_grid = _stack_last(g_ix * scale_x, g_iy * scale_y)
    return grad_input, grad_grid


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
    if align_corners.__class__ is not bool:  # torch.grid_sampler's parser
        from .. import _argparse

        align_corners, = _argparse.doubles("grid_sampler", ("align_corners", align_corners, 5,
                                                            "bool"))
    if input.dim() == 5:
        raise NotImplementedError("leafgrad: grid_sample supports 4-D input only")
    if mode == "bicubic" and input.dtype.name not in _EXACT:
        raise NotImplementedError(
            "leafgrad: grid_sample's bicubic mode supports float32 and float64 only")
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


# Note: grid_sample's bits
# ATen's CPU kernel (GridSamplerKernel.cpp) works on vectors of 32 bytes of output points (8
# float32, 4 float64: its AVX2 build, also on AVX-512 machines; 16-lane chunks put the input
# gradient's sums in another order) and is built with the compiler contracting a multiply and
# an add into one fused multiply-add: unnormalising without align_corners is fma(g + 1, size / 2,
# -0.5); the bilinear sum is fma(se_val, se, fma(sw_val, sw, fma(ne_val, ne, nw_val * nw)));
# each channel's grid-gradient term fma(fma(se - sw, n, (ne - nw) * s), gOut, g). Reflection
# folds |x - low| by truncated multiples of twice the span. The input's gradient adds the
# rounded products ``weight * gOut`` into each corner one by one: vector by vector of output
# points (the whole H*W in order for a grid contiguous over (H, W), else row by row), corners
# nw, ne, sw, se, points in order. float32 and float64 follow these steps (matched torch's bits
# on every element over tests/test_tutorials3_findings.py's sweep); other dtypes keep the
# plain formulas.
_EXACT = ("float32", "float64")


def _lanes(dtype) -> int:
    """Output points per vector of the kernel (Note: grid_sample's bits)."""
    return 32 // np.dtype(dtype).itemsize


def _locate(coord: np.ndarray, size: int, padding: int, align: bool, with_grad: bool):
    """ATen's ComputeLocation: pixel coordinates (and, with_grad, their derivative in the grid
    coordinate) of one axis."""
    x, scale = _unnormalize_exact(coord, size, align)
    grad = np.full(coord.shape, scale, coord.dtype) if with_grad else None
    return _pad_coordinates(x, size, padding, align, grad)


def _unnormalize_exact(coord: np.ndarray, size: int, align: bool):
    """(pixel coordinates, the scaling factor): ``(g + 1) * (size - 1) / 2`` with
    align_corners, else ``fma(g + 1, size / 2, -0.5)``."""
    from ..ops._float_kernels import fma

    kind = coord.dtype.type
    if align:
        scale = kind(size - 1) / kind(2)
        return (coord + kind(1)) * scale, scale
    scale = kind(size) / kind(2)
    return fma(coord + kind(1), scale, kind(-0.5)).astype(coord.dtype), scale


def _pad_coordinates(x: np.ndarray, size: int, padding: int, align: bool, grad=None):
    """The padding mode applied to pixel coordinates (ATen's compute_coordinates, and with a
    gradient multiplier ``grad``, apply_get_grad's steps)."""
    kind = x.dtype.type
    with_grad = grad is not None
    if padding == 2:
        if align and size <= 1:
            x = np.zeros_like(x)
            grad = np.zeros_like(x) if with_grad else None
        else:
            low = kind(0) if align else kind(-0.5)
            twice = kind(size - 1) * kind(2) if align else kind(size) * kind(2)
            shifted = x - low
            distance = np.abs(shifted)
            extra = distance - np.trunc(distance / twice) * twice
            other = twice - extra
            flip = extra > other
            x = np.where(flip, other, extra) + low
            if with_grad:
                grad = np.where(flip ^ (shifted < 0), -grad, grad).astype(x.dtype)
    if padding in (1, 2):
        top = kind(size - 1)
        if with_grad:  # (maximum/minimum keep NaN here; the borders count as outside)
            low_bounded = np.maximum(x, kind(0))
            x = np.minimum(low_bounded, top)
            grad = np.where((low_bounded != 0) & (x != top), grad, kind(0)).astype(x.dtype)
        else:  # clamp_max(max, clamp_min(0, x)): NaN becomes 0
            x = np.where(np.isnan(x), kind(0), np.minimum(np.maximum(x, kind(0)), top))
    return x, grad


def _bilinear_terms(x, y, width: int, height: int):
    """Corner weights (nw, ne, sw, se), distances (n, s, w, e), integer corners and masks."""
    x_w, y_n = np.floor(x), np.floor(y)
    w = x - x_w
    e = 1 - w
    n = y - y_n
    s = 1 - n
    weights = (s * e, s * w, n * e, n * w)
    with np.errstate(invalid="ignore"):
        xs0 = np.where(np.isfinite(x_w), x_w, -2).astype(np.int64)
        ys0 = np.where(np.isfinite(y_n), y_n, -2).astype(np.int64)
    corners = []
    for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):
        xs, ys = xs0 + dx, ys0 + dy
        corners.append((xs, ys, (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)))
    return weights, (n, s, w, e), corners


def _values(flat: np.ndarray, xs, ys, inside, width: int) -> np.ndarray:
    """flat (N, C, H*W) at (N, P) points -> (N, C, P), zero outside."""
    index = np.where(inside, ys * width + xs, 0)[:, None, :]
    values = np.take_along_axis(flat, np.broadcast_to(index, flat.shape[:2] + index.shape[2:]),
                                2)
    return np.where(inside[:, None, :], values, 0).astype(flat.dtype, copy=False)


def _points(x: np.ndarray, grid: np.ndarray, padding: int, align: bool, with_grad: bool):
    n, c, height, width = x.shape
    g = grid.reshape(n, grid.shape[1] * grid.shape[2], 2)
    px, gxm = _locate(g[..., 0], width, padding, align, with_grad)
    py, gym = _locate(g[..., 1], height, padding, align, with_grad)
    return px, py, gxm, gym


def sample_exact(x: np.ndarray, grid: np.ndarray, mode: int, padding: int, align: bool):
    """grid_sample's forward with ATen's bits (Note: grid_sample's bits, and its bicubic
    bits)."""
    from ..ops._float_kernels import fma

    n, c, height, width = x.shape
    out_shape = (n, c) + grid.shape[1:3]
    if not np.prod(out_shape):
        return np.zeros(out_shape, x.dtype)
    if mode == 2:
        return np.ascontiguousarray(_sample_bicubic(x, grid, padding, align)).reshape(out_shape)
    flat = x.reshape(n, c, height * width)
    px, py, _, _ = _points(x, grid, padding, align, False)
    if mode == 1:
        with np.errstate(invalid="ignore"):
            xs = np.where(np.isfinite(px), np.rint(px), -2).astype(np.int64)
            ys = np.where(np.isfinite(py), np.rint(py), -2).astype(np.int64)
        inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
        return np.ascontiguousarray(_values(flat, xs, ys, inside, width)).reshape(out_shape)
    weights, _, corners = _bilinear_terms(px, py, width, height)
    out = None
    for (xs, ys, inside), weight in zip(corners, weights):
        values = _values(flat, xs, ys, inside, width)
        out = values * weight[:, None] if out is None else fma(values, weight[:, None], out)
    return np.ascontiguousarray(out, dtype=x.dtype).reshape(out_shape)  # (a fresh tensor)


def _grid_walk(grid: np.ndarray) -> str:
    """How ATen's grid_sample_2d_grid_slice_iterator walks a grid: "pairs" (contiguous (x, y)
    pairs, vectors over the flattened H*W), "lines" / "line rows" (W contiguous: the x and y
    planes loaded apart, over H*W when it is contiguous, else row by row) or "rows" (gathered
    row by row)."""
    _, height, width, _ = grid.shape
    size = grid.dtype.itemsize
    s_h, s_w, s_c = (stride // size for stride in grid.strides[1:])
    if s_c == 1 and (width <= 1 or s_w == 2) and (height <= 1 or s_h == 2 * width):
        return "pairs"
    if s_w == 1 or width <= 1:
        return "lines" if height <= 1 or s_h == width else "line rows"
    return "rows"


def _chunk_order(grid: np.ndarray, lanes: int, corners: int = 4) -> np.ndarray:
    """Positions (h * W + w) x corners in the order ATen's backward visits them: vector by
    vector (over the flattened H*W when the grid is contiguous over (H, W), else per row), in
    each vector corner by corner (nw, ne, sw, se; bicubic's 16 neighbours), points in order.
    Returns (corner, point) pairs as indices into a (corners, H*W) array."""
    _, height, width, _ = grid.shape
    points = np.arange(height * width)
    if _grid_walk(grid) in ("pairs", "lines"):
        chunk = points // lanes
    else:
        chunk = (points // width) * -(-width // lanes) + (points % width) // lanes
    corner = np.repeat(np.arange(corners), points.size)
    point = np.tile(points, corners)
    order = np.lexsort((point, corner, np.tile(chunk, corners)))
    return corner[order] * points.size + point[order]


def sample_backward_exact(grad: np.ndarray, x: np.ndarray, grid: np.ndarray, mode: int,
                          padding: int, align: bool, want_input: bool):
    """(grad_input or None, grad_grid) of grid_sample with ATen's bits (Note: grid_sample's
    bits)."""
    from ..ops._float_kernels import fma

    n, c, height, width = x.shape
    points = grid.shape[1] * grid.shape[2]
    if not grad.size:  # ATen: grad_grid zeroed, grad_input left at its zeros
        return (np.zeros(x.shape, x.dtype) if want_input else None,
                np.zeros(grid.shape, x.dtype))
    flat = x.reshape(n, c, height * width)
    gout = np.ascontiguousarray(grad).reshape(n, c, points)
    if mode == 2:
        return _backward_bicubic(gout, x, grid, padding, align, want_input)
    px, py, gxm, gym = _points(x, grid, padding, align, True)
    if mode == 1:
        grad_grid = np.zeros(grid.shape, x.dtype)
        if not want_input:
            return None, grad_grid
        with np.errstate(invalid="ignore"):
            xs = np.where(np.isfinite(px), np.rint(px), -2).astype(np.int64)
            ys = np.where(np.isfinite(py), np.rint(py), -2).astype(np.int64)
        inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
        corners = [(xs, ys, inside)]
        shares = [gout]
    else:
        weights, (dn, ds, dw, de), corners = _bilinear_terms(px, py, width, height)
        nw, ne, sw, se = (_values(flat, xs, ys, inside, width) for xs, ys, inside in corners)
        dn, ds, dw, de = (d[:, None] for d in (dn, ds, dw, de))
        gx = np.zeros((n, points), x.dtype)
        gy = np.zeros((n, points), x.dtype)
        tx = fma(se - sw, dn, (ne - nw) * ds)
        ty = fma(se - ne, dw, (sw - nw) * de)
        for channel in range(c):
            gx = fma(tx[:, channel], gout[:, channel], gx)
            gy = fma(ty[:, channel], gout[:, channel], gy)
        grad_grid = np.stack([np.asarray(gx * gxm, x.dtype), np.asarray(gy * gym, x.dtype)],
                             -1).reshape(grid.shape)
        if not want_input:
            return None, grad_grid
        shares = [weight[:, None] * gout for weight in weights]
    index = np.stack([np.where(inside, ys * width + xs, 0) for xs, ys, inside in corners], 1)
    share = np.stack([np.where(inside[:, None], s, 0) for s, (_, _, inside) in
                      zip(shares, corners)], 2)  # (N, C, corners, P)
    return _scatter_in_order(index, share, x.shape, grid, len(corners)), grad_grid


def _scatter_in_order(index: np.ndarray, share: np.ndarray, shape: tuple, grid: np.ndarray,
                      corners: int) -> np.ndarray:
    """The input's gradient: ``share`` (N, C, corners, P) added one by one at flat positions
    ``index`` (N, corners, P) of each (n, c) plane, in the kernel's order (a masked
    contribution is a +0. at position 0: it changes nothing)."""
    n, c, height, width = shape
    total = np.zeros((n, c, height * width), share.dtype)
    index = index.reshape(n, -1)
    share = share.reshape(n, c, -1)
    if corners == 1:  # nearest: each point's one neighbour, points in order
        order = np.arange(index.shape[1])
    else:
        order = _chunk_order(grid, _lanes(share.dtype), corners)
    base = (np.arange(n * c) * (height * width)).reshape(n, c, 1)
    positions = (base + index[:, None, order]).reshape(-1)
    np.add.at(total.reshape(-1), positions, share[:, :, order].reshape(-1))
    return total.reshape(shape)


# Note: grid_sample's bicubic bits
# The bicubic kernel (cubic convolution, A = -0.75) unnormalises without the padding, takes the
# 4x4 neighbours of floor(x), floor(y) and pads their integer positions. Its coefficients,
# as the compiler contracted them (probed with one-pixel images): the inner ones (|d| <= 1)
# ``fma(fma(A + 2, d, -(A + 3)) * d, d, 1)``; the outer ones ``((A d - 5A) d + 8A) d - 4A``
# rounded at each step in the forward and in the backward that also makes the input's
# gradient, but fused (``fma(fma(fma(A, d, -5A), d, 8A), d, -4A)``) in the backward for the
# grid alone (but for float64 with reflection padding); their derivatives, inner and outer,
# fused or rounded at each step alike.
# The forward sums each row ``fma(c0, v0, c1 * v1) + c2 v2 + c3 v3`` (a strided grid's
# float64 and reflection kernels: ``fma(c3, v3, fma(c2, v2, fma(c1, v1, c0 * v0)))``, which
# matched the kernel that gathers a grid row by row on 9 in 10 elements, not all), then the
# rows ``fma(cy3, r3, fma(cy2, r2, fma(cy1, r1, cy0 * r0)))``; the backward subtracts
# ``fma(-(v * gOut * dcx_i), cy_j, gx)`` over channels, then i, then j, and adds
# ``gOut * cx_i * cy_j`` into the input's gradient in that (i, j) order, vector by vector.
_CUBIC_A = -0.75


def _cubic_coefficients(t: np.ndarray, fused: bool) -> list:
    """The four cubic convolution weights of the neighbours at distances 1 + t, t, 1 - t,
    2 - t."""
    from ..ops._float_kernels import fma

    kind = t.dtype.type
    a = kind(_CUBIC_A)

    def outer(d):
        if fused:
            return np.asarray(fma(fma(fma(a, d, -(kind(5) * a)), d, kind(8) * a), d,
                                  -(kind(4) * a)), t.dtype)
        return ((a * d - kind(5) * a) * d + kind(8) * a) * d - kind(4) * a

    def inner(d):
        return np.asarray(fma(np.asarray(fma(a + kind(2), d, -(a + kind(3))), t.dtype) * d,
                              d, kind(1)), t.dtype)

    return [outer(t + kind(1)), inner(t), inner(kind(1) - t), outer(kind(2) - t)]


def _cubic_derivatives(t: np.ndarray, fused: bool) -> list:
    """d(weight)/dx of the four cubic convolution weights (ATen's get_cubic_coefficients_grad:
    x = -1 - t, -t, 1 - t, 2 - t)."""
    from ..ops._float_kernels import fma

    kind = t.dtype.type
    a = kind(_CUBIC_A)

    def outer(d, sign):
        lead = kind(sign * 3) * a
        if fused:
            return np.asarray(fma(np.asarray(fma(lead, d, -(kind(10) * a)), t.dtype), d,
                                  kind(sign * 8) * a), t.dtype)
        return (lead * d - kind(10) * a) * d + kind(sign * 8) * a

    def inner(d, sign):
        lead = kind(sign * 3) * (a + kind(2))
        if fused:
            return np.asarray(fma(lead, d, -(kind(2) * (a + kind(3)))), t.dtype) * d
        return (lead * d - kind(2) * (a + kind(3))) * d

    return [outer(kind(-1) - t, -1), inner(kind(0) - t, -1), inner(kind(1) - t, 1),
            outer(kind(2) - t, 1)]


def _cubic_grid(x: np.ndarray, grid: np.ndarray, align: bool):
    """Unnormalised points (N, P) of each axis, their floors and fractions, and the scales."""
    n, c, height, width = x.shape
    g = grid.reshape(n, grid.shape[1] * grid.shape[2], 2)
    px, scale_x = _unnormalize_exact(g[..., 0], width, align)
    py, scale_y = _unnormalize_exact(g[..., 1], height, align)
    fx, fy = np.floor(px), np.floor(py)
    return fx, fy, px - fx, py - fy, scale_x, scale_y


def _cubic_position(x, y, width: int, height: int, padding: int, align: bool):
    """A neighbour's flat index and in-bounds mask (ATen's get_value_bounded's steps)."""
    xs, _ = _pad_coordinates(x, width, padding, align)
    ys, _ = _pad_coordinates(y, height, padding, align)
    with np.errstate(invalid="ignore"):
        xi = np.where(np.isfinite(xs), np.trunc(xs), -2).astype(np.int64)
        yi = np.where(np.isfinite(ys), np.trunc(ys), -2).astype(np.int64)
    inside = (xi >= 0) & (xi < width) & (yi >= 0) & (yi < height)
    return xi, yi, inside


def _sample_bicubic(x: np.ndarray, grid: np.ndarray, padding: int, align: bool) -> np.ndarray:
    from ..ops._float_kernels import fma

    n, c, height, width = x.shape
    kind = x.dtype.type
    flat = x.reshape(n, c, height * width)
    fx, fy, tx, ty, _, _ = _cubic_grid(x, grid, align)
    cx = [w[:, None] for w in _cubic_coefficients(tx, False)]
    cy = [w[:, None] for w in _cubic_coefficients(ty, False)]
    # a strided grid's kernels chain each row's sum too, but for float32 zeros or border
    chained = _grid_walk(grid) != "pairs" and (x.dtype == np.float64 or padding == 2)
    rows = []
    for j in range(4):
        v = [_values(flat, *_cubic_position(fx + kind(i - 1), fy + kind(j - 1), width, height,
                                            padding, align), width) for i in range(4)]
        if chained:
            row = cx[0] * v[0]
            for i in range(1, 4):
                row = np.asarray(fma(cx[i], v[i], row), x.dtype)
            rows.append(row)
        else:
            row = np.asarray(fma(cx[0], v[0], cx[1] * v[1]), x.dtype)
            rows.append(row + cx[2] * v[2] + cx[3] * v[3])
    out = cy[0] * rows[0]
    for j in range(1, 4):
        out = np.asarray(fma(cy[j], rows[j], out), x.dtype)
    return out


def _backward_bicubic(gout, x, grid, padding: int, align: bool, want_input: bool):
    from ..ops._float_kernels import fma

    n, c, height, width = x.shape
    kind = x.dtype.type
    points = gout.shape[-1]
    flat = x.reshape(n, c, height * width)
    fx, fy, tx, ty, scale_x, scale_y = _cubic_grid(x, grid, align)
    # (the compiler fused the outer polynomials only in the kernels for the grid's gradient
    # alone, and there not for float64 with reflection: probed on each kernel)
    fused = not want_input and not (x.dtype == np.float64 and padding == 2)
    cx, cy = _cubic_coefficients(tx, fused), _cubic_coefficients(ty, fused)
    dx, dy = _cubic_derivatives(tx, fused), _cubic_derivatives(ty, fused)
    pairs = [(i, j) for i in range(4) for j in range(4)]
    positions = [_cubic_position(fx + kind(i - 1), fy + kind(j - 1), width, height, padding,
                                 align) for i, j in pairs]
    values = [_values(flat, xi, yi, inside, width) for xi, yi, inside in positions]
    gx = np.zeros((n, points), x.dtype)
    gy = np.zeros((n, points), x.dtype)
    for channel in range(c):
        g = gout[:, channel]
        for (i, j), v in zip(pairs, values):
            scaled = v[:, channel] * g
            gx = np.asarray(fma(-(scaled * dx[i]), cy[j], gx), x.dtype)
            gy = np.asarray(fma(-(scaled * dy[j]), cx[i], gy), x.dtype)
    grad_grid = np.stack([gx * scale_x, gy * scale_y], -1).reshape(grid.shape)
    if not want_input:
        return None, grad_grid
    index = np.stack([np.where(inside, yi * width + xi, 0) for xi, yi, inside in positions], 1)
    share = np.stack([np.where(inside[:, None], (gout * cx[i][:, None]) * cy[j][:, None], 0)
                      for (i, j), (_, _, inside) in zip(pairs, positions)], 2)
    return _scatter_in_order(index, share, x.shape, grid, 16), grad_grid
