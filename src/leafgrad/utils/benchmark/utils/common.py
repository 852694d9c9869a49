"""What a benchmark measured: ``TaskSpec`` (what ran) and ``Measurement`` (its times).

The statistics follow torch's, computed with leafgrad's tensors as torch computes them with
its own (the same bits): times per run are the raw block times divided by the runs per block;
the median and quartiles interpolate linearly; the significant figures come from a 90%
confidence interval of the interquartile times (in float32); an interquartile range above 10%
(25%) of the median earns a warning.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import textwrap

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns: the timer's own resolution
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def _log10_f32(value: float) -> float:
    """log10 as torch computes it on a float32 tensor made from a Python float."""
    with np.errstate(divide="ignore"):
        return float(np.log10(np.float32(value)))


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """The statement timed and how it is labelled."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


_TASKSPEC_FIELDS = tuple(field.name for field in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The times of one statement: ``raw_times`` are blocks of ``number_per_run`` runs."""

    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None

    def __post_init__(self) -> None:
        self._sorted_times: tuple = ()
        self._warnings: tuple = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self) -> list:
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """How many figures of the median the spread of the middle half of the times
        supports (1 to 4)."""
        self._lazy_init()
        import leafgrad

        count = len(self._sorted_times)
        middle = self._sorted_times[count // 4:math.ceil(float(np.float32(3 * count / 4)))]
        spread = leafgrad.tensor(middle).std(unbiased=False).item()  # float32, torch's sums
        root = float(np.sqrt(np.float32(len(middle))))
        interval = max(1.645 * spread / root, _MIN_CONFIDENCE_INTERVAL)
        figures = int(math.floor(_log10_f32(self._median / interval)))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if not self.raw_times or self._sorted_times:
            return
        import leafgrad

        self._sorted_times = tuple(sorted(self.times))
        ordered = leafgrad.tensor(self._sorted_times, dtype=leafgrad.float64)  # torch's bits
        self._median = ordered.quantile(0.5).item()
        self._mean = ordered.mean().item()
        self._p25 = ordered.quantile(0.25).item()
        self._p75 = ordered.quantile(0.75).item()
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            self._warn("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            self._warn("This could indicate system fluctuation.")

    def _warn(self, message: str) -> None:
        relative = self.iqr / self.median * 100
        self._warnings += (f"  WARNING: Interquartile range is {relative:.1f}% of the median "
                           f"measurement.\n           {message}",)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self):
        # (torch's property reads a misspelt attribute and falls back to the spec's env,
        # None when unset: that is what its tables print)
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        self._lazy_init()
        count = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if count > 1 else ''}{self._median / scale:.2f} {unit}"]
        if count >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} "
                         f"to {self._p75 / scale:.2f})")
        threads = self.num_threads
        lines.append(f"  {count} measurement{'s' if count > 1 else ''}, {self.number_per_run} "
                     f"runs {'per measurement,' if count > 1 else ','} {threads} "
                     f"thread{'s' if threads > 1 else ''}")
        lines.append("\n".join(self._warnings))
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements) -> list:
        """One measurement per TaskSpec, holding every time per run of that spec."""
        groups = collections.defaultdict(list)
        for measurement in measurements:
            groups[measurement.task_spec].append(measurement)
        return [Measurement(number_per_run=1, raw_times=[t for m in group for t in m.times],
                            task_spec=spec, metadata=None) for spec, group in groups.items()]


def select_unit(t: float) -> tuple[str, float]:
    """The unit to print ``t`` seconds in: ns, us, ms or s."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(_log10_f32(t) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures (in float32, as torch's)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(float(np.log10(np.abs(np.float32(x))))))
    scale = 10 ** (magnitude - n)
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def ordered_unique(elements) -> list:
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int):
    """Within the block, ``n`` threads (leafgrad.set_num_threads)."""
    import leafgrad

    prior = leafgrad.get_num_threads()
    try:
        leafgrad.set_num_threads(n)
        yield
    finally:
        leafgrad.set_num_threads(prior)
