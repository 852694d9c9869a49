"""Behaviours found by replaying PyTorch's own test_dataloader.py (datasets, samplers,
collation, DataLoader arguments, worker processes) as programs run under torch and leafgrad;
each program's observations (batches and their order, dtypes, errors' type and first line,
warnings) must be identical. torch's workers here are real forked processes; leafgrad's run in
this process (utils/data/dataloader.py, Note: worker processes)."""

from __future__ import annotations

import collections
import math
import multiprocessing
import re
import threading
import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _seen(value):
    """A comparable picture of ``value``: tensors by dtype, shape and values; containers by
    their type name and items."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), value.tolist())
    if isinstance(value, collections.abc.Mapping):
        return (type(value).__name__, {key: _seen(item) for key, item in value.items()})
    if isinstance(value, (list, tuple, collections.deque)):
        return (type(value).__name__, tuple(_seen(item) for item in value))
    if isinstance(value, (np.ndarray, np.generic)):
        return ("numpy", str(value.dtype), value.tolist())
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _text(message) -> str:
    first = str(message).split("\n")[0].replace("leafgrad", "torch")
    return re.sub(r"0x[0-9a-f]+", "0x", first)


def _outcome(fn):
    """(result picture or exception type and first message line, warnings' first lines)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", _seen(fn()))
        except Exception as error:  # noqa: BLE001 - the type is what is compared
            result = (type(error).__name__, _text(error))
    return result + (tuple((w.category.__name__, _text(w.message)) for w in caught),)


def _same(cases):
    """``cases``: (label, program(module)) pairs; each must give the same outcome in both."""
    bad = []
    for label, program in cases:
        expected = _outcome(lambda: program(torch))
        got = _outcome(lambda: program(leafgrad))
        if got != expected:
            bad.append(f"{label}: leafgrad {str(got)[:300]} != torch {str(expected)[:300]}")
    assert not bad, f"{len(bad)} of {len(cases)} differ:\n" + "\n".join(bad[:20])


def _tensor_dataset(m, n=5):
    return m.utils.data.TensorDataset(m.arange(2.0 * n).reshape(n, 2), m.arange(n))


def _counting(m, n, length=None):
    """An IterableDataset of 0..n-1 (with ``__len__`` giving ``length`` if one is given)."""
    body = {"__iter__": lambda self: iter(range(n))}
    if length is not None:
        body["__len__"] = lambda self: length
    return type("Counting", (m.utils.data.IterableDataset,), body)()


# --- datasets and samplers: StackDataset batches, abstract and generic base classes ------------

def test_dataset_and_sampler_classes():
    """StackDataset.__getitems__ (tuple and dict forms, nested __getitems__ and its size
    check); IterableDataset is abstract (no __iter__: TypeError at construction); Dataset,
    IterableDataset, Sampler and DataLoader are generic (``Dataset[int]``); Sampler takes no
    arguments; a Subset subclass overriding only __getitem__ is refused; the size checks are
    AssertionErrors raised as such; ``cummulative_sizes`` warns."""
    def batched(m, short=False):
        class Batched(m.utils.data.Dataset):
            data = m.arange(4.0)

            def __getitem__(self, index):
                return self.data[index]

            def __getitems__(self, indices):
                return self.data[indices][:-1] if short else self.data[indices]

            def __len__(self):
                return 4
        return Batched()

    def subset_subclass(m, getitems):
        body = {"__getitem__": lambda self, i: 7}
        if getitems:
            body["__getitems__"] = lambda self, indices: [7] * len(indices)
        kind = type("MySubset", (m.utils.data.Subset,), body)
        subset = kind([1, 2, 3], [0, 2])
        return [b.tolist() for b in m.utils.data.DataLoader(subset, batch_size=2)]

    cases = []
    for indices in ([0, 1, 2, 3], [3, 0], [], [0, 4]):
        cases.append((f"stack tuple {indices}", lambda m, i=indices: m.utils.data.StackDataset(
            batched(m), [1, 2, 3, 4]).__getitems__(i)))
        cases.append((f"stack dict {indices}", lambda m, i=indices: m.utils.data.StackDataset(
            t=batched(m), l=[1, 2, 3, 4]).__getitems__(i)))
        cases.append((f"stack short {indices}", lambda m, i=indices: m.utils.data.StackDataset(
            batched(m, short=True), [1, 2, 3, 4]).__getitems__(i)))
    cases += [
        ("stack loader", lambda m: list(m.utils.data.DataLoader(
            m.utils.data.StackDataset(a=batched(m), b=list(range(4))), batch_size=3))),
        ("IterableDataset()", lambda m: m.utils.data.IterableDataset()),
        ("no __iter__", lambda m: type("I", (m.utils.data.IterableDataset,), {})()),
        ("iterable + map", lambda m: list(_counting(m, 2) + m.utils.data.TensorDataset(
            m.zeros(1)))),
        ("generic", lambda m: [k[int].__name__ for k in (
            m.utils.data.Dataset, m.utils.data.IterableDataset, m.utils.data.Sampler,
            m.utils.data.DataLoader)]),
        ("Sampler([1])", lambda m: m.utils.data.Sampler([1])),
        ("Sampler()", lambda m: iter(m.utils.data.Sampler())),
        ("subset subclass", lambda m: subset_subclass(m, False)),
        ("subset subclass with __getitems__", lambda m: subset_subclass(m, True)),
        ("cummulative_sizes", lambda m: m.utils.data.ConcatDataset([[1], [2, 3]])
         .cummulative_sizes),
        ("TensorDataset mismatch", lambda m: m.utils.data.TensorDataset(m.zeros(3),
                                                                        m.zeros(4))),
        ("ConcatDataset([])", lambda m: m.utils.data.ConcatDataset([])),
        ("ConcatDataset(iterable)", lambda m: m.utils.data.ConcatDataset([_counting(m, 2)])),
        ("ChainDataset(map)", lambda m: list(m.utils.data.ChainDataset([[1, 2]]))),
        ("len(ChainDataset(map))", lambda m: len(m.utils.data.ChainDataset([[1, 2]]))),
    ]
    _same(cases)


# --- collation: torch's registry and its copies of mutable containers -------------------------

class _Tagged(dict):
    pass


class _Row(list):
    pass


_Point = collections.namedtuple("_Point", "x y")


def test_collate_registry_and_container_types():
    """default_collate is ``collate(batch, collate_fn_map=default_collate_fn_map)`` and both
    live in ``utils.data._utils.collate`` (with the per-type functions); a mutable mapping or
    sequence is ``copy.copy``'d and refilled (a defaultdict stays one, its default factory
    kept), other mappings and sequences are rebuilt by type or fall back to dict/list; numpy
    scalars of every kind go through ``as_tensor`` (datetime64 is refused by collate's
    message); in default_convert only numpy's own types are converted."""
    batches = {
        "defaultdict": lambda m: [collections.defaultdict(list, a=1),
                                  collections.defaultdict(list, a=2)],
        "custom dict": lambda m: [_Tagged(a=1, b=[1.0]), _Tagged(a=3, b=[2.0])],
        "custom list": lambda m: [_Row([1, 2]), _Row([3, 4])],
        "deque": lambda m: [collections.deque([1, 2]), collections.deque([3, 4])],
        "ranges": lambda m: [range(2), range(2)],
        "ordered": lambda m: [collections.OrderedDict(b=1, a=2)] * 2,
        "namedtuple": lambda m: [_Point(1, m.zeros(2)), _Point(2, m.ones(2))],
        "tuples": lambda m: [(1, "a", b"x"), (2, "b", b"y")],
        "numpy scalars": lambda m: [np.float16(1), np.float16(2)],
        "numpy bools": lambda m: [np.bool_(True), np.bool_(False)],
        "numpy datetime": lambda m: [np.datetime64("2020-01-01")] * 2,
        "numpy strings": lambda m: [np.array(["a"]), np.array(["b"])],
        "numpy str_": lambda m: [np.str_("a"), np.str_("b")],
        "numpy arrays": lambda m: [np.ones((2, 3)), np.zeros((2, 3))],
        "ragged": lambda m: [[1], [2, 3]],
        "objects": lambda m: [None, None],
    }
    cases = []
    for name, batch in batches.items():
        cases.append((f"collate {name}",
                      lambda m, b=batch: m.utils.data.default_collate(b(m))))
        cases.append((f"convert {name}",
                      lambda m, b=batch: m.utils.data.default_convert(b(m))))
        cases.append((f"convert {name}[0]",
                      lambda m, b=batch: m.utils.data.default_convert(b(m)[0])))
    cases.append(("defaultdict factory", lambda m: m.utils.data.default_collate(
        [collections.defaultdict(list, a=1)])["missing"]))

    def extended(m):
        module = m.utils.data._utils.collate
        names = sorted(k.__name__ if isinstance(k, type) else "numpy scalars"
                       for k in module.default_collate_fn_map)
        table = dict(module.default_collate_fn_map)
        table[str] = lambda batch, *, collate_fn_map: "".join(batch)
        return (names, module.collate([("a", 1), ("b", 2)], collate_fn_map=table),
                module.default_collate is m.utils.data.default_collate,
                module.collate([1, 2], collate_fn_map={int: module.collate_int_fn}))
    cases.append(("collate_fn_map", extended))
    _same(cases)


# --- DataLoader arguments: checks after construction, contexts, warnings, the iterator ---------

@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_dataloader_arguments_warnings_and_iterator():
    """Assigning batch_size/sampler/batch_sampler/drop_last/dataset/persistent_workers after
    construction is a ValueError; multiprocessing_context is checked (only with workers, a
    valid start method or context object) and kept as a context; more workers than usable
    CPUs warns at construction and at each new iterator; pin_memory (and pin_memory_device)
    warn at iter(); timeout without workers and prefetch_factor=0 are torch's
    AssertionErrors; iter(loader) is an iterator object with the sampler's len that refuses
    pickling; with the spawn or forkserver context an unpicklable dataset, collate_fn or
    worker_init_fn is pickle's error after torch's warning."""
    import pickle

    cases = []
    for attribute in ("batch_size", "sampler", "batch_sampler", "drop_last", "dataset",
                      "persistent_workers", "num_workers", "collate_fn", "generator"):
        cases.append((f"set {attribute}", lambda m, a=attribute: setattr(
            m.utils.data.DataLoader(_tensor_dataset(m)), a, {})))
    contexts = ("fork", "spawn", "forkserver", "bad", 3, multiprocessing.get_context("fork"))
    for context in contexts:
        for workers in (0, 1):
            cases.append((f"context {context} workers {workers}",
                          lambda m, c=context, w=workers: type(m.utils.data.DataLoader(
                              _tensor_dataset(m), num_workers=w,
                              multiprocessing_context=c).multiprocessing_context).__name__))
    usable = multiprocessing.cpu_count()
    for workers in (1, usable + 1):
        cases.append((f"{workers} workers", lambda m, w=workers: m.utils.data.DataLoader(
            _tensor_dataset(m), num_workers=w).num_workers))
    cases.append(("iterate with too many workers", lambda m: [b.tolist() for b in (
        m.utils.data.DataLoader(list(range(4)), batch_size=2, num_workers=usable + 1,
                                multiprocessing_context="fork"))]))
    for options in (dict(pin_memory=True), dict(pin_memory=True, pin_memory_device="cpu"),
                    dict(pin_memory_device="cpu"), dict(timeout=1),
                    dict(timeout=1, num_workers=1), dict(num_workers=1, prefetch_factor=3)):
        cases.append((f"iterate {options}", lambda m, o=options: [
            b[1].tolist() for b in m.utils.data.DataLoader(_tensor_dataset(m), batch_size=2,
                                                           **o)]))
        cases.append((f"first batch pinned {options}", lambda m, o=options: next(iter(
            m.utils.data.DataLoader(_tensor_dataset(m), **o)))[0].is_pinned()))
    for workers in (0, 1):
        def iterator(m, w=workers):
            it = iter(m.utils.data.DataLoader(_tensor_dataset(m), batch_size=2, num_workers=w))
            return type(it).__name__, len(it), iter(it) is it, next(it)[1].tolist(), len(it)
        cases.append((f"iterator object, {workers} workers", iterator))
        cases.append((f"pickle iterator, {workers} workers", lambda m, w=workers: pickle.dumps(
            iter(m.utils.data.DataLoader(_tensor_dataset(m), num_workers=w)))))
    # (torch's half-made iterator then fails in its __del__: an unraisable warning only)
    cases.append(("prefetch_factor=0", lambda m: iter(m.utils.data.DataLoader(
        _tensor_dataset(m), num_workers=1, prefetch_factor=0))))
    for context in ("spawn", "forkserver"):  # (each fails before starting a process)
        for what in ("dataset", "collate_fn", "worker_init_fn"):
            def unpicklable(m, c=context, what=what):
                class Local(m.utils.data.Dataset):
                    def __len__(self):
                        return 4

                    def __getitem__(self, index):
                        return index
                options = {"dataset": Local() if what == "dataset" else list(range(4))}
                if what == "collate_fn":
                    options["collate_fn"] = lambda batch: batch
                if what == "worker_init_fn":
                    options["worker_init_fn"] = lambda worker_id: None
                return list(m.utils.data.DataLoader(batch_size=2, num_workers=1,
                                                    multiprocessing_context=c, **options))
            cases.append((f"{context} with a local {what}", unpicklable))
    cases.append(("len(iter(iterable loader))", lambda m: len(iter(m.utils.data.DataLoader(
        _counting(m, 3))))))
    _same(cases)


def test_iterable_dataset_length_warning():
    """After len(loader) of an IterableDataset, each batch beyond the reported length warns
    (with the multiprocessing hint when workers run); before len() is asked, or within the
    length, nothing warns; a new iterator starts counting again."""
    def program(m, workers, length, batch_size, ask_len):
        loader = m.utils.data.DataLoader(_counting(m, 7, length), num_workers=workers,
                                         batch_size=batch_size)
        lengths = len(loader) if ask_len else None
        epochs = []
        for _ in range(2):
            epoch = []
            iterator = iter(loader)
            while True:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        batch = next(iterator)
                    except StopIteration:
                        break
                epoch.append((_seen(batch), [_text(w.message) for w in caught]))
            epochs.append(epoch)
        return lengths, epochs

    cases = []
    for workers in (0, 1):
        for length in (3, 20):
            for batch_size in (None, 2):
                for ask_len in (False, True):
                    cases.append((f"workers={workers} len={length} bs={batch_size} "
                                  f"len()={ask_len}",
                                  lambda m, a=(workers, length, batch_size, ask_len):
                                  program(m, *a)))
    _same(cases)


# --- errors in batches: torch's worker message, and the iterator goes on ----------------------

def test_errors_in_batches_and_worker_messages():
    """An error raised while loading a batch leaves the iterator usable (the next batch comes
    next, StopIteration after the last); from a worker it is re-raised as the same type with
    torch's "Caught <type> in DataLoader worker process <id>." first line (a KeyError's
    message is not quoted); an error in worker_init_fn comes at the worker's first batch and
    its later batches fail on the unset fetcher, as torch's worker loop does; without workers
    an IterableDataset's __iter__ fails at iter(loader)."""
    def every_batch(m, workers, error, shuffle):
        class Failing(m.utils.data.Dataset):
            def __len__(self):
                return 7

            def __getitem__(self, index):
                if index % 3 == 1:
                    raise error(f"bad {index}")
                return index

        iterator = iter(m.utils.data.DataLoader(Failing(), batch_size=2, shuffle=shuffle,
                                                num_workers=workers,
                                                generator=m.Generator().manual_seed(1)))
        seen = []
        while True:
            try:
                seen.append(next(iterator).tolist())
            except StopIteration:
                return seen
            except Exception as raised:  # noqa: BLE001 - compared
                seen.append((type(raised).__name__, _text(raised)))

    def failing_init(m, workers):
        def init(worker_id):
            raise RuntimeError(f"Error in worker_init_fn {worker_id}")
        iterator = iter(m.utils.data.DataLoader(list(range(5)), num_workers=workers,
                                                worker_init_fn=init))
        seen = []
        while True:  # (each worker's later tasks fail as torch's worker loop does)
            try:
                seen.append(next(iterator).tolist())
            except StopIteration:
                return seen
            except Exception as raised:  # noqa: BLE001 - compared
                seen.append((type(raised).__name__, _text(raised)))

    def failing_iter(m, workers, step):
        class Broken(m.utils.data.IterableDataset):
            def __iter__(self):
                raise RuntimeError("Error in __iter__")
        iterator = iter(m.utils.data.DataLoader(Broken(), num_workers=workers))
        return "iter() returned" if step == "iter" else next(iterator)

    cases = []
    # (each torch iterator with workers forks them: the sweep over workers stays small)
    for workers, error, shuffle in ((0, NotImplementedError, False), (0, KeyError, True),
                                    (0, IndexError, False), (1, KeyError, False),
                                    (2, NotImplementedError, True), (2, ValueError, False)):
        cases.append((f"{error.__name__} workers={workers} shuffle={shuffle}",
                      lambda m, a=(workers, error, shuffle): every_batch(m, *a)))
    for workers in (0, 2):
        cases.append((f"worker_init_fn error, workers={workers}",
                      lambda m, w=workers: failing_init(m, w)))
    # (with workers, torch's iterator over a failing __iter__ never ends, and shutting its
    # workers down takes seconds: only the main-process form is compared here)
    for step in ("iter", "next"):
        cases.append((f"__iter__ error at {step}", lambda m, s=step: failing_iter(m, 0, s)))
    _same(cases)


# --- each worker's own copy of the dataset ----------------------------------------------------

def test_each_worker_has_its_own_copy_of_the_dataset():
    """A worker's dataset, worker_init_fn and collate_fn are its own copies: worker_init_fn
    setting state on the dataset (a bound method of it, or through get_worker_info().dataset,
    torch's documented way to shard an IterableDataset) is seen by that worker only and never
    by the main process; an iterator that counts on the dataset counts per worker, a cache or a
    generator on it is per worker (a lock on it does not stop the copy); persistent workers
    keep their copies across epochs (later changes in the main process unseen)."""
    def worker_ids(m, workers, batch_size):
        class Tagged(m.utils.data.Dataset):
            def __init__(self):
                self.data = list(range(12))
                self.worker_id = None

            def worker_init_fn(self, worker_id):
                self.worker_id = worker_id

            def __getitem__(self, index):
                return self.worker_id, self.data[index]

            def __len__(self):
                return len(self.data)

        dataset = Tagged()
        loader = m.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=workers,
                                         worker_init_fn=dataset.worker_init_fn)
        return [(ids.tolist(), values.tolist()) for ids, values in loader], dataset.worker_id

    def sharded(m, workers):
        class Range(m.utils.data.IterableDataset):
            def __init__(self, start, end):
                self.start, self.end = start, end

            def __iter__(self):
                return iter(range(self.start, self.end))

        def init(worker_id):
            info = m.utils.data.get_worker_info()
            dataset = info.dataset
            per_worker = int(math.ceil((dataset.end - dataset.start) / info.num_workers))
            dataset.start = dataset.start + worker_id * per_worker
            dataset.end = min(dataset.start + per_worker, dataset.end)

        dataset = Range(3, 10)
        batches = [b.tolist() for b in m.utils.data.DataLoader(dataset, num_workers=workers,
                                                                worker_init_fn=init)]
        return batches, dataset.start, dataset.end

    def counting_iterator(m, workers):
        class Countdown(m.utils.data.IterableDataset):
            def __init__(self):
                self.remaining = 3

            def __iter__(self):
                return self

            def __next__(self):
                self.remaining -= 1
                if self.remaining < 0:
                    raise StopIteration
                return m.tensor(self.remaining)

        dataset = Countdown()
        return [b.tolist() for b in m.utils.data.DataLoader(dataset, num_workers=workers)], \
            dataset.remaining

    def persistent(m, workers):
        class Offset(m.utils.data.Dataset):
            offset = 0

            def __len__(self):
                return 6

            def __getitem__(self, index):
                return index + self.offset

        dataset = Offset()
        loader = m.utils.data.DataLoader(dataset, num_workers=workers, batch_size=2,
                                         persistent_workers=True)
        epochs = []
        for epoch in range(3):
            epochs.append([b.tolist() for b in loader])
            dataset.offset = 10 * (epoch + 1)
        return epochs

    def stateful(m, kind):
        class Stateful(m.utils.data.Dataset):
            def __init__(self):
                self.lock = threading.Lock()  # (shared: it cannot be copied)
                self.generator = m.Generator().manual_seed(4)
                self.cache = {}

            def __len__(self):
                return 6

            def __getitem__(self, index):
                with self.lock:
                    self.cache[index] = True
                    if kind == "generator":
                        return m.rand(1, generator=self.generator).item()
                    return len(self.cache)

        dataset = Stateful()
        batches = [b.tolist() for b in m.utils.data.DataLoader(dataset, batch_size=2,
                                                                num_workers=2)]
        return batches, len(dataset.cache), m.rand(1, generator=dataset.generator).item()

    cases = [
        ("a dataset's cache, lock and generator", lambda m: stateful(m, "cache")),
        ("a dataset's own generator", lambda m: stateful(m, "generator")),
        ("worker ids, 1 worker", lambda m: worker_ids(m, 1, 3)),
        ("worker ids, 2 workers", lambda m: worker_ids(m, 2, 2)),
        ("sharded in worker_init_fn, 2 workers", lambda m: sharded(m, 2)),
        ("counting iterator, 2 workers", lambda m: counting_iterator(m, 2)),
        ("persistent, 2 workers", lambda m: persistent(m, 2)),
    ]
    _same(cases)


