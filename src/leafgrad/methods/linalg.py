"""Tensor methods for the ops in leafgrad/ops/ (topic: linalg)."""

from __future__ import annotations

from . import lazy_ops as _ops  # noqa: F401 - methods call _ops.<Op>.apply(...)


class LinalgMethods:
    __slots__ = ()
