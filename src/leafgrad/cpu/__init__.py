"""``torch.cpu``: the device leafgrad computes on (always available, one device)."""

from __future__ import annotations

import contextlib
import os
import platform

__all__ = ["is_available", "is_initialized", "device_count", "current_device", "set_device",
           "synchronize", "get_capabilities", "Stream", "Event", "StreamContext", "stream",
           "current_stream"]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    """Does nothing: there is one CPU device (as in torch)."""


def synchronize(device=None) -> None:
    """Does nothing: CPU work is synchronous (as in torch)."""


def get_capabilities() -> dict:
    """What this machine is: the architecture and its logical cores (torch also lists the
    vector instruction sets it found; NumPy does its own dispatch)."""
    return {"architecture": platform.machine(), "num_logical_cores": os.cpu_count() or 1}


class Stream:
    """torch.cpu.Stream: work on the CPU is one ordered stream."""

    def __init__(self, priority: int = -1):
        self.priority = priority

    def wait_stream(self, stream) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True


class Event:
    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass


_DEFAULT = Stream()


def current_stream(device=None) -> Stream:
    return _DEFAULT


class StreamContext(contextlib.AbstractContextManager):
    def __init__(self, stream):
        self.stream = stream

    def __exit__(self, *exc) -> None:
        return None


def stream(stream) -> StreamContext:
    return StreamContext(stream)


from . import amp  # noqa: E402 - torch.cpu.amp: the deprecated spellings of torch.amp
