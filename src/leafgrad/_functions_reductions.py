"""The ``leafgrad.<name>(...)`` forms of the reductions ops (see leafgrad/ops/)."""

from __future__ import annotations

__all__: list[str] = []
