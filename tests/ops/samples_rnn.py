"""Samples for ops/rnn.py: LSTM layers through torch.lstm (gates i, f, g, o)."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _layer(lib, x, h, c, w_ih, w_hh, b_ih=None, b_hh=None, **options):
    params = [w_ih, w_hh] + ([b_ih, b_hh] if b_ih is not None else [])
    out, h_n, c_n = lib.lstm(x, (h, c), params, b_ih is not None, 1, 0.0, True,
                             options.get("bidirectional", False), options.get("batch_first",
                                                                               False))
    # every output reaches the gradient: (N, H) from each
    return out.sum(1 if options.get("batch_first") else 0) * 2 + h_n.sum(0) - c_n.sum(0)


def _packed(lib, x, lengths, batch_first=False, enforce_sorted=True):
    return lib.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                                 enforce_sorted=enforce_sorted).data


SAMPLES = {
    "PackPaddedSequence": [
        Sample(lambda lib, x: _packed(lib, x, [4, 2, 1]), (((4, 3, 2), A),)),
        Sample(lambda lib, x: _packed(lib, x, [3, 3, 1], batch_first=True), (((3, 4, 2), A),)),
        Sample(lambda lib, x: _packed(lib, x, [2, 4], enforce_sorted=False), (((4, 2), A),),
               check_node=False, note="the graph ends in the batch's IndexSelectBackward0 "
                                      "before the packing node"),
    ],
    "LSTMLayer": [
        # torch records MkldnnRnnLayerBackward0 for its fused CPU kernel: names differ
        Sample(lambda lib, *t: _layer(lib, *t),
               (((4, 2, 3), A), ((1, 2, 2), A), ((1, 2, 2), A), ((8, 3), A), ((8, 2), A),
                ((8,), A), ((8,), A)), check_node=False),
        Sample(lambda lib, *t: _layer(lib, *t, batch_first=True),
               (((2, 3, 3), A), ((1, 2, 2), A), ((1, 2, 2), A), ((8, 3), A), ((8, 2), A)),
               check_node=False),
        Sample(lambda lib, x, h, c, a, b, d, e: lib.lstm(x, (h, c), [a, b, d, e], False, 1,
                                                         0.0, True, True, False)[0],
               (((2, 1, 2), A), ((2, 1, 2), A), ((2, 1, 2), A), ((8, 2), A), ((8, 2), A),
                ((8, 2), A), ((8, 2), A)), check_node=False),
    ],
}
