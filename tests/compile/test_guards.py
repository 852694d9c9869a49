"""Guards, retracing, the eager fallback, graph breaks, explain and fullgraph."""

import warnings

import numpy as np
import pytest

import leafgrad as torch
from leafgrad._compile import api


def _chain(x, w):
    return torch.tanh(x * w + 1.5).sum(0)


def _fresh(shape=(3, 4), dtype=torch.float32, seed=0, requires_grad=False):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=requires_grad)


def test_replays_after_first_call_and_matches_eager():
    f = torch.compile(_chain)
    w = _fresh((4,), seed=1)
    for seed in range(4):
        x = _fresh(seed=seed)
        np.testing.assert_array_equal(f(x, w).numpy(), _chain(x, w).numpy())
    assert len(f.captures) == 1 and f.replays == 3


@pytest.mark.parametrize("change", ["shape", "dtype", "requires_grad", "grad_mode", "alias"])
def test_a_changed_input_property_recaptures(change):
    f = torch.compile(lambda a, b: (a * b).sum())
    x, y = _fresh(), _fresh(seed=1)
    f(x, y)
    f(x, y)
    if change == "shape":
        args = (_fresh((5, 4)), _fresh((5, 4)))
    elif change == "dtype":
        args = (_fresh(dtype=torch.float64), _fresh(dtype=torch.float64))
    elif change == "requires_grad":
        args = (_fresh(requires_grad=True), y)
    elif change == "alias":
        args = (x, x)
    else:
        args = (x, y)
    if change == "grad_mode":
        with torch.no_grad():
            out = f(*args)
    elif change == "requires_grad":
        with torch.no_grad():
            out = f(*args)
    else:
        out = f(*args)
    assert len(f.captures) == 2
    np.testing.assert_array_equal(out.detach().numpy(), (args[0] * args[1]).sum().detach().numpy())


def test_python_arguments_are_guarded_by_value():
    f = torch.compile(lambda x, scale, mode: x * scale if mode == "mul" else x + scale)
    x = _fresh()
    for scale, mode in [(2.0, "mul"), (2.0, "mul"), (3.0, "mul"), (3.0, "add"), (2.0, "mul")]:
        expected = x * scale if mode == "mul" else x + scale
        np.testing.assert_array_equal(f(x, scale, mode).numpy(), expected.numpy())
    assert len(f.captures) == 3 and f.replays == 2


def test_a_different_number_of_arguments_raises_as_eager():
    f = torch.compile(_chain)
    x, w = _fresh(), _fresh((4,))
    f(x, w)
    with pytest.raises(TypeError, match="positional argument"):
        f(x)
    with pytest.raises(TypeError):
        _chain(x)


def test_tensors_from_outside_are_read_live():
    w = _fresh((4,), seed=1)
    f = torch.compile(lambda x: _chain(x, w))
    x = _fresh()
    f(x)
    f(x)
    with torch.no_grad():
        w.mul_(3.0)  # in-place change of a captured tensor's storage from outside
    np.testing.assert_array_equal(f(x).numpy(), _chain(x, w).numpy())
    x.add_(1.0)  # and of an input's storage
    np.testing.assert_array_equal(f(x).numpy(), _chain(x, w).numpy())
    assert f.replays == 3
    w.data = _fresh((5,))  # a new array of another shape: the guard recaptures
    x5 = _fresh((3, 5))
    np.testing.assert_array_equal(f(x5).numpy(), _chain(x5, w).numpy())
    assert len(f.captures) == 2


def test_past_the_cache_limit_one_warning_then_eager(monkeypatch):
    monkeypatch.setattr(api, "cache_size_limit", 3)
    f = torch.compile(lambda x: x * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 8):
            x = _fresh((n,))
            np.testing.assert_array_equal(f(x).numpy(), (x * 2).numpy())
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "cache_size_limit" in messages[0]
    assert len(f.captures) == 3 and f.eager


