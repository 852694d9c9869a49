"""autograd.trace(): the backward pass as events, in torch's execution order, replayable."""

from __future__ import annotations

import json
import threading

import pytest

import leafgrad as torch
from leafgrad.autograd import engine

from .._torch import require_torch


def _seeds(t):
    w = t.tensor([1.0], requires_grad=True)
    x = t.tensor([2.0], requires_grad=True)
    a = t.add(x, w)
    b = t.add(w, 1)
    return w, x, a, b, t.mul(a, b)


def _mlp(t):
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(), t.nn.Linear(4, 2))
    return model, (model(t.randn(5, 3)) ** 2).mean()


def _torch_order(loss) -> list:
    """The order torch's engine runs nodes in, seen by a pre-hook on every node."""
    seen, order, stack = set(), [], [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda grads, node=node: order.append(node.name()))
        stack.extend(child for child, _ in node.next_functions)
    loss.backward()
    return order


def _ran(t: "torch.autograd.trace") -> list:
    return [e["node"] for e in t.events if e["kind"] in ("node", "accumulate")
            and not e.get("retained")]


@pytest.mark.parametrize("program", ["seeds", "mlp"])
def test_events_follow_torchs_execution_order(program):
    real = require_torch()
    if program == "seeds":
        *_, loss = _seeds(torch)
        *_, their_loss = _seeds(real)
    else:
        _, loss = _mlp(torch)
        _, their_loss = _mlp(real)
    with torch.autograd.trace() as recorded:
        loss.backward()
    assert _ran(recorded) == _torch_order(their_loss)
    assert [e["step"] for e in recorded.events] == list(range(len(recorded.events)))
    assert json.loads(json.dumps(recorded.events)) == recorded.events


def test_seeds_events_carry_the_gradients():
    w, x, a, b, y = _seeds(torch)
    with torch.autograd.trace() as recorded:
        y.backward()
    kinds = [(e["kind"], e["node"]) for e in recorded.events]
    assert kinds == [("node", "MulBackward0"), ("free", "MulBackward0"),
                     ("node", "AddBackward0"), ("node", "AddBackward0"),
                     ("accumulate", "torch::autograd::AccumulateGrad"),
                     ("accumulate", "torch::autograd::AccumulateGrad")]
    mul = recorded.events[0]
    assert [g["values"] for g in mul["grad_outputs"]] == [[1.0]]
    assert [g["values"] for g in mul["grad_inputs"]] == [[2.0], [3.0]]  # b, a
    assert mul["edges"] == ["f1", "f4"] and mul["id"] == "f0"
    free = recorded.events[1]
    # in the order they were saved, torch's: inputs by name
    assert [s["name"] for s in free["saved"]] == ["other", "self"] and free["bytes"] == 8
    accumulated = {e["id"]: e for e in recorded.events if e["kind"] == "accumulate"}
    w_event = [e for e in accumulated.values() if e["after"]["values"] == [5.0]]
    assert len(w_event) == 1 and w_event[0]["before"] is None
    assert w_event[0]["after"]["repr"] == repr(w.grad)
    # a second backward accumulates: before/after show the sum
    y2 = (w * 2).sum()
    with torch.autograd.trace() as again:
        y2.backward()
    last = again.events[-1]
    assert last["before"]["values"] == [5.0] and last["after"]["values"] == [7.0]


def test_retain_graph_frees_nothing():
    *_, y = _seeds(torch)
    with torch.autograd.trace() as recorded:
        y.backward(retain_graph=True)
    assert not [e for e in recorded.events if e["kind"] == "free"]


def test_hook_events_and_retained_grads():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3
    h.retain_grad()
    h.register_hook(lambda grad: grad * 10)
    y = h.sum()
    handle = y.grad_fn.register_prehook(lambda grads: None)
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: None)
    with torch.autograd.trace() as recorded:
        y.backward()
    hooks = [e for e in recorded.events if e["kind"] == "hook"]
    assert [h["hook"]["kind"] for h in hooks] == ["prehook", "hook", "tensor hook"]
    tensor_hook = hooks[-1]
    assert tensor_hook["replaced"] and tensor_hook["returned"][0]["values"] == [10.0, 10.0]
    assert tensor_hook["grad"][0]["values"] == [1.0, 1.0]
    assert not hooks[0]["replaced"]
    retained = [e for e in recorded.events if e.get("retained")]
    assert len(retained) == 1 and retained[0]["after"]["values"] == [10.0, 10.0]
    assert w.grad.tolist() == [30.0, 30.0]
    handle.remove()


def test_observer_is_removed_after_the_block_even_on_error():
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(ZeroDivisionError):
        with torch.autograd.trace():
            assert engine._observer is not None
            1 / 0
    assert engine._observer is None
    y = x * 2
    with torch.autograd.trace() as outer:
        with torch.autograd.trace() as inner:
            y.backward(retain_graph=True)
        y.backward()
    assert len(inner.runs) == 1 and len(outer.runs) == 1
    assert engine._observer is None


def test_other_threads_are_not_recorded():
    x = torch.tensor([1.0], requires_grad=True)

    def work():
        (x * 3).sum().backward()

    with torch.autograd.trace() as recorded:
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    assert recorded.events == [] and x.grad.tolist() == [3.0]


def test_diff_same_and_different_runs():
    def run(size, use_sin):
        x = torch.ones(size, requires_grad=True)
        y = x.sin() if use_sin else x.cos()
        with torch.autograd.trace() as recorded:
            (y * 2).sum().backward()
        return recorded

    same = run(3, True).diff(run(3, True))
    assert not same and len(same) == 0 and "same ops" in str(same)
    shape = run(3, True).diff(run(4, True))
    assert shape and {d["what"] for d in shape} == {"shape"}
    assert "(3,)" in str(shape) and "(4,)" in str(shape)
    op = run(3, True).diff(run(3, False))
    assert [d["what"] for d in op] == ["op"]
    assert "SinBackward0 vs node CosBackward0" in str(op)


def test_page_and_view_of_a_trace(tmp_path):
    w, x, a, b, y = _seeds(torch)
    with torch.autograd.trace() as recorded:
        y.backward()
    view = recorded.view()
    data = view.to_dict()
    assert data["trace"]["events"] == recorded.events
    assert {n.get("name") for n in data["nodes"]} >= {"w", "x", "y"}
    path = recorded.save(tmp_path / "trace.html")
    with open(path, encoding="utf-8") as handle:
        assert "lg-replay" in handle.read()
    assert "backward run(s)" in repr(recorded)
    with pytest.raises(RuntimeError, match="recorded no backward"):
        torch.autograd.trace().view()


def test_keep_last_run_only():
    x = torch.tensor([1.0], requires_grad=True)
    with torch.autograd.trace(keep_last=True) as recorded:
        for scale in (2.0, 3.0):
            (x * scale).sum().backward()
    assert len(recorded.runs) == 1
    assert recorded.events[-1]["after"]["values"] == [5.0]
