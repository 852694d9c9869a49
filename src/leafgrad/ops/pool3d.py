"""3-d pooling: max (with indices), average, adaptive average and adaptive max over
(N, C, D, H, W) or unbatched (C, D, H, W) input, with torch's node names.

The kernels are written for any number of spatial dims, the way pool.py's 2-d ones work:
windows are strided slices of the padded input, one per kernel offset, stacked and reduced;
indices are flat positions within each input volume (what torch returns); adaptive bins are
torch's ``[floor(i * L / out), ceil((i + 1) * L / out))``. Adaptive averaging shares pool.py's
kernels (``adaptive_average``), which sum each bin in ATen's order.
"""

from __future__ import annotations

import itertools

import numpy as np

from . import _layout
from . import _batching_rules as batch
from ._forward import auto_linear
from .pool import (_adaptive_bounds, _pool_size, accumulator, adaptive_average,
                   adaptive_average_backward, divide_sum, spread_shares, window_max)
from ._double_backward import self_args, self_edge
from .registry import Op, register

SPATIAL = 3


def _unbatched_to_batched(function):
    """A kernel written for (N, C, D, H, W) that also takes unbatched (C, D, H, W)."""

    def wrapper(ctx, x, *args, **kwargs):
        if x.ndim != SPATIAL + 1:
            return function(ctx, x, *args, **kwargs)
        out = function(ctx, x[None], *args, **kwargs)
        if isinstance(out, tuple):
            return tuple(o[0] for o in out)
        return out[0]

    return staticmethod(wrapper)


def _sizes_batched(function):
    """The same for backward kernels: (grad, input_sizes, ...)."""

    def wrapper(ctx, grad, input_sizes, *args, **kwargs):
        if len(input_sizes) != SPATIAL + 1:
            return function(ctx, grad, input_sizes, *args, **kwargs)
        return function(ctx, grad[None], (1, *input_sizes), *args, **kwargs)[0]

    return staticmethod(wrapper)


def _geometry(sizes, kernel, stride, padding, dilation, ceil_mode):
    """Output sizes and the extra right padding ceil_mode's last windows need."""
    outs, extra = [], []
    for size, k, s, p, d in zip(sizes, kernel, stride, padding, dilation):
        out = _pool_size(size, k, s, p, d, ceil_mode)
        need = (out - 1) * s + d * (k - 1) + 1
        outs.append(out)
        extra.append(max(0, need - size - 2 * p))
    return tuple(outs), tuple(extra)


def _pad(x, padding, extra, fill):
    if not any(padding) and not any(extra):
        return x
    widths = ((0, 0), (0, 0)) + tuple((p, p + e) for p, e in zip(padding, extra))
    return np.pad(x, widths, constant_values=fill)


def _offset_slices(offset, stride, dilation, outs):
    return (slice(None), slice(None)) + tuple(
        slice(o * d, o * d + s * (n - 1) + 1, s)
        for o, d, s, n in zip(offset, dilation, stride, outs))


def _plane_strides(sizes) -> tuple:
    """Flat-position multipliers of each spatial dim within one volume."""
    strides, step = [], 1
    for size in reversed(sizes):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


