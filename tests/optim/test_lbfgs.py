"""LBFGS against torch.optim.LBFGS: losses returned by step(closure), parameters, the state's
counters, with and without the strong-Wolfe line search, short histories, max_eval limits,
float64 and float32 (short runs: on this non-convex problem, rounding differences in float32
dot products grow over tens of iterations); state keys; errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _run(lib, dtype, steps=2, **options):
    rng = np.random.default_rng(0)
    kind = getattr(lib, dtype)
    x = lib.tensor(rng.normal(size=(20, 3)), dtype=kind)
    y = lib.tensor(rng.normal(size=(20, 1)), dtype=kind)
    w = lib.tensor(rng.normal(size=(3, 4)) * 0.5, dtype=kind, requires_grad=True)
    v = lib.tensor(rng.normal(size=(4, 1)) * 0.5, dtype=kind, requires_grad=True)
    optimizer = lib.optim.LBFGS([w, v], **options)

    def closure():
        optimizer.zero_grad()
        loss = (((x @ w).tanh() @ v - y) ** 2).mean()
        loss.backward()
        return loss

    losses = [float(optimizer.step(closure).detach()) for _ in range(steps)]
    state = optimizer.state[w]
    return (losses, w.detach().numpy(), v.detach().numpy(),
            (state["func_evals"], state["n_iter"], sorted(state)))


CASES = [{}, {"line_search_fn": "strong_wolfe"}, {"lr": 0.5, "history_size": 3, "max_iter": 7},
         {"line_search_fn": "strong_wolfe", "history_size": 2, "max_eval": 9},
         {"max_iter": 12, "tolerance_grad": 0.05}, {"tolerance_change": 1e-2}]


@pytest.mark.parametrize("options", CASES, ids=[str(c) for c in CASES])
def test_float64_matches_torch(options):
    ours, theirs = _run(leafgrad, "float64", **options), _run(torch, "float64", **options)
    assert ours[3] == theirs[3]
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("options", [{"max_iter": 5}, {"max_iter": 5, "line_search_fn":
                                                       "strong_wolfe"}])
def test_float32_short_runs_match_torch(options):
    ours, theirs = _run(leafgrad, "float32", **options), _run(torch, "float32", **options)
    assert ours[3] == theirs[3]
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_errors_match_torch():
    def run(lib):
        w = lib.ones(2, requires_grad=True)
        found = []
        for make in (lambda: lib.optim.LBFGS([w], lr=-1),
                     lambda: lib.optim.LBFGS([{"params": [w]}, {"params": [lib.ones(1)]}]),
                     lambda: lib.optim.LBFGS([w], line_search_fn="backtracking").step(
                         lambda: (w * w).sum())):
            try:
                optimizer = make()
                if isinstance(optimizer, lib.optim.Optimizer):
                    w.grad = lib.ones(2)
                    optimizer.step(lambda: (w * w).sum())
                found.append(None)
            except (ValueError, RuntimeError) as error:
                found.append((type(error).__name__, str(error)))
        found.append(repr(lib.optim.LBFGS([w])))
        return found

    assert run(leafgrad) == run(torch)
