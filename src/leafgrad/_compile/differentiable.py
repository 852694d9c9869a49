"""Compiled functions whose caller backpropagates through the result.

Note: the differentiable replay
``model = leafgrad.compile(model); loss = F.cross_entropy(model(x), y); loss.backward()``: the
function returns tensors that require grad and leaves the backward to its caller. A replay
builds no per-op graph, so the capture records the backward too, as torch's AOTAutograd does:

- the forward capture (tracer T1) runs the function as every capture does;
- then, still on the first call, a second tracer (T2) records
  ``autograd.grad(results, inputs, grad_outputs=G, retain_graph=True, allow_unused=True)``:
  the backward formulas the engine would run, for placeholders G of the results' shapes, with
  respect to every input and tensor from outside the call (parameters) that requires grad.
  An array of the forward T2 meets (a saved tensor, a kept array, the result itself) becomes an
  input of T2's graph ("saved"); the forward capture returns it as an extra result, never in a
  buffer its next replay would overwrite (``Value.escapes``).
- a call replays the forward, then returns its results through one ``autograd.Function``,
  ``CompiledFunction``: its node, ``CompiledFunctionBackward`` (torch's name), has an edge per
  input and per tensor from outside the call the forward reads (None for those that do not
  require grad, as torch's node has one per graph input); its backward replays T2's code with
  the incoming gradients and the saved arrays. Saved inputs and parameters are kept
  as tensors (``save_for_backward``), so an in-place change between the forward and the
  backward raises eager's error, and a second backward without ``retain_graph`` raises torch's
  "second time" error.
- ``create_graph=True`` through it gives gradients whose node is
  ``CompiledFunctionBackwardBackward``, which refuses to run with torch's message (torch's
  compiled functions have no double backward either).

What the capture cannot record breaks it as before (hooks on tensors the backward passes,
data-dependent formulas), and the call runs eagerly. A gradient that would reach a leaf made
inside the call (``requires_grad_()`` on an intermediate) breaks the capture too: its ``.grad``
is the call's business, which a replay cannot give back.
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..autograd.grad_mode import state as _grad_state
from ..tensor import _wrap
from . import codegen
from .graph import Live, Value
from .state import state

# api.py's result builder and locked replay, set by api.py once it is loaded (it imports this
# module)
_build = _replay = None

__all__ = ["CompiledFunction", "Backward", "capture_backward"]

DOUBLE_BACKWARD = "torch.compile with aot_autograd does not currently support double backward"


class Backward:
    """One capture's backward: T2's replay and how a call's tensors feed it."""

    __slots__ = ("entry", "template", "sources", "grad_layouts", "edges", "diff_values",
                 "saved_template")

    def __init__(self, entry, template, sources: list, grad_layouts: list, edges: list,
                 diff_values: list) -> None:
        self.entry = entry  # an api._Entry for T2's graph (its replay, lock, code)
        self.template = template  # T2's result: one item per edge (a Value, Live or None)
        self.sources = sources  # per saved input of T2: the forward's Value it stands for
        self.grad_layouts = grad_layouts  # (shape, strides, dtype) of each placeholder
        self.edges = edges  # ("input", index) or ("external", tensor): the node's edges
        self.diff_values = diff_values  # the forward's Values of the results, by output_nr
        self.saved_template = None  # per saved input of T2: a forward Value, or Live


class _Call:
    """What one call's ``CompiledFunction.apply`` carries (not a tensor: it gets no edge)."""

    __slots__ = ("backward", "outputs", "values", "tensors", "memo")

    def __init__(self, backward: Backward, values: dict, tensors: list) -> None:
        self.backward = backward
        self.values = values  # the forward replay's arrays by Value
        self.tensors = tensors  # the call's input tensors
        self.outputs = [values[v] for v in backward.diff_values]  # by output_nr
        self.memo: dict = {}  # Value -> the one Tensor over its array (see forward)


