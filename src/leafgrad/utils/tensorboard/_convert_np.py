"""torch's ``make_np``: what the summaries accept (arrays, numbers, tensors) as NumPy."""

from __future__ import annotations

from .writer import _as_array as make_np

__all__ = ["make_np"]
