"""Adafactor against torch.optim.Adafactor: 20 steps on matrix, vector and 3-d parameters give
the same parameters and state_dict; errors and repr."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch
from .test_adam import _error, _state_arrays, _train

torch = require_torch()

CASES = [{}, {"d": 1.5}, {"weight_decay": 0.1}, {"maximize": True}, {"beta2_decay": -0.5},
         {"eps": (1e-4, 1e-2)}, {"d": 2.0}, {"weight_decay": 0.3, "maximize": True}]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", CASES, ids=[str(o) for o in CASES])
def test_twenty_steps_match_torch(options, dtype):
    ours = _train(leafgrad, "Adafactor", options, dtype)
    theirs = _train(torch, "Adafactor", options, dtype)
    tol = dict(rtol=2e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)
    state, expected = ours[2].state_dict(), theirs[2].state_dict()
    assert state["param_groups"] == expected["param_groups"]
    arrays, expected_arrays = _state_arrays(state), _state_arrays(expected)
    assert list(arrays) == list(expected_arrays)
    for key in arrays:
        assert arrays[key].dtype == expected_arrays[key].dtype
        assert arrays[key].shape == expected_arrays[key].shape
        np.testing.assert_allclose(arrays[key], expected_arrays[key], **tol)


def test_three_dim_parameter():
    results = []
    for lib in (leafgrad, torch):
        lib.manual_seed(0)
        w = lib.nn.Parameter(lib.randn(2, 3, 4, dtype=lib.float64))
        optimizer = lib.optim.Adafactor([w], lr=0.5)  # rho = 1/sqrt(t) < lr after step 4
        for _ in range(10):
            optimizer.zero_grad()
            (w.sin() * lib.arange(24.0, dtype=lib.float64).reshape(2, 3, 4)).sum().backward()
            optimizer.step()
        results.append((w.detach().numpy(), optimizer.state[w]["row_var"].numpy(),
                        optimizer.state[w]["col_var"].numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_errors_and_repr_match_torch():
    def run(lib):
        w = lib.ones(2, requires_grad=True)
        o = lib.optim
        cases = [lambda: o.Adafactor([w], lr=-1), lambda: o.Adafactor([w], beta2_decay=0.5),
                 lambda: o.Adafactor([w], eps=(-1, 1e-3)), lambda: o.Adafactor([w], eps=(None, -1)),
                 lambda: o.Adafactor([w], d=0.5), lambda: o.Adafactor([w], weight_decay=-1),
                 lambda: o.Adafactor([w], lr=lib.tensor([0.1, 0.2]))]
        return [_error(case) for case in cases] + [repr(o.Adafactor([w]))]

    assert run(leafgrad) == run(torch)