class CompiledFunction(Function):
    """The node torch's compiled functions put behind their results."""

    @staticmethod
    def forward(ctx, call, *inputs):
        outputs = tuple(_wrap(array) for array in call.outputs)
        # What the backward reads is saved as the tensor the caller sees where there is one
        # (an input, a parameter, a result: an in-place change of it raises eager's error at
        # the backward), a new tensor over the forward's array otherwise.
        position = {value: nr for nr, value in enumerate(call.backward.diff_values)}
        saved = []
        for item in call.backward.saved_template:
            if isinstance(item, Value):
                nr = position.get(item)
                if nr is not None:
                    # (an alias sharing the result's version counter, as torch's AOTAutograd
                    # saves it: its error names no "output 0 of" the node)
                    saved.append(outputs[nr].detach())
                    continue
                tensor = call.memo.get(item)
                if tensor is None:
                    tensor = call.memo[item] = _wrap(call.values[item])
                saved.append(tensor)
            else:
                saved.append(_build(item, call.values, call.tensors))
        ctx.call = call
        ctx.save_for_backward(*saved)
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        call = ctx.call
        saved = ctx.saved_tensors  # (raises torch's error after the graph was freed)
        results = _run_backward(call.backward, grads, saved)
        if _grad_state.grad_enabled:  # create_graph=True: the gradients get a node that
            # refuses a further backward, as torch's
            results = CompiledFunctionBackward.apply(tuple(results), *saved, *grads)
        return (None,) + tuple(results)


class CompiledFunctionBackward(Function):
    """The node behind gradients a compiled function's backward made with create_graph."""

    @staticmethod
    def forward(ctx, results, *tensors):
        return tuple(r.detach() if r is not None else None for r in results)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(DOUBLE_BACKWARD)


def _run_backward(backward: Backward, grads, saved) -> list:
    tensors = []
    for grad, (_, _, dtype) in zip(grads, backward.grad_layouts):
        data = grad._data
        if not data.flags.c_contiguous or data.dtype != dtype:
            # the replay was generated for a dense placeholder (sums add in its order)
            grad = _wrap(np.ascontiguousarray(data, dtype=dtype))
        tensors.append(grad)
    tensors.extend(saved)
    arrays = _replay(backward.entry, tensors)
    if arrays is None or arrays is codegen.MISS:
        raise RuntimeError("leafgrad.compile: the backward of a compiled function could not "
                           "be replayed (a tensor it reads from outside the call changed "
                           "shape, dtype or requires_grad since the forward)")
    values = dict(zip(backward.entry.graph.output_values, arrays))
    return [None if item is None else _build(item, values, tensors)
            for item in backward.template]


def _hooked(node) -> bool:
    hookset = getattr(node, "_hookset", None)
    return hookset is not None and bool(hookset.tensor_pre or hookset.retains_grad
                                        or hookset.pre or hookset.post)


