"""3-d pooling in ``nn.functional`` (ops in ops/pool3d.py): argument checks and messages as
ATen's, then the op."""

from __future__ import annotations

import math

import numpy as np

from ..ops import _layout
from ..ops import pool as _ops_pool
from ..ops.registry import keep_index
from ..ops.pool3d import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, MaxPool3d,
                          MaxUnpool3d)
from ..ops.pool import _pool_size
from ._functional_layers import _lp_finish, _unpool_output_size

__all__ = ["max_pool3d", "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d",
           "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_unpool3d",
           "lp_pool3d"]


def _triple(value, message: str, allow_empty: bool = False) -> tuple:
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return tuple(value) * 3
        if len(value) == 3:
            return tuple(value)
        if allow_empty and len(value) == 0:
            return ()
        raise RuntimeError(message)
    return (value,) * 3


def _check_input(input) -> None:
    if input.dim() not in (4, 5) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")


def _check_dims(input) -> None:
    """max_pool3d/avg_pool3d's first input check: 4 or 5 dims (emptiness comes later)."""
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")


def _check_half_kernel(kernel, padding) -> None:
    """pool3d_shape_check's padding check, on the undilated kernel (after its input checks)."""
    if any(k // 2 < p for k, p in zip(kernel, padding)):
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} padT: {padding[0]} "
                           f"padW: {padding[2]} padH: {padding[1]}")


def _check_not_empty(input, name: str) -> None:
    """pool3d_shape_check's, after the kernel, stride and dilation: no empty non-batch dim
    (its message names dimension 0 whichever dim it is)."""
    first = input.dim() - 4
    if any(s == 0 for s in input.shape[first:]):
        raise RuntimeError(f"{name}: Expected input's non-batch dimensions to have positive "
                           f"length, but input has a shape of {list(input.shape)} and non-batch "
                           "dimension 0 has length zero!")


def _pool_args(name: str, kernel_size, stride, padding, dilation=None):
    must = "must either be" if name == "max_pool3d" else "must be"
    kernel = _triple(kernel_size, f"{name}: kernel_size {must} a single int, or a tuple of "
                                  "three ints")
    stride_text = ("must either be omitted" if name == "max_pool3d" else "must be omitted")
    if stride is None:
        stride = ()
    stride = _triple(stride, f"{name}: stride {stride_text}, a single int, or a tuple of three "
                             "ints", allow_empty=True) or kernel
    padding = _triple(padding, f"{name}: padding {must} a single int, or a tuple of three ints")
    if dilation is not None:
        dilation = _triple(dilation, f"{name}: dilation must be either a single int, or a tuple "
                                     "of three ints")
    return kernel, stride, padding, dilation


def _check_pad(kernel, padding, dilation, stride=None) -> None:
    """ATen's pooling_output_shape checks, one dim after another (stride, then the padding
    against the dilated kernel, halved as C++ divides), then pool3d_shape_check's on the
    kernel, stride and dilation as a whole."""
    for k, p, d, s in zip(kernel, padding, dilation, stride or (1, 1, 1)):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > int(((k - 1) * d + 1) / 2):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    if stride is None:
        return
    if any(k <= 0 for k in kernel):
        raise RuntimeError("kernel size should be greater than zero, but got kT: {} kH: {} "
                           "kW: {}".format(*kernel))
    if any(s <= 0 for s in stride):
        raise RuntimeError("stride should be greater than zero, but got dT: {} dH: {} "
                           "dW: {}".format(*stride))
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got dilationT: {} "
                           "dilationH: {} dilationW: {}".format(*dilation))


