"""Samples for ops/rnn.py: one LSTM step through torch.lstm_cell (gates i, f, g, o)."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _both(lib, *tensors, bias=True):
    x, h, c, w_ih, w_hh = tensors[:5]
    b_ih, b_hh = (tensors[5], tensors[6]) if bias else (None, None)
    h_next, c_next = lib.lstm_cell(x, (h, c), w_ih, w_hh, b_ih, b_hh)
    return h_next * 2 + c_next  # both outputs reach the gradient


SAMPLES = {
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
