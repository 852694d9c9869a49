"""optim.Adam/AdamW and the Optimizer base against torch.optim: 20 steps give the same
parameters and state; state_dict structure and round trips; param groups; errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [
    ("Adam", {}), ("Adam", {"amsgrad": True}), ("Adam", {"weight_decay": 0.1}),
    ("Adam", {"maximize": True, "betas": (0.8, 0.99)}), ("Adam", {"eps": 1e-3}),
    ("Adam", {"decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("AdamW", {}), ("AdamW", {"amsgrad": True, "weight_decay": 0.5}),
    ("AdamW", {"maximize": True}),
]


def _problem(lib, dtype):
    rng = np.random.default_rng(0)
    w = lib.tensor(rng.normal(size=(3, 4)), dtype=getattr(lib, dtype), requires_grad=True)
    b = lib.tensor(rng.normal(size=(4,)), dtype=getattr(lib, dtype), requires_grad=True)
    x = lib.tensor(rng.normal(size=(5, 3)), dtype=getattr(lib, dtype))
    return w, b, x


def _train(lib, cls, options, dtype, steps=20, optimizer=None, params=None):
    w, b, x = params if params is not None else _problem(lib, dtype)
    if optimizer is None:
        optimizer = getattr(lib.optim, cls)([w, b], lr=0.01, **options)
    for i in range(steps):
        optimizer.zero_grad()
        ((x @ w + b).tanh() ** 2).sum().backward()
        if i % 7 == 3:
            b.grad = None  # a parameter without a gradient is skipped (its state unchanged)
        optimizer.step()
    return w, b, optimizer


def _state_arrays(state_dict):
    return {(k, name): value.numpy() for k, s in state_dict["state"].items()
            for name, value in s.items()}


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


def test_state_dict_round_trip_continues_identically():
    def run(lib):
        w, b, optimizer = _train(lib, "Adam", {"amsgrad": True}, "float64", steps=5)
        saved = optimizer.state_dict()
        params = _problem(lib, "float64")
        with lib.no_grad():
            params[0].copy_(w)
            params[1].copy_(b)
        fresh = lib.optim.Adam(params[:2], lr=0.5, amsgrad=True)
        fresh.load_state_dict(saved)
        lr = fresh.param_groups[0]["lr"]
        _train(lib, None, None, "float64", steps=5, optimizer=fresh, params=params)
        return params[0].detach().numpy(), lr

    ours, theirs = run(leafgrad), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    assert ours[1] == theirs[1] == 0.01


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0]
    return None


def test_param_groups_and_errors_match_torch():
    def run(lib):
        w = lib.ones(2, requires_grad=True)
        v = lib.ones(3, requires_grad=True)
        out = []
        optimizer = lib.optim.Adam([{"params": [w]}, {"params": v, "lr": 0.5}], lr=0.1)
        out.append([(g["lr"], len(g["params"])) for g in optimizer.param_groups])
        out.append(_error(lambda: optimizer.add_param_group({"params": [w]})))
        groups_before = len(optimizer.param_groups)
        out.append(_error(lambda: optimizer.add_param_group({"lr": 1.0})))
        out.append(_error(lambda: optimizer.add_param_group({"params": {w}})))
        out.append(len(optimizer.param_groups) == groups_before)
        for bad in (lambda: lib.optim.Adam([w], lr=-1), lambda: lib.optim.Adam([w], eps=-1),
                    lambda: lib.optim.Adam([w], betas=(1.0, 0.9)),
                    lambda: lib.optim.Adam([w], betas=(0.9, -0.1)),
                    lambda: lib.optim.Adam([w], weight_decay=-1),
                    lambda: lib.optim.Adam([w], betas=(0.9, 1)),
                    lambda: lib.optim.Adam(w), lambda: lib.optim.Adam([]),
                    lambda: lib.optim.Adam([w * 2]), lambda: lib.optim.AdamW([1.0]),
                    lambda: optimizer.load_state_dict({"state": {}, "param_groups": []}),
                    lambda: optimizer.load_state_dict({"state": {}, "param_groups": [
                        {"params": [0, 1]}, {"params": [2]}]})):
            out.append(_error(bad))
        out.append(repr(lib.optim.AdamW([w], lr=0.5)))
        return out

    assert run(leafgrad) == run(torch)


def test_step_hooks_closure_and_zero_grad():
    def run(lib):
        log = []
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        optimizer = lib.optim.Adam([w], lr=0.1)
        handle = optimizer.register_step_pre_hook(lambda opt, args, kwargs: log.append("pre"))
        optimizer.register_step_post_hook(lambda opt, args, kwargs: log.append("post"))

        def closure():
            optimizer.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            log.append("closure")
            return loss

        loss = optimizer.step(closure)
        handle.remove()
        optimizer.step(closure)
        optimizer.zero_grad(set_to_none=False)
        return log, float(loss), w.tolist(), w.grad.tolist(), w._version

    assert run(leafgrad) == run(torch)
