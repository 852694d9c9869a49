"""Samples for ops/loss_ctc.py: log_softmax outputs (torch's CTC gradient is the gradient with
respect to the logits; see Note: the CTC gradient), padded and concatenated targets, repeated
labels (no blank skip), a short sequence and an empty target, every reduction. The gradient
has no derivative in torch, so no second-order check."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _ctc(lib, x, targets, input_lengths, target_lengths, **options):
    return lib.nn.functional.ctc_loss(x.log_softmax(2), lib.tensor(targets),
                                      lib.tensor(input_lengths), lib.tensor(target_lengths),
                                      **options)


SAMPLES = {
    "CtcLoss": [
        Sample(lambda lib, x: _ctc(lib, x, [[1, 2, 2], [3, 1, 0]], [6, 5], [3, 2],
                                   reduction="none"), (((6, 2, 4), A),), second_order=False),
        Sample(lambda lib, x: _ctc(lib, x, [1, 1, 3, 2], [5, 4], [2, 2]), (((5, 2, 4), A),),
               second_order=False, note="concatenated targets, mean"),
        Sample(lambda lib, x: _ctc(lib, x, [[2, 1], [0, 0]], [4, 3], [2, 0], blank=3,
                                   reduction="sum"), (((4, 2, 4), A),), second_order=False,
               note="blank 3, an empty target"),
    ],
}
