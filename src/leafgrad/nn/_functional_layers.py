"""Functional layers composed from existing ops the way ATen composes them, so grad_fn names
are torch's: 1-d pooling (unsqueeze, the 2-d kernel, squeeze: SqueezeBackward1) and the
channel-wise / alpha dropouts (the input times a noise tensor: MulBackward0 / AddBackward0)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _random
from .. import ops as _ops
from ..tensor import _wrap

__all__ = ["max_pool1d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d",
           "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _one(value, name: str):
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(f"{name} must be a single int, or a tuple of one int")
        return value[0]
    return value


def _check_3d(input, name: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"{name}() Expected 2D or 3D input tensor, but got {list(input.shape)}"
        )


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    _check_3d(input, "max_pool1d")
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


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    _check_3d(input, "avg_pool1d")
    kernel = _one(kernel_size, "avg_pool1d: kernel_size")
    step = kernel if stride is None or stride == () or stride == [] else _one(stride, "stride")
    out = _ops.avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, step),
                          (0, _one(padding, "padding")), ceil_mode, count_include_pad, None)
    return out.squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    _check_3d(input, "adaptive_avg_pool1d")
    size = _one(output_size, "adaptive_avg_pool1d: output_size")
    return _ops.adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


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
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    dtype = input._data.dtype
    if p == 1:
        zero = _wrap(np.zeros((), dtype=dtype))  # also for alpha dropout, as ATen does
        return input.mul_(zero) if inplace else input * zero
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature else tuple(input.shape)
    noise = _random.bernoulli(1 - p, shape, dtype)
    scalar = dtype.type
    if alpha:
        a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
        shift = (noise - scalar(1)) * scalar(_SELU_ALPHA * a) + scalar(_SELU_ALPHA * a * p)
        noise = noise * scalar(a)
        if inplace:
            return input.mul_(_wrap(noise)).add_(_wrap(shift))
        return input * _wrap(noise) + _wrap(shift)
    noise = noise / scalar(1 - p)
    return input.mul_(_wrap(noise)) if inplace else input * _wrap(noise)


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
    return _feature_dropout(input, p, training, inplace, 5)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped elements take SELU's saturation value and the
    result keeps zero mean and unit variance."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=False, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)
