"""optim.SGD against torch.optim.SGD: same parameters after several steps, every option."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

OPTIONS = [
    {}, {"momentum": 0.9}, {"momentum": 0.9, "nesterov": True}, {"momentum": 0.5, "dampening": 0.3},
    {"weight_decay": 0.1}, {"momentum": 0.9, "weight_decay": 0.01, "maximize": True},
]


def _train(lib, options):
    w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    b = lib.tensor([0.1, -0.2], requires_grad=True)
    optimizer = lib.optim.SGD([w, b], lr=0.05, **options)
    x = lib.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]])
    for _ in range(5):
        optimizer.zero_grad()
        loss = ((x @ w + b).tanh() ** 2).sum()
        loss.backward()
        optimizer.step()
    return w.detach().numpy().copy(), b.detach().numpy().copy(), loss.item()


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_sgd_matches_torch(options):
    ours, theirs = _train(leafgrad, options), _train(torch, options)
    for mine, expected in zip(ours, theirs):
        np.testing.assert_allclose(mine, expected, rtol=1e-5, atol=1e-6)


def test_zero_grad_modes_and_errors_match_torch():
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        optimizer = lib.optim.SGD([w], lr=0.1)
        (w * w).sum().backward()
        optimizer.zero_grad(set_to_none=False)
        kept = w.grad.tolist()
        optimizer.zero_grad()
        errors = []
        for bad in (lambda: lib.optim.SGD([w], lr=-1.0), lambda: lib.optim.SGD([], lr=0.1),
                    lambda: lib.optim.SGD([w], lr=0.1, nesterov=True)):
            try:
                bad()
            except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
                errors.append((type(error).__name__, str(error).splitlines()[0]))
        return kept, w.grad, errors

    assert run(leafgrad) == run(torch)
