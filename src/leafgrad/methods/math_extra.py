"""Tensor methods of the math ops added with the namespace-coverage work (ops/distance.py and
the special functions)."""

from __future__ import annotations

from . import lazy_ops as _ops


class MathExtraMethods:
    __slots__ = ()

    def dist(self, other, p=2):
        return _ops.dist(self, other, p)
