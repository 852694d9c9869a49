"""Every optimizer's update is torch's bit for bit: the same gradients (random arrays, so only
the optimizer's arithmetic is compared) give the same parameters and state after each step.
torch's kernels fuse multiply-adds (lerp_, addcmul_, add with alpha) and divide
``value * tensor1`` by ``tensor2`` in addcdiv_; a last-bit difference in one step makes every
later loss of a training run differ (20 Adam steps on a 128x784 weight: 0.5% of entries)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [
    ("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    ("Adam", {}), ("Adam", {"amsgrad": True}), ("Adam", {"weight_decay": 0.1}),
    ("Adam", {"betas": (0.3, 0.4), "eps": 1e-3}), ("Adam", {"maximize": True}),
    ("AdamW", {}), ("AdamW", {"amsgrad": True, "weight_decay": 0.5}),
    ("RMSprop", {}), ("RMSprop", {"centered": True}), ("RMSprop", {"momentum": 0.9}),
    ("RMSprop", {"centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    ("Adagrad", {}), ("Adagrad", {"lr_decay": 0.1, "weight_decay": 0.2}),
    ("Adadelta", {}), ("Adadelta", {"rho": 0.5, "weight_decay": 0.1}),
    ("Adamax", {}), ("Adamax", {"betas": (0.5, 0.9), "weight_decay": 0.1}),
    ("NAdam", {}), ("NAdam", {"weight_decay": 0.1}),
    ("NAdam", {"decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("RAdam", {}), ("RAdam", {"weight_decay": 0.1}),
    ("RAdam", {"decoupled_weight_decay": True, "weight_decay": 0.3}),
    ("Rprop", {}), ("ASGD", {}), ("ASGD", {"t0": 0, "weight_decay": 0.1}),
]
SHAPES = [(), (7,), (33,), (64, 50)]  # 0-d, shorter than a vector, a vector and a tail, many


def _run(lib, cls, options, dtype, steps):
    rng = np.random.default_rng(0)
    params = [lib.tensor(rng.standard_normal(shape), dtype=getattr(lib, dtype),
                         requires_grad=True) for shape in SHAPES]
    kwargs = {"lr": 1e-2, **options}
    optimizer = getattr(lib.optim, cls)(params, **kwargs)
    history = []
    for step in range(steps):
        for p in params:
            scale = 10.0 ** rng.uniform(-4, 0)
            p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)) * scale,
                                dtype=getattr(lib, dtype))
        optimizer.step()
        history.append([p.detach().numpy().copy() for p in params])
    state = {(i, k): v.numpy() if hasattr(v, "numpy") else v
             for i, s in optimizer.state_dict()["state"].items() for k, v in s.items()}
    return history, state


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls,options", CASES, ids=[f"{c}-{o}" for c, o in CASES])
def test_each_step_matches_torch_bit_for_bit(cls, options, dtype):
    ours, our_state = _run(leafgrad, cls, options, dtype, steps=6)
    theirs, their_state = _run(torch, cls, options, dtype, steps=6)
    for step, (mine, expected) in enumerate(zip(ours, theirs)):
        for shape, a, b in zip(SHAPES, mine, expected):
            assert a.dtype == b.dtype and a.shape == b.shape
            same = a == b
            assert same.all(), (f"step {step}, shape {shape}: {int((~same).sum())} of {a.size} "
                                f"entries differ, e.g. {a[~same][:3]} vs {b[~same][:3]}")
    assert list(our_state) == list(their_state)
    for key, value in our_state.items():
        np.testing.assert_array_equal(value, their_state[key], err_msg=str(key))
