"""NumPy's floating-point error state switched off around leafgrad's own NumPy calls."""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["quiet", "loud"]

# Note: floating-point warnings
# torch computes log(-1) = nan or exp(1000) = inf silently; NumPy warns (RuntimeWarning). A
# `with np.errstate(all="ignore")` around each forward costs ~1.5 us, most of a small op's
# budget (benchmarks/bench_core.py), and a warnings filter is undone by any user who resets the
# filters. So forwards run with NumPy's error state switched straight through the context
# variable np.errstate itself sets (~0.15 us), falling back to np.errstate on NumPy versions
# that lack it. The user's own NumPy calls keep their error state.
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _errors

    with np.errstate(all="ignore"):
        _IGNORE_ALL = _errors.get()

    # Both are C callables, so the hot paths call them without a Python frame (a partial of
    # a C method is itself called in C): ~50 ns less per op than a ``def quiet()``.
    quiet = functools.partial(_errors.set, _IGNORE_ALL)
    loud = _errors.reset

except ImportError:  # pragma: no cover - other NumPy layouts

    def quiet():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def loud(state) -> None:
        state.__exit__(None, None, None)
