"""Whether a capture is running: one flag the eager paths check, and the tracer they report to.

Imported by the op registry, the in-place path, Tensor and Optimizer, so it imports nothing.
Off by default; ``Op.apply`` pays one attribute check for it (the same pattern as forward-AD's
``state.active``: a plain slotted object, cheaper to read than a thread-local). The tracer
remembers the thread it runs in and passes calls from other threads through unrecorded.
"""

from __future__ import annotations


class _State:
    __slots__ = ("active", "tracer")

    def __init__(self) -> None:
        self.active = False  # True while a tracer records; it turns it off around its own calls
        self.tracer = None


state = _State()
