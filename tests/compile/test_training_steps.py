"""Real training-step code under leafgrad.compile: compiled == eager (bitwise) over several steps
with changing batches, and eager leafgrad == torch (close) for the same program.

Modules with buffers (BatchNorm running statistics), dropout under per-step seeds, every
optimizer, learning-rate schedulers stepped inside or outside the compiled step, gradient
clipping, gradient accumulation, weight averages updated in place, a learning rate read from
a Python object that changes between steps, train/eval switches inside the step.
"""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

STEPS = 6


def _mlp(T):
    nn = T.nn
    T.manual_seed(0)
    # (no bias before the BatchNorm: its gradient is zero up to rounding, which an adaptive
    # optimizer scales up to the learning rate, differently in every library)
    return nn.Sequential(nn.Linear(4, 8, bias=False), nn.BatchNorm1d(8), nn.ReLU(),
                         nn.Dropout(0.3), nn.Linear(8, 2))


def _conv(T):
    nn = T.nn
    T.manual_seed(0)
    return nn.Sequential(nn.Unflatten(1, (1, 2, 2)), nn.Conv2d(1, 3, 2, padding=1, bias=False),
                         nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Dropout(0.2),
                         nn.Linear(27, 2))


SCHEDULERS = {
    None: None,
    "StepLR": lambda T, opt: T.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5),
    "CosineAnnealingLR": lambda T, opt: T.optim.lr_scheduler.CosineAnnealingLR(opt, 10),
    "LambdaLR": lambda T, opt: T.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1)),
    "OneCycleLR": lambda T, opt: T.optim.lr_scheduler.OneCycleLR(opt, 0.5, total_steps=20),
}


def _program(T, *, model=_mlp, optimizer="SGD", scheduler=None, inside=False, clip=None,
             accumulate=False, ema=False, manual_lr=False, eval_inside=False):
    """``(step, model, optimizer, scheduler, env)`` for one side of the comparison."""
    nn = T.nn
    m = model(T)
    if manual_lr:
        opt = None
    elif optimizer == "SGD":
        opt = T.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
    else:
        opt = getattr(T.optim, optimizer)(m.parameters(), lr=0.01)
    sched = SCHEDULERS[scheduler](T, opt) if scheduler else None
    env = types.SimpleNamespace(lr=0.05, average=[p.detach().clone() for p in m.parameters()])

    def step(x, y):
        if opt is not None:
            opt.zero_grad()
        else:
            m.zero_grad()
        parts = (slice(0, 3), slice(3, 5)) if accumulate else (slice(None),)
        for part in parts:
            loss = nn.functional.cross_entropy(m(x[part]), y[part]) / len(parts)
            loss.backward()
        if clip == "norm":
            nn.utils.clip_grad_norm_(m.parameters(), 0.5)
        elif clip == "value":
            nn.utils.clip_grad_value_(m.parameters(), 0.01)
        if opt is not None:
            opt.step()
        else:
            with T.no_grad():
                for p in m.parameters():
                    p.sub_(env.lr * p.grad)
        if inside and sched is not None:
            sched.step()
        if ema:
            with T.no_grad():
                for a, p in zip(env.average, m.parameters()):
                    a.mul_(0.9).add_(p, alpha=0.1)
        if eval_inside:
            m.eval()
            with T.no_grad():
                loss = loss + nn.functional.cross_entropy(m(x), y)
            m.train()
        return loss

    return step, m, opt, sched, env


def _batch(T, step: int):
    rng = np.random.default_rng(step)
    return (T.tensor(rng.standard_normal((5, 4)).astype(np.float32)),
            T.tensor(rng.integers(0, 2, 5)))


def _snapshot(m, opt, env):
    state = [v.detach().numpy().copy() for v in m.state_dict().values()]
    state += [a.numpy().copy() for a in env.average]
    lrs = [g["lr"] for g in opt.param_groups] if opt is not None else [env.lr]
    return state, lrs


