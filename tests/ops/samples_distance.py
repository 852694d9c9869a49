"""Samples for ops/distance.py (cdist and its matmul path, pdist, dist).

Torch implements no derivative of cdist's and pdist's gradients (their double backward raises
its NotImplementedError, checked in tests/ops/test_distance.py): those samples are first order.
Zero distances (a tensor against itself) are differentiable along the sample's own path: both
rows move together, so finite differences see torch's zero gradient there.
"""

from __future__ import annotations

from .samples import Sample

A = "any"
INF = float("inf")
MM = "use_mm_for_euclid_dist"


def _first(call):
    return Sample(call[0], call[1], second_order=False)


def _cdist(p, shapes, **kwargs):
    return Sample(lambda lib, a, b: lib.cdist(a, b, p=p, **kwargs), shapes, second_order=False)


def _pdist(p, shape, transposed=False):
    if transposed:
        return Sample(lambda lib, a: lib.pdist(a.t(), p), ((shape, A),), second_order=False)
    return Sample(lambda lib, a: lib.nn.functional.pdist(a, p=p), ((shape, A),),
                  second_order=False)


SAMPLES = {
    "Cdist": [
        _cdist(2.0, (((3, 4), A), ((5, 4), A))),
        _cdist(1.0, (((3, 4), A), ((5, 4), A))),
        _cdist(0.0, (((3, 4), A), ((5, 4), A))),
        _cdist(INF, (((3, 4), A), ((5, 4), A))),
        _cdist(3.5, (((3, 4), A), ((5, 4), A))),
        _cdist(0.5, (((3, 2), A), ((2, 2), A))),
        _cdist(1.5, (((3, 2), A), ((2, 2), A))),
        _cdist(2.0, (((2, 3, 4), A), ((1, 5, 4), A))),
        _cdist(1.0, (((3, 4), A), ((2, 5, 4), A))),
        _cdist(2.0, (((3, 4), A), ((5, 4), A)), compute_mode="donot_use_mm_for_euclid_dist"),
        Sample(lambda lib, a, b: lib.cdist(a.t(), b.mT), (((4, 3), A), ((4, 5), A)),
               second_order=False),
        # zero distances: every row against itself
        Sample(lambda lib, a: lib.cdist(a, a), (((4, 3), A),), second_order=False),
        Sample(lambda lib, a: lib.cdist(a, a, p=1), (((4, 3), A),), second_order=False),
        Sample(lambda lib, a: lib.cdist(a, a, p=3), (((4, 3), A),), second_order=False),
        # empty
        _cdist(2.0, (((0, 4), A), ((5, 4), A))),
        _cdist(1.0, (((3, 0), A), ((5, 0), A))),
        _cdist(2.0, (((2, 3, 0), A), ((2, 30, 0), A))),
    ],
    "EuclideanDist": [
        Sample(lambda lib, a, b: lib.cdist(a, b, compute_mode=MM), (((3, 4), A), ((5, 4), A))),
        Sample(lambda lib, a, b: lib.cdist(a, b), (((30, 3), A), ((4, 3), A))),
        Sample(lambda lib, a, b: lib.cdist(a, b, 2, MM), (((2, 3, 4), A), ((1, 5, 4), A))),
        Sample(lambda lib, a, b: lib.cdist(a, b, compute_mode=MM), (((3, 4), A), ((2, 5, 4), A))),
        Sample(lambda lib, a, b: lib.cdist(a.mT, b, compute_mode=MM), (((2, 4, 3), A),
                                                                       ((2, 5, 4), A))),
    ],
    "Pdist": [
        _pdist(2.0, (4, 3)),
        _pdist(1.0, (4, 3)),
        _pdist(0.0, (4, 3)),
        _pdist(INF, (4, 3)),
        _pdist(0.5, (4, 3)),
        _pdist(3.0, (4, 3)),
        _pdist(2.0, (3, 4), transposed=True),
        _pdist(2.0, (1, 3)),
        _pdist(2.0, (3, 0)),
    ],
    "Dist": [
        Sample(lambda lib, a, b: lib.dist(a, b), (((2, 3), A), ((3,), A))),
        Sample(lambda lib, a, b: a.dist(b, 1), (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, a, b: lib.dist(a, b, INF), (((2, 3), A), ((2, 1), A))),
        Sample(lambda lib, a, b: lib.dist(a, b, -INF), (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, a, b: lib.dist(a, b, 3), (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, a, b: lib.dist(a, b, 0.5), (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, a, b: lib.dist(a, b, -1.5), (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, a, b: lib.dist(a, b), (((), A), ((), A))),
        Sample(lambda lib, a, b: lib.dist(a.t(), b), (((3, 2), A), ((2, 3), A))),
        Sample(lambda lib, a, b: lib.dist(a, b), (((0, 3), A), ((3,), A))),
    ],
}
