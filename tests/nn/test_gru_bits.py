"""GRU's float32 values and gradients are torch's bits. torch's CPU GRUCell (RNN.cpp) adds
the projections in place on the chunks of the hidden projection and takes sigmoid_ there, so
each row of H elements (inside a row of 3H) ends in its own scalar tail (glibc's expf) where a
fresh contiguous sum ran SLEEF's vector loop over the whole batch: ~8% of a GRU's outputs
were a last bit off (the seq2seq tutorials' encoder and decoder)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()
LIBS = (torch, leafgrad)


def _bits(t):
    return t.detach().numpy().tobytes()


def _one_thread(check, torch_bits: bool):
    """``check()`` with one thread in both libraries and leafgrad's ``torch_bits`` as given
    (rows of 32 or more hidden units take the sigmoid's vector loop: SLEEF's expf, replayed
    in either mode)."""
    threads = [lib.get_num_threads() for lib in LIBS]
    previous = leafgrad.backends.cpu.torch_bits
    try:
        for lib in LIBS:
            lib.set_num_threads(1)
        leafgrad.backends.cpu.torch_bits = torch_bits
        return check(torch_bits)
    finally:
        leafgrad.backends.cpu.torch_bits = previous
        for lib, count in zip(LIBS, threads):
            lib.set_num_threads(count)


def _gru_layers(torch_bits):
    differing = []
    cases = [(10, 20, 1, False, False), (10, 20, 2, True, False), (6, 40, 1, False, True),
             (5, 70, 1, True, False), (3, 7, 2, False, True)]
    for inputs, hidden, layers, batch_first, bidirectional in cases:

        rng = np.random.default_rng(hidden)
        x = rng.standard_normal((4, 6, inputs)).astype(np.float32)
        h0 = rng.standard_normal((layers * (2 if bidirectional else 1), 4 if batch_first
                                  else 6, hidden)).astype(np.float32)
        seen = []
        for lib in LIBS:
            lib.manual_seed(0)
            gru = lib.nn.GRU(inputs, hidden, num_layers=layers, batch_first=batch_first,
                             bidirectional=bidirectional)
            xt = lib.tensor(x).requires_grad_()
            ht = lib.tensor(h0).requires_grad_()
            out, hn = gru(xt, ht)
            (out.sum() + (hn * hn).sum()).backward()
            seen.append([_bits(out), _bits(hn), _bits(xt.grad), _bits(ht.grad)]
                        + [_bits(p.grad) for p in gru.parameters()])
        if seen[0] != seen[1]:
            differing.append((inputs, hidden, layers, batch_first, bidirectional))
    return differing


def _gru_cells(torch_bits):
    differing = []
    for hidden, batched in ((20, True), (33, True), (5, False), (64, True)):

        rng = np.random.default_rng(hidden)
        x = rng.standard_normal((3, 8) if batched else (8,)).astype(np.float32)
        h = rng.standard_normal((3, hidden) if batched else (hidden,)).astype(np.float32)
        seen = []
        for lib in LIBS:
            lib.manual_seed(1)
            cell = lib.nn.GRUCell(8, hidden)
            xt, ht = lib.tensor(x).requires_grad_(), lib.tensor(h).requires_grad_()
            out = cell(xt, ht)
            out.backward(lib.ones_like(out) * 0.5)
            seen.append([_bits(out), _bits(xt.grad), _bits(ht.grad)]
                        + [_bits(p.grad) for p in cell.parameters()])
        if seen[0] != seen[1]:
            differing.append((hidden, batched))
    return differing


@pytest.mark.parametrize("torch_bits", (False, True))
def test_gru_layers_are_torchs_float32_bits(torch_bits):
    differing = _one_thread(_gru_layers, torch_bits)
    assert not differing, differing


@pytest.mark.parametrize("torch_bits", (False, True))
def test_gru_cells_are_torchs_float32_bits(torch_bits):
    differing = _one_thread(_gru_cells, torch_bits)
    assert not differing, differing
