"""``torch.backends.nnpack``: NNPACK's switch (not used by leafgrad; recorded and checked)."""

from __future__ import annotations

import contextlib

from . import _module

_enabled = [True]


def is_available() -> bool:
    return False


def set_flags(_enabled_value):
    """Switch NNPACK on or off; returns the previous setting as a 1-tuple."""
    previous = (_enabled[0],)
    _module.check_bool("set_enabled_NNPACK", _enabled_value)
    _enabled[0] = _enabled_value
    return previous


@contextlib.contextmanager
def flags(enabled=False):
    previous = set_flags(enabled)
    try:
        yield
    finally:
        set_flags(previous[0])