def _output_sizes(input, kernel, stride, padding, dilation, ceil_mode):
    sizes = input.shape[-3:]
    return tuple(_pool_size(s, k, st, p, d, ceil_mode)
                 for s, k, st, p, d in zip(sizes, kernel, stride, padding, dilation))


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    kernel, stride, padding, dilation = _pool_args("max_pool3d", kernel_size, stride, padding,
                                                   dilation)
    _check_dims(input)
    _check_pad(kernel, padding, dilation, stride)
    _check_not_empty(input, "max_pool3d_with_indices_out_cpu_template()")
    _check_half_kernel(kernel, padding)
    outs = _output_sizes(input, kernel, stride, padding, dilation, ceil_mode)
    if any(o < 1 for o in outs):
        size = "x".join(str(s) for s in input.shape[-4:])
        out = "x".join(str(s) for s in (input.shape[-4],) + outs)
        raise RuntimeError(f"Given input size: ({size}). Calculated output size: ({out}). "
                           "Output size is too small")
    _ops_pool.check_kernel_dtype("max_pool3d", input)
    values, indices = MaxPool3d.apply(input, kernel=kernel, stride=stride, padding=padding,
                                      dilation=dilation, ceil_mode=bool(ceil_mode))
    return (values, indices) if return_indices else values


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    kernel, stride, padding, _ = _pool_args("avg_pool3d", kernel_size, stride, padding)
    _check_dims(input)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pad(kernel, padding, (1, 1, 1), stride)
    _check_not_empty(input, "avg_pool3d()")
    sizes = input.shape[-3:]
    if any(s < k for s, k in zip(sizes, kernel)):  # (the padding is not counted)
        raise RuntimeError(
            f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller than kernel size "
            f"(kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    _check_half_kernel(kernel, padding)
    _ops_pool.check_kernel_dtype("avg_pool3d_out_frame", input)
    return AvgPool3d.apply(input, kernel=kernel, stride=stride, padding=padding,
                           ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                           divisor_override=divisor_override)


def _adaptive_size(input, output_size, name: str, check_dims: bool = True) -> tuple:
    if isinstance(output_size, (tuple, list)):
        if input.dim() <= len(output_size):  # torch's Python _list_with_default, first
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        if len(output_size) != 3:
            if name == "adaptive_avg_pool3d":
                raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
            raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must "
                               "be 3")
        size = tuple(input.shape[input.dim() - 3 + i] if s is None else s
                     for i, s in enumerate(output_size))
    else:
        size = (output_size,) * 3
    if check_dims and input.dim() not in (4, 5):
        got = list(input.shape)
        if name == "adaptive_avg_pool3d":
            raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {got}")
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {got}")
    if any(s < 0 for s in size):
        if name == "adaptive_avg_pool3d":
            raise RuntimeError(
                "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 "
                f"but received {{{size[0]}, {size[1]},{size[2]}}}")
    return size


def _check_adaptive_not_empty(input, name: str) -> None:
    """The adaptive kernels' check: dims 1 onwards non-empty (dim 0 too is the batch or the
    channels)."""
    for dim in range(1, input.dim()):
        if input.shape[dim] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {dim} being empty")


def adaptive_avg_pool3d(input, output_size):
    # torch's own shortcut (MeanBackward1), taken before the kernel's dims check
    if _adaptive_size(input, output_size, "adaptive_avg_pool3d", check_dims=False) == (1, 1, 1):
        out = input.mean((-1, -2, -3), keepdim=True)
        data = input._data
        if data.ndim == 5 and not data.flags.c_contiguous and _layout.is_channels_last(data, 5):
            # torch restrides it in place to channels-last strides (AsStridedBackward1)
            channels = input.shape[1]
            out.as_strided_((input.shape[0], channels, 1, 1, 1), (channels, 1) + (channels,) * 3)
        return out
    size = _adaptive_size(input, output_size, "adaptive_avg_pool3d")
    _check_adaptive_not_empty(input, "adaptive_avg_pool3d")
    _ops_pool.check_kernel_dtype("adaptive_avg_pool3d_cpu", input)
    return AdaptiveAvgPool3d.apply(input, output_size=size)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    size = _adaptive_size(input, output_size, "adaptive_max_pool3d")
    _check_adaptive_not_empty(input, "adaptive_max_pool3d")
    _ops_pool.check_kernel_dtype("adaptive_max_pool3d_cpu", input)
    values, indices = AdaptiveMaxPool3d.apply(input, output_size=size)
    return (values, indices) if return_indices else values


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool3d(input, output_size, True)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d: values back at their indices, zeros elsewhere."""
    kernel = _triple(kernel_size, "")
    step = _triple(stride, "") if stride is not None else kernel
    size = _unpool_output_size(input, kernel, step, _triple(padding, ""), output_size)
    if indices._data.dtype != np.int64:
        raise RuntimeError("elements in indices should be type int64")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    if input.dim() not in (4, 5):
        raise RuntimeError("Input to max_unpooling3d should be a 4d or 5d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    volume = int(np.prod(size))
    flat = indices._data
    if flat.size and (flat.min() < 0 or flat.max() >= volume):
        bad = int(flat[(flat < 0) | (flat >= volume)][0])
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{size[0]}x{size[1]}x{size[2]})")
    return keep_index(MaxUnpool3d.apply(input, indices=flat, output_size=tuple(size)),
                      indices, "indices")


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 3-d windows: ``(sum of x^p) ^ (1/p)`` (p = inf: max |x|)."""
    kd, kh, kw = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * 3
    if isinstance(norm_type, (int, float)):
        if norm_type == math.inf:
            return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -math.inf:
            return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, kd * kh * kw, norm_type)
