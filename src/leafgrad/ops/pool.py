"""2-d pooling: max (with indices), average, adaptive average. Windows are strided views."""

from __future__ import annotations

import itertools
import math

import numpy as np

from ._forward import auto_linear
from .conv import _pair
from . import _layout
from . import _batching_rules as batch
from ._double_backward import self_args, self_edge
from .registry import Op, register
from .._dtype import is_bfloat16_array
from ._bfloat16 import to_bfloat16


def _batched(function):
    """Let a pooling kernel written for (N, C, H, W) also take unbatched (C, H, W) arrays,
    as torch's pooling ops do natively (no squeeze node in the graph)."""

    def wrapper(ctx, x, *args, **kwargs):
        if x.ndim != 3:
            return function(ctx, x, *args, **kwargs)
        out = function(ctx, x[None], *args, **kwargs)
        if isinstance(out, tuple):
            return tuple(o[0] for o in out)
        return out[0]

    return staticmethod(wrapper)


def _input_sizes_batched(function):
    """The same for the backward kernels, whose first argument is the grad."""

    def wrapper(ctx, grad, input_sizes, *args, **kwargs):
        if len(input_sizes) != 3:
            return function(ctx, grad, input_sizes, *args, **kwargs)
        return function(ctx, grad[None], (1, *input_sizes), *args, **kwargs)[0]

    return staticmethod(wrapper)


def _pool_size(size, kernel, stride, padding, dilation, ceil_mode) -> int:
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (math.ceil(span / stride) if ceil_mode else span // stride) + 1
    # torch: with ceil_mode the last window must start inside the input or left padding
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def _padded(x, padding, extra, fill):
    """Pad left/top by ``padding`` and right/bottom by ``padding + extra`` with ``fill``."""
    (ph, pw), (eh, ew) = padding, extra
    if ph == pw == eh == ew == 0:
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, ph + eh), (pw, pw + ew)), constant_values=fill)


