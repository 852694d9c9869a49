"""The ``leafgrad.<name>(...)`` forms of the reductions (ops/reductions*.py), and
``leafgrad.return_types``."""

from __future__ import annotations

import sys

from . import ops as _ops
from .ops import return_types

__all__ = [
    "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "var_mean",
    "std_mean", "norm", "logsumexp", "cumsum", "cumprod", "all", "any", "count_nonzero", "nansum",
    "nanmean", "median", "nanmedian", "mode", "sort", "argsort", "msort", "topk", "kthvalue",
    "return_types",
]

# torch.return_types is a module; this makes ``import leafgrad.return_types`` (and pickling of
# its results, whose classes live there by name) work too.
sys.modules.setdefault("leafgrad.return_types", return_types)


def _no_out(out) -> None:
    if out is not None:
        raise NotImplementedError("leafgrad does not support out= for reductions")


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product of all elements, or along ``dim`` (its gradient is right with zeros too)."""
    _no_out(out)
    return _ops.prod(input, dim, keepdim, dtype)


def max(input, dim=None, keepdim=False, *, other=None, out=None):  # noqa: A001 - torch's name
    """``max(input)``, ``max(input, dim, keepdim)`` -> (values, indices), ``max(input, other)``.

    >>> import leafgrad as torch
    >>> torch.max(torch.tensor([[1., 5.], [7., 2.]]), 1).indices
    tensor([1, 0])
    """
    _no_out(out)
    return _ops.reduce_max(input, dim, keepdim, other)


def min(input, dim=None, keepdim=False, *, other=None, out=None):  # noqa: A001
    """``min(input)``, ``min(input, dim, keepdim)`` -> (values, indices), ``min(input, other)``."""
    _no_out(out)
    return _ops.reduce_min(input, dim, keepdim, other)


def amax(input, dim=(), keepdim=False, *, out=None):
    """Largest value over ``dim`` (every dim by default); ties share the gradient evenly."""
    _no_out(out)
    return _ops.amax(input, dim, keepdim)


def amin(input, dim=(), keepdim=False, *, out=None):
    """Smallest value over ``dim`` (every dim by default); ties share the gradient evenly."""
    _no_out(out)
    return _ops.amin(input, dim, keepdim)


def argmax(input, dim=None, keepdim=False, *, out=None):
    """Index of the first largest value (of the flattened tensor if ``dim`` is None)."""
    _no_out(out)
    return _ops.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False, *, out=None):
    """Index of the first smallest value (of the flattened tensor if ``dim`` is None)."""
    _no_out(out)
    return _ops.argmin(input, dim, keepdim)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Variance over ``dim`` dividing by ``n - correction`` (``unbiased=False``: correction 0)."""
    _no_out(out)
    return _ops.var(input, dim, unbiased, keepdim, correction=correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Standard deviation over ``dim`` (square root of :func:`var`)."""
    _no_out(out)
    return _ops.std(input, dim, unbiased, keepdim, correction=correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """(variance, mean) from one node (VarMeanBackward0)."""
    _no_out(out)
    return _ops.var_mean(input, dim, unbiased, keepdim, correction=correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """(standard deviation, mean) from one node (StdMeanBackward0)."""
    _no_out(out)
    return _ops.std_mean(input, dim, unbiased, keepdim, correction=correction)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """Vector norm of order ``p`` ('fro' is 2) over ``dim``, as ``torch.norm``."""
    _no_out(out)
    return _ops.tensor_norm(input, p, dim, keepdim, dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input)))`` over ``dim``, computed without overflow."""
    _no_out(out)
    return _ops.logsumexp(input, dim, keepdim)


def cumsum(input, dim, *, dtype=None, out=None):
    """Running sum along ``dim``."""
    _no_out(out)
    return _ops.cumsum(input, dim, dtype)


def cumprod(input, dim, *, dtype=None, out=None):
    """Running product along ``dim`` (its gradient is right with zeros too)."""
    _no_out(out)
    return _ops.cumprod(input, dim, dtype)


def all(input, dim=None, keepdim=False, *, out=None):  # noqa: A001
    """Whether every element (over ``dim``) is non-zero."""
    _no_out(out)
    return _ops.reduce_all(input, dim, keepdim)


def any(input, dim=None, keepdim=False, *, out=None):  # noqa: A001
    """Whether some element (over ``dim``) is non-zero."""
    _no_out(out)
    return _ops.reduce_any(input, dim, keepdim)


def count_nonzero(input, dim=None):
    """Number of non-zero elements (over ``dim``), as int64."""
    return _ops.count_nonzero(input, dim)


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum treating NaN as zero."""
    _no_out(out)
    return _ops.nansum(input, dim, keepdim, dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-NaN elements."""
    _no_out(out)
    return _ops.nanmean(input, dim, keepdim, dtype)


def median(input, dim=None, keepdim=False, *, out=None):
    """Lower median of all elements, or (values, indices) along ``dim``."""
    _no_out(out)
    return _ops.median(input, dim, keepdim)


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """Like :func:`median`, ignoring NaNs."""
    _no_out(out)
    return _ops.nanmedian(input, dim, keepdim)


def mode(input, dim=-1, keepdim=False, *, out=None):
    """Most frequent value along ``dim`` (the smallest among equally frequent) and an index."""
    _no_out(out)
    return _ops.mode(input, dim, keepdim)


def sort(input, dim=-1, descending=False, stable=None, *, out=None):
    """Sorted values and the indices they came from, along ``dim``.

    Equal values come in torch's order (``stable=True``: input order).

    >>> import leafgrad as torch
    >>> torch.sort(torch.tensor([3., 1., 2.]), descending=True).indices
    tensor([0, 2, 1])
    """
    _no_out(out)
    return _ops.sort(input, dim, descending, stable)


def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim``."""
    return _ops.argsort(input, dim, descending, stable)


def msort(input, *, out=None):
    """``input`` sorted along dim 0."""
    _no_out(out)
    return _ops.msort(input)


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002
    """The ``k`` largest (or smallest) values along ``dim`` and their indices."""
    _no_out(out)
    return _ops.topk(input, k, dim, largest, sorted)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest value along ``dim`` and its index."""
    _no_out(out)
    return _ops.kthvalue(input, k, dim, keepdim)
