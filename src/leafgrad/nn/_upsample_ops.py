"""The upsampling ops behind ``F.interpolate``: nearest, nearest-exact (1-3 spatial dims),
linear, bilinear, bicubic, trilinear, and antialiased bilinear and bicubic; each with torch's
node name and its adjoint as the backward's own op (``...BackwardBackward0`` under
create_graph), each the other's backward.

Note: separable resampling
Every mode maps an output position along one spatial dim to a few input positions with
weights that depend on that dim only (torch computes them per dim too: ATen's
``compute_indices_weights_*``), so the op is applied one spatial dim at a time: a gather of
each tap along the dim, times its weights, summed in tap order (``x0 * w0 + x1 * w1 ...`` as
ATen). The adjoint sums each tap's share back into its input position; a tap's indices never
decrease along the output, so ``np.add.reduceat`` over runs of equal indices does it without
``np.add.at``. Positions follow ATen's arithmetic: the scale in the op's math type (float for
float32 input; the nearest modes always in float), ``scale * (j + 0.5) - 0.5`` without align
corners, ``scale * j`` with them, and the scale ``1 / scale_factor`` when a factor is given
(not recomputed) instead of ``in / out``.
"""

from __future__ import annotations

import math

import numpy as np

from ..ops import _batching_rules as batch
from ..ops import _inference_writes as _writes
from ..backends import cpu as _cpu
from ..ops import _layout
from ..ops._float_kernels import fma, product_error
from ..ops._forward import auto_linear
from ..ops.registry import Op, register

# mode -> (spatial dims -> torch's node stem), as the ATen kernels are named
_STEMS = {
    "nearest": {1: "UpsampleNearest1D", 2: "UpsampleNearest2D", 3: "UpsampleNearest3D"},
    "nearest-exact": {1: "UpsampleNearestExact1D", 2: "UpsampleNearestExact2D",
                      3: "UpsampleNearestExact3D"},
    "linear": {1: "UpsampleLinear1D"},
    "bilinear": {2: "UpsampleBilinear2D"},
    "bicubic": {2: "UpsampleBicubic2D"},
    "trilinear": {3: "UpsampleTrilinear3D"},
    "bilinear_aa": {2: "UpsampleBilinear2DAa"},  # antialias=True
    "bicubic_aa": {2: "UpsampleBicubic2DAa"},
}
_CUBIC_A = -0.75
_WRITES_ONCE = {("nearest", 2), ("nearest-exact", 2), ("bilinear", 2)}


def _scale(math_type, in_size: int, out_size: int, align_corners, scale):
    """ATen's area_pixel_compute_scale / compute_scales_value."""
    if align_corners:
        return math_type(in_size - 1) / math_type(out_size - 1) if out_size > 1 \
            else math_type(0)
    if scale is not None and scale > 0:
        return math_type(1.0 / scale)
    return math_type(in_size) / math_type(out_size)


def _source(math_type, positions, scale, align_corners, clamp: bool):
    """ATen's area_pixel_compute_source_index for output positions ``positions``: without
    align corners ``scale * (j + 0.5) - 0.5``, which the compiler contracts into one fused
    multiply-add (Note: upsampling arithmetic)."""
    if align_corners:
        return scale * positions
    source = fma(scale, positions + math_type(0.5), math_type(-0.5)).astype(math_type)
    return np.maximum(source, math_type(0)) if clamp else source


def _cubic_weights(t):
    """The four cubic-convolution coefficients (A = -0.75) for fractional offsets ``t``, each
    rounding as torch's compiled get_cubic_upsample_coefficients does (found bit by bit
    against it: the first two steps of each polynomial fused, the last one not)."""
    dtype = t.dtype
    a = dtype.type(_CUBIC_A)
    one = dtype.type(1)

    opposite = one - t
    return (_cubic_far(t + one, a), _cubic_near(t, a), _cubic_near(opposite, a),
            _cubic_far(opposite + one, a))


def _cubic_near(x, a):
    """cubic_convolution1, |x| <= 1: ((A + 2) * x - (A + 3)) * x * x + 1 (see _cubic_weights)."""
    dtype = x.dtype
    head = fma(a + 2, x, -(a + 3)).astype(dtype)
    return ((head * x) * x + dtype.type(1)).astype(dtype)


