"""``torch.compiler``: is_compiling, disable, set_stance (function, context, decorator; every
stance), reset, compared with torch.compile (``backend="eager"``: dynamo's capture without a C
compiler) where both can observe the same thing: a function whose result says whether it ran
under capture (``x + 1`` captured, ``x - 1`` eager), and the errors' type and first line."""

from __future__ import annotations

import importlib

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

LIBS = (torch, leafgrad)


def _compile(lib, fn, **kwargs):
    if lib is torch:
        kwargs.setdefault("backend", "eager")
        torch._dynamo.reset()
    return lib.compile(fn, **kwargs)


def _marked(lib):
    """A function whose result tells whether it was captured (x + 1) or ran eagerly (x - 1)."""

    def probe(x):
        if lib.compiler.is_compiling():
            return x + 1
        return x - 1

    return probe


def _outcome(call):
    try:
        value = call()
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]
    return value.tolist() if hasattr(value, "tolist") else value


@pytest.fixture(autouse=True)
def _default_stance():
    yield
    for lib in LIBS:
        lib.compiler.set_stance("default")
    torch._dynamo.reset()


def test_module_and_names():
    assert importlib.import_module("leafgrad.compiler") is leafgrad.compiler
    assert leafgrad.compiler.compile is leafgrad.compile
    for name in ("is_compiling", "is_dynamo_compiling", "is_exporting", "disable", "reset",
                 "allow_in_graph", "assume_constant_result", "set_stance",
                 "cudagraph_mark_step_begin", "list_backends"):
        assert callable(getattr(leafgrad.compiler, name)) == callable(
            getattr(torch.compiler, name)), name
    assert [lib.compiler.is_compiling() for lib in LIBS] == [False, False]
    assert [lib.compiler.is_exporting() for lib in LIBS] == [False, False]


def _sequence(lib, calls):
    """Run ``calls`` (a list of (stance or None, dtype name, shape)) through one compiled probe;
    the outcome of each."""
    compiled = _compile(lib, _marked(lib))
    seen = []
    for stance, dtype, shape in calls:
        x = lib.ones(shape, dtype=getattr(lib, dtype))
        if stance is None:
            seen.append(_outcome(lambda: compiled(x)))
        else:
            with lib.compiler.set_stance(stance):
                seen.append(_outcome(lambda: compiled(x)))
    return seen


STANCE_SEQUENCES = [
    [(None, "float32", (2,)), (None, "float32", (2,))],
    [("force_eager", "float32", (2,)), (None, "float32", (2,)), ("force_eager", "float32", (2,))],
    [(None, "float32", (2,)), ("eager_on_recompile", "float32", (2,)),
     ("eager_on_recompile", "float64", (2,)), (None, "float64", (2,))],
    [("eager_on_recompile", "float32", (2,)), (None, "float32", (2,))],
    [(None, "float32", (2,)), ("fail_on_recompile", "float32", (2,)),
     ("fail_on_recompile", "float64", (2,)), (None, "float64", (2,))],
    [("fail_on_recompile", "float32", (2,))],
    [("eager_then_compile", "float32", (2,)), ("eager_then_compile", "float32", (2,)),
     ("eager_then_compile", "float32", (2,))],
    [("aot_eager_then_compile", "float32", (2,)), ("aot_eager_then_compile", "float32", (2,))],
]


@pytest.mark.parametrize("calls", STANCE_SEQUENCES, ids=lambda calls: calls[0][0] or "default")
def test_stances_decide_capture_replay_or_eager(calls):
    ours, theirs = _sequence(leafgrad, calls), _sequence(torch, calls)
    assert ours == theirs


def test_fail_on_recompile_names_the_function_and_its_line():
    messages = []
    for lib in LIBS:
        def step(x):
            return x * 2

        compiled = _compile(lib, step)
        with lib.compiler.set_stance("fail_on_recompile"):
            messages.append(_outcome(lambda: compiled(lib.ones(2))))
    assert messages[0] == messages[1]
    assert messages[0][1].startswith("Detected recompile when torch.compile stance")


