"""The worker side of the DataLoader: ``WorkerInfo``/``get_worker_info``, the seeds torch gives
a worker, and ``_Worker``, one of torch's worker processes as a context the calling process
switches into (see dataloader.py, Note: worker processes)."""

from __future__ import annotations

import copy
import random
import sys
import traceback
import types
from dataclasses import dataclass

import numpy as np

from ....tensor import Tensor
from .fetch import _create_fetcher
from .... import _rng

__all__ = ["WorkerInfo", "get_worker_info"]

_current_worker: list = [None]  # the WorkerInfo of the worker context being run, if any


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """torch's ``WorkerInfo``: id, num_workers, seed and (its own copy of the) dataset of the
    current worker; read-only, as torch's frozen dataclass."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str | None = "multiprocessing"


def get_worker_info():
    """Inside a worker's context (see Note: worker processes), its ``WorkerInfo``; None in the
    main process, as in torch."""
    return _current_worker[0]


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


class _WorkerError:
    """An exception raised in a worker, re-raised in the main process as torch's
    ``ExceptionWrapper`` does: same type, message ``Caught <type> in DataLoader worker process
    <id>.`` then ``Original Traceback ...``."""

    def __init__(self, worker_id: int):
        exc_type, error, trace = sys.exc_info()
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, error, trace))
        self.where = f"in DataLoader worker process {worker_id}"

    def reraise(self):
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            message = _KeyErrorMessage(message)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=message)
        try:
            exception = self.exc_type(message)
        except Exception:
            raise RuntimeError(message) from None
        raise exception


class _KeyErrorMessage(str):
    """A KeyError's message that is not quoted again by KeyError's str()."""

    __slots__ = ()

    def __repr__(self):
        return self


# Note: a worker's copy of the dataset. torch's worker gets its own copy of the dataset,
# worker_init_fn and collate_fn (a forked or unpickled process), so what a worker sets on its
# dataset (worker_init_fn sharding ``worker_info.dataset``, an iterator's counters) is seen by
# that worker only. leafgrad deep-copies the three together (a bound method of the dataset stays
# bound to the worker's copy) but shares tensors and NumPy arrays with the main process rather
# than copying them num_workers times (fork shares them copy-on-write). Locks, open files,
# sockets and multiprocessing's shared objects are shared too (they cannot be copied; a forked
# worker shares an open file's position and multiprocessing's objects with its parent, and the
# workers here run one at a time); anything else that cannot be deep-copied (a generator)
# leaves the workers with the originals.

_ATOMIC = (type(None), bool, int, float, complex, str, bytes, type, types.FunctionType,
           types.BuiltinFunctionType, types.ModuleType)
_SHARED_MODULES = ("_thread", "threading", "_io", "io", "socket", "multiprocessing",
                   "_multiprocessing", "queue", "_queue")


def _shared_arrays_memo(root) -> dict:
    """A deepcopy memo that maps every tensor, array and shared object (see Note: a worker's
    copy of the dataset) reachable from ``root`` to itself."""
    memo: dict = {}
    seen = set()
    pending = [root]
    while pending:
        obj = pending.pop()
        if isinstance(obj, _ATOMIC) or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (Tensor, np.ndarray)) or \
                type(obj).__module__.split(".")[0] in _SHARED_MODULES:
            memo[id(obj)] = obj
        elif isinstance(obj, dict):
            pending.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            pending.extend(obj)
        elif isinstance(obj, types.MethodType):
            pending.append(obj.__self__)
        else:
            attributes = getattr(obj, "__dict__", None)
            if isinstance(attributes, dict):
                pending.extend(attributes.values())
            for kind in type(obj).__mro__:
                for name in kind.__dict__.get("__slots__", ()):
                    if isinstance(name, str) and hasattr(obj, name):
                        pending.append(getattr(obj, name))
    return memo


def _worker_copy(objects: tuple) -> tuple:
    """``objects`` as a new worker process would see them (see Note: a worker's copy of the
    dataset)."""
    try:
        return copy.deepcopy(objects, _shared_arrays_memo(objects))
    except Exception:  # noqa: BLE001 - not copyable: the worker uses the originals
        return objects


def _random_states():
    return _rng.get_rng_state(), random.getstate(), np.random.get_state()


def _set_random_states(states) -> None:
    _rng.set_rng_state(states[0])
    random.setstate(states[1])
    np.random.set_state(states[2])


class _Worker:
    """One of torch's worker processes, as a context the calling process switches into: its
    own copy of the dataset, worker_init_fn and collate_fn, its own random states (seeded as
    torch seeds a worker), its fetcher, and the error of its start (worker_init_fn or
    ``iter(dataset)``) held for its first task, as torch's worker loop holds it."""

    def __init__(self, loader, worker_id: int, num_workers: int, base_seed: int):
        dataset, init_fn, collate_fn = _worker_copy(
            (loader.dataset, loader.worker_init_fn, loader.collate_fn))
        self.id = worker_id
        self.iterable = loader._iterable
        self.auto_collation = loader._auto_collation
        self.collate_fn = collate_fn
        self.drop_last = loader.drop_last
        seed = base_seed + worker_id
        self.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        self.fetcher = None
        self.init_error = None
        saved = _random_states()
        try:
            random.seed(seed)
            _rng.manual_seed(seed)
            np.random.seed(_generate_state(base_seed, worker_id))
            _current_worker[0] = self.info
            try:
                if init_fn is not None:
                    init_fn(worker_id)
                self.fetcher = self._new_fetcher()
            except Exception:  # noqa: BLE001 - re-raised at this worker's first task
                self.init_error = _WorkerError(worker_id)
            self.states = _random_states()
        finally:
            _current_worker[0] = None
            _set_random_states(saved)

    def _new_fetcher(self):
        return _create_fetcher(self.iterable, self.info.dataset, self.auto_collation,
                               self.collate_fn, self.drop_last)

    def _run(self, fn):
        saved = _random_states()
        _set_random_states(self.states)
        _current_worker[0] = self.info
        try:
            return fn()
        finally:
            _current_worker[0] = None
            self.states = _random_states()
            _set_random_states(saved)

    def resume(self) -> None:
        """A persistent worker's next epoch: a new fetcher (a new ``iter(dataset)``)."""
        def start():
            try:
                self.fetcher = self._new_fetcher()
            except Exception:  # noqa: BLE001 - torch's worker dies here; the next task reports
                self.fetcher = None
                self.init_error = _WorkerError(self.id)
        self._run(start)

    def fetch(self, index):
        """The result of one task: the data, ``_WorkerError``, or StopIteration (the class)
        when an iterable dataset is exhausted."""
        if self.init_error is not None:
            error, self.init_error = self.init_error, None
            return error

        def task():
            try:
                if self.fetcher is None:
                    raise UnboundLocalError("cannot access local variable 'fetcher' where it is "
                                            "not associated with a value")
                return self.fetcher.fetch(index)
            except StopIteration:
                if self.iterable:
                    return StopIteration
                return _WorkerError(self.id)
            except Exception:  # noqa: BLE001 - sent to the main process, as torch's worker does
                return _WorkerError(self.id)
        return self._run(task)
