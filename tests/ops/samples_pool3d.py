"""Samples for ops/pool3d.py (3-d pooling and max unpooling)."""

from __future__ import annotations

from .samples import Sample

A = "any"


def F(lib):
    return lib.nn.functional


def _grad_of(lib, out, x):
    return lib.autograd.grad((out * out).sum(), x, create_graph=True)[0]


SAMPLES = {
    "MaxPool3d": [
        Sample(lambda lib, x: F(lib).max_pool3d(x, 2), (((2, 2, 4, 4, 4), A),)),
        Sample(lambda lib, x: F(lib).max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 1, 0),
                                                dilation=(1, 1, 2), ceil_mode=True),
               (((1, 2, 5, 4, 6), A),)),
        Sample(lambda lib, x: F(lib).max_pool3d(x, (1, 2, 2), 1), (((2, 1, 3, 3), A),),
               note="unbatched (one depth slice: torch refuses a channels-last 4-d input)"),
    ],
    "MaxPool3dBackward": [
        Sample(lambda lib, x: _grad_of(lib, F(lib).max_pool3d(x, 2, 1), x),
               (((1, 2, 3, 4, 3), A),)),
    ],
    "AvgPool3d": [
        Sample(lambda lib, x: F(lib).avg_pool3d(x, 2), (((2, 2, 4, 4, 4), A),)),
        Sample(lambda lib, x: F(lib).avg_pool3d(x, 3, 2, 1, ceil_mode=True,
                                                count_include_pad=False),
               (((1, 2, 5, 6, 4), A),)),
        Sample(lambda lib, x: F(lib).avg_pool3d(x, 2, 1, divisor_override=3),
               (((2, 3, 3, 3), A),), note="unbatched"),
    ],
    "AvgPool3dBackward": [
        Sample(lambda lib, x: _grad_of(lib, F(lib).avg_pool3d(x, 3, 2, 1), x),
               (((1, 1, 5, 4, 5), A),)),
    ],
    "AdaptiveAvgPool3d": [
        Sample(lambda lib, x: F(lib).adaptive_avg_pool3d(x, (2, 3, 2)),
               (((1, 2, 5, 7, 4), A),)),
        Sample(lambda lib, x: F(lib).adaptive_avg_pool3d(x, (1, None, 2)),
               (((2, 1, 3, 5), A),), note="unbatched"),
    ],
    "AdaptiveAvgPool3dBackward": [
        Sample(lambda lib, x: _grad_of(lib, F(lib).adaptive_avg_pool3d(x, 3), x),
               (((1, 1, 5, 4, 4), A),)),
    ],
    "AdaptiveMaxPool3d": [
        Sample(lambda lib, x: F(lib).adaptive_max_pool3d(x, (2, 3, 2)),
               (((1, 2, 5, 7, 4), A),), note="overlapping bins"),
        Sample(lambda lib, x: F(lib).adaptive_max_pool3d(x, 2), (((2, 4, 3, 5), A),)),
    ],
    "AdaptiveMaxPool3dBackward": [
        Sample(lambda lib, x: _grad_of(lib, F(lib).adaptive_max_pool3d(x, (3, 2, 2)), x),
               (((1, 2, 5, 4, 3), A),)),
    ],
    "MaxUnpool3d": [
        Sample(lambda lib, x: F(lib).max_unpool3d(*F(lib).max_pool3d(x, 2, return_indices=True),
                                                  2), (((1, 2, 4, 4, 6), A),)),
        Sample(lambda lib, x: F(lib).max_unpool3d(
            *F(lib).max_pool3d(x, (1, 2, 2), return_indices=True), (1, 2, 2),
            output_size=(1, 5, 5)), (((2, 1, 4, 5), A),), note="unbatched, output_size"),
    ],
}
