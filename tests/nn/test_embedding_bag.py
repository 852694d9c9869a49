"""F.embedding_bag and nn.EmbeddingBag against torch: every mode with offsets (empty bags,
include_last_offset), 2-d input, padding_idx, per-sample weights (their gradient too),
float32/float64; same seed -> same weights; reprs, state_dict keys, from_pretrained; torch's
errors with nothing modified. scale_grad_by_freq is checked against torch's nn.Embedding
semantics (see test_scale_grad_by_freq_is_embeddings)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

WEIGHT = np.random.default_rng(0).normal(size=(6, 3))
INPUTS = [([1, 2, 4, 5, 4, 3, 2, 0], [0, 2, 2, 5]), ([[1, 2, 0], [4, 4, 3]], None),
          ([0, 1, 1], [0, 3]), ([3, 3, 3, 3], [0])]


def _run(lib, dtype, indices, offsets, **options):
    weight = lib.tensor(WEIGHT, dtype=getattr(lib, dtype), requires_grad=True)
    samples = options.pop("samples", None)
    if samples is not None:
        samples = lib.tensor(samples, dtype=getattr(lib, dtype), requires_grad=True)
    out = lib.nn.functional.embedding_bag(
        lib.tensor(indices), weight, None if offsets is None else lib.tensor(offsets),
        per_sample_weights=samples, **options)
    grad = np.random.default_rng(1).normal(size=tuple(out.shape))
    out.backward(lib.tensor(grad, dtype=getattr(lib, dtype)))
    found = [out.detach().numpy(), weight.grad.numpy(), out.grad_fn.name()]
    return found + ([samples.grad.numpy()] if samples is not None else [])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_matches_torch(dtype, mode):
    rng = np.random.default_rng(2)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for indices, offsets in INPUTS:
        for padding_idx in (None, 4, 3, -3):
            for last in ([False, True] if offsets is not None else [False]):
                options = dict(mode=mode, padding_idx=padding_idx, include_last_offset=last)
                bounds = offsets + [len(indices)] if last else offsets
                choices = [None, rng.normal(size=np.shape(indices))] if mode == "sum" else [None]
                for samples in choices:
                    ours = _run(leafgrad, dtype, indices, bounds, samples=samples, **options)
                    theirs = _run(torch, dtype, indices, bounds, samples=samples, **options)
                    assert ours[2] == theirs[2]
                    for a, b in zip(ours[:2] + ours[3:], theirs[:2] + theirs[3:]):
                        assert a.shape == b.shape
                        np.testing.assert_allclose(a, b, rtol=tol, atol=tol,
                                                   err_msg=str(options))


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_scale_grad_by_freq_is_embeddings(mode):
    """Decision: each entry's gradient is divided by its index's count in the batch, as
    nn.Embedding does. torch 2.13's CPU embedding_bag divides by the count of another index
    (counts[indices_sorted[i]] for the i-th distinct index), which this test also shows."""
    indices, offsets = [1, 2, 4, 5, 4, 3, 2, 0], [0, 2, 2, 5]

    def reference(lib):
        weight = lib.tensor(WEIGHT, requires_grad=True)
        rows = lib.nn.functional.embedding(lib.tensor(indices), weight,
                                           scale_grad_by_freq=True)
        bags = [rows[start:end] for start, end in zip(offsets, offsets[1:] + [len(indices)])]
        reduce = (lambda b: b.sum(0)) if mode == "sum" else (lambda b: b.mean(0))
        out = lib.stack([reduce(b) if len(b) else lib.zeros(3) for b in bags])
        out.backward(lib.tensor(np.random.default_rng(1).normal(size=(4, 3))))
        return weight.grad.numpy()

    ours = _run(leafgrad, "float64", indices, offsets, mode=mode, scale_grad_by_freq=True)
    np.testing.assert_allclose(ours[1], reference(torch), rtol=1e-12)
    np.testing.assert_allclose(ours[1], reference(leafgrad), rtol=1e-12)
    theirs = _run(torch, "float64", indices, offsets, mode=mode, scale_grad_by_freq=True)
    assert not np.allclose(theirs[1], reference(torch))  # torch's own bag kernel differs
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)  # the values agree


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return None


BAD = [
    "F.embedding_bag(lib.tensor([1, 7]), w, lib.tensor([0]))",
    "F.embedding_bag(lib.tensor([1, -1]), w, lib.tensor([0]))",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([1]))",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 3]))",
    "F.embedding_bag(lib.tensor([1., 2]), w, lib.tensor([0, 1]))",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 1]), padding_idx=7)",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 1]), mode='sum', "
    "per_sample_weights=lib.ones(2, dtype=lib.float64))",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([], dtype=lib.int64), "
    "include_last_offset=True)",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 1]), mode='foo')",
    "F.embedding_bag(lib.tensor([[1, 2]]), w, lib.tensor([0, 1]))",
    "F.embedding_bag(lib.tensor([1, 2]), w)",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 1]), sparse=True, mode='max')",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 1]), mode='max', "
    "scale_grad_by_freq=True)",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 1]), per_sample_weights=lib.ones(3))",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 1]), per_sample_weights=lib.ones(2),"
    " mode='max')",
    "F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([[0, 1]]))",
    "F.embedding_bag(lib.tensor([1, 2]), w[0], lib.tensor([0, 1]))",
    "F.embedding_bag(lib.zeros(2, 2, 2, dtype=lib.int64), w)",
    "F.embedding_bag(lib.tensor([1, 7]), w, lib.tensor([0, 1]), max_norm=0.1)",
    "nn.EmbeddingBag(5, 2, padding_idx=5)", "nn.EmbeddingBag(5, 2, padding_idx=-6)",
    "nn.EmbeddingBag(5, 2, _weight=lib.zeros(4, 2))",
    "nn.EmbeddingBag.from_pretrained(lib.zeros(4))",
]


@pytest.mark.parametrize("code", BAD)
def test_errors_match_torch(code):
    def run(lib):
        w = lib.arange(10, dtype=lib.float32).reshape(5, 2)
        scope = {"lib": lib, "F": lib.nn.functional, "nn": lib.nn, "w": w}
        return _error(lambda: eval(code, scope)), w.numpy().copy()

    ours, theirs = run(leafgrad), run(torch)
    assert theirs[0] is not None
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], np.arange(10).reshape(5, 2))  # nothing modified


MODULES = ["EmbeddingBag(10, 3)", "EmbeddingBag(10, 3, mode='sum', padding_idx=2)",
           "EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.5, mode='max')",
           "EmbeddingBag(10, 3, scale_grad_by_freq=True, include_last_offset=True)",
           "EmbeddingBag(10, 3, padding_idx=-1, dtype=lib.float64)"]


@pytest.mark.parametrize("code", MODULES)
def test_module_matches_torch(code):
    def run(lib):
        lib.manual_seed(0)
        bag = eval("lib.nn." + code, {"lib": lib})
        start = bag.weight.detach().numpy().copy()
        offsets = [0, 2, 5] + ([7] if bag.include_last_offset else [])
        out = bag(lib.tensor([1, 2, 9, 9, 2, 0, 4]), lib.tensor(offsets))
        (out * out).sum().backward()
        return (repr(bag), list(bag.state_dict()), start, bag.weight.detach().numpy(),
                out.detach().numpy(), bag.weight.grad.numpy(), str(out.dtype).split(".")[-1])

    ours, theirs = run(leafgrad), run(torch)
    assert ours[0] == theirs[0] and ours[1] == theirs[1] and ours[6] == theirs[6]
    for a, b in zip(ours[2:6], theirs[2:6]):
        if "scale_grad_by_freq" in code and a is ours[5]:
            continue  # see test_scale_grad_by_freq_is_embeddings
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_from_pretrained_matches_torch():
    def run(lib):
        weights = lib.tensor(WEIGHT)
        frozen = lib.nn.EmbeddingBag.from_pretrained(weights, mode="max")
        trained = lib.nn.EmbeddingBag.from_pretrained(weights, freeze=False, padding_idx=1)
        out = trained(lib.tensor([[1, 2], [0, 1]]))
        return (repr(frozen), frozen.weight.requires_grad, trained.weight.requires_grad,
                frozen(lib.tensor([[1, 2], [0, 5]])).numpy(), out.detach().numpy())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12)
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-12)
