"""``leafgrad.compile``: capture on the first call, replay on later ones, guarded.

Note: guards and the cache
A capture is specialised to what the first call saw. It is reused only when a new call has:
the same structure of arguments; for each tensor argument the same shape, strides, dtype,
``requires_grad`` and aliasing (which arguments are the same tensor); equal non-tensor
arguments (numbers, strings, ... by value; NumPy arrays by identity and values; other
objects by identity); the same grad mode;
for a module, the same ``training`` flags; and, checked by the replay itself, the same shape,
strides, dtype and ``requires_grad`` for every tensor from outside the call it reads
(parameters), the same set/unset state of every ``.grad`` it depends on, and the same Python
values from outside the call (globals, closure variables, attributes, dict entries) that the
function's code read (sources.py Note: Python values from outside the call). A function with
Python side effects runs eagerly (sources.py Note: side effects). (Strides, as
torch.compile's guards: the replay gives every array the layout it had at capture, so sums
over them add in eager's order: codegen.py Note: layouts in the replay.) A call that matches no capture is
captured again; after ``cache_size_limit`` captures (8, as torch's recompile limit) the
function warns once and runs eagerly from then on. ``dynamic=True`` is accepted but shapes are
still specialised (a new shape is a new capture).
"""

from __future__ import annotations

import threading
from _thread import get_ident as _get_ident
import warnings
import weakref

import numpy as np

from ..autograd.forward_ad import state as _dual_state
from ..autograd.grad_mode import state as _grad_state
from ..autograd.graph import FREED_MESSAGE, Node
from ..tensor import Tensor, _wrap
from . import codegen
from . import differentiable as _differentiable
from .capture import InvalidBackend, Tracer, Unsupported
from .graph import Graph, Live, Value
from .sources import Sources
from .state import state

__all__ = ["compile", "CompiledFunction", "explain", "ExplainOutput", "Unsupported"]

cache_size_limit = 8

# torch.compiler.set_stance's choice, read by every compiled call (Note: stances): (name,
# skip_guard_eval_unsafe, force_backend); leafgrad.compiler sets it
stance = ["default", False, None]
_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile",
            "eager_then_compile", "aot_eager_then_compile")
# how many eager runs of calls whose capture broke are on this thread's stack (where
# leafgrad.compiler.is_compiling() answers True, as in the parts torch compiles around a break)
broken_calls = threading.local()
# every CompiledFunction, so that leafgrad.compiler.reset() can empty their caches
instances: weakref.WeakSet = weakref.WeakSet()


class _Entry:
    """One capture: its graph and replay function, or the reasons it could not be made."""

    __slots__ = ("graph", "code", "replay", "breaks", "template", "effects", "grads", "lock",
                 "owner", "backward")

    def __init__(self, graph: Graph | None, breaks: list) -> None:
        self.graph = graph
        self.breaks = breaks
        self.code = None
        self.replay = None
        self.template = None
        self.effects = False  # dropped for side effects (sources.py Note: side effects)
        self.grads = None  # results that require grad: Value -> (kind, extra) (_build)
        self.lock = threading.Lock()  # Note: one replay at a time
        self.owner = None  # the thread replaying
        self.backward = None  # results the caller backpropagates through (differentiable.py)


# Note: one replay at a time
# A replay writes its intermediate results into buffers kept between calls (codegen.py), so two
# replays of one capture running at once would overwrite each other's values: two threads
# calling one compiled step gave a wrong result about once in 6,000 calls. A capture's replays
# take turns (its lock); a replay reached again from inside itself on the same thread (a hook
# or an optimizer's step calling the compiled function) runs the function eagerly instead.
def _replay(entry: _Entry, tensors: list):
    lock = entry.lock
    me = _get_ident()
    if not lock.acquire(False):
        if entry.owner == me:
            return None
        lock.acquire()
    entry.owner = me
    try:
        return entry.replay(tensors)
    finally:
        entry.owner = None
        lock.release()


