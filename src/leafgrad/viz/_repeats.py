"""Long runs of one op pattern (``mul, add, sin, tanh`` x 25,000) found in a chain of nodes."""

from __future__ import annotations

__all__ = ["periodic_runs", "MIN_REPEATS", "MIN_RUN_NODES", "MAX_PERIOD"]

MIN_REPEATS = 4  # a run repeated fewer times stays expanded
MIN_RUN_NODES = 12  # ... and so does one covering fewer nodes
MAX_PERIOD = 8  # longest repeated pattern looked for (an LSTM step is shorter)


def periodic_runs(chain: list, names: list) -> list[dict]:
    """Cut a chain into runs of one pattern repeated (greedy, longest coverage first)."""
    runs = []
    length = len(names)
    start = 0
    while start < length:
        best = None
        for period in range(1, MAX_PERIOD + 1):
            if start + MIN_REPEATS * period > length:
                break
            pattern = names[start:start + period]
            repeats = 1
            while (start + (repeats + 1) * period <= length
                   and names[start + repeats * period:start + (repeats + 1) * period] == pattern):
                repeats += 1
            covered = repeats * period
            if repeats >= MIN_REPEATS and covered >= MIN_RUN_NODES and (
                    best is None or covered > best[0] * best[1]):
                best = (repeats, period)
        if best is None:
            start += 1
            continue
        repeats, period = best
        end = start + repeats * period
        members = chain[start:end]
        # read in data-flow order (leaf side first), as the drawing shows it
        pattern = list(reversed(names[end - period:end]))
        runs.append({"members": members, "period": period, "repeats": repeats,
                     "pattern": pattern})
        start = end
    return runs
