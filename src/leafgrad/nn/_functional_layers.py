"""Functional layers composed from existing ops the way ATen composes them, so grad_fn names
are torch's: 1-d pooling (unsqueeze, the 2-d kernel, squeeze: SqueezeBackward1), adaptive max
pooling (its own op, ``_layer_ops.py``), conv_transpose1d (the transposed convolution op at
height 1: ConvolutionBackward0) and the channel-wise / alpha dropouts (the input times a noise
tensor: MulBackward0 / AddBackward0)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _argparse
from .. import _dtype as _dtype

from .. import _rng as _random
from .. import ops as _ops
from ..ops.conv import (ConvTranspose, _check_bool, _check_complex_types, _check_conv,
                        _check_params,
                        _complex_convolution, _refuse_no_output_channels, _refuse_zero_dilation,
                        check_int_lists,
                        check_output_padding, check_real_with_complex_bias)
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..tensor import _wrap, Tensor
from ..ops import pool as _ops_pool
from ._layer_ops import (AdaptiveMaxPool2d, ChannelShuffle, Col2Im, Im2Col,  # registered ops
                         MaxUnpool2d, PixelShuffle, PixelUnshuffle, _blocks)
from ._layer_ops import WeightNormInterface  # noqa: F401 - registered (nn.utils.weight_norm)
from .._out import _C10
from ..ops.trilinear import Trilinear
from ._functional_nn import batch_norm, check_scalable, relu
from ..ops.registry import array_kernel
from ..autograd._vmap_state import batched_draw, random_levels, state as vmap_state
from ._functional_nn import in_layout_of

__all__ = ["max_pool1d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d",
           "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
           "adaptive_max_pool2d_with_indices", "conv_transpose1d", "dropout1d", "dropout2d",
           "dropout3d", "alpha_dropout", "feature_alpha_dropout", "bilinear", "rms_norm",
           "instance_norm", "pixel_shuffle", "pixel_unshuffle", "unfold", "fold",
           "lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d", "channel_shuffle",
           "native_channel_shuffle", "local_response_norm"]


def _one(value, name: str):
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(f"{name} must be a single int, or a tuple of one int")
        return value[0]
    return value


def _ints(value) -> list:
    return [int(v) for v in value] if isinstance(value, (tuple, list)) else [int(value)]


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode) -> None:
    """torch's checks of max_pool1d without indices (check_max_pool1d), in their order."""
    shape = list(input.shape)
    if not ((len(shape) == 2 and shape[0] != 0 and shape[1] != 0)
            or (len(shape) == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{shape}")
    kernel, pad, dil = _ints(kernel_size), _ints(padding), _ints(dilation)
    step = [] if stride is None else _ints(stride)
    if len(kernel) != 1:
        raise RuntimeError("max_pool1d() kernel_size must be an int, list of ints or tuple of "
                           f"ints of size 1 but got size {len(kernel)}")
    if len(step) > 1:
        raise RuntimeError("max_pool1d() stride must be None, an int, list of ints, or tuple of "
                           f"ints of size 1 but got size {len(step)}")
    if len(pad) != 1:
        raise RuntimeError("max_pool1d() padding must be an int, list of ints, or tuple of ints "
                           f"of size 1 but got size {len(pad)}")
    if len(dil) != 1:
        raise RuntimeError("max_pool1d() dilation must be an int, list of ints or tuple of ints "
                           f"of size 1 but got size {len(dil)}")
    step = step or kernel
    if kernel[0] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got "
                           f"{kernel[0]}")
    if step[0] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {step[0]}")
    if pad[0] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {pad[0]}")
    if pad[0] > kernel[0] // 2:
        raise RuntimeError("max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={pad[0]} and kernel_size={kernel[0]}")
    if dil[0] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dil[0]}")
    width = _ops_pool._output_size(shape[-1], kernel[0], pad[0], step[0], dil[0], ceil_mode)
    if width <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {width}")


