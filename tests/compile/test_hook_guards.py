"""Hooks registered after a capture (codegen.py, Note: hooks registered after the capture): a
replay never runs without them. Each kind (a tensor hook or a post-accumulate-grad hook on a
parameter or an input, a module's forward, forward-pre or full backward hook, a global module
hook) makes the call run as eager code runs it, hook included; removed, the replays resume."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from leafgrad.nn.modules import module as module_hooks


def _setup():
    leafgrad.manual_seed(0)
    model = leafgrad.nn.Sequential(leafgrad.nn.Linear(3, 4), leafgrad.nn.Tanh(),
                                   leafgrad.nn.Linear(4, 1))
    optimizer = leafgrad.optim.SGD(model.parameters(), lr=0.1)
    return model, optimizer


def _register(kind, model, x, calls):
    def record(value=None):
        calls.append(kind)
        return value

    if kind == "tensor hook":
        return model[0].weight.register_hook(lambda g: record(g * 0.5))
    if kind == "input tensor hook":
        return x.register_hook(lambda g: record(None))
    if kind == "post-accumulate hook":
        return model[2].bias.register_post_accumulate_grad_hook(lambda p: record(None))
    if kind == "forward hook":
        return model[0].register_forward_hook(lambda m, args, out: record(out * 2))
    if kind == "forward pre-hook":
        return model[2].register_forward_pre_hook(lambda m, args: record((args[0] + 1,)))
    if kind == "full backward hook":
        return model[2].register_full_backward_hook(lambda m, gi, go: record(None))
    if kind == "global forward hook":
        return module_hooks.register_module_forward_hook(lambda m, args, out: record(None))
    if kind == "global backward hook":
        return module_hooks.register_module_full_backward_hook(
            lambda m, gi, go: record(None))
    raise AssertionError(kind)


KINDS = ["tensor hook", "input tensor hook", "post-accumulate hook", "forward hook",
         "forward pre-hook", "full backward hook", "global forward hook",
         "global backward hook"]


def _run(kind, compiled):
    model, optimizer = _setup()
    x = leafgrad.linspace(-1, 1, 6).reshape(2, 3).requires_grad_()

    def step(x):
        optimizer.zero_grad()
        loss = model(x).pow(2).sum()
        loss.backward()
        optimizer.step()
        return loss

    run = leafgrad.compile(step) if compiled else step
    calls, losses = [], []
    for _ in range(3):  # captured, then replayed
        losses.append(run(x).item())
    handle = _register(kind, model, x, calls)
    try:
        for _ in range(3):
            losses.append(run(x).item())
    finally:
        handle.remove()
    replays = getattr(run, "replays", 0)
    for _ in range(2):
        losses.append(run(x).item())
    weights = [p.detach().numpy().copy() for p in model.parameters()]
    return losses, calls, weights, x.grad.numpy().copy(), getattr(run, "replays", 0) - replays


@pytest.mark.filterwarnings("ignore:leafgrad.compile")  # (the hooks' own side effects)
@pytest.mark.parametrize("kind", KINDS)
def test_a_hook_registered_after_the_capture_runs(kind):
    eager = _run(kind, False)
    compiled = _run(kind, True)
    assert compiled[0] == eager[0] and compiled[1] == eager[1] and eager[1]
    for mine, theirs in zip(compiled[2], eager[2]):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(compiled[3], eager[3])
    assert compiled[4] == 2  # removed: the first capture replays again
