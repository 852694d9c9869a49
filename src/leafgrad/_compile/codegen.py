"""From a captured graph to straight-line Python: passes, then the source of one function.

Passes (in order):

- dead code: op nodes whose results nothing reads (no later node, not returned, not stored as
  a ``.grad``) are dropped; in-place writes, ``.grad`` updates and optimizer calls always stay.
- common subexpressions: an op node with the same op, arguments and parameters as an earlier
  one, with no write in between (in-place op, ``.grad`` update, optimizer call), reuses the
  earlier result. Results that reach the caller are never merged (two ``.grad``s must not
  share an array).
- kernels: an op class may name a NumPy ufunc as its capture kernel (``capture_ufunc``, plus
  ``capture_params`` for parameters that are operands). Where the arguments already have the
  result's dtype (so the op's dtype promotion has nothing to do) the replay calls the ufunc
  directly instead of the op's forward, which is the same NumPy call. A Python number operand
  becomes a 0-d array of the result's dtype (the array NumPy would convert it to on every
  call), and an op whose kernel is a few ufunc calls (``capture_steps``: tanh's and sigmoid's
  backward) has them written inline.
- buffers: a kernel's result that never reaches the caller and is not aliased by a view is
  written with ``out=`` into a buffer kept between calls; when one of its arguments dies at
  that node and owns a buffer of the same shape and dtype, the result takes that buffer over
  (a one-element result takes a buffer freed by an earlier node instead: NumPy runs a ufunc
  whose output is one of its one-element inputs at twice the cost),
  so a chain of elementwise ops runs in one buffer without temporaries.

Every other op runs as ``forward(None, *arrays, **params)``: the same array-level code eager
``Op.apply`` runs, so results are bitwise those of eager mode.

Note: layouts in the replay
A replay gives every array the strides eager code gave it at capture, so that reductions add
in the same order and results stay bitwise eager's (inputs' strides are part of the cache key
and tensors from outside the call are guarded on theirs: api.py). Plain NumPy calls on arrays
of the same strides give results of the same strides, and a buffer is allocated like the
array eager made. One eager step is not a NumPy call: an elementwise op whose operands
disagree on a layout orders its result as torch's TensorIterator does (Note: output layout,
ops/_layout.py). Where it did at capture (``_relaid``), a kernel writes its result into an
array of those strides (its buffer, or a new one) and an op's forward is followed by the same
``iterated`` call eager makes; everywhere else the generated code has no layout step at all.
"""

from __future__ import annotations

import numpy as np

from ..ops import _mkl, _numba_kernels
from ..ops._layout import decided_by_others, iterated, iterated_strides
from . import fuse
from .graph import AsTensor, Graph, Node, Value, copy_as_made
from .replay_optim import fast_call, param_ids

__all__ = ["optimise", "generate"]


def _hashable_key(item):
    if isinstance(item, Value):
        return ("v", item.index)
    if isinstance(item, AsTensor):
        return ("t", item.value.index)
    if isinstance(item, (list, tuple)):
        return (type(item).__name__,) + tuple(_hashable_key(i) for i in item)
    if isinstance(item, float) and item != item:
        raise TypeError("nan is not a key")
    if type(item) is float and item == 0:
        return ("float", repr(item))  # x * -0. and x * 0. differ: 0. == -0. must not merge them
    hash(item)
    return (type(item).__name__, item)


def _substitute(item, mapping: dict):
    if isinstance(item, Value):
        return mapping.get(item, item)
    if isinstance(item, AsTensor):
        return AsTensor(mapping.get(item.value, item.value))
    if isinstance(item, (list, tuple)):
        return type(item)(_substitute(i, mapping) for i in item)
    return item


def _template_values(template):
    if isinstance(template, Value):
        yield template
    elif isinstance(template, (list, tuple)):
        for t in template:
            yield from _template_values(t)
    elif isinstance(template, dict):
        for t in template.values():
            yield from _template_values(t)


def optimise(graph: Graph, cse: bool = True) -> None:
    """Dead code and common subexpressions (see the module docstring)."""
    stats = graph.stats
    stats["nodes captured"] = len(graph.nodes)
    if cse:
        _cse(graph)
    _dead_code(graph)
    stats["nodes after passes"] = len(graph.live_nodes())


