"""Differences found by running the generated-program comparison (tests/differential) on seeds
33800 and up, each fixed and checked here against torch 2.13 as a class (not the one seed)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _graph(fn, depth=8):
    """A node's name and its inputs' graphs, in next_functions order (AccumulateGrad's name
    differs between the libraries, so leaves are 'leaf')."""
    if fn is None:
        return None
    name = "leaf" if type(fn).__name__ == "AccumulateGrad" else fn.name()
    if depth == 0:
        return name
    return (name, tuple(_graph(child, depth - 1) for child, _ in fn.next_functions))


def _observed(tensors):
    seen = []
    for t in tensors:
        if t is None:
            seen.append(None)
            continue
        data = t.detach().numpy()
        seen.append((str(t.dtype).split(".")[-1], data, _graph(t.grad_fn)))
    return seen


def _assert_same(expected, actual):
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        if e is None or a is None:
            assert e is a
            continue
        assert e[0] == a[0] and e[2] == a[2]
        np.testing.assert_allclose(a[1], e[1], rtol=1e-5, atol=1e-6)
        zeros = (a[1] == 0) & (e[1] == 0)
        assert np.array_equal(np.signbit(a[1])[zeros], np.signbit(e[1])[zeros])


# -- kl_div: the order of its two terms (seed 34198) -----------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("wants", [(True, True), (True, False), (False, True)])
def test_kl_div_gradients_add_up_in_torchs_order(dtype, reduction, log_target, wants):
    """ATen evaluates the right operand of `xlogy(t, t) - t * input` and `exp(t) * (t - input)`
    first; the engine then runs that node last, so the gradients meeting at the target add up
    in torch's order: the graph of a create_graph gradient shows it (AddBackward0's operands)."""
    runs = []
    for lib in (torch, leafgrad):
        dt = getattr(lib, dtype)
        x = lib.tensor([[0.1, 0.5, -0.3], [0.2, 0.1, 0.9]], dtype=dt, requires_grad=wants[0])
        y = lib.tensor([[0.3, -0.5, 0.2], [0.1, 0.4, -0.2]], dtype=dt, requires_grad=wants[1])
        target = y.log_softmax(-1) if log_target else y.softmax(-1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = lib.nn.functional.kl_div(x.log_softmax(-1), target, reduction=reduction,
                                            log_target=log_target)
        leaves = [t for t, w in zip((x, y), wants) if w]
        grads = lib.autograd.grad(loss.sum(), leaves, create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in grads), leaves, allow_unused=True)
        runs.append(_observed([loss, *grads, *second]))
    _assert_same(*runs)
