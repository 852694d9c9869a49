"""``F.fractional_max_pool2d/3d`` / ``nn.FractionalMaxPool2d/3d``: max pooling over pseudo-random
windows (Graham's fractional max pooling) with torch's RNG use and window placement.

Without ``_random_samples`` torch draws ``rand(N, C, 2)`` in the input's dtype; per plane,
sample 0 places the columns and sample 1 the rows: window i starts at
``int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (in - pool) / (out - 1)`` computed in
the input's dtype, the last window ends at the input's edge. The op keeps torch's node names
(FractionalMaxPool2DBackward0, its backward FractionalMaxPool2DBackwardBackward0).
"""

from __future__ import annotations

import numpy as np

from ..ops import _layout
from ..ops.pool import MaxPoolBackward, _batched, gather_pooled
from ..ops._double_backward import self_args
from ..ops.registry import Op, register

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]


def _intervals(sample, input_size: int, output_size: int, pool: int, dtype) -> np.ndarray:
    """ATen's generate_intervals, in the input's floating dtype."""
    starts = np.zeros(output_size, dtype=np.int64)
    if output_size > 1:
        t = dtype.type
        alpha = t(input_size - pool) / t(output_size - 1)
        sample = t(sample)
        offset = int(sample * alpha)
        for i in range(output_size - 1):
            starts[i] = int((t(i) + sample) * alpha) - offset
    if output_size > 0:
        starts[output_size - 1] = input_size - pool
    return starts


@register
class FractionalMaxPool2d(Op):
    """Values and int64 indices (flat positions within each input plane)."""

    node = "FractionalMaxPool2DBackward0"
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    uint_kernel = "fractional_max_pool2d_out_frame"
    multi_output = True
    torch_names = ("nn.functional.fractional_max_pool2d",)

    @_batched
    def forward(ctx, x, kernel, output_size, samples):
        n, c, height, width = x.shape
        oh, ow = output_size
        kh, kw = kernel
        values = np.empty((n, c, oh, ow), dtype=x.dtype)
        indices = np.empty((n, c, oh, ow), dtype=np.int64)
        for b in range(n):
            for plane in range(c):
                cols = _intervals(samples[b, plane, 0], width, ow, kw, x.dtype)
                rows = _intervals(samples[b, plane, 1], height, oh, kh, x.dtype)
                image = x[b, plane]
                # every window at once: (oh, ow, kh, kw) through fancy indexing
                r = rows[:, None, None, None] + np.arange(kh)[None, None, :, None]
                q = cols[None, :, None, None] + np.arange(kw)[None, None, None, :]
                windows = image[r, q].reshape(oh, ow, kh * kw)
                choice = windows.argmax(-1)
                if windows.dtype.kind == "f":  # ATen: val > max || isnan(val): the first NaN
                    nan = np.isnan(windows)
                    choice = np.where(nan.any(-1), nan.argmax(-1), choice)
                values[b, plane] = np.take_along_axis(windows, choice[..., None], -1)[..., 0]
                di, dj = np.divmod(choice, kw)
                indices[b, plane] = (rows[:, None] + di) * width + cols[None, :] + dj
        if ctx is not None:
            ctx.keep("indices", indices)
        return _layout.suggested(values, x), _layout.suggested(indices, x)

    def backward(self, grads):
        grad = grads[0]
        if grad is None:
            return None
        indices = self.saved("indices")
        if len(self.input_shape()) == 3:  # kept by the batched kernel: drop its batch of one
            indices = indices[0]
        return FractionalMaxPool2dBackward.apply(grad, *self_args(self),
                                                 input_sizes=self.input_shape(),
                                                 indices=indices)

    def jvp(self, tangents, primals, result):
        return gather_pooled(tangents[0], result[1]._data), None


@register
class FractionalMaxPool2dBackward(MaxPoolBackward):
    node = "FractionalMaxPool2DBackwardBackward0"
    uint_kernel = "fractional_max_pool2d_out_frame"
    torch_names = ()


def _check_samples(input, samples, dims: int) -> None:
    """ATen's fractional_max_pool_check_shape, after the input's rank and sizes: the samples'
    dtype, rank, and (batch, channels, dims) sizes against the input's."""
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    unbatched = input.dim() == dims + 1
    batch = 1 if unbatched else input.size(0)
    channels = input.size(0) if unbatched else input.size(1)
    n, c, d = samples.shape
    if n < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if c != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if d != dims:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {dims}; got {d}.")


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        if len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                             "single Int or tuple of Ints.")
        ratio = _pair(output_ratio)
        output_size = [int(input.size(-2) * ratio[0]), int(input.size(-1) * ratio[1])]
    if _random_samples is None:
        from .. import rand

        batch = 1 if input.dim() == 3 else input.size(0)
        _random_samples = rand(batch, input.size(-3), 2, dtype=input.dtype)
    kernel, size = _pair(kernel_size), _pair(output_size)
    if input.dim() not in (3, 4):
        raise RuntimeError("fractional_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{list(input.shape)}")
    height, width = input.shape[-2:]
    if size[0] + kernel[0] - 1 > height:
        raise RuntimeError(f"fractional_max_pool2d(): pool height {kernel[0]} too large "
                           f"relative to input height {height}")
    if size[1] + kernel[1] - 1 > width:
        raise RuntimeError(f"fractional_max_pool2d(): pool width {kernel[1]} too large "
                           f"relative to input width {width}")
    _check_samples(input, _random_samples, 2)
    return FractionalMaxPool2d.apply(input, kernel=kernel, output_size=size,
                                     samples=_random_samples._data)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    values, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size,
                                                         output_ratio, return_indices,
                                                         _random_samples)
    return (values, indices) if return_indices else values


