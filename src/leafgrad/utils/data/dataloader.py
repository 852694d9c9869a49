"""``DataLoader``: batches from a dataset, in torch's order for the same seed.

Note: worker processes. leafgrad loads every batch in the calling process, but with
``num_workers > 0`` it keeps torch's workers' view of the world: worker ``k`` of ``n`` is a
context with its own random state (seeded as torch seeds a worker: ``random.seed`` and the
default generator with ``base_seed + k``, NumPy's global generator with torch's
``_generate_state(base_seed, k)``), ``get_worker_info()`` answers inside it, and
``worker_init_fn(k)`` runs in it first. Batch ``j`` of a map-style dataset is loaded by worker
``j % n`` (torch's round-robin, results in order), so random augmentations draw the numbers
torch's workers would and the main process's generators do not move. An IterableDataset is
iterated once per worker and the workers' batches interleave as torch's do (each worker's
``__iter__`` sees its own ``get_worker_info()``, so sharded datasets shard). The dataset object
is shared, not copied into each worker (torch's forked workers each get a copy).
``persistent_workers`` keeps the workers' random states from one epoch to the next.
"""

from __future__ import annotations

import itertools
import math
import random
import warnings
from collections import deque

import numpy as np

from ... import _dtype
from ..._creation import empty
from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "WorkerInfo", "get_worker_info"]


_current_worker: list = [None]  # the WorkerInfo of the worker context being run, if any


def get_worker_info():
    """Inside a worker's context (see Note: worker processes), its ``WorkerInfo``; None in the
    main process, as in torch."""
    return _current_worker[0]


class WorkerInfo:
    """torch's ``WorkerInfo``: id, num_workers, seed and dataset of the current worker."""

    __slots__ = ("id", "num_workers", "seed", "dataset", "rng", "worker_method")

    def __init__(self, id: int, num_workers: int, seed: int, dataset, rng=None,  # noqa: A002
                 worker_method: str | None = "multiprocessing"):
        for name, value in (("id", id), ("num_workers", num_workers), ("seed", seed),
                            ("dataset", dataset), ("rng", rng),
                            ("worker_method", worker_method)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field '{name}'")

    def __repr__(self) -> str:
        return (f"WorkerInfo(id={self.id!r}, num_workers={self.num_workers!r}, "
                f"seed={self.seed!r}, dataset={self.dataset!r}, rng={self.rng!r}, "
                f"worker_method={self.worker_method!r})")


_MASK32 = 0xFFFFFFFF


def _generate_state(base_seed: int, worker_id: int) -> list:
    """The four 32-bit words torch seeds a worker's NumPy generator with (torch's
    ``_generate_state``: NumPy's SeedSequence hashing applied to the worker id and the two
    halves of the base seed)."""
    hash_const_a = 0x43B0D7E5

    def hashed(value: int) -> int:
        nonlocal hash_const_a
        value = (value ^ hash_const_a) & _MASK32
        hash_const_a = (hash_const_a * 0x931E8875) & _MASK32
        value = (value * hash_const_a) & _MASK32
        return (value ^ (value >> 16)) & _MASK32

    def mixed(x: int, y: int) -> int:
        result = ((0xCA01F9DD * x) - (0x4973F715 * y)) & _MASK32
        return (result ^ (result >> 16)) & _MASK32

    entropy = [worker_id, base_seed & _MASK32, base_seed >> 32, 0]
    pool = [hashed(value) for value in entropy]
    for source in range(4):
        for target in range(4):
            if source != target:
                pool[target] = mixed(pool[target], hashed(pool[source]))
    hash_const_b = 0x8B51F9DD
    state = []
    for value in pool:
        value = (value ^ hash_const_b) & _MASK32
        hash_const_b = (hash_const_b * 0x58F38DED) & _MASK32
        value = (value * hash_const_b) & _MASK32
        state.append((value ^ (value >> 16)) & _MASK32)
    return state


def _random_states():
    from ... import _rng

    return _rng.get_rng_state(), random.getstate(), np.random.get_state()


def _set_random_states(states) -> None:
    from ... import _rng

    _rng.set_rng_state(states[0])
    random.setstate(states[1])
    np.random.set_state(states[2])


class _Worker:
    """One of torch's worker processes, as a context the calling process switches into."""

    def __init__(self, loader, worker_id: int, num_workers: int, base_seed: int):
        from ... import _rng

        seed = base_seed + worker_id
        self.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                               dataset=loader.dataset)
        saved = _random_states()
        try:
            random.seed(seed)
            _rng.manual_seed(seed)
            np.random.seed(_generate_state(base_seed, worker_id))
            _current_worker[0] = self.info
            if loader.worker_init_fn is not None:
                loader.worker_init_fn(worker_id)
            self.states = _random_states()
        finally:
            _current_worker[0] = None
            _set_random_states(saved)
        self.source = None  # an IterableDataset's iterator in this worker

    def run(self, fn):
        saved = _random_states()
        _set_random_states(self.states)
        _current_worker[0] = self.info
        try:
            return fn()
        finally:
            _current_worker[0] = None
            self.states = _random_states()
            _set_random_states(saved)


