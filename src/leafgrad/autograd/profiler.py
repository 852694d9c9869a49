"""``autograd.profiler``: time every op, backward node and labelled block inside a profile.

>>> with leafgrad.autograd.profiler.profile(record_shapes=True) as prof:
...     with leafgrad.autograd.profiler.record_function("forward"):
...         y = (leafgrad.ones(3, requires_grad=True) * 2).sum()
...     y.backward()
>>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))  # doctest: +SKIP

What is recorded, as torch's profiler names it: each op as an event named by its ``aten::``
name (with its input shapes when ``record_shapes``), each backward node the engine runs as
``autograd::engine::evaluate_function: <node>`` around an event named by the node, and each
``record_function`` block by its label. Events nest by time on their thread (an op called by
another is its child); an event's self time is its time less its children's. ``profile_memory``
counts the bytes of the arrays each op returns (torch counts its allocator's allocations and
frees, so its figures differ); ``with_flops`` estimates torch's formulas for the matrix
products, convolutions and elementwise add/mul. torch's own C++ events inside an op (its
``aten::empty``, ``aten::resolve_conj``...) have no counterpart here.

While a profile is active, ``Op.apply`` (the entry of every op) is replaced by a timing version
and the engine reports each node to the profile; outside a profile nothing is changed, so
profiling costs nothing when it is off.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import math
import threading
import time
from enum import Enum

import numpy as np

from .. import _profiling
from .engine import ChainedObserver

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg",
           "DeviceType", "emit_nvtx", "emit_itt", "kineto_available"]


class DeviceType(Enum):
    """torch's device types as the profiler reports them (``DeviceType.CPU`` for every event
    leafgrad records)."""

    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5

    def __repr__(self) -> str:
        return f"<DeviceType.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"DeviceType.{self.name}"


def kineto_available() -> bool:
    """torch answers True on its CPU builds; leafgrad's profiler takes torch.profiler's API."""
    return True


# -- formatting, as torch prints times, shares and sizes -------------------------------------------
def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_share(us: float, total: float) -> str:
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


def _format_memory(nbytes: int) -> str:
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


class Interval:
    """An event's start and end, in microseconds since the profile began."""

    def __init__(self, start: float, end: float):
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start


class _Times:
    """The string forms and averages torch's events and averages both offer."""

    cpu_time_total: float
    self_cpu_time_total: float
    count: int

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)

    # (no device here: torch's device columns stay empty on a CPU run)
    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0
    device_memory_usage = self_device_memory_usage = cuda_memory_usage = 0
    self_cuda_memory_usage = 0

    @property
    def device_time(self) -> float:
        return 0.0

    cuda_time = device_time

    @property
    def device_time_str(self) -> str:
        return _format_time(0.0)

    device_time_total_str = self_device_time_total_str = device_time_str


class FunctionEvent(_Times):
    """One recorded op, backward node or labelled block."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, *,  # noqa: A002
                 sequence_nr=-1, is_user_annotation=False, cpu_memory_usage=0, flops=0,
                 fwd_thread=None, stack=None, input_dtypes=None, trace_name=None):
        self.id = id
        self.name = name
        self.overload_name = ""
        self.trace_name = trace_name if trace_name is not None else name
        self.thread = thread
        self.fwd_thread = fwd_thread if fwd_thread is not None else thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_dtypes = input_dtypes if input_dtypes is not None else []
        self.concrete_inputs: list = []
        self.kwinputs: dict = {}
        self.sequence_nr = sequence_nr
        self.is_user_annotation = is_user_annotation
        self.cpu_memory_usage = cpu_memory_usage
        self.flops = flops
        self.stack = stack if stack is not None else []
        self.cpu_children: list = []
        self.cpu_parent = None
        self.kernels: list = []
        self.count = 1
        self.node_id = -1
        self.device_type = DeviceType.CPU
        self.device_index = 0
        self.device_resource_id = thread
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.is_python_function = False
        self.use_device = None
        self.scope = 0
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    @property
    def key(self) -> str:
        return self.name

    def append_cpu_child(self, child: "FunctionEvent") -> None:
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent: "FunctionEvent") -> None:
        self.cpu_parent = parent

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(child.cpu_memory_usage for child in self.cpu_children)

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
                f"device_type={self.device_type} node_id={self.node_id} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} "
                f"end_us={self.time_range.end} "
                f"cpu_children={[child.id for child in self.cpu_children]} "
                f"None_time={self.device_time_str} name={self.name} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"None_memory_usage=0 is_async={self.is_async} is_remote={self.is_remote} "
                f"seq_nr={self.sequence_nr} is_legacy={self.is_legacy}>")


class FunctionEventAvg(_Times):
    """The events of one key summed: count, total and self CPU time, memory, flops."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.is_user_annotation = False
        self.use_device = None
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.flops = 0
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    def add(self, other) -> "FunctionEventAvg":
        if self.key is None:  # the first event sets what the group shows
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        self.flops = (self.flops or 0) + (other.flops or 0)
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_cuda_time={self.self_device_time_total_str} "
                f"cuda_time={self.device_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} cuda_memory_usage=0>")