def _cse(graph: Graph) -> None:
    seen: dict = {}
    mapping: dict = {}
    epoch = 0
    merged = 0
    for node in graph.nodes:
        if mapping:
            node.args = [_substitute(a, mapping) for a in node.args]
            node.params = {k: _substitute(v, mapping) for k, v in node.params.items()}
        if node.kind != "op":
            if node.kind != "accumulate" or node.mode == "add":
                epoch += 1  # a write: values computed before may differ from those after
            continue
        if node.multi or node.op.is_view or node.kept or any(v.escapes for v in node.outputs):
            continue
        try:
            key = (epoch, node.op, tuple(_hashable_key(a) for a in node.args),
                   tuple(sorted((k, _hashable_key(v)) for k, v in node.params.items())))
        except TypeError:
            continue
        earlier = seen.get(key)
        if earlier is None:
            seen[key] = node
            continue
        mapping[node.outputs[0]] = earlier.outputs[0]
        node.dead = True
        merged += 1
    if mapping:
        graph.output_template = _substitute_template(graph.output_template, mapping)
    graph.stats["common subexpressions merged"] = merged


def _substitute_template(template, mapping):
    if isinstance(template, Value):
        return mapping.get(template, template)
    if isinstance(template, list):
        return [_substitute_template(t, mapping) for t in template]
    if isinstance(template, tuple):
        return tuple(_substitute_template(t, mapping) for t in template)
    if isinstance(template, dict):
        return {k: _substitute_template(v, mapping) for k, v in template.items()}
    return template


def _dead_code(graph: Graph) -> None:
    needed = set(_template_values(graph.output_template))
    removed = 0
    for node in reversed(graph.nodes):
        if node.dead:
            continue
        # unused results are dropped, except a draw's (the generator must advance) and a
        # check's (it must raise as eager code does)
        if node.kind in ("op", "kernel") and not any(v in needed for v in node.produced()) \
                and not getattr(node.op, "draws_random", False) \
                and not getattr(node.op, "always_runs", False):
            node.dead = True
            removed += 1
            continue
        needed.update(node.values_read())
    for value in graph.values:
        value.users = 0
    for node in graph.live_nodes():
        for value in node.values_read():
            value.users += 1
    for value in _template_values(graph.output_template):
        value.users += 1
    graph.stats["dead nodes removed"] = removed


# -- code generation -------------------------------------------------------------------------


class _Namespace:
    """Constants the generated code refers to by name."""

    def __init__(self) -> None:
        self.names: dict = {}
        self.by_id: dict = {}
        self.typed: dict = {}  # (type, number, dtype) -> name of its 0-d array (_typed)

    def add(self, obj, hint: str) -> str:
        key = id(obj)
        name = self.by_id.get(key)
        if name is not None and self.names[name] is obj:
            return name
        name = f"{hint}{len(self.names)}"
        self.names[name] = obj
        self.by_id[key] = name
        return name


def _kernel(node: Node):
    """``(function, operands, composite)`` for a node that can call its capture ufunc or
    kernel directly, or None."""
    op = node.op
    if node.kind != "op" or node.multi:
        return None
    composite = getattr(op, "capture_kernel", None)
    ufunc = composite or getattr(op, "capture_ufunc", None)
    if ufunc is None:
        return None
    if isinstance(ufunc, str):  # names the op's own ufunc attribute (the unary math ops)
        ufunc = getattr(op, ufunc, None)
    if composite is None and not isinstance(ufunc, np.ufunc):
        return None
    out = node.outputs[0]
    if out.dtype.kind != "f" or not out.shape:
        return None  # 0-d results: the op's forward makes the array eager code wraps
    if any(value.users for _, _, value in node.kept):
        return None  # the backward reads arrays the forward keeps: only forward keeps them
    operand_params = getattr(op, "capture_params", ())
    for name, value in node.params.items():
        if name not in operand_params and not (name == "alpha" and value == 1):
            return None
    operands = list(node.args) + [node.params[n] for n in operand_params if n in node.params]
    if composite is None and len(operands) != ufunc.nin:
        return None
    for item in operands:
        if isinstance(item, Value):
            if item.dtype != out.dtype:
                return None
        elif type(item) is not float and not (composite and type(item) in (int, float)):
            return None
    return ufunc, operands, composite is not None


