"""leafgrad.random against torch.random: fork_rng restores the stream (also after an error, not
when disabled, with devices given), get/set_rng_state, seeds, thread_safe_generator outside
workers; nn.utils.rnn.invert_permutation."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


def test_fork_rng_matches_torch():
    def run(lib):
        lib.random.manual_seed(7)
        values = []
        with lib.random.fork_rng():
            values.append(lib.rand(3).numpy())
        values.append(lib.rand(3).numpy())
        with lib.random.fork_rng(enabled=False):
            values.append(lib.rand(2).numpy())
        values.append(lib.rand(2).numpy())
        with pytest.raises(ValueError):
            with lib.random.fork_rng(devices=iter([])):
                lib.rand(5)
                raise ValueError("inside")
        values.append(lib.rand(2).numpy())
        state = lib.random.get_rng_state()
        first = lib.randn(4).numpy()
        lib.random.set_rng_state(state)
        values += [first, lib.randn(4).numpy(), np.array([lib.random.initial_seed()]),
                   np.array([lib.random.thread_safe_generator() is None])]
        return values

    for a, b in zip(run(leafgrad), run(torch)):
        np.testing.assert_array_equal(a, b)


def test_seed_is_returned_and_used():
    seed = leafgrad.random.seed()
    assert leafgrad.random.initial_seed() == seed
    assert isinstance(leafgrad.random.manual_seed(3), leafgrad.Generator)
    assert leafgrad.random.initial_seed() == 3


@pytest.mark.parametrize("values", [[2, 0, 3, 1], [0], [], [4, 3, 2, 1, 0]])
def test_invert_permutation_matches_torch(values):
    def run(lib):
        out = lib.nn.utils.rnn.invert_permutation(lib.tensor(values, dtype=lib.int64))
        return out.numpy(), str(out.dtype).split(".")[-1]

    ours, theirs = run(leafgrad), run(torch)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1] == theirs[1]
    assert leafgrad.nn.utils.rnn.invert_permutation(None) is None
