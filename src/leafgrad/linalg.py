"""``leafgrad.linalg``: matrix functions with torch's names and gradients."""

from __future__ import annotations

__all__: list[str] = []