def _relaid(node: Node) -> tuple | None:
    """The strides of an op's result that eager code reordered as TensorIterator orders it
    (see Note: layouts in the replay), as ``Op.apply`` decided it at capture; None for the
    rest (most: row-major operands, or a first operand that is only a broadcast, as the
    expanded gradient of a sum, where NumPy's order is already TensorIterator's). Called
    before the graph is sealed: values still hold their capture arrays."""
    if node.kind != "op" or node.multi or not node.op._iterated or not node.args:
        return None
    first = node.args[0]
    if not isinstance(first, Value) or first.array is None:
        return None
    array = first.array
    out = node.outputs[0]
    operands = [a.array if isinstance(a, Value) else a for a in node.args]
    if (array.ndim < 2 or array.flags.c_contiguous) and (
            out.array is None or not decided_by_others(array, out.array, operands)):
        return None
    if out.array is None or out.array.base is None:
        # NumPy's own result (it owns its memory): eager kept it as it was, its layout is the
        # one the replay's call gives. ``iterated`` returns a view of the array it allocated.
        return None
    if iterated_strides(out.shape, out.dtype.itemsize, operands) is None:
        return None
    return out.strides


def _fresh(shape: tuple, strides: tuple, dtype) -> np.ndarray:
    """A new array of ``strides`` (bytes), for a relaid kernel's result without a buffer."""
    size = 1
    for n in shape:
        size *= n
    return np.lib.stride_tricks.as_strided(np.empty(size, dtype), shape, strides)


def _plan_buffers(graph: Graph, kernels: dict) -> dict:
    """Which kernel results get an ``out=`` buffer, and which buffer (see the module doc)."""
    unsafe = set()
    for node in graph.live_nodes():
        if node.kind == "op" and node in kernels:
            continue
        if node.kind in ("op", "kernel") and not node.multi and not node.aliases:
            continue
        unsafe.update(node.values_read())  # read by code that might keep or alias the array
    for value in _template_values(graph.output_template):
        unsafe.add(value)
    last_use: dict = {}
    for position, node in enumerate(graph.live_nodes()):
        for value in node.values_read():
            last_use[value] = position
    buffer_of: dict = {}
    counter = 0
    # A one-element result does not take over its argument's buffer: NumPy 2 runs a ufunc
    # whose output is one of its one-element inputs at twice the cost of one writing
    # elsewhere (0.55 against 0.25 us); it takes a buffer freed by an earlier node instead.
    free: dict = {}
    freed: list = []
    for position, node in enumerate(graph.live_nodes()):
        for key, plan in freed:
            free.setdefault(key, []).append(plan)
        freed = []
        if node in kernels:
            out = node.outputs[0]
            if out not in unsafe and not out.escapes:
                chosen = None
                if out.array.size == 1:
                    spare = free.get((out.shape, out.dtype, out.strides))
                    if spare:
                        chosen = spare.pop()
                else:
                    for item in kernels[node][1] if not kernels[node][2] else ():
                        if (isinstance(item, Value) and item in buffer_of
                                and last_use.get(item) == position
                                and item.shape == out.shape and item.dtype == out.dtype
                                and item.strides == out.strides):
                            chosen = buffer_of[item]
                            break
                if chosen is None:
                    # the layout eager NumPy gave the result (C or F order...): reductions
                    # over it then add in the same order, so results stay bitwise eager's
                    chosen = (counter, np.empty_like(out.array))
                    counter += 1
                buffer_of[out] = chosen
        for value in set(node.values_read()):
            if (last_use.get(value) == position and value in buffer_of
                    and value.array.size == 1):
                freed.append(((value.shape, value.dtype, value.strides), buffer_of[value]))
    graph.stats["buffers"] = counter
    graph.stats["results written into buffers"] = len(buffer_of)
    return buffer_of


