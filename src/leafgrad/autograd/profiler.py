"""``autograd.profiler.profile``: time every op that runs inside the block.

>>> with leafgrad.autograd.profiler.profile() as prof:
...     y = (leafgrad.ones(3) * 2).sum()
>>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))  # doctest: +SKIP

While a profile is active, ``Op.apply`` (the entry of every op) is replaced by a timing
version; outside a profile nothing is changed, so profiling costs nothing when it is off.
Names are torch's ``aten::`` names of the ops; self time excludes the ops an op calls.
"""

from __future__ import annotations

import time
from collections import defaultdict

__all__ = ["profile", "record_function", "EventList", "FunctionEventAvg"]

_active: list = []  # the profiles currently recording (nested profiles all record)
_stack: list = []  # [name, start, child time] of the ops and ranges now running


def _op_name(cls) -> str:
    names = [n for n in getattr(cls, "torch_names", ()) if "." not in n or n.startswith("nn.")]
    base = names[0].split(".")[-1] if names else cls.__name__.replace("Backward", "").rstrip(
        "0123456789").lower()
    return "aten::" + base


def _enter(name: str) -> None:
    _stack.append([name, time.perf_counter(), 0.0])


def _exit() -> None:
    name, start, children = _stack.pop()
    total = time.perf_counter() - start
    if _stack:
        _stack[-1][2] += total
    for prof in _active:
        prof._record(name, total, total - children)


class FunctionEventAvg:
    """Totals for one name: count, CPU time total and self time (in microseconds)."""

    def __init__(self, key: str):
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
                f"cpu_time={self.cpu_time:.3f}us count={self.count}>")


def _format_us(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:.3f}s"
    if value >= 1e3:
        return f"{value / 1e3:.3f}ms"
    return f"{value:.3f}us"


class EventList(list):
    """The averages as a list, with torch's ``table()``."""

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_name_column_width=55,
              **ignored) -> str:
        rows = list(self)
        key = {"self_cpu_time_total": "self_cpu_time_total", "cpu_time_total": "cpu_time_total",
               "count": "count", "cpu_time": "cpu_time",
               "self_cpu_time": "self_cpu_time_total"}.get(sort_by or "", None)
        if key is not None:
            rows.sort(key=lambda e: getattr(e, key), reverse=True)
        rows = rows[:row_limit] if row_limit and row_limit > 0 else rows
        self_total = sum(e.self_cpu_time_total for e in self) or 1.0
        width = min(max([len("Name")] + [len(e.key) for e in rows]) + 2, max_name_column_width)
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                   "# of Calls"]
        widths = [width, 12, 12, 12, 12, 12, 12]
        rule = "-" * (sum(widths) + 2 * (len(widths) - 1))
        lines = [rule, "  ".join(h.rjust(w) if i else h.ljust(w)
                                 for i, (h, w) in enumerate(zip(headers, widths))), rule]
        for e in rows:
            cells = [e.key[:width], f"{100 * e.self_cpu_time_total / self_total:.2f}%",
                     _format_us(e.self_cpu_time_total),
                     f"{100 * e.cpu_time_total / self_total:.2f}%",
                     _format_us(e.cpu_time_total), _format_us(e.cpu_time), str(e.count)]
            lines.append("  ".join(c.rjust(w) if i else c.ljust(w)
                                   for i, (c, w) in enumerate(zip(cells, widths))))
        lines.append(rule)
        lines.append(f"Self CPU time total: {_format_us(sum(e.self_cpu_time_total for e in self))}")
        return "\n".join(lines) + "\n"


class profile:
    """Context manager recording per-op CPU time (``use_cuda``/``record_shapes``/... are
    accepted: leafgrad records names, counts and times)."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config=None, acc_events: bool = False, custom_trace_id_callback=None,
                 activities=None, schedule=None, on_trace_ready=None):
        self.enabled = enabled
        self._totals: dict = defaultdict(lambda: [0, 0.0, 0.0])

    def _record(self, name: str, total: float, self_time: float) -> None:
        entry = self._totals[name]
        entry[0] += 1
        entry[1] += total * 1e6
        entry[2] += self_time * 1e6

    def __enter__(self) -> "profile":
        if self.enabled:
            if not _active:
                _install()
            _active.append(self)
        return self

    def __exit__(self, *exc) -> None:
        if self.enabled and self in _active:
            _active.remove(self)
            if not _active:
                _uninstall()

    def start(self) -> None:
        self.__enter__()

    def stop(self) -> None:
        self.__exit__(None, None, None)

    def step(self) -> None:
        """torch.profiler's schedule step; leafgrad records every step."""

    def key_averages(self, group_by_input_shape: bool = False, **ignored) -> EventList:
        events = EventList()
        for name, (count, total, self_time) in self._totals.items():
            event = FunctionEventAvg(name)
            event.count, event.cpu_time_total, event.self_cpu_time_total = count, total, self_time
            events.append(event)
        return events

    def events(self) -> EventList:
        return self.key_averages()

    def table(self, **kwargs) -> str:
        return self.key_averages().table(**kwargs)


class record_function:
    """Label a block: it shows in an active profile as one row of its own."""

    def __init__(self, name: str, args=None):
        self.name = name

    def __enter__(self):
        if _active:
            _enter(self.name)
            self._recorded = True
        else:
            self._recorded = False
        return self

    def __exit__(self, *exc) -> None:
        if self._recorded:
            _exit()


_original_apply = None


def _install() -> None:
    global _original_apply
    from ..ops.registry import Op

    _original_apply = Op.__dict__["apply"]
    inner = _original_apply.__func__

    def timed_apply(cls, *args, **params):
        _enter(_op_name(cls))
        try:
            return inner(cls, *args, **params)
        finally:
            _exit()

    Op.apply = classmethod(timed_apply)


def _uninstall() -> None:
    from ..ops.registry import Op

    Op.apply = _original_apply
