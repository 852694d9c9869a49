"""``torch.backends.mkl``: whether Intel MKL is there (the optional ``mkl`` package, which
leafgrad calls where torch does: ops/_mkl.py)."""

from __future__ import annotations

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available() -> bool:
    from ..ops import _mkl

    return _mkl.available()


class verbose:  # noqa: N801 - torch's name
    """MKL's verbose mode as a context manager (leafgrad has no MKL log to switch on)."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
