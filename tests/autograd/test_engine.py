"""The engine: deep graphs, memory release, execution order, hooks and accumulation."""

from __future__ import annotations

import gc
import sys
import threading
import weakref

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch


def test_million_op_chain_backpropagates_and_frees_its_nodes():
    x = leafgrad.tensor([1.5], requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y * 1.0
    first_node = weakref.ref(y.grad_fn)
    deepest = y.grad_fn
    for _ in range(10):
        deepest = deepest.next_functions[0][0]
    deepest_ref = weakref.ref(deepest)
    del deepest
    y.backward(leafgrad.ones(1))
    assert x.grad.tolist() == [1.0]
    del y
    # No cycles are involved, so reference counting alone frees the whole chain.
    assert first_node() is None
    assert deepest_ref() is None


def test_backward_releases_saved_tensors_but_not_the_graph_until_dropped():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    hidden = x.exp()  # saved by Mul below (for x's grad)
    y = (hidden * x).sum()
    hidden_ref = weakref.ref(hidden)
    del hidden
    assert hidden_ref() is not None  # kept alive by the saved tensor in MulBackward0
    y.backward()
    assert hidden_ref() is None  # released as soon as the node ran
    node_ref = weakref.ref(y.grad_fn)
    del y
    assert node_ref() is None


def test_retain_graph_keeps_saved_tensors():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    expected = 2 * (np.exp([1.0, 2.0]) * (1 + np.array([1.0, 2.0])))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


def test_first_grad_is_stolen_only_when_nothing_else_holds_it():
    # Calibrates _STEAL_REFS: a fresh engine-made grad is kept, anything shared is copied.
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    w = leafgrad.tensor([3.0, 4.0], requires_grad=True)
    ((x + w) * 2).sum().backward()  # AddBackward0 passes the same grad to both leaves
    assert x.grad is not w.grad
    x.grad.add_(1)
    assert w.grad.tolist() == [2.0, 2.0]

    z = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    gradient = leafgrad.tensor([1.0, 1.0])
    z.backward(gradient)  # a user's tensor is never adopted as .grad
    assert z.grad is not gradient
    gradient.add_(5)
    assert z.grad.tolist() == [1.0, 1.0]

    s = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    s.sum().backward()  # the grad is an expanded (read-only, zero-stride) view: copied
    s.grad.add_(1)
    assert s.grad.tolist() == [2.0, 2.0]


def _steal_spy(monkeypatch) -> list:
    module = sys.modules["leafgrad.tensor"]
    original = module._can_steal
    seen = []

    def spy(grad):
        result = original(grad)
        seen.append((tuple(grad.shape), result))
        return result

    monkeypatch.setattr(module, "_can_steal", spy)
    monkeypatch.setattr(module, "_STEAL_REFS", module._STEAL_REFS + 1)  # the spy's frame
    return seen


def test_linear_grads_made_as_views_of_private_arrays_are_kept_not_copied(monkeypatch):
    # nn.Linear's weight grad is the transposed product (Note: gradient layout) and its bias
    # grad a reshaped sum: views whose memory nothing else holds. They are kept, as torch keeps
    # them, and stored as ordinary (non-view) tensors with torch's values.
    torch = require_torch()
    seen = _steal_spy(monkeypatch)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    mine = leafgrad.nn.Linear(4, 3)
    ref = torch.nn.Linear(4, 3)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(mine.weight.detach().numpy()))
        ref.bias.copy_(torch.tensor(mine.bias.detach().numpy()))
    for _ in range(2):  # the second backward adds into the kept grads
        (mine(leafgrad.tensor(x)) ** 2).sum().backward()
        (ref(torch.tensor(x)) ** 2).sum().backward()
    assert seen == [((3,), True), ((3, 4), True)]
    for p, q in ((mine.weight, ref.weight), (mine.bias, ref.bias)):
        assert p.grad._is_view() is q.grad._is_view() is False
        assert p.grad.is_contiguous()
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5)


