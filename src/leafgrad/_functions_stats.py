"""The ``leafgrad.<name>(...)`` forms of the scans and statistics added with the coverage work:
cummax/cummin, logcumsumexp (ops/scans_extra.py), aminmax, renorm (ops/stats_extra.py),
quantile/nanquantile, cov/corrcoef, gradient (ops/stats_composite.py), histogram and
histogramdd (ops/histogram.py)."""

from __future__ import annotations

from . import ops as _ops
from ._out import EXPECT, Out, Resize, Rule, same_as, takes_out
from .ops import return_types

__all__ = ["cummax", "cummin", "logcumsumexp", "aminmax", "quantile", "nanquantile", "cov",
           "corrcoef", "renorm", "histogram", "histogramdd", "gradient", "hash_tensor"]


def _scalar_type(message: str = "expected scalar_type {R} but found {O}") -> Rule:
    return Rule(message, lambda result, out: result is out)


def _cumextremum_out(name: str) -> Out:
    # torch checks the indices' dtype first
    return Out(name, (_scalar_type(), _scalar_type()), order=(1, 0),
               returns=getattr(return_types, name + "_out"), internal_overlap=False)


@takes_out(_cumextremum_out("cummax"))
def cummax(*args, **kwargs):
    """``cummax(input, dim)``: (values, indices) of the running maximum along ``dim``; a tie
    moves the index forward.

    >>> import leafgrad as torch
    >>> torch.cummax(torch.tensor([1, 3, 3, 2]), 0).indices
    tensor([0, 1, 2, 2])
    """
    return _ops.cummax(*args, **kwargs)


@takes_out(_cumextremum_out("cummin"))
def cummin(*args, **kwargs):
    """``cummin(input, dim)``: (values, indices) of the running minimum along ``dim``; a tie
    moves the index forward."""
    return _ops.cummin(*args, **kwargs)


@takes_out(Out("logcumsumexp", _scalar_type(), overlap=True))
def logcumsumexp(*args, **kwargs):
    """``logcumsumexp(input, dim)``: log(cumsum(exp(input))) along ``dim``, without overflow."""
    return _ops.logcumsumexp(*args, **kwargs)


@takes_out(Out("aminmax", (EXPECT, EXPECT), returns=return_types.aminmax_out))
def aminmax(*args, **kwargs):
    """``aminmax(input, *, dim=None, keepdim=False)``: (min, max) of all elements, or along
    ``dim``; ties share each gradient evenly.

    >>> import leafgrad as torch
    >>> torch.aminmax(torch.tensor([[1., 3.], [0., 2.]]), dim=1).max
    tensor([3., 2.])
    """
    return _ops.aminmax(*args, **kwargs)


_QUANTILE_OUT = Out(None, same_as("quantile() out tensor must be same dtype as the input tensor"),
                    mode="copy")


@takes_out(_QUANTILE_OUT)
def quantile(*args, **kwargs):
    """``quantile(input, q, dim=None, keepdim=False, *, interpolation='linear')``: the q-th
    quantiles (q a number or a 1-d tensor), by sorting, as torch.

    >>> import leafgrad as torch
    >>> torch.quantile(torch.tensor([1., 2., 3., 4.]), 0.5)
    tensor(2.5000)
    """
    return _ops.quantile(*args, **kwargs)


@takes_out(_QUANTILE_OUT)
def nanquantile(*args, **kwargs):
    """Like :func:`quantile`, computed over the non-NaN values of each slice."""
    return _ops.nanquantile(*args, **kwargs)


