"""``Compare``: measurements laid out as torch's tables.

One table per label; a row per (threads, env, sub_label or stmt), a column per description,
the rows grouped by thread count under a ``N threads: ----`` rule; every value in the unit of
the table's fastest median. Options: ``trim_significant_figures`` (each column shows the
figures its measurements support), ``colorize`` (best/good/bad/very bad, by row or column) and
``highlight_warnings`` (noisy values marked ``(! XX%)``).
"""

from __future__ import annotations

import collections
import enum
import math

import numpy as np

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(value: float) -> int:
    return int(math.ceil(float(np.log10(np.float32(value)))))


class _Column:
    """The number format of one column, from every measurement in it."""

    def __init__(self, grouped, scale: float, trim: bool, highlight: bool) -> None:
        self.grouped = grouped
        flat = [m for group in grouped for m in group]
        self.highlight = highlight and any(m.has_warnings for m in flat if m)
        digits = [_leading_digits(m.median / scale) if m else None for m in flat]
        whole = max(d for d in digits if d is not None)
        decimals = min(max(m.significant_figures - d, 0) for d, m in zip(digits, flat)
                       if m is not None and d is not None) if trim else 1
        width = whole + decimals + (1 if decimals else 0)
        self.template = f"{{:>{width}.{decimals}f}}{{:>{7 if self.highlight else 0}}}"
        self.trim = trim

    def format(self, value, figures: int, spread) -> str:
        if value is None:
            return " " * len(self.format(1, figures, None))
        if self.trim:
            value = common.trim_sigfig(value, figures)
        note = f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else ""
        return self.template.format(value, note)


def _colored(text: str, value: float, best: float) -> str:
    if value <= best * 1.01 or value <= best + 1e-7:
        return BEST + BOLD + text + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + text + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + text + TERMINATE * 2
    if value >= best * 2:
        return BAD + text + TERMINATE * 2
    return text


class _Table:
    def __init__(self, results, colorize, trim, highlight) -> None:
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results, self.colorize, self.highlight = results, colorize, highlight
        self.label = results[0].label
        self.unit, self.scale = common.select_unit(min(r.median for r in results))
        self.row_keys = common.ordered_unique((r.num_threads, r.env, r.as_row_name)
                                              for r in results)
        self.row_keys.sort(key=lambda key: key[:2])
        self.column_keys = common.ordered_unique(r.description for r in results)
        cells = [[None] * len(self.column_keys) for _ in self.row_keys]
        rows = {key: i for i, key in enumerate(self.row_keys)}
        columns = {key: j for j, key in enumerate(self.column_keys)}
        for r in results:
            cells[rows[(r.num_threads, r.env, r.as_row_name)]][columns[r.description]] = r
        self.cells = cells
        envs = {r.env for r in results}
        self.render_env = len(envs) > 1
        self.env_width = max(len(e) for e in envs) if self.render_env else 0
        # rows grouped by thread count (a rule above each group), envs shown when they change
        self.groups, self.row_info = [], []
        prior_threads, prior_env = -1, ""
        for (threads, env, _), row in zip(self.row_keys, cells):
            first = threads != prior_threads
            if first:
                prior_threads, prior_env = threads, ""
                self.groups.append([])
            self.groups[-1].append(row)
            self.row_info.append((len(self.groups) - 1, self.render_env and env != prior_env,
                                  threads if first else None))
            prior_env = env
        self.columns = [_Column([tuple(row[j] for row in group) for group in self.groups],
                                self.scale, trim, highlight)
                        for j in range(len(self.column_keys))]

    def _row_strings(self, row, show_env) -> list:
        present = [r for r in row if r is not None]
        env = f"({present[0].env})" if show_env else ""
        out = ["  " + env.ljust(self.env_width + 4) + present[0].as_row_name]
        for m, column in zip(row, self.columns):
            if m is None:
                out.append(column.format(None, 1, None))
            else:
                out.append(column.format(m.median / self.scale, m.significant_figures,
                                         m.iqr / m.median if m.has_warnings else None))
        return out

    def _best(self, row, group) -> list:
        if self.colorize == Colorize.ROWWISE:
            best = min(r.median for r in row if r is not None)
            return [best] * len(self.columns)
        if self.colorize == Colorize.COLUMNWISE:
            return [min((r.median for r in column.grouped[group] if r is not None), default=None)
                    for column in self.columns]
        return [-1] * len(self.columns)

    def render(self) -> str:
        strings = [[""] + list(self.column_keys)]
        strings += [self._row_strings(row, show_env)
                    for row, (_, show_env, _) in zip(self.cells, self.row_info)]
        count = max(len(s) for s in strings)
        for s in strings:
            s.extend([""] * (count - len(s)))
        widths = [max(len(cell) for cell in column) for column in zip(*strings)]
        lines = ["  |  ".join(cell.center(w) for cell, w in zip(strings[0], widths))]
        overall = len(lines[0])
        for cells, row, (group, _, threads) in zip(strings[1:], self.cells, self.row_info):
            if threads is not None:
                lines.append(f"{threads} threads: ".ljust(overall, "-"))
            best = self._best(row, group)
            parts = [cells[0].ljust(widths[0])]
            for text, width, result, top in zip(cells[1:], widths[1:], row, best):
                text = text.center(width)
                if self.colorize != Colorize.NONE and result is not None and top is not None:
                    text = _colored(text, result.median, top)
                parts.append(text)
            lines.append("  |  ".join(parts))
        noisy = self.highlight and any(r.has_warnings for r in self.results)
        title = (" " + (self.label or "") + " ").center(overall - 2, "-")
        note = ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
                if noisy else "")
        return (f"[{title}]\n" + "\n".join(lines) + f"\n\nTimes are in "
                f"{common.unit_to_english(self.unit)}s ({self.unit}).\n{note}")


class Compare:
    """Tables of measurements (one per label); ``print()`` or ``str()`` them."""

    def __init__(self, results) -> None:
        self._results: list = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self) -> list:
        by_label = collections.defaultdict(list)
        for r in common.Measurement.merge(self._results):
            by_label[r.label].append(r)
        return [_Table(group, self._colorize, self._trim_significant_figures,
                       self._highlight_warnings).render() for group in by_label.values()]
