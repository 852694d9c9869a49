"""torch.histogram: counts (or summed weights) of a float tensor's values in bins.

Note: histogram bins. torch computes the edges with linspace(min, max, bins + 1) in the input's
dtype (a range of one value widened by 0.5 on each side), and places each value by a binary
search among the edges: bin i holds [edge_i, edge_{i+1}), the last bin also its right edge;
values outside the edges and NaNs are not counted. ``searchsorted(edges, x, 'right') - 1`` is
that search. Weights are added in element order in the input's dtype, as torch's kernel does.

torch has no derivative for histogram: with an input that requires grad its outputs get a node
named NotImplemented whose backward raises (``_HistogramNode``).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _argparse, _dtype
from ..tensor import Tensor
from .registry import Op
from . import return_types


class _HistogramNode(Op):
    """The node torch gives histogram's outputs when an input requires grad; not in the op
    table, as it has no gradient to test."""

    node = "NotImplemented"
    qualified_name = "torch::autograd::NotImplemented"
    multi_output = True
    inputs = ("self", "bins", "weight")
    _save_plan = ()

    @staticmethod
    def forward(ctx, a, *tensors, bins, range, density, edge_count, has_weight,  # noqa: A002
                dims):
        # dims: None for histogram (the flattened input), else the innermost size (histogramdd)
        samples = a.reshape(-1, 1) if dims is None else a.reshape(-1, dims)
        edges = list(tensors[:edge_count]) if edge_count else None
        weight = tensors[-1].reshape(-1) if has_weight else None
        hist, edges = _compute(samples, edges, weight, bins, range, density)
        return (hist, *edges)

    def backward(self, grads):
        raise RuntimeError("derivative for aten::histogram is not implemented")

    def jvp(self, tangents, primals, result):
        raise NotImplementedError(
            "Trying to use forward AD with aten::histogram that does not support it.")


_HistogramNode.__name__ = _HistogramNode.__qualname__ = "NotImplemented"


def _compute(samples: np.ndarray, given, weight, counts: tuple, range_, density: bool):
    """(hist of shape ``counts``, [edges per dim]) of the rows of ``samples`` (N, D)."""
    from .._creation import linspace

    dtype = samples.dtype
    count_dims = samples.shape[1]
    edges, positions = [], []
    inside = np.ones(samples.shape[0], dtype=bool)
    for dim in range(count_dims):
        column = samples[:, dim]
        if given is not None:
            edge = np.asarray(given[dim])
        else:
            edge = linspace(*_outer_edges(column, range_, dim), counts[dim] + 1,
                            dtype=_dtype._BY_NP[dtype])._data
        edges.append(edge)
        inside &= (column >= edge[0]) & (column <= edge[-1])
    hist = np.zeros(counts, dtype=dtype)
    if hist.size:
        for dim, edge in enumerate(edges):
            column = samples[inside, dim]
            if given is None:
                positions.append(_uniform_positions(column, edge))
            else:  # torch's binary search; the last bin holds its right edge
                found = np.searchsorted(edge, column, side="right") - 1
                positions.append(np.minimum(found, edge.size - 2))
        chosen = np.ravel_multi_index(positions, counts) if count_dims > 1 else positions[0]
        flat = hist.reshape(-1)
        if weight is None and chosen.size < 2 ** 24:
            # exact integer counts (a float32 count would stop growing at 2**24, as torch's)
            flat += np.bincount(chosen, minlength=flat.size).astype(dtype)
        elif weight is not None and dtype == np.float64:
            # bincount adds in float64, element by element, as torch's kernel does
            flat += np.bincount(chosen, weight[inside], minlength=flat.size)
        else:
            ones = dtype.type(1) if weight is None else weight[inside]
            np.add.at(flat, chosen, ones)  # in the input's dtype, element by element
        if density:
            with np.errstate(divide="ignore", invalid="ignore"):
                hist = hist / dtype.type(hist.sum())
                for dim, edge in enumerate(edges):
                    shape = [1] * count_dims
                    shape[dim] = -1
                    hist = hist / np.diff(edge).reshape(shape)
    return hist.astype(dtype, copy=False), [np.array(e, dtype=dtype, copy=True) for e in edges]


def _outer_edges(column: np.ndarray, range_, dim: int) -> tuple:
    """torch's leftmost and rightmost edge of a dim: the range given, else the data's
    ([0, 1] without data); a single value widened by 0.5 each way."""
    if range_ is not None:
        low, high = float(range_[2 * dim]), float(range_[2 * dim + 1])
    elif column.size:
        low, high = float(column.min()), float(column.max())
    else:
        low, high = 0.0, 1.0
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension {dim}'s range [{_number(low)}, "
                           f"{_number(high)}] is not finite")
    if low > high:
        raise RuntimeError("torch.histogramdd: min should not exceed max, but got min "
                           f"{_number(low)} max {_number(high)} for dimension {dim}")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return low, high


def _uniform_positions(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bins of values inside [edges[0], edges[-1]] for equal bins: the bin estimated from the
    value's offset, then moved by one where an edge says otherwise (torch's local search
    around its estimate; the same bins as a binary search, at a fraction of its cost on large
    inputs). Values on the last edge land in the last bin."""
    last = edges.size - 2  # the last bin
    low, high = edges[0], edges[-1]
    with np.errstate(all="ignore"):
        estimate = ((values - low) * values.dtype.type(last + 1) / (high - low)).astype(np.intp)
    np.clip(estimate, 0, last, out=estimate)
    estimate -= values < edges[estimate]
    np.clip(estimate, 0, last, out=estimate)
    estimate += (values >= edges[estimate + 1]) & (estimate < last)
    # an estimate off by more than one (rounding with very many bins): a binary search there
    wrong = (values < edges[estimate]) | ((values >= edges[estimate + 1]) & (estimate < last))
    if wrong.any():
        found = np.searchsorted(edges, values[wrong], side="right") - 1
        estimate[wrong] = np.minimum(found, last)
    return estimate