def _flatten(item, key: list, tensors: list, seen: dict) -> None:
    """The guard key of an argument structure; tensors collected in order."""
    if isinstance(item, Tensor):
        data = item._data
        alias = seen.get(id(item))
        if alias is None:
            seen[id(item)] = len(tensors)
            tensors.append(item)
        # strides: a replay gives every array the layout eager code gave it at capture
        # (codegen.py Note: layouts in the replay), as torch.compile's guards check strides
        key.append(("T", data.shape, data.strides, data.dtype.str, item._requires_grad, alias,
                    item._node is not None))
    elif type(item) in (tuple, list):
        key.append((type(item).__name__, len(item)))
        for i in item:
            _flatten(i, key, tensors, seen)
    elif type(item) is dict:
        key.append(("dict", tuple(item)))
        for i in item.values():
            _flatten(i, key, tensors, seen)
    elif type(item) is np.ndarray:
        # a NumPy argument is keyed by its values too: Python code may read them (float(a[0]))
        # into the capture (sources.py Note: Python values from outside the call); past
        # _ARRAY_KEY_LIMIT elements, by identity and layout only
        key.append(("ndarray", id(item), item.shape, item.strides, item.dtype.str,
                    item.tobytes() if item.size <= _ARRAY_KEY_LIMIT and
                    not item.dtype.hasobject else None))
    else:
        try:
            hash(item)
            key.append((type(item), item))
        except TypeError:
            key.append(("id", id(item)))


_ARRAY_KEY_LIMIT = 1 << 16


def _template(item, tracer: Tracer, inputs: dict, breaks: list, diff: dict | None = None):
    if isinstance(item, Tensor):
        if item._requires_grad and item._node is not None and not any(
                node.kind == "accumulate" for node in tracer.graph.nodes):
            # Note: results that require grad. A replay computes arrays and builds no autograd
            # history: with grad mode on (``diff``), the result is returned through one node
            # whose backward is captured too (differentiable.py, Note: the differentiable
            # replay). When the function ran its own backward (a training step returning its
            # loss), eager code freed the graph behind the result (retain_graph=True breaks):
            # the replayed result requires grad behind CompiledFunctionBackward (torch's
            # compiled step breaks its graph at backward(), so its loss is a result of the
            # forward graph), which raises torch's "second time" error when run. A
            # leaf made in the call with requires_grad (``tensor(..., requires_grad=True)``,
            # ``requires_grad_()``) is returned as a new leaf that requires grad, with the
            # ``.grad`` the replay's backward gave it (_private_leaves).
            if diff is None:
                tracer.broke("the result requires grad and the function ran no backward (a "
                             "replay builds no autograd history; call backward() inside it)")
                return None
            if id(item) in inputs:
                return Live(input_index=inputs[id(item)])
            value = tracer.ref(item)
            value.escapes = True
            if value not in diff:
                diff[value] = (len(diff), item)
            tracer.result_grad[value] = ("compiled", diff[value][0])
            return value
        if id(item) in inputs:
            return Live(input_index=inputs[id(item)])
        value = tracer.ref(item)
        if value.kind in ("external",) and value.tensor is item:
            return Live(tensor=item)
        value.escapes = True
        if item._requires_grad:
            if item._node is None:
                tracer.result_grad[value] = ("leaf", item)
            else:
                if item._node._saved:  # (its tensors still saved: backward(retain_graph=True))
                    tracer.broke("the result's graph was kept (retain_graph=True) and a replay "
                                 "builds none")
                    return None
                tracer.result_grad[value] = ("node", _freed_node(item._node))
        return value
    if type(item) in (tuple, list):
        return type(item)(_template(i, tracer, inputs, breaks, diff) for i in item)
    if type(item) is dict:
        return {k: _template(v, tracer, inputs, breaks, diff) for k, v in item.items()}
    return item


def _build(template, arrays: dict, inputs: list, grads=None):
    if isinstance(template, Value):
        if grads is not None:
            kind = grads.get(template)
            if kind is not None:
                if kind[0] == "leaf":  # a leaf made in the call (Note: results that ...)
                    tensor = _wrap(arrays[template], True)
                    slot = kind[1]
                    if slot is not None:
                        tensor._grad_value, slot._grad_value = slot._grad_value, None
                    return tensor
                return _wrap(arrays[template], True, kind[1]())
        return _wrap(arrays[template])
    if isinstance(template, Live):
        return inputs[template.input_index] if template.input_index is not None else template.tensor
    if type(template) in (tuple, list):
        return type(template)(_build(t, arrays, inputs, grads) for t in template)
    if type(template) is dict:
        return {k: _build(v, arrays, inputs, grads) for k, v in template.items()}
    return template


