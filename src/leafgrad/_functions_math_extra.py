"""``leafgrad.<name>`` forms of the math ops added with the namespace-coverage work: distances
(ops/distance.py) and the special functions."""

from __future__ import annotations

from .nn._functional_losses import pairwise_distance
from .ops.distance import cdist, dist, pdist

__all__ = ["cdist", "pdist", "dist", "pairwise_distance"]
