"""``torch.xpu``: what a CPU-only build of torch answers (no XPU device)."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "synchronize",
           "manual_seed", "empty_cache"]

_NOT_COMPILED = "Torch not compiled with XPU enabled"

# no device: the answers torch.cuda gives on a CPU-only build
from .cuda import device_count, is_available, is_initialized, manual_seed  # noqa: E402,F401


def current_device() -> int:
    raise AssertionError(_NOT_COMPILED)


def synchronize(device=None) -> None:
    raise AssertionError(_NOT_COMPILED)


def empty_cache() -> None:
    """Does nothing without a device (as in torch)."""
