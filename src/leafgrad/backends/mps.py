"""``torch.backends.mps``: Apple's Metal backend, absent here (device-selection code such as
``"mps" if torch.backends.mps.is_available() else "cpu"`` picks the CPU)."""

from __future__ import annotations


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


def is_macos_or_newer(major: int, minor: int) -> bool:
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


def is_macos13_or_newer(minor: int = 0) -> bool:
    return is_macos_or_newer(13, minor)
