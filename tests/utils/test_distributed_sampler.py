"""DistributedSampler gives torch's indices for every replica, shuffle, seed, epoch and
drop_last, and torch's errors."""

from __future__ import annotations

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


# an empty dataset without drop_last: torch divides by zero (test_empty_dataset_... below)
CASES = [(size, replicas, shuffle, drop_last) for size in (0, 1, 5, 10, 11, 23)
         for replicas in (1, 2, 3, 4, 7) for shuffle in (False, True)
         for drop_last in (False, True) if size or drop_last]


@pytest.mark.parametrize("size,replicas,shuffle,drop_last", CASES)
def test_indices_match_torch(size, replicas, shuffle, drop_last):
    for rank in range(replicas):
        samplers = [lib.utils.data.DistributedSampler(range(size), num_replicas=replicas,
                                                       rank=rank, shuffle=shuffle, seed=3,
                                                       drop_last=drop_last)
                    for lib in (leafgrad, torch)]
        for epoch in (0, 1, 5):
            for sampler in samplers:
                sampler.set_epoch(epoch)
            ours, theirs = (list(s) for s in samplers)
            assert ours == theirs
            assert len(samplers[0]) == len(samplers[1])
            assert samplers[0].total_size == samplers[1].total_size


def test_with_dataloader():
    results = []
    for lib in (leafgrad, torch):
        data = lib.utils.data.TensorDataset(lib.arange(10))
        sampler = lib.utils.data.DistributedSampler(data, num_replicas=3, rank=1, seed=7)
        loader = lib.utils.data.DataLoader(data, batch_size=2, sampler=sampler)
        results.append([batch[0].tolist() for batch in loader])
    assert results[0] == results[1]


@pytest.mark.parametrize("kwargs", [{}, {"num_replicas": 2}, {"rank": 0},
                                    {"num_replicas": 2, "rank": 2},
                                    {"num_replicas": 2, "rank": -1},
                                    {"num_replicas": 0, "rank": 0}])
def test_errors(kwargs):
    outcomes = []
    for lib in (leafgrad, torch):
        try:
            lib.utils.data.DistributedSampler(range(5), **kwargs)
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[0] == outcomes[1] and outcomes[0] is not None


def test_empty_dataset_without_drop_last_raises_like_torch():
    outcomes = []
    for lib in (leafgrad, torch):
        sampler = lib.utils.data.DistributedSampler([], num_replicas=2, rank=0)
        try:
            list(sampler)
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001
            outcomes.append(type(error).__name__)
    assert outcomes[0] == outcomes[1]
