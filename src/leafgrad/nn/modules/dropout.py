"""Dropout layers: elementwise, channel-wise (1d/2d/3d) and alpha dropout; the masks come from
torch's random stream in torch's order."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from ._functional_ref import functional_ref
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    _function = None

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` in training and scale the rest by 1/(1-p)."""
    _function = functional_ref(F.dropout)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) or (C, L) input with probability ``p`` in training."""
    _function = functional_ref(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) input with probability ``p`` in training."""
    _function = functional_ref(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) input with probability ``p`` in training."""
    _function = functional_ref(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU activations' mean and variance (dropped values saturate)."""
    _function = functional_ref(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""
    _function = functional_ref(F.feature_alpha_dropout)