def generate(graph: Graph, use_buffers: bool = True) -> tuple[str, dict]:
    """The replay function's source and the namespace it runs in.

    ``replay(inputs)`` takes the input tensors in order and returns the arrays of the values
    the output template names (in ``graph.output_values`` order), or ``MISS`` when a guard on
    state from outside the call fails.
    """
    from ..ops.registry import _loud, _quiet
    from ..tensor import _POST_ACC_USED as _POST_ACC, _wrap
    from . import sources as _sources

    ns = _Namespace()
    lines = []
    live = graph.live_nodes()
    kernels = {}
    for node in live:
        found = _kernel(node)
        if found is not None:
            kernels[node] = found
    relaid = {}
    for node in live:
        strides = _relaid(node)
        if strides is not None:
            relaid[node] = strides
    graph.stats["results in TensorIterator's order"] = len(relaid)
    buffer_of = _plan_buffers(graph, kernels) if use_buffers else {}
    # Note: compiled loops. Where numba is installed, the replay's body runs with
    # ops/_numba_kernels.py's loops switched on: the few NumPy kernels whose arithmetic replays
    # torch's step by step in many small passes (softmax, log_softmax, SGD's fused update)
    # then run as one compiled loop each, with the same bits (eager code keeps NumPy's), and
    # runs of small elementwise kernels as one loop (fuse.py, Note: fused elementwise runs).
    compiled_loops = _numba_kernels.available()
    runs, rows = [], {}
    if compiled_loops and buffer_of:
        runs, rows = fuse.plan(live, kernels, buffer_of, relaid,
                               lambda number, dtype: _typed_array(number, dtype, ns))
    buffers = {}
    for plan in buffer_of.values():
        if plan[0] not in buffers:
            row = rows.get(plan[0])
            array = plan[1] if row is None else row.reshape(plan[1].shape)
            buffers[plan[0]] = ns.add(array, "B")
    graph.stats["nodes calling a ufunc directly"] = len(kernels)
    graph.stats["fused elementwise runs"] = len(runs)
    graph.stats["nodes in fused runs"] = sum(len(run.nodes) for run in runs)

    def code(item) -> str:
        if isinstance(item, _Code):
            return item
        if isinstance(item, Value):
            return item.name
        if isinstance(item, AsTensor):
            return f"wrap({item.value.name})"
        if isinstance(item, list):
            return "[" + ", ".join(code(i) for i in item) + "]"
        if isinstance(item, tuple):
            return "(" + "".join(code(i) + ", " for i in item) + ")"
        if item is None or type(item) in (bool, int, str):
            return repr(item)
        return ns.add(item, "K")

    # guards on state from outside the call
    guard = []
    for value in graph.externals:
        if not value.users:
            continue
        t = ns.add(value.tensor, "E")
        guard.append(f"{t}._data.shape != {value.shape!r} or {t}._data.strides != "
                     f"{value.strides!r} or {t}._data.dtype != "
                     f"{ns.add(value.dtype, 'D')} or {t}._requires_grad is not "
                     f"{value.tensor._requires_grad!r}")
    # Note: hooks registered after the capture. A capture breaks where a hook runs (a module's
    # forward or backward hooks, a tensor's), so a replay stands for calls without any; one
    # registered since (on a module it calls, globally, on a tensor whose gradient it computes)
    # is a miss: the call is captured again (and breaks, running eagerly as torch would run
    # the hook), never replayed without it.
    from ..nn.modules import module as _module

    for module, training in graph.module_guards:
        n = ns.add(module, "N")
        guard.append(f"{n}.training is not {training!r} or {n}._forward_pre_hooks or "
                     f"{n}._forward_hooks or {n}._backward_hooks or {n}._backward_pre_hooks")
    if graph.module_guards:
        guard.append(" or ".join(ns.add(hooks, "G") for hooks in (
            _module._global_forward_pre_hooks, _module._global_forward_hooks,
            _module._global_backward_pre_hooks, _module._global_backward_hooks)))
    leaves = {}
    for value in graph.values:
        if value.kind in ("input", "external") and value.tensor is not None and \
                value.tensor._requires_grad and value.tensor._node is None:
            leaves[id(value.tensor)] = value.tensor
    for param, _ in graph.grad_guards:
        leaves[id(param)] = param
    for tensor in leaves.values():
        p = _param(tensor, graph, ns)
        guard.append(f"{p}._hooks or POST_ACC[0] and {p}._post_accumulate_hooks()")
    for param, was_none in graph.grad_guards:
        p = _param(param, graph, ns)
        guard.append(f"({p}._grad_value is None) is not {was_none!r}")
    from ..optim.optimizer import Optimizer

    optimizers = {id(n.param): n.param for n in graph.live_nodes()
                  if n.kind == "call" and isinstance(n.param, Optimizer)}
    for optimizer in optimizers.values():
        # the replay's .grad reads and writes assume the parameters the optimizer's
        # zero_grad/step touched at capture (add_param_group after it: retrace)
        guard.append(f"param_ids({ns.add(optimizer, 'N')}) != "
                     f"{ns.add(param_ids(optimizer), 'I')}")
        ns.add(tuple(p for g in optimizer.param_groups for p in g["params"]), "L")  # ids live
    sources = getattr(graph, "sources", None)
    if sources is not None:  # Python values the capture read (sources.py)
        guard.extend(sources.guards(ns.add))
    if guard:
        lines.append("    if (" + "\n            or ".join(guard) + "):")
        lines.append("        return MISS")
    # reading the inputs
    for value in graph.values:
        if not value.users and value not in set(_template_values(graph.output_template)):
            continue
        if value.kind == "input":
            lines.append(f"    {value.name} = inputs[{value.tensor_index}]._data")
        elif value.kind == "external":
            lines.append(f"    {value.name} = {ns.add(value.tensor, 'E')}._data")
        elif value.kind == "grad":
            lines.append(f"    {value.name} = {_param(value.tensor, graph, ns)}._grad_value._data")
        elif value.kind == "constant":
            # the values as made, copied for a replay that writes into them or returns them
            # (capture.py, Note: constants written in place)
            array = ns.add(value.initial, "C")
            fresh = value in _written(graph) or value in graph.written or value.escapes
            lines.append(f"    {value.name} = {f'copy_as_made({array})' if fresh else array}")
    lines.append("    token = quiet()")
    if compiled_loops:
        lines.append("    loops = loops_begin()")
    lines.append("    try:")
    body = []
    run_of = {node: run for run in runs for node in run.nodes}
    readers: dict = {}  # value -> the runs (None: no run) of the nodes reading it
    if runs:
        for node in live:
            run = run_of.get(node)
            for value in node.values_read():
                readers.setdefault(value, set()).add(run)
        for value in _template_values(graph.output_template):
            readers.setdefault(value, set()).add(None)
    for node in live:
        run = run_of.get(node)
        if run is None:
            body.extend(_node_code(node, kernels, buffer_of, buffers, code, ns, graph, relaid))
        elif node is run.nodes[0]:
            body.extend(_run_code(run, kernels, buffer_of, buffers, code, ns, graph, relaid,
                                  readers))
    body.append("return (" + "".join(v.name + ", " for v in graph.output_values) + ")")
    lines.extend("        " + line for line in body)
    lines.append("    finally:")
    lines.append("        loud(token)")
    if compiled_loops:
        lines.append("        loops_end(loops)")
    source = "def replay(inputs):\n" + "\n".join(lines) + "\n"
    namespace = dict(ns.names)
    namespace.update(np=np, quiet=_quiet, loud=_loud, wrap=_wrap, asarray=np.asarray,
                     MISS=MISS, Keeper=Keeper, param_ids=param_ids, copy_as_made=copy_as_made,
                     MISSING=_sources.MISSING, changed=_sources.changed, POST_ACC=_POST_ACC,
                     cell_get=_sources._cell_get, item_get=_sources._item_get,
                     loops_begin=_numba_kernels.begin, loops_end=_numba_kernels.end)
    return source, namespace


