"""``torch.xpu``: what a CPU-only build of torch answers (no XPU device)."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "synchronize",
           "manual_seed", "empty_cache"]

_NOT_COMPILED = "Torch not compiled with XPU enabled"


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def current_device() -> int:
    raise AssertionError(_NOT_COMPILED)


def synchronize(device=None) -> None:
    raise AssertionError(_NOT_COMPILED)


def manual_seed(seed: int) -> None:
    """Does nothing without a device (as in torch)."""


def empty_cache() -> None:
    """Does nothing without a device (as in torch)."""
