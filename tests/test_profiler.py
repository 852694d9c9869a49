"""torch.profiler and torch.autograd.profiler as tutorials use them, against torch 2.13: the
schedule's actions, when on_trace_ready runs and what each cycle holds, the event tree of a
training step (the names torch and leafgrad both record), the summary table's layout, the trace
files. Times differ by nature: what is compared is structure, names, counts, shapes, flops."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import warnings

import pytest

import leafgrad
import leafgrad.profiler
from tests._torch import require_torch

torch = require_torch()
import torch.profiler  # noqa: E402

_LIBS = (torch, leafgrad)


def _profiler(lib):
    return lib.profiler


def test_schedule_actions_errors_and_warning():
    for wait, warmup, active, repeat, skip_first, skip_wait in itertools.product(
            (0, 1, 2), (0, 1, 2), (1, 3), (0, 1, 2), (0, 3), (0, 1)):
        seen = []
        for lib in _LIBS:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                fn = _profiler(lib).schedule(wait=wait, warmup=warmup, active=active,
                                             repeat=repeat, skip_first=skip_first,
                                             skip_first_wait=skip_wait)
            seen.append(([repr(fn(step)) for step in range(20)],
                         [str(w.message) for w in caught]))
        assert seen[0] == seen[1], (wait, warmup, active, repeat, skip_first, skip_wait)
    for bad in ({"wait": -1, "warmup": 1, "active": 1}, {"wait": 0, "warmup": 1, "active": 0},
                {"wait": 0, "warmup": 1, "active": 1, "repeat": -1}):
        errors = []
        for lib in _LIBS:
            with pytest.raises(AssertionError) as info:
                _profiler(lib).schedule(**bad)
            errors.append(str(info.value))
        assert errors[0] == errors[1]
    errors = []
    for lib in _LIBS:
        with pytest.raises(AssertionError) as info:
            _profiler(lib).schedule(wait=0, warmup=1, active=1)(-1)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_enums_and_queries():
    for name in ("ProfilerAction", "ProfilerActivity"):
        theirs, ours = getattr(torch.profiler, name), getattr(leafgrad.profiler, name)
        assert list(theirs.__members__) == list(ours.__members__)
        assert [repr(m) for m in theirs.__members__.values()] == \
            [repr(m) for m in ours.__members__.values()]
    assert repr(torch.profiler.DeviceType.CPU) == repr(leafgrad.profiler.DeviceType.CPU)
    assert {repr(a) for a in torch.profiler.supported_activities()} == \
        {repr(a) for a in leafgrad.profiler.supported_activities()}
    assert torch.profiler.kineto_available() == leafgrad.profiler.kineto_available()


def _cycles(lib, schedule, steps, acc_events=False, stop_early=False):
    """What on_trace_ready saw: the step, the cycle's step events, and the warnings."""
    profiler = _profiler(lib)
    calls = []

    def ready(prof):
        names = sorted({e.trace_name for e in prof.events()
                        if e.name == "ProfilerStep*"})
        calls.append((prof.step_num, names))

    x = lib.ones(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with profiler.profile(schedule=schedule, on_trace_ready=ready,
                              acc_events=acc_events) as prof:
            for _ in range(steps):
                (x * 2).sum()
                prof.step()
        after = sorted(e.key for e in prof.key_averages() if e.key.startswith("Profiler"))
    messages = sorted({str(w.message) for w in caught
                       if "skew" not in str(w.message) and "clears" not in str(w.message)})
    return calls, after, messages


def test_schedule_drives_recording_and_trace_ready():
    cases = [dict(wait=1, warmup=1, active=2, repeat=2), dict(wait=0, warmup=1, active=1),
             dict(wait=2, warmup=0, active=3, repeat=1), dict(wait=1, warmup=2, active=1,
                                                              skip_first=2)]
    for case, steps, acc in itertools.product(cases, (3, 7, 10), (False, True)):
        seen = []
        for lib in _LIBS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                schedule = _profiler(lib).schedule(**case)
            seen.append(_cycles(lib, schedule, steps, acc))
        assert seen[0] == seen[1], (case, steps, acc, seen)


def test_incorrect_schedules_warn_as_torch():
    # (RECORD followed by WARMUP crashes torch 2.13's profiler itself: not replayed)
    for sequence in ((2, 0, 2, 3, 0), (1, 0, 1, 2, 3, 0)):
        seen = []
        for lib in _LIBS:
            action = _profiler(lib).ProfilerAction
            values = {a.value: a for a in action.__members__.values()}
            seen.append(_cycles(lib, lambda step: values[sequence[step % len(sequence)]],
                                len(sequence) + 1))
        assert seen[0] == seen[1], sequence


def _training_step(lib, prof_kwargs):
    """A small model's steps under a profile; the recorded names torch also records."""
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    x, target = lib.randn(5, 8), lib.tensor([0, 1, 2, 1, 0])
    profiler = _profiler(lib)
    with profiler.profile(**prof_kwargs) as prof:
        for _ in range(2):
            optimizer.zero_grad()
            with profiler.record_function("forward"):
                loss = nn.functional.cross_entropy(model(x), target)
            loss.backward()
            optimizer.step()
    return prof


_COMMON = {"forward", "aten::linear", "aten::addmm", "aten::relu", "aten::matmul",
           "Optimizer.step#SGD.step", "Optimizer.zero_grad#SGD.zero_grad",
           "autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0",
           "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
           "torch::autograd::AccumulateGrad", "ReluBackward0", "TBackward0"}


_SHAPED = {"aten::cross_entropy_loss", "aten::log_softmax", "aten::nll_loss", "aten::relu"}


def test_training_step_events_and_counts():
    profs = [_training_step(lib, {"record_shapes": True}) for lib in _LIBS]
    summaries = []
    for prof in profs:
        averages = {e.key: e for e in prof.key_averages()}
        events = prof.events()
        summaries.append({
            "counts": {k: averages[k].count for k in _COMMON if k in averages},
            "forward children": sorted({c.name for e in events if e.name == "forward"
                                        for c in e.cpu_children} & _COMMON),
            "linear children": sorted({c.name for e in events if e.name == "aten::linear"
                                       for c in e.cpu_children} & _COMMON),
            "backward children": sorted({c.name for e in events
                                         if e.name.startswith("autograd::engine::")
                                         for c in e.cpu_children} & _COMMON),
            "shapes": sorted({(e.name, str(e.input_shapes)) for e in events
                              if e.name in _COMMON or e.name in _SHAPED}),
        })
        for event in events:  # the tree is consistent and times add up
            assert event.cpu_time_total >= 0
            assert event.self_cpu_time_total <= event.cpu_time_total + 1e-6
            for child in event.cpu_children:
                assert child.cpu_parent is event
                assert child.time_range.start >= event.time_range.start
    assert summaries[0] == summaries[1]


def test_table_layout():
    for kwargs, group, sort_by, limit in [
            ({}, False, "cpu_time_total", 5), ({"record_shapes": True}, True, None, 3),
            ({"profile_memory": True}, False, "self_cpu_memory_usage", 4),
            ({"with_flops": True}, False, "count", 6), ({"record_shapes": True}, False,
                                                          "self_cpu_time_total", 2)]:
        tables = []
        for lib in _LIBS:
            prof = _training_step(lib, kwargs)
            text = prof.key_averages(group_by_input_shape=group).table(sort_by=sort_by,
                                                                       row_limit=limit)
            lines = text.splitlines()
            headers = [cell.strip() for cell in lines[1].split("  ") if cell.strip()]
            widths = [len(rule) for rule in lines[0].split()]
            if "Input Shapes" in headers:  # (its width follows the longest shapes, and
                widths.pop(headers.index("Input Shapes"))  # torch records more ops)
            tables.append((headers, widths, lines[0] == lines[2] == lines[-2], len(lines),
                           lines[-1].split(":")[0], text.endswith("\n")))
        # the headers, column widths (torch's name column is 55 wide here), rules, the
        # number of rows, the footer
        assert tables[0] == tables[1], kwargs


def test_exported_traces(tmp_path):
    for lib in _LIBS:
        prof = _training_step(lib, {"record_shapes": True})
        path = tmp_path / f"{lib.__name__}.json"
        prof.export_chrome_trace(str(path))
        document = json.loads(path.read_text())
        complete = [e for e in document["traceEvents"] if e.get("ph") == "X"]
        names = {e["name"] for e in complete}
        assert {"forward", "aten::addmm", "Optimizer.step#SGD.step"} <= names, lib.__name__
        for event in complete:
            assert {"name", "ph", "ts", "dur", "pid", "tid", "cat", "args"} <= set(event)
        forward = [e for e in complete if e["name"] == "forward"]
        assert forward and forward[0]["cat"] == "user_annotation"
        addmm = [e for e in complete if e["name"] == "aten::addmm"][0]
        assert addmm["cat"] == "cpu_op"
        assert addmm["args"]["Input Dims"] == [[16], [5, 8], [8, 16], [], []]


def test_tensorboard_trace_handler_files(tmp_path):
    found = []
    for lib in _LIBS:
        directory = tmp_path / lib.__name__ / "log"
        profiler = _profiler(lib)
        for gz in (False, True):
            handler = profiler.tensorboard_trace_handler(str(directory), worker_name="w",
                                                         use_gzip=gz)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                schedule = profiler.schedule(wait=0, warmup=1, active=1, repeat=2)
            x = lib.ones(2)
            with profiler.profile(schedule=schedule, on_trace_ready=handler) as prof:
                for _ in range(5):
                    (x + 1).sum()
                    prof.step()
        files = sorted(os.listdir(directory))
        found.append([name.split(".", 2)[0] + "." + name.split(".", 2)[2] for name in files])
        for name in files:
            opener = gzip.open if name.endswith(".gz") else open
            with opener(directory / name, "rt") as handle:
                assert "traceEvents" in json.load(handle)
    assert found[0] == found[1]


def test_record_function_as_decorator_and_legacy_profile():
    seen = []
    for lib in _LIBS:
        @lib.autograd.profiler.record_function("my_block")
        def block(t):
            return (t * 2).sum()

        with lib.autograd.profiler.profile() as prof:
            block(lib.ones(3))
            block(lib.ones(3))
        averages = {e.key: e.count for e in prof.key_averages()}
        children = sorted({c.name for e in prof.function_events if e.name == "my_block"
                           for c in e.cpu_children})
        seen.append((averages["my_block"], averages["aten::mul"], children,
                     type(prof.function_events).__name__,
                     type(prof.total_average()).__name__, prof.total_average().key,
                     prof.key_averages().table()[:3] == "---"))
    assert seen[0] == seen[1]


def test_profiling_off_changes_nothing():
    """Ops run as before after a profile closes (the op entry and engine are restored)."""
    from leafgrad.autograd import engine
    from leafgrad.ops.registry import Op

    apply_before, observer_before = Op.__dict__["apply"], engine._observer
    with leafgrad.profiler.profile():
        (leafgrad.ones(2, requires_grad=True) * 3).sum().backward()
    assert Op.__dict__["apply"] is apply_before
    assert engine._observer is observer_before


def test_metadata_reaches_the_trace(tmp_path):
    """add_metadata/add_metadata_json while recording land at the top of the exported trace
    (after the profile closes torch drops them)."""
    found = []
    for lib in _LIBS:
        with _profiler(lib).profile() as prof:
            (lib.ones(2) * 2).sum()
            prof.add_metadata("run", "abc")
            prof.add_metadata_json("cfg", '{"a": 1, "b": [2, 3]}')
        prof.add_metadata("late", "dropped")
        path = tmp_path / f"{lib.__name__}.json"
        prof.export_chrome_trace(str(path))
        document = json.loads(path.read_text())
        found.append({k: document.get(k) for k in ("run", "cfg", "late")})
    assert found[0] == found[1] == {"run": "abc", "cfg": {"a": 1, "b": [2, 3]}, "late": None}
