"""The array kernels of 3-d convolutions, written for any number of spatial dims.

The convolution ops (``Convolution``, ``ConvInputGrad``, ``ConvWeightGrad``, ``ConvTranspose``
in conv.py) take ``spatial=3`` and hand (N, C, D, H, W) arrays here; the 1-d and 2-d cases keep
conv.py's tuned 2-d kernels. The method is the same: im2col in channels-last order through a
strided view, one matrix product per group, and col2im as one whole-tensor slice add per kernel
offset.
"""

from __future__ import annotations

import itertools

import numpy as np
from .._info import get_num_threads


def out_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _columns(x, kernel, out, stride, padding, dilation, channels=None) -> np.ndarray:
    """(N * prod(out), prod(kernel) * C) rows, one per output position (channels last)."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    dims = len(spatial)
    padded = np.zeros((n,) + tuple(s + 2 * p for s, p in zip(spatial, padding)) + (c,),
                      dtype=x.dtype)
    region = (slice(None),) + tuple(slice(p, p + s) for p, s in zip(padding, spatial))
    padded[region] = np.moveaxis(x, 1, -1)
    if channels is not None:
        padded = padded[..., channels]
    strides = padded.strides
    windows = np.lib.stride_tricks.as_strided(
        padded,
        shape=(n,) + tuple(out) + tuple(kernel) + (padded.shape[-1],),
        strides=(strides[0],) + tuple(strides[1 + i] * stride[i] for i in range(dims))
        + tuple(strides[1 + i] * dilation[i] for i in range(dims)) + (strides[-1],),
        writeable=False,
    )
    return windows.reshape(n * int(np.prod(out)), int(np.prod(kernel)) * padded.shape[-1])


def _kernel_matrix(w: np.ndarray) -> np.ndarray:
    """(O, C, *K) -> (O, prod(K) * C), matching _columns' order."""
    return np.moveaxis(w, 1, -1).reshape(w.shape[0], int(np.prod(w.shape[1:])))


def single_products(dtype, batch: int, products: int, groups: int, out_channels: int,
                    stride, positions: int) -> bool:
    """Whether torch's forward gives each output its one product's signed zero (below);
    ``positions``: the output's spatial elements per sample. One position (a 1-element
    output map) sums from +0. whatever the dtype and batch (measured: generated-program seed
    1900074, a float64 conv1d of stride 2 over one element)."""
    if dtype.kind != "f" or dtype.itemsize == 2 or products != 1 or groups != 1 or \
            out_channels < 2 or positions == 1:
        return False  # (float16 and bfloat16 sum from +0. in float32: measured, conv1d/2d/3d)
    if batch == 1 or dtype != np.float32:
        return True
    # a float32 batch of two or more runs a kernel whose sums start from +0. when torch splits
    # it over threads or the stride is not 1; with one thread and stride 1, single samples

    return all(step == 1 for step in stride) and get_num_threads() == 1


def sign_zero_products(block: np.ndarray, columns: np.ndarray, kernel: np.ndarray) -> None:
    """A convolution of one product per output (one input channel, a 1-element kernel, two or
    more output channels, no groups): torch's result is the product, -0. where it is (padding
    under a negative weight), where NumPy's matmul sums it onto +0. (generated-program seeds
    37766, 38014; torch's sums start from +0. for one output channel (seed 37354), two or more
    products, float32 groups, and float32 batches of two or more on two or more threads or
    with a stride). Written into ``block``'s zeros. Not for the input gradient computed as a
    convolution (conv.conv_input_grad): torch's backward kernel starts from +0. there (seeds
    57898, 52582: a zero gradient through one output channel and a 1-element kernel)."""
    zeros = block == 0
    if zeros.any():
        block[zeros] = (columns * kernel.T)[zeros]