def test_a_grad_viewing_memory_held_elsewhere_is_copied(monkeypatch):
    # A custom backward returning a view of a tensor someone else holds: .grad gets a copy,
    # so updating .grad in place leaves that tensor alone.
    seen = _steal_spy(monkeypatch)
    held = leafgrad.tensor([[1.0, 2.0], [3.0, 4.0]])

    class Reshaped(leafgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return held.view(4)

    x = leafgrad.zeros(4, requires_grad=True)
    Reshaped.apply(x).backward()
    x.grad.add_(10)
    assert held.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert x.grad.tolist() == [11.0, 12.0, 13.0, 14.0]
    assert seen == [((4,), False)]


def test_stealing_happens_for_fresh_grads():
    sys_module = sys.modules["leafgrad.tensor"]
    seen = []
    original = sys_module._can_steal

    def spy(grad):
        result = original(grad)
        seen.append(result)
        return result

    sys_module._can_steal = spy
    sys_module._STEAL_REFS += 1  # the spy's own frame holds one more reference
    try:
        x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
    finally:
        sys_module._can_steal = original
        sys_module._STEAL_REFS -= 1
    assert seen == [True]


def test_gradients_are_summed_in_place_only_into_private_buffers():
    engine = sys.modules["leafgrad.autograd.engine"]
    seen = []
    original = engine._sum_in_place

    def spy(previous, grad):
        result = original(previous, grad)
        seen.append(result)
        return result

    engine._sum_in_place = spy
    engine._PRIVATE_REFS += 1  # the spy's own frame holds one more reference
    try:
        x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
        (x * 3 + x * 4).sum().backward()  # two fresh products arrive at x's accumulator
        assert seen == [True] and x.grad.tolist() == [7.0, 7.0]
        seen.clear()
        y = leafgrad.tensor([1.0, 2.0], requires_grad=True)
        z = y * 1.0
        (z + z).sum().backward()  # AddBackward0 gives the same tensor for both edges
        assert seen == [False] and y.grad.tolist() == [2.0, 2.0]
        seen.clear()
        (x * 3 + x * 4).sum().backward(create_graph=True)  # a recorded sum is never in place
        assert seen == [False]
    finally:
        engine._sum_in_place = original
        engine._PRIVATE_REFS -= 1


def test_summed_gradients_match_torch_when_buffers_share_tensors():
    torch = require_torch()
    values = np.array([0.5, -1.5, 2.0], dtype=np.float32)
    grads = {}
    for lib in (leafgrad, torch):
        x = lib.tensor(values, requires_grad=True)
        seen = []
        a = x * 2.0
        a.register_hook(lambda g: seen.append(g.clone()))
        b = a + a  # one tensor for both edges into a's node
        c = b + x  # and the same tensor again toward x
        out = (c * x).sum() + (a * a).sum() + x.expand(2, 3).sum()
        (g,) = lib.autograd.grad(out, x, retain_graph=True)
        out.backward()
        grads[lib.__name__] = (g.numpy(), x.grad.numpy(), [s.numpy() for s in seen])
    ours, theirs = grads["leafgrad"], grads["torch"]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    for mine, other in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(mine, other, rtol=1e-6)


def test_grad_mode_is_thread_local():
    results = {}

    def worker():
        results["worker"] = leafgrad.is_grad_enabled()

    with leafgrad.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        results["main"] = leafgrad.is_grad_enabled()
    assert results == {"worker": True, "main": False}


def test_engine_restores_grad_mode_after_an_error():
    x = leafgrad.tensor([1.0], requires_grad=True)
    y = x * 2

    def bad_hook(grad):
        raise ValueError("boom")

    y.register_hook(bad_hook)
    with pytest.raises(ValueError):
        y.backward(create_graph=True)
    assert leafgrad.is_grad_enabled()
    with leafgrad.enable_grad():
        y2 = x * 2
    with leafgrad.no_grad():
        y2.register_hook(bad_hook)
        with pytest.raises(ValueError):
            y2.backward(create_graph=True)
        assert not leafgrad.is_grad_enabled()


def _trace(lib):
    """Hooks of every kind on a small graph; returns the order they fire in."""
    events = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    a = x * w
    b = a.exp()
    c = a + b
    loss = c.sum()
    x.register_hook(lambda g: events.append(("x", g.tolist())))
    w.register_hook(lambda g: events.append(("w", g.tolist())))
    a.register_hook(lambda g: events.append(("a", g.tolist())))
    a.retain_grad()
    b.register_hook(lambda g: events.append(("b", g.tolist())) or g * 2)
    c.grad_fn.register_prehook(lambda gs: events.append(("c-pre", gs[0].tolist())))
    c.grad_fn.register_hook(lambda gi, go: events.append(("c-post", len(gi), len(go))))
    loss.backward()
    events.append(("a.grad", a.grad.tolist()))
    events.append(("x.grad", x.grad.tolist()))
    return events


def test_hook_order_and_effects_match_torch():
    torch = require_torch()
    ours = _trace(leafgrad)
    theirs = _trace(torch)
    assert [event[0] for event in ours] == [event[0] for event in theirs]
    for mine, expected in zip(ours, theirs):
        for got, want in zip(mine[1:], expected[1:]):
            np.testing.assert_allclose(got, want, rtol=1e-6)


def _accumulate(lib):
    x = lib.tensor(3.0, requires_grad=True)
    y = x ** 3
    out = []
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    out.append((repr(g), g.grad_fn.name()))
    y.backward(create_graph=True)
    out.append((repr(x.grad), type(x.grad.grad_fn).__name__))
    names = [None if n is None else n.name() for n, _ in x.grad.grad_fn.next_functions]
    out.append(tuple(names))
    x.grad.backward()  # the seed's accumulation pitfall: 18 + 27, not 18
    out.append(repr(x.grad))
    y2 = x * 2
    y2.backward(create_graph=True)
    out.append((repr(x.grad), x.grad.grad_fn.name()))
    return out


def test_create_graph_accumulation_matches_torch():
    torch = require_torch()
    ours = _accumulate(leafgrad)
    theirs = _accumulate(torch)
    normalise = lambda text: str(text).replace("torch.", "leafgrad.")  # noqa: E731
    assert [normalise(o) for o in ours] == [normalise(t) for t in theirs]


def test_no_reference_cycles_in_a_training_step():
    gc.collect()
    gc.disable()
    try:
        w = leafgrad.tensor(np.full((4, 3), 0.5, np.float32), requires_grad=True)
        x = leafgrad.tensor(np.ones((2, 4), np.float32))
        loss = (x @ w).relu().sum()
        loss.retain_grad()
        loss.backward()
        node = weakref.ref(loss.grad_fn)
        del loss
        assert node() is None  # freed by refcounting alone, with the collector off
    finally:
        gc.enable()


def test_pruning_shortcut_keeps_exactly_what_pruning_keeps():
    """autograd.grad skips the pruning pass when every node without children is one of the
    inputs; on random graphs, whenever it does, pruning would have returned the graph as is."""
    import random

    from leafgrad.autograd import engine

    rng = random.Random(0)
    skipped = 0
    for _ in range(300):
        leaves = [leafgrad.randn(2, requires_grad=True) for _ in range(4)]
        values = list(leaves)
        for _ in range(rng.randint(1, 12)):
            a, b = rng.choice(values), rng.choice(values)
            kind = rng.randrange(4)
            values.append(a * b if kind == 0 else a + b if kind == 1 else a.tanh() if kind == 2
                          else a.detach() * b)
        out = values[-1]
        if not out.requires_grad:
            continue
        roots = [out.grad_fn or out._accumulator()]
        dependencies = engine._discover(roots)
        targets = {t.grad_fn or t._accumulator()
                   for t in rng.sample(values, rng.randint(1, 4)) if t.requires_grad}
        if not engine._reaches_other_sinks(dependencies, targets):
            skipped += 1
            assert engine._prune(roots, dependencies, targets) == dependencies
    assert skipped > 20  # the shortcut was exercised