def capture_backward(tracer, tensors: list, diff: dict, make_entry):
    """Record the backward of the results in ``diff`` (Value -> (output_nr, tensor)) with a
    second tracer (Note: the differentiable replay). Returns a ``Backward`` or None after
    recording a break on ``tracer``."""
    from ..autograd import grad as autograd_grad
    from ..autograd.graph import AccumulateGrad
    from .capture import Tracer
    from .api import _finish, _template

    graph = tracer.graph
    # an edge per tensor the forward reads from outside (inputs, then parameters and buffers),
    # as torch's node has one per graph input (None for those that do not require grad)
    edges, candidates, known = [], [], set()
    for index, tensor in enumerate(tensors):
        edges.append(("input", index))
        if tensor._requires_grad:
            candidates.append(tensor)
            known.add(id(tensor))
    for value in graph.externals:
        if id(value.tensor) not in known:
            edges.append(("external", value.tensor))
            if value.tensor._requires_grad:
                candidates.append(value.tensor)
                known.add(id(value.tensor))
    for value in diff:
        root = value.alias_of
        if root is not None and root.kind in ("input", "external"):
            # torch returns such a result as a view made again outside its graph (TBackward0
            # with a _base): eager code makes the same
            tracer.broke("a result is a view of an input or parameter")
            return None
    outputs = [tensor for _, tensor in sorted(diff.values(), key=lambda pair: pair[0])]
    # a gradient that would reach a leaf made in the call: its .grad is the call's own
    # (the walk stops at the nodes of inputs with a graph of their own: what lies behind
    # them is the caller's graph)
    boundary = [t.grad_fn for t in candidates if t.grad_fn is not None]
    seen = {id(node) for node in boundary}
    stack = [t.grad_fn for t in outputs]
    for node in boundary + stack:
        if _hooked(node):
            tracer.broke("a backward hook (register_hook, retain_grad) is on the graph")
            return None
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if _hooked(node):
            # (the backward's trace would run the hook once more, on the first call)
            tracer.broke("a backward hook (register_hook, retain_grad) is on the graph")
            return None
        if type(node) is AccumulateGrad and id(node.variable) not in known:
            tracer.broke("the result's gradient reaches a leaf made in the call "
                         "(requires_grad on a tensor made inside it)")
            return None
        stack.extend(child for child, _ in node.next_functions)
    if not candidates:
        tracer.broke("the result requires grad through no input or parameter")
        return None

    second = Tracer(tracer.fullgraph)
    placeholders = []
    for nr, tensor in enumerate(outputs):
        placeholder = _wrap(np.ones(tensor._data.shape, tensor._data.dtype))
        placeholders.append(placeholder)
        second.add_input(placeholder, ("grad", nr))
    second.forward_values = (tracer.slot_of, tracer.by_layout)
    second.saved_sources = []
    state.tracer = second
    state.active = True
    try:
        grads = autograd_grad(outputs, candidates, placeholders, retain_graph=True,
                              allow_unused=True)
        state.active = False
        template = _template(tuple(grads), second, {id(p): i for i, p in enumerate(placeholders)},
                             second.breaks)
    finally:
        state.active = False
        state.tracer = tracer
    if second.breaks:
        for record in second.breaks:
            tracer.breaks.append(record)
        return None
    # the forward's arrays T2 read: results of the forward capture, never in a reused buffer
    saved_template = []
    for source in second.saved_sources:
        if source.kind == "input":
            saved_template.append(Live(input_index=source.tensor_index))
        elif source.kind == "external":
            saved_template.append(Live(tensor=source.tensor))
        elif source.kind in ("op", "constant"):
            source.escapes = True
            saved_template.append(source)
        else:
            tracer.broke("the backward reads a parameter's .grad")
            return None
    graph2 = second.graph
    # per edge: the gradient's item in the backward's result (None: not requiring grad, or
    # no gradient reached it)
    by_tensor = {id(t): item for t, item in zip(candidates, template)}
    graph2.output_template = tuple(
        by_tensor.get(id(tensors[where] if kind == "input" else where)) for kind, where in edges)
    _finish(graph2, True)
    entry = make_entry(graph2)
    layouts = [(p._data.shape, p._data.strides, p._data.dtype) for p in placeholders]
    order = sorted(diff.items(), key=lambda item: item[1][0])
    backward = Backward(entry, graph2.output_template, second.saved_sources, layouts, edges,
                        [value for value, _ in order])
    second.keep.clear()
    backward.saved_template = saved_template
    return backward


def call(backward: Backward, template, values: dict, tensors: list, grads):
    """A call's result: the forward's arrays ``values``, the diff results through
    ``CompiledFunction`` (Note: the differentiable replay). A Value returned twice, or
    returned and saved, is one Tensor (one version counter)."""
    state = _Call(backward, values, tensors)
    results = CompiledFunction.apply(state, *[tensors[where] if kind == "input" else where
                                              for kind, where in backward.edges])
    memo = state.memo

    def build(item):
        if isinstance(item, Value):
            kind = grads.get(item) if grads is not None else None
            if kind is not None:
                if kind[0] == "compiled":
                    return results[kind[1]]
                return _build(item, values, tensors, grads)
            tensor = memo.get(item)
            if tensor is None:
                tensor = memo[item] = _wrap(values[item])
            return tensor
        if type(item) in (tuple, list):
            return type(item)(build(i) for i in item)
        if type(item) is dict:
            return {k: build(v) for k, v in item.items()}
        return _build(item, values, tensors, grads)

    return build(template)
