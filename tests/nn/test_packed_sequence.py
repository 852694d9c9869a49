"""PackedSequence and the packing functions against torch: packing orders, padding back,
unpacking, RNN/LSTM/GRU over packed input (values, final states and gradients for every
layer count, direction, batch_first, enforce_sorted and initial state), conversions, errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _values(tensor):
    return np.asarray(tensor.detach().numpy(), dtype=float)


def _seqs(lib, lengths, features=3):
    rng = np.random.default_rng(len(lengths))
    return [lib.tensor(rng.normal(size=(n, features)), requires_grad=True) for n in lengths]


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
def test_packing_and_padding_back_match_torch(enforce_sorted, batch_first):
    lengths = [4, 3, 1] if enforce_sorted else [2, 4, 1, 3]

    def run(lib):
        rnn = lib.nn.utils.rnn
        seqs = _seqs(lib, lengths)
        padded = rnn.pad_sequence(seqs, batch_first=batch_first)
        packed = rnn.pack_padded_sequence(padded, lib.tensor(lengths), batch_first=batch_first,
                                          enforce_sorted=enforce_sorted)
        again, out_lengths = rnn.pad_packed_sequence(packed, batch_first=batch_first,
                                                     padding_value=-2.0, total_length=5)
        (again * again).sum().backward()
        from_list = rnn.pack_sequence(seqs, enforce_sorted=enforce_sorted)
        indices = [None if t is None else t.tolist()
                   for t in (packed.sorted_indices, packed.unsorted_indices)]
        return (_values(packed.data), packed.batch_sizes.tolist(), indices,
                _values(again), out_lengths.tolist(), [_values(s.grad) for s in seqs],
                _values(from_list.data), [_values(s) for s in rnn.unpack_sequence(packed)],
                type(packed).__name__, packed.batch_sizes.dtype is lib.int64)

    ours, theirs = run(leafgrad), run(torch)
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12)
        elif isinstance(a, list) and a and isinstance(a[0], np.ndarray):
            for x, y in zip(a, b):
                np.testing.assert_allclose(x, y, rtol=1e-12)
        else:
            assert a == b


CONFIGS = [
    (mode, layers, bidirectional, batch_first, sorted_, with_state)
    for mode in ("RNN", "LSTM", "GRU")
    for layers, bidirectional in ((1, False), (2, True))
    for batch_first in (False, True)
    for sorted_, with_state in ((True, False), (False, True))
]


@pytest.mark.parametrize("mode,layers,bidirectional,batch_first,sorted_,with_state", CONFIGS)
def test_recurrent_layers_over_packed_input_match_torch(mode, layers, bidirectional, batch_first,
                                                        sorted_, with_state):
    lengths = [5, 4, 2] if sorted_ else [2, 5, 4]

    def run(lib):
        lib.manual_seed(3)
        module = getattr(lib.nn, mode)(3, 4, num_layers=layers, bidirectional=bidirectional,
                                       batch_first=batch_first).double()
        rng = np.random.default_rng(1)
        shape = (3, 5, 3) if batch_first else (5, 3, 3)
        x = lib.tensor(rng.normal(size=shape), requires_grad=True)
        packed = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                                       enforce_sorted=sorted_)
        state = None
        if with_state:
            h0 = lib.tensor(rng.normal(size=(layers * (1 + bidirectional), 3, 4)),
                            requires_grad=True)
            state = (h0, h0 * 0.5) if mode == "LSTM" else h0
        out, final = module(packed) if state is None else module(packed, state)
        padded, out_lengths = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first)
        h_n = final[0] if mode == "LSTM" else final
        weights = lib.tensor(rng.normal(size=tuple(padded.shape)))
        ((padded * weights).sum() + (h_n * h_n).sum()).backward()
        return ([_values(padded), _values(h_n), _values(x.grad)]
                + [_values(p.grad) for p in module.parameters()]
                + ([_values(state[0].grad if mode == "LSTM" else state.grad)] if with_state
                   else []),
                out_lengths.tolist(), type(out).__name__)

    (ours, ours_lengths, ours_type), (theirs, theirs_lengths, theirs_type) = run(leafgrad), \
        run(torch)
    assert ours_lengths == theirs_lengths and ours_type == theirs_type == "PackedSequence"
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_conversions_and_reprs_match_torch():
    def run(lib):
        rnn = lib.nn.utils.rnn
        packed = rnn.pack_sequence([lib.tensor([1.0, 2.0, 3.0]), lib.tensor([4.0, 5.0])])
        text = repr(packed).replace("leafgrad", "torch")
        return (text, str(packed.double().data.dtype).split(".")[-1],
                str(packed.long().data.dtype).split(".")[-1], packed.to(lib.float64).data.tolist(),
                packed.is_cuda, packed.cpu() is packed or packed.cpu().data.tolist())

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("case", [
    lambda rnn, lib: rnn.pack_padded_sequence(lib.zeros(3, 2), [1, 3]),
    lambda rnn, lib: rnn.pack_padded_sequence(lib.zeros(3, 2), [3, 0]),
    lambda rnn, lib: rnn.pad_packed_sequence(rnn.pack_sequence([lib.zeros(3)]), total_length=2),
])
def test_errors_match_torch(case):
    def run(lib):
        with pytest.raises(Exception) as error:
            case(lib.nn.utils.rnn, lib)
        return type(error.value).__name__, str(error.value).splitlines()[0]

    assert run(leafgrad) == run(torch)
