"""``leafgrad.nn.functional``: activations, losses, convolution, pooling, normalisation."""

from __future__ import annotations

__all__: list[str] = []
