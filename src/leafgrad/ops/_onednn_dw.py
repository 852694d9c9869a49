"""torch's float32 depthwise convolutions (oneDNN's ``jit_uni_dw_conv`` kernels), replayed.

Where torch hands a float32 convolution to oneDNN (``conv._uses_mkldnn``) and it is
depthwise (groups == input channels == output channels, one weight channel per group),
oneDNN runs its depthwise kernels, which add each output's terms one fused multiply-add at a
time, not as a dot product:

- forward: an output starts from its channel's bias (from +0. without one) and adds
  ``input * weight`` for each kernel tap in (kernel-row, kernel-column) order, skipping the
  taps that fall on padding. Where a padding exceeds the dilated kernel's extent less one
  (on either side, the right one as oneDNN derives it from the output size), oneDNN's
  depthwise kernel declines and the taps are summed the same way from +0., the bias added
  after;
- input gradient: an input element starts from +0. and adds ``grad_output * weight`` for each
  tap that reads it, in the same order, fused; with a dilation, each product rounded first
  and then added.

Measured against torch 2.13 on an AVX-512 machine (oneDNN's ``jit_dw:avx512_core`` kernels,
ONEDNN_VERBOSE=1 names them; other instruction sets not measured): every element the same
(1-d as 2-d, strides, dilations, paddings, batches, kernels of 1 to 7, with and without a
bias); the matrix products conv.py makes summed the taps in other orders (a depthwise conv1d
as in mamba-minimal: 99 of 256 outputs differed in the last bit). A dilated input gradient is
oneDNN's ``gemm:jit`` convolution (a column matrix folded back: rounded products added).

The weight and bias gradients are the depthwise kernel's only for some shapes (kernels 2 or 3
wide, no dilation, a stride no wider than the kernel, paddings of at most half the kernel):
there each weight adds one fused product per output position and each bias one float32
addition, in (sample, row, column) order (``weight_grads``, ``bias_grads``; every element of
360 such 1-d and 2-d configurations). Other shapes go to ``gemm:jit``, whose blocked sums are
not replayed (conv.py's path), and so do channels-last operands (oneDNN's nhwc depthwise
kernels: the bias added after the taps on most shapes, the dilated input gradients in yet
another order).
"""

from __future__ import annotations

import numpy as np

from . import _layout

_F32 = np.float32
_F64 = np.float64


def takes(x_shape, w_shape, stride, dilation, groups: int, *arrays) -> bool:
    """Whether torch runs this (2-d, or 1-d as 2-d) convolution with oneDNN's depthwise kernel:
    float32 operands, oneDNN's path (``conv._uses_mkldnn``), one channel per group in and out."""
    if len(x_shape) != 4 or any(a.dtype != _F32 for a in arrays):
        return False
    if groups < 2 or x_shape[1] != groups or w_shape[0] != groups or w_shape[1] != 1:
        return False
    if x_shape[0] == 0 or any(s == 0 for s in x_shape[2:]):
        return False
    if any(a.ndim == 4 and _layout._channels_last(a) for a in arrays):
        return False  # (channels-last: oneDNN's nhwc kernels sum otherwise, not replayed)
    from .conv import _uses_mkldnn
    from ._slow_conv import _Shape

    return _uses_mkldnn(_Shape(x_shape), _Shape(w_shape), stride, dilation, groups)


