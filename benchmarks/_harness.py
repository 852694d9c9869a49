"""Shared timing code for the benchmarks in this directory.

Importing this module imports only the standard library, so a benchmark can call
`pin_threads` before NumPy or torch are loaded (BLAS reads its thread count once, at import).

Typical use in a benchmark script::

    import sys
    import _harness
    if __name__ == "__main__":
        _harness.pin_threads(_harness.threads_from_argv(sys.argv))
    import numpy as np  # now single-threaded (or --threads N)

    timings = _harness.time_interleaved({"numpy": f_np, "torch": f_torch}, repeats=7)
    print(timings["numpy"].median)

Method: every implementation is warmed up, then given a call count (`number`) so that one
timed block lasts about `target_s`; the blocks of all implementations are interleaved
(round-robin, starting implementation rotated each repeat) so slow drift of a shared machine
hits all of them alike. Per-call times of each block are kept; median and min are reported.
The garbage collector stays on (users run with it on, and an engine that makes reference
cycles should pay for them), but `gc.collect()` runs before each block so one
implementation's garbage is not collected on another's clock. After warm-up, `gc.freeze()`
moves every object alive then (torch's import alone leaves ~10^6) out of the collector's
reach: a full collection otherwise costs ~0.1 s here and would land on whichever
implementation happened to trigger it, charging leafgrad for torch being loaded.
"""

from __future__ import annotations

import cProfile
import gc
import io
import json
import os
import platform
import pstats
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def threads_from_argv(argv: Sequence[str], default: int = 1) -> int:
    """Read `--threads N` / `--threads=N` from argv without argparse (runs before imports)."""
    for i, arg in enumerate(argv):
        value = None
        if arg == "--threads" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--threads="):
            value = arg.split("=", 1)[1]
        if value is not None:
            # a bad value is left for argparse to report properly
            return int(value) if value.isdigit() and int(value) > 0 else default
    return default


def pin_threads(n: int) -> None:
    """Set the BLAS/OpenMP thread count. Has effect only before NumPy/torch are imported."""
    for name in THREAD_ENV_VARS:
        os.environ[name] = str(n)


@dataclass
class Timing:
    """Per-call seconds of one implementation, one entry per timed block."""

    name: str
    number: int = 0
    per_call: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.per_call)

    @property
    def min(self) -> float:
        return min(self.per_call)

    def as_dict(self) -> dict:
        return {
            "number": self.number,
            "median_s": self.median,
            "min_s": self.min,
            "per_call_s": self.per_call,
        }


# The clock of every timed block. A benchmark may set it to time.thread_time (CPU time of the
# timing thread; one-thread NumPy and torch run their work on it) when the machine is so loaded
# that wall-clock blocks mostly measure waiting for a core.
clock: Callable[[], float] = time.perf_counter


def _run_block(fn: Callable[[], object], number: int) -> float:
    """Seconds for `number` calls of fn, after collecting leftover garbage off the clock."""
    gc.collect()
    start = clock()
    for _ in range(number):
        fn()
    return clock() - start


def calibrate(fn: Callable[[], object], target_s: float, max_number: int = 1_000_000) -> int:
    """Smallest call count (1, 2, 5, 10, 20, ...) whose block lasts at least target_s."""
    number = 1
    while True:
        for step in (1, 2, 5):
            count = number * step
            if count >= max_number or _run_block(fn, count) >= target_s:
                return min(count, max_number)
        number *= 10


def time_interleaved(
    fns: dict[str, Callable[[], object]],
    *,
    repeats: int = 7,
    target_s: float = 0.2,
    warmup: int = 2,
) -> dict[str, Timing]:
    """Time each callable in interleaved blocks; return a Timing per name.

    warmup: untimed calls of each callable first (caches, lazy imports, allocator pools).
    target_s: wall time one block should last; each callable gets its own call count.
    repeats: blocks per callable; each round starts with a different callable.
    """
    names = list(fns)
    for name in names:
        for _ in range(warmup):
            fns[name]()
    gc.collect()
    gc.freeze()  # see the module docstring: imported libraries' objects are not our garbage
    timings = {name: Timing(name, number=calibrate(fns[name], target_s)) for name in names}
    for round_nr in range(repeats):
        shift = round_nr % len(names)
        for name in names[shift:] + names[:shift]:
            timing = timings[name]
            timing.per_call.append(_run_block(fns[name], timing.number) / timing.number)
    return timings


def format_seconds(seconds: float | None) -> str:
    """Human time with a unit that keeps 3 significant figures readable (ns/us/ms/s)."""
    if seconds is None:
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Plain fixed-width table: first column left-aligned, the rest right-aligned."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        parts = [
            str(cell).ljust(width) if i == 0 else str(cell).rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])


