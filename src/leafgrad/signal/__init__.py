"""``torch.signal``: signal-processing windows (``torch.signal.windows``)."""

from . import windows

__all__ = ["windows"]