def _number(value: float) -> str:
    return str(int(value)) if math.isfinite(value) and value == int(value) else str(value)


def histogram(*args, **kwargs):
    """``histogram(input, bins, *, range=None, weight=None, density=False)`` -> (hist,
    bin_edges); ``bins`` an int (equal bins over ``range``, the data's by default) or a 1-d
    tensor of increasing edges."""
    method = kwargs.pop("_method", False)
    _argparse.check("Tensor.histogram" if method else "histogram",
                    args[1:] if method else args, kwargs)
    names = ("input", "bins")
    values = dict(zip(names, args))
    values.update(kwargs)
    tensor, bins = values["input"], values.get("bins", 100)  # torch's default: 100 bins
    range_, weight = values.get("range"), values.get("weight")
    density = bool(values.get("density", False))
    if tensor._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f'"histogramdd" not implemented for \'{tensor.dtype._legacy}\'')
    bin_tensor = bins if isinstance(bins, Tensor) else None
    if bin_tensor is None:
        count = int(bins)
        if count <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for "
                               "dimension 0")
    else:
        if bin_tensor.ndim != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but "
                               f"got {bin_tensor.ndim} dimensions in the bins tensor for "
                               "dimension 0")
        if bin_tensor.dtype != tensor.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {_C_NAMES[tensor.dtype.name]} and bins for dimension "
                f"0 with dtype {_C_NAMES[bin_tensor.dtype.name]}")
        count = bin_tensor.numel() - 1
        if count <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for "
                               "dimension 0")
    if weight is not None:
        if tuple(weight.shape) != tuple(tensor.shape):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with "
                f"shape [{tensor.numel()}, 1] and weight with shape {list(weight.shape)}")
        if weight.dtype != tensor.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                f"should have the same dtype, but got input({_C_NAMES[tensor.dtype.name]}), and "
                f"weight({_C_NAMES[weight.dtype.name]})")
    if range_ is not None and bin_tensor is None and len(range_) != 2:
        raise RuntimeError("torch.histogramdd: for a 1-dimensional histogram range should have "
                           f"2 elements, but got {len(range_)}")
    tensors = [t for t in (bin_tensor, weight) if t is not None]
    result = _HistogramNode.apply(tensor, *tensors, bins=(count,), range=range_,
                                  density=density, edge_count=int(bin_tensor is not None),
                                  has_weight=weight is not None, dims=None)
    return return_types.histogram(result)


