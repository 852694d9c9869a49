"""``leafgrad.profiler``: torch.profiler's entry points over leafgrad's op timer."""

from __future__ import annotations

from enum import Enum

from .autograd.profiler import profile, record_function

__all__ = ["profile", "record_function", "ProfilerActivity", "schedule"]


class ProfilerActivity(Enum):
    CPU = 0
    CUDA = 1


def schedule(*, wait: int = 0, warmup: int = 0, active: int = 1, repeat: int = 0,
             skip_first: int = 0):
    """Accepted for torch.profiler compatibility; leafgrad profiles every step."""
    return None
