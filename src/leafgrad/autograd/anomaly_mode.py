"""Anomaly detection: find the forward call behind a failing backward (torch's anomaly mode).

>>> with leafgrad.autograd.detect_anomaly():            # warns that it is on
...     x = leafgrad.tensor([-1.0], requires_grad=True)
...     x.sqrt().sum().backward()                         # doctest: +SKIP
RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.

While the mode is on, every node recorded keeps the traceback of the call that made it
(``node.metadata["traceback_"]``; ``"parent_"``: the node whose backward recorded it, under
``create_graph``). When a node's backward raises, the engine warns "Error detected in
XBackward0. Traceback of forward call that caused the error:" with that traceback, then lets
the error through; with ``check_nan``, a gradient containing nan raises.

Note: the traceback shows user code only
torch's traceback also lists its own Python frames (``autograd/function.py``, ``nn`` modules);
leafgrad is all Python, so it drops every frame inside the package: the lines left are the
user's, which is what the traceback is for.

Beyond torch: in-place writes made while the mode is on note the user line that made them, and
the "modified by an inplace operation" error then names the line that changed the saved tensor
(on a second line; the first line is torch's).

The mode costs nothing while off: one flag read per recorded node and per in-place write, and
one per node the engine runs (``state.enabled``).
"""

from __future__ import annotations

import linecache
import os
import sys
import threading
import traceback
import warnings

import numpy as np

__all__ = ["detect_anomaly", "set_detect_anomaly"]

ENABLED_WARNING = (
    "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
    "enabled for debugging."
)
NO_FORWARD_INFO = (
    "No forward pass information available. Enable detect anomaly during forward pass for more "
    "information."
)
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _State:
    __slots__ = ("enabled", "check_nan")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


state = _State()  # process-wide, as torch's
_running = threading.local()  # .node: the node whose backward is running on this thread


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on (``torch.is_anomaly_enabled``)."""
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode checks backward results for nan."""
    return state.check_nan


def set_anomaly_enabled(*args, **kwargs) -> None:
    """``set_anomaly_enabled(enabled, check_nan=True)``: switch the mode (torch's signature)."""
    names = ("enabled", "check_nan")
    values = dict(zip(names, args))
    values.update(kwargs)
    if "enabled" not in values:
        raise TypeError('set_anomaly_enabled() missing 1 required positional arguments: "enabled"')
    for position, name in enumerate(names, 1):
        if name in values and not isinstance(values[name], bool):
            raise TypeError(
                f"set_anomaly_enabled(): argument '{name}' (position {position}) must be bool, "
                f"not {type(values[name]).__name__}"
            )
    state.enabled = values["enabled"]
    state.check_nan = values.get("check_nan", True)


class detect_anomaly:
    """Context manager that turns anomaly detection on (warns when made, as torch does).

    Not a decorator: torch 2.13's ``detect_anomaly`` object is not callable either.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = state.enabled
        self.check_nan = check_nan
        self.prev_check_nan = state.check_nan
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off, as a function or a context manager (restored on exit)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = state.enabled
        self.prev_check_nan = state.check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# -- recording (called only while the mode is on) --------------------------------------------------


_inside_package: dict = {}  # co_filename -> whether the file is part of leafgrad


def _is_internal(filename: str) -> bool:
    inside = _inside_package.get(filename)
    if inside is None:
        inside = _inside_package[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
    return inside


def _user_frames(frame) -> list:
    """The stack above ``frame`` without frames inside leafgrad (see Note: the traceback
    shows user code only), outermost first."""
    frames = []
    while frame is not None:
        if not _is_internal(frame.f_code.co_filename):
            frames.append((frame, frame.f_lineno))
        frame = frame.f_back
    frames.reverse()
    return list(traceback.StackSummary.extract(frames))


def record_node(node) -> None:
    """Keep the forward traceback (and the node being differentiated, if any) on ``node``."""
    metadata = node.metadata
    metadata["traceback_"] = traceback.format_list(_user_frames(sys._getframe(1)))
    parent = getattr(_running, "node", None)
    if parent is not None:
        metadata["parent_"] = parent


def note_write(counter: list) -> None:
    """An in-place write moved ``counter`` to a new version: note the user line that did it."""
    frames = _user_frames(sys._getframe(1))
    if not frames:
        return
    if len(counter) == 1:
        counter.append({})
    writes = counter[1]
    writes[counter[0]] = frames[-1]
    if len(writes) > 64:  # bounded: only recent writes can explain a saved tensor's error
        del writes[min(writes)]


def write_location(counter, expected: int) -> str:
    """The second line of the "modified by an inplace operation" error (Beyond torch)."""
    if counter is None or len(counter) < 2:
        return ""
    frame = counter[1].get(expected + 1)
    if frame is None:
        return ""
    line = frame.line or linecache.getline(frame.filename, frame.lineno).strip()
    return (
        f"\nThe in-place operation that moved it to version {expected + 1} ran at "
        f'File "{frame.filename}", line {frame.lineno}, in {frame.name}: {line}'
    )


# -- the engine's hook points ----------------------------------------------------------------------


def enter_node(node):
    """The engine is about to run ``node``: nodes recorded now get it as their parent."""
    previous = getattr(_running, "node", None)
    _running.node = node
    return previous


def leave_backward(previous) -> None:
    _running.node = previous


def check_nan(node, grads) -> None:
    if not state.check_nan or grads is None:
        return
    for index, grad in enumerate(grads):
        if grad is None:
            continue
        data = grad._data
        if data.dtype.kind in "fc" and np.isnan(data).any():
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {index}th output."
            )


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the user's line that started the backward."""
    frame, level = sys._getframe(2), 2
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def report_error(node) -> None:
    """The failing node's forward traceback and its parents', as torch warns them."""
    if node is None:
        return
    stacklevel = _user_stacklevel()
    is_parent = False
    while node is not None:
        hooks = node._hookset
        metadata = hooks.metadata if hooks is not None else None
        stack = metadata.get("traceback_") if metadata else None
        if stack is None:
            warnings.warn(f"Error detected in {node.name()}. {NO_FORWARD_INFO}", UserWarning,
                          stacklevel=stacklevel)
        elif is_parent:
            warnings.warn(
                f"\n\nPrevious calculation was induced by {node.name()}. Traceback of forward "
                "call that induced the previous calculation:\n" + "".join(stack), UserWarning,
                stacklevel=stacklevel,
            )
        else:
            warnings.warn(
                f"Error detected in {node.name()}. Traceback of forward call that caused the "
                "error:\n" + "".join(stack), UserWarning, stacklevel=stacklevel,
            )
        node = metadata.get("parent_") if metadata else None
        is_parent = True
