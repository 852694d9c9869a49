"""Samples for ops/cross.py (linalg.cross and torch.cross)."""

from __future__ import annotations

from .samples import Sample

A = "any"

SAMPLES = {
    "LinalgCross": [
        Sample(lambda lib, a, b: lib.linalg.cross(a, b), (((4, 3), A), ((4, 3), A))),
        Sample(lambda lib, a, b: lib.linalg.cross(a, b, dim=0), (((3, 2), A), ((3, 1), A))),
        Sample(lambda lib, a, b: lib.cross(a, b, dim=1), (((2, 3, 2), A), ((1, 3, 2), A))),
        Sample(lambda lib, a, b: lib.linalg.cross(a.t(), b), (((3, 2), A), ((2, 3), A))),
    ],
}
