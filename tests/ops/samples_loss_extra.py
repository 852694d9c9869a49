"""Samples for ops/loss_extra.py."""

from __future__ import annotations

from .samples import Sample

A, AWAY = "any", "away0"


def F(lib):
    return lib.nn.functional


def _signs(lib):
    return lib.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]], dtype=lib.float64)


def _second_all(lib, fn, *inputs):
    """Every input's first derivative, recorded and flattened into one tensor."""
    out = fn(*inputs)
    grads = lib.autograd.grad((out * out).sum(), inputs, create_graph=True)
    return lib.cat([g.flatten() for g in grads])


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
    # (second_order=False: torch has no derivative for multi_margin_loss_backward, and neither
    # has leafgrad: tests/nn/test_double_backward_nodes3.py)
    "MultiMarginLoss": [
        # margins away from the hinge (scores scaled) so finite differences are smooth
        Sample(lambda lib, x: F(lib).multi_margin_loss(x * 3, _classes(lib)), (((3, 4), A),),
               second_order=False),
        Sample(lambda lib, x: F(lib).multi_margin_loss(x * 3, _classes(lib), p=2,
                                                       reduction="none"), (((3, 4), A),),
               second_order=False),
        Sample(lambda lib, x: F(lib).multi_margin_loss(
            x * 3, _classes(lib), weight=lib.tensor([1.0, 0.5, 2.0, 3.0], dtype=lib.float64),
            reduction="sum"), (((3, 4), A),), second_order=False),
    ],
    "SoftMarginLossBackward": [
        Sample(lambda lib, x: _second_all(lib, lambda t: F(lib).soft_margin_loss(t, _signs(lib)),
                                          x), (((2, 3), A),)),
        Sample(lambda lib, x: _second_all(lib, lambda t: F(lib).soft_margin_loss(
            t, _signs(lib), reduction="none"), x), (((2, 3), A),)),
    ],
}


def _labels(lib):
    # sample 0: classes 3, 0 (then ignored past -1); sample 1: all four; sample 2: class 1
    return lib.tensor([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 2, 2]])


# (second_order=False: torch has no derivative for multilabel_margin_loss_backward, and
# neither has leafgrad: tests/test_suite13_findings.py)
SAMPLES["MultilabelMarginLoss"] = [
    # scores scaled so every hinge is away from its kink
    Sample(lambda lib, x: F(lib).multilabel_margin_loss(x * 3, _labels(lib)), (((3, 4), A),),
           second_order=False),
    Sample(lambda lib, x: F(lib).multilabel_margin_loss(x * 3, _labels(lib), reduction="none"),
           (((3, 4), A),), second_order=False),
    Sample(lambda lib, x: F(lib).multilabel_margin_loss(x * 3, lib.tensor([2, 2, 0, -1]),
                                                        reduction="sum"), (((4,), A),),
           note="one sample, a repeated target", second_order=False),
]
