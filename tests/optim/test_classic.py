"""Rprop, ASGD and SparseAdam against torch.optim: 20 steps (some with a parameter whose grad
is None) give the same parameters and state_dict; reprs; errors. SparseAdam refuses dense
gradients as torch does (its sparse steps: tests/test_sparse.py)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch
from .test_adam import _error, _state_arrays, _train

torch = require_torch()

CASES = [
    ("Rprop", {}), ("Rprop", {"etas": (0.3, 1.5), "step_sizes": (1e-4, 0.02)}),
    ("Rprop", {"maximize": True}),
    ("ASGD", {}), ("ASGD", {"lambd": 0.1, "alpha": 0.5, "t0": 5, "weight_decay": 0.1}),
    ("ASGD", {"t0": 0, "maximize": True}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls,options", CASES, ids=[f"{c}-{o}" for c, o in CASES])
def test_twenty_steps_match_torch(cls, options, dtype):
    ours, theirs = _train(leafgrad, cls, options, dtype), _train(torch, cls, options, dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)
    state, expected = ours[2].state_dict(), theirs[2].state_dict()
    assert state["param_groups"] == expected["param_groups"]
    arrays, expected_arrays = _state_arrays(state), _state_arrays(expected)
    assert list(arrays) == list(expected_arrays)
    for key in arrays:
        assert arrays[key].dtype == expected_arrays[key].dtype
        np.testing.assert_allclose(arrays[key], expected_arrays[key], **tol)


def test_sparse_adam_refuses_dense_gradients():
    def run(lib):
        w = lib.ones(2, requires_grad=True)
        optimizer = lib.optim.SparseAdam([w], lr=0.1)
        (w * 2).sum().backward()
        return repr(optimizer), _error(optimizer.step), w.detach().numpy().tolist()

    assert run(leafgrad) == run(torch)


def test_errors_and_reprs_match_torch():
    def run(lib):
        w = lib.ones(2, requires_grad=True)
        o = lib.optim
        cases = [lambda: o.Rprop([w], lr=-1), lambda: o.Rprop([w], etas=(1.5, 2.0)),
                 lambda: o.Rprop([w], etas=(0.5, 0.9)), lambda: o.ASGD([w], lr=-1),
                 lambda: o.ASGD([w], weight_decay=-1), lambda: o.SparseAdam([w], lr=0),
                 lambda: o.SparseAdam([w], eps=0), lambda: o.SparseAdam([w], betas=(1, 0.5)),
                 lambda: o.SparseAdam([w], betas=(0.5, -1))]
        return [_error(case) for case in cases] + [repr(o.Rprop([w])), repr(o.ASGD([w]))]

    assert run(leafgrad) == run(torch)
