"""``torch._C``: here only what user code reaches for in it, ``Generator`` (whose repr names
this module, as torch's does)."""

from ._rng import Generator

__all__ = ["Generator"]
