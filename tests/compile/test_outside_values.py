"""leafgrad.compile and Python values from outside the call (sources.py Notes: Python values
from outside the call; side effects), and results that require grad (api.py).

Every test runs the same program compiled and eagerly, over several calls that change the
outside values between calls, and compares results and outside state after every call; eager
leafgrad against torch where the program is torch's too. A changed Python value recaptures
(never a stale replay); a NumPy array handed to a factory is read live (one capture); a side
effect makes the function run eagerly, with one warning (fullgraph=True raises).
"""

from __future__ import annotations

import random
import types
import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

CALLS = 5


def _x(call: int, shape=(3,)):
    return (np.random.default_rng(call).standard_normal(shape) * 2).astype(np.float32)


def _same(got, want, what):
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        if isinstance(w, leafgrad.Tensor) or hasattr(w, "detach"):
            g, w = g.detach().numpy(), w.detach().numpy()
            assert g.dtype == w.dtype and g.shape == w.shape, what
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, err_msg=what)
        else:
            assert g == w, what


def _run(program, mutate, calls=CALLS, torch_too=True):
    """``program(T)`` -> ``(fn, state)``: a function over module ``T`` reading outside values,
    and a function returning the outside values to compare. ``mutate(state_objects, call)``
    changes the outside values before each call (on every side's objects)."""
    sides = {"compiled": program(leafgrad), "eager": program(leafgrad)}
    if torch_too:
        sides["torch"] = program(require_torch())
    compiled = leafgrad.compile(sides["compiled"][0])
    for call in range(calls):
        results = {}
        for name, (fn, env) in sides.items():
            mutate(env, call)
            T = require_torch() if name == "torch" else leafgrad
            x = T.tensor(_x(call))
            results[name] = (compiled if name == "compiled" else fn)(x)
        _same(results["compiled"], results["eager"], f"call {call}: compiled vs eager")
        if torch_too:
            _same(results["eager"], results["torch"], f"call {call}: eager vs torch")
        for name in sides:
            if name != "eager":
                assert _state(sides[name][1]) == _state(sides["eager"][1]), (call, name)
    return compiled


def _state(env):
    out = {}
    for key, value in vars(env).items():
        if isinstance(value, np.ndarray):
            value = value.tolist()
        elif hasattr(value, "__dict__") and not isinstance(value, types.ModuleType) and \
                not callable(value):
            value = _state(value)
        out[key] = value
    return out


# -- Python values read by the function: guarded, recaptured on change --------------------------

def _program_reading(body):
    """A program whose function reads ``env`` (a namespace standing for globals, closures and
    objects) through ``body(T, env, x)``."""
    def program(T):
        env = types.SimpleNamespace(scale=2.0, k=3, lst=[1.0, 2.0, 3.0], cfg={"lr": 0.5},
                                    arr=np.arange(3, dtype=np.float32),
                                    obj=types.SimpleNamespace(a=types.SimpleNamespace(b=1.5)))
        return (lambda x: body(T, env, x)), env
    return program


READS = {
    "number": (lambda T, e, x: x * e.scale, "scale"),
    "int-shape": (lambda T, e, x: x.repeat(e.k), "k"),
    "dict-entry": (lambda T, e, x: x * e.cfg["lr"], "cfg"),
    "nested-attribute": (lambda T, e, x: x + e.obj.a.b, "obj"),
    "tensor-of-list": (lambda T, e, x: x * T.tensor(e.lst), "lst"),
    "as_tensor-of-list": (lambda T, e, x: x * T.as_tensor(e.lst), "lst"),
    "full-of-number": (lambda T, e, x: x + T.full((3,), e.scale), "scale"),
    "number-from-array": (lambda T, e, x: x * float(e.arr[1]), "arr"),
    "arange-of-int": (lambda T, e, x: T.arange(e.k, dtype=T.float32) * x, "k"),
}


def _change(what):
    def mutate(env, call):
        if what == "scale":
            env.scale = 2.0 + call % 3  # back to an earlier value too: a cached capture
        elif what == "k":
            env.k = 3
        elif what == "cfg":
            env.cfg["lr"] = 0.5 * (call + 1)
        elif what == "obj":
            if call == 2:
                env.obj.a = types.SimpleNamespace(b=-1.0)  # a new object on the way
            else:
                env.obj.a.b = 1.5 + call
        elif what == "lst":
            env.lst[call % 3] += 1.0
        elif what == "arr":
            env.arr[1] = call
    return mutate


