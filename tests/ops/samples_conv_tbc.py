"""Samples for ops/conv_tbc.py."""

from __future__ import annotations

from .samples import Sample

A = "any"

SAMPLES = {
    "ConvTbc": [
        Sample(lambda lib, x, w, b: lib.conv_tbc(x, w, b), (((5, 2, 3), A), ((2, 3, 4), A),
                                                           ((4,), A))),
        Sample(lambda lib, x, w, b: lib.conv_tbc(x, w, b, 2), (((4, 1, 2), A), ((3, 2, 1), A),
                                                              ((1,), A))),
    ],
}
