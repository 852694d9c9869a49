"""utils.data against torch.utils.data: batch sequences for the same seed (shuffle, explicit
generators, samplers, drop_last, no auto-batching), the random state after iterating,
random_split, collate of every supported type, IterableDataset, lengths and errors."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _plain(value):
    """Batches as comparable Python data (tensors -> (dtype name, nested lists))."""
    if hasattr(value, "tolist") and hasattr(value, "dtype") and not isinstance(value, np.ndarray):
        return (str(value.dtype).split(".")[-1], value.tolist())
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_plain(v) for v in value]
    return value


LOADERS = [
    dict(batch_size=3), dict(batch_size=3, shuffle=True), dict(batch_size=4, drop_last=True),
    dict(batch_size=4, shuffle=True, drop_last=True), dict(batch_size=3, shuffle=True, gen=5),
    dict(batch_size=None), dict(batch_size=None, shuffle=True), dict(batch_size=20),
    dict(batch_size=3, sampler="random_replacement"), dict(batch_size=2, sampler="subset"),
    dict(batch_sampler="batches"), dict(batch_size=3, shuffle=True, gen=1, collate="list"),
]


def _loader(lib, options):
    options = dict(options)
    lib.manual_seed(0)
    ds = lib.utils.data.TensorDataset(lib.arange(20.0).reshape(10, 2), lib.arange(10))
    generator = options.pop("gen", None)
    if generator is not None:
        options["generator"] = lib.Generator().manual_seed(generator)
    sampler = options.pop("sampler", None)
    if sampler == "random_replacement":
        options["sampler"] = lib.utils.data.RandomSampler(ds, replacement=True, num_samples=7)
    elif sampler == "subset":
        options["sampler"] = lib.utils.data.SubsetRandomSampler([1, 3, 5, 7, 9])
    if options.pop("batch_sampler", None):
        options["batch_sampler"] = lib.utils.data.BatchSampler(
            lib.utils.data.SequentialSampler(ds), 4, drop_last=False)
    if options.pop("collate", None):
        options["collate_fn"] = lambda batch: [b[1].item() for b in batch]
    return lib.utils.data.DataLoader(ds, **options)


@pytest.mark.parametrize("options", LOADERS, ids=str)
def test_batches_and_random_state_match_torch(options):
    def run(lib):
        loader = _loader(lib, options)
        epochs = [[_plain(batch) for batch in loader] for _ in range(2)]
        return epochs, len(loader), lib.rand(2).tolist()

    assert run(leafgrad) == run(torch)


def test_random_split_matches_torch():
    def run(lib):
        lib.manual_seed(1)
        out = [list(p.indices) for p in lib.utils.data.random_split(range(10), [0.3, 0.7])]
        out += [list(p.indices) for p in lib.utils.data.random_split(
            range(7), [2, 5], generator=lib.Generator().manual_seed(3))]
        out += [len(p) for p in lib.utils.data.random_split(range(11), [0.5, 0.25, 0.25])]
        return out

    assert run(leafgrad) == run(torch)


Point = collections.namedtuple("Point", "x y")

SAMPLES = [
    [1, 2, 3], [1.5, 2.5], [True, False], ["a", "b"],
    [np.array([1.0, 2.0]), np.array([3.0, 4.0])], [np.float32(1.5), np.float32(2.0)],
    [np.int64(3), np.int64(4)], [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
    [Point(1, 2.0), Point(3, 4.0)], [(1, "x"), (2, "y")], [[1, 2], [3, 4]],
    [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
]


@pytest.mark.parametrize("batch", SAMPLES, ids=range(len(SAMPLES)))
def test_default_collate_matches_torch(batch):
    ours = leafgrad.utils.data.default_collate(batch)
    theirs = torch.utils.data.default_collate(batch)
    assert _plain(ours) == _plain(theirs)


def test_default_collate_of_tensors_and_convert():
    def run(lib):
        batch = [lib.tensor([1, 2]), lib.tensor([3, 4])]
        return (_plain(lib.utils.data.default_collate(batch)),
                _plain(lib.utils.data.default_convert({"a": np.array([1.0]), "b": (1, 2)})))

    assert run(leafgrad) == run(torch)


class _Counter:
    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __iter__(self):
        return iter(self.lib.tensor([i]) for i in range(self.n))


def test_iterable_dataset_batches_and_len():
    def run(lib):
        class Stream(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(7))

            def __len__(self):
                return 7

        out = []
        for options in (dict(batch_size=3), dict(batch_size=3, drop_last=True),
                        dict(batch_size=None)):
            loader = lib.utils.data.DataLoader(Stream(), **options)
            out.append(([_plain(b) for b in loader], len(loader)))
        chained = Stream() + Stream()
        out.append((type(chained).__name__, len(list(chained))))
        return out

    assert run(leafgrad) == run(torch)


def test_dataset_combinations():
    def run(lib):
        data = lib.utils.data
        a = data.TensorDataset(lib.arange(3))
        b = data.TensorDataset(lib.arange(3, 5))
        concat = a + b
        out = [len(concat), _plain(concat[3]), _plain(concat[-1]), concat.cumulative_sizes]
        subset = data.Subset(concat, [4, 0, 2])
        out.append([_plain(subset[i]) for i in range(len(subset))])
        stack = data.StackDataset(a, b=None) if False else data.StackDataset(x=a, y=a)
        out.append(_plain(stack[1]))
        return out

    assert run(leafgrad) == run(torch)


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return None


BAD = [
    "data.TensorDataset(lib.zeros(3), lib.zeros(4))",
    "data.DataLoader(ds, batch_size=None, drop_last=True)",
    "data.DataLoader(ds, sampler=data.SequentialSampler(ds), shuffle=True)",
    "data.DataLoader(ds, batch_sampler=data.BatchSampler(range(4), 2, False), batch_size=2)",
    "data.DataLoader(ds, num_workers=-1)", "data.DataLoader(ds, timeout=-1)",
    "data.DataLoader(ds, prefetch_factor=2)", "data.DataLoader(ds, persistent_workers=True)",
    "data.BatchSampler(range(3), 0, False)", "data.BatchSampler(range(3), 2, 1)",
    "data.RandomSampler(ds, num_samples=0)", "data.RandomSampler(ds, replacement=1)",
    "data.random_split(range(5), [2, 2])", "data.random_split(range(5), [1.2, -0.2])",
    "data.ConcatDataset([])", "data.default_collate([lib.zeros(3), lib.zeros(2)])",
    "data.default_collate([[1, 2], [3]])", "data.default_collate([object(), object()])",
    "data.default_collate([np.array(['a']), np.array(['b'])])",
    "(data.TensorDataset(lib.arange(3)) + data.TensorDataset(lib.arange(2)))[-6]",
    "list(data.DataLoader(data.TensorDataset(lib.zeros(4, 2)), batch_size=2))[5]",
]


@pytest.mark.parametrize("code", BAD)
def test_errors_match_torch(code):
    def run(lib):
        ds = lib.utils.data.TensorDataset(lib.zeros(4, 2))
        return _error(lambda: eval(code, {"lib": lib, "data": lib.utils.data, "ds": ds,  # noqa: S307
                                          "np": np}))

    assert run(leafgrad) == run(torch)


def test_workers_give_the_same_batches_in_the_same_order():
    def run(lib, workers):
        lib.manual_seed(3)
        ds = lib.utils.data.TensorDataset(lib.arange(12))
        loader = lib.utils.data.DataLoader(ds, batch_size=5, shuffle=True,
                                           num_workers=workers)
        return [b[0].tolist() for b in loader], lib.utils.data.get_worker_info()

    assert run(leafgrad, 2) == run(torch, 0) == run(leafgrad, 0)
