"""Behaviours found by replaying PyTorch's own autograd tests (test/test_autograd.py) as
programs run under torch and leafgrad; each program's observations must be identical."""

from __future__ import annotations

import warnings

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _outcome(fn):
    """What a call gives: ("ok", value) or (exception type, first line of its message)."""
    try:
        return ("ok", fn())
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return (type(error).__name__, str(error).split("\n")[0])


def _same(program):
    got, expected = program(leafgrad), program(torch)
    assert got == expected


def _plain(tensor):
    return None if tensor is None else tensor.tolist()


# --- grad mode switches -------------------------------------------------------------------


@pytest.mark.parametrize("switch", ["no_grad", "enable_grad"])
def test_switch_decorates_bare(switch):
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        outer = lib.no_grad() if switch == "enable_grad" else lib.enable_grad()

        @getattr(lib, switch)
        def add(a):
            """doc"""
            return a + 1, lib.is_grad_enabled()

        with outer:
            y, mode = add(x)
        return [y.requires_grad, mode, add.__name__, add.__doc__, lib.is_grad_enabled()]

    _same(program)


@pytest.mark.parametrize("switch", ["no_grad", "enable_grad", "set_grad_enabled", "inference"])
@pytest.mark.parametrize("bare", [False, True])
def test_decorated_generator_mode_holds_only_inside(switch, bare):
    def program(lib):
        inner_mode = switch == "enable_grad"
        make = {"no_grad": lib.no_grad, "enable_grad": lib.enable_grad,
                "set_grad_enabled": lambda: lib.set_grad_enabled(False),
                "inference": lib.inference_mode}[switch]
        if bare and switch == "set_grad_enabled":
            return None
        decorator = make if bare else make()
        seen = []

        @decorator
        def gen(n):
            for i in range(n):
                received = yield i
                seen.append(("inside", lib.is_grad_enabled(), received))
            return "done"

        with lib.set_grad_enabled(not inner_mode):
            it = gen(3)
            seen.append(("outer", next(it), lib.is_grad_enabled()))
            seen.append(("outer", it.send("a"), lib.is_grad_enabled()))
            seen.append(_outcome(lambda: it.throw(ValueError("boom"))))
            seen.append(("after", lib.is_grad_enabled()))
            it2 = gen(2)
            next(it2)
            it2.close()
            seen.append(("closed", lib.is_grad_enabled()))
            it3 = gen(1)
            next(it3)
            seen.append(_outcome(lambda: it3.send(None)))
        return seen

    _same(program)


@pytest.mark.parametrize("value", [1, 0, None, "a", 1.0])
def test_set_grad_enabled_refuses_non_bool(value):
    def program(lib):
        before = lib.is_grad_enabled()
        return [_outcome(lambda: lib.set_grad_enabled(value)), before == lib.is_grad_enabled()]

    _same(program)


# --- hook handles -------------------------------------------------------------------------


def test_hook_handles_are_utils_hooks_removable_handles():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        handles = [x.register_hook(lambda g: g), y.register_hook(lambda g: g),
                   y.grad_fn.register_hook(lambda gi, go: None),
                   y.grad_fn.register_prehook(lambda go: None),
                   x.register_post_accumulate_grad_hook(lambda p: None),
                   lib.nn.Linear(1, 1).register_forward_hook(lambda *a: None)]
        ids = [h.id for h in handles]
        return [(type(h).__module__.replace("leafgrad", "torch"), type(h).__qualname__,
                 isinstance(h, lib.utils.hooks.RemovableHandle)) for h in handles] + [
            # one counter for every handle: each id is one more than the one before
            [b - a for a, b in zip(ids, ids[1:])]]

    _same(program)


# --- tensor attributes ---------------------------------------------------------------------


READ_ONLY = ["grad_fn", "is_leaf", "shape", "_version", "dtype", "device", "ndim", "T", "mT",
             "output_nr", "layout", "is_cuda", "nbytes", "itemsize", "retains_grad"]


