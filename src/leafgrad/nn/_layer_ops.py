"""Ops the nn layers need beyond ``leafgrad.ops``: adaptive max pooling (torch's bins, first
maximum, NaN wins as in ATen's CPU kernel) and its backward."""

from __future__ import annotations

import numpy as np

from ..ops import _layout
from ..ops._forward import auto_linear, jvp_sum
from ..ops.pool import MaxPoolBackward, _adaptive_bounds, _batched, gather_pooled
from ..ops.pool3d import _bin_choice  # ATen's first-max-or-last-NaN choice, shared
from ..ops import _batching_rules as batch
from ..ops._double_backward import self_args
from ..ops.registry import Op, register


@register
class AdaptiveMaxPool2d(Op):
    """Values and int64 indices (flat positions within each input plane) over adaptive bins:
    bin i spans [floor(i * H / oh), ceil((i + 1) * H / oh))."""

    node = "AdaptiveMaxPool2DBackward0"
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    complex_message = '"adaptive_max_pool2d" not implemented for \'ComplexFloat\''
    vmap = batch.fold(4)
    multi_output = True
    torch_names = ("nn.functional.adaptive_max_pool2d",)

    @_batched
    def forward(ctx, x, output_size):
        n, c, h, w = x.shape
        oh, ow = output_size
        rs, re = _adaptive_bounds(h, oh)
        cs, ce = _adaptive_bounds(w, ow)
        values = np.empty((n, c, oh, ow), dtype=x.dtype)
        indices = np.empty((n, c, oh, ow), dtype=np.int64)
        # one vectorised reduction per bin: bins are few (output sizes are small), planes many
        for i in range(oh):
            for j in range(ow):
                width = ce[j] - cs[j]
                window = x[:, :, rs[i]:re[i], cs[j]:ce[j]]
                window = window.reshape(n, c, window.shape[2] * window.shape[3])
                choice = _bin_choice(window)
                values[:, :, i, j] = np.take_along_axis(window, choice[..., None], -1)[..., 0]
                indices[:, :, i, j] = (rs[i] + choice // width) * w + cs[j] + choice % width
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
        return AdaptiveMaxPoolBackward.apply(grad, *self_args(self),
                                             input_sizes=self.input_shape(),
                                             indices=indices)

    def jvp(self, tangents, primals, result):
        # torch: gather(self_t.flatten(-2), -1, result1.flatten(-2)).view_as(result1)
        return gather_pooled(tangents[0], result[1]._data), None


@register
class AdaptiveMaxPoolBackward(MaxPoolBackward):
    """The gradient scattered (added, bins may overlap) to each bin's chosen position."""

    node = "AdaptiveMaxPool2DBackwardBackward0"
    torch_names = ()


# -- pixel shuffle ------------------------------------------------------------------------------


def _shuffle(a: np.ndarray, r: int) -> np.ndarray:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): channel block (i, j) fills offset (i, j)."""
    *lead, c, h, w = a.shape
    out = a.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    out = out.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return np.ascontiguousarray(out).reshape(*lead, c // (r * r), h * r, w * r)


def _unshuffle(a: np.ndarray, r: int) -> np.ndarray:
    """The inverse: (*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    *lead, c, h, w = a.shape
    out = a.reshape(*lead, c, h // r, r, w // r, r)
    k = len(lead)
    out = out.transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return np.ascontiguousarray(out).reshape(*lead, c * r * r, h // r, w // r)


@register
class PixelShuffle(Op):
    """Rearrange channel blocks into space (sub-pixel convolution's upsampling)."""

    node = "PixelShuffleBackward0"
    complex_ok = True  # a permutation of the values
    uint_kernel = "pixel_shuffle"
    vmap = batch.leading
    torch_names = ("nn.functional.pixel_shuffle",)

    @staticmethod
    def forward(ctx, a, factor):
        return _layout.suggested(_shuffle(a, factor), a)

    def backward(self, grad):
        return PixelUnshuffle.apply(grad, factor=self._params["factor"])

    jvp = auto_linear


@register
class PixelUnshuffle(Op):
    """Rearrange space into channel blocks (the inverse of pixel shuffle)."""

    node = "PixelUnshuffleBackward0"
    complex_ok = True  # a permutation of the values
    uint_kernel = "pixel_unshuffle"
    vmap = batch.leading
    torch_names = ("nn.functional.pixel_unshuffle",)

    @staticmethod
    def forward(ctx, a, factor):
        return _layout.suggested(_unshuffle(a, factor), a)

    def backward(self, grad):
        return PixelShuffle.apply(grad, factor=self._params["factor"])

    jvp = auto_linear


# -- im2col / col2im (F.unfold / F.fold) --------------------------------------------------------


def _blocks(size, kernel, dilation, padding, stride) -> tuple:
    """Number of sliding blocks along each of the two spatial dims (C's truncating division,
    as ATen, so a too-small input gives 0 rather than a negative count)."""
    spans = [size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1 for i in range(2)]
    return tuple(int(span / stride[i]) + 1 for i, span in enumerate(spans))


def _offsets(kernel, dilation, stride, blocks):
    """For each kernel offset (ki, kj): the strided slices of the padded plane it reads."""
    for ki in range(kernel[0]):
        top = ki * dilation[0]
        rows = slice(top, top + stride[0] * (blocks[0] - 1) + 1, stride[0])
        for kj in range(kernel[1]):
            left = kj * dilation[1]
            yield ki, kj, rows, slice(left, left + stride[1] * (blocks[1] - 1) + 1, stride[1])


def im2col(x: np.ndarray, kernel, dilation, padding, stride) -> np.ndarray:
    """(N, C, H, W) -> (N, C*kh*kw, L): channel-major, then kernel row, then kernel column."""
    n, c, h, w = x.shape
    blocks = _blocks((h, w), kernel, dilation, padding, stride)
    padded = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    out = np.empty((n, c, kernel[0], kernel[1], *blocks), dtype=x.dtype)
    for ki, kj, rows, cols in _offsets(kernel, dilation, stride, blocks):
        out[:, :, ki, kj] = padded[:, :, rows, cols]
    return out.reshape(n, c * kernel[0] * kernel[1], blocks[0] * blocks[1])


def col2im(cols: np.ndarray, size, kernel, dilation, padding, stride) -> np.ndarray:
    """The adjoint of im2col: every column entry added back to the pixel it was read from."""
    n = cols.shape[0]
    c = cols.shape[1] // (kernel[0] * kernel[1])
    blocks = _blocks(size, kernel, dilation, padding, stride)
    parts = cols.reshape(n, c, kernel[0], kernel[1], *blocks)
    padded = np.zeros((n, c, size[0] + 2 * padding[0], size[1] + 2 * padding[1]),
                      dtype=cols.dtype)
    for ki, kj, rows, cols_ in _offsets(kernel, dilation, stride, blocks):
        padded[:, :, rows, cols_] += parts[:, :, ki, kj]
    return np.ascontiguousarray(padded[:, :, padding[0]:padding[0] + size[0],
                                       padding[1]:padding[1] + size[1]])


def _unbatched(function, batched_ndim: int):
    """Run a kernel written for batched arrays on an unbatched one too (no squeeze node)."""

    def wrapper(ctx, a, **params):
        if a.ndim == batched_ndim:
            return function(ctx, a, **params)
        return function(ctx, a[None], **params)[0]

    return staticmethod(wrapper)


@register
class Im2Col(Op):
    """F.unfold: the sliding blocks of (N, C, H, W) input as columns (N, C*kh*kw, L)."""

    node = "Im2ColBackward0"
    complex_ok = True  # moves values: linear, so its gradient needs no conjugate
    vmap = batch.fold(4)
    torch_names = ("nn.functional.unfold",)

    @staticmethod
    def _kernel(ctx, x, kernel, dilation, padding, stride):
        return im2col(x, kernel, dilation, padding, stride)

    forward = _unbatched(_kernel.__func__, 4)

    def backward(self, grad):
        size = tuple(self.input_shape()[-2:])
        return Col2Im.apply(grad, size=size, **self._params)

    jvp = auto_linear


@register
class Col2Im(Op):
    """F.fold: columns (N, C*kh*kw, L) summed back into (N, C, H, W) images."""

    node = "Col2ImBackward0"
    complex_ok = True  # moves values: linear, so its gradient needs no conjugate
    vmap = batch.fold(3)
    torch_names = ("nn.functional.fold",)

    @staticmethod
    def _kernel(ctx, cols, size, kernel, dilation, padding, stride):
        return col2im(cols, size, kernel, dilation, padding, stride)

    forward = _unbatched(_kernel.__func__, 3)

    def backward(self, grad):
        params = {k: v for k, v in self._params.items() if k != "size"}
        return Im2Col.apply(grad, **params)

    jvp = auto_linear


# -- max unpooling ------------------------------------------------------------------------------


@register
class MaxUnpool2d(Op):
    """Each input value written at its flat index in a zero (N, C, H, W) output plane."""

    node = "MaxUnpool2DBackward0"
    index_saves = {"indices": ()}  # Note: saved index tensors (registry.py)
    vmap = batch.fold(4, batched_params=("indices",))
    torch_names = ("nn.functional.max_unpool2d",)

    @staticmethod
    def forward(ctx, x, indices, output_size):
        unbatched = x.ndim == 3
        if unbatched:
            x, indices = x[None], indices[None]
        n, c = x.shape[:2]
        out = np.zeros((n, c, output_size[0] * output_size[1]), dtype=x.dtype)
        np.put_along_axis(out, indices.reshape(n, c, int(np.prod(indices.shape[2:]))),
                          x.reshape(n, c, int(np.prod(x.shape[2:]))), axis=2)
        out = _layout.suggested(out.reshape(n, c, *output_size), x)
        return out[0] if unbatched else out

    def backward(self, grad):
        from ..tensor import _wrap

        indices = self._params["indices"]
        lead = indices.shape[:-2]
        kept = self.index_tensor("indices")  # the kept tensor: the gather keeps it too
        index = _wrap(indices) if kept is None or kept.shape != indices.shape else kept
        picked = grad.reshape(*lead, int(np.prod(grad.shape[len(lead):]))).gather(
            len(lead), index.reshape(*lead, int(np.prod(index.shape[len(lead):]))))
        return picked.reshape(*indices.shape)

    jvp = auto_linear


# -- channel shuffle ----------------------------------------------------------------------------


@register
class ChannelShuffle(Op):
    """(N, g*k, *) -> (N, k*g, *): channel ``i*k + j`` moves to ``j*g + i``."""

    node = "ChannelShuffleBackward0"
    complex_ok = True  # a permutation of the values
    uint_kernel = "channel_shuffle"
    vmap = batch.fold(None)
    torch_names = ("nn.functional.channel_shuffle",)

    @staticmethod
    def forward(ctx, a, groups):
        n, c = a.shape[:2]
        rest = a.shape[2:]
        out = a.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
        return _layout.suggested(np.ascontiguousarray(out).reshape(a.shape), a)

    def backward(self, grad):
        # the inverse permutation is the shuffle with the other factor
        return ChannelShuffle.apply(grad, groups=grad.shape[1] // self._params["groups"])

    jvp = auto_linear


# -- weight norm (ATen's _weight_norm_interface: dim 0 or the last dim) -------------------------


def _norm_axes(ndim: int, dim: int) -> tuple:
    return tuple(i for i in range(ndim) if i != dim)


@register
class WeightNormInterface(Op):
    """``w = v * g / ||v||``, the norm over every dim but ``dim`` (kept as size 1)."""

    node = "WeightNormInterfaceBackward0"
    complex_message = '"weight_norm_kernel" not implemented for \'ComplexFloat\''
    inputs = ("v", "g")
    saves = {"v": ("v", "g"), "g": ("v",)}
    torch_names = ("_weight_norm",)

    @staticmethod
    def forward(ctx, v, g, dim):
        axes = _norm_axes(v.ndim, dim)
        norms = np.sqrt(np.sum(v * v, axis=axes, keepdims=True))
        return v * (g / norms)

    def backward(self, grad):
        v = self.saved("v")
        axes = _norm_axes(v.dim(), self._params["dim"])
        # the norms again, from v as tensors: under create_graph their dependence on v counts
        norms = (v * v).sum(axes, keepdim=True).sqrt()
        along = (grad * v).sum(axes, keepdim=True)
        grad_v = grad_g = None
        if self.needs_grad(0):
            g = self.saved("g")
            grad_v = (g / norms) * (grad - v * (along / (norms * norms)))
        if self.needs_grad(1):
            grad_g = along / norms
        return grad_v, grad_g

    def jvp(self, tangents, primals, result):
        # torch has no forward-mode formula for _weight_norm_interface; this differentiates
        # w = v * g / ||v||: (g / n) * (v_t - v * <v, v_t> / n^2) + v * g_t / n
        v, g = primals
        axes = _norm_axes(v.dim(), self._params["dim"])
        norms = (v * v).sum(axes, keepdim=True).sqrt()
        return jvp_sum(
            tangents,
            lambda t: (g / norms) * (t - v * ((t * v).sum(axes, keepdim=True) / (norms * norms))),
            lambda t: v * (t / norms))