@register
class MaxPool3d(Op):
    """Values and int64 indices (flat positions within each input volume)."""

    node = "MaxPool3DWithIndicesBackward0"
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    uint_kernel = "max_pool3d"
    vmap = batch.fold(5)
    multi_output = True
    torch_names = ("nn.functional.max_pool3d",)

    @_unbatched_to_batched
    def forward(ctx, x, kernel, stride, padding, dilation, ceil_mode):
        sizes = x.shape[2:]
        outs, extra = _geometry(sizes, kernel, stride, padding, dilation, ceil_mode)
        fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        padded = _pad(x, padding, extra, fill)
        offsets = list(itertools.product(*(range(k) for k in kernel)))
        values, choice = window_max([padded[_offset_slices(o, stride, dilation, outs)]
                                     for o in offsets], offsets, sizes, stride, padding,
                                    dilation)  # torch's choice (pool.window_max)
        plane = _plane_strides(sizes)
        offset_position = np.array([sum(o * d * m for o, d, m in zip(off, dilation, plane))
                                    for off in offsets], dtype=np.int64)
        origin = np.zeros(outs, dtype=np.int64)
        for axis, (n, s, p, m) in enumerate(zip(outs, stride, padding, plane)):
            shape = [1] * len(outs)
            shape[axis] = n
            origin = origin + ((np.arange(n) * s - p) * m).reshape(shape)
        indices = offset_position[choice] + origin
        if ctx is not None:
            ctx.keep("indices", indices)
        return _layout.suggested(values, x), _layout.suggested(indices, x)

    def backward(self, grads):
        grad = grads[0]
        if grad is None:
            return None
        return MaxPool3dBackward.apply(grad, *self_args(self), input_sizes=self.input_shape(),
                                       indices=_own_indices(self))

    def jvp(self, tangents, primals, result):
        return gather_volume(tangents[0], result[1]._data), None


def _own_indices(op):
    indices = op.saved("indices")
    # kept by the batched kernel: an unbatched input's indices drop that batch of one
    return indices[0] if len(op.input_shape()) == SPATIAL + 1 else indices


def gather_volume(tangent, indices: np.ndarray):
    """``tangent`` at flat positions ``indices`` of each volume (torch's max-pool jvp and
    double backward: gather over the flattened last three dims)."""
    from ..tensor import _wrap

    lead = indices.shape[:-SPATIAL]
    flat = tangent.reshape(*lead, int(np.prod(tangent.shape[len(lead):])))
    picked = flat.gather(len(lead), _wrap(indices.reshape(*lead, int(np.prod(indices.shape[len(lead):])))))
    return picked.reshape(*indices.shape)


def scatter_volume(grad: np.ndarray, input_sizes, indices: np.ndarray) -> np.ndarray:
    """Add each gradient value at its flat index of a zero (N, C, *input volume)."""
    n, c = input_sizes[:2]
    from .pool import drop_outside

    plane = int(np.prod(input_sizes[2:]))
    out = np.zeros((n, c, plane), dtype=grad.dtype)
    flat_indices, flat_grad = drop_outside(
        indices.reshape(n, c, int(np.prod(indices.shape[2:]))),
        grad.reshape(n, c, int(np.prod(grad.shape[2:]))), plane)
    np.add.at(out, (np.arange(n)[:, None, None], np.arange(c)[None, :, None], flat_indices),
              flat_grad)
    return out.reshape(input_sizes)


@register
@self_edge
class MaxPool3dBackward(Op):
    node = "MaxPool3DWithIndicesBackwardBackward0"
    torch_names = ()

    @_sizes_batched
    def forward(ctx, grad, input_sizes, indices):
        batched = indices if indices.ndim == grad.ndim else indices[None]
        return _layout.suggested(scatter_volume(grad, input_sizes, batched), grad)

    def backward(self, grad):
        return gather_volume(grad, self._params["indices"])

    jvp = auto_linear


def _avg_divisor(sizes, kernel, stride, padding, outs, count_include_pad, divisor_override):
    if divisor_override:
        return float(divisor_override)
    total = np.ones(outs, dtype=np.float64)
    for axis, (size, k, s, p, n) in enumerate(zip(sizes, kernel, stride, padding, outs)):
        start = np.arange(n) * s - p
        end = np.minimum(start + k, size + p)  # clipped to the padded input
        if count_include_pad:
            length = end - start
        else:
            length = np.minimum(end, size) - np.maximum(start, 0)
        shape = [1] * len(outs)
        shape[axis] = n
        total = total * length.reshape(shape)
    return total


