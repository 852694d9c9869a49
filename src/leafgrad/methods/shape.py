"""Tensor methods for the ops in leafgrad/ops/ (topic: shape)."""

from __future__ import annotations

from . import lazy_ops as _ops  # noqa: F401 - methods call _ops.<Op>.apply(...)


class ShapeMethods:
    __slots__ = ()
