"""``torch._tensor_str``: what code reaches for in it (``PRINT_OPTS``, the print-option
functions, ``_Formatter(tensor)`` and ``_str``); the printing itself is ``_printing.py``."""

from __future__ import annotations

import numpy as np

from ._printing import PRINT_OPTS, get_printoptions, printoptions, set_printoptions
from ._printing import _Formatter as _ArrayFormatter

__all__ = ["PRINT_OPTS", "get_printoptions", "printoptions", "set_printoptions"]


class _Formatter:
    """torch's element formatter for every value of ``tensor`` (int, fixed or scientific mode,
    right-aligned to the widest value): ``format(value)`` and ``width()``."""

    def __init__(self, tensor):
        self.floating_dtype = tensor.dtype.is_floating_point
        data = tensor.detach()
        if data.dtype.itemsize == 2 and self.floating_dtype:
            data = data.float()  # (half and bfloat16 values print through float32)
        values = np.asarray(data.numpy()).reshape(-1)
        formatter = _ArrayFormatter(values, self.floating_dtype)
        self.int_mode = formatter.int_mode
        self.sci_mode = formatter.sci_mode
        if self.floating_dtype and PRINT_OPTS.sci_mode is None and bool(
                (np.isfinite(values) & (values != 0)).any()):
            from . import tensor as _tensor

            # torch's automatic choice is a comparison of tensors: a 0-d bool tensor
            self.sci_mode = _tensor(self.sci_mode)
        self.max_width = formatter.max_width
        self._formatter = formatter

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if hasattr(value, "item"):  # (torch formats 0-d tensors through their value)
            value = value.item()
        self._formatter.precision = PRINT_OPTS.precision
        self._formatter.max_width = self.max_width
        return self._formatter.format(value)


def _str(self, *, tensor_contents=None) -> str:
    """The tensor's repr (torch's Tensor.__repr__ calls this)."""
    return repr(self)
