"""``torch.compiler``: is_compiling, disable, set_stance (function, context, decorator; every
stance), reset, compared with torch.compile (``backend="eager"``: dynamo's capture without a C
compiler) where both can observe the same thing: a function whose result says whether it ran
under capture (``x + 1`` captured, ``x - 1`` eager), and the errors' type and first line.

torch's side runs in a subprocess: dynamo, once used, changes torch's global state (it turns
``Distribution`` argument validation off and wraps ``jit.trace`` and the optimizers), which
would leak into the other tests of this process. Each scenario is a function of the library;
the subprocess runs them all on torch and prints the results as JSON."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest

import leafgrad

from .._torch import require_torch

require_torch()  # (imported by the subprocess only)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _compile(lib, fn, **kwargs):
    if lib.__name__ == "torch":
        kwargs.setdefault("backend", "eager")
        lib._dynamo.reset()
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
        return [type(error).__name__, str(error).splitlines()[0]]
    return value.tolist() if hasattr(value, "tolist") else value


def _sequence(calls):
    """Run ``calls`` ((stance or None, dtype name, shape)) through one compiled probe."""

    def scenario(lib):
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

    return scenario


STANCE_SEQUENCES = {
    "default": [(None, "float32", (2,)), (None, "float32", (2,))],
    "force_eager": [("force_eager", "float32", (2,)), (None, "float32", (2,)),
                    ("force_eager", "float32", (2,))],
    "eager_on_recompile": [(None, "float32", (2,)), ("eager_on_recompile", "float32", (2,)),
                           ("eager_on_recompile", "float64", (2,)), (None, "float64", (2,))],
    "eager_on_recompile_first": [("eager_on_recompile", "float32", (2,)),
                                 (None, "float32", (2,))],
    "fail_on_recompile": [(None, "float32", (2,)), ("fail_on_recompile", "float32", (2,)),
                          ("fail_on_recompile", "float64", (2,)), (None, "float64", (2,))],
    "fail_on_recompile_first": [("fail_on_recompile", "float32", (2,))],
    "eager_then_compile": [("eager_then_compile", "float32", (2,)),
                           ("eager_then_compile", "float32", (2,)),
                           ("eager_then_compile", "float32", (2,))],
    "aot_eager_then_compile": [("aot_eager_then_compile", "float32", (2,)),
                               ("aot_eager_then_compile", "float32", (2,))],
}


def _fail_on_recompile_message(lib):
    def step(x):
        return x * 2

    compiled = _compile(lib, step)
    with lib.compiler.set_stance("fail_on_recompile"):
        return _outcome(lambda: compiled(lib.ones(2)))


def _stance_forms(lib):
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
    return record


def _stance_inside_capture(lib):
    def step(x):
        lib.compiler.set_stance("force_eager")
        return x + 1

    outcome = _outcome(lambda: _compile(lib, step)(lib.ones(1)))
    lib.compiler.set_stance("default")
    return [outcome[0], outcome[1].split(" at 0x")[0]]


def _disable(form):
    def scenario(lib):
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
        outcome = _outcome(lambda: _compile(lib, outer, fullgraph=True)(lib.ones(1)))
        record.append(outcome[0] if isinstance(outcome, list) and len(outcome) == 2
                      and isinstance(outcome[0], str) else outcome)
        return record

    return scenario


def _reset(lib):
    compiled = _compile(lib, _marked(lib))
    record = [compiled(lib.ones(1)).tolist()]
    with lib.compiler.set_stance("fail_on_recompile"):
        record.append(_outcome(lambda: compiled(lib.ones(1))))  # replayed
    if lib.__name__ == "torch":
        lib._dynamo.reset()
    lib.compiler.reset()
    with lib.compiler.set_stance("fail_on_recompile"):
        record.append(_outcome(lambda: compiled(lib.ones(1)))[0])  # must capture again
    record.append(compiled(lib.ones(1)).tolist())
    return record


def _helpers(lib):
    def f(x):
        return x + 1

    return [lib.compiler.allow_in_graph(f) is f, lib.compiler.assume_constant_result(f) is f,
            lib.compiler.cudagraph_mark_step_begin() is None, lib.compiler.list_backends(),
            lib.compiler.is_compiling(), lib.compiler.is_exporting()]


SCENARIOS = {
    **{f"stance_{name}": _sequence(calls) for name, calls in STANCE_SEQUENCES.items()},
    "fail_on_recompile_message": _fail_on_recompile_message,
    "stance_forms": _stance_forms,
    "stance_inside_capture": _stance_inside_capture,
    **{f"disable_{form}": _disable(form) for form in ("bare", "called", "reason")},
    "reset": _reset,
    "helpers": _helpers,
}


def _run_all(lib) -> dict:
    results = {}
    for name, scenario in SCENARIOS.items():
        try:
            results[name] = scenario(lib)
        finally:
            lib.compiler.set_stance("default")
    return json.loads(json.dumps(results))  # (tuples as lists, as the subprocess's come back)


@pytest.fixture(scope="module")
def torch_results():
    code = ("import json, torch, tests.compile.test_compiler_namespace as t; "
            "print('RESULTS' + json.dumps(t._run_all(torch)))")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT, os.path.join(ROOT, "src"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=environment, timeout=600, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULTS")]
    assert lines, done.stderr[-3000:]
    return json.loads(lines[-1][len("RESULTS"):])


@pytest.fixture(scope="module")
def leafgrad_results():
    return _run_all(leafgrad)


def test_module_and_names():
    assert importlib.import_module("leafgrad.compiler") is leafgrad.compiler
    assert leafgrad.compiler.compile is leafgrad.compile
    for name in ("is_compiling", "is_dynamo_compiling", "is_exporting", "disable", "reset",
                 "allow_in_graph", "assume_constant_result", "set_stance",
                 "cudagraph_mark_step_begin", "list_backends"):
        assert callable(getattr(leafgrad.compiler, name)), name


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario_matches_torch(name, torch_results, leafgrad_results):
    assert leafgrad_results[name] == torch_results[name]


def test_fail_on_recompile_message_names_the_function(leafgrad_results):
    message = leafgrad_results["fail_on_recompile_message"]
    assert message[0] == "RuntimeError"
    assert message[1].startswith("Detected recompile when torch.compile stance")
    assert "function name: 'step'" in message[1]


def test_disable_refuses_fullgraph(leafgrad_results):
    assert leafgrad_results["disable_bare"][4] == "Unsupported"


def test_compile_argument_checks_as_torch():
    """torch.compile's checks made when it is called: a non-callable model, a dynamic that is
    not a bool or None, mode with options, an unknown mode or backend name."""
    from .._torch import require_torch

    torch = require_torch()

    def observe(lib):
        seen = []
        cases = [((5,), {}), (("model",), {}), ((abs,), {"dynamic": "yes"}),
                 ((abs,), {"dynamic": 1}), ((abs,), {"dynamic": None}),
                 ((abs,), {"dynamic": True}), ((abs,), {"mode": "nonsense"}),
                 ((abs,), {"mode": "max-autotune", "options": {}}),
                 ((abs,), {"backend": "no-such-backend"})]
        for args, kwargs in cases:
            try:
                result = lib.compile(*args, **kwargs)
                seen.append(("ok", callable(result)))
            except Exception as error:  # noqa: BLE001 - the type is compared
                seen.append((type(error).__name__, str(error).splitlines()[0]))
        return seen

    assert observe(leafgrad) == observe(torch)
