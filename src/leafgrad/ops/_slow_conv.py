"""torch's slow 2-d convolution kernel (ATen's ConvolutionMM2d.cpp, ``thnn_conv2d``) replayed
with MKL's gemm, where torch takes it: every float64 convolution that is not dilated, and
float32 ones that oneDNN does not take (``conv._uses_mkldnn``: a single sample, a kernel of at
most 3x3, one thread). 1-d convolutions arrive here as 2-d ones of height 1.

Note: torch's slow convolution
Per sample ("frame"), torch unfolds the input into a (C*KH*KW, OH*OW) matrix (rows in
channel, kernel-row, kernel-column order; ``compute_columns2d``) and makes one gemm call:

- forward: the output frame (O, OH*OW), filled with the bias first (``beta = 1``) or not
  read (``beta = 0``), is ``weight (O, K) @ columns (K, P)``, in BLAS's column-major terms
  ``gemm('N', 'N', P, O, K, columns, weight, output)``;
- weight gradient: ``grad_weight (O, K) += grad_output_t (O, P) @ columns_t^T``, one call
  per sample in batch order onto a zeroed gradient (``beta = 1``): ``gemm('T', 'N', K, O,
  P, columns, grad_output, grad_weight)``;
- input gradient: the columns' gradient ``weight^T @ grad_output_t`` (``gemm('N', 'T', P,
  K, O, grad_output, weight, out)``), folded back onto a zeroed input gradient by
  ``unfolded2d_acc``: each input element adds its (kernel-row, kernel-column) terms in that
  order.

A grouped convolution runs this per group on the group's channels and concatenates. The
channels-last variant (another unfold order and other gemm calls) and dilated convolutions
(``slow_conv_dilated2d``) are not replayed: those keep conv.py's NumPy path, as does
everything when MKL is missing. The calls' last bits are MKL's; NumPy's BLAS summed in
another order (78% of a float64 conv2d's outputs differed, tests/test_tutorials4_findings.py).
"""

from __future__ import annotations

import numpy as np

from . import _blas
from . import _layout

_COLUMN_MAJOR, _N, _T = 102, 111, 112  # CBLAS_LAYOUT and CBLAS_TRANSPOSE values


def takes(input_shape, weight_shape, stride, dilation, groups: int, *arrays) -> bool:
    """Whether torch runs this 2-d convolution (a 1-d one as 2-d) with its slow kernel in the
    layout replayed here, and MKL is present to replay it. ``arrays``: the call's operands
    (input or output gradient, weight or output gradient), all of one dtype."""
    dtype = arrays[0].dtype
    if len(input_shape) != 4 or dtype.char not in "fde" or any(d != 1 for d in dilation):
        return False
    if any(a.dtype != dtype or a.ndim != 4 or _layout._channels_last(a) for a in arrays):
        return False
    if dtype.char == "e":  # torch's own loops (Note: float16 frames), no BLAS
        return True
    if _blas.off():
        return False
    if dtype == np.float32:
        from .conv import _uses_mkldnn

        if _uses_mkldnn(_Shape(input_shape), _Shape(weight_shape), stride, dilation, groups):
            return False
    return _blas._function(dtype.char) is not None


class _Shape:
    """A shape where conv._uses_mkldnn reads an array's."""

    def __init__(self, shape):
        self.shape = tuple(shape)


# Note: float16 frames
# torch has no float16 convolution of its own here (oneDNN's needs AVX512-FP16): a float16
# frame is the same cpublas::gemm call, which runs ATen's loops in float and rounds each
# output once (the bias, filled in first, added in float: leafgrad's NumPy product rounded
# the sum, then added the bias in float16: generated-program seed 20009194 printed 1.9287,
# torch 1.9297). Each call below is at::mm's call of the same row-major product, which
# linalg._reduced_gemm replays (Note: half-precision gemm).


def _gemm(char: str, transpose_a: bool, transpose_b: bool, m: int, n: int, k: int, a, lda: int,
          b, ldb: int, beta: int, c, ldc: int) -> None:
    """One column-major ``cblas_?gemm`` call with alpha 1 (``c`` written in place); float16:
    ATen's loops (Note: float16 frames)."""
    if char == "e":
        from .linalg import _reduced_gemm

        # column-major C (m x n) = op(A) (m x k) op(B) (k x n) is row-major C^T (n x m) =
        # op(B)^T op(A)^T, the operands read at their leading dimensions
        left = np.lib.stride_tricks.as_strided(b, (n, k), (2, 2 * ldb) if transpose_b
                                               else (2 * ldb, 2))
        right = np.lib.stride_tricks.as_strided(a, (k, m), (2, 2 * lda) if transpose_a
                                                else (2 * lda, 2))
        target = np.lib.stride_tricks.as_strided(c, (n, m), (2 * ldc, 2))
        target[...] = _reduced_gemm(left, right, target, beta=beta)
        return
    function, _, one, zero = _blas._function(char)
    function(_COLUMN_MAJOR, _T if transpose_a else _N, _T if transpose_b else _N, m, n, k, one,
             _blas._pointer(a), lda, _blas._pointer(b), ldb, one if beta else zero,
             _blas._pointer(c), ldc)


