"""Whether a profile is recording (autograd/profiler.py), readable from anywhere without
importing the recorder: ``active`` is the list of recording profiles, empty when none is.
torch's composite functions that its profiler shows around their kernels (``aten::linear``,
``aten::matmul``) call ``scoped`` only while a profile records."""

from __future__ import annotations

active: list = []


def scoped(name: str, function, args: tuple, shown: tuple | None = None):
    """``function(*args)`` recorded as an event called ``name`` in the active profiles, its
    inputs ``shown`` (torch's schema's arguments; ``args`` by default)."""
    from .autograd.profiler import _begin, _end

    shown = args if shown is None else shown
    event = _begin(name, shown)
    result = None
    try:
        result = function(*args)
        return result
    finally:
        _end(event, result, shown)
