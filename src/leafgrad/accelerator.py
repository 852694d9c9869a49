"""``leafgrad.accelerator``: no accelerator is ever available to leafgrad."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "current_accelerator"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False):
    return None
