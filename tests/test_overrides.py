"""The ``__torch_function__`` protocol (leafgrad/overrides.py) against torch 2.13: tensor-like
classes (the "Extending torch Python API" examples; see overrides.py's "Where leafgrad
differs" for when they are dispatched to), Tensor subclasses (results converted to
the subclass, the function each operator and property dispatches as), modes, the
``torch.overrides`` helpers, the errors when every handler declines, ``Parameter`` opting out,
and ``DisableTorchFunctionSubclass``. Each case runs the same code on both libraries."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()
LIBS = (torch, leafgrad)


@pytest.fixture(autouse=True)
def _protocol_off_afterwards():
    """The protocol, switched on by these tests' subclasses, is switched off again after each
    (the next test file must see leafgrad as a program that never used it)."""
    yield
    leafgrad.overrides._deactivate()


def _outcome(call):
    try:
        value = call()
    except Exception as error:  # (the first line: the rest names each handler's class)
        return ("error", type(error).__name__, str(error).splitlines()[0])
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        return ("tensor", type(value).__name__, value.detach().numpy().tolist(),
                str(value.grad_fn.name() if hasattr(value.grad_fn, "name") else
                    type(value.grad_fn).__name__ if value.grad_fn is not None else None))
    return ("value", repr(value).replace("leafgrad", "torch"))


# -- a tensor-like class that is not a Tensor (the docs' ScalarTensor) -----------------------------

def _scalar_tensor(lib):
    handled = {}

    class ScalarTensor:
        def __init__(self, n, value):
            self._n, self._value = n, value

        def __repr__(self):
            return f"ScalarTensor(N={self._n}, value={self._value})"

        def tensor(self):
            return self._value * lib.eye(self._n)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if kwargs is None:
                kwargs = {}
            if func not in handled or not all(issubclass(t, (lib.Tensor, ScalarTensor))
                                              for t in types):
                return NotImplemented
            return handled[func](*args, **kwargs)

    def implements(function):
        def decorator(func):
            functools.update_wrapper(func, function)
            handled[function] = func
            return func
        return decorator

    @implements(lib.mean)
    def mean(input):
        return float(input._value) / input._n

    @implements(lib.add)
    def add(input, other):
        if isinstance(input, ScalarTensor) and isinstance(other, ScalarTensor):
            return ScalarTensor(input._n, input._value + other._value)
        return input.tensor() + other if isinstance(input, ScalarTensor) else \
            input + other.tensor()

    return ScalarTensor


_DUCK_CASES = {
    "mean": lambda lib, S: lib.mean(S(5, 2)),
    "add two": lambda lib, S: lib.add(S(2, 2), S(2, 3)),
    "add a tensor": lambda lib, S: lib.add(S(2, 2), lib.ones(2, 2)),
    "not handled": lambda lib, S: lib.sum(S(2, 2)),
    "not handled, list": lambda lib, S: lib.cat([S(2, 2), S(2, 2)]),
    "functional, python": lambda lib, S: lib.nn.functional.relu(S(2, 2)),
    "functional, builtin": lambda lib, S: lib.nn.functional.linear(S(2, 2), S(2, 2)),
    "linalg": lambda lib, S: lib.linalg.norm(S(2, 2)),
    "keyword": lambda lib, S: lib.add(lib.ones(2, 2), other=S(2, 2)),
}


@pytest.mark.parametrize("case", sorted(_DUCK_CASES))
def test_tensor_like_classes(case):
    # Nothing switched the protocol on: the failed call dispatches (overrides.py's
    # dispatch_after_failure; the handlers' table is keyed by the functions before that).
    # nn.functional's functions have no argument wrapper: the protocol must be on for them.
    if case.startswith("functional"):
        leafgrad.overrides.has_torch_function(())
    outcomes = [_outcome(lambda: _DUCK_CASES[case](lib, _scalar_tensor(lib))) for lib in LIBS]
    assert outcomes[1] == outcomes[0]


# -- a Tensor subclass: what each call dispatches as, and what it returns ----------------------

def _logging_subclass(lib, names):
    class Logged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            names.append(getattr(func, "__name__", "?"))
            return super().__torch_function__(func, types, args, kwargs or {})

    return Logged


_SUBCLASS_CASES = {
    "add": lambda T, x: x + 1, "radd": lambda T, x: 1 + x, "iadd": lambda T, x: x.__iadd__(1),
    "sub": lambda T, x: x - 1, "rsub": lambda T, x: 1 - x, "mul": lambda T, x: x * 2,
    "rmul": lambda T, x: 2 * x, "div": lambda T, x: x / 2, "rdiv": lambda T, x: 2 / x,
    "floordiv": lambda T, x: x // 2, "mod": lambda T, x: x % 2, "pow": lambda T, x: x ** 2,
    "rpow": lambda T, x: 2 ** x, "matmul": lambda T, x: x @ x, "neg": lambda T, x: -x,
    "abs": lambda T, x: abs(x), "eq": lambda T, x: x == 1, "lt": lambda T, x: x < 1,
    "getitem": lambda T, x: x[0], "setitem": lambda T, x: x.__setitem__(0, 1.0),
    "len": lambda T, x: len(x), "iter": lambda T, x: list(iter(x)),
    "bool": lambda T, x: bool(x[0]), "float": lambda T, x: float(x[0]),
    "repr": lambda T, x: repr(x), "str": lambda T, x: str(x),
    "contains": lambda T, x: 1.0 in x, "reversed": lambda T, x: reversed(x),
    "shape": lambda T, x: tuple(x.shape), "requires_grad": lambda T, x: x.requires_grad,
    "T": lambda T, x: x.T, "dtype": lambda T, x: str(x.dtype).replace("leafgrad", "torch"), "is_leaf": lambda T, x: x.is_leaf,
    "size": lambda T, x: tuple(x.size()), "numel": lambda T, x: x.numel(),
    "item": lambda T, x: x[0].item(), "tolist": lambda T, x: x.tolist(),
    "function": lambda T, x: T.add(x, 1), "functional": lambda T, x: T.nn.functional.relu(x),
    "detach": lambda T, x: x.detach(), "clone": lambda T, x: x.clone(),
    "to": lambda T, x: x.to(T.float64), "view": lambda T, x: x.view(2),
    "cat": lambda T, x: T.cat([x, x]), "sum": lambda T, x: x.sum(),
    "stack": lambda T, x: T.stack([x, x]), "split": lambda T, x: x.split(1),
    "max with indices": lambda T, x: x.max(0),
}


@pytest.mark.parametrize("case", sorted(_SUBCLASS_CASES))
def test_subclass_dispatch_and_results(case):
    seen = []
    for lib in LIBS:
        names = []
        logged = _logging_subclass(lib, names)
        x = lib.tensor([1.0, 2.0]).as_subclass(logged)
        result = _SUBCLASS_CASES[case](lib, x)
        described = type(result).__name__ if not isinstance(result, (tuple, list)) else \
            [type(item).__name__ for item in result]
        if isinstance(result, str):
            described = result
        seen.append((list(names), described))
    assert seen[1] == seen[0]


def test_subclass_autograd_and_grad_fn():
    """Results are converted with as_subclass: an AliasBackward0 on top, gradients flow."""
    seen = []
    for lib in LIBS:
        class Sub(lib.Tensor):
            pass

        x = lib.tensor([1.0, 2.0], requires_grad=True).as_subclass(Sub)
        y = (x * x).sum()
        y.backward()
        seen.append((type(x).__name__, x.is_leaf, x.grad_fn.name(), type(y).__name__,
                     y.grad_fn.name(), y.grad_fn.next_functions[0][0].name(),
                     x.grad is None, repr(y)))
    assert seen[1] == seen[0]


def test_parameter_and_plain_tensors_take_no_part():
    for lib in LIBS:
        p = lib.nn.Parameter(lib.ones(2))
        assert type(p * 2) is lib.Tensor
        assert not lib.overrides.has_torch_function((p, lib.ones(1), 1.0))
        assert lib.overrides.is_tensor_like(lib.ones(1))

        class Sub(lib.Tensor):
            pass

        s = lib.ones(2).as_subclass(Sub)
        assert lib.overrides.has_torch_function((1, s))
        assert lib.overrides.has_torch_function_unary(s)
        assert lib.overrides.has_torch_function_variadic(1, s)
        with lib._C.DisableTorchFunctionSubclass():
            assert type(s + 1) is lib.Tensor
            assert not lib.overrides.has_torch_function_unary(s)
        assert type(s + 1) is Sub


def test_user_functions_with_handle_torch_function():
    """The docs' pattern for a Python function taking part in dispatch."""
    seen = []
    for lib in LIBS:
        def func(a, b):
            if lib.overrides.has_torch_function((a, b)):
                return lib.overrides.handle_torch_function(func, (a, b), a, b)
            return a + b

        class Sub(lib.Tensor):
            @classmethod
            def __torch_function__(cls, function, types, args=(), kwargs=None):
                if function is func:
                    return "handled"
                return super().__torch_function__(function, types, args, kwargs or {})

        class Declines:
            @classmethod
            def __torch_function__(cls, function, types, args=(), kwargs=None):
                return NotImplemented

        seen.append((func(1, 2), func(lib.ones(1).as_subclass(Sub), 1),
                     _outcome(lambda: func(Declines(), 1))))
    assert seen[1] == seen[0]