@pytest.mark.parametrize("name", READ_ONLY)
def test_read_only_attribute_set_and_delete(name):
    def program(lib):
        x = lib.ones(2, 2, requires_grad=True)
        y = x * 2

        def delete():
            delattr(y, name)

        return [_outcome(lambda: setattr(y, name, None)), _outcome(delete),
                y.grad_fn.name(), y.shape == (2, 2)]

    _same(program)


@pytest.mark.parametrize("value", [1, 0, None, "yes", 1.0])
def test_requires_grad_attribute_refuses_non_bool(value):
    def program(lib):
        x = lib.ones(2)
        return [_outcome(lambda: setattr(x, "requires_grad", value)), x.requires_grad]

    _same(program)


def test_requires_grad_method_call_forms():
    def program(lib):
        def fresh():
            return lib.ones(2)

        results = []
        for call in [lambda t: t.requires_grad_(), lambda t: t.requires_grad_(True),
                     lambda t: t.requires_grad_(False), lambda t: t.requires_grad_(requires_grad=True),
                     lambda t: t.requires_grad_(requires_grad=1), lambda t: t.requires_grad_(1),
                     lambda t: t.requires_grad_(None), lambda t: t.requires_grad_(requires_grad="a")]:
            t = fresh()
            out = _outcome(lambda: call(t) is t)
            results.append((out, t.requires_grad))
        return results

    _same(program)


def test_attribute_deletion():
    def program(lib):
        x = lib.randn(3, requires_grad=True)
        (x * 2).sum().backward()
        results = []

        def delete(name):
            def run():
                delattr(x, name)
                return None
            return run

        results.append(_outcome(delete("grad")))
        results.append(x.grad)
        for name in ["data", "requires_grad", "_grad_fn", "_backward_hooks"]:
            results.append(_outcome(delete(name)))
        results.append(_outcome(lambda: setattr(x, "data", None)))
        results.append(_outcome(lambda: setattr(x, "data", 3)))
        (x * 3).sum().backward()
        results.append(_outcome(delete("_grad")))
        results += [x.grad, x.requires_grad, x.is_leaf, x.shape == (3,)]
        return results

    _same(program)


# --- custom Function ------------------------------------------------------------------------