def cov(*args, **kwargs):
    """``cov(input, *, correction=1, fweights=None, aweights=None)``: covariance matrix of the
    rows (variables) over the columns (observations), with integer frequency weights and float
    importance weights as numpy.cov.

    >>> import leafgrad as torch
    >>> torch.cov(torch.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    return _ops.cov(*args, **kwargs)


def corrcoef(input):
    """Pearson correlation coefficients of the rows, clipped to [-1, 1]."""
    return _ops.corrcoef(input)


@takes_out(Out("renorm", EXPECT, overlap=True))
def renorm(*args, **kwargs):
    """``renorm(input, p, dim, maxnorm)``: each slice ``input.select(dim, i)`` whose p-norm
    exceeds ``maxnorm`` rescaled to norm ``maxnorm`` (the others unchanged).

    >>> import leafgrad as torch
    >>> torch.renorm(torch.tensor([[3., 4.], [0.3, 0.4]]), 2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    return _ops.renorm(*args, **kwargs)


def _histogram_out_rule(what: str, dim: str = "") -> Rule:
    return Rule(f"torch.histogram: input tensor and {what} tensor should have the same dtype, "
                f"but got input {{r}} and {what} {{o}}{dim}", lambda result, out: result is out)


@takes_out(Out(None, (_histogram_out_rule("hist"), _histogram_out_rule("bin_edges",
                                                                        " for dimension 0")),
               returns=return_types.histogram_out, out_name="aten::histogram",
               resize=Resize(order=(1, 0))))
def histogram(*args, **kwargs):
    """``histogram(input, bins, *, range=None, weight=None, density=False)`` -> (hist,
    bin_edges): counts (or summed weights) of the values in ``bins`` equal bins over ``range``
    (the data's by default), or between the edges of a 1-d ``bins`` tensor.

    >>> import leafgrad as torch
    >>> torch.histogram(torch.tensor([0., 1., 2., 3.]), 3).hist
    tensor([1., 1., 2.])
    """
    return _ops.histogram(*args, **kwargs)


def gradient(*args, **kwargs):
    """``gradient(input, *, spacing=1, dim=None, edge_order=1)``: estimates of the derivative
    of ``input`` along each of ``dim`` (every dim by default) by
    central differences, one-sided of order ``edge_order`` at the ends; ``spacing`` a number,
    one per dim, or the sample coordinates (one 1-d tensor per dim). Returns a tuple.

    >>> import leafgrad as torch
    >>> torch.gradient(torch.tensor([1., 4., 9., 16.]))
    (tensor([3., 4., 6., 7.]),)
    """
    return _ops.gradient(*args, **kwargs)


def histogramdd(*args, **kwargs):
    """``histogramdd(input, bins, *, range=None, weight=None, density=False)`` -> (hist,
    bin_edges): the multi-dimensional histogram of the rows of ``input`` (its innermost dim
    holds the coordinates); ``bins`` an int, one int per dim or one tensor of edges per dim.

    >>> import leafgrad as torch
    >>> torch.histogramdd(torch.tensor([[0., 0.], [1., 1.], [1., 0.]]), 2).hist
    tensor([[1., 0.],
            [1., 1.]])
    """
    return _ops.histogramdd(*args, **kwargs)


# (named None: hash_tensor has no derivative, so torch makes no out= autograd check)
@takes_out(Out(None, Rule("Expected result to be of dtype uint64, but got {O}",
                          lambda result, out: result is out), internal_overlap=False))
def hash_tensor(input, dim=None, *, keepdim=False, mode=0):  # noqa: A002 - torch's names
    """A uint64 hash of all elements (or along ``dim``): each element widened to float64 or
    int64, its bits read as uint64, and those combined by xor (``mode=0``, torch's only mode).

    >>> import leafgrad as torch
    >>> torch.hash_tensor(torch.tensor([1.5, -2.0, 0.25]))
    tensor(13846317054350589952, dtype=torch.uint64)
    """
    import numpy as np

    from . import _dtype
    from .autograd._vmap_state import state as vmap_state
    from .tensor import _wrap, _wrap_dim

    if vmap_state.active:  # (computed from arrays: per example under vmap, as torch's rule)
        from .ops._batching import per_example_call

        result = per_example_call(hash_tensor, "hash_tensor", (input,),
                                  {"dim": dim, "keepdim": keepdim, "mode": mode}, warn=False)
        if result is not NotImplemented:
            return result

    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    data = input._data
    if dim is None:
        if data.size == 0:
            raise RuntimeError(
                "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument.")
        axes = tuple(range(data.ndim))
    else:
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        axes = tuple(_wrap_dim(d, max(data.ndim, 1)) for d in dims)
        if not data.ndim:
            axes = ()
        for given, axis in zip(dims, axes):
            if data.size == 0 and data.shape[axis] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {given} to have "
                                 "non-zero size.")
    empty_result = bool(axes) and 0 in np.delete(np.array(data.shape), axes)
    if (data.dtype.kind == "c" or data.dtype.kind == "u" and data.itemsize > 1) and not (
            empty_result):  # (an empty result runs no kernel: torch returns it)
        raise NotImplementedError(
            f"\"xor_sum_cpu\" not implemented for '{input.dtype._legacy}'")
    if data.dtype.kind == "f" or _dtype.is_bfloat16_array(data):
        bits = data.astype(np.float64).view(np.uint64)
    elif data.dtype.kind == "i":
        bits = data.astype(np.int64).view(np.uint64)
    elif data.dtype.kind in "cu" and data.itemsize > 1:  # (an empty result)
        bits = np.zeros(data.shape, np.uint64)
    else:  # bool, uint8
        bits = data.astype(np.uint64)
    result = np.bitwise_xor.reduce(bits, axis=axes, keepdims=keepdim) if axes else bits.copy()
    return _wrap(np.asarray(result, dtype=np.uint64))
