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


SAMPLES = {
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
