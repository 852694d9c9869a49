"""``torch.utils.hooks``: the handle a hook registration returns."""

from __future__ import annotations

from .._hooks import RemovableHandle

__all__ = ["RemovableHandle"]