@pytest.mark.parametrize("read, reason", [
    (lambda t: t.item(), "Tensor.item()"),
    (lambda t: bool(t), "bool(tensor)"),
    (lambda t: t.tolist(), "Tensor.tolist()"),
    (lambda t: t.numpy(), "Tensor.numpy()"),
    (lambda t: float(t), "float(tensor)"),
])
def test_data_dependent_python_breaks_the_graph(read, reason):
    def f(x):
        s = x.sum()
        if read(s) is not None and float(s.detach()._data) > 0:  # Python control flow
            return x * 2
        return x * 3

    compiled = torch.compile(f)
    for seed in range(4):
        x = _fresh(seed=seed)
        np.testing.assert_array_equal(compiled(x).numpy(), f(x).numpy())
    assert compiled.replays == 0 and compiled.graph is None
    report = torch.compile.explain(f, _fresh())
    assert report.graph_count == 0 and report.graph_break_count >= 1
    first = report.break_reasons[0]
    assert reason in first.reason
    assert first.filename == __file__ and "lambda t:" in first.line  # the line that read it
    assert "Graph Break Count" in str(report)
    with pytest.raises(torch.compile.Unsupported, match="graph break"):
        torch.compile(f, fullgraph=True)(_fresh())


def test_explain_of_a_capturable_function():
    report = torch.compile.explain(_chain, _fresh(), _fresh((4,)))
    assert report.graph_count == 1 and report.graph_break_count == 0
    assert report.op_count == 4  # mul, add, tanh, sum (the 1.5 is a Python scalar)
    assert "Graph Count: 1" in str(report)


def test_random_numbers_replay_with_fresh_draws():
    # torch.rand & co. are recorded as draws the replay makes again (see
    # tests/compile/test_replay_random_draws.py); an in-place fill (normal_) still breaks
    def f(x):
        return x * torch.rand(x.shape)

    compiled = torch.compile(f)
    x = _fresh()
    torch.manual_seed(0)
    got = [compiled(x).numpy().copy() for _ in range(3)]
    torch.manual_seed(0)
    expected = [f(x).numpy().copy() for _ in range(3)]
    assert not np.array_equal(got[1], got[2])  # fresh randomness on every call
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
    assert compiled.replays == 2

    def fill(x):
        return x * torch.empty(x.shape).normal_()

    assert any("random" in b.reason for b in torch.compile.explain(fill, x).break_reasons)


def test_a_result_that_needs_a_graph_replays_with_its_backward():
    """(differentiable.py, Note: the differentiable replay)"""
    w = _fresh((4,), requires_grad=True)
    f = torch.compile(lambda x: _chain(x, w))
    for _ in range(2):
        out = f(_fresh())
        assert out.grad_fn.name() == "CompiledFunctionBackward"
        out.sum().backward()
    assert f.replays == 1
    expected = torch.autograd.grad(_chain(_fresh(), w).sum(), w)[0] * 2
    np.testing.assert_allclose(w.grad.numpy(), expected.numpy(), rtol=1e-6)


def test_a_training_step_returns_its_loss_as_eager_does():
    """The loss comes back requiring grad, behind a node whose graph is freed (api.py Note:
    results that require grad): backward through it again raises eager's error."""
    w = _fresh((4,), requires_grad=True)

    def step(x):
        loss = _chain(x, w).sum()
        loss.backward()
        return loss

    f = torch.compile(step)
    f(_fresh())  # .grad unset: captured
    f(_fresh())  # .grad set: captured again (accumulation instead of a store)
    out = f(_fresh(seed=1))
    want = step(_fresh(seed=1))
    assert f.replays == 1 and out.requires_grad and not out.is_leaf
    # torch's compiled step breaks its graph at backward(): the loss is its forward graph's
    # result, behind CompiledFunctionBackward
    assert str(out) == str(want).replace("SumBackward0", "CompiledFunctionBackward")
    for result in (want, out):
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            result.backward()


def test_backward_hooks_break_the_graph():
    w = _fresh((4,), requires_grad=True)
    seen = []
    w.register_hook(lambda g: seen.append(1))

    def step(x):
        _chain(x, w).sum().backward()

    f = torch.compile(step)
    f(_fresh())
    f(_fresh())
    assert f.replays == 0 and len(seen) == 2


def test_grad_accumulates_across_replays_as_eager():
    w1, w2 = _fresh((4,), requires_grad=True), _fresh((4,), requires_grad=True)

    def step(w, x):
        _chain(x, w).sum().backward()

    f = torch.compile(step)
    for seed in range(4):
        x = _fresh(seed=seed)
        f(w1, x)
        step(w2, x)
        np.testing.assert_array_equal(w1.grad.numpy(), w2.grad.numpy())
    w1.grad = None
    w2.grad = None
    f(w1, x)
    step(w2, x)
    np.testing.assert_array_equal(w1.grad.numpy(), w2.grad.numpy())
    assert len(f.captures) == 2 and f.replays == 3  # .grad unset, then set: two variants