def test_generator_type_name_in_argument_errors():
    """A Generator in a wrong place is named ``torch._C.Generator`` in the argument errors (as
    random_split with a float length meets in randperm)."""
    _same([
        ("random_split float length", lambda m: m.utils.data.random_split(
            range(6), [3, 3.0], generator=m.Generator().manual_seed(1))),
        ("randperm(float)", lambda m: m.randperm(3.0, generator=m.Generator())),
        ("add(Generator)", lambda m: m.add(m.Generator(), 1)),
        ("zeros(Generator)", lambda m: m.zeros(m.Generator())),
    ])


# --- SummaryWriter: the summaries test_tensorboard.py writes ----------------------------------

def _tensorboard_events(directory) -> dict:
    """{run directory (a time-stamped one as "<time>"): [serialized summary events, wall time
    zeroed]} for every event file under ``directory``."""
    import os

    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    runs = {}
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if name.startswith("events.out.tfevents"):
                events = []
                for event in EventFileLoader(os.path.join(root, name)).Load():
                    if event.HasField("summary"):
                        event.wall_time = 0
                        events.append(event.SerializeToString())
                run = os.path.relpath(root, directory)
                runs["<time>" if re.fullmatch(r"[\d.]+", run) else run] = events
    return runs


def test_summary_writer_media_layouts_and_tensors():
    """bfloat16 values go through float16 (torch's make_np); add_image_with_boxes (red boxes,
    labels drawn, labels of another count dropped), add_custom_scalars and its multiline and
    margin forms (a margin needs 3 tags), add_audio (clipped beyond [-1, 1]), add_video (without
    moviepy: torch's note and an empty image), add_mesh, add_tensor of every dtype, and the
    ``summary`` module's functions write torch's events byte for byte (wall times aside)."""
    import contextlib
    import io
    import os
    import tempfile

    if os.environ.get("CI"):
        import tensorboard  # noqa: F401 - CI installs the extra; its absence must fail
    else:
        pytest.importorskip("tensorboard")
    import leafgrad.utils.tensorboard  # noqa: F401
    import torch.utils.tensorboard  # noqa: F401

    at = dict(walltime=100.0)

    def run(m, program):
        printed = io.StringIO()
        with tempfile.TemporaryDirectory() as directory, contextlib.redirect_stdout(printed):
            with m.utils.tensorboard.SummaryWriter(directory) as writer:
                result = _outcome(lambda: program(m, writer))
            return result, _tensorboard_events(directory), printed.getvalue()

    programs = []
    for dtype in ("bfloat16", "float16", "float32"):
        programs += [
            (f"scalar {dtype}", lambda m, w, d=dtype: w.add_scalar(
                "s", m.tensor(0.1, dtype=getattr(m, d)), 1, new_style=True, **at)),
            (f"histogram {dtype}", lambda m, w, d=dtype: w.add_histogram(
                "h", m.arange(5.0, dtype=getattr(m, d)), 1, **at)),
            (f"image {dtype}", lambda m, w, d=dtype: w.add_image(
                "i", m.ones(3, 2, 2, dtype=getattr(m, d)) * 0.5, 1, **at))]
    for labels in (None, ["cat"], "cat", ["cat", "dog"]):
        programs.append((f"boxes labels={labels}", lambda m, w, l=labels: w.add_image_with_boxes(
            "b", m.zeros(3, 32, 32), m.tensor([[1, 1, 20, 20]]), 1, labels=l, **at)))
    programs += [
        ("boxes numpy", lambda m, w: w.add_image_with_boxes(
            "b", np.zeros((3, 64, 64)), np.array([[10, 10, 40, 40], [40, 40, 60, 60]]), 1,
            **at)),
        ("custom scalars", lambda m, w: w.add_custom_scalars(
            {"A": {"x": ["Multiline", ["a", "b"]], "y": ["Margin", ["a", "b", "c"]]},
             "B": {}})),
        ("custom margin of 2", lambda m, w: w.add_custom_scalars(
            {"A": {"y": ["Margin", ["a", "b"]]}})),
        ("multiline chart", lambda m, w: w.add_custom_scalars_multilinechart(
            ["a", "b"], category="c", title="t")),
        ("margin chart", lambda m, w: w.add_custom_scalars_marginchart(["a", "b", "c"])),
        ("margin chart of 2", lambda m, w: w.add_custom_scalars_marginchart(["a", "b"])),
        ("video", lambda m, w: w.add_video("v", m.zeros(3, 2, 3, 4, 4), 1, **at)),
        ("video of 4 dims", lambda m, w: w.add_video("v", m.zeros(2, 3, 4, 4), 1, **at)),
        ("mesh", lambda m, w: w.add_mesh(
            "m", m.rand(2, 4, 3, generator=m.Generator().manual_seed(0)),
            colors=m.randint(0, 255, (2, 4, 3), generator=m.Generator().manual_seed(1)),
            faces=m.tensor([[[0, 1, 2], [1, 2, 3]]] * 2), config_dict={"camera": {"fov": 75}},
            global_step=1, **at)),
        ("mesh numpy", lambda m, w: w.add_mesh("m", np.ones((1, 3, 3)), global_step=2, **at)),
        ("mesh of 2 dims", lambda m, w: w.add_mesh("m", np.ones((3, 3)), global_step=2, **at)),
    ]
    for sound in ("linspace(-1, 1, 50)", "linspace(-3, 3, 50)", "zeros(1, 40)",
                  "zeros(2, 40)", "zeros(10, dtype=m.int64)"):
        programs.append((f"audio {sound}", lambda m, w, s=sound: w.add_audio(
            "a", eval(f"m.{s}"), 1, sample_rate=8000, **at)))  # noqa: S307
    for dtype in ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16",
                  "int32", "int64", "complex64", "complex128", "bool", "uint16"):
        programs.append((f"tensor {dtype}", lambda m, w, d=dtype: w.add_tensor(
            "t", m.tensor([[0.1, -2.5, 0.0], [1.0, 2.0, 3.0]]).to(getattr(m, d)), 1, **at)))
    programs.append(("tensor 0-d", lambda m, w: w.add_tensor("t", m.tensor(1.5), 1, **at)))

    def module(m, w):
        summary = m.utils.tensorboard.summary
        made = [summary.histogram("h", np.arange(5.0), "tensorflow"),
                summary.image("i", np.arange(64.0).reshape(1, 8, 8) / 64, dataformats="CHW"),
                summary.image_boxes("b", np.zeros((3, 16, 16)), np.array([[1, 1, 9, 9]])),
                summary.scalar("s", 1.5), summary.text("t", "**x**")]
        return ([p.SerializeToString() for p in made], summary._calc_scale_factor(
            np.zeros(2, np.uint8)), [summary.int_to_half(i) for i in (0, 1065353216)],
            m.utils.tensorboard._convert_np.make_np(m.tensor([1.0], dtype=m.bfloat16)).dtype)
    programs.append(("summary module", module))

    bad = []
    for label, program in programs:
        expected, got = run(torch, program), run(leafgrad, program)
        if got != expected:
            bad.append(f"{label}: leafgrad {str(got)[:300]} != torch {str(expected)[:300]}")
    assert not bad, f"{len(bad)} of {len(programs)} differ:\n" + "\n".join(bad[:20])