def test_set_stance_as_function_context_and_decorator():
    seen = []
    for lib in LIBS:
        compiled = _compile(lib, _marked(lib))
        record = []
        lib.compiler.set_stance("force_eager")  # a call: from now on
        record.append(compiled(lib.ones(1)).tolist())
        lib.compiler.set_stance("default")
        record.append(compiled(lib.ones(1)).tolist())
        with lib.compiler.set_stance("force_eager"):
            record.append(compiled(lib.ones(1)).tolist())
        record.append(compiled(lib.ones(1)).tolist())

        @lib.compiler.set_stance("force_eager")
        def eager_step(x):
            return compiled(x)

        record.append(compiled(lib.ones(1)).tolist())  # the decorator changed nothing yet
        record.append(eager_step(lib.ones(1)).tolist())
        record.append(compiled(lib.ones(1)).tolist())
        record.append(_outcome(lambda: lib.compiler.set_stance("force_eager",
                                                               force_backend="eager")))
        record.append(compiled(lib.ones(1)).tolist())
        seen.append(record)
    assert seen[0] == seen[1]


def test_set_stance_inside_a_capture_is_refused():
    seen = []
    for lib in LIBS:
        def step(x):
            lib.compiler.set_stance("force_eager")
            return x + 1

        compiled = _compile(lib, step)
        seen.append(_outcome(lambda: compiled(lib.ones(1))))
        lib.compiler.set_stance("default")
    assert seen[0][0] == seen[1][0] == "AssertionError"
    assert [outcome[1].split(" at 0x")[0] for outcome in seen] == [
        "Attempt to trace forbidden callable <function set_stance"] * 2


@pytest.mark.parametrize("form", ["bare", "called", "reason"])
def test_disable_runs_eagerly_and_breaks_fullgraph(form):
    seen = []
    for lib in LIBS:
        def inner(x):
            return x * 10 if lib.compiler.is_compiling() else x * 100

        if form == "bare":
            inner = lib.compiler.disable(inner)
        elif form == "called":
            inner = lib.compiler.disable()(inner)
        else:
            inner = lib.compiler.disable(inner, reason="not traceable")

        def outer(x):
            y = inner(x)
            return y + 1 if lib.compiler.is_compiling() else y - 1

        record = [inner.__name__, inner(lib.ones(1)).tolist()]
        compiled = _compile(lib, outer)
        record.append(compiled(lib.ones(1)).tolist())
        record.append(compiled(lib.ones(1)).tolist())
        strict = _compile(lib, outer, fullgraph=True)
        outcome = _outcome(lambda: strict(lib.ones(1)))
        record.append(outcome[0] if isinstance(outcome, tuple) else outcome)
        seen.append(record)
    # torch captures around the disabled call (two graphs), leafgrad runs the whole call
    # eagerly with is_compiling() True outside the disabled function: the same results
    assert seen[0] == seen[1]
    assert seen[0][4] == "Unsupported"


def test_reset_forgets_captures():
    seen = []
    for lib in LIBS:
        compiled = _compile(lib, _marked(lib))
        record = [compiled(lib.ones(1)).tolist()]
        with lib.compiler.set_stance("fail_on_recompile"):
            record.append(_outcome(lambda: compiled(lib.ones(1))))  # replayed
        (lib.compiler.reset if lib is leafgrad else torch._dynamo.reset)()
        lib.compiler.reset()
        with lib.compiler.set_stance("fail_on_recompile"):
            outcome = _outcome(lambda: compiled(lib.ones(1)))  # must capture again
            record.append(outcome[0] if isinstance(outcome, tuple) else outcome)
        record.append(compiled(lib.ones(1)).tolist())
        seen.append(record)
    assert seen[0] == seen[1]


def test_small_helpers():
    for lib in LIBS:
        def f(x):
            return x + 1

        assert lib.compiler.allow_in_graph(f) is f
        assert lib.compiler.assume_constant_result(f) is f
        assert lib.compiler.cudagraph_mark_step_begin() is None
    assert leafgrad.compiler.list_backends() == torch.compiler.list_backends()
