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


class _HistogramNode(Op):
    """The node torch gives histogram's outputs when an input requires grad; not in the op
    table, as it has no gradient to test."""

    node = "NotImplemented"
    qualified_name = "torch::autograd::NotImplemented"
    multi_output = True
    inputs = ("self", "bins", "weight")
    _save_plan = ()

    @staticmethod
    def forward(ctx, a, *tensors, bins, range, density, has_bins, has_weight):  # noqa: A002
        edges_array = tensors[0] if has_bins else None
        weight = tensors[-1] if has_weight else None
        return _compute(a, edges_array, weight, bins, range, density)

    def backward(self, grads):
        raise RuntimeError("derivative for aten::histogram is not implemented")

    def jvp(self, tangents, primals, result):
        raise NotImplementedError(
            "Trying to use forward AD with aten::histogram that does not support it.")


_HistogramNode.__name__ = _HistogramNode.__qualname__ = "NotImplemented"


def _compute(a: np.ndarray, edges: np.ndarray | None, weight, count: int, range_, density: bool):
    from .._creation import linspace

    values = a.reshape(-1)
    uniform = edges is None  # equal bins: torch estimates each position, then searches nearby
    if edges is None:
        if range_ is not None:
            low, high = float(range_[0]), float(range_[1])
        elif values.size:
            low, high = float(values.min()), float(values.max())
        else:
            low, high = 0.0, 1.0  # torch's range for an empty input
        if not (math.isfinite(low) and math.isfinite(high)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{_number(low)}, "
                               f"{_number(high)}] is not finite")
        if low > high:
            raise RuntimeError("torch.histogramdd: min should not exceed max, but got min "
                               f"{_number(low)} max {_number(high)} for dimension 0")
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges = linspace(low, high, count + 1, dtype=_dtype._BY_NP[a.dtype])._data
    hist = np.zeros(max(edges.size - 1, 0), dtype=a.dtype)
    if hist.size:
        inside = (values >= edges[0]) & (values <= edges[-1])
        if uniform:
            chosen = _uniform_positions(values[inside], edges)
        else:
            chosen = np.searchsorted(edges, values[inside], side="right") - 1
        chosen[chosen == hist.size] = hist.size - 1  # the last bin holds its right edge
        if weight is None and chosen.size < 2 ** 24:
            # exact integer counts (a float32 count would stop growing at 2**24, as torch's)
            hist += np.bincount(chosen, minlength=hist.size).astype(a.dtype)
        elif weight is not None and a.dtype == np.float64:
            # bincount adds in float64, element by element, as torch's kernel does
            hist += np.bincount(chosen, weight.reshape(-1)[inside], minlength=hist.size)
        else:
            ones = a.dtype.type(1) if weight is None else weight.reshape(-1)[inside]
            np.add.at(hist, chosen, ones)  # in the input's dtype, element by element
        if density:
            with np.errstate(divide="ignore", invalid="ignore"):
                hist = hist / a.dtype.type(hist.sum())
                hist = hist / np.diff(edges)
    return hist.astype(a.dtype, copy=False), np.array(edges, dtype=a.dtype, copy=True)


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
    from . import return_types

    method = kwargs.pop("_method", False)
    _argparse.check("Tensor.histogram" if method else "histogram",
                    args[1:] if method else args, kwargs)
    names = ("input", "bins")
    values = dict(zip(names, args))
    values.update(kwargs)
    tensor, bins = values["input"], values["bins"]
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
    result = _HistogramNode.apply(tensor, *tensors, bins=count, range=range_, density=density,
                                  has_bins=bin_tensor is not None, has_weight=weight is not None)
    return return_types.histogram(result)


_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "bfloat16": "c10::BFloat16"}


def tensor_histogram(*args, **kwargs):
    return histogram(*args, _method=True, **kwargs)


__all__ = ["histogram", "tensor_histogram"]
