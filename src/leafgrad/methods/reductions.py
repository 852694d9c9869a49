"""Tensor methods for the reductions (ops/reductions*.py): prod, max/min, var/std, norm, sort..."""

from __future__ import annotations

from .. import _argparse
from . import lazy_ops as _ops


class ReductionMethods:
    __slots__ = ()

    @_argparse.refuse_none("Tensor.prod", "dim", 0, method=True)
    @_argparse.parsed("Tensor.prod", method=True)
    def prod(self, dim=_argparse.DIM_NOT_GIVEN, keepdim=_argparse.KEEPDIM_NOT_GIVEN, *,
             dtype=None):
        if dim.__class__ is _argparse._NotGiven or keepdim.__class__ is _argparse._NotGiven:
            # (torch's overload without dim takes no keepdim)
            dim, keepdim = _argparse.reduction_flags("Tensor.prod", (), dim, keepdim, dtype)
        return _ops.prod(self, dim, keepdim, dtype)

    @_argparse.refuse_none("Tensor.max", "dim", 0, method=True)
    @_argparse.parsed("Tensor.max", method=True)
    def max(self, dim=None, keepdim=False):
        """The largest element; with ``dim``, (values, indices); with a tensor, maximum."""
        return _ops.reduce_max(self, dim, keepdim)

    @_argparse.refuse_none("Tensor.min", "dim", 0, method=True)
    @_argparse.parsed("Tensor.min", method=True)
    def min(self, dim=None, keepdim=False):
        """The smallest element; with ``dim``, (values, indices); with a tensor, minimum."""
        return _ops.reduce_min(self, dim, keepdim)

    @_argparse.parsed("Tensor.amax", method=True)
    def amax(self, dim=(), keepdim=False):
        return _ops.amax(self, dim, keepdim)

    @_argparse.parsed("Tensor.amin", method=True)
    def amin(self, dim=(), keepdim=False):
        return _ops.amin(self, dim, keepdim)

    @_argparse.parsed("Tensor.argmax", method=True)
    def argmax(self, dim=None, keepdim=False):
        return _ops.argmax(self, dim, keepdim)

    @_argparse.parsed("Tensor.argmin", method=True)
    def argmin(self, dim=None, keepdim=False):
        return _ops.argmin(self, dim, keepdim)

    # (the error for the call as given)
    @_argparse.parsed("Tensor.var", method=True, keywords=("dim",))
    def var(self, dim=None, unbiased=_argparse.NOT_GIVEN, keepdim=False, *, correction=None):
        return _ops.var(self, dim, unbiased, keepdim, correction=correction)

    @_argparse.parsed("Tensor.std", method=True, keywords=("dim",))
    def std(self, dim=None, unbiased=_argparse.NOT_GIVEN, keepdim=False, *, correction=None):
        return _ops.std(self, dim, unbiased, keepdim, correction=correction)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return _ops.tensor_norm(self, p, dim, keepdim, dtype)

    @_argparse.parsed("Tensor.logsumexp", method=True)
    def logsumexp(self, dim, keepdim=False):
        if dim is None:  # (torch's parser refuses it: see _argparse.parsed)
            raise TypeError("dim")
        return _ops.logsumexp(self, dim, keepdim)

    @_argparse.parsed("Tensor.cumsum", method=True)
    def cumsum(self, dim, *, dtype=None):
        return _ops.cumsum(self, dim, dtype)

    @_argparse.parsed("Tensor.cumprod", method=True)
    def cumprod(self, dim, *, dtype=None):
        return _ops.cumprod(self, dim, dtype)

    @_argparse.declared("Tensor.all")
    def all(self, dim=None, keepdim=False):
        if keepdim.__class__ is not bool:
            _argparse.keepdim("all", keepdim, _argparse.given(dim))
        return _ops.reduce_all(self, dim, keepdim)

    @_argparse.declared("Tensor.any")
    def any(self, dim=None, keepdim=False):
        if keepdim.__class__ is not bool:
            _argparse.keepdim("any", keepdim, _argparse.given(dim))
        return _ops.reduce_any(self, dim, keepdim)

    @_argparse.parsed("Tensor.count_nonzero", method=True)
    def count_nonzero(self, dim=None):
        return _ops.count_nonzero(self, dim)

    @_argparse.parsed("Tensor.nansum", method=True)
    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        return _ops.nansum(self, dim, keepdim, dtype)

    @_argparse.parsed("Tensor.nanmean", method=True)
    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        return _ops.nanmean(self, dim, keepdim, dtype)

    @_argparse.refuse_none("Tensor.median", "dim", 0, method=True)
    @_argparse.parsed("Tensor.median", method=True)
    def median(self, dim=None, keepdim=False):
        return _ops.median(self, dim, keepdim)

    @_argparse.refuse_none("Tensor.nanmedian", "dim", 0, method=True)
    @_argparse.parsed("Tensor.nanmedian", method=True)
    def nanmedian(self, dim=None, keepdim=False):
        return _ops.nanmedian(self, dim, keepdim)

    @_argparse.parsed("Tensor.mode", method=True)
    def mode(self, dim=-1, keepdim=False):
        return _ops.mode(self, dim, keepdim)

    @_argparse.parsed("Tensor.sort", method=True, keywords=("stable",))
    def sort(self, dim=-1, descending=False, *, stable=None):
        if descending.__class__ is not bool or stable is not None and stable.__class__ is not bool:
            _sort_flags("sort", (), descending, stable)
        return _ops.sort(self, dim, descending, stable)

    @_argparse.parsed("Tensor.argsort", method=True)
    def argsort(self, dim=-1, descending=False, *, stable=False):
        if descending.__class__ is not bool or stable.__class__ is not bool:
            _sort_flags("argsort", (), descending, stable, optional=False)
        return _ops.argsort(self, dim, descending, stable)

    def msort(self):
        return _ops.msort(self)

    @_argparse.declared("Tensor.topk")
    def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - torch's name
        if k.__class__ is not int:
            k = _argparse.int_arg("topk", "k", k, 1, symint=True)
        if largest.__class__ is not bool:
            largest = _argparse.bool_arg("topk", "largest", largest)
        if sorted.__class__ is not bool:
            sorted = _argparse.bool_arg("topk", "sorted", sorted)  # noqa: A001
        if dim.__class__ is not int:  # (a bool was read as a dim)
            dim = _argparse.int_arg("topk", "dim", dim, 2)
        return _ops.topk(self, k, dim, largest, sorted)

    @_argparse.parsed("Tensor.kthvalue", method=True)
    def kthvalue(self, k, dim=-1, keepdim=False):
        return _ops.kthvalue(self, k, dim, keepdim)


def _sort_flags(function: str, args: tuple, descending, stable, optional: bool = True) -> None:
    """sort/argsort's ``descending`` and ``stable`` are bools (their overloads all take them:
    torch's error lists the call, spelled as keywords: how they are usually given); sort's
    ``stable`` is ``bool?`` (None allowed), argsort's (``optional=False``) a plain bool."""
    given = {"descending": descending, "stable": stable}
    for name, value in given.items():
        if (value is not None or name == "descending" or not optional) and \
                value.__class__ is not bool:
            # the keywords given, as far as their values tell (not at their defaults)
            shown = {key: given[key] for key in given if key == name or given[key] is not (
                False if key == "descending" or not optional else None)}
            raise _argparse.invalid_combination(function, args, shown)
