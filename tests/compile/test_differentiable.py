"""Compiled functions whose caller runs the backward (differentiable.py, Note: the
differentiable replay): ``model = compile(model); loss(model(x)).backward()``.

Results, gradients and trained weights equal eager ones bitwise; the results' node is torch's
``CompiledFunctionBackward`` with an edge per tensor the function reads; double backward,
a second backward and an in-place change of a saved tensor raise torch's errors (compared with
torch.compile's aot_eager backend, which builds the same node without generating code).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad
from leafgrad import nn

from .._torch import require_torch

F = nn.functional


def _models():
    def mlp(lib):
        return lib.nn.Sequential(lib.nn.Linear(12, 16), lib.nn.ReLU(), lib.nn.Linear(16, 8),
                                 lib.nn.Tanh(), lib.nn.Linear(8, 5))

    def cnn(lib):
        return lib.nn.Sequential(lib.nn.Conv2d(2, 4, 3, padding=1), lib.nn.BatchNorm2d(4),
                                 lib.nn.ReLU(), lib.nn.MaxPool2d(2), lib.nn.Flatten(),
                                 lib.nn.Linear(4 * 3 * 3, 5))

    class Tokens(leafgrad.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(20, 6)
            self.norm = nn.LayerNorm(6)
            self.head = nn.Linear(6, 5)

        def forward(self, tokens):
            return self.head(F.gelu(self.norm(self.embed(tokens))).mean(1))

    class Recurrent(leafgrad.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(3, 6, batch_first=True)
            self.head = nn.Linear(6, 5)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out[:, -1])

    return {
        "mlp": (mlp, lambda: leafgrad.randn(8, 12)),
        "cnn_bn": (cnn, lambda: leafgrad.randn(8, 2, 6, 6)),
        "embedding_layernorm": (lambda lib: Tokens(), lambda: leafgrad.randint(0, 20, (8, 4))),
        "gru": (lambda lib: Recurrent(), lambda: leafgrad.randn(8, 4, 3)),
    }


MODELS = _models()
OPTIMIZERS = {
    "sgd_momentum": lambda p: leafgrad.optim.SGD(p, lr=0.05, momentum=0.9),
    "adam": lambda p: leafgrad.optim.Adam(p, lr=0.01),
    "adamw": lambda p: leafgrad.optim.AdamW(p, lr=0.01, weight_decay=0.1),
}


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_training_with_a_compiled_model_equals_eager(model, optimizer, dtype):
    make, batch = MODELS[model]
    leafgrad.manual_seed(3)
    data = [(batch(), leafgrad.randint(0, 5, (8,))) for _ in range(8)]
    trained = []
    for compiled in (False, True):
        leafgrad.manual_seed(0)
        net = make(leafgrad).to(getattr(leafgrad, dtype))
        run = leafgrad.compile(net) if compiled else net
        opt = OPTIMIZERS[optimizer](net.parameters())
        losses = []
        for x, y in data:
            if x.dtype.is_floating_point:
                x = x.to(getattr(leafgrad, dtype))
            out = run(x)
            if compiled:
                assert out.grad_fn.name() == "CompiledFunctionBackward"
            loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        trained.append((losses, [t.detach().numpy().copy() for t in net.state_dict().values()]))
        if compiled:
            assert run._compiled_call.replays == len(data) - 1
            # the recorded backward prints, and its code follows the forward's
            assert str(run.backward_graph).splitlines()[-1].startswith("return (")
            assert "# the backward" in run.code
    assert trained[0][0] == trained[1][0]
    for a, b in zip(trained[0][1], trained[1][1]):
        np.testing.assert_array_equal(a, b)


def _program(a, b, c):
    h = (a * b).tanh() + c.exp() * a
    return h.sum(0), h.t() * 2, h.detach() + 1, (h > 0).sum()


@pytest.mark.parametrize("needs", list(itertools.product([False, True], repeat=3)))
def test_every_subset_of_inputs_requiring_grad(needs):
    compiled = leafgrad.compile(_program)
    for call in range(3):
        rng = np.random.default_rng(call)
        arrays = [rng.normal(size=(3, 4)) for _ in range(3)]
        eager_in = [leafgrad.tensor(a, requires_grad=n) for a, n in zip(arrays, needs)]
        mine_in = [leafgrad.tensor(a, requires_grad=n) for a, n in zip(arrays, needs)]
        want, got = _program(*eager_in), compiled(*mine_in)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())
            assert g.requires_grad == w.requires_grad and g.dtype == w.dtype
        if not any(needs):
            assert all(g.grad_fn is None for g in got)
            continue
        assert [g.grad_fn is None for g in got] == [False, False, True, True]
        node = got[0].grad_fn
        assert node.name() == "CompiledFunctionBackward" and got[1].grad_fn is node
        # an edge per input, None where it does not require grad
        assert [child is not None for child, _ in node.next_functions] == list(needs)
        # a gradient for one output only (the other's is zeros), non-contiguous
        weight = leafgrad.tensor(rng.normal(size=(4, 3))).t()
        for outs in ((want, eager_in), (got, mine_in)):
            (outs[0][1].t() * weight).sum().backward(retain_graph=True)
            outs[0][0].sum().backward()
        for e, m in zip(eager_in, mine_in):
            assert (e.grad is None) == (m.grad is None)
            if e.grad is not None:
                np.testing.assert_array_equal(m.grad.numpy(), e.grad.numpy())
    assert compiled.replays == 2


def test_non_leaf_inputs_and_autograd_grad():
    """An input with a graph of its own: the node's edge is its grad_fn, and autograd.grad
    reaches through the replay to the leaves behind it."""
    compiled = leafgrad.compile(lambda x, w: (x @ w).relu().mean())
    for call in range(3):
        rng = np.random.default_rng(call)
        leaf = leafgrad.tensor(rng.normal(size=(5, 3)), requires_grad=True)
        w = leafgrad.tensor(rng.normal(size=(3, 2)), requires_grad=True)
        x = leaf * 3
        out = compiled(x, w)
        assert out.grad_fn.next_functions[0][0] is x.grad_fn
        got = leafgrad.autograd.grad(out, (leaf, w), retain_graph=True)
        want = leafgrad.autograd.grad((x @ w).relu().mean(), (leaf, w))
        for g, e in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), e.numpy())


def test_results_and_breaks_that_run_eagerly():
    """What a replay cannot give back runs eagerly, with eager's graph: a result that is a
    view of an input (torch too makes it again outside its graph: TBackward0), a gradient
    reaching a leaf made in the call, a hook on a tensor the backward passes."""
    x = leafgrad.ones(2, 3, requires_grad=True)
    view = leafgrad.compile(lambda t: t.t())
    assert [view(x).grad_fn.name() for _ in range(2)] == ["TBackward0"] * 2
    assert view(x)._base is x and view.replays == 0

    def inner_leaf(t):
        inner = (t * 2).detach().requires_grad_()
        return (inner * t).sum()

    compiled = leafgrad.compile(inner_leaf)
    for _ in range(2):
        assert compiled(x).grad_fn.name() == "SumBackward0"
    assert compiled.replays == 0
    assert any("leaf made in the call" in b.reason
               for b in leafgrad.compile.explain(inner_leaf, x).break_reasons)

    seen = []

    def hooked(t):
        y = t * 2
        y.register_hook(lambda g: seen.append(g.shape))
        return y.sum()

    compiled = leafgrad.compile(hooked)
    for _ in range(2):
        compiled(x).backward()
    assert len(seen) == 2 and compiled.replays == 0


def test_no_grad_and_guards():
    compiled = leafgrad.compile(lambda t: (t * t).sum())
    x = leafgrad.ones(3, requires_grad=True)
    with leafgrad.no_grad():
        assert compiled(x).grad_fn is None
        assert compiled(x).grad_fn is None
    assert compiled(x).grad_fn.name() == "CompiledFunctionBackward"
    assert compiled(x.detach()).grad_fn is None  # requires_grad is guarded: a new capture
    assert compiled(x).grad_fn.name() == "CompiledFunctionBackward"
    assert len(compiled.captures) == 3 and compiled.replays == 2


def test_the_backward_runs_where_the_caller_asks():
    """Two forwards before their backwards: each keeps its own saved arrays (never a buffer
    the next replay overwrites), and .grad accumulates as eager's does."""
    compiled = leafgrad.compile(lambda a, w: (a * w).sin().sum())
    w = leafgrad.tensor([0.3, -1.2, 2.0], requires_grad=True)
    w_eager = w.detach().clone().requires_grad_()
    inputs = [leafgrad.tensor(np.random.default_rng(i).normal(size=3)) for i in range(4)]
    outs = [compiled(a, w) for a in inputs]
    for out in reversed(outs):
        out.backward()
    for a in inputs:
        (a * w_eager).sin().sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), w_eager.grad.numpy())


