"""Muon against torch.optim.Muon: parameters, momentum buffers and state dicts bit for bit over
several steps (the Newton-Schulz iteration runs in bfloat16: Note: half-precision gemm), every
option, tall/wide/square/row/column matrices, two groups, a state dict round trip, a tensor lr,
errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch
from .test_adam import _error

torch = require_torch()

OPTIONS = [{}, {"nesterov": False}, {"adjust_lr_fn": "match_rms_adamw", "lr": 0.02},
           {"adjust_lr_fn": "original"}, {"weight_decay": 0.0, "momentum": 0.0},
           {"ns_steps": 2, "ns_coefficients": (2.0, -1.5, 0.5)}, {"eps": 1e-3, "momentum": 0.5}]
SHAPES = [(3, 5), (5, 3), (4, 4), (1, 6), (7, 1), (16, 32)]


def _run(lib, shapes, options, dtype="float32", steps=4, groups=False):
    lib.manual_seed(0)
    params = [lib.nn.Parameter(lib.randn(*shape, dtype=getattr(lib, dtype))) for shape in shapes]
    if groups:
        optimizer = lib.optim.Muon([{"params": params[:1]}, {"params": params[1:], "lr": 0.05}],
                                   **options)
    else:
        optimizer = lib.optim.Muon(params, **options)
    for step in range(steps):
        optimizer.zero_grad()
        loss = sum(((p * lib.arange(p.numel(), dtype=p.dtype).reshape(p.shape)).sin() ** 2).sum()
                   for p in params)
        loss.backward()
        if step == 2 and len(params) > 1:
            params[-1].grad = None  # skipped: no buffer update, no weight decay
        optimizer.step()
    return params, optimizer


def _bits(tensor):
    return tensor.detach().numpy().copy()


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_steps_match_torch_bitwise(options):
    ours, theirs = _run(leafgrad, SHAPES, options), _run(torch, SHAPES, options)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_array_equal(_bits(a), _bits(b))
    state, expected = ours[1].state_dict(), theirs[1].state_dict()
    assert state["param_groups"] == expected["param_groups"]
    assert list(state["state"]) == list(expected["state"])
    for key, value in expected["state"].items():
        assert list(state["state"][key]) == list(value)
        np.testing.assert_array_equal(_bits(state["state"][key]["momentum_buffer"]),
                                      _bits(value["momentum_buffer"]))


def test_float64_parameters_and_groups():
    ours = _run(leafgrad, [(6, 4), (3, 9)], {}, dtype="float64", groups=True)
    theirs = _run(torch, [(6, 4), (3, 9)], {}, dtype="float64", groups=True)
    for a, b in zip(ours[0], theirs[0]):
        assert a.dtype == leafgrad.float64
        np.testing.assert_array_equal(_bits(a), _bits(b))
    assert ours[1].state_dict()["param_groups"] == theirs[1].state_dict()["param_groups"]


def test_state_dict_round_trip_and_tensor_lr():
    def run(lib):
        params, optimizer = _run(lib, [(4, 6)], {"lr": lib.tensor(0.01)}, steps=2)
        saved = optimizer.state_dict()
        fresh = lib.optim.Muon(params, lr=lib.tensor(0.01))
        fresh.load_state_dict(saved)
        for _ in range(2):
            fresh.zero_grad()
            (params[0].cos() ** 2).sum().backward()
            fresh.step()
        return _bits(params[0]), _bits(fresh.state_dict()["state"][0]["momentum_buffer"])

    for a, b in zip(run(leafgrad), run(torch)):
        np.testing.assert_array_equal(a, b)


def test_closure_and_repr():
    def run(lib):
        w = lib.nn.Parameter(lib.ones(3, 2))
        optimizer = lib.optim.Muon([w], lr=0.1)

        def closure():
            optimizer.zero_grad()
            loss = (w * lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum()
            loss.backward()
            return loss

        loss = optimizer.step(closure)
        return float(loss), _bits(w), repr(optimizer)

    ours, theirs = run(leafgrad), run(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])
    assert ours[2] == theirs[2]


def test_errors_match_torch():
    def run(lib):
        w = lib.nn.Parameter(lib.ones(2, 3))
        out = [_error(make) for make in (
            lambda: lib.optim.Muon([lib.nn.Parameter(lib.ones(3))]),
            lambda: lib.optim.Muon([lib.nn.Parameter(lib.ones(2, 2, 2))]),
            lambda: lib.optim.Muon([w], lr=-1.0),
            lambda: lib.optim.Muon([w], momentum=-0.1),
            lambda: lib.optim.Muon([w], weight_decay=-0.1),
            lambda: lib.optim.Muon([w], adjust_lr_fn="other"),
            lambda: lib.optim.Muon([w], lr=lib.tensor([0.1, 0.2])),
            lambda: lib.optim.Muon([]),
        )]
        for options in ({"ns_steps": 100}, {"ns_coefficients": (1.0, 2.0)}):
            p = lib.nn.Parameter(lib.ones(2, 3))
            optimizer = lib.optim.Muon([p], **options)
            p.grad = lib.ones(2, 3)
            before = _bits(p)
            out.append(_error(optimizer.step))
            out.append(np.array_equal(before, _bits(p)))
        c = lib.nn.Parameter(lib.ones(2, 2, dtype=lib.complex64))
        optimizer = lib.optim.Muon([c])
        c.grad = lib.ones(2, 2, dtype=lib.complex64)
        out.append(_error(optimizer.step))
        return out

    assert run(leafgrad) == run(torch)
