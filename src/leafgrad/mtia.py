"""``torch.mtia``: what a CPU-only build of torch answers (no MTIA device)."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "synchronize",
           "manual_seed", "empty_cache"]

def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def current_device() -> int:
    raise RuntimeError("Cannot execute getCurrentDevice() without MTIA backend.")


def synchronize(device=None) -> None:
    raise RuntimeError("Cannot execute getCurrentDevice() without MTIA backend.")


def manual_seed(seed: int) -> None:
    """Does nothing without a device (as in torch)."""


def empty_cache() -> None:
    raise RuntimeError("Cannot execute emptyCache() without MTIA backend.")