PROGRAMS = {
    "two_inputs": ("lambda x, w: (x * w).tanh().sum()", ((3,), (3,)), (True, True)),
    "one_needs_grad": ("lambda x, w: (x * w).sin()", ((2, 3), (3,)), (True, False)),
    "non_leaf": ("lambda x, w: (x @ w).relu().mean()", ((4, 3), (3, 2)), ("graph", True)),
    "outputs": ("lambda x, w: (x * w, (x + w).exp(), x.argmax())", ((3,), (3,)), (True, True)),
}


@pytest.fixture(scope="module")
def torch():
    return require_torch()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nodes_and_errors_as_torch_compile(torch, name):
    source, shapes, needs = PROGRAMS[name]

    def observe(lib, **kwargs):
        fn = lib.compile(eval(source), **kwargs)
        seen = []
        for call in range(2):
            rng = np.random.default_rng(call)
            args = []
            for shape, need in zip(shapes, needs):
                t = lib.tensor(rng.normal(size=shape), requires_grad=bool(need))
                args.append(t * 1.5 if need == "graph" else t)
            out = fn(*args)
            outs = out if isinstance(out, tuple) else (out,)
            seen.append([(o.grad_fn.name() if o.grad_fn is not None else None, o.requires_grad,
                          o.detach().numpy().round(12).tolist()) for o in outs])
            node = outs[0].grad_fn
            seen.append(sorted(str(None if c is None else c.name()) for c, _ in node.next_functions))
            loss = sum((o.double() * (i + 1)).sum() for i, o in enumerate(outs) if o.requires_grad)
            grads = lib.autograd.grad(loss, [a for a in args if a.requires_grad])
            seen.append([g.numpy().round(12).tolist() for g in grads])
            try:
                loss.backward()
                seen.append("ran")
            except RuntimeError as error:
                seen.append(str(error).splitlines()[0])
        return seen

    assert observe(leafgrad) == observe(torch, backend="aot_eager")