class _FreedCompiledFunctionBackward(Node):
    """The node behind a replayed result whose graph eager code freed (a training step that
    ran its own backward and returns its loss): torch's name, CompiledFunctionBackward (its
    compiled step breaks the graph at backward(), so the loss is a result of the compiled
    forward); running it raises torch's "second time" error, as the loss's does."""

    __slots__ = ()

    def name(self) -> str:
        return "CompiledFunctionBackward"

    def _apply(self, grads):
        raise RuntimeError(FREED_MESSAGE)

    def __repr__(self) -> str:  # (as a custom Function's node prints, torch's too)
        return f"<leafgrad.autograd.function.CompiledFunctionBackward object at {id(self):#x}>"


_FreedCompiledFunctionBackward.__name__ = "CompiledFunctionBackward"
_FreedCompiledFunctionBackward.__qualname__ = "CompiledFunctionBackward"
_FreedCompiledFunctionBackward.__module__ = "leafgrad.autograd.function"


def _freed_node(node):
    """A maker of grad_fns for a replayed result whose graph eager code freed."""
    return lambda: _FreedCompiledFunctionBackward(())


def _private_leaves(tracer: Tracer, graph: Graph) -> dict:
    """The ``.grad`` a replay gives a leaf made in the call goes to a placeholder of its own
    (the capture's tensor is the first call's result, which the caller owns), moved to the
    new leaf the replay returns. Returns the result-grad kinds with placeholders."""
    slots: dict = {}

    def slot_of(tensor):
        value = tracer.slot_of.get(id(tensor._data))
        if value is None or value.kind not in ("op", "constant") or \
                id(tensor) in graph.input_index:
            return tensor
        slot = slots.get(id(tensor))
        if slot is None:
            slot = slots[id(tensor)] = _wrap(np.empty(0, tensor._data.dtype))
        return slot

    for node in graph.nodes:
        if node.kind in ("accumulate", "setgrad"):
            node.param = slot_of(node.param)
    for value in graph.values:
        if value.kind == "grad":
            value.tensor = slot_of(value.tensor)
    graph.grad_guards = [(p, none) for p, none in graph.grad_guards if slot_of(p) is p]
    kinds = {}
    for value, (kind, extra) in tracer.result_grad.items():
        if kind == "leaf":
            extra = slots.get(id(extra))
        kinds[value] = (kind, extra)
    return kinds


