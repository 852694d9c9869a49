"""Samples for ops/scatter_reduce.py: every reduction with and without the input's own values
(inputs with distinct values, so amax/amin have no ties and prod no zeros: smooth there)."""

from __future__ import annotations

from .samples import Sample

A, POS = "any", "pos"


def _reduce(reduce, include_self, dim=1):
    def call(lib, a, src):
        index = lib.tensor([[0, 2, 0, 1], [1, 1, 2, 0]]) if dim == 1 else lib.tensor([[1, 0, 1]])
        return a.scatter_reduce(dim, index, src, reduce, include_self=include_self)
    return call


SAMPLES = {
    "ScatterReduce": [
        Sample(_reduce(reduce, include_self), (((2, 3), POS), ((2, 4), POS)))
        for reduce in ("sum", "prod", "mean", "amax", "amin") for include_self in (True, False)
    ] + [
        Sample(_reduce("mean", True, dim=0), (((2, 3), A), ((1, 3), A))),
        Sample(lambda lib, a, src: lib.scatter_reduce(a.t(), 0, lib.tensor([[2], [0]]), src,
                                                      "prod"), (((1, 3), POS), ((2, 1), POS))),
        Sample(lambda lib, a, src: a.scatter_reduce(0, lib.tensor(0), src, "sum"),
               (((), A), ((), A))),
    ],
}