@register
class FractionalMaxPool3d(Op):
    """Values and int64 indices (flat positions within each input volume); per plane, samples
    0, 1, 2 place the windows along depth, height and width."""

    node = "FractionalMaxPool3DBackward0"
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    uint_kernel = "fractional_max_pool3d_out_frame"
    multi_output = True
    torch_names = ("nn.functional.fractional_max_pool3d",)

    @staticmethod
    def forward(ctx, x, kernel, output_size, samples):
        unbatched = x.ndim == 4
        if unbatched:
            x = x[None]
        n, c, depth, height, width = x.shape
        od, oh, ow = output_size
        kd, kh, kw = kernel
        values = np.empty((n, c, od, oh, ow), dtype=x.dtype)
        indices = np.empty((n, c, od, oh, ow), dtype=np.int64)
        for b in range(n):
            for plane in range(c):
                deps = _intervals(samples[b, plane, 0], depth, od, kd, x.dtype)
                rows = _intervals(samples[b, plane, 1], height, oh, kh, x.dtype)
                cols = _intervals(samples[b, plane, 2], width, ow, kw, x.dtype)
                volume = x[b, plane]
                p = (deps[:, None, None, None, None, None]
                     + np.arange(kd)[None, None, None, :, None, None])
                r = (rows[None, :, None, None, None, None]
                     + np.arange(kh)[None, None, None, None, :, None])
                q = (cols[None, None, :, None, None, None]
                     + np.arange(kw)[None, None, None, None, None, :])
                windows = volume[p, r, q].reshape(od, oh, ow, -1)
                choice = windows.argmax(-1)
                if windows.dtype.kind == "f":
                    nan = np.isnan(windows)
                    choice = np.where(nan.any(-1), nan.argmax(-1), choice)
                values[b, plane] = np.take_along_axis(windows, choice[..., None], -1)[..., 0]
                di, rest = np.divmod(choice, kh * kw)
                dj, dk = np.divmod(rest, kw)
                indices[b, plane] = ((deps[:, None, None] + di) * height
                                     + rows[None, :, None] + dj) * width + cols[None, None, :] + dk
        if ctx is not None:
            ctx.keep("indices", indices[0] if unbatched else indices)
        if unbatched:
            values, indices = values[0], indices[0]
        return _layout.suggested(values, x), _layout.suggested(indices, x)

    def backward(self, grads):
        grad = grads[0]
        if grad is None:
            return None
        return FractionalMaxPool3dBackward.apply(grad, *self_args(self),
                                                 input_sizes=self.input_shape(),
                                                 indices=self.saved("indices"))

    def jvp(self, tangents, primals, result):
        from ..ops.pool3d import gather_volume

        return gather_volume(tangents[0], result[1]._data), None


def _fractional3d_backward_base():
    from ..ops.pool3d import MaxPool3dBackward

    return MaxPool3dBackward


@register
class FractionalMaxPool3dBackward(_fractional3d_backward_base()):
    node = "FractionalMaxPool3DBackwardBackward0"
    uint_kernel = "fractional_max_pool3d_out_frame"
    torch_names = ()


def _triple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value, value)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        ratio = _triple(output_ratio)
        output_size = [int(input.size(-3) * ratio[0]), int(input.size(-2) * ratio[1]),
                       int(input.size(-1) * ratio[2])]
    if _random_samples is None:
        from .. import rand

        batch = 1 if input.dim() == 4 else input.size(0)
        _random_samples = rand(batch, input.size(-4), 3, dtype=input.dtype)
    kernel, size = _triple(kernel_size), _triple(output_size)
    if input.dim() not in (4, 5):
        raise RuntimeError("fractional_max_pool3d_out(): Expected 4D or 5D tensor, but got: "
                           f"{list(input.shape)}")
    for name, out, k, extent in zip(("time", "height", "width"), size, kernel,
                                    input.shape[-3:]):
        if out + k - 1 >= extent:  # strict in ATen's 3-d check (not in its 2-d one)
            raise RuntimeError(f"fractional_max_pool3d_out(): pool {name} {k} too large "
                               f"relative to input {name} {extent}")
    _check_samples(input, _random_samples, 3)
    return FractionalMaxPool3d.apply(input, kernel=kernel, output_size=size,
                                     samples=_random_samples._data)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    values, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size,
                                                         output_ratio, return_indices,
                                                         _random_samples)
    return (values, indices) if return_indices else values
