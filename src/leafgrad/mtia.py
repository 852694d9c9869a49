"""``torch.mtia``: what a CPU-only build of torch answers (no MTIA device)."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "synchronize",
           "manual_seed", "empty_cache"]

# no device: the answers torch.cuda gives on a CPU-only build
from .cuda import device_count, is_available, is_initialized, manual_seed  # noqa: E402,F401


def current_device() -> int:
    raise RuntimeError("Cannot execute getCurrentDevice() without MTIA backend.")


def synchronize(device=None) -> None:
    raise RuntimeError("Cannot execute getCurrentDevice() without MTIA backend.")


def empty_cache() -> None:
    raise RuntimeError("Cannot execute emptyCache() without MTIA backend.")
