"""``leafgrad.nn.functional``: convolution and pooling here; activations, losses and
normalisation in the sibling ``_functional_*`` modules, re-exported below."""

from __future__ import annotations

from .. import _argparse
from .. import ops as _ops
from ._functional_nn import *  # noqa: F403 - activations, losses, normalisation, padding
from ._functional_nn import __all__ as _nn_all
from ._functional_layers import *  # noqa: F403 - 1-d pooling through the 2-d kernels
from ._functional_layers import __all__ as _layers_all
from ._functional_act import *  # noqa: F403 - more activations
from ._functional_act import __all__ as _act_all
from ._functional_attention import *  # noqa: F403 - attention
from ._functional_attention import __all__ as _attention_all
from ._functional_losses import *  # noqa: F403 - more losses
from ._functional_losses import __all__ as _losses_all
from ._functional_upsample import *  # noqa: F403 - interpolate
from ._functional_upsample import __all__ as _upsample_all
from ._embedding_bag import embedding_bag  # noqa: F401 - bags of embeddings
from ._functional_pool3d import *  # noqa: F403 - 3-d pooling
from ._functional_pool3d import __all__ as _pool3d_all
from ._functional_sampling import affine_grid, gumbel_softmax  # noqa: F401
from ._grid_sample import grid_sample  # noqa: F401

# torch's grid_sample mode and padding_mode codes (as its C++ enums number them)
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
from ._linear_cross_entropy import linear_cross_entropy  # noqa: F401 - torch 2.13
from ..ops.conv_tbc import conv_tbc  # noqa: F401 - torch's F.conv_tbc is torch.conv_tbc
from ._fractional_pool import (fractional_max_pool2d,  # noqa: F401
                               fractional_max_pool2d_with_indices, fractional_max_pool3d,
                               fractional_max_pool3d_with_indices)

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose2d", "conv_transpose3d", "max_pool2d",
    "avg_pool2d", "adaptive_avg_pool2d",
    *_nn_all, *_layers_all, *_act_all, *_attention_all, *_losses_all,
    *_upsample_all, "embedding_bag", "pdist", *_pool3d_all, "affine_grid", "gumbel_softmax",
    "grid_sample", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d", "fractional_max_pool3d_with_indices", "linear_cross_entropy",
]
pdist = _ops.pdist


def _conv_options(name: str, stride, padding, dilation, groups) -> tuple:
    """conv1d/2d/3d's options as torch's parser reads them (int[] stride, padding and dilation,
    or a str padding; int groups): NumPy integers and integer 0-d tensors as ints; anything
    else (a bool, a float, None, a float tensor) a TypeError, which @parsed turns into torch's
    "invalid combination" line for the call as given. Plain ints pay one test each."""
    plain = _argparse._plain_ints
    if plain(stride) and (padding.__class__ is str or plain(padding)) and plain(dilation) and \
            groups.__class__ is int:
        return stride, padding, dilation, groups
    stride = _argparse.int_list(name, "stride", stride)
    if padding.__class__ is not str:
        padding = _argparse.int_list(name, "padding", padding)
    dilation = _argparse.int_list(name, "dilation", dilation)
    return stride, padding, dilation, _argparse.int_arg(name, "groups", groups)


@_argparse.parsed("conv1d")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d cross-correlation over (N, C, L) input; the same numbers as torch.nn.functional."""
    stride, padding, dilation, groups = _conv_options("conv1d", stride, padding, dilation, groups)
    return _ops.convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@_argparse.parsed("conv2d")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d cross-correlation over (N, C, H, W) input (im2col + one BLAS product per group)."""
    stride, padding, dilation, groups = _conv_options("conv2d", stride, padding, dilation, groups)
    return _ops.convolution(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@_argparse.parsed("conv3d")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d cross-correlation over (N, C, D, H, W) input (im2col + one BLAS product per group)."""
    stride, padding, dilation, groups = _conv_options("conv3d", stride, padding, dilation, groups)
    return _ops.convolution(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    from ..ops.conv import conv_transpose3d as _transpose3d

    return _transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _ops.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
                                 dilation)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    kernel_size, stride, padding, dilation, ceil_mode = _argparse.pool_options(
        "max_pool2d_with_indices" if return_indices else "max_pool2d", kernel_size, stride,
        padding, dilation, ceil_mode)
    return _ops.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode,
                           return_indices)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@_argparse.parsed("avg_pool2d")  # (a C function in torch: its parser's errors)
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    plain = _argparse._plain_ints
    if not (plain(kernel_size) and (stride is None or plain(stride)) and plain(padding) and
            ceil_mode.__class__ is bool and count_include_pad.__class__ is bool and
            (divisor_override is None or divisor_override.__class__ is int)):
        # as torch's parser reads them; anything else raises (@parsed: its error as called)
        kernel_size = _argparse.int_list("avg_pool2d", "kernel_size", kernel_size)
        if stride is not None:
            stride = _argparse.int_list("avg_pool2d", "stride", stride)
        padding = _argparse.int_list("avg_pool2d", "padding", padding)
        ceil_mode, count_include_pad = _argparse.doubles(
            "avg_pool2d", ("ceil_mode", ceil_mode, None, "bool"),
            ("count_include_pad", count_include_pad, None, "bool"))
        if divisor_override is not None:
            divisor_override = _argparse.int_arg("avg_pool2d", "divisor_override",
                                                 divisor_override)
    return _ops.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override)


def adaptive_avg_pool2d(input, output_size):
    if isinstance(output_size, (tuple, list)) and input.dim() <= len(output_size):
        # torch's _list_with_default, run on every sequence output_size
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    return _ops.adaptive_avg_pool2d(input, output_size)
