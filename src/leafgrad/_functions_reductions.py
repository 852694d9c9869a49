"""The ``leafgrad.<name>(...)`` forms of the reductions (ops/reductions*.py), and
``leafgrad.return_types``."""

from __future__ import annotations

import sys

from . import _argparse, _dtype
from .methods.reductions import _sort_flags
from . import ops as _ops
from ._out import (
    ANY, CAST, EXPECT, Out, Resize, bool_only, castable, floating, keepdim_shapes, not_bool,
    same_as, takes_out,
)
from .ops import return_types
from .tensor import Tensor

_UNBIASED = _argparse.NOT_GIVEN  # (var/std: an explicit None is torch's error)

__all__ = [
    "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "var_mean",
    "std_mean", "norm", "logsumexp", "cumsum", "cumprod", "all", "any", "count_nonzero", "nansum",
    "nanmean", "median", "nanmedian", "mode", "sort", "argsort", "msort", "topk", "kthvalue",
    "return_types",
]

# torch.return_types is a module; this makes ``import leafgrad.return_types`` (and pickling of
# its results, whose classes live there by name) work too.
sys.modules.setdefault("leafgrad.return_types", return_types)


def _pair(name: str, values=EXPECT, indices=EXPECT, grad_name=None, resize=None,
          overlap=False) -> Out:
    """out=(values, indices) of max(dim), sort, topk...: returned as return_types.<name>_out."""
    return Out(grad_name or name, (values, indices), returns=getattr(return_types, name + "_out"),
               resize=resize, overlap=overlap)


def _extremum(name: str):
    """max/min: one out for the whole tensor, (values, indices) along a dim, or elementwise."""
    whole = Out(name, castable(
        "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype()))"
        " to be true, but got false.  (Could this error message be improved?  If so, please "
        "report an enhancement request to PyTorch.)"))
    along = _pair(name)
    elementwise = Out("maximum" if name == "max" else "minimum", CAST, overlap=True)

    def choose(args, kwargs):
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        if kwargs.get("other") is not None or isinstance(dim, Tensor):
            return elementwise
        return whole if dim is None else along

    return choose


_MEDIAN_VALUES = same_as("Expected tensor for 'values' to have the same type as tensor for "
                         "argument #2 'self'; but type {T} does not equal {TR} (while checking "
                         "arguments for median)")
_SAME_AS_INPUT = same_as("Expected the dtype for input and out to match, but got {R} for input's "
                         "dtype and {O} for out's dtype.")
_NANSUM = floating('"nansum_cpu" not implemented for \'{O}\'', NotImplementedError)
_MEDIAN_INDICES = same_as("Expected tensor for argument #1 'indices' to have scalar type Long; "
                          "but got {T} instead (while checking arguments for median)")


def _logical_in_uint8(args, kwargs, outs):
    """all/any into a uint8 out reduce the input converted to uint8 (0.5 counts as 0), as torch."""
    if outs[0].dtype is not _dtype.uint8:
        return args, kwargs
    return (args[0].to(_dtype.uint8), *args[1:]), kwargs


def _median(name: str):
    """median(input, dim) takes out=(values, indices); median(input) takes none."""
    along = _pair(name, _MEDIAN_VALUES, _MEDIAN_INDICES)

    def choose(args, kwargs):
        if (args[1] if len(args) > 1 else kwargs.get("dim")) is None:
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        return along

    return choose


@takes_out(Out("prod", ANY, mode="dtype"))
@_argparse.refuse_none("prod", "dim", 1)
@_argparse.parsed("prod")
def prod(input, dim=_argparse.DIM_NOT_GIVEN, keepdim=_argparse.KEEPDIM_NOT_GIVEN, *,
         dtype=None):
    """Product of all elements, or along ``dim`` (its gradient is right with zeros too)."""
    if dim.__class__ is _argparse._NotGiven or keepdim.__class__ is _argparse._NotGiven:
        # (torch's overload without dim takes no keepdim)
        dim, keepdim = _argparse.reduction_flags("prod", (input,), dim, keepdim, dtype)
    return _ops.prod(input, dim, keepdim, dtype)


@takes_out(_extremum("max"))
@_argparse.refuse_none("max", "dim", 1)
@_argparse.parsed("max")
def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001 - torch's name
    """``max(input)``, ``max(input, dim, keepdim)`` -> (values, indices), ``max(input, other)``.

    >>> import leafgrad as torch
    >>> torch.max(torch.tensor([[1., 5.], [7., 2.]]), 1).indices
    tensor([1, 0])
    """
    return _ops.reduce_max(input, dim, keepdim, other)