def _compare(options, *, torch_too=True, change_lr=False):
    sides = {"compiled": _program(leafgrad, **options), "eager": _program(leafgrad, **options)}
    torch = require_torch() if torch_too else None
    if torch_too:
        sides["torch"] = _program(torch, **options)
    compiled = leafgrad.compile(sides["compiled"][0])
    for step in range(STEPS):
        got = {}
        for name, (fn, m, opt, sched, env) in sides.items():
            T = torch if name == "torch" else leafgrad
            if change_lr:
                env.lr = 0.05 / (1 + step // 2)
            T.manual_seed(100 + step)  # dropout: the same masks on every side
            x, y = _batch(T, step)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch's scheduler-order notes
                loss = (compiled if name == "compiled" else fn)(x, y)
                if sched is not None and not options.get("inside"):
                    sched.step()
            got[name] = (loss.detach().numpy().copy(),) + _snapshot(m, opt, env)
        for a, b in zip(got["compiled"][1], got["eager"][1]):
            np.testing.assert_array_equal(a, b, err_msg=f"step {step}: compiled vs eager")
        np.testing.assert_array_equal(got["compiled"][0], got["eager"][0])
        assert got["compiled"][2] == got["eager"][2], step
        if torch_too and options.get("model", _mlp) is _mlp:
            # dropout masks: leafgrad draws torch's stream, so the programs agree closely
            for a, b in zip(got["eager"][1], got["torch"][1]):
                np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5,
                                           err_msg=f"step {step}: eager vs torch")
            np.testing.assert_allclose(got["eager"][2], got["torch"][2], rtol=1e-12)
    return compiled


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax",
                                       "NAdam", "RAdam", "Adadelta", "ASGD", "Rprop"])
def test_optimizers(optimizer):
    compiled = _compare({"optimizer": optimizer, "clip": "value"})
    assert compiled.replays == STEPS - 1


@pytest.mark.parametrize("inside", [False, True])
@pytest.mark.parametrize("scheduler", ["StepLR", "CosineAnnealingLR", "LambdaLR",
                                       "OneCycleLR"])
def test_schedulers(scheduler, inside):
    """A scheduler stepped inside the compiled step is replayed as a call on the live
    scheduler (its epoch and the groups' lr advance on every replay)."""
    compiled = _compare({"optimizer": "Adam" if scheduler == "OneCycleLR" else "SGD",
                         "scheduler": scheduler, "inside": inside})
    assert compiled.replays == STEPS - 1


@pytest.mark.parametrize("options", [
    {"clip": "norm"}, {"accumulate": True}, {"ema": True}, {"eval_inside": True},
    {"model": _conv, "optimizer": "Adam", "accumulate": True},
], ids=["clip-norm", "accumulate", "ema", "eval-inside", "conv-bn-dropout"])
def test_step_variants(options):
    compiled = _compare(options)
    assert compiled.replays == STEPS - 1


def test_learning_rate_read_from_a_changing_object():
    """``p.sub_(env.lr * p.grad)``: lr is guarded; a new value is a new capture (an old value
    again reuses its capture)."""
    compiled = _compare({"manual_lr": True}, change_lr=True)
    assert [b for entry in compiled.captures for b in entry.breaks] == []
    # .grad unset, then set (2 captures) for lr 0.05; one more per new lr
    assert len(compiled.captures) == 4


def test_a_scheduler_made_in_the_call_breaks():
    def step(x):
        opt = leafgrad.optim.SGD([leafgrad.ones(1, requires_grad=True)], lr=0.1)
        sched = leafgrad.optim.lr_scheduler.StepLR(opt, 1)
        sched.step()
        return x * 2

    compiled = leafgrad.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in range(3):
            compiled(leafgrad.ones(2))
    assert compiled.replays == 0
    assert "made in the call" in compiled.captures[0].breaks[0].reason