_END = object()  # a worker's iterable dataset is exhausted


class _InfiniteConstantSampler:
    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over ``dataset`` in batches (sampling, shuffling and collation as torch's)."""

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler=None, batch_sampler=None, num_workers: int = 0, collate_fn=None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True):
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let "
                "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to "
                "None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, but "
                    f"got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, but "
                    f"got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else math.ceil(length / self.batch_size))
            return length
        return len(self._index_sampler)

    def __iter__(self):
        if self.pin_memory:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device "
                "pinned memory won't be used.",
                stacklevel=2,
            )
        indices = iter(self._index_sampler)
        workers = None
        if self.num_workers > 0:
            workers = getattr(self, "_persistent", None) if self.persistent_workers else None
            if workers is None:
                # torch draws the workers' base seed when it starts them (for persistent
                # workers once: later epochs reuse them)
                base_seed = int(empty((), dtype=_dtype.int64).random_(
                    generator=self.generator).item())
                workers = [_Worker(self, k, self.num_workers, base_seed)
                           for k in range(self.num_workers)]
                if self.persistent_workers:
                    self._persistent = workers
        else:
            # torch draws the base seed at every new iterator, whether or not workers run
            empty((), dtype=_dtype.int64).random_(generator=self.generator)
        if self._iterable:
            if workers is not None:
                return self._iterate_iterable_workers(indices, workers)
            return self._iterate_iterable(indices)
        if workers is not None:
            return self._iterate_map_workers(indices, workers)
        return self._iterate_map(indices)

    def _fetch_map(self, batch):
        dataset, collate = self.dataset, self.collate_fn
        if not self._auto_collation:
            return collate(dataset[batch])
        getitems = getattr(dataset, "__getitems__", None)
        if callable(getitems):
            return collate(getitems(batch))
        return collate([dataset[i] for i in batch])

    def _iterate_map_workers(self, indices, workers):
        """Batch j loaded by worker j % n, in its own random state (torch's round-robin)."""
        for j, batch in enumerate(indices):
            yield workers[j % len(workers)].run(lambda: self._fetch_map(batch))

    def _iterate_iterable_workers(self, indices, workers):
        """torch's main loop over iterable-dataset workers: tasks go round-robin to the
        workers still active (``prefetch_factor`` per worker outstanding), results come back
        in task order, and a worker whose iterator ends answers its next task with the end
        and takes no more (its later queued tasks are dropped)."""
        count = len(workers)
        for worker in workers:  # each worker makes its own iterator (a new one each epoch)
            worker.source = worker.run(lambda: iter(self.dataset))
        active = [True] * count
        cycle = itertools.cycle(range(count))
        tasks: deque = deque()
        done = [False] * count

        def put() -> None:
            for _ in range(count):
                k = next(cycle)
                if active[k]:
                    tasks.append(k)
                    return

        for _ in range(self.prefetch_factor * count):
            put()
        while tasks:
            k = tasks.popleft()
            if not active[k] or done[k]:
                continue
            batch = workers[k].run(lambda: self._fetch_iterable(workers[k].source))
            if batch is _END:
                done[k] = True
                active[k] = False
                put()
                continue
            put()
            yield batch

    def _fetch_iterable(self, source):
        collate = self.collate_fn
        if not self._auto_collation:
            for item in source:
                return collate(item)
            return _END
        batch = []
        for item in source:
            batch.append(item)
            if len(batch) == self.batch_size:
                break
        if not batch or (self.drop_last and len(batch) < self.batch_size):
            return _END
        return collate(batch)

    def _iterate_map(self, indices):
        for batch in indices:
            yield self._fetch_map(batch)

    def _iterate_iterable(self, indices):
        source = iter(self.dataset)
        for _ in indices:
            batch = self._fetch_iterable(source)
            if batch is _END:
                return
            yield batch
