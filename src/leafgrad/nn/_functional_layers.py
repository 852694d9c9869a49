"""1-d pooling as torch computes it: unsqueeze to 2-d, the 2-d kernel, squeeze (so the
grad_fn names are torch's: SqueezeBackward1 over the 2-d pooling node)."""

from __future__ import annotations

from .. import ops as _ops

__all__ = ["max_pool1d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d"]


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