def _taps(in_sizes, out_sizes, kernel, stride, padding, dilation):
    """Each kernel tap (i, j) that reads the input, with the output block it writes and the
    input block (strided slices) it reads, in oneDNN's (row, column) order."""
    def span(n_in, n_out, s, p, d, k):
        low = max(0, -(-(p - k * d) // s))  # the first output whose tap is not padding
        high = min(n_out, (n_in - 1 + p - k * d) // s + 1)
        return low, max(low, high)
    for i in range(kernel[0]):
        h0, h1 = span(in_sizes[0], out_sizes[0], stride[0], padding[0], dilation[0], i)
        if h0 >= h1:
            continue
        for j in range(kernel[1]):
            w0, w1 = span(in_sizes[1], out_sizes[1], stride[1], padding[1], dilation[1], j)
            if w0 >= w1:
                continue
            ih = h0 * stride[0] - padding[0] + i * dilation[0]
            iw = w0 * stride[1] - padding[1] + j * dilation[1]
            rows = slice(ih, ih + stride[0] * (h1 - h0 - 1) + 1, stride[0])
            cols = slice(iw, iw + stride[1] * (w1 - w0 - 1) + 1, stride[1])
            yield i, j, (slice(h0, h1), slice(w0, w1)), (rows, cols)


def _fma_block(acc: np.ndarray, a: np.ndarray, b: np.ndarray, fused: bool = True) -> None:
    """acc = float32(a * b + acc) with one rounding (a float32 product is exact in float64,
    the sum rounded once there and once to float32: as the hardware's fused multiply-add but
    for double rounding, which these sums did not meet in the measurements); not ``fused``:
    the float32 product rounded, then added."""
    if not fused:
        acc += a * b
        return
    wide = np.multiply(a, b, dtype=_F64)
    wide += acc
    acc[...] = wide


def _large_padding(in_sizes, out_sizes, kernel, stride, padding, dilation) -> bool:
    """Whether a padding (left, or the right one the output size implies) exceeds the dilated
    kernel's extent less one in some dim: oneDNN's depthwise forward kernel declines it."""
    for n_in, n_out, k, s, p, d in zip(in_sizes, out_sizes, kernel, stride, padding, dilation):
        extent = (k - 1) * d + 1
        right = (n_out - 1) * s + extent - n_in - p
        if p > extent - 1 or right > extent - 1:
            return True
    return False


def forward(x, w, bias, stride, padding, dilation, out_sizes) -> np.ndarray:
    """The (N, C, OH, OW) output of a depthwise convolution as oneDNN sums it."""
    n, c = x.shape[:2]
    out = np.empty((n, c, *out_sizes), _F32)
    kernel = w.shape[2:]
    bias_after = bias is not None and _large_padding(x.shape[2:], out_sizes, kernel, stride,
                                                     padding, dilation)
    out[...] = 0 if bias is None or bias_after else bias[None, :, None, None]
    for i, j, (orows, ocols), (irows, icols) in _taps(x.shape[2:], out_sizes, kernel, stride,
                                                      padding, dilation):
        _fma_block(out[:, :, orows, ocols], x[:, :, irows, icols],
                   w[None, :, 0, i, j, None, None])
    if bias_after:
        out += bias[None, :, None, None]
    return out


def input_grad(g, w, input_shape, stride, padding, dilation) -> np.ndarray:
    """The (N, C, H, W) input gradient of a depthwise convolution as oneDNN sums it."""
    out = np.zeros(input_shape, _F32)
    kernel = w.shape[2:]
    for i, j, (orows, ocols), (irows, icols) in _taps(input_shape[2:], g.shape[2:], kernel,
                                                      stride, padding, dilation):
        _fma_block(out[:, :, irows, icols], g[:, :, orows, ocols],
                   w[None, :, 0, i, j, None, None], fused=all(d == 1 for d in dilation))
    return out


_MAX_POSITIONS = 1 << 14  # (a Python loop over output positions: larger ones keep conv.py's)


def weight_grads_take(x_shape, w_shape, stride, padding, dilation, groups, *arrays) -> bool:
    """Whether oneDNN computes this depthwise convolution's weight and bias gradients with its
    depthwise kernel (``jit_dw`` backward_weights; otherwise ``gemm:jit``, not replayed):
    kernels 2 or 3 wide, no dilation, a stride no wider than the kernel, paddings of at most
    half the kernel (in each dim, on either side), float32 and not channels-last."""
    if not takes(x_shape, w_shape, stride, dilation, groups, *arrays):
        return False
    if any(d != 1 for d in dilation) or not 2 <= w_shape[3] <= 3 or stride[1] > w_shape[3]:
        return False
    positions = x_shape[0]
    for n_in, k, s, p in zip(x_shape[2:], w_shape[2:], stride, padding):
        n_out = (n_in + 2 * p - k) // s + 1
        right = (n_out - 1) * s + k - n_in - p
        if p > k // 2 or right > k // 2:
            return False
        positions *= n_out
    return positions <= _MAX_POSITIONS


def weight_grads(columns, g, kernel) -> np.ndarray:
    """The (C, 1, KH, KW) weight gradient as oneDNN's depthwise kernel sums it: for each
    weight, one fused multiply-add per output position, in (sample, row, column) order from
    +0. ``columns``: conv.py's im2col matrix of all channels ((N*OH*OW, KH*KW*C) in one
    list, padding as zeros, which add nothing)."""
    channels = g.shape[1]
    taps = kernel[0] * kernel[1]
    windows = columns[0].reshape(-1, taps, channels).transpose(0, 2, 1)  # (positions, C, taps)
    grads = g.transpose(0, 2, 3, 1).reshape(-1, channels, 1)
    acc = np.zeros(windows.shape[1:], _F32)
    step = 256  # (the exact float64 products, made a block of positions at a time)
    for start in range(0, windows.shape[0], step):
        products = np.multiply(windows[start:start + step], grads[start:start + step],
                               dtype=_F64)
        for row in products:  # acc + product in float64, rounded to float32: one ufunc call
            np.add(row, acc, out=acc, casting="unsafe")
    return acc.reshape(channels, 1, *kernel)


def bias_grads(g) -> np.ndarray:
    """The bias gradient as the same kernel sums it: one float32 addition per output
    position, in (sample, row, column) order from +0."""
    channels = g.shape[1]
    rows = g.transpose(0, 2, 3, 1).reshape(-1, channels)
    return np.add.accumulate(rows, axis=0)[-1] + _F32(0)