def _check_1d_args(name: str, input, kernel_size, stride, padding, dilation=None) -> None:
    """torch's checkDimRange and check1d of max_pool1d_with_indices / avg_pool1d."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")
    stride = kernel_size if stride is None or stride == () or stride == [] else stride
    for arg, value in (("kernel_size", kernel_size), ("stride", stride),
                       ("padding", padding), ("dilation", dilation)):
        if value is not None and len(_ints(value)) != 1:
            raise RuntimeError(f"{name}() argument '{arg}' should contain one int (got "
                               f"{len(_ints(value))})")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    kernel_size, stride, padding, dilation, ceil_mode = _argparse.pool_options(
        "max_pool1d_with_indices" if return_indices else "max_pool1d", kernel_size, stride,
        padding, dilation, ceil_mode)
    if not return_indices:  # (torch.max_pool1d; with indices, max_pool2d's checks decide)
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    _check_1d_args("max_pool1d", input, kernel_size, stride, padding, dilation)
    if not return_indices and not (input._may_require_grad() and is_grad_enabled()):
        _ops_pool.check_kernel_dtype("max_pool1d_impl", input)  # (torch's no-index kernel)
    kernel = _one(kernel_size, "max_pool1d: kernel_size")
    step = kernel if stride is None or stride == () or stride == [] else _one(stride, "stride")
    out = _ops.max_pool2d(input.unsqueeze(-2), (1, kernel), (1, step),
                          (0, _one(padding, "padding")), (1, _one(dilation, "dilation")),
                          ceil_mode, return_indices)
    if return_indices:
        values, indices = out
        return values.squeeze(-2), indices.squeeze(-2)
    return out.squeeze(-2)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@_argparse.parsed("avg_pool1d")  # (a C function in torch: its parser's errors)
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    if ceil_mode.__class__ is not bool or count_include_pad.__class__ is not bool or not (
            stride is None or stride.__class__ is int) or padding.__class__ is not int:
        # anything else is checked as torch's parser checks it (raising: @parsed's error)
        _argparse.doubles("avg_pool1d", ("ceil_mode", ceil_mode, 5, "bool"),
                          ("count_include_pad", count_include_pad, 6, "bool"))
        if stride is not None:  # (as tuples of Python ints: a NumPy integer compares as one)
            stride = _argparse.int_list("avg_pool1d", "stride", stride)
        padding = _argparse.int_list("avg_pool1d", "padding", padding)
    _check_1d_args("avg_pool1d", input, kernel_size, stride, padding)
    kernel = _one(kernel_size, "avg_pool1d: kernel_size")
    step = kernel if stride is None or stride == () or stride == [] else _one(stride, "stride")
    out = _ops.avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, step),
                          (0, _one(padding, "padding")), ceil_mode, count_include_pad, None)
    return out.squeeze(-2)


def _check_output_size_ints(name: str, output_size) -> None:
    """The 1-d adaptive pools' argument parser: output_size is a list of ints (no None: torch's
    _list_with_default is not applied to them), reported as passed by position."""
    if isinstance(output_size, (tuple, list)):
        for index, element in enumerate(output_size):
            if isinstance(element, bool) or not isinstance(element, (int, np.integer)):
                raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of "
                                f"ints, but found element of type {type(element).__name__} at "
                                f"pos {index}")


def adaptive_avg_pool1d(input, output_size):
    _check_output_size_ints("adaptive_avg_pool1d", output_size)
    _check_1d_args("adaptive_avg_pool1d", input, 1, 1, 0)  # (the rank)
    if len(_ints(output_size)) != 1:
        raise RuntimeError("adaptive_avg_pool1d() argument 'output_size' should contain one int "
                           f"(got {len(_ints(output_size))})")
    size = _ints(output_size)[0]
    return _ops.adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over adaptive bins of (N, C, H, W) or (C, H, W) input (AdaptiveMaxPool2DBackward0)."""
    if isinstance(output_size, (tuple, list)):
        # torch's _list_with_default: None keeps that input size
        if input.dim() <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        tail = input.shape[input.dim() - len(output_size):]
        size = tuple(d if s is None else s for s, d in zip(output_size, tail))
    else:
        size = (output_size, output_size)
    if input.dim() not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}"
        )
    for dim in range(1, input.dim()):
        if input.shape[dim] <= 0:
            raise RuntimeError(
                "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input.shape)} with dimension {dim} "
                "being empty"
            )
    shape = [*input.shape[:-2], *size]
    if any(s < 0 for s in size):
        negative = next(s for s in size if s < 0)
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {negative}: {shape}"
        )
    _ops_pool.check_kernel_dtype("adaptive_max_pool2d", input)
    values, indices = AdaptiveMaxPool2d.apply(input, output_size=tuple(size))
    return (values, indices) if return_indices else values


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max over adaptive bins of (N, C, L) or (C, L) input, through the 2-d kernel."""
    _check_output_size_ints("adaptive_max_pool1d", output_size)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for adaptive_max_pool1d)"
        )
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError(
                "adaptive_max_pool1d() argument 'output_size' should contain one int (got "
                f"{len(output_size)})"
            )
        output_size = output_size[0]
    for dim in range(1, input.dim()):
        if input.shape[dim] <= 0:
            raise RuntimeError(
                "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input.shape)} with dimension {dim} "
                "being empty")
    size = output_size
    values, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), True)
    if return_indices:
        return values.squeeze(-2), indices.squeeze(-2)
    return values.squeeze(-2)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool1d(input, output_size, True)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The gradient of conv1d with respect to its input, over (N, C, L) or (C, L) input."""
    check_int_lists("conv_transpose1d", stride=stride, padding=padding,
                    output_padding=output_padding, dilation=dilation)
    step, pad = _one(stride, "stride"), _one(padding, "padding")
    extra, spread = _one(output_padding, "output_padding"), _one(dilation, "dilation")
    _check_params(input, weight, "conv_transpose1d", 1, (step,), (pad,), groups, (spread,),
                  output_padding=(extra,))
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    _check_conv(x, weight, groups, 1, "conv_transpose1d", transposed=True, bias=bias)
    _check_bool(x, "slow_conv_transpose2d_out_cpu")
    if weight.shape[1] == 0:
        _refuse_no_output_channels(x, weight, (step,), (spread,), groups, 1)
    if spread == 0:
        _refuse_zero_dilation(x, weight, (step,), (spread,), groups, 1)
    check_output_padding((0, extra), (1, step), (1, spread))
    length = (x.shape[2] - 1) * step - 2 * pad + spread * (weight.shape[2] - 1) + extra + 1
    params = dict(stride=(1, step), padding=(0, pad), dilation=(1, spread), groups=groups,
                  spatial=1, output_shape=(x.shape[0], weight.shape[1] * groups, length))
    if x._data.dtype.kind == "c" or weight._data.dtype.kind == "c":
        _check_complex_types(x, weight, bias)
        out = _complex_convolution(ConvTranspose, x, weight, bias, params)
    else:
        check_real_with_complex_bias(x, bias, transposed=True)
        out = ConvTranspose.apply(x, weight, bias, **params)
    return out.squeeze(0) if unbatched else out


