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
``__iter__`` sees its own ``get_worker_info()``, so sharded datasets shard). Each worker has
its own copy of the dataset, worker_init_fn and collate_fn (see _utils/worker.py, Note: a
worker's copy of the dataset). An error in a worker is re-raised in the main process with
torch's "Caught <type> in DataLoader worker process <id>." message, and the iterator goes on
with the next batch, as torch's does. ``persistent_workers`` keeps the workers (their copies and
random states) from one epoch to the next. Not emulated: what a worker changes in the process
itself (``os.sched_setaffinity``, ``set_num_threads``, the environment) reaches the calling
process; ``timeout`` never fires; ``in_order=False`` yields in order (torch's order is then the
workers' timing); workers that wait for each other (a barrier) wait forever, as they run one at
a time; a batch that requires grad is not refused (torch cannot send it between processes).
"""

from __future__ import annotations

import itertools
import math
import multiprocessing as python_multiprocessing
import os
import warnings
from typing import Generic, TypeVar

from ... import _dtype
from ..._creation import empty
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import _create_fetcher
from ._utils.worker import WorkerInfo, _Worker, _WorkerError, get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "WorkerInfo", "get_worker_info"]


class _InfiniteConstantSampler(Sampler):
    """An iterable dataset's index sampler: None forever (the fetcher reads the iterator)."""

    def __iter__(self):
        while True:
            yield None


def _cpu_count() -> int | None:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


_T_co = TypeVar("_T_co", covariant=True)


class DataLoader(Generic[_T_co]):
    """Iterate over ``dataset`` in batches (sampling, shuffling and collation as torch's)."""

    __initialized = False

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
        self.__initialized = True
        self._IterableDataset_len_called = None  # see _BaseDataLoaderIter.__next__
        self._iterator = None  # persistent workers' iterator, reused by every epoch
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context) -> None:
        if multiprocessing_context is not None:
            if self.num_workers <= 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    f"(num_workers > 0), but got num_workers={self.num_workers}"
                )
            if isinstance(multiprocessing_context, str):
                valid_start_methods = python_multiprocessing.get_all_start_methods()
                if multiprocessing_context not in valid_start_methods:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start method "
                        f"in {valid_start_methods!r}, but got "
                        f"multiprocessing_context={multiprocessing_context!r}"
                    )
                multiprocessing_context = python_multiprocessing.get_context(
                    multiprocessing_context)
            if not isinstance(multiprocessing_context,
                              python_multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a "
                    "string specifying the start method, but got "
                    f"multiprocessing_context={multiprocessing_context}"
                )
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val) -> None:
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler",
                                           "drop_last", "dataset", "persistent_workers"):
            raise ValueError(
                f"{attr} attribute should not be set after {self.__class__.__name__} is "
                "initialized"
            )
        super().__setattr__(attr, val)

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else math.ceil(length / self.batch_size))
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """torch's warning when num_workers exceeds the CPUs this process may use."""
        if not self.num_workers:
            return
        suggested = _cpu_count()
        if suggested is not None and self.num_workers <= suggested:
            return
        if suggested is None:
            suggestion = ("DataLoader is not able to compute a suggested max number of worker "
                          "in current system.")
        else:
            cpuset = "" if hasattr(os, "sched_getaffinity") else \
                " (`cpuset` is not taken into account)"
            suggestion = (f"Our suggested max number of worker in current system is "
                          f"{suggested}{cpuset}, which is smaller than what this DataLoader is "
                          "going to create.")
        warnings.warn(
            f"This DataLoader will create {self.num_workers} worker processes in total. "
            f"{suggestion} Please be aware that excessive worker creation might get DataLoader "
            "running slow or even freeze, lower the worker number to avoid potential "
            "slowness/freeze if necessary.",
            stacklevel=2,
        )


