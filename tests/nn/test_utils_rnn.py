"""nn.utils.rnn.pad_sequence against torch: shapes, values, grad_fn and gradients for every
option; errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, side):
    def run(lib):
        from importlib import import_module

        rnn = import_module(lib.__name__ + ".nn.utils.rnn")
        rng = np.random.default_rng(0)
        seqs = [lib.tensor(rng.normal(size=(n, 2)), requires_grad=True) for n in (3, 1, 4)]
        out = rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=-1.5,
                               padding_side=side)
        (out * lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape)).sum().backward()
        return out.detach().numpy(), [s.grad.numpy() for s in seqs], out.grad_fn.name()

    ours, theirs = run(leafgrad), run(torch)
    np.testing.assert_array_equal(ours[0], theirs[0])
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_array_equal(a, b)
    assert ours[2] == theirs[2]


def test_pad_sequence_errors_match_torch():
    def run(lib):
        from importlib import import_module

        rnn = import_module(lib.__name__ + ".nn.utils.rnn")
        out = []
        for bad in (lambda: rnn.pad_sequence([lib.ones(3, 2), lib.ones(2, 3)]),
                    lambda: rnn.pad_sequence([lib.ones(2)], padding_side="middle")):
            try:
                bad()
                out.append(None)
            except Exception as error:  # noqa: BLE001
                out.append((type(error).__name__, str(error).splitlines()[0]))
        return out

    assert run(leafgrad) == run(torch)
