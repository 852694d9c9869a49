"""Tensor repr/str, character for character as PyTorch 2.13 prints them.

The rules (all measured against ``torch/_tensor_str.py`` behaviour):

- Floating tensors pick one format for every element from the nonzero finite values: "int mode"
  (``2.``) when all are whole numbers, scientific (``1.0000e-05``) when max/min > 1000, max > 1e8
  or min < 1e-4 (unless ``sci_mode`` forces it), fixed (``0.5000``) otherwise. Every element is
  right-aligned to the widest one.
- More than ``threshold`` elements: each dimension longer than ``2 * edgeitems`` shows its first
  and last ``edgeitems`` entries around ``...``; the format is chosen from the shown entries only.
- Rows wrap to ``linewidth``; nested dimensions are joined by ``dim - 1`` newlines and indented
  one column per level past the ``tensor(`` prefix.
- Suffixes (``size=``, ``dtype=``, then the caller's ``grad_fn=``/``requires_grad=``) follow
  ``, ``, or start a new line when they would pass ``linewidth``.

>>> import numpy as np
>>> from leafgrad import _dtype
>>> tensor_repr(np.array([2.0, 4.0], np.float32), _dtype.float32, [])
'tensor([2., 4.])'
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np

from . import _dtype

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "tensor_repr", "tensor_str"]

# Note: print options are process-global, as in torch (torch._tensor_str.PRINT_OPTS).
_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
_PROFILES = {
    "default": _DEFAULTS,
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}
_opts: dict[str, Any] = {**_DEFAULTS, "sci_mode": None}


class _PrinterOptions:
    """torch._tensor_str.PRINT_OPTS: the options as attributes (its ``__dict__`` is ``_opts``,
    so ``PRINT_OPTS.precision = 2`` sets them and ``copy.copy(PRINT_OPTS)`` is a snapshot)."""


PRINT_OPTS = _PrinterOptions()
PRINT_OPTS.__dict__ = _opts


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
) -> None:
    """Set options for printing tensors, as ``torch.set_printoptions``.

    ``profile`` ("default", "short", "full") is applied first and the other arguments override
    it. As in torch, ``sci_mode`` is reset to ``None`` (automatic) unless it is passed.

    >>> set_printoptions(precision=2)
    >>> set_printoptions(profile="default")
    """
    if profile is not None and profile in _PROFILES:  # torch ignores unknown profile names
        _opts.update(_PROFILES[profile])
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            _opts[name] = value
    _opts["sci_mode"] = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options as a dict that can be passed back to ``set_printoptions``.

    >>> sorted(get_printoptions())
    ['edgeitems', 'linewidth', 'precision', 'sci_mode', 'threshold']
    """
    names = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
    return {name: _opts[name] for name in names}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily change print options (``torch._tensor_str.printoptions``)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """One element format for a whole tensor, chosen from ``values`` (the elements shown)."""

    def __init__(self, values: np.ndarray, floating: bool):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        self.precision = _opts["precision"]
        flat = values.reshape(-1)
        if not floating:
            # str() of Python ints and bools ("True"/"False"), as torch formats item().
            self.max_width = max([self.max_width] + [len(str(v)) for v in flat.tolist()])
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return  # nothing to measure: int mode, width 1 (nan/inf/0 print unpadded)
        # float64 for the ratio test: float16 would overflow at 1e8, as torch notes.
        magnitude = np.abs(finite).astype(np.float64)
        smallest, largest = magnitude.min(), magnitude.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        forced = _opts["sci_mode"]
        if forced is None:
            ratio = largest / smallest
            self.sci_mode = bool(ratio > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        else:
            self.sci_mode = forced
        p = self.precision
        numbers = finite.tolist()
        if self.sci_mode:
            widths = [len(f"{v:.{p}e}") for v in numbers]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in numbers]  # + 1 for the trailing "."
        else:
            widths = [len(f"{v:.{p}f}") for v in numbers]
        self.max_width = max(widths)

    def format(self, value) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{self.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{self.precision}f}"
        return text.rjust(self.max_width)


def _summarized(data: np.ndarray, edge: int) -> np.ndarray:
    """The elements a summarised print shows (torch's get_summarized_data)."""
    if data.ndim == 0:
        return data
    if data.ndim == 1:
        if data.shape[0] > 2 * edge:
            # With edge == 0, data[-0:] is the whole vector: torch measures all of it too.
            return np.concatenate((data[:edge], data[-edge:]))
        return data
    if not edge:
        return np.empty((0,) * data.ndim, data.dtype)
    rows = _shown_rows(data.shape[0], edge, summarize=True)
    return np.stack([_summarized(data[i], edge) for i in rows if i is not None])


def _shown_rows(length: int, edge: int, summarize: bool) -> list[int | None]:
    """Row indices to print, with None where the ``...`` goes."""
    if summarize and length > 2 * edge:
        return list(range(edge)) + [None] + list(range(length - edge, length))
    return list(range(length))


