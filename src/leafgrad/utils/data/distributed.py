"""``DistributedSampler``: each of ``num_replicas`` processes reads its own share of the
dataset, in torch's order (the shuffle is ``randperm`` from a generator seeded with
``seed + epoch``, padded by repeating the start or trimmed with ``drop_last``, then every
``num_replicas``-th index from ``rank``).

leafgrad has no process groups: ``num_replicas`` and ``rank`` must be given, and leaving one out
raises torch's error for an uninitialised default group.
"""

from __future__ import annotations

import math
from typing import Iterator

from ..._creation import randperm
from ..._rng import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]

_NO_GROUP = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class DistributedSampler(Sampler):
    """Indices of ``dataset`` for process ``rank`` of ``num_replicas``.

    >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
    [1, 3, 0]
    """

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            raise ValueError(_NO_GROUP)
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            # drop the tail so every replica gets the same number of samples
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        if self.shuffle:
            generator = Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=generator).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Reshuffle differently in the next pass (call before each epoch, as with torch)."""
        self.epoch = epoch
