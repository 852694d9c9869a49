"""Samples for ops/rnn.py: LSTM layers through torch.lstm (gates i, f, g, o)."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _lstm(lib, x, hx, params, has_biases, bidirectional, batch_first):
    """torch.lstm with one layer. torch runs float64 (these samples) as per-step cells and only
    float32 through its fused oneDNN layer (MkldnnRnnLayerBackward0), and so does leafgrad's
    lstm; here leafgrad's fused layer (LSTMLayer) is called directly in float64, against
    torch's cells' values and gradients."""
    if lib.__name__ == "torch" or x.dtype is not lib.float64:  # (other dtypes: lstm's path)
        return lib.lstm(x, hx, params, has_biases, 1, 0.0, True, bidirectional, batch_first)
    from leafgrad.ops.rnn import LSTMLayer

    layer_input = x.transpose(0, 1) if batch_first else x
    step = 4 if has_biases else 2
    outputs, hs, cs = [], [], []
    for direction in range(2 if bidirectional else 1):
        w_ih, w_hh, *biases = params[direction * step:(direction + 1) * step]
        b_ih, b_hh = biases if has_biases else (None, None)
        output, h_n, c_n = LSTMLayer.apply(layer_input, w_ih, w_hh, b_ih, b_hh, hx[0][direction],
                                           hx[1][direction], reverse=direction == 1)
        outputs.append(output)
        hs.append(h_n)
        cs.append(c_n)
    output = lib.cat(outputs, 2)
    return (output.transpose(0, 1) if batch_first else output), lib.stack(hs), lib.stack(cs)


def _layer(lib, x, h, c, w_ih, w_hh, b_ih=None, b_hh=None, **options):
    params = [w_ih, w_hh] + ([b_ih, b_hh] if b_ih is not None else [])
    out, h_n, c_n = _lstm(lib, x, (h, c), params, b_ih is not None,
                          options.get("bidirectional", False), options.get("batch_first", False))
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
        # float64: torch's graph is its per-step cells' (see _lstm)
        Sample(lambda lib, *t: _layer(lib, *t),
               (((4, 2, 3), A), ((1, 2, 2), A), ((1, 2, 2), A), ((8, 3), A), ((8, 2), A),
                ((8,), A), ((8,), A)), check_node=False),
        Sample(lambda lib, *t: _layer(lib, *t, batch_first=True),
               (((2, 3, 3), A), ((1, 2, 2), A), ((1, 2, 2), A), ((8, 3), A), ((8, 2), A)),
               check_node=False),
        Sample(lambda lib, x, h, c, a, b, d, e: _lstm(lib, x, (h, c), [a, b, d, e], False,
                                                      True, False)[0],
               (((2, 1, 2), A), ((2, 1, 2), A), ((2, 1, 2), A), ((8, 2), A), ((8, 2), A),
                ((8, 2), A), ((8, 2), A)), check_node=False),
    ],
}