class EventList(list):
    """A profile's events (or their averages), with torch's table, averages and trace export."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False):
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> "EventList":
        """One FunctionEventAvg per key (and per input shapes, stack prefix or overload name
        when asked), in the order the keys first occur."""
        groups: dict = {}
        for event in self:
            key = [event.key, str(event.node_id), str(event.is_user_annotation)]
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key += list(event.stack[:group_by_stack_n])
            if group_by_overload_name:
                key.append(event.overload_name)
            groups.setdefault(tuple(key), FunctionEventAvg()).add(event)
        averages = EventList(groups.values(), use_device=self._use_device,
                             profile_memory=self._profile_memory, with_flops=self._with_flops)
        for average in averages:  # (what the grouping did not use does not show)
            average.stack = list(average.stack[:group_by_stack_n])
            if not group_by_input_shapes:
                average.input_shapes = ""
            if not group_by_overload_name:
                average.overload_name = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for event in self:
            total.cpu_time_total += event.cpu_time_total
            total.self_cpu_time_total += event.self_cpu_time_total
            total.cpu_memory_usage += event.cpu_memory_usage
            total.self_cpu_memory_usage += event.self_cpu_memory_usage
            total.count += event.count
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None) -> str:
        """The summary torch prints: one row per event (or average), sorted by ``sort_by``
        (an attribute: ``cpu_time_total``, ``self_cpu_time_total``, ``count``,
        ``self_cpu_memory_usage``...), at most ``row_limit`` rows."""
        return _table(self, sort_by, row_limit, max_src_column_width, max_name_column_width,
                      max_shapes_column_width, header, top_level_events_only, time_unit,
                      self._profile_memory, self._with_flops)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """The events as a Chrome trace (``chrome://tracing``, Perfetto, TensorBoard)."""
        _write_trace(path, [event for event in self if isinstance(event, FunctionEvent)])

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Each event's stack (``with_stack``) and its metric, one line per event, as flame
        graph tools read them."""
        with open(path, "w") as handle:
            for event in self:
                if event.stack:
                    frames = ";".join(reversed([frame.replace(";", "") for frame in event.stack]))
                    handle.write(f"{frames};{event.name} {int(getattr(event, metric))}\n")


def _table(events, sort_by, row_limit, max_src_width, max_name_width, max_shapes_width, header,
           top_level_only, time_unit, profile_memory, with_flops) -> str:
    if not events:
        return ""
    events = list(events)
    has_shapes = any(event.input_shapes for event in events)
    if sort_by is not None:
        attribute = sort_by.replace("cuda", "device").replace("xpu", "device")
        events.sort(key=lambda event: getattr(event, attribute), reverse=True)
    name_width = max(len(event.key) for event in events) + 4
    if max_name_width is not None:
        name_width = min(name_width, max_name_width)
    shapes_width = max(len(str(event.input_shapes)) for event in events) + 4
    if max_shapes_width is not None:
        shapes_width = min(shapes_width, max_shapes_width)
    stacks = [event.stack for event in events if event.stack]
    source_width = None
    if stacks:
        source_width = max(len(entry) for stack in stacks for entry in stack) + 4
        if max_src_width is not None:
            source_width = min(source_width, max_src_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [12] * (len(headers) - 1)
    aligns = [">"] * len(headers)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        headers.append("Source Location")
        widths.append(source_width)
        aligns.append("<")
    flops_scale = None
    if with_flops:
        positive = [event.flops for event in events if event.flops > 0]
        if positive:
            units = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
            level = int(max(0, min(math.log10(min(positive)) / 3, len(units) - 1)))
            flops_scale = 10.0 ** (-3 * level)
            headers.append(f"Total {units[level]}")
            widths.append(12)
            aligns.append(">")

    def row(cells):
        return "".join(f"{str(cell):{align}{width}}  "
                       for cell, width, align in zip(cells, widths, aligns))

    line_length = sum(widths) + 2 * (len(widths) - 1)
    rule = "".join("-" * width + "  " for width in widths)
    total_self = sum(event.self_cpu_time_total for event in events)

    def timed(us, text):
        if time_unit == "s":
            return f"{us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{us:.3f}us"
        return text

    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [rule, row(headers), rule]
    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if max_name_width is not None and len(name) >= max_name_width - 3:
            name = name[:max_name_width - 3] + "..."
        event.self_cpu_percent = _format_share(event.self_cpu_time_total, total_self)
        event.total_cpu_percent = _format_share(event.cpu_time_total, total_self)
        cells = [name, event.self_cpu_percent,
                 timed(event.self_cpu_time_total, event.self_cpu_time_total_str),
                 event.total_cpu_percent, timed(event.cpu_time_total, event.cpu_time_total_str),
                 timed(event.cpu_time, event.cpu_time_str)]
        if profile_memory:
            cells += [_format_memory(event.cpu_memory_usage),
                      _format_memory(event.self_cpu_memory_usage)]
        cells.append(event.count)
        if has_shapes:
            cells.append(str(event.input_shapes)[:shapes_width])
        if stacks:
            source = event.stack[0] if event.stack else ""
            if len(source) > source_width:
                source = "..." + source[len(source) - source_width + 3:]
            cells.append(source)
        if flops_scale is not None:
            cells.append("--" if event.flops <= 0 else f"{event.flops * flops_scale:8.3f}")
        lines.append(row(cells))
    lines.append(rule)
    lines.append(f"Self CPU time total: {timed(total_self, _format_time(total_self))}")
    return "\n".join(lines) + "\n"


def _write_trace(path: str, events: list, base_ns: int = 0, metadata: dict | None = None) -> None:
    """Kineto's trace layout (what TensorBoard's profiler plugin and Perfetto read): complete
    ("X") events with their category, microsecond start and duration, thread and arguments."""
    import os

    trace = []
    for event in events:
        args = {"External id": event.id, "Record function id": 0,
                "Sequence number": event.sequence_nr, "Fwd thread id": event.fwd_thread,
                "Ev Idx": event.id}
        if event.input_shapes:
            args["Input Dims"] = event.input_shapes
            args["Input type"] = event.input_dtypes
        category = "user_annotation" if event.is_user_annotation else "cpu_op"
        trace.append({"ph": "X", "cat": category, "name": event.trace_name, "pid": os.getpid(),
                      "tid": event.thread, "ts": round(event.time_range.start, 3),
                      "dur": round(event.cpu_time_total, 3), "args": args})
    document = {"schemaVersion": 1, "deviceProperties": [], **(metadata or {}),
                "traceEvents": trace, "traceName": path, "displayTimeUnit": "ms",
                "baseTimeNanoseconds": base_ns}
    text = json.dumps(document, indent=1)
    if path.endswith(".gz"):
        import gzip

        with gzip.open(path, "wt") as handle:
            handle.write(text)
    else:
        with open(path, "w") as handle:
            handle.write(text)


# -- recording -----------------------------------------------------------------------------------
_lock = threading.Lock()
_active = _profiling.active  # the profiles recording now (nested profiles all record)
_local = threading.local()  # .stack: the events now open on this thread
_threads: dict = {}  # thread ident -> torch-style small id (1 for the first seen)
_ids = itertools.count()


def _thread_id() -> int:
    ident = threading.get_ident()
    number = _threads.get(ident)
    if number is None:
        with _lock:
            number = _threads.setdefault(ident, len(_threads) + 1)
    return number


def _open_stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


class _Open:
    """An event being recorded: its name, start and what the recording profiles asked for."""

    __slots__ = ("name", "start", "shapes", "dtypes", "annotation", "sequence_nr", "children",
                 "memory", "flops", "stack", "profiles")

    def __init__(self, name, shapes, dtypes, annotation, sequence_nr, profiles, stack):
        self.name = name
        self.shapes = shapes
        self.dtypes = dtypes
        self.annotation = annotation
        self.sequence_nr = sequence_nr
        self.children: list = []
        self.memory = 0
        self.flops = 0
        self.stack = stack
        self.profiles = profiles
        self.start = time.perf_counter_ns()


def _begin(name: str, args=(), annotation: bool = False, sequence_nr: int = -1) -> _Open:
    profiles = [p for p in _active if p._recording]
    shapes = dtypes = None
    if any(p.record_shapes for p in profiles):
        shapes = [list(a.shape) if _is_tensor(a) or isinstance(a, np.ndarray)
                  else _shape_of_list(a) for a in args]
        dtypes = [_dtype_name(a) for a in args]
        missing = _ARITY.get(name, 0) - len(shapes)
        if missing > 0:
            shapes += [[]] * missing
            dtypes += [""] * missing
    stack = None
    if any(p.with_stack for p in profiles):
        stack = _python_stack()
    event = _Open(name, shapes, dtypes, annotation, sequence_nr, profiles, stack)
    _open_stack().append(event)
    return event


def _end(event: _Open, result=None, args=()) -> None:
    end = time.perf_counter_ns()
    stack = _open_stack()
    if stack and stack[-1] is event:
        stack.pop()
    else:  # (a block left out of order: close it where it is)
        with contextlib.suppress(ValueError):
            stack.remove(event)
    thread = _thread_id()
    memory = _nbytes(result) if any(p.profile_memory for p in event.profiles) else 0
    flops = (_flops(event.name, args, result)
             if any(p.with_flops for p in event.profiles) else 0)
    for profile in event.profiles:
        if profile._recording:
            profile._add(event, end, thread, memory, flops)
    if stack:
        stack[-1].children.append(event)


def _is_tensor(value) -> bool:
    from ..tensor import Tensor

    return isinstance(value, Tensor)


def _shape_of_list(value) -> list:
    if isinstance(value, (list, tuple)) and value and all(_is_tensor(v) for v in value):
        return [list(v.shape) for v in value]  # (a TensorList argument: cat's, stack's)
    return []


def _dtype_name(value) -> str:
    if _is_tensor(value):
        return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
                "bool": "bool", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}.get(
                    value.dtype.name, value.dtype.name)
    if isinstance(value, bool):
        return "Scalar"
    if isinstance(value, (int, float, complex)):
        return "Scalar"
    if isinstance(value, (list, tuple)):
        return "ScalarList" if not value or not _is_tensor(value[0]) else "TensorList"
    return "" if value is None else type(value).__name__


def _nbytes(result) -> int:
    if _is_tensor(result):
        return int(result._data.nbytes) if result._base is None else 0
    if isinstance(result, (tuple, list)):
        return sum(_nbytes(item) for item in result)
    return 0


def _flops(name: str, args, result) -> int:
    """torch's estimates (its profiler's computeFlops): 2 m k n for a matrix product (times the
    batch), 2 x output x (input channels / groups) x kernel for a convolution, one per output
    element for add and mul."""
    tensors = [a for a in args if _is_tensor(a)]
    try:
        if name in ("aten::mm", "aten::matmul") and len(tensors) >= 2 and \
                tensors[0].ndim == 2 and tensors[1].ndim == 2:
            (m, k), n = tensors[0].shape, tensors[1].shape[1]
            return 2 * m * k * n
        if name == "aten::addmm" and len(tensors) >= 3:
            (m, k), n = tensors[1].shape, tensors[2].shape[1]
            return 2 * m * k * n
        if name in ("aten::bmm", "aten::baddbmm") and len(tensors) >= 2:
            first, second = tensors[-2], tensors[-1]
            b, m, k = first.shape
            return 2 * b * m * k * second.shape[-1]
        if name in ("aten::conv2d", "aten::convolution", "aten::_convolution") and \
                len(tensors) >= 2 and _is_tensor(result):
            weight = tensors[1]
            kernel = math.prod(weight.shape[1:])
            return 2 * result.numel() * kernel
        if name in ("aten::add", "aten::mul") and _is_tensor(result):
            return result.numel()
    except (ValueError, TypeError, IndexError):
        return 0
    return 0


def _python_stack() -> list:
    import sys

    frames = []
    frame = sys._getframe(3)
    while frame is not None:
        filename = frame.f_code.co_filename
        if "/leafgrad/" not in filename.replace("\\", "/"):
            frames.append(f"{filename}({frame.f_lineno}): {frame.f_code.co_name}")
        frame = frame.f_back
    return frames


class _BackwardObserver(ChainedObserver):
    """Reports each node the engine runs to the active profiles, as torch names it (the
    observer it displaced, ``autograd.trace()``, still sees everything)."""

    def run(self, node, buffer, hookset, run_hooked, retain_graph):
        name = node.name()
        sequence_nr = getattr(node, "_seq", -1)
        outer = _begin(f"autograd::engine::evaluate_function: {name}", (), False, sequence_nr)
        try:  # (the node's event shows the shapes of the gradients it got)
            inner = _begin(name, [g for g in buffer if g is not None], False, sequence_nr)
            try:
                return self.run_node(node, buffer, hookset, run_hooked, retain_graph)
            finally:
                _end(inner)
        finally:
            _end(outer)


_original_apply = None


# ops without a torch function of their own (backward formulas, in-place kernels): the aten
# kernel torch runs there
_KERNELS = {"ToCopy": "_to_copy", "Copy": "copy_", "Fill": "fill_", "FillTensor": "fill_",
            "Zero": "zero_", "SoftmaxBackwardData": "_softmax_backward_data",
            "LogSoftmaxBackwardData": "_log_softmax_backward_data", "Alias": "alias"}
# how many arguments torch's schema lists (its input shapes show [] for each non-tensor one)
_ARITY = {"aten::addmm": 5, "aten::addmv": 5, "aten::baddbmm": 5, "aten::addbmm": 5,
          "aten::add": 3, "aten::sub": 3, "aten::rsub": 3, "aten::mm": 2, "aten::bmm": 2,
          "aten::matmul": 2, "aten::linear": 3, "aten::log_softmax": 3, "aten::softmax": 3,
          "aten::nll_loss": 5, "aten::cross_entropy_loss": 6, "aten::conv2d": 7,
          "aten::conv1d": 7, "aten::dropout": 3, "aten::embedding": 5, "aten::layer_norm": 6,
          "aten::batch_norm": 9, "aten::max_pool2d": 6}


def _op_name(cls) -> str:
    names = [n for n in getattr(cls, "torch_names", ()) if "." not in n or n.startswith("nn.")]
    if names:
        return "aten::" + names[0].split(".")[-1]
    name = getattr(cls, "op_name", cls.__name__).rstrip("0123456789")
    if name in _KERNELS:
        return "aten::" + _KERNELS[name]
    snake = "".join("_" + c.lower() if c.isupper() and i else c.lower()
                    for i, c in enumerate(name))
    return "aten::" + snake


@functools.lru_cache(maxsize=None)
def _cached_op_name(cls) -> str:
    return _op_name(cls)


def _install() -> None:
    global _original_apply
    from ..ops.registry import Op
    from . import engine

    _original_apply = Op.__dict__["apply"]
    inner = _original_apply.__func__

    def timed_apply(cls, *args, **params):
        shown = args
        if params:  # (a tensor given as a parameter is an input to torch, after the first:
            # nll_loss's target)
            extra = tuple(v for v in params.values() if isinstance(v, np.ndarray) or _is_tensor(v))
            shown = args[:1] + extra + args[1:] if extra else args
        event = _begin(_cached_op_name(cls), shown)
        result = None
        try:
            result = inner(cls, *args, **params)
            node = getattr(result, "_node", None)
            if node is not None:  # (torch's op event carries its node's sequence number)
                event.sequence_nr = node._seq
            return result
        finally:
            _end(event, result, shown)

    Op.apply = classmethod(timed_apply)
    engine._observer = _BackwardObserver(engine._observer)


def _uninstall() -> None:
    from ..ops.registry import Op
    from . import engine

    Op.apply = _original_apply
    observer = engine._observer
    if isinstance(observer, _BackwardObserver):
        engine._observer = observer.previous


def _enable(profile) -> None:
    with _lock:
        if not _active:
            _install()
        _active.append(profile)


def _disable(profile) -> None:
    with _lock:
        if profile in _active:
            _active.remove(profile)
            if not _active:
                _uninstall()


class profile:
    """Record the ops, backward nodes and ``record_function`` blocks run inside the block
    (on every thread), as torch.autograd.profiler.profile does: ``key_averages()``,
    ``function_events``, ``table()``, ``export_chrome_trace()``, ``total_average()``.
    ``use_cuda``/``use_device`` and the other devices' options are accepted: leafgrad runs on
    the CPU only, so there is nothing to record for them."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config=None, acc_events: bool = False, custom_trace_id_callback=None):
        self.enabled = enabled
        self.use_device = None
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.record_shapes |= with_flops  # (torch: flops need the shapes)
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        self.entered = False
        self._recording = False
        self._events: list = []
        self._function_events = None
        self._metadata: dict = {}  # (torch.profiler's add_metadata, written into the trace)
        self._start_ns = 0
        self._ids = itertools.count()

    # -- recording ----------------------------------------------------------------------------
    def __enter__(self) -> "profile":
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start()
        return self

    def __exit__(self, *exc) -> bool:
        if not self.enabled:
            return False
        self._stop()
        return False

    def _start(self) -> None:
        if not self.acc_events:
            self._events = []
        self._function_events = None
        self._start_ns = time.perf_counter_ns()
        self._recording = True
        _enable(self)

    def _stop(self) -> None:
        self._recording = False
        _disable(self)
        self._function_events = None

    def _add(self, event: _Open, end_ns: int, thread: int, memory: int, flops: int) -> None:
        self._events.append((event, end_ns, thread, memory, flops))

    def _check_finish(self) -> None:
        if self._recording and self._function_events is None and not self._events:
            raise RuntimeError("Profiler didn't finish running")

    @property
    def function_events(self) -> EventList:
        """The recorded events in order of start, each linked to its parent and children."""
        if self._function_events is None:
            self._function_events = self._build()
        return self._function_events

    def _build(self) -> EventList:
        made = {}
        ordered = sorted(self._events, key=lambda item: item[0].start)
        for index, (event, end_ns, thread, memory, flops) in enumerate(ordered):
            # (a schedule's step events aggregate as one name; the trace keeps their number)
            name = "ProfilerStep*" if event.name.startswith("ProfilerStep#") else event.name
            made[id(event)] = FunctionEvent(
                index, name, thread, (event.start - self._start_ns) / 1000.0,
                (end_ns - self._start_ns) / 1000.0, event.shapes, sequence_nr=event.sequence_nr,
                is_user_annotation=event.annotation, cpu_memory_usage=memory, flops=flops,
                stack=event.stack, input_dtypes=event.dtypes, trace_name=event.name)
        memory_of = {}
        for event, _, _, memory, _ in ordered:
            memory_of[id(event)] = memory
        for event, _, _, _, _ in ordered:
            parent = made[id(event)]
            for child in event.children:
                child_event = made.get(id(child))
                if child_event is not None:
                    parent.append_cpu_child(child_event)
                    child_event.set_cpu_parent(parent)
        if self.profile_memory:  # an event's memory includes its children's
            for event in reversed(ordered):
                made_event = made[id(event[0])]
                made_event.cpu_memory_usage += sum(
                    child.cpu_memory_usage for child in made_event.cpu_children)
        return EventList(made.values(), use_device=None, profile_memory=self.profile_memory,
                         with_flops=self.with_flops)

    # -- reading ------------------------------------------------------------------------------
    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self) -> FunctionEventAvg:
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self.function_events.self_cpu_time_total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None) -> str:
        return self.function_events.table(sort_by, row_limit, max_src_column_width,
                                          max_name_column_width, max_shapes_column_width,
                                          header, top_level_events_only, time_unit)

    def __str__(self) -> str:
        return str(self.function_events)

    def export_chrome_trace(self, path: str) -> None:
        _write_trace(path, list(self.function_events), self._start_ns, self._metadata)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        self.function_events.export_stacks(path, metric)


class record_function(contextlib.ContextDecorator):
    """Label a block (or, as a decorator, every call of a function): it shows in an active
    profile as an event of its own, the block's ops its children."""

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._event = None

    def __enter__(self) -> "record_function":
        self._event = _begin(self.name, (), True) if _active else None
        return self

    def __exit__(self, *exc) -> bool:
        if self._event is not None and self.run_callbacks_on_exit:
            _end(self._event)
        self._event = None
        return False


@contextlib.contextmanager
def emit_nvtx(enabled: bool = True, record_shapes: bool = False):
    """torch's NVTX ranges are for CUDA's profilers; on the CPU there is nothing to emit."""
    yield


@contextlib.contextmanager
def emit_itt(enabled: bool = True, record_shapes: bool = False):
    """torch's ITT ranges are for Intel VTune; leafgrad emits none."""
    yield