def test_decorator_forms_and_module():
    @torch.compile
    def f(x):
        return x * 2

    @torch.compile(fullgraph=True, dynamic=False)
    def g(x):
        return x + 1

    x = _fresh()
    f(x), f(x), g(x), g(x)
    assert f.replays == 1 and g.replays == 1
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())
    compiled = torch.compile(model)
    assert type(compiled).__name__ == "OptimizedModule"
    assert list(dict(compiled.named_parameters())) == ["_orig_mod.0.weight", "_orig_mod.0.bias"]
    with torch.no_grad():
        for seed in range(3):
            x = _fresh(seed=seed)
            np.testing.assert_array_equal(compiled(x).numpy(), model(x).numpy())
    assert compiled._compiled_call.replays == 2
    compiled.eval()
    with torch.no_grad():
        compiled(x)
    assert len(compiled._compiled_call.captures) == 2  # the training flag is guarded
    model.note = "kept"
    assert compiled.note == "kept"  # attributes come from the original module


def test_graph_prints_code_and_diff():
    def branchy(x, flag):
        return torch.tanh(x) if flag else torch.sigmoid(x)

    f = torch.compile(branchy)
    x = _fresh()
    f(x, True)
    first = f.graph
    f(x, False)
    second = f.graph
    assert "TanhBackward0(%x0)" in str(first) and "return %v0" in str(first)
    assert "def replay(inputs):" in f.code
    diff = first.diff(second)
    assert "-%v0 = TanhBackward0(%x0)" in diff.replace("  ", " ").replace("  ", " ") or \
        "TanhBackward0" in diff and "SigmoidBackward0" in diff
    dot = f.to_dot()
    assert dot.lstrip().startswith("digraph") and "SigmoidBackward0(%x0)" in dot
    view = f.graph_view()
    assert [n["name"] for n in view.nodes if n["kind"] == "function"] == ["SigmoidBackward0"]
    assert view.to_svg().startswith("<svg") and "SigmoidBackward0" in view.to_html()


class _Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x


class _NumpySin(torch.autograd.Function):
    """Computes outside the op table: the capture cannot see it."""

    @staticmethod
    def forward(ctx, x):
        return torch.tensor(np.sin(x.detach().numpy()))

    @staticmethod
    def backward(ctx, g):
        return g


@pytest.mark.parametrize("function, captured", [(_Cube, True), (_NumpySin, False)])
def test_custom_functions_are_captured_or_run_eagerly(function, captured):
    w = _fresh((4,), seed=5, requires_grad=True)

    def step(x):
        y = function.apply(x * w).sum()
        y.backward()
        return y.detach()

    compiled = torch.compile(step)
    for seed in range(3):
        x = _fresh((4,), seed=seed)
        w.grad = None
        got, got_grad = compiled(x).numpy().copy(), w.grad.numpy().copy()
        w.grad = None
        want, want_grad = step(x).numpy().copy(), w.grad.numpy().copy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_grad, want_grad)
    assert (compiled.replays == 2) == captured


class _TrainEval(torch.nn.Module):
    def forward(self, x):
        return x * 2.0 if self.training else x * 3.0


def test_a_module_switched_to_eval_inside_a_compiled_function_recaptures():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), _TrainEval())
    f = torch.compile(lambda x: model(x).detach())
    x = _fresh((5, 4))
    f(x), f(x)
    model.eval()
    np.testing.assert_array_equal(f(x).numpy(), model(x).detach().numpy())
    assert len(f.captures) == 2 and f.replays == 1


def test_module_hooks_break_the_graph():
    model = torch.nn.Linear(4, 4)
    calls = []
    model.register_forward_hook(lambda m, i, o: calls.append(1))
    f = torch.compile(lambda x: model(x).detach())
    f(_fresh((2, 4))), f(_fresh((2, 4)))
    assert f.replays == 0 and len(calls) == 2


def test_a_tensor_array_passed_as_a_parameter_is_found_after_gc_freeze():
    """nll_loss passes its target's array as a parameter; the capture finds the tensor that
    owns it, also when the objects alive were frozen (benchmarks/_harness.py does that)."""
    import gc

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    target = torch.tensor([0, 2, 1, 1, 0])

    def step(x):
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        return loss.detach()

    f = torch.compile(step)
    gc.freeze()
    try:
        for seed in range(3):
            f(_fresh((5, 4), seed=seed))
    finally:
        gc.unfreeze()
    assert f.captures[0].breaks == [] and f.replays >= 1
