"""Tensor methods for the scans and statistics of ops/scans_extra.py and ops/stats_extra.py:
cummax/cummin, logcumsumexp, aminmax, quantile, cov/corrcoef, renorm, histogram."""

from __future__ import annotations

from . import lazy_ops as _ops


class StatsMethods:
    __slots__ = ()

    def cummax(self, dim):
        """(values, indices) of the running maximum along ``dim``."""
        return _ops.cummax(self, dim)

    def cummin(self, dim):
        """(values, indices) of the running minimum along ``dim``."""
        return _ops.cummin(self, dim)

    def logcumsumexp(self, dim):
        return _ops.logcumsumexp(self, dim)

    def aminmax(self, *, dim=None, keepdim=False):
        """(min, max) of all elements, or along ``dim``."""
        return _ops.aminmax(self, dim=dim, keepdim=keepdim)
