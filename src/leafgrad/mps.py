"""``torch.mps``: what torch answers off Apple silicon (no MPS device)."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "synchronize", "manual_seed", "empty_cache"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def synchronize() -> None:
    raise RuntimeError("Cannot execute deviceSynchronize() without MPS backend.")


def manual_seed(seed: int) -> None:
    """Does nothing without a device (as in torch)."""


def empty_cache() -> None:
    raise RuntimeError("Cannot execute emptyCache() without MPS backend.")
