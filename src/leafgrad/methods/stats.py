"""Tensor methods for the scans and statistics of ops/scans_extra.py and ops/stats_extra.py:
cummax/cummin, logcumsumexp, aminmax, quantile, cov/corrcoef, renorm, histogram."""

from __future__ import annotations

from . import lazy_ops as _ops


class StatsMethods:
    __slots__ = ()

    def cummax(self, *args, **kwargs):
        """``cummax(dim)``: (values, indices) of the running maximum along ``dim``."""
        return _ops.cummax(self, *args, _method=True, **kwargs)

    def cummin(self, *args, **kwargs):
        """``cummin(dim)``: (values, indices) of the running minimum along ``dim``."""
        return _ops.cummin(self, *args, _method=True, **kwargs)

    def cumsum_(self, *args, **kwargs):
        """``cumsum_(dim, *, dtype=None)``: the cumulative sum written into this tensor."""
        if len(args) > 1:  # dtype is keyword-only
            raise TypeError(f"cumsum_() takes 1 positional argument but {len(args)} were given")
        return _ops.cumsum_(self, *args, **kwargs)

    def cumprod_(self, *args, **kwargs):
        """``cumprod_(dim, *, dtype=None)``: the cumulative product written into this tensor."""
        if len(args) > 1:  # dtype is keyword-only
            raise TypeError(f"cumprod_() takes 1 positional argument but {len(args)} were given")
        return _ops.cumprod_(self, *args, **kwargs)

    def logcumsumexp(self, *args, **kwargs):
        """``logcumsumexp(dim)``: log(cumsum(exp(self))) along ``dim``, without overflow."""
        return _ops.logcumsumexp(self, *args, _method=True, **kwargs)

    def hash_tensor(self, dim=None, *, keepdim=False, mode=0):
        """``leafgrad.hash_tensor(self, ...)``: a uint64 xor hash of the elements' bits."""
        from .._functions_stats import hash_tensor

        return hash_tensor(self, dim, keepdim=keepdim, mode=mode)

    def aminmax(self, *args, **kwargs):
        """``aminmax(*, dim=None, keepdim=False)``: (min, max) of all elements, or along
        ``dim``."""
        return _ops.aminmax(self, *args, _method=True, **kwargs)

    def quantile(self, *args, **kwargs):
        """``quantile(q, dim=None, keepdim=False, *, interpolation='linear')``."""
        return _ops.tensor_quantile(self, *args, **kwargs)

    def nanquantile(self, *args, **kwargs):
        """Like :meth:`quantile`, ignoring NaNs."""
        return _ops.tensor_nanquantile(self, *args, **kwargs)

    def cov(self, *args, **kwargs):
        """``cov(*, correction=1, fweights=None, aweights=None)``: covariance matrix of the rows
        (variables) over the columns (observations)."""
        return _ops.cov(self, *args, _method=True, **kwargs)

    def corrcoef(self, *args):
        """Pearson correlation coefficients of the rows."""
        if args:  # torch's C method takes no arguments
            raise TypeError(f"TensorBase.corrcoef() takes no arguments ({len(args)} given)")
        return _ops.corrcoef(self)

    def renorm(self, *args, **kwargs):
        """``renorm(p, dim, maxnorm)``: each slice along ``dim`` with p-norm above ``maxnorm``
        rescaled to norm ``maxnorm``."""
        return _ops.tensor_renorm(self, *args, **kwargs)

    def renorm_(self, *args, **kwargs):
        return _ops.renorm_(self, *args, **kwargs)

    def histogram(self, *args, **kwargs):
        """``histogram(bins, *, range=None, weight=None, density=False)`` -> (hist, bin_edges)."""
        return _ops.tensor_histogram(self, *args, **kwargs)
