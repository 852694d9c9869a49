"""Tensor methods grouped by topic, as mixins of ``Tensor`` (each with ``__slots__ = ()``).

Each method forwards to ``leafgrad.ops``; ``ops`` imports ``Tensor``, so these modules reach it
through ``lazy_ops``, which imports it on first use and then caches each attribute it hands out.
"""

from __future__ import annotations

import importlib


class _LazyOps:
    """Attribute access to ``leafgrad.ops`` that works before that package has been imported."""

    def __getattr__(self, name: str):
        value = getattr(importlib.import_module("leafgrad.ops"), name)
        setattr(self, name, value)  # cached on this object: later lookups skip __getattr__
        return value


lazy_ops = _LazyOps()