@pytest.mark.parametrize("name", sorted(READS))
def test_python_values_read(name):
    body, what = READS[name]
    compiled = _run(_program_reading(body), _change(what))
    assert all(entry.breaks == [] for entry in compiled.captures)
    if what == "k":
        assert len(compiled.captures) == 1 and compiled.replays == CALLS - 1
    else:
        assert len(compiled.captures) > 1  # a changed value is a new capture


def test_returning_to_an_earlier_value_replays_its_capture():
    env = types.SimpleNamespace(scale=1.0)
    compiled = leafgrad.compile(lambda x: x * env.scale)
    for call in range(8):
        env.scale = float(call % 2)
        x = leafgrad.tensor(_x(call))
        np.testing.assert_array_equal(compiled(x).numpy(), (x * env.scale).numpy())
    assert len(compiled.captures) == 2 and compiled.replays == 6


SCALE = 2.0
ARRAY = np.arange(3, dtype=np.float32)


def _global_scale(x):
    return x * SCALE


def _helper():
    return SCALE + 1


def _through_helper(x):
    return x * _helper()


@pytest.mark.parametrize("fn", [_global_scale, _through_helper])
def test_module_globals(fn):
    global SCALE
    compiled = leafgrad.compile(fn)
    try:
        for call in range(CALLS):
            SCALE = float(call // 2)
            x = leafgrad.tensor(_x(call))
            np.testing.assert_array_equal(compiled(x).numpy(), fn(x).numpy())
    finally:
        SCALE = 2.0
    assert len(compiled.captures) == 3 and compiled.replays == 2


def test_closure_variable_rebound():
    lr = 0.1

    def step(x):
        return x * lr

    compiled = leafgrad.compile(step)
    for call in range(CALLS):
        lr = 0.1 * (call + 1)  # noqa: F841 - read by step through its cell
        x = leafgrad.tensor(_x(call))
        np.testing.assert_array_equal(compiled(x).numpy(), step(x).numpy())
    assert len(compiled.captures) == CALLS


def test_class_attribute_and_module_attribute():
    class Scaled(leafgrad.nn.Module):
        factor = 2.0

        def __init__(self):
            super().__init__()
            self.lin = leafgrad.nn.Linear(3, 2)
            self.bias_scale = 1.0

        def forward(self, x):
            return self.lin(x) * self.factor + self.bias_scale

    leafgrad.manual_seed(0)
    model = Scaled()
    compiled = leafgrad.compile(model)
    for call in range(6):
        if call == 2:
            Scaled.factor = 3.0
        if call == 4:
            model.bias_scale = -1.0
        x = leafgrad.tensor(_x(call))
        with leafgrad.no_grad():  # (a result requiring grad with no backward runs eagerly)
            np.testing.assert_array_equal(compiled(x).numpy(), model(x).numpy())
    assert len(compiled._compiled_call.captures) == 3
    assert compiled._compiled_call.replays == 3


def test_replaced_submodule_and_parameter():
    leafgrad.manual_seed(0)
    model = leafgrad.nn.Sequential(leafgrad.nn.Linear(3, 3))
    holder = types.SimpleNamespace(model=model, w=leafgrad.ones(3))

    def f(x):
        with leafgrad.no_grad():
            return holder.model(x) * holder.w

    compiled = leafgrad.compile(f)
    for call in range(CALLS):
        if call == 2:
            holder.model = leafgrad.nn.Sequential(leafgrad.nn.Linear(3, 3))
        if call == 3:
            holder.w = leafgrad.full((3,), 2.0)
        x = leafgrad.tensor(_x(call))
        np.testing.assert_array_equal(compiled(x).numpy(), f(x).numpy())
    assert len(compiled.captures) == 3


# -- NumPy arrays turned into tensors: read live (one capture) ------------------------------------

ARRAY_FACTORIES = {
    "tensor": lambda T, a: T.tensor(a),
    "tensor-dtype": lambda T, a: T.tensor(a, dtype=T.float64),
    "as_tensor": lambda T, a: T.as_tensor(a),
    "as_tensor-dtype": lambda T, a: T.as_tensor(a, dtype=T.float64),
    "from_numpy": lambda T, a: T.from_numpy(a),
    "asarray": lambda T, a: T.asarray(a),
    "asarray-copy": lambda T, a: T.asarray(a, copy=True),
    "asarray-dtype": lambda T, a: T.asarray(a, dtype=T.float64),
}


@pytest.mark.parametrize("where", ["global", "closure", "attribute"])
@pytest.mark.parametrize("factory", sorted(ARRAY_FACTORIES))
def test_numpy_arrays_read_live(factory, where):
    make = ARRAY_FACTORIES[factory]

    def program(T):
        env = types.SimpleNamespace(arr=np.arange(3, dtype=np.float32))
        if where == "global":
            namespace = {"make": make, "T": T, "arr": env.arr}  # fn's module globals
            exec("def fn(x):\n    return x * make(T, arr)\n", namespace)
            fn = namespace["fn"]
        elif where == "closure":
            arr = env.arr
            fn = lambda x: x * make(T, arr)  # noqa: E731
        else:
            fn = lambda x: x * make(T, env.arr)  # noqa: E731
        return fn, env

    def mutate(env, call):
        env.arr[call % 3] = call * 1.5  # in place: the same array object

    sides = {"compiled": program(leafgrad), "eager": program(leafgrad),
             "torch": program(require_torch())}
    compiled = leafgrad.compile(sides["compiled"][0])
    for call in range(CALLS):
        results = {}
        for name, (fn, env) in sides.items():
            mutate(env, call)
            T = require_torch() if name == "torch" else leafgrad
            x = T.tensor(_x(call)).double()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch's non-writable array warning
                results[name] = (compiled if name == "compiled" else fn)(x)
        _same(results["compiled"], results["eager"], f"call {call}")
        _same(results["eager"], results["torch"], f"call {call}: torch")
    assert len(compiled.captures) == 1 and compiled.replays == CALLS - 1
    assert compiled.captures[0].breaks == []


def test_a_replaced_array_recaptures():
    env = types.SimpleNamespace(arr=np.ones(3))
    compiled = leafgrad.compile(lambda x: x * leafgrad.tensor(env.arr))
    for call in range(4):
        if call == 2:
            env.arr = np.full(3, 5.0)
        x = leafgrad.tensor(_x(call)).double()
        np.testing.assert_array_equal(compiled(x).numpy(), (x * leafgrad.tensor(env.arr)).numpy())
    assert len(compiled.captures) == 2


# -- side effects: run eagerly, one warning; fullgraph raises ------------------------------------

def _effect_programs():
    counter = {"n": 0}
    return {
        "attribute +=": lambda env, x: (setattr(env, "steps", env.steps + 1), x * 2)[1],
        "list append": lambda env, x: (env.log.append(float(len(env.log))), x * 2)[1],
        "dict set": lambda env, x: (env.seen.__setitem__("last", len(env.seen)), x + 1)[1],
        "closure dict": lambda env, x: (counter.__setitem__("n", counter["n"] + 1), x * 3)[1],
    }


@pytest.mark.parametrize("name", sorted(_effect_programs()))
def test_python_side_effects_run_eagerly(name):
    body = _effect_programs()[name]
    eager_env = types.SimpleNamespace(steps=0, log=[], seen={})
    compiled_env = types.SimpleNamespace(steps=0, log=[], seen={})
    compiled = leafgrad.compile(lambda x: body(compiled_env, x))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for call in range(CALLS):
            x = leafgrad.tensor(_x(call))
            _same(compiled(x), body(eager_env, x), f"call {call}")
            assert _state(compiled_env) == _state(eager_env)
    effects = [w for w in caught if "side effects" in str(w.message)]
    assert len(effects) == 1
    assert compiled.replays == 0 and len(compiled.captures) == 1
    assert compiled.captures[0].breaks[0].reason.startswith("side effect")


class _Counting(leafgrad.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = leafgrad.nn.Linear(3, 3)
        self.steps = 0

    def forward(self, x):
        self.steps += 1
        return self.lin(x)


def test_module_counting_its_calls():
    leafgrad.manual_seed(0)
    model = _Counting()
    compiled = leafgrad.compile(model)
    with pytest.warns(UserWarning, match="side effects"):
        for call in range(CALLS):
            compiled(leafgrad.tensor(_x(call)))
    assert model.steps == CALLS


def test_print_runs_every_call(capsys):
    def f(x):
        print("step", x.shape)
        return x * 2

    compiled = leafgrad.compile(f)
    with pytest.warns(UserWarning, match="print"):
        for call in range(3):
            compiled(leafgrad.tensor(_x(call)))
    assert capsys.readouterr().out.count("step") == 3


@pytest.mark.parametrize("draw", ["random", "numpy", "generator", "time"])
def test_values_that_change_every_call_run_eagerly(draw):
    import time

    def program(rng):
        def f(x):
            if draw == "random":
                return x * random.random()
            if draw == "numpy":
                return x * np.random.rand()
            if draw == "generator":
                return x * rng.random()
            return x * (time.perf_counter() * 0 + 1)
        return f

    compiled = leafgrad.compile(program(np.random.default_rng(0)))
    eager = program(np.random.default_rng(0))
    with pytest.warns(UserWarning, match="side effects"):
        for call in range(3):
            random.seed(call)
            np.random.seed(call)
            got = compiled(leafgrad.tensor(_x(call)))
            random.seed(call)
            np.random.seed(call)
            np.testing.assert_array_equal(got.numpy(), eager(leafgrad.tensor(_x(call))).numpy())
    assert compiled.replays == 0


def test_fullgraph_raises_at_a_side_effect():
    log = []
    compiled = leafgrad.compile(lambda x: (log.append(1), x * 2)[1], fullgraph=True)
    with pytest.raises(leafgrad.compile.Unsupported, match="side effect"):
        compiled(leafgrad.tensor(_x(0)))


def test_explain_names_the_side_effect():
    state = types.SimpleNamespace(steps=0)

    def step(x):
        state.steps += 1
        return x * 2

    out = leafgrad.compile.explain(step, leafgrad.tensor(_x(0)))
    assert out.graph_break_count == 1 and "state.steps" in out.break_reasons[0].reason


def test_no_side_effect_for_state_made_in_the_call():
    """Lists, dicts and objects made in the call may change freely."""
    def f(x):
        parts = []
        for k in range(3):
            parts.append(x * k)
        box = types.SimpleNamespace(total=0)
        box.total = sum(parts[1:], parts[0])
        return box.total

    compiled = leafgrad.compile(f)
    for call in range(CALLS):
        x = leafgrad.tensor(_x(call))
        np.testing.assert_array_equal(compiled(x).numpy(), f(x).numpy())
    assert compiled.replays == CALLS - 1


def test_writes_to_a_live_array_are_not_side_effects():
    """A NumPy array the function writes through ``as_tensor`` is replayed live."""
    compiled_arr, eager_arr = np.zeros(3), np.zeros(3)

    def program(arr):
        def f(x):
            leafgrad.as_tensor(arr).add_(x)
            return x * 2
        return f

    compiled = leafgrad.compile(program(compiled_arr))
    eager = program(eager_arr)
    for call in range(CALLS):
        x = leafgrad.tensor(_x(call)).double()
        compiled(x)
        eager(x)
        np.testing.assert_array_equal(compiled_arr, eager_arr)
    assert compiled.replays == CALLS - 1


# -- results that require grad --------------------------------------------------------------------

LEAVES = {
    "tensor-requires_grad": lambda T, x: T.tensor([1.0, 2.0, 3.0], requires_grad=True),
    "ones-requires_grad": lambda T, x: T.ones(3, requires_grad=True),
    "requires_grad_": lambda T, x: T.zeros(3).requires_grad_(),
    "clone-requires_grad_": lambda T, x: x.detach().clone().requires_grad_(True),
}


@pytest.mark.parametrize("backward", [False, True])
@pytest.mark.parametrize("name", sorted(LEAVES))
def test_leaf_made_in_the_call_returned(name, backward):
    make = LEAVES[name]

    def program(T):
        def f(x):
            w = make(T, x)
            if backward:
                loss = (w * x).sum()
                loss.backward()
                return w, loss
            return w
        return f

    torch = require_torch()
    compiled = leafgrad.compile(program(leafgrad))
    eager = program(leafgrad)
    reference = program(torch)
    kept = []
    for call in range(CALLS):
        got = compiled(leafgrad.tensor(_x(call)))
        want = eager(leafgrad.tensor(_x(call)))
        ref = reference(torch.tensor(_x(call)))
        got, want, ref = [r if isinstance(r, tuple) else (r,) for r in (got, want, ref)]
        for g, w, r in zip(got, want, ref):
            # (the loss of a step that ran its own backward comes back behind torch.compile's
            # node, CompiledFunctionBackward, on every call: api.py)
            named = (lambda t: type(t.grad_fn).__name__ if t.grad_fn is None or t.is_leaf
                     else "CompiledFunctionBackward")
            assert repr(g) == repr(w).replace(f"<{type(w.grad_fn).__name__}>",
                                              f"<{named(w)}>")
            assert (g.requires_grad, g.is_leaf) == (w.requires_grad, w.is_leaf) == (
                r.requires_grad, r.is_leaf)
            assert type(g.grad_fn).__name__ == named(w) == named(r)
            np.testing.assert_allclose(w.detach().numpy(), r.detach().numpy(), rtol=1e-6)
        leaf, leaf_ref = got[0], ref[0]
        if backward:
            np.testing.assert_array_equal(leaf.grad.numpy(), want[0].grad.numpy())
            np.testing.assert_allclose(leaf.grad.numpy(), leaf_ref.grad.numpy(), rtol=1e-6)
        else:
            assert leaf.grad is None and want[0].grad is None
        kept.append((leaf, None if leaf.grad is None else leaf.grad.numpy().copy()))
    # a later replay leaves the leaves the earlier calls returned alone
    for leaf, grad in kept:
        assert (leaf.grad is None) == (grad is None)
        if grad is not None:
            np.testing.assert_array_equal(leaf.grad.numpy(), grad)
    assert compiled.replays == CALLS - 1


# -- NumPy arrays and containers passed as arguments ----------------------------------------------

ARGUMENT_PROGRAMS = {
    "float-of-array": lambda T, x, a: x * float(a[0]),
    "tensor-of-array": lambda T, x, a: x * T.tensor(a, dtype=T.float32)[:3],
    "dict-of-list": lambda T, x, d: x * d["k"][0],
    "object-attribute-list": lambda T, x, o: x * o.v[1],
}


@pytest.mark.parametrize("name", sorted(ARGUMENT_PROGRAMS))
def test_arguments_changed_in_place(name):
    """The same array/dict/object passed again after an in-place change of its values."""
    body = ARGUMENT_PROGRAMS[name]
    arg = {"float-of-array": np.array([1.0, 2.0, 3.0]),
           "tensor-of-array": np.array([1.0, 2.0, 3.0]),
           "dict-of-list": {"k": [1.0]},
           "object-attribute-list": types.SimpleNamespace(v=[1.0, 2.0])}[name]
    torch = require_torch()
    compiled = leafgrad.compile(lambda x, a: body(leafgrad, x, a))
    for call in range(CALLS):
        if isinstance(arg, np.ndarray):
            arg[0] = call
        elif isinstance(arg, dict):
            arg["k"][0] = float(call)
        else:
            arg.v[1] = float(call)
        got = compiled(leafgrad.tensor(_x(call)), arg)
        want = body(leafgrad, leafgrad.tensor(_x(call)), arg)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_allclose(want.numpy(),
                                   body(torch, torch.tensor(_x(call)), arg).numpy(), rtol=1e-6)
    assert [b for entry in compiled.captures for b in entry.breaks] == []


def test_arguments_and_defaults_changed_by_the_call_run_eagerly():
    def f(x, log, cache={}):  # noqa: B006 - the mutable default is the point
        log.append(1.0)
        cache["n"] = cache.get("n", 0) + 1
        return x * 2

    eager_log, compiled_log = [], []
    compiled = leafgrad.compile(f)
    with pytest.warns(UserWarning, match="side effects"):
        for call in range(3):
            compiled(leafgrad.tensor(_x(call)), compiled_log)
    f.__defaults__[0].clear()
    for call in range(3):
        f(leafgrad.tensor(_x(call)), eager_log)
    assert compiled_log == eager_log and compiled.replays == 0


HYPERPARAMETERS = {
    "Dropout.p": (lambda nn: nn.Dropout(0.5), "p", 0.0),
    "LeakyReLU.negative_slope": (lambda nn: nn.LeakyReLU(0.1), "negative_slope", 0.5),
    "BatchNorm1d.momentum": (lambda nn: nn.BatchNorm1d(3), "momentum", 0.9),
    "BatchNorm1d.eps": (lambda nn: nn.BatchNorm1d(3), "eps", 1.0),
    "ELU.alpha": (lambda nn: nn.ELU(), "alpha", 3.0),
    "Softplus.beta": (lambda nn: nn.Softplus(), "beta", 2.0),
}


@pytest.mark.parametrize("name", sorted(HYPERPARAMETERS))
def test_module_hyperparameters_changed_between_calls(name):
    """leafgrad's own modules read their hyperparameters in library code: they are watched
    when the module is called."""
    make, attr, value = HYPERPARAMETERS[name]
    torch = require_torch()
    sides = [make(leafgrad.nn), make(leafgrad.nn), make(torch.nn)]
    compiled = leafgrad.compile(lambda x: sides[0](x) * 1)
    for call in range(4):
        if call == 2:
            for module in sides:
                setattr(module, attr, value)
        results = []
        for index, T in enumerate((leafgrad, leafgrad, torch)):
            T.manual_seed(call)
            x = T.tensor(_x(call, (4, 3)))
            with T.no_grad():
                results.append((compiled if index == 0 else sides[index])(x).numpy())
        np.testing.assert_array_equal(results[0], results[1], err_msg=f"call {call}")
        np.testing.assert_allclose(results[1], results[2], rtol=1e-5, atol=1e-6)
        if "BatchNorm" in name:
            np.testing.assert_array_equal(sides[0].running_mean.numpy(),
                                          sides[1].running_mean.numpy())
    assert len(compiled.captures) == 2 and compiled.replays == 2