class Keeper:
    """The ``ctx`` a replayed forward gets when the backward needs what it keeps: answers
    ``needs_grad`` as the captured node did and stores ``keep``s."""

    __slots__ = ("_saved", "_needs")

    def __init__(self, needs: tuple) -> None:
        self._saved = {}
        self._needs = needs

    def keep(self, name: str, value) -> None:
        self._saved[name] = value

    def needs_grad(self, index: int) -> bool:
        return self._needs[index]


class _Miss:
    def __repr__(self) -> str:
        return "MISS"


MISS = _Miss()


def _written(graph: Graph) -> set:
    found = getattr(graph, "_written_cache", None)
    if found is None:
        found = {n.args[0] for n in graph.live_nodes() if n.kind == "inplace"}
        graph._written_cache = found
    return found


def _private(value: Value, graph: Graph) -> bool:
    """Whether nothing but its one reader holds ``value``'s memory (so a ``.grad`` may keep it,
    as eager AccumulateGrad steals a gradient nothing else references)."""
    if value.kind != "op" or value.users > 1 or value in graph.output_values:
        return False
    root = value.alias_of
    if root is None:
        return True
    if root.kind != "op" or root in graph.output_values:
        return False
    for other in graph.values:
        if other is not value and (other is root or other.alias_of is root) and (
                other.users > 1 or other.escapes or other in graph.output_values):
            return False
    return True