@register
class AvgPool3d(Op):
    node = "AvgPool3DBackward0"
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    bfloat16_kernel = "avg_pool3d_out_frame"  # torch has no bfloat16 kernel
    uint_kernel = "avg_pool3d_out_frame"
    vmap = batch.fold(5)
    torch_names = ("nn.functional.avg_pool3d",)

    @_unbatched_to_batched
    def forward(ctx, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
        sizes = x.shape[2:]
        ones = (1,) * SPATIAL
        outs, extra = _geometry(sizes, kernel, stride, padding, ones, ceil_mode)
        padded = _pad(x, padding, extra, 0)
        # each window summed from 0 in order (pool.AvgPool2d), then ``sum / divide_factor``
        total = np.zeros(x.shape[:2] + outs, dtype=accumulator(x.dtype))
        for offset in itertools.product(*(range(k) for k in kernel)):
            total += padded[_offset_slices(offset, stride, ones, outs)]
        divisor = _avg_divisor(sizes, kernel, stride, padding, outs, count_include_pad,
                               divisor_override)
        return _layout.suggested(divide_sum(total, divisor, x.dtype), x)

    def backward(self, grad):
        return AvgPool3dBackward.apply(grad, *self_args(self),
                                       input_sizes=self.input_shape(), **self._params)

    jvp = auto_linear


@register
@self_edge
class AvgPool3dBackward(Op):
    node = "AvgPool3DBackwardBackward0"
    bfloat16_kernel = "avg_pool3d_out_frame"  # torch has no bfloat16 kernel
    torch_names = ()

    @_sizes_batched
    def forward(ctx, grad, input_sizes, kernel, stride, padding, ceil_mode, count_include_pad,
                divisor_override):
        sizes = input_sizes[2:]
        ones = (1,) * SPATIAL
        outs, extra = _geometry(sizes, kernel, stride, padding, ones, ceil_mode)
        # ATen's avg_pool3d_backward_out_frame adds ``val / divide_factor`` (rounded to the
        # dtype) into a zeroed input gradient, outputs in row-major order: an input position
        # in several windows gets their shares in that order, the kernel offsets walked
        # backwards.
        share = spread_shares(grad, _avg_divisor(sizes, kernel, stride, padding, outs,
                                                 count_include_pad, divisor_override),
                              grad.dtype)
        padded = tuple(s + 2 * p + e for s, p, e in zip(sizes, padding, extra))
        out = np.zeros(tuple(input_sizes[:2]) + padded, dtype=grad.dtype)
        for offset in reversed(list(itertools.product(*(range(k) for k in kernel)))):
            out[_offset_slices(offset, stride, ones, outs)] += share
        region = (slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in
                                                     zip(padding, sizes))
        return np.ascontiguousarray(out[region])

    def backward(self, grad):
        params = {k: v for k, v in self._params.items() if k != "input_sizes"}
        return AvgPool3d.apply(grad, **params)

    jvp = auto_linear


@register
class AdaptiveAvgPool3d(Op):
    node = "AdaptiveAvgPool3DBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    vmap = batch.fold(5)
    torch_names = ("nn.functional.adaptive_avg_pool3d",)
    bfloat16_native = True  # torch sums and divides bfloat16 in bfloat16

    @_unbatched_to_batched
    def forward(ctx, x, output_size):
        # ATen's 3-d kernel sums and divides in the dtype (no opmath), contiguous
        return adaptive_average(x, output_size, opmath=False)

    def backward(self, grad):
        return AdaptiveAvgPool3dBackward.apply(grad, *self_args(self),
                                               input_sizes=self.input_shape())

    jvp = auto_linear


@register
@self_edge
class AdaptiveAvgPool3dBackward(Op):
    node = "AdaptiveAvgPool3DBackwardBackward0"
    torch_names = ()
    bfloat16_native = True  # torch divides and adds bfloat16 shares in bfloat16

    @_sizes_batched
    def forward(ctx, grad, input_sizes):
        return adaptive_average_backward(np.ascontiguousarray(grad), input_sizes)

    def backward(self, grad):
        size = tuple(self.input_shape(0)[-SPATIAL:])
        return AdaptiveAvgPool3d.apply(grad, output_size=size)

    jvp = auto_linear


def _bin_choice(window: np.ndarray) -> np.ndarray:
    """ATen's adaptive max choice over a flattened bin (``val > max || isnan(val)`` scanning in
    order): the first maximum, or the last NaN. Shared with AdaptiveMaxPool2d
    (nn/_layer_ops.py)."""
    choice = window.argmax(-1)
    if window.dtype.kind == "f":
        nan = np.isnan(window)
        has_nan = nan.any(-1)
        if has_nan.any():
            last_nan = window.shape[-1] - 1 - nan[..., ::-1].argmax(-1)
            choice = np.where(has_nan, last_nan, choice)
    return choice


@register
class AdaptiveMaxPool3d(Op):
    """Values and int64 indices (flat positions within each input volume) over adaptive
    bins."""

    node = "AdaptiveMaxPool3DBackward0"
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    vmap = batch.fold(5)
    multi_output = True
    torch_names = ("nn.functional.adaptive_max_pool3d",)

    @_unbatched_to_batched
    def forward(ctx, x, output_size):
        n, c = x.shape[:2]
        sizes = x.shape[2:]
        bounds = [_adaptive_bounds(s, o) for s, o in zip(sizes, output_size)]
        plane = _plane_strides(sizes)
        values = np.empty((n, c) + tuple(output_size), dtype=x.dtype)
        indices = np.empty((n, c) + tuple(output_size), dtype=np.int64)
        # one vectorised reduction per bin: bins are few, volumes many
        for position in itertools.product(*(range(o) for o in output_size)):
            starts = [b[0][i] for b, i in zip(bounds, position)]
            ends = [b[1][i] for b, i in zip(bounds, position)]
            box = x[(slice(None), slice(None)) + tuple(slice(s, e) for s, e in
                                                       zip(starts, ends))]
            window = box.reshape(n, c, int(np.prod(box.shape[2:])))
            choice = _bin_choice(window)
            where = (slice(None), slice(None)) + position
            values[where] = np.take_along_axis(window, choice[..., None], -1)[..., 0]
            local = np.unravel_index(choice, box.shape[2:])
            indices[where] = sum((s + l) * m for s, l, m in zip(starts, local, plane))
        if ctx is not None:
            ctx.keep("indices", indices)
        return _layout.suggested(values, x), _layout.suggested(indices, x)

    def backward(self, grads):
        grad = grads[0]
        if grad is None:
            return None
        return AdaptiveMaxPool3dBackward.apply(grad, *self_args(self),
                                               input_sizes=self.input_shape(),
                                               indices=_own_indices(self))

    def jvp(self, tangents, primals, result):
        return gather_volume(tangents[0], result[1]._data), None


@register
class AdaptiveMaxPool3dBackward(MaxPool3dBackward):
    node = "AdaptiveMaxPool3DBackwardBackward0"
    torch_names = ()


@register
class MaxUnpool3d(Op):
    """Each input value written at its flat index in a zero (N, C, D, H, W) output volume."""

    node = "MaxUnpool3DBackward0"
    index_saves = {"indices": ()}  # Note: saved index tensors (registry.py)
    vmap = batch.fold(5, batched_params=("indices",))
    torch_names = ("nn.functional.max_unpool3d",)

    @staticmethod
    def forward(ctx, x, indices, output_size):
        unbatched = x.ndim == SPATIAL + 1
        if unbatched:
            x, indices = x[None], indices[None]
        n, c = x.shape[:2]
        out = np.zeros((n, c, int(np.prod(output_size))), dtype=x.dtype)
        np.put_along_axis(out, indices.reshape(n, c, int(np.prod(indices.shape[2:]))), x.reshape(n, c, int(np.prod(x.shape[2:]))), axis=2)
        out = _layout.suggested(out.reshape((n, c) + tuple(output_size)), x)
        return out[0] if unbatched else out

    def backward(self, grad):
        return gather_volume(grad, self._params["indices"])

    jvp = auto_linear