def test_torch_function_mode_sees_every_call():
    seen = []
    for lib in LIBS:
        calls = []

        class Mode(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                calls.append((getattr(func, "__name__", "?"), len(types)))
                return func(*args, **(kwargs or {}))

        x = lib.ones(2, 3)
        with Mode():
            y = lib.nn.functional.relu(x * 2).sum(0)
            z = lib.cat([y, y])
        seen.append((calls, z.tolist()))
    assert seen[1] == seen[0]


def test_plain_tensor_contains_and_reversed():
    for call in ["2 in T.tensor([1, 2])", "T.tensor(2) in T.tensor([1, 2])",
                 "5 in T.tensor([[1, 2]])", "'a' in T.tensor([1])", "None in T.ones(2)",
                 "reversed(T.tensor([1, 2, 3]))", "reversed(T.tensor(5))",
                 "reversed(T.zeros(2, 3)).shape",
                 "reversed(T.tensor([1., 2.], requires_grad=True))"]:
        assert _outcome(lambda: eval(call, {"T": leafgrad})) == \
            _outcome(lambda: eval(call, {"T": torch})), call


def test_plain_method_without_handler_warns_and_dispatches():
    """A __torch_function__ defined as a plain method: torch's DeprecationWarning."""
    leafgrad.overrides.has_torch_function(())  # (switches the protocol on)
    seen = []
    for lib in LIBS:
        class Plain:
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return "plain"

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = lib.add(Plain(), 1)
        seen.append((result, [w.category.__name__ for w in caught]))
    assert seen[1] == seen[0]


def test_overridable_functions_are_the_namespaces():
    assert not leafgrad.overrides._wrapped.methods_wrapped  # (off by default: see the module doc)
    overridable = leafgrad.overrides.get_overridable_functions()
    assert leafgrad.add in overridable[leafgrad]
    assert leafgrad.nn.functional.relu in overridable[leafgrad.nn.functional]
    assert leafgrad.manual_seed in leafgrad.overrides.get_ignored_functions()
    assert leafgrad.overrides.resolve_name(leafgrad.add) == torch.overrides.resolve_name(
        torch.add)
    x = np.arange(3.0)
    assert np.array_equal(leafgrad.add(leafgrad.tensor(x), 1).numpy(), x + 1)
    leafgrad.overrides._deactivate()
    assert getattr(leafgrad.add, "_torch_function_wrapped", None) is None
    assert type(leafgrad.Tensor.grad) is property


def test_subclass_format_and_deepcopy_as_torch():
    """torch formats only a plain 0-d Tensor as its item (a subclass's or a Parameter's format
    spec is object's: TypeError), and its default deepcopy refuses a subclass whose new_empty
    is Tensor's."""
    import copy

    seen = []
    for lib in LIBS:
        class Sub(lib.Tensor):
            pass

        calls = [lambda: format(lib.tensor(1.5), ".2f"), lambda: format(lib.tensor(1.5), ""),
                 lambda: format(lib.tensor(1.5).as_subclass(Sub), ".2f"),
                 lambda: format(lib.nn.Parameter(lib.tensor(1.5)), ".2f"),
                 lambda: format(lib.tensor([1.5]), ".2f"),
                 lambda: copy.deepcopy(lib.tensor([1.0]).as_subclass(Sub)),
                 lambda: type(copy.deepcopy(lib.nn.Parameter(lib.ones(1)))).__name__]
        seen.append([_outcome(call) for call in calls])
    assert seen[1] == seen[0]


def test_make_subclass_as_torch():
    """Tensor._make_subclass: a detached alias as the subclass (same memory and version
    counter), a leaf requiring grad as asked; its refusals; the __new__ pattern of subclass
    tutorials."""
    seen = []
    for lib in LIBS:
        class Sub(lib.Tensor):
            pass

        class New(lib.Tensor):
            @staticmethod
            def __new__(cls, data):
                return lib.Tensor._make_subclass(cls, data)

        y = lib.ones(2, requires_grad=True) * 2
        s = lib.Tensor._make_subclass(Sub, y, True)
        facts = [type(s).__name__, s.requires_grad, s.is_leaf, s.grad_fn is None]
        with lib.no_grad():
            s.add_(1)
        facts += [y.tolist(), s._version, y._version]
        plain = lib.Tensor._make_subclass(Sub, lib.ones(2))
        facts += [plain.requires_grad, repr(plain), type(plain * 2).__name__]
        made = New(lib.ones(2))
        facts += [type(made).__name__, type(made * 2).__name__]
        facts += [_outcome(lambda: lib.Tensor._make_subclass(*args)) for args in
                  [(int, lib.ones(1)), (lib.Tensor, 1), (3, lib.ones(1))]]
        seen.append(facts)
    assert seen[1] == seen[0]


def test_disabling_and_modes_are_per_thread():
    """DisableTorchFunctionSubclass and the mode stack belong to the thread that entered them,
    as torch's: another thread's ops still dispatch."""
    import threading

    seen = []
    for lib in LIBS:
        class Sub(lib.Tensor):
            pass

        x = lib.ones(2).as_subclass(Sub)
        other = []
        with lib._C.DisableTorchFunctionSubclass():
            worker = threading.Thread(target=lambda: other.append(type(x + 1).__name__))
            worker.start()
            worker.join()
            here = type(x + 1).__name__
        seen.append((here, other))
    assert seen[1] == seen[0]


def test_dispatchers_compare_equal_to_the_functions_they_wrap():
    """Switching the protocol on replaces the namespace's functions by dispatchers that
    compare and hash equal to them (tables keyed before still match), pickle by name and bind
    as methods."""
    import pickle

    before = leafgrad.mean
    table = {before: "mean"}
    leafgrad.overrides.has_torch_function(())
    after = leafgrad.mean
    assert after is not before and after == before and table.get(after) == "mean"
    assert pickle.loads(pickle.dumps(after)) is after

    class WithMethod:  # (a class attribute binds the instance, as a function does)
        plus = leafgrad.add

    assert WithMethod.plus(leafgrad.ones(2), 1).tolist() == [2.0, 2.0]
    assert WithMethod().plus.__self__.__class__ is WithMethod
    leafgrad.overrides._deactivate()
    assert leafgrad.mean is before