def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = input1 @ weight[o] @ input2 (+ bias[o])`` over matching batch dims; built
    as ATen builds it (flatten the batch, _trilinear, reshape back: ViewBackward0)."""
    try:
        return _bilinear(input1, input2, weight, bias)
    except Exception:  # a non-Tensor argument: torch's parser error
        _argparse.require_tensors("bilinear", ("input1", input1, 1, False),
                                  ("input2", input2, 2, False), ("weight", weight, 3, False),
                                  ("bias", bias, 4, True))
        raise


def _bilinear(input1, input2, weight, bias=None):
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + (
        [("bias", bias)] if bias is not None else [])
    if len({tensor.dtype for _, tensor in named}) > 1:
        listed = ", ".join(f"{name}: {_C10.get(t.dtype.name, 'c10::BFloat16')}"
                           for name, t in named)
        raise RuntimeError(f"All tensors must have the same dtype, got {listed}")

    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for dim in range(input1.dim() - 1):
        if input1.shape[dim] != input2.shape[dim]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {dim}: got "
                f"{input1.shape[dim]} and {input2.shape[dim]}"
            )
    for which, tensor, axis in (("input1", input1, 1), ("input2", input2, 2)):
        if tensor.shape[-1] != weight.shape[axis]:
            raise RuntimeError(
                f"bilinear(): {which} size does not match weight size: got {tensor.shape[-1]} "
                f"but expected {weight.shape[axis]}"
            )
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but "
            f"expected {weight.shape[0]}"
        )
    flat1 = input1.reshape(-1, input1.shape[-1])
    flat2 = input2.reshape(-1, input2.shape[-1])
    # (batch, out, in1, in2) from the three, summed over in1 and in2: TrilinearBackward0
    out = Trilinear.apply(flat1, weight, flat2, expand1=(1, 3), expand2=(0,), expand3=(1, 2),
                          sumdim=(2, 3))
    out = out.reshape(*input1.shape[:-1], weight.shape[0])
    return out + bias if bias is not None else out


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x^2 over the last dims) + eps) * weight`` (eps None: the dtype's
    machine epsilon), composed as ATen composes it."""
    if _argparse.plain_ints(normalized_shape):
        shape = tuple(normalized_shape)
    else:  # (torch's F passes it positionally to torch.rms_norm: its parser's error)
        shape = _argparse.int_list("rms_norm", "normalized_shape", normalized_shape, 2,
                                   sized=False)
    count = len(shape)
    if count == 0:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.shape)} and normalized_shape = {list(shape)}"
        )
    if input.dim() < count:
        raise ValueError(
            f"Input tensor must have at least {count} dimensions, but got {input.dim()}"
        )
    if tuple(input.shape[input.dim() - count:]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{', '.join(str(s) for s in shape)}], but got input of size{list(input.shape)}"
        )
    if eps.__class__ is not float and eps is not None:  # torch.rms_norm's parser
        eps, = _argparse.doubles("rms_norm", ("eps", eps, 4, "float"))
    if eps is None:
        eps = float(_dtype.np_finfo(input._data.dtype).eps)
    dims = tuple(range(input.dim() - count, input.dim()))
    scale = input.pow(2).mean(dims, keepdim=True).add_(eps).rsqrt()
    out = input * scale
    return out * weight if weight is not None else out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) plane on its own: ATen's batch norm over the input
    viewed as (1, N*C, ...), per-channel parameters and statistics repeated N times, the
    running statistics then averaged back over the batch (ViewBackward0 on top)."""
    if use_input_stats:
        spatial = 1
        for size in input.shape[2:]:
            spatial *= size
        if spatial == 1:
            raise ValueError(
                "Expected more than 1 spatial element when training, got input size "
                f"torch.Size({list(input.shape)})"
            )
    if any(value is not None and not isinstance(value, Tensor)
           for value in (weight, bias, running_mean, running_var)):
        _argparse.require_tensors(  # torch.instance_norm's parser, in its order
            "instance_norm", ("input", input, 1, False), ("weight", weight, 2, True),
            ("bias", bias, 3, True), ("running_mean", running_mean, 4, True),
            ("running_var", running_var, 5, True))
    if use_input_stats.__class__ is not bool or momentum.__class__ is not float or \
            eps.__class__ is not float:  # torch.instance_norm's parser, after F's check
        use_input_stats, momentum, eps = _argparse.doubles(
            "instance_norm", ("use_input_stats", use_input_stats, 6, "bool"),
            ("momentum", momentum, 7, "float"), ("eps", eps, 8, "float"))
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    batch, channels = input.shape[0], input.shape[1]

    def repeated(t):
        return None if t is None else t.repeat(batch)

    stats_mean, stats_var = repeated(running_mean), repeated(running_var)
    flat = input.contiguous().view(1, batch * channels, *input.shape[2:])
    out = batch_norm(flat, stats_mean, stats_var, repeated(weight), repeated(bias),
                     use_input_stats, momentum, eps)
    if not use_input_stats:  # torch writes the statistics back only when it updated them
        return out.view(input.shape)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(stats_mean.view(batch, channels).mean(0))
        if running_var is not None:
            running_var.copy_(stats_var.view(batch, channels).mean(0))
    return out.view(input.shape)


def _check_factor(input, factor, name: str, argument: str) -> None:
    if not isinstance(factor, int) or isinstance(factor, bool):
        raise TypeError(
            f"{name}(): argument '{argument}' (position 2) must be int, not "
            f"{type(factor).__name__}"
        )
    if input.dim() < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {argument}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    _check_factor(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    channels = input.shape[-3]
    if channels % (upscale_factor * upscale_factor):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={channels} is not divisible by "
            f"{upscale_factor * upscale_factor}"
        )
    return PixelShuffle.apply(input, factor=upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    _check_factor(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    for name, dim in (("height", -2), ("width", -1)):
        if input.shape[dim] % downscale_factor:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                f"input.size({dim})={input.shape[dim]} is not divisible by {downscale_factor}"
            )
    return PixelUnshuffle.apply(input, factor=downscale_factor)


def _pair_of(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


_BLOCK_CHECKS = {
    "kernel": ("kernel size should be greater than zero, but got kernel_height: {} "
               "kernel_width: {}", lambda v: v > 0),
    "dilation": ("dilation should be greater than zero, but got dilation_height: {} "
                 "dilation_width: {}", lambda v: v > 0),
    "padding": ("padding should be non-negative, but got pad_height: {} pad_width: {}",
                lambda v: v >= 0),
    "stride": ("stride should be greater than zero, but got stride_height: {} "
               "stride_width: {}", lambda v: v > 0),
}


def _check_blocks(order, **values) -> None:
    """ATen's im2col/col2im argument checks, in the order each kernel makes them."""
    for name in order:
        message, valid = _BLOCK_CHECKS[name]
        if not all(valid(v) for v in values[name]):
            raise RuntimeError(message.format(*values[name]))


