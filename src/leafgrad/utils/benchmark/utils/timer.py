"""``Timer``: Python statements timed with ``timeit`` (see the package's docstring)."""

from __future__ import annotations

import enum
import textwrap
import timeit

from . import common

__all__ = ["Timer", "Language", "timer"]

timer = timeit.default_timer


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


class Timer:
    """Times ``stmt`` after ``setup`` in ``globals`` (plus ``torch``: leafgrad)."""

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer=timer, globals=None, label=None, sub_label=None, description=None,
                 env=None, num_threads: int = 1, language=Language.PYTHON) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            import leafgrad

            self._globals.setdefault("torch", leafgrad)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                                 "this code can simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("leafgrad's Timer times Python statements only (C++ "
                                      "statements need torch's C++ extension toolchain)")
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt = textwrap.dedent(stmt)
        stmt = (stmt[1:] if stmt and stmt[0] == "\n" else stmt).rstrip()
        setup = textwrap.dedent(setup)
        setup = (setup[1:] if setup and setup[0] == "\n" else setup).rstrip()
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                          label=label, sub_label=sub_label,
                                          description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)  # a zero would divide by zero below

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """``number`` runs (after a warm-up of a hundredth of them) as one measurement."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return common.Measurement(number_per_run=number,
                                      raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _estimate_block_size(self, min_run_time: float) -> int:
        """Runs per block: a power of ten whose block takes at least a thousandth of
        ``min_run_time`` and makes the timer's own overhead negligible."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overheads = sorted(self._timeit(0) for _ in range(5))
            overhead = overheads[len(overheads) // 2]
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
            return number

    def _measurement_loop(self, number, stop, min_run_time, max_run_time=None, callback=None):
        total, can_stop, times = 0.0, False, []
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> common.Measurement:
        """Blocks of runs until ``min_run_time`` seconds have been spent."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time,
                                       callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0, callback=None) -> common.Measurement:
        """Blocks of runs until the interquartile range falls below ``threshold`` of the median
        (at least four blocks and ``min_run_time``, at most ``max_run_time`` seconds)."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times):
            return len(times) > 3 and common.Measurement(
                number_per_run=number, raw_times=times,
                task_spec=self._task_spec).meets_confidence(threshold=threshold)

        times = self._measurement_loop(number, stop, min_run_time, max_run_time, callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def collect_callgrind(self, *args, **kwargs):
        raise NotImplementedError("leafgrad's Timer has no Callgrind support (it needs torch's "
                                  "C++ toolchain and valgrind)")
