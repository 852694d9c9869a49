"""torch's memory formats: ``torch.contiguous_format``, ``channels_last``, ``preserve_format``.

They name a layout for ``clone``, ``contiguous``, ``to`` and the ``*_like`` constructors
(Note: output layout in ops/_layout.py). ``channels_last_3d`` exists so that code naming it
imports; 5-d arrays are laid out channels-last the same way (C innermost).
"""

from __future__ import annotations

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format"]


class memory_format:  # noqa: N801 - torch's name
    __module__ = "leafgrad"  # as torch shows it: <class 'torch.memory_format'>
    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"leafgrad.{self._name}"

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