def _check_float(input, kernel_name: str) -> None:
    """im2col/col2im have float, complex and bool kernels only."""
    if not (input.is_floating_point() or input.is_complex() or input.dtype.name == "bool"):
        raise NotImplementedError(
            f'"{kernel_name}" not implemented for \'{input.dtype._legacy}\''
        )


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of (N, C, H, W) or (C, H, W) input as columns (N, C*kh*kw, L)."""
    dims = input.dim()
    if dims < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-dims}, {dims - 1}], but "
            f"got {dims})"
        )
    params = dict(kernel=_pair_of(kernel_size), dilation=_pair_of(dilation),
                  padding=_pair_of(padding), stride=_pair_of(stride))
    _check_blocks(("kernel", "dilation", "padding", "stride"), **params)
    if dims not in (3, 4) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    size = tuple(input.shape[-2:])
    blocks = _blocks(size, **params)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(
            f"Given input with spatial size {size}, kernel_size={params['kernel']}, "
            f"dilation={params['dilation']}, padding={params['padding']}, calculated shape of "
            f"the array of sliding blocks as {blocks}, but its components must be at least one."
        )
    _check_float(input, "im2col_out_cpu")
    return Im2Col.apply(input, **params)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Columns (N, C*kh*kw, L) or (C*kh*kw, L) summed back into (N, C, H, W) images."""
    size = _pair_of(output_size)
    params = dict(kernel=_pair_of(kernel_size), dilation=_pair_of(dilation),
                  padding=_pair_of(padding), stride=_pair_of(stride))
    _check_blocks(("kernel", "stride", "dilation", "padding"), **params)
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[input.dim() - 2:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    kernel = params["kernel"]
    channels, count = input.shape[-2], input.shape[-1]
    if channels % (kernel[0] * kernel[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={channels} and kernel_size={kernel}."
        )
    blocks = _blocks(size, **params)
    if blocks[0] * blocks[1] != count:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={params['dilation']}, "
            f"padding={params['padding']}, stride={params['stride']}, expected size of input's "
            "dimension 2 to match the calculated number of sliding blocks "
            f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={count}."
        )
    _check_float(input, "col2im_out_cpu")
    return Col2Im.apply(input, size=size, **params)


def _lp_finish(out, window: int, norm_type):
    """torch's tail: sign(out) * relu(|out|) times the window size, to the power 1/p."""
    from .. import sign

    return (sign(out) * relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: ``(sum over each window of x^p) ^ (1/p)`` (p = inf: max |x|)."""
    from .functional import avg_pool2d, max_pool2d

    kh, kw = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * 2
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, kw * kh, norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over the last dim of (N, C, L) or (C, L) input."""
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, kernel_size, norm_type)


def _unpool_output_size(input, kernel, stride, padding, output_size) -> list:
    """torch's default (each dim: (in - 1) * stride + kernel - 2 * padding) or a checked
    ``output_size``."""
    dims = len(kernel)
    default = [(input.shape[input.dim() - dims + d] - 1) * stride[d] + kernel[d]
               - 2 * padding[d] for d in range(dims)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == dims + 2:
        output_size = output_size[2:]
    if len(output_size) != dims:
        raise ValueError(
            f"output_size should be a sequence containing {dims} or {dims + 2} elements, but "
            f"it has a length of '{len(output_size)}'"
        )
    for d in range(dims):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(
                f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {low} '
                f"and {high})"
            )
    return output_size


def _max_unpool(input, indices, output_size):
    """ATen's max_unpooling2d checks, then the op."""
    if indices._data.dtype != np.int64:
        raise RuntimeError(
            f"elements in indices should be type int64 but got: {indices.dtype._legacy}"
        )
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    if input.dim() not in (3, 4):
        raise RuntimeError(
            "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
            f"{input.dim()} dimensions."
        )
    plane = output_size[0] * output_size[1]
    flat = indices._data
    if flat.size and (flat.min() < 0 or flat.max() >= plane):
        bad = int(flat[(flat < 0) | (flat >= plane)][-1])  # ATen reports the last one
        raise RuntimeError(
            f"Found an invalid max index: {bad} (output volumes are of size "
            f"{output_size[0]}x{output_size[1]})"
        )
    result = MaxUnpool2d.apply(input, indices=flat, output_size=tuple(output_size))
    return _ops.keep_index(result, indices, "indices")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d: values back at their indices, zeros elsewhere."""
    kernel = _pair_of(kernel_size)
    step = _pair_of(stride) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, step, _pair_of(padding), output_size)
    return _max_unpool(input, indices, size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d (through the 2-d kernel, as torch)."""
    kernel = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (kernel_size,)
    step = (tuple(stride) if isinstance(stride, (tuple, list)) else (stride,)) \
        if stride is not None else kernel
    pad = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,)
    size = _unpool_output_size(input, kernel, step, pad, output_size)
    return _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), [*size, 1]).squeeze(-1)


