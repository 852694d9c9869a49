"""Samples for the scans and statistics of ops/scans_extra.py and ops/stats_extra.py.

Inputs are random normals, so running extrema never tie: the gradchecks see smooth functions.
Ties, NaNs, infinities, errors and the composite functions (quantile, cov, ...) are compared
with torch in test_scans_extra.py, test_stats_extra.py, test_stats_composite.py and
test_histogram.py.
"""

from __future__ import annotations

from .samples import Sample

A = "any"
S23, S3, S0, S234, S35, S34 = (2, 3), (3,), (), (2, 3, 4), (3, 5), (3, 4)
NONZERO = "away0"
FIRST_ORDER = {"second_order": False}  # empty outputs: see samples_reductions.py


def _rows0(a):
    return a[:0]


SAMPLES = {
    "Cummax": [
        Sample(lambda lib, a: a.cummax(1).values, ((S23, A),)),
        Sample(lambda lib, a: lib.cummax(a.t(), -1)[0], ((S23, A),), note="non-contiguous"),
        Sample(lambda lib, a: lib.cummax(a, dim=0).values, ((S234, A),)),
        Sample(lambda lib, a: a.cummax(0).values, ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).cummax(0).values, ((S23, A),), **FIRST_ORDER),
    ],
    "Cummin": [
        Sample(lambda lib, a: a.cummin(0).values, ((S23, A),)),
        Sample(lambda lib, a: lib.cummin(a[:, ::2], -1).values, ((S35, A),)),
        Sample(lambda lib, a: a.cummin(-1).values, ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).cummin(1).values, ((S23, A),), **FIRST_ORDER),
    ],
    "Logcumsumexp": [
        Sample(lambda lib, a: a.logcumsumexp(1), ((S23, A),)),
        Sample(lambda lib, a: lib.logcumsumexp(a.t(), 0), ((S23, A),), note="non-contiguous"),
        Sample(lambda lib, a: lib.logcumsumexp(a, dim=-1), ((S234, A),)),
        Sample(lambda lib, a: a.logcumsumexp(0), ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).logcumsumexp(1), ((S23, A),), **FIRST_ORDER),
    ],
    "Aminmax": [
        Sample(lambda lib, a: lib.aminmax(a).min, ((S23, A),)),
        Sample(lambda lib, a: a.aminmax(dim=1).max, ((S23, A),)),
        Sample(lambda lib, a: lib.aminmax(a.t(), dim=-1, keepdim=True).min, ((S23, A),),
               note="non-contiguous"),
        Sample(lambda lib, a: lib.aminmax(a, dim=None, keepdim=True).max, ((S234, A),)),
        Sample(lambda lib, a: a.aminmax(dim=0).max, ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).aminmax(dim=1).min, ((S23, A),), **FIRST_ORDER),
    ],
    "Renorm": [
        Sample(lambda lib, a: lib.renorm(a, 2, 0, 1.5), ((S34, A),)),
        Sample(lambda lib, a: a.renorm(1, 1, 2.0), ((S34, A),)),
        Sample(lambda lib, a: a.t().renorm(float("inf"), -1, 1.0), ((S34, A),),
               note="non-contiguous"),
        Sample(lambda lib, a: lib.renorm(a, p=3, dim=2, maxnorm=1.0), ((S234, A),)),
        Sample(lambda lib, a: lib.renorm(a, 0.5, 0, 4.0), ((S34, NONZERO),)),
        Sample(lambda lib, a: (a * 1).renorm_(2, 0, 1.5), ((S34, A),), note="in place"),
        Sample(lambda lib, a: _rows0(a).renorm(2, 1, 1.0), ((S23, A),), **FIRST_ORDER),
    ],
}
