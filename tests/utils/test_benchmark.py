"""``torch.utils.benchmark`` against torch's: Measurement statistics, warnings and text for
given times (1, 3, 4 and many blocks; quiet and noisy; every unit), TaskSpec titles, the
helpers, Compare's tables (threads, envs, missing cells, trimmed figures, colours, highlighted
warnings, several labels); and Timer: statement/setup/globals handling (``torch`` in a
statement is the library itself), timeit/blocked_autorange/adaptive_autorange results and the
errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import leafgrad
import leafgrad.utils.benchmark as lbench

from .._torch import require_torch

torch = require_torch()
import torch.utils.benchmark as tbench  # noqa: E402

LIBS = ((torch, tbench), (leafgrad, lbench))


def _text(value) -> str:
    return re.sub(r" object at 0x[0-9a-f]+", "", str(value)).replace("leafgrad", "torch")


def _times(kind, count, scale, seed):
    rng = np.random.default_rng(seed)
    spread = {"quiet": 0.01, "noisy": 0.15, "gross": 0.6}[kind]
    return list(scale * (1 + spread * rng.standard_normal(count)).clip(0.05))


SPECS = [dict(stmt="x * 2", setup="pass"),
         dict(stmt="y = x\ny.sum()", setup="x = 1\nz = 2", label="sums", sub_label="big",
              description="first", num_threads=4),
         dict(stmt="f(x)", setup="import math", sub_label="tiny", env="py3"),
         dict(stmt="a\nb", setup="", sub_label="s")]


def test_measurements_match_torch():
    for spec in SPECS:
        for kind in ("quiet", "noisy", "gross"):
            for count in (1, 3, 4, 9, 40):
                for scale in (3e-8, 4.2e-6, 7e-3, 2.5):
                    seen = []
                    for lib, bench in LIBS:
                        m = bench.Measurement(number_per_run=10,
                                              raw_times=_times(kind, count, scale * 10, count),
                                              task_spec=bench.TaskSpec(**spec))
                        seen.append((_text(repr(m)), m.median, m.mean, m.iqr, m.has_warnings,
                                     m.significant_figures, m.title, m.env, m.as_row_name,
                                     m.times[:3], m.stmt, m.num_threads, m.meets_confidence(0.2)))
                    assert seen[0] == seen[1], (spec, kind, count, scale)


def test_helpers():
    for value in (3e-10, 2e-8, 5e-7, 1e-5, 0.002, 0.9, 3.0, 1234.5):
        assert lbench.select_unit(value) == tbench.select_unit(value)
        for figures in (1, 2, 3, 4):
            assert lbench.trim_sigfig(value, figures) == tbench.trim_sigfig(value, figures)
    for unit in ("ns", "us", "ms", "s"):
        assert lbench.unit_to_english(unit) == tbench.unit_to_english(unit)
    assert lbench.ordered_unique([3, 1, 3, 2, 1]) == tbench.ordered_unique([3, 1, 3, 2, 1])
    with lbench.set_torch_threads(1):
        assert leafgrad.get_num_threads() == 1


def _results(bench):
    out = []
    for label, seed in (("add", 0), ("mul", 7)):
        for threads in (1, 4):
            for env in ("env1", "env2") if label == "add" else (None,):
                for sub, scale in (("small", 2e-6), ("large", 3e-4)):
                    for description, factor in (("eager", 1.0), ("compiled", 0.6),
                                                ("numpy", 1.9)):
                        if (sub, description) == ("large", "numpy") and threads == 4:
                            continue  # a missing cell
                        kind = "noisy" if description == "numpy" else "quiet"
                        out.append(bench.Measurement(
                            number_per_run=100,
                            raw_times=_times(kind, 8, 100 * scale * factor * (2 if threads == 1
                                                                               else 1), seed),
                            task_spec=bench.TaskSpec(stmt="f(x)", setup="", label=label,
                                                     sub_label=sub, description=description,
                                                     env=env, num_threads=threads)))
                        seed += 1
    return out


@pytest.mark.parametrize("options", [(), ("trim",), ("colorize",), ("rowwise",), ("highlight",),
                                     ("trim", "colorize", "highlight")])
def test_compare_tables_match_torch(options):
    tables = []
    for _, bench in LIBS:
        compare = bench.Compare(_results(bench))
        if "trim" in options:
            compare.trim_significant_figures()
        if "colorize" in options:
            compare.colorize()
        if "rowwise" in options:
            compare.colorize(rowwise=True)
        if "highlight" in options:
            compare.highlight_warnings()
        tables.append(str(compare))
    assert tables[0] == tables[1]
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        lbench.Compare([1])


def test_timer():
    seen = []
    for lib, bench in LIBS:
        x = lib.ones(3)
        timer = bench.Timer(stmt="\n    y = torch.add(x, 1)\n    z = y * k\n", setup="k = 2",
                            globals={"x": x}, label="L", sub_label="S", description="D",
                            num_threads=1)
        single = timer.timeit(50)
        blocked = timer.blocked_autorange(min_run_time=0.01)
        adaptive = timer.adaptive_autorange(threshold=0.5, min_run_time=0.01, max_run_time=0.5)
        calls = []
        timer.blocked_autorange(callback=lambda number, spent: calls.append(number),
                                min_run_time=0.005)
        seen.append((single.number_per_run, len(single.times), single.stmt, single.setup,
                     single.title, blocked.number_per_run >= 1, len(blocked.raw_times) >= 1,
                     adaptive.number_per_run >= 1, bool(calls), single.median > 0,
                     repr(single).splitlines()[1:3]))
    assert seen[0] == seen[1]


def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]
    return None


def test_timer_errors():
    calls = [lambda b: b.Timer(stmt=lambda: None), lambda b: b.Timer(global_setup="x = 1"),
             lambda b: b.Timer(language="fortran"), lambda b: b.Timer().repeat(),
             lambda b: b.Timer().autorange(), lambda b: b.Timer("undefined_name").timeit(3)]
    for call in calls:
        assert _error(lambda: call(lbench)) == _error(lambda: call(tbench))
