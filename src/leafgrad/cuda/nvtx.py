"""``leafgrad.cuda.nvtx``: NVTX ranges need a CUDA build; torch's CPU build refuses each call."""

from __future__ import annotations

__all__ = ["mark", "range", "range_end", "range_pop", "range_push", "range_start"]

_MESSAGE = "NVTX functions not installed. Are you sure you have a CUDA build?"


def _refuse(*args, **kwargs):
    raise RuntimeError(_MESSAGE)


range_push = range_pop = range_start = range_end = mark = _refuse


class range:  # noqa: A001 - torch's name
    """``with torch.cuda.nvtx.range("name")``: refused on entry, as torch's."""

    def __init__(self, msg, *args, **kwargs):
        self.msg = msg

    def __enter__(self):
        _refuse()

    def __exit__(self, exc_type, exc_value, traceback):
        return False