def _param(tensor, graph: Graph, ns) -> str:
    """Code for a tensor whose ``.grad`` the replay reads or writes: an input of this call
    (``inputs[i]``, a new object on every call) or a tensor from outside (a parameter)."""
    index = graph.input_index.get(id(tensor))
    return f"inputs[{index}]" if index is not None else ns.add(tensor, "P")


def _tensor_of(value: Value, ns, graph) -> str | None:
    """Code for the live tensor behind a value whose version eager code bumps, if any."""
    root = value.alias_of or value
    if root.kind == "input":
        return f"inputs[{root.tensor_index}]"
    if root.kind == "external":
        return ns.add(root.tensor, "E")
    if root.kind == "grad":
        return f"{_param(root.tensor, graph, ns)}._grad_value"
    return None


class _Code(str):
    """Source text that ``code()`` passes through as it is (a name in the namespace)."""


def _typed(item, dtype, ns):
    """A Python number operand of a ufunc whose array operands all have ``dtype``, as a 0-d
    array of that dtype: NumPy converts a weak Python scalar to exactly that array before the
    loop runs (so the result's bits are the same), and a 0-d array operand skips the
    conversion, ~0.2 us of a ~0.4 us call on small arrays (benchmarks/bench_compile.py,
    chain1). Numbers the dtype cannot hold exactly enough (an int past its mantissa, a float
    overflowing it) stay Python numbers."""
    if isinstance(item, Value) or type(item) not in (int, float):
        return item
    key = (type(item), repr(item), dtype)  # repr: -0. and 0. are different constants
    known = ns.typed.get(key)
    if known is not None:
        return known
    with np.errstate(all="ignore"):
        typed = np.asarray(item, dtype)
    if type(item) is int and int(typed) != item:
        return item
    if type(item) is float and np.isfinite(item) and not np.isfinite(typed):
        return item
    typed.flags.writeable = False
    known = ns.typed[key] = _Code(ns.add(typed, "K"))
    return known


def _typed_array(item, dtype, ns):
    """The 0-d array ``_typed`` makes of a number operand, or None where it keeps the
    number."""
    typed = _typed(item, dtype, ns)
    return ns.names[typed] if isinstance(typed, _Code) else None