def machine_info(threads: int) -> dict:
    """What a reader needs to compare two runs: interpreter, library versions, cores, threads."""
    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "threads": threads,
        "thread_env": {name: os.environ.get(name) for name in THREAD_ENV_VARS},
    }
    try:
        import numpy

        info["numpy"] = numpy.__version__
    except ImportError:  # a benchmark without NumPy is odd but the info is still useful
        info["numpy"] = None
    return info


def load_libs(threads: int) -> dict:
    """leafgrad, and torch pinned to ``threads`` (None when torch is not installed)."""
    import importlib

    libs = {"leafgrad": importlib.import_module("leafgrad")}
    try:
        libs["torch"] = importlib.import_module("torch")
        libs["torch"].set_num_threads(threads)
    except ImportError:
        libs["torch"] = None
    return libs


def print_header(title: str, info: dict, libs: dict, threads: int, repeats: int,
                 target_s: float, quick: bool, extra: str = "") -> None:
    """The two lines every benchmark starts with: what runs, and on what."""
    print(title)
    print(f"python {info['python']}, numpy {info['numpy']}, torch "
          f"{getattr(libs.get('torch'), '__version__', None)}; {info['cpu_count']} cpus, threads "
          f"{threads}; {extra}repeats {repeats}, block {target_s:g} s"
          + (", QUICK (smoke run, figures not meaningful)" if quick else ""), flush=True)


def time_cases(cases: dict, repeats: int, target_s: float, quick: bool) -> dict:
    """time_interleaved for every case: ``{case: {implementation: Timing}}``."""
    return {key: time_interleaved(case["fns"], repeats=repeats, target_s=target_s,
                                  warmup=1 if quick else 2)
            for key, case in cases.items()}


def cases_json(cases: dict, results: dict) -> dict:
    """The ``cases`` part of a benchmark's JSON: labels, units and every timing."""
    return {key: {"label": case["label"], "unit": case["unit"], "divisor": case["divisor"],
                  "timings": {name: t.as_dict() for name, t in results[key].items()}}
            for key, case in cases.items()}


def write_json(path: str, payload: dict) -> None:
    """Dump results (indent 2, keys in insertion order) to path."""
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, indent=2)
        handle.write("\n")


def profile(fn: Callable[[], object], calls: int = 1, top: int = 25, sort: str = "tottime") -> str:
    """cProfile `calls` calls of fn; return the `top` rows sorted by `sort` as text."""
    fn()  # warm-up off the profile: first-call imports and caches are not the steady state
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(sort).print_stats(top)
    return out.getvalue()


def ratio(results: dict, case: str, other: str, stat: str) -> float | None:
    """leafgrad's time over ``other``'s for one case ("median" or "min"); None if missing."""
    timings = results[case]
    if other not in timings or "leafgrad" not in timings:
        return None
    return getattr(timings["leafgrad"], stat) / getattr(timings[other], stat)


def report(cases: dict, results: dict, targets: dict, label_width: int = 26,
           targets_heading: str = "targets (ratio of medians):") -> tuple[str, list[dict]]:
    """The results table with one line per target, and the target verdicts.

    ``cases`` maps a key to its label, unit and optional ``divisor`` (calls per timed call);
    ``targets`` maps a key to ``(other implementation, largest allowed ratio)``.
    """
    impls = ("leafgrad", "torch", "numpy")
    rows = []
    for key, case in cases.items():
        timings, divisor = results[key], case.get("divisor", 1)
        cells = [f"{case['label']} ({case['unit']})"]
        for impl in impls:
            if impl in timings:
                t = timings[impl]
                cells.append(f"{format_seconds(t.median / divisor)} / "
                             f"{format_seconds(t.min / divisor)}")
            else:
                cells.append("n/a")
        for other in ("torch", "numpy"):
            value = ratio(results, key, other, "median")
            cells.append("n/a" if value is None else f"{value:.2f}x")
        rows.append(cells)
    table = format_table(
        ["case", "leafgrad", "torch", "numpy", "leafgrad/torch", "leafgrad/numpy"], rows
    )
    verdicts, lines = [], []
    for key, (other, limit) in targets.items():
        if key not in results:
            continue
        value = ratio(results, key, other, "median")
        best = ratio(results, key, other, "min")
        verdict = "n/a" if value is None else ("PASS" if value <= limit else "MISS")
        verdicts.append(
            {"case": key, "ratio": f"leafgrad/{other}", "median_ratio": value,
             "min_ratio": best, "target": limit, "verdict": verdict}
        )
        shown = "n/a" if value is None else f"{value:.2f}x (min {best:.2f}x)"
        lines.append(
            f"{cases[key]['label']:<{label_width}} leafgrad/{other:<6} {shown:<22} "
            f"target <= {limit}x  {verdict}"
        )
    text = "\n".join(
        ["", table, "", "times: median / min over interleaved blocks", "", targets_heading, *lines]
    )
    return text, verdicts