class _BaseDataLoaderIter:
    """One pass over a DataLoader (torch's iterator object: ``next`` gives a batch, an error
    in a batch leaves the iterator usable for the next one, ``len`` is the sampler's)."""

    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                "pin_memory_device is deprecated, the current accelerator will be used as the "
                f"device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                stacklevel=3,
            )
        if loader.pin_memory:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device "
                "pinned memory won't be used.",
                stacklevel=3,
            )
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # torch draws the workers' base seed at every new iterator, whether or not workers run
        self._base_seed = int(empty((), dtype=_dtype.int64).random_(
            generator=loader.generator).item())
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (self._iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            message = (f"Length of IterableDataset {self._dataset} was reported to be "
                       f"{self._IterableDataset_len_called}(when accessing len(dataloader)), "
                       f"but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                message += ("For multiprocessing data-loading, this could be caused by not "
                            "properly configuring the IterableDataset replica at each worker. "
                            "Please see https://pytorch.org/docs/stable/data.html#torch.utils."
                            "data.IterableDataset for examples.")
            warnings.warn(message, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._dataset_fetcher = _create_fetcher(self._iterable, self._dataset,
                                                self._auto_collation, self._collate_fn,
                                                self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        return self._dataset_fetcher.fetch(index)  # may raise StopIteration


def _check_picklable(loader) -> None:
    """A spawned or forkserver worker gets its dataset, collate_fn and worker_init_fn
    pickled: what torch cannot pickle fails here with pickle's error, after torch's
    warning."""
    from multiprocessing.reduction import ForkingPickler
    from pickle import PicklingError

    try:
        ForkingPickler.dumps((loader.dataset, loader.collate_fn, loader.worker_init_fn))
    except (TypeError, AttributeError, PicklingError):
        warnings.warn(
            "Got pickle error when attempting to start a worker Process. This might be because "
            "the worker Process arguments are not picklable. Python 3.14+ changed the "
            "multiprocessing start method in non-Mac POSIX platforms to 'forkserver', which "
            "requires the worker Process arguments to be picklable. You can also try "
            "multiprocessing.set_start_method('fork').",
            stacklevel=4,
        )
        raise


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """torch's main loop over its worker processes, with the workers run in this process (see
    Note: worker processes): ``prefetch_factor`` tasks per worker are handed out round-robin to
    the workers still active, results come back in task order, and a worker whose iterable
    dataset ends answers its next task with the end and takes no more (later tasks queued to
    it are dropped)."""

    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        if self._prefetch_factor <= 0:
            raise AssertionError(
                "prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        context = loader.multiprocessing_context or python_multiprocessing.get_context()
        if context.get_start_method() != "fork":
            _check_picklable(loader)
        self._workers = [_Worker(loader, worker_id, self._num_workers, self._base_seed)
                         for worker_id in range(self._num_workers)]
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        if not first_iter:
            # a persistent worker finishes what it was sent, then starts a new pass
            for _, worker_id, index in self._queue:
                if not self._ended[worker_id]:
                    self._workers[worker_id].fetch(index)
            for worker in self._workers:
                worker.resume()
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info: dict = {}  # task -> worker id, of the tasks not yet returned
        self._results: dict = {}  # task -> (worker id, data), received out of order
        self._queue: list = []  # (task, worker id, index) sent but not yet run, in order
        self._ended = [False] * self._num_workers  # a worker's own view: its dataset ended
        self._workers_status = [True] * self._num_workers  # the main process's view
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next active worker, if any
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return
        self._queue.append((self._send_idx, worker_id, index))
        self._task_info[self._send_idx] = worker_id
        self._send_idx += 1

    def _receive(self):
        """The next result to arrive: the workers run their tasks in the order they were
        sent; a worker whose dataset ended ignores its later tasks."""
        while self._queue:
            task, worker_id, index = self._queue.pop(0)
            if self._ended[worker_id]:
                continue
            data = self._workers[worker_id].fetch(index)
            if data is StopIteration:
                self._ended[worker_id] = True
            return task, worker_id, data
        raise AssertionError("Invalid iterator state: no outstanding tasks when fetching data")

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                if self._rcvd_idx in self._results:
                    break
                worker_id = self._task_info.get(self._rcvd_idx)
                if worker_id is not None and self._workers_status[worker_id]:
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                raise StopIteration
            if self._rcvd_idx in self._results:
                worker_id, data = self._results.pop(self._rcvd_idx)
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(data)
            task, worker_id, data = self._receive()
            if data is StopIteration:
                self._workers_status[worker_id] = False
                self._try_put_index()
                continue
            if task != self._rcvd_idx:
                self._results[task] = (worker_id, data)
                continue
            del self._task_info[task]
            self._rcvd_idx += 1
            return self._process_data(data)

    def _process_data(self, data):
        self._try_put_index()
        if isinstance(data, _WorkerError):
            data.reraise()
        return data