def _run_code(run, kernels, buffer_of, buffers, code, ns, graph, relaid, readers) -> list:
    """A fused run (fuse.py, Note: fused elementwise runs): one compiled loop while the
    loops (and, for a run calling MKL, MKL's functions) are on, else the NumPy calls. After
    the loop, the results that code outside the run reads get their names."""
    from ..ops import _numba_tape

    group = run.group
    condition = f"{ns.add(_numba_kernels, 'N')}.active"
    if run.vml:
        condition += f" and {ns.add(_mkl.available, 'F')}()"
    lines = [f"if {condition}:"]
    for row, value in run.staging:
        view = group.ws[row].reshape(value.shape)
        lines.append(f"    np.copyto({ns.add(view, 'R')}, {value.name})")
    consts = np.zeros(len(group.consts), np.dtype(group.dtype))
    for key, index in group.consts.items():
        consts[index] = float.fromhex(key)
    lines.append(f"    {ns.add(_numba_tape.run, 'T')}({ns.add(np.array(run.code, np.int64), 'K')}"
                 f", {ns.add(group.ws, 'W')}, {ns.add(consts, 'K')}, "
                 f"{ns.add(fuse.FUNCTIONS, 'K')}, {group.dtype == 'd'})")
    for node in run.nodes:
        out = node.outputs[0]
        if any(reader is not run for reader in readers.get(out, ())):
            lines.append(f"    {out.name} = {buffers[buffer_of[out][0]]}")
    lines.append("else:")
    for node in run.nodes:
        lines.extend("    " + line for line in
                     _node_code(node, kernels, buffer_of, buffers, code, ns, graph, relaid))
    return lines


def _steps_code(steps, operands, out, target_array, code, ns) -> list:
    """A kernel written as a few ufunc calls (an op's ``capture_steps``), inlined: each step
    ``(ufunc, *operands)`` names the node's operands by position, the result so far as
    ``"out"`` and constants as Python floats; the first step writes ``target_array`` (code
    for the result's buffer or a new array of its strides, or None: a new array), the others
    write it in place."""
    lines = []
    target = out.name
    for index, (ufunc, *args) in enumerate(steps):
        texts = []
        for arg in args:
            if arg == "out":
                texts.append(target)
            elif type(arg) is int:
                texts.append(code(operands[arg]))
            else:
                texts.append(code(_typed(arg, out.dtype, ns)))
        call = f"{ns.add(ufunc, 'U')}({', '.join(texts)}"
        if index == 0:
            tail = f", {target_array})" if target_array is not None else ")"
            lines.append(f"{target} = {call}{tail}")
        else:
            lines.append(f"{call}, {target})")
    return lines