def histogramdd(*args, **kwargs):
    """``histogramdd(input, bins, *, range=None, weight=None, density=False)`` -> (hist,
    bin_edges): the histogram of the rows of ``input`` (its innermost dim indexes the
    coordinates); ``bins`` an int, one int per dim, or one 1-d tensor of edges per dim."""
    names = ("input", "bins")
    if len(args) > 2 or set(kwargs) - {"input", "bins", "range", "weight", "density"}:
        raise _argparse.invalid_combination("histogramdd", args, kwargs)
    values = dict(zip(names, args))
    values.update(kwargs)
    tensor, bins = values["input"], values["bins"]
    range_, weight = values.get("range"), values.get("weight")
    density = bool(values.get("density", False))
    if isinstance(bins, Tensor):
        raise _argparse.invalid_combination("histogramdd", args, kwargs)
    if tensor.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    dims = tensor.shape[-1]
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        bins = [int(bins)] * dims
    bins = list(bins)
    edge_tensors = None
    if bins and all(isinstance(b, Tensor) for b in bins):
        edge_tensors = bins
        if len(bins) != dims:
            raise RuntimeError(f"torch.histogramdd: expected {dims} sequences of bin edges for a "
                               f"{dims}-dimensional histogram but got {len(bins)}")
        for dim, edge in enumerate(bins):
            _check_edges(tensor, edge.ndim, edge.numel(), edge.dtype, dim)
        counts = tuple(edge.numel() - 1 for edge in bins)
    else:
        for position, count in enumerate(bins):
            if isinstance(count, Tensor):
                raise TypeError(f"expected Tensor as element {position} in argument 1, but got "
                                f"{_argparse.typename(bins[0])}")
            if not isinstance(count, (int, np.integer)) or isinstance(count, bool):
                raise TypeError("histogramdd(): argument 'bins' failed to unpack the object at "
                                f'pos 2 with error "type must be tuple of ints,but got '
                                f'{_argparse.typename(count)}"')
        if len(bins) != dims:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                               "dimension of the input.")
        for dim, count in enumerate(bins):
            _check_edges(tensor, 1, int(count) + 1, tensor.dtype, dim)
        counts = tuple(int(b) for b in bins)
    if tensor._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f'"histogramdd" not implemented for \'{tensor.dtype._legacy}\'')
    flat_shape = [int(np.prod(tensor.shape[:-1])), dims]
    if weight is not None:
        if tuple(weight.shape) != tuple(tensor.shape[:-1]):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with "
                f"shape {flat_shape} and weight with shape {list(weight.shape)}")
        if weight.dtype != tensor.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                f"should have the same dtype, but got input({_C_NAMES[tensor.dtype.name]}), and "
                f"weight({_C_NAMES[weight.dtype.name]})")
    if range_ is not None and edge_tensors is None and len(range_) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should "
                           f"have {2 * dims} elements, but got {len(range_)}")
    tensors = [*(edge_tensors or ()), *([weight] if weight is not None else [])]
    result = _HistogramNode.apply(tensor, *tensors, bins=counts, range=range_, density=density,
                                  edge_count=len(edge_tensors or ()),
                                  has_weight=weight is not None, dims=dims)
    edges = tuple(edge_tensors) if edge_tensors is not None else tuple(result[1:])
    return return_types.histogramdd((result[0], edges))


def _check_edges(tensor, ndim: int, numel: int, dtype, dim: int) -> None:
    """torch's checks of one dim's bin edges (a tensor given, or count + 1 edges to make)."""
    if ndim != 1:
        raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but got "
                           f"{ndim} dimensions in the bins tensor for dimension {dim}")
    if dtype != tensor.dtype:
        raise RuntimeError(
            "torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
            f"got input with dtype {_C_NAMES[tensor.dtype.name]} and bins for dimension {dim} "
            f"with dtype {_C_NAMES[dtype.name]}")
    if numel < 1:
        raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but "
                           f"got {max(numel, 0)} elements in the bins tensor for dimension {dim}")
    if numel == 1:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got 0 for dimension {dim}")


def _c_names() -> dict:
    from ..tensor import _C_NAMES as names  # every dtype's C++ name (uint16: short unsigned int)

    return {**names, "bfloat16": "c10::BFloat16"}


_C_NAMES = _c_names()


def tensor_histogram(*args, **kwargs):
    return histogram(*args, _method=True, **kwargs)


__all__ = ["histogram", "histogramdd", "tensor_histogram"]