class CompiledFunction:
    """What ``leafgrad.compile(fn)`` returns: call it like ``fn``.

    ``.graph`` and ``.code`` show the latest capture (printable graph, generated source);
    ``.captures`` lists all of them; ``.graph_view()`` / ``.to_dot()`` draw the graph.
    """

    def __init__(self, fn, fullgraph: bool = False, dynamic: bool = False, module=None,
                 optimise: bool = True, buffers: bool = True) -> None:
        self.fn = fn
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self.module = module
        self.optimise = optimise
        self.buffers = buffers
        self.cache: dict = {}
        self.captures: list[_Entry] = []
        self.eager = False  # past the cache size limit
        self.replays = 0
        self.eager_calls = 0
        self.warned_effects = False
        self.eager_first = True  # the first call under an "eager_then_compile" stance
        instances.add(self)
        try:
            self.__wrapped__ = fn
            self.__name__ = getattr(fn, "__name__", type(fn).__name__)
            self.__doc__ = getattr(fn, "__doc__", None)
        except AttributeError:  # pragma: no cover
            pass

    def __repr__(self) -> str:
        return f"<leafgrad.compile of {self.fn!r}: {len(self.captures)} captures>"

    def __get__(self, obj, objtype=None):  # decorating a method
        if obj is None:
            return self
        import functools

        return functools.partial(self, obj)

    # -- what users look at --------------------------------------------------------------------
    @property
    def graph(self) -> Graph | None:
        for entry in reversed(self.captures):
            if entry.graph is not None and entry.replay is not None:
                return entry.graph
        return None

    @property
    def backward_graph(self) -> Graph | None:
        """The backward recorded with the latest capture whose results the caller
        backpropagates through (differentiable.py), else None."""
        for entry in reversed(self.captures):
            if entry.graph is not None and entry.replay is not None:
                return entry.backward.entry.graph if entry.backward is not None else None
        return None

    @property
    def code(self) -> str | None:
        for entry in reversed(self.captures):
            if entry.code is not None:
                return entry.code
        return None

    def graph_view(self):
        """The latest capture as a ``leafgrad.viz`` GraphView."""
        from .draw import graph_view

        return graph_view(self.graph)

    def to_dot(self) -> str:
        """The latest capture in Graphviz's DOT language."""
        from .draw import to_dot

        return to_dot(self.graph)

    # -- calling -------------------------------------------------------------------------------
    def _key(self, args, kwargs):
        key: list = [_grad_state.grad_enabled]
        tensors: list = []
        seen: dict = {}
        _flatten(args, key, tensors, seen)
        if kwargs:
            _flatten(kwargs, key, tensors, seen)
        if self.module is not None:
            key.append(tuple(m.training for m in self.module.modules()))
        return tuple(key), tensors

    def __call__(self, *args, **kwargs):
        if state.active or _dual_state.active or self.eager:
            # inside another capture (its tracer records these ops) or forward-AD: eager
            return self.fn(*args, **kwargs)
        if stance[0] == "force_eager":
            return self.fn(*args, **kwargs)
        key, tensors = self._key(args, kwargs)
        entries = self.cache.get(key)
        if entries:
            for entry in entries:
                if entry.replay is None:
                    self.eager_calls += 1
                    return self._run_broken(args, kwargs)
                arrays = _replay(entry, tensors)
                if arrays is None:  # (its own replay is running on this thread)
                    self.eager_calls += 1
                    return self.fn(*args, **kwargs)
                if arrays is not codegen.MISS:
                    self.replays += 1
                    values = dict(zip(entry.graph.output_values, arrays))
                    if entry.backward is not None:
                        return _differentiable.call(entry.backward, entry.graph.output_template,
                                                    values, tensors, entry.grads)
                    return _build(entry.template, values, tensors, entry.grads)
        if stance[0] != "default":  # Note: stances
            if self._stance_says_eager():
                self.eager_calls += 1
                return self.fn(*args, **kwargs)
        if len(self.captures) >= cache_size_limit:
            self.eager = True
            warnings.warn(
                f"leafgrad.compile: {self.__name__} was captured {cache_size_limit} times "
                f"(cache_size_limit); running it eagerly from now on. The last capture was "
                f"for a call the earlier ones' guards did not accept.",
                UserWarning,
                stacklevel=2,
            )
            return self.fn(*args, **kwargs)
        result, entry = _capture(self.fn, args, kwargs, tensors, self.fullgraph, self.optimise,
                                 self.buffers)
        self.captures.append(entry)
        self.cache.setdefault(key, []).append(entry)
        if entry.effects and not self.warned_effects:
            self.warned_effects = True
            first = next(b for b in entry.breaks if b.reason.startswith("side effect"))
            warnings.warn(
                f"leafgrad.compile: {self.__name__} has Python side effects a replay would not "
                f"repeat ({first!r}); running it eagerly for such calls",
                UserWarning,
                stacklevel=2,
            )
        return result


    # Note: stances. torch.compiler.set_stance changes what a call without a usable capture
    # does: "eager_on_recompile" runs it eagerly (captures already made are still replayed),
    # "fail_on_recompile" raises (a first capture counts as one, as in torch), the
    # "eager_then_compile" runs the first call of each function eagerly and captures from the
    # second ("aot_eager_then_compile" captures at once: torch's first call there is compiled
    # too, by its aot_eager backend); "force_eager" (checked first in __call__) never replays.
    def _run_broken(self, args, kwargs):
        """An eager run standing in for a capture that broke."""
        depth = getattr(broken_calls, "depth", 0)
        broken_calls.depth = depth + 1
        try:
            return self.fn(*args, **kwargs)
        finally:
            broken_calls.depth = depth

    def _stance_says_eager(self) -> bool:
        name = stance[0]
        if name == "eager_on_recompile":
            return True
        if name == "fail_on_recompile":
            code = getattr(self.fn, "__code__", None)
            if code is None:
                code = getattr(getattr(self.fn, "forward", None), "__code__", None)
            filename, function, line = ((code.co_filename, code.co_name, code.co_firstlineno)
                                        if code is not None else ("?", self.__name__, 0))
            raise RuntimeError("Detected recompile when torch.compile stance is "
                               f"'fail_on_recompile'. filename: '{filename}', function name: "
                               f"'{function}', line number: {line}")
        if name == "eager_then_compile":
            first, self.eager_first = self.eager_first, False
            return first
        if name == "aot_eager_then_compile":
            return False
        raise RuntimeError(f"invalid torch.compile stance 'DynamoStance(stance={name!r}, "
                           f"skip_guard_eval_unsafe={stance[1]!r}, backend={stance[2]!r})'")

    def reset(self) -> None:
        """Forget every capture (``leafgrad.compiler.reset``)."""
        self.cache.clear()
        self.captures.clear()
        self.eager = False
        self.eager_first = True
        self.warned_effects = False