def _node_code(node: Node, kernels, buffer_of, buffers, code, ns, graph, relaid) -> list:
    if node.kind == "op":
        strides = relaid.get(node)
        if node in kernels:
            ufunc, operands, composite = kernels[node]
            out = node.outputs[0]
            plan = buffer_of.get(out)
            if plan is not None:  # (a buffer has the strides of eager's array)
                target = buffers[plan[0]]
            elif strides is not None:  # Note: layouts in the replay
                target = (f"{ns.add(_fresh, 'F')}({out.shape!r}, {strides!r}, "
                          f"{ns.add(out.dtype, 'D')})")
            else:
                target = None
            steps = getattr(node.op, "capture_steps", None) if composite else None
            if steps is not None:
                return _steps_code(steps, operands, out, target, code, ns)
            name = ns.add(ufunc, "U")
            if composite:
                args = ", ".join(code(o) for o in operands)
            else:
                args = ", ".join(code(_typed(o, out.dtype, ns)) for o in operands)
            # out positional: a ufunc parses it faster than the keyword
            if target is not None:
                return [f"{out.name} = {name}({args}, {target})"]
            return [f"{out.name} = {name}({args}{', None' if composite else ''})"]
        forward = ns.add(node.op.forward, "F")
        args = "".join(", " + code(a) for a in node.args)
        params = "".join(f", {k}={code(v)}" for k, v in node.params.items())
        kept = [(key, index, value) for key, index, value in node.kept if value.users]
        lines = []
        if kept:
            # the backward reads arrays the forward keeps: run it with a context that keeps
            lines.append(f"ctx = Keeper({node.needs!r})")
            call = f"{forward}(ctx{args}{params})"
        else:
            call = f"{forward}(None{args}{params})"
        if node.multi:
            outs = ", ".join(v.name for v in node.outputs)
            lines.append(f"{outs}, = {call}" if len(node.outputs) == 1 else f"{outs} = {call}")
            # 0-d results as arrays, as eager wraps them (a NumPy scalar would promote as a
            # Python number in the next op: std_mean's std * 2 became float32)
            lines.extend(f"{v.name} = asarray({v.name})" for v in node.outputs if not v.shape)
        else:
            out = node.outputs[0]
            if not out.shape:
                call = f"asarray({call})"
            lines.append(f"{out.name} = {call}")
            if strides is not None:  # Note: layouts in the replay: eager's own step
                lines.append(f"{out.name} = {ns.add(iterated, 'F')}({out.name}, "
                             f"({''.join(code(a) + ', ' for a in node.args)}))")
        for key, index, value in kept:
            where = "" if index is None else f"[{index}]"
            lines.append(f"{value.name} = ctx._saved[{key!r}]{where}")
        return lines
    if node.kind == "kernel":
        fn = ns.add(node.op, "A")
        args = [code(a) for a in node.args] + [f"{k}={code(v)}" for k, v in node.params.items()]
        if node.multi:  # a tuple of arrays (capture.py kernel)
            if not node.outputs:
                return [f"{fn}({', '.join(args)})"]
            outs = ", ".join(v.name for v in node.outputs)
            return [f"{outs}, = {fn}({', '.join(args)})"] + [
                f"{v.name} = asarray({v.name})" for v in node.outputs if not v.shape]
        return [f"{node.outputs[0].name} = asarray({fn}({', '.join(args)}))"]
    if node.kind == "inplace":
        target = node.args[0]
        others = node.args[1:]
        lines = [f"{value.name} = {target.name}.copy()" for _, _, value in node.kept]
        ufunc = node.op.inplace_ufunc
        if node.mode == "ufunc":
            # the eager unrecorded path (ops/inplace.py _ufunc_inplace): cast, then one ufunc
            other = others[0]
            operand = code(other)
            cast = node.cast
            if cast is not None and isinstance(other, Value):
                operand = f"{operand}.astype({ns.add(cast, 'D')})"
            alpha = node.params.get("alpha", 1)
            if alpha != 1:  # ops/inplace.py scaled_operand: one fused multiply-add
                from ..ops._float_kernels import scaled_update

                lines.append(f"{ns.add(scaled_update, 'F')}({ns.add(ufunc, 'U')}, "
                             f"{target.name}, {operand}, {code(alpha)}, out={target.name})")
            else:
                lines.append(f"{ns.add(ufunc, 'U')}({target.name}, {operand}, "
                             f"out={target.name}, casting='unsafe')")
        else:
            forward = ns.add(node.op.forward, "F")
            args = "".join(", " + code(a) for a in others)
            params = "".join(f", {k}={code(v)}" for k, v in node.params.items())
            lines.append(f"np.copyto({target.name}, asarray({forward}(None, {target.name}{args}"
                         f"{params})), casting='unsafe')")
        tensor = _tensor_of(target, ns, graph)
        if tensor is not None and node.bumps:
            lines.append(f"{tensor}._bump_version()")
        return lines
    if node.kind == "accumulate":
        p = _param(node.param, graph, ns)
        grad = node.args[0]
        if node.mode == "add":
            return [f"g = {p}._grad_value",
                    f"np.add(g._data, {code(grad)}, out=g._data, casting='unsafe')",
                    "g._bump_version()"]
        if node.copy or not _private(grad, graph):
            array = f"np.array({code(grad)}, copy=True, order='C')"
        else:
            array = code(grad)
        if node.outputs:  # the new .grad's array is read later (capture.py accumulate)
            return [f"{node.outputs[0].name} = {array}", f"{p}._grad_value = wrap({node.outputs[0].name})"]
        return [f"{p}._grad_value = wrap({array})"]
    if node.kind == "setgrad":
        p = _param(node.param, graph, ns)
        if not node.args:
            return [f"{p}._grad_value = None"]
        return [f"{p}._grad_value = wrap({code(node.args[0])})"]
    method = ns.add(node.op, "M")
    params = ", ".join(f"{k}={code(v)}" for k, v in node.params.items())
    fast = fast_call(node.op, node.param, node.mode, node.params)
    if fast is not None:  # array code for the call where it covers it (replay_optim.py)
        function, arguments = fast
        args = ", ".join(ns.add(a, "O") for a in arguments)
        return [f"if not {ns.add(function, 'S')}({args}):", f"    {method}({params})"]
    return [f"{method}({params})"]
