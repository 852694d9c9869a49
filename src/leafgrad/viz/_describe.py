"""What the viewer says about one tensor, saved tensor, hook or node: JSON-able dicts.

Values are summarised: tensors up to ``FULL_VALUES`` elements are shown in full (torch's repr,
so ``grad: tensor([5.])`` reads as it prints), larger ones by their statistics and the head of
torch's summarised repr.
"""

from __future__ import annotations

import inspect

import numpy as np

__all__ = ["tensor_summary", "describe_hook", "shape_text", "array_summary"]

FULL_VALUES = 64  # elements shown in full; beyond that, statistics
REPR_CHARS = 600  # a larger tensor's repr is cut here


def shape_text(shape) -> str:
    """torchviz's size string: ``(2, 3)``; ``()`` for a 0-d tensor."""
    return "(" + ", ".join(str(int(s)) for s in shape) + ")"


def array_summary(data: np.ndarray) -> dict:
    """Statistics of an array, without the repr (for the trace's gradients too)."""
    summary = {
        "shape": [int(s) for s in data.shape],
        "dtype": str(data.dtype),
        "numel": int(data.size),
        "bytes": int(data.nbytes),
    }
    if data.size and data.dtype.kind in "fiub":
        values = data.astype(np.float64, copy=False)
        finite = np.isfinite(values)
        summary["nan"] = int(np.isnan(values).sum())
        summary["inf"] = int((~finite).sum()) - summary["nan"]
        if finite.any():
            good = values[finite]
            summary["min"] = float(good.min())
            summary["max"] = float(good.max())
            summary["mean"] = float(good.mean())
            summary["std"] = float(good.std())
            summary["norm"] = float(np.sqrt(np.square(good).sum()))
        summary["zeros"] = int((values == 0).sum())
    if data.size <= FULL_VALUES:
        summary["values"] = _json_values(data.tolist())
    return summary


def _json_values(values):
    """Nested lists with nan/inf as strings, so the summary stays valid JSON."""
    if isinstance(values, list):
        return [_json_values(v) for v in values]
    if isinstance(values, float) and values != values:
        return "nan"
    if isinstance(values, float) and values in (float("inf"), float("-inf")):
        return "inf" if values > 0 else "-inf"
    return values


def tensor_summary(tensor) -> dict:
    """Shape, dtype, statistics and torch's repr of a tensor (cut for large ones)."""
    data = tensor._data
    summary = array_summary(data)
    summary["dtype"] = str(tensor.dtype)
    try:
        text = repr(tensor)
    except Exception as error:  # a tensor whose repr fails must not break the drawing
        text = f"<repr failed: {type(error).__name__}>"
    if len(text) > REPR_CHARS:
        text = text[:REPR_CHARS] + " ..."
    summary["repr"] = text
    return summary


def describe_hook(kind: str, fn) -> dict:
    """A hook: its kind, the function's name and where it is defined."""
    target = inspect.unwrap(fn) if callable(fn) else fn
    name = getattr(target, "__qualname__", None) or type(target).__name__
    where = None
    code = getattr(target, "__code__", None)
    if code is None and hasattr(target, "__call__"):
        code = getattr(getattr(target, "__call__"), "__code__", None)
    if code is not None:
        where = f"{code.co_filename}:{code.co_firstlineno}"
    return {"kind": kind, "fn": name, "where": where}