@takes_out(_extremum("min"))
@_argparse.refuse_none("min", "dim", 1)
@_argparse.parsed("min")
def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """``min(input)``, ``min(input, dim, keepdim)`` -> (values, indices), ``min(input, other)``."""
    return _ops.reduce_min(input, dim, keepdim, other)


@takes_out(Out("amax", _SAME_AS_INPUT, internal_overlap=False))
@_argparse.parsed("amax")
def amax(input, dim=(), keepdim=False):
    """Largest value over ``dim`` (every dim by default); ties share the gradient evenly."""
    return _ops.amax(input, dim, keepdim)


@takes_out(Out("amin", _SAME_AS_INPUT, internal_overlap=False))
@_argparse.parsed("amin")
def amin(input, dim=(), keepdim=False):
    """Smallest value over ``dim`` (every dim by default); ties share the gradient evenly."""
    return _ops.amin(input, dim, keepdim)


@takes_out(Out(None, EXPECT, internal_overlap=False))
@_argparse.parsed("argmax")
def argmax(input, dim=None, keepdim=False):
    """Index of the first largest value (of the flattened tensor if ``dim`` is None)."""
    return _ops.argmax(input, dim, keepdim)


@takes_out(Out(None, EXPECT, internal_overlap=False))
@_argparse.parsed("argmin")
def argmin(input, dim=None, keepdim=False):
    """Index of the first smallest value (of the flattened tensor if ``dim`` is None)."""
    return _ops.argmin(input, dim, keepdim)


@takes_out(Out("var", CAST, internal_overlap=False))
@_argparse.parsed("var", keywords=("dim",))
def var(input, dim=None, unbiased=_UNBIASED, keepdim=False, *, correction=None):
    """Variance over ``dim`` dividing by ``n - correction`` (``unbiased=False``: correction 0)."""
    return _ops.var(input, dim, unbiased, keepdim, correction=correction)


@takes_out(Out("std", CAST, internal_overlap=False))
@_argparse.parsed("std", keywords=("dim",))
def std(input, dim=None, unbiased=_UNBIASED, keepdim=False, *, correction=None):
    """Standard deviation over ``dim`` (square root of :func:`var`)."""
    return _ops.std(input, dim, unbiased, keepdim, correction=correction)


@_argparse.parsed("var_mean", keywords=("dim",))
def var_mean(input, dim=None, unbiased=_UNBIASED, keepdim=False, *, correction=None):
    """(variance, mean) from one node (VarMeanBackward0)."""
    return _ops.var_mean(input, dim, unbiased, keepdim, correction=correction)


@_argparse.parsed("std_mean", keywords=("dim",))
def std_mean(input, dim=None, unbiased=_UNBIASED, keepdim=False, *, correction=None):
    """(standard deviation, mean) from one node (StdMeanBackward0)."""
    return _ops.std_mean(input, dim, unbiased, keepdim, correction=correction)


@takes_out(Out("linalg_vector_norm", EXPECT, internal_overlap=False))
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector norm of order ``p`` ('fro' is 2) over ``dim``, as ``torch.norm``."""
    return _ops.tensor_norm(input, p, dim, keepdim, dtype)


@takes_out(Out("logsumexp", floating(
    "logsumexp(): Expected floating point type for result tensor, but got: {O}", complex_ok=True)))
@_argparse.parsed("logsumexp")
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input)))`` over ``dim``, computed without overflow."""
    if dim is None:  # (torch's parser refuses it: see _argparse.parsed)
        raise TypeError("dim")
    return _ops.logsumexp(input, dim, keepdim)


@takes_out(Out("cumsum", not_bool('"cumsum_out_cpu" not implemented for \'{O}\''), mode="dtype",
               overlap=True))
@_argparse.parsed("cumsum")
def cumsum(input, dim, *, dtype=None):
    """Running sum along ``dim``."""
    return _ops.cumsum(input, dim, dtype)


@takes_out(Out("cumprod", not_bool('"cumprod_out_cpu" not implemented for \'{O}\''), mode="dtype",
               overlap=True))
@_argparse.parsed("cumprod")
def cumprod(input, dim, *, dtype=None):
    """Running product along ``dim`` (its gradient is right with zeros too)."""
    return _ops.cumprod(input, dim, dtype)


@takes_out(Out(None, bool_only("all only supports bool tensor for result, got: {O}", uint8=True),
              prepare=_logical_in_uint8, internal_overlap=False))