def _out_size(size: int, kernel: int, stride: int, padding: int) -> int:
    return (size + 2 * padding - kernel) // stride + 1


def columns(x: np.ndarray, kh: int, kw: int, stride, padding) -> np.ndarray:
    """compute_columns2d: (N, C*KH*KW, OH*OW), rows in (channel, kernel row, kernel column)
    order, zeros where a window reaches into the padding."""
    n, c, h, w = x.shape
    oh, ow = _out_size(h, kh, stride[0], padding[0]), _out_size(w, kw, stride[1], padding[1])
    ph, pw = padding
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x
    sn, sc, sh, sw = padded.strides
    windows = np.lib.stride_tricks.as_strided(
        padded, shape=(n, c, kh, kw, oh, ow),
        strides=(sn, sc, sh, sw, sh * stride[0], sw * stride[1]), writeable=False)
    return np.ascontiguousarray(windows).reshape(n, c * kh * kw, oh * ow)


def forward(x, w, bias, stride, padding, groups: int):
    """The convolution and each group's columns (kept for the weight gradient)."""
    n, _, h, width = x.shape
    out_channels, group_channels, kh, kw = w.shape
    oh, ow = _out_size(h, kh, stride[0], padding[0]), _out_size(width, kw, stride[1], padding[1])
    per_group = out_channels // groups
    pixels, depth = oh * ow, group_channels * kh * kw
    out = np.empty((n, out_channels, pixels), x.dtype)
    kept = []
    for g in range(groups):
        part = x[:, g * group_channels:(g + 1) * group_channels] if groups > 1 else x
        cols = columns(part, kh, kw, stride, padding)
        kept.append(cols)
        kernel = np.ascontiguousarray(w[g * per_group:(g + 1) * per_group]).reshape(
            per_group, depth)
        result = out if groups == 1 else np.empty((n, per_group, pixels), x.dtype)
        if bias is not None:
            result[...] = bias[g * per_group:(g + 1) * per_group, None]
        if per_group:
            for t in range(n):
                _gemm(x.dtype.char, False, False, pixels, per_group, depth, cols[t], pixels,
                      kernel, depth, bias is not None, result[t], pixels)
        if groups > 1:
            out[:, g * per_group:(g + 1) * per_group] = result
    return out.reshape(n, out_channels, oh, ow), kept


def weight_grad(g: np.ndarray, kept: list, weight_shape, groups: int) -> np.ndarray:
    """The weight gradient from the forward's columns, summed over the batch in order (a
    gradient of another dtype, autocast's bfloat16 one, in the columns' dtype)."""
    if kept and g.dtype != kept[0].dtype:
        g = g.astype(kept[0].dtype)
    n, out_channels = g.shape[:2]
    pixels = g.shape[2] * g.shape[3]
    per_group = out_channels // groups
    depth = int(np.prod(weight_shape[1:]))
    grad = np.empty((out_channels, depth), g.dtype)
    for gi, cols in enumerate(kept):
        rows = np.ascontiguousarray(g[:, gi * per_group:(gi + 1) * per_group]).reshape(
            n, per_group, pixels)
        part = np.zeros((per_group, depth), g.dtype)
        if per_group and depth:
            for t in range(n):
                _gemm(g.dtype.char, True, False, depth, per_group, pixels, cols[t], pixels,
                      rows[t], pixels, 1, part, depth)
        grad[gi * per_group:(gi + 1) * per_group] = part
    return grad.reshape(weight_shape)


def input_grad(g: np.ndarray, w: np.ndarray, input_shape, stride, padding,
               groups: int) -> np.ndarray:
    """The input gradient: each sample's columns gradient, folded back (unfolded2d_acc)."""
    n, _, oh, ow = g.shape
    out_channels, group_channels, kh, kw = w.shape
    per_group = out_channels // groups
    pixels, depth = oh * ow, group_channels * kh * kw
    h, width = input_shape[2], input_shape[3]
    ph, pw = padding
    grad = np.zeros((n, group_channels * groups, h + 2 * ph, width + 2 * pw), g.dtype)
    for gi in range(groups):
        rows = np.ascontiguousarray(g[:, gi * per_group:(gi + 1) * per_group]).reshape(
            n, per_group, pixels)
        kernel = np.ascontiguousarray(w[gi * per_group:(gi + 1) * per_group]).reshape(
            per_group, depth)
        cols = np.empty((n, depth, pixels), g.dtype)
        if per_group:
            for t in range(n):
                _gemm(g.dtype.char, False, True, pixels, depth, per_group, rows[t], pixels,
                      kernel, depth, 0, cols[t], pixels)
        else:
            cols.fill(0)
        cols = cols.reshape(n, group_channels, kh, kw, oh, ow)
        target = grad[:, gi * group_channels:(gi + 1) * group_channels]
        for i in range(kh):  # (terms in kernel-row, kernel-column order onto +0.)
            for j in range(kw):
                target[:, :, i:i + stride[0] * (oh - 1) + 1:stride[0],
                       j:j + stride[1] * (ow - 1) + 1:stride[1]] += cols[:, :, i, j]
    return grad[:, :, ph:ph + h, pw:pw + width]
