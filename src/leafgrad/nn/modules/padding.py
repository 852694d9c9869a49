"""Padding layers: constant/zero, reflection, replication and circular padding in 1, 2 and 3
dimensions, each a thin module over ``F.pad`` (torch's reprs and checks)."""

from __future__ import annotations

from collections.abc import Iterable

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
]


def _sides(padding, n: int) -> tuple:
    """An int pads every side; an iterable is taken as given (F.pad checks its length)."""
    if isinstance(padding, Iterable):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    _mode = "constant"
    _sides_count = 2

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sides(padding, self._sides_count)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: ``padding`` is an int or ``(left, right)``."""


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``: an int or ``(left, right, top, bottom)``."""
    _sides_count = 4


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``: an int or a 6-tuple (last dim first)."""
    _sides_count = 6


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Pad the last dim with its reflection (the edge element is not repeated)."""
    _mode = "reflect"


class ReflectionPad2d(_PadNd):
    """Pad the last two dims with their reflection."""
    _mode = "reflect"
    _sides_count = 4


class ReflectionPad3d(_PadNd):
    """Pad the last three dims with their reflection."""
    _mode = "reflect"
    _sides_count = 6


class ReplicationPad1d(_PadNd):
    """Pad the last dim by repeating its edge element."""
    _mode = "replicate"


class ReplicationPad2d(_PadNd):
    """Pad the last two dims by repeating their edge elements."""
    _mode = "replicate"
    _sides_count = 4


class ReplicationPad3d(_PadNd):
    """Pad the last three dims by repeating their edge elements."""
    _mode = "replicate"
    _sides_count = 6


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        # torch checks the rank here, before F.pad, with its own message
        dims = self._sides_count // 2
        if input.dim() not in (dims + 1, dims + 2):
            raise ValueError(
                f"expected {dims + 1}D or {dims + 2}D input (got {input.dim()}D input)"
            )
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pad the last dim by wrapping around (the other end's elements)."""


class CircularPad2d(_CircularPadNd):
    """Pad the last two dims by wrapping around."""
    _sides_count = 4


class CircularPad3d(_CircularPadNd):
    """Pad the last three dims by wrapping around."""
    _sides_count = 6