@_argparse.declared("all")
def all(input, dim=None, keepdim=False):  # noqa: A001
    """Whether every element (over ``dim``) is non-zero."""
    if keepdim.__class__ is not bool:
        _argparse.keepdim("all", keepdim, (input,) + _argparse.given(dim))
    return _ops.reduce_all(input, dim, keepdim)


@takes_out(Out(None, bool_only("any only supports bool tensor for result, got: {O}", uint8=True),
              prepare=_logical_in_uint8, internal_overlap=False))
@_argparse.declared("any")
def any(input, dim=None, keepdim=False):  # noqa: A001
    """Whether some element (over ``dim``) is non-zero."""
    if keepdim.__class__ is not bool:
        _argparse.keepdim("any", keepdim, (input,) + _argparse.given(dim))
    return _ops.reduce_any(input, dim, keepdim)


@_argparse.parsed("count_nonzero")
def count_nonzero(input, dim=None):
    """Number of non-zero elements (over ``dim``), as int64."""
    return _ops.count_nonzero(input, dim)


@takes_out(Out("nansum", _NANSUM, mode="dtype", internal_overlap=False))
@_argparse.parsed("nansum")
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum treating NaN as zero."""
    return _ops.nansum(input, dim, keepdim, dtype)


@takes_out(Out("nansum", _NANSUM))
@_argparse.parsed("nanmean")
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of the non-NaN elements."""
    return _ops.nanmean(input, dim, keepdim, dtype)


@takes_out(_median("median"))
@_argparse.refuse_none("median", "dim", 1)
@_argparse.parsed("median")
def median(input, dim=None, keepdim=False):
    """Lower median of all elements, or (values, indices) along ``dim``."""
    return _ops.median(input, dim, keepdim)


@takes_out(_median("nanmedian"))
@_argparse.refuse_none("nanmedian", "dim", 1)
@_argparse.parsed("nanmedian")
def nanmedian(input, dim=None, keepdim=False):
    """Like :func:`median`, ignoring NaNs."""
    return _ops.nanmedian(input, dim, keepdim)


@takes_out(_pair("mode", same_as("expected scalar type '{R}' but got '{O}' for values output"),
                 same_as("expected scalar type '{R}' but got '{O}' for indices output"),
                 resize=Resize(shapes=keepdim_shapes(unsqueeze_any_rank=True))))
@_argparse.parsed("mode")
def mode(input, dim=-1, keepdim=False):
    """Most frequent value along ``dim`` (the smallest among equally frequent) and an index."""
    return _ops.mode(input, dim, keepdim)


@takes_out(_pair("sort"))
@_argparse.parsed("sort", keywords=("stable",))
def sort(input, dim=-1, descending=False, *, stable=None):
    """Sorted values and the indices they came from, along ``dim``.

    Equal values come in torch's order (``stable=True``: input order).

    >>> import leafgrad as torch
    >>> torch.sort(torch.tensor([3., 1., 2.]), descending=True).indices
    tensor([0, 2, 1])
    """
    if descending.__class__ is not bool or stable is not None and stable.__class__ is not bool:
        _sort_flags("sort", (input,), descending, stable)
    return _ops.sort(input, dim, descending, stable)


@_argparse.parsed("argsort")
def argsort(input, dim=-1, descending=False, *, stable=False):
    """Indices that sort ``input`` along ``dim``."""
    if descending.__class__ is not bool or stable.__class__ is not bool:
        _sort_flags("argsort", (input,), descending, stable, optional=False)
    return _ops.argsort(input, dim, descending, stable)


@takes_out(Out("sort", EXPECT, overlap=True))
def msort(input):
    """``input`` sorted along dim 0."""
    return _ops.msort(input)


@takes_out(_pair("topk"))
@_argparse.declared("topk")
def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """The ``k`` largest (or smallest) values along ``dim`` and their indices."""
    if k.__class__ is not int:
        k = _argparse.int_arg("topk", "k", k, 2, symint=True)
    if largest.__class__ is not bool:
        largest = _argparse.bool_arg("topk", "largest", largest)
    if sorted.__class__ is not bool:
        sorted = _argparse.bool_arg("topk", "sorted", sorted)  # noqa: A001
    if dim.__class__ is not int:  # (a bool was read as a dim)
        dim = _argparse.int_arg("topk", "dim", dim, 3)
    return _ops.topk(input, k, dim, largest, sorted)


@takes_out(_pair("kthvalue", same_as("output values must be of same type as input"),
                 same_as("output indices must be of scalar type Long"), overlap="full",
                 resize=Resize(shapes=keepdim_shapes(unsqueeze_any_rank=False))))
@_argparse.parsed("kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest value along ``dim`` and its index."""
    return _ops.kthvalue(input, k, dim, keepdim)
