"""Replays of one capture from several threads, and from inside themselves (api.py, Note: one
replay at a time): every result is the eager one."""

from __future__ import annotations

import sys
import threading

import leafgrad


def _chain(x):
    y = x
    for _ in range(40):
        y = y * 1.01 + 0.5
        y = y.tanh()
    return y.sum()


def test_threads_replaying_one_capture_get_their_own_results():
    compiled = leafgrad.compile(_chain)
    inputs = [leafgrad.full((64,), i / 10) for i in range(3)]
    want = [_chain(x).item() for x in inputs]
    compiled(inputs[0])
    compiled(inputs[0])
    wrong = []
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (switch threads as often as the interpreter can)
    try:
        def work(i):
            for _ in range(700):
                got = compiled(inputs[i]).item()
                if got != want[i]:
                    wrong.append((i, got))

        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not wrong, wrong[:3]
    assert len(compiled.captures) == 1 and compiled.replays == 2101


def test_a_replay_reached_from_inside_itself_runs_eagerly():
    model = leafgrad.nn.Linear(3, 1)
    optimizer = leafgrad.optim.SGD(model.parameters(), lr=0.1)
    calls = []

    def step(x):
        optimizer.zero_grad()
        loss = model(x).pow(2).sum()
        loss.backward()
        optimizer.step()
        return loss

    compiled = leafgrad.compile(step)
    x = leafgrad.ones(2, 3)
    compiled(x)
    compiled(x)  # (captured with .grad set)
    compiled(x)
    reference = leafgrad.nn.Linear(3, 1)
    reference.load_state_dict(model.state_dict())
    reference_optimizer = leafgrad.optim.SGD(reference.parameters(), lr=0.1)

    def inner(opt, args, kwargs):  # a step hook calling the compiled step again, once
        if not calls:
            calls.append(None)
            calls[0] = compiled(x).item()

    handle = optimizer.register_step_pre_hook(inner)
    try:
        replays = compiled.replays
        compiled(x)
    finally:
        handle.remove()
    assert compiled.replays == replays + 1 and compiled.eager_calls >= 1

    def eager_step():
        reference_optimizer.zero_grad()
        loss = reference(x).pow(2).sum()
        loss.backward()
        reference_optimizer.step()
        return loss

    # what the two nested steps did, eagerly: the outer step's forward and backward, the
    # inner step whole, then the outer step's update with the gradients it computed
    reference_optimizer.zero_grad()
    loss = reference(x).pow(2).sum()
    loss.backward()
    grads = [p.grad.clone() for p in reference.parameters()]
    inner_loss = eager_step().item()
    for p, g in zip(reference.parameters(), grads):
        p.grad = g
    reference_optimizer.step()
    assert calls == [inner_loss]
    for mine, theirs in zip(model.parameters(), reference.parameters()):
        assert leafgrad.equal(mine, theirs)
