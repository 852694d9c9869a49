"""Samples for ops/rnn.py: one LSTM step through torch.lstm_cell (gates i, f, g, o)."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _both(lib, *tensors, bias=True):
    x, h, c, w_ih, w_hh = tensors[:5]
    b_ih, b_hh = (tensors[5], tensors[6]) if bias else (None, None)
    h_next, c_next = lib.lstm_cell(x, (h, c), w_ih, w_hh, b_ih, b_hh)
    return h_next * 2 + c_next  # both outputs reach the gradient


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
               (((3, 1, 2), A), ((2, 1, 2), A), ((2, 1, 2), A), ((8, 2), A), ((8, 2), A),
                ((8, 2), A), ((8, 2), A)), check_node=False),
    ],
    "LSTMStep": [
        Sample(lambda lib, *t: _both(lib, *t),
               (((2, 3), A), ((2, 4), A), ((2, 4), A), ((16, 3), A), ((16, 4), A), ((16,), A),
                ((16,), A))),
        Sample(lambda lib, *t: _both(lib, *t, bias=False),
               (((3, 2), A), ((3, 2), A), ((3, 2), A), ((8, 2), A), ((8, 2), A))),
        # each output alone: the fused step is one leafgrad node where torch's CPU lstm_cell
        # records its decomposition (MulBackward0 / AddBackward0), so names are not compared
        Sample(lambda lib, *t: lib.lstm_cell(t[0], (t[1], t[2]), t[3], t[4])[0],
               (((1, 2), A), ((1, 3), A), ((1, 3), A), ((12, 2), A), ((12, 3), A)),
               check_node=False),
        Sample(lambda lib, *t: lib.lstm_cell(t[0], (t[1], t[2]), t[3], t[4])[1],
               (((1, 2), A), ((1, 3), A), ((1, 3), A), ((12, 2), A), ((12, 3), A)),
               check_node=False),
    ],
}