class _ComplexFormatter:
    """torch's pair of formatters for complex tensors: one chosen from the real parts, one from
    the imaginary parts; an element prints as ``real`` then ``imag`` with its sign and ``j``."""

    def __init__(self, values: np.ndarray):
        self.real = _Formatter(np.ascontiguousarray(values.real), True)
        self.imag = _Formatter(np.ascontiguousarray(values.imag), True)
        # torch's element width for line breaking: both widths and the "j"
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, value) -> str:
        value = complex(value)
        real = self.real.format(value.real)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        if imag[0] in "+-":  # a negative imaginary part (also -0.) carries its own sign
            return real + imag
        return real + "+" + imag


def _vector_str(data: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.max_width + 2  # ", " between elements
    per_line = max(1, math.floor((_opts["linewidth"] - indent) / element_length))
    edge = _opts["edgeitems"]
    if summarize and not edge:
        items = ["..."]
    elif summarize and data.shape[0] > 2 * edge:
        items = (
            [fmt.format(v) for v in data[:edge].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in data[-edge:].tolist()]
        )
    else:
        items = [fmt.format(v) for v in data.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(data: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if data.ndim == 0:
        return fmt.format(data.item())
    if data.ndim == 1:
        return _vector_str(data, indent, summarize, fmt)
    rows = _shown_rows(data.shape[0], _opts["edgeitems"], summarize)
    parts = [
        "..." if i is None else _nested_str(data[i], indent + 1, summarize, fmt) for i in rows
    ]
    # One blank line between 3-d blocks, two between 4-d blocks, ...
    return "[" + ("," + "\n" * (data.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _body(data: np.ndarray, floating: bool, indent: int) -> str:
    """The bracketed values of a non-empty array, indented for a prefix of ``indent`` columns."""
    summarize = data.size > _opts["threshold"]
    shown = _summarized(data, _opts["edgeitems"]) if summarize else data
    if data.dtype.kind == "c":
        return _nested_str(data, indent, summarize, _ComplexFormatter(shown))
    return _nested_str(data, indent, summarize, _Formatter(shown, floating))


def _torch_len(text: str) -> int:
    """Length of ``text`` as torch would print it.

    Note: layout is measured in torch's spelling. A dtype prints as ``leafgrad.float64`` where
    torch prints ``torch.float64``; line breaks must fall where torch's do, so that the output
    with ``leafgrad.`` read as ``torch.`` is exactly torch's.
    """
    return len(text) - 3 * text.count("leafgrad.")


def _add_suffixes(text: str, suffixes: list[str], indent: int,
                  force_newline: bool = False) -> str:
    # torch's arithmetic, kept as is: without a newline rfind gives -1, so the first line counts
    # two columns more than it has. force_newline (torch's sparse reprs): the first suffix
    # starts a line of its own.
    last_line_len = _torch_len(text[text.rfind("\n") + 1 :]) + 2
    pieces = [text]
    if force_newline and suffixes:
        pieces.append(",\n" + " " * indent + suffixes[0])
        last_line_len = indent + _torch_len(suffixes[0])
        suffixes = suffixes[1:]
    for suffix in suffixes:
        width = _torch_len(suffix)
        if last_line_len + width + 2 > _opts["linewidth"]:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_len = indent + width
        else:
            pieces.append(", " + suffix)
            last_line_len += width + 2
    pieces.append(")")
    return "".join(pieces)


def tensor_repr(data: np.ndarray, dtype, extras: list[str], prefix: str = "tensor(") -> str:
    """The repr torch gives a CPU tensor holding ``data`` with dtype ``dtype``.

    ``extras`` are suffixes appended after ``size=``/``dtype=``, such as
    ``"grad_fn=<MulBackward0>"`` or ``"requires_grad=True"``.

    >>> tensor_repr(np.array(3, np.int32), _dtype.int32, [])
    'tensor(3, dtype=leafgrad.int32)'
    """
    from ._meta import MetaArray

    meta = type(data) is MetaArray
    data = np.asarray(data)
    indent = len(prefix)
    default = _dtype.get_default_dtype()
    suffixes = []
    if meta:  # torch prints no values of a meta tensor: its shape, and any other dtype
        suffixes.extend(["device='meta'", f"size={tuple(data.shape)}"])
        if dtype != default:
            suffixes.append(f"dtype={dtype}")
        body = "..."
    elif data.size == 0:
        # torch shows the shape unless it is (0,), and the dtype unless it is the default float
        # one: an empty tensor has no values to tell int64 from float.
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if dtype != default:
            suffixes.append(f"dtype={dtype}")
        body = "[]"
    else:
        if not _opts["edgeitems"]:
            suffixes.append(f"size={tuple(data.shape)}")
        if dtype not in (default, _dtype.default_complex_dtype(), _dtype.int64, _dtype.bool):
            suffixes.append(f"dtype={dtype}")
        body = _body(data, dtype.is_floating_point, indent)
    return _add_suffixes(prefix + body, suffixes + list(extras), indent)


def tensor_str(data: np.ndarray, dtype, extras: list[str] = ()) -> str:
    """``str()`` of a tensor, which torch makes identical to its repr."""
    return tensor_repr(data, dtype, list(extras))