def _geometry(x_shape, kernel, stride, padding, dilation, ceil_mode):
    oh = _pool_size(x_shape[2], kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
    ow = _pool_size(x_shape[3], kernel[1], stride[1], padding[1], dilation[1], ceil_mode)
    need_h = (oh - 1) * stride[0] + dilation[0] * (kernel[0] - 1) + 1
    need_w = (ow - 1) * stride[1] + dilation[1] * (kernel[1] - 1) + 1
    extra = (max(0, need_h - x_shape[2] - 2 * padding[0]),
             max(0, need_w - x_shape[3] - 2 * padding[1]))
    return oh, ow, extra


def window_max(parts: list, offsets: list, sizes: tuple, stride, padding, dilation):
    """Max pooling's values and choices, as torch's CPU kernels pick them: ``parts[k]`` holds
    the k-th element (row-major over the kernel, ``offsets[k]`` its kernel coordinates) of
    every window, ``(N, C, *out)``, read from the input padded with the lowest value.

    torch's loop starts each window at its first element inside the input with the value -inf
    and takes an element that is greater, or NaN. So: the first maximum; the last NaN where a
    window has one; the first element inside the input where all are -inf (never a padding
    position). Returns ``(values, k)``. The choice is found with whole-array operations (the
    first hit as the largest of descending ranks): NumPy's argmax over the stacked offsets
    loops per output and took ~50x the max itself (205 against 4 us on 4x32x16x4x4)."""
    stacked = np.stack(parts)
    count = len(parts)
    values = stacked.max(0)
    hit = stacked == values
    outs = values.shape[2:]
    if any(padding) or any((n - 1) * st + d * (max(o[a] for o in offsets)) >= size + p
                           for a, (n, st, d, size, p) in
                           enumerate(zip(outs, stride, dilation, sizes, padding))):
        hit &= _inside(offsets, outs, sizes, stride, padding, dilation)
    rank_type = np.uint8 if count < 256 else np.int64
    descending = np.arange(count, 0, -1, dtype=rank_type).reshape((count,) + (1,) * values.ndim)
    choice = count - (hit * descending).max(0).astype(np.int64)
    if (choice == count).any():  # windows with no element inside the input (dilated ones)
        choice = np.where(choice == count, _first_step_inside(offsets, outs, stride, padding,
                                                              dilation), choice)
    if values.dtype.kind == "f":
        nan = np.isnan(values)
        if nan.any():  # the last NaN of the window
            ascending = np.arange(1, count + 1, dtype=rank_type).reshape(descending.shape)
            last = (np.isnan(stacked) * ascending).max(0).astype(np.int64) - 1
            choice = np.where(nan, last, choice)
    return values, choice


def _inside(offsets, outs, sizes, stride, padding, dilation):
    """``(K, 1, 1, *outs)``: whether the k-th element of each window is inside the input."""
    masks = []
    for offset in offsets:
        mask = np.ones(outs, dtype=bool)
        for axis, (o, n, size, st, p, d) in enumerate(
                zip(offset, outs, sizes, stride, padding, dilation)):
            at = np.arange(n) * st + o * d - p
            shape = [1] * len(outs)
            shape[axis] = n
            mask = mask & ((at >= 0) & (at < size)).reshape(shape)
        masks.append(mask)
    return np.stack(masks).reshape((len(offsets), 1, 1) + tuple(outs))


def _first_step_inside(offsets, outs, stride, padding, dilation) -> np.ndarray:
    """For a window with no element inside the input (a dilated one straddling it): the offset
    torch's loop starts from, each coordinate stepped by its dilation from the window's start
    until not negative (its value stays -inf; its index that position's, as torch's)."""
    kernel = [max(o[axis] for o in offsets) + 1 for axis in range(len(outs))]
    flat = np.zeros(outs, dtype=np.int64)
    for axis, (n, st, p, d) in enumerate(zip(outs, stride, padding, dilation)):
        start = np.arange(n) * st - p
        steps = np.where(start < 0, -(start // d), 0)  # ceil(-start / d)
        shape = [1] * len(outs)
        shape[axis] = n
        flat = flat + steps.reshape(shape) * int(np.prod(kernel[axis + 1:], dtype=np.int64))
    return flat


def _max_over_offsets(padded, sizes, kernel, stride, padding, dilation, oh, ow):
    """Max and torch's choice over each window (``window_max``): the K kernel offsets as
    strided slices of the padded input."""
    parts, offsets = [], []
    for i in range(kernel[0]):
        top = i * dilation[0]
        for j in range(kernel[1]):
            left = j * dilation[1]
            parts.append(padded[:, :, top:top + stride[0] * (oh - 1) + 1:stride[0],
                                left:left + stride[1] * (ow - 1) + 1:stride[1]])
            offsets.append((i, j))
    return window_max(parts, offsets, sizes, stride, padding, dilation)


@register
class MaxPool2d(Op):
    """Values and int64 indices (flat positions within each input plane, as torch returns)."""

    node = "MaxPool2DWithIndicesBackward0"
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    complex_message = '"max_pool2d" not implemented for \'ComplexFloat\''
    vmap = batch.fold(4)
    multi_output = True
    torch_names = ("nn.functional.max_pool2d",)

    @_batched
    def forward(ctx, x, kernel, stride, padding, dilation, ceil_mode):
        n, c, h, w = x.shape
        oh, ow, extra = _geometry(x.shape, kernel, stride, padding, dilation, ceil_mode)
        fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        padded = _padded(x, padding, extra, fill)
        values, choice = _max_over_offsets(padded, (h, w), kernel, stride, padding, dilation,
                                           oh, ow)
        # flat input position = window origin + the chosen offset, each looked up once
        ki, kj = np.divmod(np.arange(kernel[0] * kernel[1]), kernel[1])
        offset_position = ki * dilation[0] * w + kj * dilation[1]
        origin = ((np.arange(oh) * stride[0] - padding[0])[:, None] * w
                  + (np.arange(ow) * stride[1] - padding[1])[None, :])
        indices = offset_position[choice] + origin
        if ctx is not None:
            ctx.keep("indices", indices)
        return _layout.suggested(values, x), _layout.suggested(indices, x)

    def backward(self, grads):
        grad = grads[0]
        if grad is None:
            return None
        return MaxPoolBackward.apply(grad, *self_args(self), input_sizes=self.input_shape(),
                                     indices=self._indices())

    def jvp(self, tangents, primals, result):
        # torch: gather(self_t.flatten(-2), -1, result1.flatten(-2)).view_as(result1)
        return gather_pooled(tangents[0], result[1]._data), None

    def _indices(self):
        indices = self.saved("indices")
        # kept by the batched kernel: an unbatched input's indices drop that batch of one
        return indices[0] if len(self.input_shape()) == 3 else indices


def gather_pooled(tangent, indices: np.ndarray):
    """The tangent at a max pool's picks (flat positions within each plane): torch's
    ``gather(self_t.flatten(-2), -1, indices.flatten(-2)).view_as(indices)``."""
    from ..tensor import _wrap

    lead = indices.shape[:-2]
    flat = tangent.reshape(*lead, tangent.shape[-2] * tangent.shape[-1])
    picked = flat.gather(len(lead), _wrap(indices.reshape(*lead, indices.shape[-2]
                                                          * indices.shape[-1])))
    return picked.reshape(*indices.shape)


def drop_outside(indices: np.ndarray, grad: np.ndarray, plane: int):
    """A dilated window with no element inside the input has an index past its plane (torch's,
    see _first_step_inside): torch's backward adds that window's gradient there, into another
    channel's plane or past the buffer; it is dropped here instead (the window's value, -inf,
    depends on no input element)."""
    outside = indices >= plane
    if not outside.any():
        return indices, grad
    return np.where(outside, 0, indices), np.where(outside, 0, grad)


def _unique_rows(indices: np.ndarray) -> bool:
    """Whether no index repeats within a plane (non-overlapping windows never repeat)."""
    ordered = np.sort(indices, axis=-1)
    return not np.any(ordered[..., 1:] == ordered[..., :-1])


@register
@self_edge
class MaxPoolBackward(Op):
    node = "MaxPool2DWithIndicesBackwardBackward0"
    torch_names = ()

    @_input_sizes_batched
    def forward(ctx, grad, input_sizes, indices):
        n, c, h, w = input_sizes
        out = np.zeros((n, c, h * w), dtype=grad.dtype)
        flat_indices = indices.reshape(n, c, indices.shape[-2] * indices.shape[-1])
        flat_grad = grad.reshape(n, c, grad.shape[-2] * grad.shape[-1])
        flat_indices, flat_grad = drop_outside(flat_indices, flat_grad, h * w)
        if _unique_rows(flat_indices):
            np.put_along_axis(out, flat_indices, flat_grad, axis=2)  # no collisions to add
        else:
            np.add.at(out, (np.arange(n)[:, None, None], np.arange(c)[None, :, None],
                            flat_indices), flat_grad)
        return _layout.suggested(out.reshape(input_sizes), grad)

    def backward(self, grad):
        from ..tensor import _wrap

        indices = self._params["indices"]
        lead = indices.shape[:-2]
        flat = grad.reshape(*lead, grad.shape[-2] * grad.shape[-1])
        picked = flat.gather(len(lead), _wrap(indices.reshape(*lead, indices.shape[-2]
                                                              * indices.shape[-1])))
        return picked.reshape(*indices.shape)

    jvp = auto_linear


def _avg_divisor(x_shape, kernel, stride, padding, oh, ow, count_include_pad, divisor_override):
    if divisor_override:
        return float(divisor_override)
    h, w = x_shape[2:]
    rows = np.arange(oh) * stride[0] - padding[0]
    cols = np.arange(ow) * stride[1] - padding[1]
    # windows are clipped to the padded input (ceil_mode overhang never counts)
    r_end = np.minimum(rows + kernel[0], h + padding[0])
    c_end = np.minimum(cols + kernel[1], w + padding[1])
    if count_include_pad:
        heights, widths = r_end - rows, c_end - cols
    else:
        heights = np.minimum(r_end, h) - np.maximum(rows, 0)
        widths = np.minimum(c_end, w) - np.maximum(cols, 0)
    return (heights[:, None] * widths[None, :]).astype(np.float64)


def accumulator(dtype) -> np.dtype:
    """The type torch's pooling kernels sum in (``at::opmath_type``): float32 for float16 (and
    bfloat16, which reaches a forward as float32: Note: opmath for bfloat16), else the dtype."""
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


def divide_sum(total: np.ndarray, divisor, dtype) -> np.ndarray:
    """``scalar_t(sum / divide_factor)``: the quotient in the sum's type (an integer sum
    truncates, as C++'s int64 division), rounded once more to ``dtype``."""
    if total.dtype.kind in "iu":
        divisor = np.asarray(divisor, dtype=total.dtype)
        quotient = np.abs(total) // divisor
        return np.where((total < 0) != (divisor < 0), -quotient, quotient).astype(dtype)
    return (total / np.asarray(divisor, dtype=total.dtype)).astype(dtype)


@register
class AvgPool2d(Op):
    node = "AvgPool2DBackward0"
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    complex_message = '"avg_pool2d" not implemented for \'ComplexFloat\''
    vmap = batch.fold(4)
    torch_names = ("nn.functional.avg_pool2d",)

    @_batched
    def forward(ctx, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
        # ATen's kernels (contiguous and channels-last alike): each window summed from 0 in the
        # opmath type, row by row, then ``sum / divide_factor`` in that type, rounded to the
        # dtype. One pass per kernel offset in that order; the padding's +0. changes no sum.
        oh, ow, extra = _geometry(x.shape, kernel, stride, padding, (1, 1), ceil_mode)
        padded = _padded(x, padding, extra, 0)
        total = np.zeros(x.shape[:2] + (oh, ow), dtype=accumulator(x.dtype))
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                total += padded[:, :, i:i + stride[0] * (oh - 1) + 1:stride[0],
                                j:j + stride[1] * (ow - 1) + 1:stride[1]]
        divisor = _avg_divisor(x.shape, kernel, stride, padding, oh, ow, count_include_pad,
                               divisor_override)
        if ctx is not None:  # torch's backward gives the input's memory format
            ctx.keep("channels_last", _layout._channels_last(x))
        return _layout.suggested(divide_sum(total, divisor, x.dtype), x)

    def backward(self, grad):
        return AvgPoolBackward.apply(grad, *self_args(self), input_sizes=self.input_shape(),
                                     channels_last=self.saved("channels_last"), **self._params)

    jvp = auto_linear


def spread_shares(grad: np.ndarray, divisor, dtype):
    """``scalar_t grad_delta = grad_output / divide_factor`` of ATen's pooling backward: the
    quotient in the dtype (a float16 or bfloat16 divisor rounded to it first, as c10's
    ``Half / int64_t`` does)."""
    return (grad / np.asarray(divisor, dtype=np.float64).astype(dtype)).astype(dtype)


@register
@self_edge
class AvgPoolBackward(Op):
    node = "AvgPool2DBackwardBackward0"
    torch_names = ()
    bfloat16_native = True  # torch adds bfloat16 shares in bfloat16, rounding each sum

    @_input_sizes_batched
    def forward(ctx, grad, input_sizes, kernel, stride, padding, ceil_mode, count_include_pad,
                divisor_override, channels_last=False):
        # ATen's kernel adds each output's share into a zeroed input gradient in the dtype,
        # outputs in row-major order; an input position in several windows gets their shares
        # in that order: the kernel offsets walked backwards.
        n, c, oh, ow = grad.shape
        _, _, extra = _geometry(input_sizes, kernel, stride, padding, (1, 1), ceil_mode)
        divisor = _avg_divisor(input_sizes, kernel, stride, padding, oh, ow, count_include_pad,
                               divisor_override)
        share = spread_shares(grad, divisor, grad.dtype)
        height = input_sizes[2] + 2 * padding[0] + extra[0]
        width = input_sizes[3] + 2 * padding[1] + extra[1]
        out = np.zeros((n, c, height, width), dtype=grad.dtype)
        for i in reversed(range(kernel[0])):
            for j in reversed(range(kernel[1])):
                out[:, :, i:i + stride[0] * (oh - 1) + 1:stride[0],
                    j:j + stride[1] * (ow - 1) + 1:stride[1]] += share
        ph, pw = padding
        out = out[:, :, ph:ph + input_sizes[2], pw:pw + input_sizes[3]]
        return _layout.to_channels_last(out) if channels_last else np.ascontiguousarray(out)

    def backward(self, grad):
        params = {k: v for k, v in self._params.items()
                  if k not in ("input_sizes", "channels_last")}
        return AvgPool2d.apply(grad, **params)

    jvp = auto_linear


def _adaptive_bounds(size: int, out: int):
    index = np.arange(out)
    starts = (index * size) // out
    ends = -((-(index + 1) * size) // out)  # ceil
    return starts, ends


def _covering_bins(starts, ends, size: int):
    """``(bins, valid)``, each (k, size): row k holds, for every input position, the k-th bin
    (in increasing order) that covers it, and whether it has a k-th one."""
    covering = [[] for _ in range(size)]
    for index, (start, end) in enumerate(zip(starts.tolist(), ends.tolist())):
        for position in range(start, end):
            covering[position].append(index)
    depth = max((len(bins) for bins in covering), default=0)
    bins = np.zeros((depth, size), dtype=np.int64)
    valid = np.zeros((depth, size), dtype=bool)
    for position, found in enumerate(covering):
        bins[:len(found), position] = found
        valid[:len(found), position] = True
    return bins, valid


# Note: adaptive average lanes. ATen's channels-last adaptive average kernels (2-d, a plain
# REGISTER_DISPATCH: AVX2 vectors on AVX-512 too) divide the channels that fill whole vectors
# by ``kh * kw`` at once and the leftover channels by ``kh``, then ``kw``, as the contiguous
# kernel divides all of them. A vector holds 8 float32, 4 float64, 16 float16 or bfloat16.
_LANES = {"float32": 8, "float64": 4, "float16": 16, "bfloat16": 16}


def _vector_channels(array: np.ndarray) -> int:
    """How many leading channels a channels-last kernel divides at once (Note: adaptive
    average lanes): none for a contiguous array."""
    if not _layout._channels_last(array):
        return 0
    channels = array.shape[1]
    return channels - channels % _LANES["bfloat16" if is_bfloat16_array(array)
                                        else array.dtype.name]


def _divide_by_bins(total: np.ndarray, lengths, vector_channels: int, dtype) -> np.ndarray:
    """``total / kh / kw`` (``/ kd`` first in 3-d), one rounding per division in ``dtype``; the
    first ``vector_channels`` channels ``total / (kh * kw)`` (Note: adaptive average lanes)."""
    shapes = []
    for axis, length in enumerate(lengths):
        shape = [1] * len(lengths)
        shape[axis] = len(length)
        shapes.append(np.asarray(length).astype(dtype).reshape(shape))
    out = total
    for length in shapes:
        out = out / length
    if vector_channels:
        volume = np.ones((1,) * len(lengths), dtype=np.int64)
        for axis, length in enumerate(lengths):
            volume = volume * np.asarray(length).reshape(shapes[axis].shape)
        out[:, :vector_channels] = total[:, :vector_channels] / volume.astype(dtype)
    return out


def _offset_slices(x: np.ndarray, bounds, widest, axis: int = 0):
    """For each offset within the largest bin, in row-major order: x's element at that offset
    from each bin's start, (N, C, *bins), and whether the offset is inside the bin. Each dim's
    gather is shared by the offsets after it (nested loops, not one gather per dim each)."""
    start, end = bounds[axis]
    rank = len(bounds)
    shape = [1] * rank
    shape[axis] = len(start)
    for offset in range(widest[axis]):
        taken = np.take(x, np.minimum(start + offset, x.shape[2 + axis] - 1), axis=2 + axis)
        inside = (offset < end - start).reshape(shape)
        if axis == rank - 1:
            yield taken, inside
        else:
            for rest, rest_inside in _offset_slices(taken, bounds, widest, axis + 1):
                yield rest, inside & rest_inside


def adaptive_average(x: np.ndarray, output_size: tuple, opmath: bool = True) -> np.ndarray:
    """ATen's adaptive average pooling over the last ``len(output_size)`` dims of (N, C, ...):
    each bin summed from 0 in the opmath type (``opmath``; else in the dtype, as the 3-d kernel
    does), row by row, then divided by its lengths (``_divide_by_bins``) and rounded to the
    dtype. Either one pass per offset within the largest bin (a smaller bin adds +0. past its
    end) or, where there are fewer bins than offsets (a global pool), one sequential cumsum
    per bin; + 0. for the sum's start."""
    bfloat16 = is_bfloat16_array(x) and opmath
    acc = np.dtype(np.float32) if bfloat16 else accumulator(x.dtype) if opmath else x.dtype
    work = x.astype(acc) if bfloat16 else x
    sizes = x.shape[2:]
    bounds = [_adaptive_bounds(size, out) for size, out in zip(sizes, output_size)]
    lengths = [end - start for start, end in bounds]
    widest = [int(length.max(initial=0)) for length in lengths]
    total = np.zeros(x.shape[:2] + tuple(output_size), dtype=acc)
    if int(np.prod(output_size)) < int(np.prod(widest)):
        for position in itertools.product(*(range(out) for out in output_size)):
            box = (slice(None), slice(None)) + tuple(
                slice(start[i], end[i]) for (start, end), i in zip(bounds, position))
            region = work[box]
            region = region.reshape(x.shape[:2] + (int(np.prod(region.shape[2:])),))
            if region.size:
                total[(slice(None), slice(None)) + position] = np.cumsum(
                    region, axis=-1, dtype=acc)[..., -1]
        total += acc.type(0)
    else:
        zero = acc.type(0)
        for taken, valid in _offset_slices(work, bounds, widest):
            total += np.where(valid, taken, zero)
    out = _divide_by_bins(total, lengths, _vector_channels(x), acc)
    if bfloat16:
        return to_bfloat16(out)
    return out.astype(x.dtype)


def adaptive_average_backward(grad: np.ndarray, input_sizes: tuple) -> np.ndarray:
    """ATen's adaptive average backward: each output's ``grad / kh / kw`` (in the dtype,
    Note: adaptive average lanes for a channels-last grad) added into a zeroed input gradient,
    outputs in row-major order; an input position in several bins (adaptive bins overlap) gets
    their shares in that order. Gathered here by the k-th bin covering each position along
    each dim: exact zeros stay +0. where a difference array left 1e-17 residues
    (generated-program seed 79740 was another one; test_fuzz10_findings.py)."""
    sizes = tuple(input_sizes[2:])
    outs = grad.shape[2:]
    bounds = [_adaptive_bounds(size, out) for size, out in zip(sizes, outs)]
    lengths = [end - start for start, end in bounds]
    share = _divide_by_bins(grad, lengths, _vector_channels(grad), grad.dtype)
    zero = np.zeros((), dtype=grad.dtype)
    out = np.zeros(tuple(input_sizes), dtype=grad.dtype)
    covering = [_covering_bins(start, end, size) for (start, end), size in zip(bounds, sizes)]
    for ranks in itertools.product(*(range(len(bins)) for bins, _ in covering)):
        taken = share
        valid = np.ones((1,) * len(sizes), dtype=bool)
        for axis, ((bins, bins_valid), rank) in enumerate(zip(covering, ranks)):
            taken = np.take(taken, bins[rank], axis=2 + axis)
            shape = [1] * len(sizes)
            shape[axis] = len(bins_valid[rank])
            valid = valid & bins_valid[rank].reshape(shape)
        out += np.where(valid, taken, zero)  # (+0.: no change)
    return out


@register
class AdaptiveAvgPool2d(Op):
    """Average over adaptive bins (``adaptive_average``)."""

    node = "AdaptiveAvgPool2DBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    complex_message = '"adaptive_avg_pool2d" not implemented for \'ComplexFloat\''
    vmap = batch.fold(4)
    torch_names = ("nn.functional.adaptive_avg_pool2d",)
    bfloat16_native = True  # its vector width is bfloat16's (Note: adaptive average lanes)

    @_batched
    def forward(ctx, x, output_size):
        if ctx is not None:  # torch's backward gives the input's memory format
            ctx.keep("channels_last", _layout._channels_last(x))
        return _layout.suggested(adaptive_average(x, output_size), x)

    def backward(self, grad):
        return AdaptiveAvgPoolBackward.apply(grad, *self_args(self),
                                             input_sizes=self.input_shape(),
                                             channels_last=self.saved("channels_last"))

    jvp = auto_linear


@register
@self_edge
class AdaptiveAvgPoolBackward(Op):
    node = "AdaptiveAvgPool2DBackwardBackward0"
    torch_names = ()
    bfloat16_native = True  # torch divides and adds bfloat16 shares in bfloat16

    @_input_sizes_batched
    def forward(ctx, grad, input_sizes, channels_last=False):
        out = adaptive_average_backward(grad, input_sizes)
        return _layout.to_channels_last(out) if channels_last else out

    def backward(self, grad):
        return AdaptiveAvgPool2d.apply(grad, output_size=tuple(self.input_shape(0)[2:]))

    jvp = auto_linear


# The dtypes each CPU pooling kernel is compiled for (its AT_DISPATCH list); any other dtype
# gets torch's NotImplementedError naming the kernel, raised after the shape checks.
_FLOATS = frozenset({"float32", "float64", "float16", "bfloat16"})
POOL_DTYPES = {
    "max_pool2d": _FLOATS | {"uint8", "int8", "int16", "int32", "int64"},
    "max_pool3d": _FLOATS | {"uint8", "int8", "int16", "int32", "int64"},
    "avg_pool2d": _FLOATS | {"int64"},
    "avg_pool3d_out_frame": frozenset({"float32", "float64", "bfloat16", "int64"}),
    "max_pool1d_impl": _FLOATS,
    "adaptive_avg_pool2d": _FLOATS,
    "adaptive_max_pool2d": _FLOATS,
    "adaptive_avg_pool3d_cpu": _FLOATS,
    "adaptive_max_pool3d_cpu": _FLOATS,
}


def check_kernel_dtype(kernel: str, x) -> None:
    if x.dtype.name not in POOL_DTYPES[kernel]:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{x.dtype._legacy}\'')


def _sizes(value, name: str, message: str, allow_empty: bool = False) -> tuple:
    """An int or a sequence of one or two ints as torch's (kH, kW) pair, with torch's message
    for any other length."""
    if isinstance(value, (list, tuple)):
        if (len(value) == 0 and allow_empty) or len(value) in (1, 2):
            return tuple(int(v) for v in value)
        raise RuntimeError(f"{name}: {message}")
    return (int(value),)


def _output_size(size: int, kernel: int, pad: int, stride: int, dilation: int,
                 ceil_mode: bool) -> int:
    """torch's pooling_output_shape, with its checks."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    effective = (kernel - 1) * dilation + 1
    if pad > int(effective / 2):  # (C++ division truncates toward zero)
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad="
                           f"{pad}, kernel_size={kernel} and dilation={dilation}")
    out = (size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
           ) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _check_pool2d(name: str, x, kernel_size, stride, padding, dilation, ceil_mode: bool):
    """torch's checks of max_pool2d_with_indices / avg_pool2d, in their order; returns the
    (kernel, stride, padding, dilation) pairs."""
    kernel = _sizes(kernel_size, name, "kernel_size must either be a single int, or a tuple "
                    "of two ints")
    kernel = kernel * 2 if len(kernel) == 1 else kernel
    strides = _sizes(() if stride is None else stride, name, "stride must either be omitted, "
                     "a single int, or a tuple of two ints", allow_empty=True)
    strides = kernel if not strides else strides * 2 if len(strides) == 1 else strides
    pads = _sizes(padding, name, "padding must either be a single int, or a tuple of two ints")
    pads = pads * 2 if len(pads) == 1 else pads
    if dilation is None:
        dilations = (1, 1)
    else:
        dilations = _sizes(dilation, name, "dilation must be either a single int, or a tuple "
                           "of two ints")
        dilations = dilations * 2 if len(dilations) == 1 else dilations
    channels_last = _layout._channels_last(x._data)  # torch: suggest_memory_format
    if dilation is not None:  # (max pooling checks the rank here, average pooling later)
        if channels_last and x.ndim != 4:
            raise RuntimeError("non-empty 4D (batch mode) tensor expected for input with "
                               "channels_last layout")
        if x.ndim not in (3, 4):
            raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    elif x.ndim < 3:
        raise IndexError("Dimension out of range (expected to be in range of "
                         f"[-{max(x.ndim, 1)}, {max(x.ndim, 1) - 1}], but got -3)")
    planes, height, width = x.shape[-3:]
    out_h = _output_size(height, kernel[0], pads[0], strides[0], dilations[0], ceil_mode)
    out_w = _output_size(width, kernel[1], pads[1], strides[1], dilations[1], ceil_mode)
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got kH: "
                           f"{kernel[0]} kW: {kernel[1]}")
    if strides[0] <= 0 or strides[1] <= 0:
        raise RuntimeError("stride should be greater than zero, but got dH: "
                           f"{strides[0]} dW: {strides[1]}")
    if dilations[0] <= 0 or dilations[1] <= 0:
        raise RuntimeError("dilation should be greater than zero, but got dilationH: "
                           f"{dilations[0]} dilationW: {dilations[1]}")
    shape = list(x.shape)
    valid = x.ndim >= 3 and shape[1] != 0 and shape[2] != 0
    if channels_last:
        if not (x.ndim == 4 and valid and shape[3] != 0):
            raise RuntimeError("Expected 4D (batch mode) tensor expected for input with "
                               "channels_last layout with optional 0 dim batch size for input, "
                               f"but got: {shape}")
    elif not ((x.ndim == 3 and shape[0] != 0 and valid)
              or (x.ndim == 4 and valid and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{shape}")
    if kernel[1] // 2 < pads[1] or kernel[0] // 2 < pads[0]:
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pads[1]}, padH = {pads[0]}, kW = {kernel[1]}, "
                           f"kH = {kernel[0]}")
    if out_w < 1 or out_h < 1:
        raise RuntimeError(f"Given input size: ({planes}x{height}x{width}). Calculated output "
                           f"size: ({planes}x{out_h}x{out_w}). Output size is too small")
    return kernel, strides, pads, dilations


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    kernel, stride, padding, dilation = _check_pool2d(
        "max_pool2d", x, kernel_size, stride, padding, dilation, ceil_mode)
    check_kernel_dtype("max_pool2d", x)
    values, indices = MaxPool2d.apply(x, kernel=kernel, stride=stride, padding=padding,
                                      dilation=dilation, ceil_mode=ceil_mode)
    return (values, indices) if return_indices else values


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    name = "avg_pool2d"
    kernel = _sizes(kernel_size, name, "kernel_size must either be a single int, or a tuple "
                    "of two ints")
    _sizes(() if stride is None else stride, name, "stride must either be omitted, a single "
           "int, or a tuple of two ints", allow_empty=True)
    _sizes(padding, name, "padding must either be a single int, or a tuple of two ints")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, padding, _ = _check_pool2d(name, x, kernel, stride, padding, None,
                                               ceil_mode)
    check_kernel_dtype("avg_pool2d", x)
    return AvgPool2d.apply(x, kernel=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode,
                           count_include_pad=count_include_pad, divisor_override=divisor_override)


def adaptive_avg_pool2d(x, output_size):
    size = _pair(output_size)
    size = tuple(x.shape[x.ndim - 2 + i] if s is None else s for i, s in enumerate(size))
    if size[0] < 0 or size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{size[0]}, {size[1]}}}")
    if size == (1, 1):
        out = x.mean((-1, -2), keepdim=True)  # torch's own shortcut (MeanBackward1)
        if x.ndim == 4 and _layout._channels_last(x._data):
            # torch restrides it in place to channels-last strides (AsStridedBackward1)
            channels = x.shape[1]
            out.as_strided_((x.shape[0], channels, 1, 1), (channels, 1, channels, channels))
        return out
    if x.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(x.shape)}")
    for dim in (x.ndim - 2, x.ndim - 1):
        if x.shape[dim] == 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(x.shape)} with dimension {dim} being "
                "empty")
    check_kernel_dtype("adaptive_avg_pool2d", x)
    return AdaptiveAvgPool2d.apply(x, output_size=size)
