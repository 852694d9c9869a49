"""Samples for ops/loss_extra.py."""

from __future__ import annotations

from .samples import Sample

A, AWAY = "any", "away0"


def F(lib):
    return lib.nn.functional


def _signs(lib):
    return lib.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]], dtype=lib.float64)


def _classes(lib):
    return lib.tensor([0, 2, 1])


SAMPLES = {
    "SoftMarginLoss": [
        Sample(lambda lib, x: F(lib).soft_margin_loss(x, _signs(lib)), (((2, 3), A),)),
        Sample(lambda lib, x: F(lib).soft_margin_loss(x, _signs(lib), reduction="none"),
               (((2, 3), A),)),
        Sample(lambda lib, x: F(lib).soft_margin_loss(x, _signs(lib), reduction="sum"),
               (((2, 3), A),)),
    ],
    "MultiMarginLoss": [
        # margins away from the hinge (scores scaled) so finite differences are smooth
        Sample(lambda lib, x: F(lib).multi_margin_loss(x * 3, _classes(lib)), (((3, 4), A),)),
        Sample(lambda lib, x: F(lib).multi_margin_loss(x * 3, _classes(lib), p=2,
                                                       reduction="none"), (((3, 4), A),)),
        Sample(lambda lib, x: F(lib).multi_margin_loss(
            x * 3, _classes(lib), weight=lib.tensor([1.0, 0.5, 2.0, 3.0], dtype=lib.float64),
            reduction="sum"), (((3, 4), A),)),
    ],
}
