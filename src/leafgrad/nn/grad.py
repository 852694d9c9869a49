"""``torch.nn.grad``: a convolution's input and weight gradients as functions (the two halves
of its backward, e.g. for a custom ``autograd.Function`` that fuses a convolution). They run
the ops the convolution's own backward records (ConvolutionBackwardBackward0), so they are
differentiable again."""

from __future__ import annotations

from ..ops.conv import ConvInputGrad, ConvWeightGrad, _expand

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _params(spatial: int, stride, padding, dilation, groups) -> dict:
    stride = _expand(stride, "stride", spatial)
    padding = _expand(padding, "padding", spatial)
    dilation = _expand(dilation, "dilation", spatial)
    if spatial == 1:  # 1-d runs as 2-d with a height of 1 (ops/conv.py)
        stride, padding, dilation = (1,) + stride, (0,) + padding, (1,) + dilation
    return dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
                spatial=spatial)


def _check_rank(input_shape, weight_shape) -> None:
    """ATen's check that the input has the weight's rank (a batch dim is required here)."""
    if len(input_shape) != len(weight_shape):
        raise RuntimeError(
            f"Expected {len(weight_shape)}-dimensional input for {len(weight_shape)}-dimensional "
            f"weight {list(weight_shape)}, but got {len(input_shape)}-dimensional input of size "
            f"{list(input_shape)} instead")


def _input(spatial, input_size, weight, grad_output, stride, padding, dilation, groups):
    input_size = tuple(int(s) for s in input_size)
    _check_rank(input_size, tuple(weight.shape))
    return ConvInputGrad.apply(grad_output, weight, input_shape=input_size,
                               **_params(spatial, stride, padding, dilation, groups))


def _weight(spatial, input, weight_size, grad_output, stride, padding, dilation, groups):
    weight_size = tuple(int(s) for s in weight_size)
    _check_rank(tuple(input.shape), weight_size)
    return ConvWeightGrad.apply(input, grad_output, weight_shape=weight_size,
                                **_params(spatial, stride, padding, dilation, groups))


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d(input, weight)`` in an input of ``input_size``."""
    return _input(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d(input, weight)`` in a weight of ``weight_size``."""
    return _weight(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d(input, weight)`` in an input of ``input_size``."""
    return _input(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d(input, weight)`` in a weight of ``weight_size``."""
    return _weight(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d(input, weight)`` in an input of ``input_size``."""
    return _input(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d(input, weight)`` in a weight of ``weight_size``."""
    return _weight(3, input, weight_size, grad_output, stride, padding, dilation, groups)
