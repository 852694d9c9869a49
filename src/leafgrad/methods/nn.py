"""Tensor methods for the ops in leafgrad/ops/ (topic: nn)."""

from __future__ import annotations

from . import lazy_ops as _ops  # noqa: F401 - methods call _ops.<Op>.apply(...)


class NNMethods:
    __slots__ = ()