def _cubic_far(x, a):
    """cubic_convolution2, 1 < |x| < 2: ((A * x - 5 * A) * x + 8 * A) * x - 4 * A."""
    dtype = x.dtype
    head = fma(fma(a, x, -5 * a).astype(dtype), x, 8 * a).astype(dtype)
    return (head * x - 4 * a).astype(dtype)


def _aa_filter(x, cubic: bool):
    """ATen's antialiasing filters at ``x`` (their dtype): the triangle, or Keys' cubic with
    A = -0.5 (PIL's)."""
    dtype = x.dtype
    x = np.abs(x)
    zero = dtype.type(0)
    if not cubic:
        return np.where(x < 1, (dtype.type(1) - x).astype(dtype), zero)
    a = dtype.type(-0.5)
    return np.where(x < 1, _cubic_near(x, a), np.where(x < 2, _cubic_far(x, a), zero))


def aa_taps(in_size: int, out_size: int, align_corners, scale, dtype, cubic: bool) -> list:
    """``[(indices, weights, inside), ...]`` for one dim of antialiased resampling, as ATen's
    _compute_indices_min_size_weights_aa: output ``i`` reads inputs ``xmin .. xmin + xsize``
    around ``center = scale * (i + 0.5)`` with the filter widened by the scale when
    downsampling, its weights normalised by their sum (all in the dtype, as ATen computes
    them in ``scalar_t``, whose mixed double steps round once)."""
    math_type = np.float32 if dtype == np.float32 else np.float64
    step = _scale(math_type, in_size, out_size, align_corners, scale)
    taps_size = 4 if cubic else 2
    wide = float(step) >= 1.0
    support = math_type(taps_size * 0.5 * float(step)) if wide else math_type(taps_size * 0.5)
    count = int(math.ceil(float(support))) * 2 + 1
    positions = np.arange(out_size)
    center = (float(step) * (positions + 0.5)).astype(math_type)
    invscale = math_type(1.0 / float(step)) if wide else math_type(1)
    start = np.maximum(np.trunc((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    stop = np.minimum(np.trunc((center + support).astype(np.float64) + 0.5).astype(np.int64),
                      in_size)
    size = np.clip(stop - start, 0, count)
    weights, inside = [], []
    total = np.zeros(out_size, math_type)
    for j in range(count):
        offset = ((start + j).astype(math_type) - center).astype(np.float64) + 0.5
        weight = _aa_filter((offset * float(invscale)).astype(math_type), cubic)
        inside.append(j < size)
        weight = np.where(inside[-1], weight, math_type(0))
        total = np.where(inside[-1], (total + weight).astype(math_type), total)
        weights.append(weight)
    safe = np.where(total != 0, total, math_type(1))
    weights = [np.where(total != 0, (w / safe).astype(math_type), w) for w in weights]
    return [(np.minimum(start + j, in_size - 1), weights[j], inside[j]) for j in range(count)]


def _aa_forward(x: np.ndarray, plan: list) -> np.ndarray:
    """ATen's separable antialiased kernel: the last dim first, then the others, each dim
    whose size changes summing ``t0 * w0`` then ``fma(tj, wj, .)`` over its taps (rounded to
    the dtype between dims); equal shapes copy."""
    dtype = x.dtype
    for dim in range(len(plan) - 1, -1, -1):
        axis = 2 + dim
        taps = plan[dim]
        if len(taps[0][0]) == x.shape[axis] and all(
                np.array_equal(indices, np.arange(x.shape[axis])) and bool(np.all(w == 1))
                for indices, w, _ in taps[:1]) and not any(np.any(inside) for _, _, inside
                                                           in taps[1:]):
            continue  # an unchanged dim (its taps are the identity)
        out = None
        for indices, weights, inside in taps:
            part = np.take(x, indices, axis=axis)
            shaped = _shaped(weights, axis, x.ndim)
            if out is None:
                out = (part * shaped).astype(dtype)
            else:
                out = np.where(_shaped(inside, axis, x.ndim),
                               fma(part, shaped, out).astype(dtype), out)
        x = out
    return x


def axis_taps(mode: str, in_size: int, out_size: int, align_corners, scale, dtype) -> list:
    """``[(indices, weights or None), ...]`` for one spatial dim: output position j reads
    input ``indices[j]`` of each tap, times ``weights[j]``."""
    if mode.endswith("_aa"):
        return aa_taps(in_size, out_size, align_corners, scale, dtype, mode == "bicubic_aa")
    positions = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        if mode == "nearest" and out_size == in_size:
            return [(positions, None)]
        if mode == "nearest" and out_size == 2 * in_size:
            return [(positions >> 1, None)]
        step = _scale(np.float32, in_size, out_size, False, scale)
        where = positions.astype(np.float32)
        if mode == "nearest-exact":
            where = where + np.float32(0.5)
        indices = np.floor(where * step).astype(np.int64)
        return [(np.minimum(indices, in_size - 1), None)]
    math_type = np.float32 if dtype == np.float32 else np.float64
    if mode != "bicubic" and out_size == in_size:
        return [(positions, None)]  # ATen copies
    step = _scale(math_type, in_size, out_size, align_corners, scale)
    source = _source(math_type, positions.astype(math_type), step, align_corners,
                     clamp=mode != "bicubic")
    # ATen's guard_index_and_lambda floors with floorf: a float64 position rounds to float
    # first (0.9999999999999999 reads input 1, weight 1)
    index = np.minimum(np.floor(source.astype(np.float32)).astype(np.int64), in_size - 1)
    fraction = np.clip(source - index.astype(math_type), 0, 1).astype(math_type)
    if mode == "bicubic":
        return [(np.clip(index - 1 + k, 0, in_size - 1), weight)
                for k, weight in enumerate(_cubic_weights(fraction))]
    upper = index + (index < in_size - 1)
    return [(index, math_type(1) - fraction), (upper, fraction)]


def _plan(mode: str, in_sizes, out_sizes, align_corners, scales, dtype) -> list:
    scales = scales if scales is not None else (None,) * len(out_sizes)
    return [axis_taps(mode, i, o, align_corners, s, dtype)
            for i, o, s in zip(in_sizes, out_sizes, scales)]


def _shaped(weights, axis: int, ndim: int):
    return weights.reshape((-1,) + (1,) * (ndim - axis - 1))


def resample(x: np.ndarray, plan: list) -> np.ndarray:
    """Apply each spatial dim's taps in turn (dims 2, 3, ...). See Note: separable
    resampling."""
    for offset, taps in enumerate(plan):
        axis = 2 + offset
        out = None
        for indices, weights in taps:
            part = np.take(x, indices, axis=axis)
            if weights is not None:
                part = part * _shaped(weights, axis, x.ndim)
            out = part if out is None else out + part
        x = out.astype(x.dtype, copy=False)
    return x


# Note: upsampling arithmetic. ATen's forward kernels are compiled C++ whose ``a * b + c * d``
# the compiler contracts into fused multiply-adds, so their bits are those of these forms
# (found bit by bit against torch 2.13 on AVX-512; float32 and float64):
# - the generic kernel (linear, trilinear, bicubic, and bilinear on large outputs) nests the
#   dims outer first, each dim's taps summed as ``fma(t0, w0, t1 * w1)`` then ``fma(tk, wk, .)``
#   for the others, each dim's result rounded to the dtype (its opmath type for float32 and
#   float64);
# - bilinear's channels-last kernel (used for channels-last input of more than 3 channels, an
#   output of height + width <= 128, or 3 channels on one thread, as ATen chooses) weighs the
#   four corners by ``h_lambda * w_lambda`` products; its vector lanes (AVX2 widths: 8
#   float32, 4 float64) sum ``fma(x00, w00, fma(x01, w01, fma(x11, w11, x10 * w10)))``, the
#   leftover channels ``fma(x11, w11, fma(x10, w10, fma(x00, w00, x01 * w01)))``;
# - an axis whose size does not change still reads two taps, weights 1 and 0 (so an infinite
#   input gives NaN there, as in torch).
_BILINEAR_LANES = {"float32": 8, "float64": 4}


def _weighted_taps(taps: list, size: int, dtype) -> list:
    if len(taps) == 1 and taps[0][1] is None:  # a kept size: two taps, weights 1 and 0
        indices = taps[0][0]
        return [(indices, np.ones(size, dtype)), (indices, np.zeros(size, dtype))]
    return taps


def _nested(x: np.ndarray, plan: list) -> np.ndarray:
    """ATen's generic upsampling kernel (Note: upsampling arithmetic). Its nesting evaluates an
    inner dim's interpolation of an input row the same way whichever outer tap reads it, so
    the dims run innermost first, each over the whole array (4 to 16 times fewer gathers)."""
    dtype = x.dtype
    for dim in range(len(plan) - 1, -1, -1):
        axis = 2 + dim
        parts = [(np.take(x, indices, axis=axis),
                  None if weights is None else _shaped(weights, axis, x.ndim))
                 for indices, weights in plan[dim]]
        if len(parts) == 1:
            part, weights = parts[0]
            x = part if weights is None else (part * weights).astype(dtype)
            continue
        (first, w_first), (second, w_second) = parts[:2]
        x = fma(first, w_first, second * w_second).astype(dtype)
        for part, weights in parts[2:]:
            x = fma(part, weights, x).astype(dtype)
    return x


def _linear_channels_last(x: np.ndarray, plan: list) -> np.ndarray:
    """ATen's channels-last (bi/tri)linear kernel (Note: upsampling arithmetic): the corners
    in row-major order, each weighed by the product of its dims' weights (left to right)."""
    dtype = x.dtype
    corners, weights = [x], [None]
    for dim, taps in enumerate(plan):
        shape = (1,) * dim + (-1,) + (1,) * (len(plan) - dim - 1)
        corners = [np.take(corner, indices, axis=2 + dim) for corner in corners
                   for indices, _ in taps]
        weights = [w.reshape(shape) if product is None else (product * w.reshape(shape))
                   .astype(dtype) for product in weights for _, w in taps]
    channels = x.shape[1]
    vector = channels - channels % _BILINEAR_LANES[dtype.name]
    out = np.empty(corners[0].shape, dtype)
    if vector:
        part = (slice(None), slice(0, vector))
        inner = fma(corners[-1][part], weights[-1], (corners[-2][part] * weights[-2]).astype(
            dtype)).astype(dtype)
        for corner, weight in zip(corners[-3::-1], weights[-3::-1]):
            inner = fma(corner[part], weight, inner).astype(dtype)
        out[part] = inner
    if vector < channels:
        part = (slice(None), slice(vector, None))
        total = fma(corners[0][part], weights[0], (corners[1][part] * weights[1]).astype(
            dtype)).astype(dtype)
        for corner, weight in zip(corners[2:], weights[2:]):
            total = fma(corner[part], weight, total).astype(dtype)
        out[part] = total
    return out


def upsample_forward(mode: str, x: np.ndarray, plan: list) -> np.ndarray:
    """The forward of a linear or cubic mode as ATen's kernels round it (Note: upsampling
    arithmetic); other dtypes and the nearest modes dim by dim (``resample``)."""
    if mode.endswith("_aa"):
        return _aa_forward(x, plan)
    if x.dtype.name not in _BILINEAR_LANES or mode in ("nearest", "nearest-exact"):
        return resample(x, plan)
    sizes = [len(taps[0][0]) for taps in plan]
    if mode != "bicubic":
        plan = [_weighted_taps(taps, size, x.dtype) for taps, size in zip(plan, sizes)]
    channels = x.shape[1]
    if mode == "bilinear":
        from .. import get_num_threads

        if (_layout.is_channels_last(x) and channels > 3) or sum(sizes) <= 128 or (
                channels == 3 and get_num_threads() == 1):
            return _linear_channels_last(x, plan)
    if mode == "trilinear" and channels > 3 and _layout.is_channels_last(x, 5):
        return _linear_channels_last(x, plan)
    return _nested(x, plan)


def _scatter(values: np.ndarray, indices: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Sum ``values`` along ``axis`` into ``size`` positions by non-decreasing ``indices``."""
    starts = np.flatnonzero(np.r_[True, indices[1:] != indices[:-1]])
    sums = np.add.reduceat(values, starts, axis=axis)
    shape = list(values.shape)
    shape[axis] = size
    out = np.zeros(shape, dtype=values.dtype)
    target = [slice(None)] * values.ndim
    target[axis] = indices[starts]
    out[tuple(target)] = sums
    return out


def resample_adjoint(grad: np.ndarray, plan: list, in_sizes) -> np.ndarray:
    """The transpose of ``resample``: every output's gradient back to the inputs it read."""
    for offset in range(len(plan) - 1, -1, -1):
        axis = 2 + offset
        out = None
        for indices, weights, *_ in plan[offset]:
            part = grad if weights is None else grad * _shaped(weights, axis, grad.ndim)
            part = _scatter(part, indices, in_sizes[offset], axis)
            out = part if out is None else out + part
        grad = out.astype(grad.dtype, copy=False)
    return grad


_ORDERED_ADJOINT_LIMIT = 1 << 16  # gradient elements (more under backends.cpu.torch_bits)


def ordered_adjoint_2d(grad: np.ndarray, plan: list, in_sizes, weighted: bool) -> np.ndarray:
    """ATen's upsample_nearest2d / upsample_bilinear2d backward (cpu_upsample_nearest_backward,
    cpu_upsample_linear_backward) of a row-major gradient (N, C, OH, OW): for each output in
    row-major order, each of its taps (h0 w0, h0 w1, h1 w0, h1 w1) adds ``h * w * dy`` into
    its input, the product of the two weights rounded and the add fused with the last product
    (nearest: ``+= dy``). The separable adjoint summed each input's contributions in another
    order (~1/3 of the gradients a last bit off, float32 and float64). Replayed in rounds: the
    k-th contribution of every input at once."""
    batch, channels, out_h, out_w = grad.shape
    in_h, in_w = in_sizes
    dtype = grad.dtype
    (taps_h, taps_w) = plan
    # every contribution in torch's order: (oh, ow, tap h, tap w), C order
    target = (np.stack([i for i, *_ in taps_h], -1)[:, None, :, None] * in_w
              + np.stack([i for i, *_ in taps_w], -1)[None, :, None, :]).reshape(-1)
    source = np.broadcast_to(np.arange(out_h * out_w).reshape(out_h, out_w, 1, 1),
                             (out_h, out_w, len(taps_h), len(taps_w))).reshape(-1)
    if weighted:
        def weights(taps, size):  # (one tap without weights where the sizes agree: 1)
            return np.stack([np.ones(size, dtype) if w is None else w.astype(dtype)
                             for _, w, *_ in taps], -1)

        weight = (weights(taps_h, out_h)[:, None, :, None]
                  * weights(taps_w, out_w)[None, :, None, :]).reshape(-1)
    order = np.argsort(target, kind="stable")
    sorted_target = target[order]
    starts = np.flatnonzero(np.r_[True, sorted_target[1:] != sorted_target[:-1]])
    counts = np.diff(np.r_[starts, sorted_target.size])
    rank = np.arange(sorted_target.size) - np.repeat(starts, counts)
    # the contributions round by round (each round's cells distinct), gathered once
    order = order[np.argsort(rank, kind="stable")]
    bounds = np.r_[0, np.cumsum(np.bincount(rank))]
    cells = target[order]
    values = grad.reshape(batch * channels, out_h * out_w)[:, source[order]]
    acc = np.zeros((batch * channels, in_h * in_w), dtype)
    if not weighted:
        for r in range(len(bounds) - 1):
            part = slice(bounds[r], bounds[r + 1])
            acc[:, cells[part]] += values[:, part]
        return acc.reshape(batch, channels, in_h, in_w)
    w = weight[order]
    if dtype == np.float32:  # fma: the product exact in float64, the sum rounded there
        products = values.astype(np.float64) * w
    else:  # fma: the product and its exact tail, summed with the buffer as a double-double
        products = values * w
        tails = product_error(values, w, products)
    with np.errstate(all="ignore"):
        for r in range(len(bounds) - 1):
            part = slice(bounds[r], bounds[r + 1])
            where = cells[part]
            c = acc[:, where]
            p = products[:, part]
            if dtype == np.float32:
                acc[:, where] = p + c
            else:
                total = p + c
                virtual = total - p
                acc[:, where] = total + (((p - (total - virtual)) + (c - virtual))
                                         + tails[:, part])
    return acc.reshape(batch, channels, in_h, in_w)


def _bicubic_backward_taps(in_size: int, out_size: int, align_corners, scale, dtype):
    """The indices (out_size, 4) and weights of upsample_bicubic2d_backward_out_frame for one
    dim: its file is compiled without fused multiply-adds, so the source position and the
    cubic coefficients round each step (the forward's kernel fuses some: _cubic_weights)."""
    math_type = np.float32 if dtype == np.float32 else np.float64
    step = _scale(math_type, in_size, out_size, align_corners, scale)
    positions = np.arange(out_size).astype(math_type)
    if align_corners:
        source = step * positions
    else:
        source = step * (positions + math_type(0.5)) - math_type(0.5)
    index = np.minimum(np.floor(source.astype(np.float32)).astype(np.int64), in_size - 1)
    t = np.clip(source - index.astype(math_type), 0, 1).astype(math_type)
    a, one = math_type(_CUBIC_A), math_type(1)

    def near(x):  # ((A + 2) * x - (A + 3)) * x * x + 1
        return ((a + math_type(2)) * x - (a + math_type(3))) * x * x + one

    def far(x):  # ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
        return ((a * x - math_type(5) * a) * x + math_type(8) * a) * x - math_type(4) * a

    opposite = one - t
    weights = np.stack([far(t + one), near(t), near(opposite), far(opposite + one)], axis=-1)
    indices = np.clip(index[:, None] - 1 + np.arange(4), 0, in_size - 1)
    return indices, weights


def bicubic_adjoint(grad: np.ndarray, in_sizes, out_sizes, align_corners, scales) -> np.ndarray:
    """ATen's upsample_bicubic2d backward (upsample_bicubic2d_backward_out_frame): each
    output's gradient, in raster order, goes to its 16 inputs (x tap outer, y tap inner, the
    indices clamped) as ``(grad * y_weight) * x_weight``, added one by one into a zeroed
    buffer of the gradient's dtype: np.add.at adds in that order, so the sums round as
    ATen's (the separable adjoint summed in another order: generated-program seed 216630)."""
    (height, width), scales = in_sizes, scales if scales is not None else (None, None)
    iy, wy = _bicubic_backward_taps(height, out_sizes[0], align_corners, scales[0], grad.dtype)
    ix, wx = _bicubic_backward_taps(width, out_sizes[1], align_corners, scales[1], grad.dtype)
    batch = grad.shape[0] * grad.shape[1]
    g = np.ascontiguousarray(grad).reshape(batch, grad.shape[2], grad.shape[3], 1, 1)
    # values[b, oy, ox, ii, jj] = (grad * wy[oy, jj]) * wx[ox, ii]
    values = g * wy.astype(grad.dtype)[:, None, None, :]
    values = values * wx.astype(grad.dtype)[None, :, :, None]
    targets = iy[:, None, None, :] * width + ix[None, :, :, None]
    out = np.zeros((batch, height * width), grad.dtype)
    rows = np.arange(batch)[:, None]
    np.add.at(out, (rows, targets.reshape(1, -1)), values.reshape(batch, -1))
    return out.reshape(grad.shape[:2] + (height, width))


class _Upsample(Op):
    """One mode and number of spatial dims; parameters as ATen's ``upsample_*`` ops."""

    mode = ""

    @classmethod
    def _kernel(cls, ctx, x, output_size, scales=None, align_corners=None):
        plan = _plan(cls.mode, x.shape[2:], output_size, align_corners, scales, x.dtype)
        out = upsample_forward(cls.mode, x, plan)
        if ctx is not None and cls.mode.endswith("_aa"):
            # bilinear's antialiased backward gives the input's memory format, bicubic's a
            # row-major one
            ctx.keep("channels_last", cls.mode == "bilinear_aa" and _layout._channels_last(x))
        if x.ndim == 5 and not x.flags.c_contiguous and _layout.is_channels_last(x, 5):
            return _layout.to_channels_last(out)  # torch keeps the input's channels-last 3d
        return _layout.suggested(out, x)

    def backward(self, grad):
        if self.mode.endswith("_aa"):
            return self.adjoint.apply(grad, input_size=tuple(self.input_shape()),
                                      channels_last=self.saved("channels_last"), **self._params)
        return self.adjoint.apply(grad, input_size=tuple(self.input_shape()), **self._params)

    jvp = auto_linear


class _UpsampleBackward(Op):
    """The adjoint: (N, C, *output_size) gradients to (N, C, *input_size[2:])."""

    mode = ""

    @classmethod
    def _kernel(cls, ctx, grad, input_size, output_size, scales=None, align_corners=None,
                channels_last=False):
        plan = _plan(cls.mode, input_size[2:], output_size, align_corners, scales, grad.dtype)
        if cls.mode == "bicubic" and tuple(input_size[2:]) == tuple(output_size):
            out = grad.copy()  # ATen's bicubic backward copies when the sizes agree
        elif cls.mode == "bicubic" and grad.size:
            out = bicubic_adjoint(grad, input_size[2:], output_size, align_corners, scales)
        elif cls.mode in ("nearest", "bilinear") and len(output_size) == 2 and grad.size and \
                grad.dtype in (np.float32, np.float64) and grad.flags.c_contiguous and \
                not channels_last and (grad.size <= _ORDERED_ADJOINT_LIMIT or _cpu.torch_bits):
            out = ordered_adjoint_2d(grad, plan, input_size[2:], cls.mode == "bilinear")
        else:
            # ATen's backward kernels add every gradient into a zeroed buffer (even where one
            # output maps to one input): a sum of -0. is +0. there (generated-program seeds
            # 81734, 82558)
            out = resample_adjoint(grad, plan, input_size[2:]) + grad.dtype.type(0)
        if channels_last:  # bilinear's antialiased backward: the input's memory format
            return _layout.to_channels_last(out)
        # ATen's bicubic backward has no channels-last kernel: its result is row-major
        return out if cls.mode in ("bicubic", "bicubic_aa") else _layout.suggested(out, grad)

    def backward(self, grad):
        params = {k: v for k, v in self._params.items()
                  if k not in ("input_size", "channels_last")}
        return self.forward_op.apply(grad, **params)

    jvp = auto_linear


def _make(mode: str, dims: int, stem: str) -> tuple:
    def forward(ctx, x, **params):
        return forward_class._kernel(ctx, x, **params)

    def backward_forward(ctx, grad, **params):
        return backward_class._kernel(ctx, grad, **params)

    forward_class = type(f"{stem}", (_Upsample,), {
        "__doc__": f"F.interpolate(mode={mode!r}) over {dims} spatial dim(s).",
        "node": f"{stem}Backward0", "mode": mode,
        "torch_names": ("nn.functional.interpolate",) if mode.endswith("_aa") else
        ("nn.functional.interpolate", "nn.Upsample"),
        "vmap": batch.fold(None),  # vmap folds its batch dims into N
        # Note: kernels' writes on inference operands (ops/registry.py): torch's 2-d nearest,
        # nearest-exact and bilinear kernels may write their output once more
        "inference_writes": (staticmethod(_writes.restrided_2d_upsample)
                             if (mode, dims) in _WRITES_ONCE else 0),
        "forward": staticmethod(forward)})
    backward_class = type(f"{stem}Backward", (_UpsampleBackward,), {
        "__doc__": f"The backward of {stem}, differentiable (its own backward is {stem}).",
        "node": f"{stem}BackwardBackward0", "mode": mode, "torch_names": (),
        "forward": staticmethod(backward_forward)})
    forward_class.adjoint = backward_class
    backward_class.forward_op = forward_class
    return register(forward_class), register(backward_class)


def _make_all() -> dict:
    return {(mode, dims): _make(mode, dims, stem)[0]
            for mode, by_dims in _STEMS.items() for dims, stem in by_dims.items()}


UPSAMPLE = _make_all()  # (mode, spatial dims) -> op