def channel_shuffle(input, groups):
    """Interleave the channels of ``groups`` equal groups (ShuffleNet)."""
    if not isinstance(groups, int) or isinstance(groups, bool):
        raise TypeError(
            f"channel_shuffle(): argument 'groups' (position 2) must be int, not "
            f"{type(groups).__name__}"
        )
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if input.shape[1] % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {input.shape[1]} channels "
            f"and {groups} groups."
        )
    return ChannelShuffle.apply(input, groups=groups)


native_channel_shuffle = channel_shuffle


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divide by ``(k + alpha * mean of squares over ``size`` neighbouring channels) ^ beta``
    (torch's composite; the 4-d and higher case pools a (N, 1, C, rest) view in 2-d, the same
    window sums as torch's avg_pool3d)."""
    from ._functional_nn import pad
    from .functional import avg_pool2d

    dims = input.dim()
    if dims < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dims} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dims == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.view(sizes[0], 1, sizes[1], -1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# -- dropout variants (ATen's _dropout_impl) ----------------------------------------------------

_SELU_ALPHA = 1.7580993408473766  # -SELU's negative saturation value, as ATen writes it


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_impl(input, p, train, inplace, feature, alpha):
    """ATen's order of work: no-op cases, p == 1, then one bernoulli_(1 - p) draw over the
    noise shape ((N, C, 1, ...) for feature dropout), scaled in the input's dtype."""
    if p == 0 or not train or input.numel() == 0:
        return input
    dtype = input._data.dtype

    if p == 1:
        # a kernel: leafgrad.compile records the constant instead of refusing a fresh array
        zero = _wrap(array_kernel(np.zeros, (), dtype=dtype))  # also for alpha dropout (ATen)
        return input.mul_(zero) if inplace else input * zero
    if feature and input.dim() < 2:  # ATen checks when it makes the noise, after p == 1
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature else tuple(input.shape)

    levels = ()
    if vmap_state.active:  # vmap(randomness='different'): noise per example, batch dims first
        levels, sizes = random_levels()
        shape = tuple(sizes) + shape
    # one kernel draws and scales the noise: leafgrad.compile replays it, so the generator
    # advances on every call as in eager mode
    kernel = _alpha_noise if alpha else _feature_noise
    if levels:
        with batched_draw():
            noise = array_kernel(kernel, p=p, shape=shape, dtype=dtype)
    elif feature or vmap_state.stack:  # (Note: functorch's operator hacks, _functional_nn.py)
        noise = array_kernel(kernel, p=p, shape=shape, dtype=dtype)
    else:  # ATen's empty_like(input): the noise in the input's memory order

        noise = in_layout_of(input._data, array_kernel, kernel, p, shape)
    parts = noise if alpha else (noise,)
    parts = [_wrap(part) for part in parts]
    if levels:
        from ..ops._batching import wrap

        parts = [wrap(part, levels) for part in parts]
    if alpha:
        noise, shift = parts
        if inplace:
            return input.mul_(noise).add_(shift)
        return input * noise + shift
    noise = parts[0]
    return input.mul_(noise) if inplace else input * noise


def _feature_noise(p, shape, dtype):
    """(Feature) dropout's scaled keep mask: one bernoulli_(1 - p) draw, / (1 - p)."""
    noise = _random.bernoulli(1 - p, shape, dtype)
    check_scalable(dtype, noise.size)
    return noise / dtype.type(1 - p)


def _alpha_noise(p, shape, dtype):
    """Alpha dropout's multiplier and shift: ``(noise * a, (noise - 1) * alpha a + alpha a p)``."""
    scalar = dtype.type
    noise = _random.bernoulli(1 - p, shape, dtype)
    check_scalable(dtype, noise.size)
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    shift = (noise - scalar(1)) * scalar(_SELU_ALPHA * a) + scalar(_SELU_ALPHA * a * p)
    return noise * scalar(a), shift


_feature_noise.draws_random = _alpha_noise.draws_random = True  # replayed, never dropped


def _train_flag(name: str, input, training, inplace) -> None:
    """torch's F passes ``training`` positionally to its C function (feature_dropout,
    alpha_dropout...): anything but a bool is that function's parser error, ``(position 3)``
    even when F was given it by keyword."""
    if training.__class__ is not bool:
        name = name + "_" if inplace else name
        _argparse.require_tensor(name, input)  # (torch's parser names the input first)
        _argparse.bool_arg(name, "train", training, 3)


def _feature_dropout(input, p, training, inplace, batched_dim):
    """unsqueeze an unbatched input, feature-dropout it, squeeze back (torch's F code)."""
    batched = input.dim() == batched_dim
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, feature=True, alpha=False)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) input with probability ``p``."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs)."
        )
    _train_flag("feature_dropout", input, training, inplace)
    return _feature_dropout(input, p, training, inplace, 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) input; a 3-d input is taken as (N, C, L), as torch
    still does (with its warning)."""
    _check_p(p)
    dims = input.dim()
    if dims not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {dims}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if dims == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    _train_flag("feature_dropout", input, training, inplace)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input."""
    _check_p(p)
    dims = input.dim()
    if dims not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {dims}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    _train_flag("feature_dropout", input, training, inplace)
    return _feature_dropout(input, p, training, inplace, 5)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped elements take SELU's saturation value and the
    result keeps zero mean and unit variance."""
    _check_p(p)
    _train_flag("alpha_dropout", input, training, inplace)
    return _dropout_impl(input, p, training, inplace, feature=False, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    _check_p(p)
    _train_flag("feature_alpha_dropout", input, training, inplace)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)