def test_double_backward_refused_as_torch_compile(torch):
    """create_graph=True gives gradients whose node refuses a further backward (torch's
    compiled functions have none; this program keeps no intermediate, so torch's donated
    buffers do not refuse the create_graph call itself)."""
    def observe(lib, **kwargs):
        fn = lib.compile(lambda x: (x * x).sum(), **kwargs)
        seen = []
        for _ in range(2):
            x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
            (g,) = lib.autograd.grad(fn(x), x, create_graph=True)
            seen.append((g.grad_fn.name(), g.detach().numpy().tolist()))
            with pytest.raises(RuntimeError) as error:
                g.sum().backward()
            seen.append(str(error.value).splitlines()[0])
        return seen

    assert observe(leafgrad) == observe(torch, backend="aot_eager")


def test_in_place_change_of_a_saved_input_raises_eagers_error(torch):
    """A saved input changed after the forward, and a result the backward reads (tanh's)
    changed in place: eager's version-counter error, not a gradient from the new values."""
    def observe(lib, **kwargs):
        fn = lib.compile(lambda a, b: (a * b).sum(), **kwargs)
        result = lib.compile(lambda a: (a * 2).tanh(), **kwargs)
        seen = []
        for _ in range(2):
            a, b = lib.ones(3, requires_grad=True), lib.full((3,), 2.0)
            out = fn(a, b)
            b.add_(1)
            with pytest.raises(RuntimeError) as error:
                out.backward()
            seen.append(str(error.value).splitlines()[0])
            out = result(a)
            out.mul_(2)
            seen.append((out.grad_fn.name(), out._version))
            with pytest.raises(RuntimeError) as error:
                out.sum().backward()
            seen.append(str(error.value).splitlines()[0])
        return seen

    assert observe(leafgrad) == observe(torch, backend="aot_eager")


def test_a_training_steps_loss_as_torch_compile(torch):
    """A step that runs its own backward returns its loss behind CompiledFunctionBackward on
    every call (torch's step breaks its graph at backward(): the loss is a result of the
    compiled forward), and a second backward raises; a step that keeps its graph
    (retain_graph=True) runs eagerly, so the loss can be backpropagated again."""
    def observe(lib, **kwargs):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)

        def step(x, y):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss

        compiled = lib.compile(step, **kwargs)
        x, y = lib.ones(4, 3), lib.tensor([0, 1, 0, 1])
        seen = []
        for _ in range(3):
            loss = compiled(x, y)
            seen.append((str(loss), loss.is_leaf, loss.requires_grad))
            with pytest.raises(RuntimeError) as error:
                loss.backward()
            seen.append(str(error.value).splitlines()[0])
        seen.append([p.detach().numpy().round(6).tolist() for p in model.parameters()])
        return seen

    assert observe(leafgrad) == observe(torch, backend="aot_eager")

    w = leafgrad.ones(3, requires_grad=True)

    def kept(x):
        loss = (x * w).sum()
        loss.backward(retain_graph=True)
        return loss

    compiled = leafgrad.compile(kept)
    for _ in range(2):
        compiled(leafgrad.ones(3)).backward()  # (the kept graph: a second backward runs)
    assert compiled.replays == 0 and w.grad.tolist() == [4.0, 4.0, 4.0]


def test_threads_share_a_compiled_model():
    """Two threads running forwards and backwards of one compiled model at once: each call's
    saved arrays are its own (the replays take turns on their buffers), so every gradient is
    the one eager code gives for that call's input."""
    import threading

    leafgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
    compiled = leafgrad.compile(model)
    inputs = [leafgrad.randn(5, 6) for _ in range(40)]
    expected = []
    for x in inputs:
        x = x.detach().requires_grad_()
        model(x).sum().backward()
        expected.append(x.grad.numpy().copy())
    compiled(inputs[0].detach().requires_grad_())  # (captured before the threads start)
    got = [None] * len(inputs)

    def work(indices):
        for i in indices:
            x = inputs[i].detach().requires_grad_()
            out = compiled(x)
            (g,) = leafgrad.autograd.grad(out.sum(), x)
            got[i] = g.numpy().copy()

    threads = [threading.Thread(target=work, args=(range(k, len(inputs), 2),)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    assert compiled._compiled_call.replays == len(inputs)