def _capture(fn, args, kwargs, tensors, fullgraph, optimise=True, buffers=True):
    """Run ``fn`` once eagerly under a tracer; return its result and the capture."""
    from .._rng import default_generator

    tracer = Tracer(fullgraph)
    for index, tensor in enumerate(tensors):
        tracer.add_input(tensor, (index,))
    tracer.rng_state = default_generator.state_array()
    sources = Sources(fn, tracer.live_arrays)
    sources.watch_arguments(args, kwargs)
    tracer.sources = sources
    state.tracer = tracer
    state.active = True
    try:
        sources.start()
        try:
            result = fn(*args, **kwargs)
        finally:
            sources.stop()
        effects = sources.changes()
        for reason, filename, line, text in effects:
            tracer.broke_at("side effect: " + reason, filename, line, text)
        if (default_generator.state_array() != tracer.rng_state).any():
            tracer.broke("random numbers were drawn (rand, randn, ...): a replay "
                         "would repeat them")
        inputs = {id(t): i for i, t in enumerate(tensors)}
        state.active = False
        diff = {} if _grad_state.grad_enabled else None
        template = _template(result, tracer, inputs, tracer.breaks, diff)
        backward = None
        if diff and not tracer.breaks:
            backward = _differentiable.capture_backward(tracer, tensors, diff, _backward_entry)
            if backward is not None:  # (the saved arrays are results of the forward too)
                template = (template, backward.saved_template)
    finally:
        state.active = False
        state.tracer = None
    if tracer.breaks:
        entry = _Entry(None, tracer.breaks)
        entry.effects = bool(effects)
        return result, entry
    sources.refresh()
    graph = tracer.graph
    graph.sources = sources
    graph.output_template = template
    entry = _Entry(graph, [])
    entry.grads = _private_leaves(tracer, graph) or None
    _finish(graph, optimise)
    entry.template = graph.output_template
    name = getattr(fn, '__name__', 'fn')
    source, namespace = codegen.generate(graph, use_buffers=buffers)
    exec(_compile_builtin(source, f"<leafgrad.compile {name}>", "exec"), namespace)
    entry.code = source
    entry.replay = namespace["replay"]
    if backward is not None:
        entry.backward = backward
        backward.entry.code = _generate(backward.entry, f"<leafgrad.compile {name} backward>")
        entry.code = source + "\n\n# the backward (differentiable.py)\n" + backward.entry.code
        # the first call's result too goes through CompiledFunction, from the capture's arrays
        values = {value: value.array for value in graph.output_values}
        entry.template = graph.output_template = graph.output_template[0]
        result = _differentiable.call(backward, entry.template, values, tensors, entry.grads)
    elif entry.grads and any(kind == "node" for kind, _ in entry.grads.values()):
        # the first call's result as the replays give it: the loss of a step that ran its own
        # backward behind CompiledFunctionBackward, as torch's first call returns it
        result = _renode(result, entry.template, entry.grads)
    graph.seal()
    tracer.keep.clear()
    return result, entry


def _renode(item, template, grads: dict):
    """The eager ``item`` with each result of kind "node" (a freed graph's result) replaced by
    a tensor over its array behind the replays' node (Note: results that require grad)."""
    if isinstance(template, Value):
        kind = grads.get(template)
        if kind is not None and kind[0] == "node" and isinstance(item, Tensor):
            return _wrap(item._data, True, kind[1]())
        return item
    if type(template) in (tuple, list) and type(item) is type(template):
        return type(item)(_renode(i, t, grads) for i, t in zip(item, template))
    if type(template) is dict and type(item) is dict:
        return {k: _renode(item[k], t, grads) for k, t in template.items()}
    return item


def _backward_entry(graph: Graph) -> _Entry:
    return _Entry(graph, [])