def forward(x, w, stride, padding, dilation, groups, bias=None, keep=None) -> np.ndarray:
    """out[n, o] = sum over c, kernel of x[n, c, window] * w[o, c] (cross-correlation)."""
    n = x.shape[0]
    out_channels, group_channels = w.shape[:2]
    kernel = w.shape[2:]
    out = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in
                zip(x.shape[2:], kernel, stride, padding, dilation))
    per_group = out_channels // groups
    result = np.empty((n * int(np.prod(out)), out_channels), dtype=np.result_type(x, w))
    kept = []
    for g in range(groups):
        channels = slice(g * group_channels, (g + 1) * group_channels) if groups > 1 else None
        columns = _columns(x, kernel, out, stride, padding, dilation, channels)
        matrix = _kernel_matrix(w[g * per_group:(g + 1) * per_group])
        block = result[:, g * per_group:(g + 1) * per_group]
        np.matmul(columns, matrix.T, out=block)
        if single_products(result.dtype, n, columns.shape[1], groups, out_channels, stride,
                           columns.shape[0] // max(n, 1)):
            sign_zero_products(block, columns, matrix)
        kept.append(columns)
    if keep is not None:
        keep.extend(kept)
    if bias is not None:
        result += bias
    return np.moveaxis(result.reshape((n,) + out + (out_channels,)), -1, 1)


def input_grad(g, w, input_shape, stride, padding, dilation, groups) -> np.ndarray:
    """The adjoint of ``forward`` in x (col2im: g times the kernel, scattered back)."""
    n, _ = g.shape[:2]
    out = g.shape[2:]
    out_channels, group_channels = w.shape[:2]
    kernel = w.shape[2:]
    per_group = out_channels // groups
    padded = tuple(s + 2 * p for s, p in zip(input_shape[2:], padding))
    grad = np.zeros((n, group_channels * groups) + padded, dtype=np.result_type(g, w))
    rows = np.moveaxis(g, 1, -1).reshape(g.size // out_channels if out_channels else 0,
                                         out_channels)
    for gi in range(groups):
        matrix = w[gi * per_group:(gi + 1) * per_group].reshape(per_group,
                                                                int(np.prod(w.shape[1:])))
        cols = (rows[:, gi * per_group:(gi + 1) * per_group] @ matrix).reshape(
            (n,) + out + (group_channels,) + tuple(kernel))
        cols = np.moveaxis(cols, len(out) + 1, 1)  # (n, C, *out, *kernel)
        target = grad[:, gi * group_channels:(gi + 1) * group_channels]
        for offset in itertools.product(*(range(k) for k in kernel)):
            where = (slice(None), slice(None)) + tuple(
                slice(o * d, o * d + s * (size - 1) + 1, s)
                for o, d, s, size in zip(offset, dilation, stride, out))
            target[where] += cols[(Ellipsis,) + offset]
    region = (slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in
                                                 zip(padding, input_shape[2:]))
    return grad[region]


def weight_grad(x, g, weight_shape, stride, padding, dilation, groups,
                columns=None) -> np.ndarray:
    """The adjoint of ``forward`` in w: correlate the input windows with g."""
    out = g.shape[2:]
    out_channels, group_channels = weight_shape[:2]
    kernel = tuple(weight_shape[2:])
    per_group = out_channels // groups
    rows = np.moveaxis(g, 1, -1).reshape(g.size // out_channels if out_channels else 0,
                                         out_channels)
    grad = np.empty((out_channels,) + kernel + (group_channels,),
                    dtype=np.result_type(g if x is None else x, g))
    for gi in range(groups):
        if columns is not None:
            matrix = columns[gi]
        else:
            channels = slice(gi * group_channels, (gi + 1) * group_channels) if groups > 1 \
                else None
            matrix = _columns(x, kernel, out, stride, padding, dilation, channels)
        part = rows[:, gi * per_group:(gi + 1) * per_group].T @ matrix
        grad[gi * per_group:(gi + 1) * per_group] = part.reshape(
            (per_group,) + kernel + (group_channels,))
    return np.moveaxis(grad, -1, 1)
