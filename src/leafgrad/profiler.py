"""``leafgrad.profiler``: torch.profiler's API over leafgrad's recorder (autograd/profiler.py).

>>> from leafgrad.profiler import profile, record_function, ProfilerActivity, schedule
>>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
...     with record_function("model_inference"):
...         model(inputs)
>>> print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))  # doctest: +SKIP

A ``schedule`` (wait, warmup, active steps, repeated) decides at each ``prof.step()`` whether
the profiler records, as torch's does: each step is a ``ProfilerStep#N`` event, each finished
active cycle is handed to ``on_trace_ready`` (``tensorboard_trace_handler(dir)`` writes it as a
trace file TensorBoard's profiler plugin reads), and ``key_averages()`` shows the last cycle.
"""

from __future__ import annotations

import os
import warnings
from enum import Enum

from .autograd import profiler as _profiler
from .autograd.profiler import DeviceType, kineto_available, record_function

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "DeviceType",
           "schedule", "tensorboard_trace_handler", "supported_activities", "kineto_available"]


class _Named(Enum):
    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class ProfilerActivity(_Named):
    """What a profile records: leafgrad records CPU activity only."""

    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerAction(_Named):
    """What a schedule asks of the profiler at one step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


_warned: set = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, stacklevel=4)


def supported_activities() -> set:
    """The activities this build can record: the CPU's."""
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """The step -> ProfilerAction function of torch's schedule: skip ``skip_first`` steps, then
    cycles of ``wait`` idle steps, ``warmup`` steps and ``active`` recorded steps (the last
    RECORD_AND_SAVE), ``repeat`` times (0: without end); ``skip_first_wait`` drops the first
    cycle's wait."""

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    return schedule_fn


def _always_record(_step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False, use_python_export: bool = False):
    """An ``on_trace_ready`` handler writing each cycle's trace to
    ``dir_name/<worker>.<time_ns>.pt.trace.json`` (``.gz`` with ``use_gzip``), the files
    TensorBoard's profiler plugin reads; the worker defaults to ``<hostname>_<pid>``."""
    import socket
    import time

    def handler_fn(prof) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as error:
                raise RuntimeError("Can't create directory: " + dir_name) from error
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler_fn


class profile:
    """torch.profiler.profile: records while its ``schedule`` says so (always, without one),
    hands each finished cycle to ``on_trace_ready``; ``step()`` marks the end of a training
    step. ``activities`` other than the CPU's are accepted and record nothing."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None,
                 post_processing_timeout_s=None):
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
        self.activities = set(activities) if activities is not None else supported_activities()
        if activities is not None and len(self.activities) == 0:
            raise AssertionError("No valid profiler activities found")
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.use_device = None
        self.record_steps = schedule is not None
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.profiler = None  # the recorder of the current (or last) cycle
        action = self.schedule(self.step_num)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler "
                             "and must not be returned by a user-provided schedule")
        self.current_action = action

    # -- the cycle ----------------------------------------------------------------------------
    def _prepare(self) -> None:
        if self.profiler is not None and not self.acc_events:
            _warn_once("Warning: Profiler clears events at the end of each cycle. Only events "
                       "from the current cycle will be reported. To keep events across cycles, "
                       "set acc_events=True.")
        if self.profiler is None or not self.acc_events:
            self.profiler = _profiler.profile(
                record_shapes=self.record_shapes, with_flops=self.with_flops,
                profile_memory=self.profile_memory, with_stack=self.with_stack,
                with_modules=self.with_modules, acc_events=self.acc_events)

    def _start_trace(self) -> None:
        self.profiler._start()

    def _stop_trace(self) -> None:
        if self.profiler is not None and self.profiler._recording:
            self.profiler._stop()

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit(self, previous, current) -> None:
        A = ProfilerAction  # noqa: N806
        idle, warm = (previous in (None, A.NONE)), previous == A.WARMUP
        recording = previous in (A.RECORD, A.RECORD_AND_SAVE)
        if current is None:  # stopping
            if warm:
                self._prepare_if_needed()
                self._start_trace()
                self._stop_trace()
            elif recording:
                self._stop_trace()
                self._trace_ready()
            return
        if idle:
            if current == A.WARMUP:
                self._prepare()
            elif current in (A.RECORD, A.RECORD_AND_SAVE):
                self._prepare()
                self._start_trace()
        elif warm:
            if current == A.NONE:
                warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)
                self._start_trace()
                self._stop_trace()
            elif current in (A.RECORD, A.RECORD_AND_SAVE):
                self._start_trace()
        elif previous == A.RECORD:
            if current in (A.NONE, A.WARMUP):
                warnings.warn(f"Incorrect schedule: RECORD followed by {current.name}",
                              stacklevel=3)
                self._stop_trace()
        elif previous == A.RECORD_AND_SAVE:
            self._stop_trace()
            self._trace_ready()
            if current != A.NONE:
                self._prepare()
            if current in (A.RECORD, A.RECORD_AND_SAVE):
                self._start_trace()

    def _prepare_if_needed(self) -> None:
        if self.profiler is None:
            self._prepare()

    # -- torch's entry points -----------------------------------------------------------------
    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        self._transit(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def stop(self) -> None:
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit(self.current_action, None)

    def step(self) -> None:
        """Signals the profiler that the next profiling step has started."""
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        previous = self.current_action
        action = self.schedule(self.step_num + 1)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler "
                             "and must not be returned by a user-provided schedule")
        self.step_num += 1
        self.current_action = action
        self._transit(previous, action)
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    # -- results ------------------------------------------------------------------------------
    def _recorder(self):
        if self.profiler is None:
            raise AssertionError("Expected profiler to be initialized")
        return self.profiler

    def events(self):
        """The recorded events of the last cycle (an EventList of FunctionEvent)."""
        return self._recorder().function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):
        return self._recorder().key_averages(group_by_input_shape, group_by_stack_n,
                                             group_by_overload_name)

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        self._recorder().export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        self._recorder().export_stacks(path, metric)

    def add_metadata(self, key: str, value: str) -> None:
        """A string written at the top of the exported trace (while recording, as torch)."""
        self.add_metadata_json(key, '"' + value + '"')

    def add_metadata_json(self, key: str, value: str) -> None:
        """A JSON value written at the top of the exported trace (while recording)."""
        import json

        if self.profiler is not None and self.profiler._recording:
            self.profiler._metadata[key] = json.loads(value)