def _generate(entry: _Entry, filename: str) -> str:
    source, namespace = codegen.generate(entry.graph)
    exec(_compile_builtin(source, filename, "exec"), namespace)
    entry.replay = namespace["replay"]
    entry.graph.seal()
    return source


def _finish(graph: Graph, optimise: bool) -> None:
    if optimise:
        codegen.optimise(graph)
    else:
        codegen.optimise(graph, cse=False)
    graph.output_values = list(dict.fromkeys(codegen._template_values(graph.output_template)))
    graph.name_values()


_compile_builtin = compile


def compile(model=None, *, fullgraph: bool = False, dynamic: bool = False, backend=None,
            mode=None, options=None, disable: bool = False):
    """Capture ``model`` (a function or an ``nn.Module``) into a static graph on its first call
    and replay it as straight-line NumPy on later calls (torch.compile's signature)::

        step = leafgrad.compile(train_step)      # or @leafgrad.compile
        step(x, y)                               # captured (runs eagerly once)
        step(x, y)                               # replayed
        print(step.graph); print(step.code)

    See ``leafgrad/_compile/api.py`` (Note: guards and the cache) for when a capture is reused.
    """
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, disable=disable)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if dynamic is not None and type(dynamic) is not bool:  # (torch's mark of dynamic shapes)
        raise AssertionError(f"Expected enable to be a bool, got {type(dynamic)}")
    _check_settings(backend, mode, options)
    if disable:
        return model
    from ..nn import Module

    if isinstance(model, Module):
        from .module import OptimizedModule

        return OptimizedModule(model, fullgraph=fullgraph, dynamic=dynamic)
    return CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic)


# torch 2.13's inductor modes and registered backend names (torch._dynamo.list_backends with
# no tag excluded); leafgrad runs all of them as its one replay, but refuses what torch refuses
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
_BACKENDS = frozenset((
    "aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
    "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts",
    "cudagraphs", "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend", "eager",
    "eager_debug", "eager_noexcept", "inductor", "invoke_subgraph", "openxla", "openxla_eval",
    "pre_dispatch_eager", "ts", "tvm"))


def _check_settings(backend, mode, options) -> None:
    """torch.compile's checks of its settings, made when it is called (not at the first call):
    mode with options, an inductor mode it does not know, a backend name it does not know."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if backend is None or backend == "inductor":
        if mode and mode not in _MODES:
            raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                               f"{', '.join(_MODES)}")
    elif isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(f"Invalid backend: {backend!r}, see "
                             "`torch._dynamo.list_backends()` for available backends.")


class ExplainOutput:
    """What ``leafgrad.compile.explain`` finds (torch._dynamo.explain's fields)."""

    def __init__(self, graphs: list, breaks: list) -> None:
        self.graphs = graphs
        self.graph_count = len(graphs)
        self.graph_break_count = len(breaks)
        self.break_reasons = breaks
        self.op_count = sum(len(g.live_nodes()) for g in graphs)

    def __str__(self) -> str:
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}"]
        if self.break_reasons:
            lines.append("Break Reasons:")
            for i, record in enumerate(self.break_reasons, 1):
                lines.append(f"  Break Reason {i}:")
                lines.append(f"    Reason: {record.reason}")
                lines.append(f"    User Stack: {record.filename}:{record.lineno}")
                if record.line:
                    lines.append(f"      {record.line}")
        return "\n".join(lines)

    __repr__ = __str__


def explain(fn, *args, **kwargs) -> ExplainOutput:
    """Capture ``fn(*args, **kwargs)`` once (it runs eagerly, with its side effects) and say
    whether it makes one graph, and if not which lines broke it and why."""
    if isinstance(fn, CompiledFunction):
        fn = fn.fn
    from ..nn import Module

    if isinstance(fn, Module) and hasattr(fn, "_orig_mod"):
        fn = fn._orig_mod
    tensors: list = []
    _flatten((args, kwargs), [], tensors, {})
    _, entry = _capture(fn, args, kwargs, tensors, False)
    graphs = [entry.graph] if entry.graph is not None else []
    return ExplainOutput(graphs, entry.breaks)


_differentiable._build = _build
_differentiable._replay = _replay

compile.explain = explain
compile.Unsupported = Unsupported
compile.CompiledFunction = CompiledFunction
compile.ExplainOutput = ExplainOutput
