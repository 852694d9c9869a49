"""``torch.compiler``: the compiler's public switches, for ``leafgrad.compile``.

Library code asks ``torch.compiler.is_compiling()`` to take a capture-friendly branch and
marks functions ``@torch.compiler.disable``; training scripts set stances and reset caches.
leafgrad's compiler captures a whole call or none of it (``_compile/api.py``), so a function
marked ``disable`` that runs during a capture breaks the graph: that call runs eagerly (and,
with ``fullgraph=True``, raises as torch does at a graph break).
"""

from __future__ import annotations

import functools
import threading

from ._compile import api as _api
from ._compile.api import compile
from ._compile.state import state as _state

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable",
           "reset", "allow_in_graph", "assume_constant_result", "set_stance",
           "cudagraph_mark_step_begin", "list_backends"]


def is_compiling() -> bool:
    """True while ``leafgrad.compile`` captures a call (in the capturing thread), and in the
    eager runs of a call whose capture broke, outside ``disable``d functions (the parts torch
    would still compile around the break): code that reads it takes its compiled branch."""
    tracer = _state.tracer
    if _state.active and tracer is not None and tracer.thread == threading.get_ident():
        return True
    return getattr(_api.broken_calls, "depth", 0) > 0


def is_dynamo_compiling() -> bool:
    return is_compiling()


def is_exporting() -> bool:
    """leafgrad has no ``torch.export``: never exporting."""
    return False


def disable(fn=None, recursive: bool = True, *, reason=None):
    """Run ``fn`` eagerly, never captured (also ``@disable`` and ``@disable(reason=...)``).

    During a capture the call breaks the graph, so the whole compiled call runs eagerly;
    inside ``fn`` ``is_compiling()`` is False, as in torch."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)

    @functools.wraps(fn)
    def run_eagerly(*args, **kwargs):
        if not is_compiling():
            return fn(*args, **kwargs)
        if _state.active:
            why = "call to a function marked torch.compiler.disable"
            _state.tracer.broke(f"{why} ({reason})" if reason else why)
        active, tracer = _state.active, _state.tracer
        depth = getattr(_api.broken_calls, "depth", 0)
        _state.active = False
        _api.broken_calls.depth = 0
        try:
            return fn(*args, **kwargs)
        finally:
            _state.active, _state.tracer = active, tracer
            _api.broken_calls.depth = depth

    run_eagerly._torchdynamo_disable = True
    return run_eagerly


def reset() -> None:
    """Forget every capture of every compiled function (the next call captures again)."""
    for compiled in list(_api.instances):
        compiled.reset()


def allow_in_graph(fn):
    """Record ``fn`` into captures as it runs (leafgrad traces through every Python call)."""
    return fn


def assume_constant_result(fn):
    """Mark ``fn``'s result a constant of the capture (leafgrad already bakes the Python values
    a capture saw into it, guarded: ``_compile/api.py``)."""
    fn._dynamo_marked_constant = True
    return fn


def cudagraph_mark_step_begin() -> None:
    """Mark a training step's start for CUDA graphs: nothing to do on the CPU."""


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """The backend names ``compile`` accepts (all run leafgrad's one NumPy replay)."""
    return ["cudagraphs", "inductor", "openxla", "tvm"]


class set_stance:  # noqa: N801 - torch's name
    """Set how compiled functions run: as a function (from now on), a context manager (for the
    block) or a decorator (for each call). Stances: "default", "force_eager",
    "eager_on_recompile", "fail_on_recompile", "eager_then_compile", "aot_eager_then_compile"
    (``_compile/api.py``, Note: stances)."""

    def __init__(self, stance: str = "default", *, skip_guard_eval_unsafe: bool = False,
                 force_backend=None) -> None:
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        if is_compiling():  # torch forbids tracing set_stance itself
            raise AssertionError("Attempt to trace forbidden callable <function set_stance at "
                                 f"{id(set_stance):#x}>")
        self.stance = [stance, skip_guard_eval_unsafe, force_backend]
        self.prev = _set(self.stance)

    def __enter__(self) -> None:
        _set(self.stance)

    def __exit__(self, *exc) -> None:
        _set(self.prev)

    def __call__(self, fn):
        _set(self.prev)  # as a decorator it applies only during the calls

        @functools.wraps(fn)
        def with_stance(*args, **kwargs):
            previous = _set(self.stance)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(previous)

        return with_stance


def _set(new: list) -> list:
    if is_compiling():
        raise RuntimeError("attempted to set_stance in a torch.compile region")
    previous = list(_api.stance)
    _api.stance[:] = new
    return previous