def test_saved_variables_is_deprecated_alias():
    def program(lib):
        class Add(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a + b

            @staticmethod
            def backward(ctx, grad):
                first, second = ctx.saved_variables
                return grad * second, grad * first

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Add.apply(a, b).sum().backward()
        return [_plain(a.grad), _plain(b.grad),
                [(w.category.__name__, str(w.message)) for w in caught]]

    _same(program)


@pytest.mark.parametrize("grad_mode", [True, False])
def test_function_returning_one_tensor_twice(grad_mode):
    def program(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                return out, out, out.detach()

            @staticmethod
            def backward(ctx, g1, g2, g3):
                seen.append([_plain(g1), _plain(g2), _plain(g3)])
                return g1 * 2 + g2 * 3 + g3

        seen = []
        x = lib.ones(2, requires_grad=True)
        with lib.set_grad_enabled(grad_mode):
            a, b, c = Twice.apply(x)
        result = [a is b, a.output_nr, c.output_nr, a.requires_grad, c.requires_grad]
        if grad_mode:
            (a * 5).sum().backward()
            result += [seen, _plain(x.grad)]
        return result

    _same(program)


def test_function_returning_input_twice_gives_two_views():
    def program(lib):
        class Same(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x, x.view_as(x), x

            @staticmethod
            def backward(ctx, g1, g2, g3):
                seen.append([_plain(g1), _plain(g2), _plain(g3)])
                return g1 + g2 + g3

        seen = []
        x = lib.ones(2, requires_grad=True)
        a, b, c = Same.apply(x)
        result = [a is c, a is x, a.output_nr, b.output_nr, c.output_nr, a._base is x]
        (a + b * 2 + c * 4).sum().backward()
        return result + [seen, _plain(x.grad)]

    _same(program)


def test_function_returning_dirty_input_twice():
    def program(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x, x

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append([_plain(g1), _plain(g2)])
                return g1 * 2 + g2 * 2

        seen = []
        x = lib.ones(2, requires_grad=True)
        c = x.clone()
        before = c._version
        a, b = Double.apply(c)
        result = [a is b, a is c, c._version - before, a.output_nr]
        (a + b).sum().backward()
        result += [seen, _plain(x.grad)]
        view = x.clone()[0]
        result.append(_outcome(lambda: Double.apply(view)))
        result.append(_outcome(lambda: Double.apply(x)))
        return result

    _same(program)


# --- numpy() and pickling of tensors that require grad --------------------------------------


@pytest.mark.parametrize("kind", ["leaf", "view", "no_grad_view", "non_leaf"])
@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference"])
def test_numpy_refused_only_while_grad_mode_is_on(kind, mode):
    import numpy as np

    def program(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        with lib.no_grad():
            no_grad_view = x[1]
        t = {"leaf": x, "view": x[0], "no_grad_view": no_grad_view, "non_leaf": x * 2}[kind]
        context = {"grad": lib.enable_grad, "no_grad": lib.no_grad,
                   "inference": lib.inference_mode}[mode]
        with context():
            got = [_outcome(lambda: t.numpy().tolist()),
                   _outcome(lambda: np.asarray(t).tolist()),
                   _outcome(lambda: t.numpy(force=True).tolist())]
        return got

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch's own __array__ on NumPy 2
        _same(program)


def test_pickled_no_grad_view_keeps_requires_grad():
    import pickle

    def program(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        with lib.no_grad():
            view = x[1]
        results = []
        for t in (x, view, x * 2, x.detach()):
            back = pickle.loads(pickle.dumps(t))
            results.append([t.requires_grad, back.requires_grad, back.is_leaf, back.tolist()])
        return results

    _same(program)


# --- as_strided: torch's storage offset, and the gradient through the input's own layout ------


def _as_strided_program(make_input, size, stride, offset, function_form=False):
    def program(lib):
        base = lib.arange(12.0, dtype=lib.float64).requires_grad_()
        x = make_input(base)
        args = (size, stride) if offset == "default" else (size, stride, offset)
        result = _outcome(lambda: (lib.as_strided(x, *args) if function_form
                                   else x.as_strided(*args)))
        if result[0] != "ok":
            return [result]
        y = result[1]
        weights = lib.arange(1.0, y.numel() + 1, dtype=lib.float64).reshape(y.shape) ** 2
        (y * weights).sum().backward()
        return [y.tolist(), y.grad_fn.name(), base.grad.tolist()]

    return program


INPUTS = {
    "plain": lambda t: t * 1,
    "transposed": lambda t: t.view(3, 4).t(),
    "row_view": lambda t: t.view(3, 4)[1],
    "tail_view": lambda t: t[5:],
    "column_view": lambda t: t.view(3, 4)[:, 1],
    "expanded": lambda t: t[:3].expand(2, 3),
}
GEOMETRIES = [((3,), (1,), "default"), ((2, 2), (1, 2), "default"), ((2, 2), (1, 3), None),
              ((3,), (2,), 0), ((2, 2), (2, 1), 1), ((3,), (1,), 6), ((2,), (1,), -1),
              ((2,), (1,), 20), ((3, 2), (1, 1), 2)]


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=str)
@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_as_strided_offset_and_gradient(kind, geometry):
    _same(_as_strided_program(INPUTS[kind], *geometry))


@pytest.mark.parametrize("kind", ["row_view", "transposed"])
def test_as_strided_function_form(kind):
    _same(_as_strided_program(INPUTS[kind], (2, 2), (1, 2), 5, function_form=True))


@pytest.mark.parametrize("kind", ["plain", "transposed", "tail_view", "expanded"])
def test_as_strided_gradient_of_gradient(kind):
    def program(lib):
        base = lib.arange(12.0, dtype=lib.float64).requires_grad_()
        x = INPUTS[kind](base)
        y = x.as_strided((2, 2), (1, 2), 6)
        (grad,) = lib.autograd.grad((y ** 3).sum(), base, create_graph=True)
        (second,) = lib.autograd.grad((grad * lib.arange(12.0, dtype=lib.float64)).sum(), base)
        return [grad.tolist(), second.tolist()]

    _same(program)
    base = leafgrad.arange(12.0, dtype=leafgrad.float64).requires_grad_()
    assert leafgrad.autograd.gradgradcheck(
        lambda t: INPUTS[kind](t).as_strided((2, 2), (1, 2), 6) ** 2, (base,))


# --- hooks of outputs that get no gradient ---------------------------------------------------


def _none_function(lib):
    class Drop(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return None

    return Drop


@pytest.mark.parametrize("split", ["unbind", "chunk", "split"])
def test_sibling_hook_sees_none(split):
    def program(lib):
        seen = []
        x = lib.arange(4.0, requires_grad=True)
        pieces = {"unbind": lambda: x.unbind(), "chunk": lambda: x.chunk(2),
                  "split": lambda: x.split(1)}[split]()
        pieces[0].register_hook(lambda g: seen.append(("first", _plain(g))))
        pieces[-1].register_hook(lambda g: seen.append(("last", _plain(g))))
        pieces[0].retain_grad()
        pieces[-1].sum().backward()
        seen.append(_plain(x.grad))
        seen.append(_outcome(lambda: pieces[0].grad))
        (grad,) = lib.autograd.grad(pieces[-1].sum(), x)
        seen.append(_plain(grad))
        return seen

    _same(program)


@pytest.mark.parametrize("form", ["backward", "grad"])
def test_hooks_of_a_node_reached_without_gradient(form):
    def program(lib):
        seen = []
        x = lib.ones(2, requires_grad=True)
        x.register_hook(lambda g: seen.append(("leaf", _plain(g))))
        x.register_post_accumulate_grad_hook(lambda p: seen.append(("acc", _plain(p.grad))))
        middle = x * 3
        middle.register_hook(lambda g: seen.append(("middle", _plain(g))))
        middle.grad_fn.register_prehook(lambda g: seen.append(("pre", [_plain(t) for t in g])))
        middle.grad_fn.register_hook(
            lambda gi, go: seen.append(("post", [_plain(t) for t in gi], [_plain(t) for t in go])))
        out = _none_function(lib).apply(middle).sum()
        if form == "backward":
            out.backward()
            seen.append(_plain(x.grad))
        else:
            seen.append(lib.autograd.grad(out, x, allow_unused=True))
        return seen

    _same(program)


@pytest.mark.parametrize("returned", ["tensor", "none"])
def test_hook_returning_a_value_for_a_missing_gradient(returned):
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        middle = x * 3
        if returned == "tensor":
            middle.register_hook(lambda g: lib.ones(2))
        else:
            middle.register_hook(lambda g: None)
        out = _none_function(lib).apply(middle).sum()
        return [_outcome(lambda: out.backward()), _plain(x.grad)]

    _same(program)


def test_function_node_hooks_see_every_output():
    def program(lib):
        seen = []

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone(), x.clone()

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append(("backward", _plain(g1), _plain(g2)))
                return g1 + g2

        x = lib.ones(2, requires_grad=True)
        a, b = Two.apply(x)
        b.register_hook(lambda g: seen.append(("b", _plain(g))))
        a.grad_fn.register_prehook(lambda g: seen.append(("pre", [_plain(t) for t in g])))
        a.grad_fn.register_hook(
            lambda gi, go: seen.append(("post", [_plain(t) for t in gi], [_plain(t) for t in go])))
        a.sum().backward()
        return seen + [_plain(x.grad)]

    _same(program)


# --- call forms: grad_fn called directly, gradients paired with outputs -----------------------


def test_calling_a_node_with_the_wrong_number_of_gradients():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        y = x ** 2

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 2, t * 3

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 2 + g2 * 3

        a, _ = Two.apply(x)
        return [_outcome(lambda: y.grad_fn(x.detach(), x.detach())),
                _outcome(lambda: y.grad_fn()),
                _outcome(lambda: _plain(y.grad_fn(x.detach()))),
                _outcome(lambda: a.grad_fn(lib.ones(2))),
                _outcome(lambda: _plain(a.grad_fn(lib.ones(2), lib.ones(2))))]

    _same(program)


@pytest.mark.parametrize("form", ["grad", "backward"])
def test_extra_gradients_are_ignored_missing_ones_are_not(form):
    def program(lib):
        x = lib.ones(2, requires_grad=True)

        def run(outputs, grads):
            if form == "grad":
                return [_plain(g) for g in lib.autograd.grad(outputs, x, grads)]
            lib.autograd.backward(outputs, grads)
            return _plain(x.grad)

        return [_outcome(lambda: run([x * 2], [lib.ones(2), lib.ones(2)])),
                _outcome(lambda: run([x * 2], [lib.ones(2), None, 3])),
                _outcome(lambda: run([x * 2, x * 3], [lib.ones(2)])),
                _outcome(lambda: run([(x * 2).sum()], []))]

    _same(program)


# --- Variable._execution_engine.queue_callback ---------------------------------------------


@pytest.mark.parametrize("depths", [(0,), (1,), (0, 1)])
def test_queue_callback_runs_once_after_its_backward(depths):
    def program(lib):
        engine = lib.autograd.Variable._execution_engine
        events = []

        class Inner(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                if 1 in depths:
                    engine.queue_callback(lambda: events.append("inner callback"))
                events.append("inner backward")
                return grad

        class Outer(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                if 0 in depths:
                    def first():
                        events.append(("outer callback", _plain(leaf.grad)))
                        engine.queue_callback(lambda: events.append("queued by a callback"))
                    engine.queue_callback(first)
                fresh = grad.detach().requires_grad_()
                with lib.enable_grad():
                    Inner.apply(fresh).sum().backward()
                events.append("outer backward done")
                return grad * 2

        leaf = lib.ones(2, requires_grad=True)
        Outer.apply(leaf).sum().backward()
        events.append(_plain(leaf.grad))
        events.append(_outcome(lambda: engine.queue_callback(lambda: None)))
        return events

    _same(program)


# --- deep reentrant backward ------------------------------------------------------------------


@pytest.mark.parametrize("fail", [False, True])
def test_deep_reentrant_backward(fail):
    def program(lib):
        seen = []

        class Step(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                with lib.enable_grad():
                    ctx.x = x.detach().requires_grad_() - 1
                return ctx.x.detach()

            @staticmethod
            def backward(ctx, grad):
                if ctx.x < 0:
                    seen.append(lib.is_grad_enabled())
                    if fail:
                        raise ValueError("innermost")
                    return grad
                with lib.enable_grad():
                    Step.apply(ctx.x).sum().backward()
                return grad * 1

        v = lib.tensor(260.0, requires_grad=True)
        outcome = _outcome(lambda: Step.apply(v).sum().backward())
        return [outcome, _plain(v.grad), seen]

    _same(program)


@pytest.mark.parametrize("only_inputs", [True, False])
def test_grad_only_inputs_is_deprecated(only_inputs):
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            (grad,) = lib.autograd.grad((x * 3).sum(), x, only_inputs=only_inputs)
        return [_plain(grad), [(w.category.__name__, str(w.message)) for w in caught]]

    _same(program)


# --- views a custom Function returns, and a view it modifies in place -----------------------


def _view_functions(lib):
    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a[:1], a * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g2

    class TwoNonDifferentiable(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            b = a * 2
            ctx.mark_non_differentiable(b)
            return a[:1], b

        @staticmethod
        def backward(ctx, g1, g2):
            return g1

    class TwoInteger(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a[:1], lib.ones(2, dtype=lib.int64)

        @staticmethod
        def backward(ctx, g1, g2):
            return g1

    class One(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a[:1]

        @staticmethod
        def backward(ctx, g):
            return g

    class Same(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    return {"Two": Two, "TwoNonDifferentiable": TwoNonDifferentiable, "TwoInteger": TwoInteger,
            "One": One, "Same": Same}


@pytest.mark.parametrize("mode", ["grad", "no_grad", "no_input_requires_grad"])
@pytest.mark.parametrize("function", ["Two", "TwoNonDifferentiable", "TwoInteger", "One", "Same"])
def test_inplace_on_a_view_a_function_returned(function, mode):
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(1 if function != "Same" else 2, requires_grad=True)
        inp = lib.ones(2) if mode == "no_input_requires_grad" else x.clone()
        with lib.set_grad_enabled(mode != "no_grad"):
            out = _view_functions(lib)[function].apply(inp)
        first = out[0] if isinstance(out, tuple) else out
        return [first._is_view(), first.requires_grad, _outcome(lambda: _plain(first.add_(y))),
                _outcome(lambda: _plain(first.mul_(2)))]

    _same(program)


@pytest.mark.parametrize("view", ["view_as", "slice"])
def test_function_modifying_a_view_in_place_gets_its_backward_called(view):
    def program(lib):
        calls = []

        class Adder(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                a.add_(b)
                ctx.mark_dirty(a)
                return a

            @staticmethod
            def backward(ctx, grad):
                calls.append(_plain(grad))
                return grad * 10, grad * 100

        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        base = a.clone()
        target = base.view_as(a) if view == "view_as" else base[:1]
        out = Adder.apply(target, b if view == "view_as" else b[:1])
        names = [out.grad_fn.name(), base.grad_fn.name()]
        (out * 3).sum().backward(retain_graph=True)
        first = [calls[:], _plain(a.grad), _plain(b.grad)]
        base.sum().backward()
        return [names, first, calls, _plain(a.grad), _plain(b.grad)]

    _same(program)


@pytest.mark.parametrize("base", ["tensor", "int", "float", "function"])
def test_zero_base_power_gradient_without_warnings(base):
    def program(lib):
        b = lib.tensor([-1.0, 0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if base == "tensor":
                out = lib.tensor([0.0, 0.0, 0.0]) ** b
            elif base == "int":
                out = 0 ** b
            elif base == "float":
                out = 0.0 ** b
            else:
                out = lib.pow(0.0, b)
            out.sum().backward()
        return [_plain(out), _plain(b.grad), [str(w.message) for w in caught]]

    _same(program)


UNIQUE_CALLS = {
    "unique": lambda lib, x: lib.unique(x),
    "unique_counts": lambda lib, x: lib.unique(x, return_counts=True),
    "unique_inverse_method": lambda lib, x: x.unique(sorted=False, return_inverse=True),
    "unique_dim": lambda lib, x: lib.unique(x, dim=0),
    "unique_consecutive": lambda lib, x: lib.unique_consecutive(x),
    "unique_consecutive_dim": lambda lib, x: x.unique_consecutive(dim=1, return_counts=True),
}


@pytest.mark.parametrize("call", sorted(UNIQUE_CALLS))
@pytest.mark.parametrize("mode", ["grad", "no_grad", "no_requires_grad"])
def test_unique_values_record_a_node_without_derivative(call, mode):
    def program(lib):
        x = lib.tensor([[1.0, 2.0], [2.0, 2.0]], requires_grad=mode != "no_requires_grad")
        with lib.set_grad_enabled(mode != "no_grad"):
            result = UNIQUE_CALLS[call](lib, x)
        parts = result if isinstance(result, tuple) else (result,)
        values = parts[0]
        observed = [[p.tolist() for p in parts], [p.requires_grad for p in parts], values.is_leaf]
        if values.grad_fn is not None:
            observed += [values.grad_fn.name(), type(values.grad_fn).__name__,
                         len(values.grad_fn.next_functions),
                         _outcome(lambda: values.sum().backward()), (values * 2).grad_fn.name()]
        return observed

    _same(program)
