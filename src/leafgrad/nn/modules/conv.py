"""Convolution layers: ``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d`` (torch's parameters,
checks, initialisation and repr)."""

from __future__ import annotations

import math

from ..._creation import empty
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(value, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order: last dim first, (left, right) per dim
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = tuple(  # (a tuple here, a list for 'same')
                p for p in reversed(padding) for _ in (0, 1))
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        text = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            text += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += ", output_padding={output_padding}"
        if self.groups != 1:
            text += ", groups={groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += ", padding_mode={padding_mode}"
        return text.format(**self.__dict__)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self.__dict__.setdefault("padding_mode", "zeros")


class Conv1d(_ConvNd):
    """1-d cross-correlation over (N, C, L) or unbatched (C, L) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 1), _ntuple(stride, 1),
                         padding if isinstance(padding, str) else _ntuple(padding, 1),
                         _ntuple(dilation, 1), False, (0,), groups, bias, padding_mode,
                         device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv1d(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return F.conv1d(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """2-d cross-correlation over (N, C, H, W) or unbatched (C, H, W) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 2), _ntuple(stride, 2),
                         padding if isinstance(padding, str) else _ntuple(padding, 2),
                         _ntuple(dilation, 2), False, (0, 0), groups, bias, padding_mode,
                         device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv2d(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv3d(_ConvNd):
    """3-d cross-correlation over (N, C, D, H, W) or unbatched (C, D, H, W) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 3), _ntuple(stride, 3),
                         padding if isinstance(padding, str) else _ntuple(padding, 3),
                         _ntuple(dilation, 3), False, (0, 0, 0), groups, bias, padding_mode,
                         device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv3d(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return F.conv3d(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 output_padding, groups, bias, padding_mode, device, dtype, dims: int):
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {type(self).__name__}'
            )
        # (torch's _ntuple makes a padding string its characters: ('s', 'a', 'm', 'e'))
        padding = tuple(padding) if isinstance(padding, str) else _ntuple(padding, dims)
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, dims),
                         _ntuple(stride, dims), padding, _ntuple(dilation, dims),
                         True, _ntuple(output_padding, dims), groups, bias, padding_mode,
                         device, dtype)

    def _output_padding(self, input: Tensor, output_size, dims: int) -> tuple:
        """The output padding that makes the result ``output_size`` (torch's ranges and
        messages)."""
        if output_size is None:
            return self.output_padding
        # (kept as given, tuple, list or Size, as torch prints it in the range message)
        output_size = output_size if isinstance(output_size, (tuple, list)) else list(output_size)
        leading = 2 if input.dim() == dims + 2 else 1
        if len(output_size) == leading + dims:
            output_size = output_size[leading:]
        if len(output_size) != dims:
            raise ValueError(
                f"ConvTranspose{dims}D: for {input.dim()}D input, output_size must have {dims} "
                f"or {leading + dims} elements (got {len(output_size)})"
            )
        smallest = [(input.shape[d + leading] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(dims)]
        largest = [low + self.stride[d] - 1 for d, low in enumerate(smallest)]
        for size, low, high in zip(output_size, smallest, largest):
            if size < low or size > high:
                raise ValueError(
                    f"requested an output size of {_shown(output_size)}, but valid sizes "
                    "range from "
                    f"{smallest} to {largest} (for an input of "
                    f"torch.Size({list(input.shape[2:])}))"
                )
        return tuple(size - low for size, low in zip(output_size, smallest))


class ConvTranspose1d(_ConvTransposeNd):
    """The gradient of Conv1d with respect to its input, as a layer (a "deconvolution")."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         output_padding, groups, bias, padding_mode, device, dtype, 1)

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        output_padding = self._output_padding(input, output_size, 1)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """The gradient of Conv2d with respect to its input, as a layer (a "deconvolution")."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         output_padding, groups, bias, padding_mode, device, dtype, 2)

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        output_padding = self._output_padding(input, output_size, 2)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """The gradient of Conv3d with respect to its input, as a layer (a "deconvolution")."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         output_padding, groups, bias, padding_mode, device, dtype, 3)

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        output_padding = self._output_padding(input, output_size, 3)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


def _shown(size) -> str:
    """A size as torch's messages print it (leafgrad.Size's repr names leafgrad)."""
    return f"torch.Size({list(size)})" if type(size).__name__ == "Size" else str(size)
