"""The backward engine: runs a recorded graph from its roots toward the leaves.

It knows no op by name. It walks ``next_functions`` edges iteratively (graphs of a million
nodes are normal), counts how many edges lead into each node, sums the gradients arriving at
each node in an input buffer, and runs a node once all of them have arrived. Among ready nodes
the most recently created runs first (see Note: execution order in graph.py), which makes the
order, and so hook calls and error messages, deterministic.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import threading

import numpy as np

from .._compile.state import state as _capture
from . import _record
from . import anomaly_mode as _anomaly
from ._fp_errors import loud as _loud, quiet as _quiet
from .forward_ad import state as _dual_state
from .grad_mode import state as _grad_state
from .graph import AccumulateGrad, Node, check_hook_value, check_hook_values
from .graph import GRAD_DTYPE_SEEN as _GRAD_DTYPE_SEEN, cast_to_grad_dtype as _cast_to_grad_dtype
from .graph import ZERO_GRADS_SEEN as _ZERO_GRADS_SEEN, is_zero_grad as _is_zero_grad
from . import grad_mode

__all__ = ["run_backward", "current_task"]

# Set by ``autograd.trace()`` while it records (None otherwise, so the engine pays one check per
# node); it is told of each node run, accumulation, hook call and freed buffer, in order.
_observer = None


class ChainedObserver:
    """An observer that watches the engine on top of the one it displaced (``previous``, or
    None): everything it does not watch itself is passed on, and ``run_node`` runs a node
    through ``previous`` or, at the bottom of the chain, as the engine would."""

    def __init__(self, previous) -> None:
        self.previous = previous

    def begin(self, *args) -> None:
        if self.previous is not None:
            self.previous.begin(*args)

    def run(self, node, buffer, hookset, run_hooked, retain_graph):
        return self.run_node(node, buffer, hookset, run_hooked, retain_graph)

    def run_node(self, node, buffer, hookset, run_hooked, retain_graph):
        if self.previous is not None:
            return self.previous.run(node, buffer, hookset, run_hooked, retain_graph)
        return node._apply(buffer) if hookset is None else run_hooked(node, hookset, buffer)

    def hook(self, *args) -> None:
        if self.previous is not None:
            self.previous.hook(*args)

    def retained(self, *args) -> None:
        if self.previous is not None:
            self.previous.retained(*args)


class _Task:
    """What hooks may ask about the backward running in this thread (torch's graph task)."""

    __slots__ = ("id", "nodes", "partial", "accumulates", "unpacked", "callbacks")

    def __init__(self, nodes: dict, partial: bool, accumulates: bool):
        self.id = next(_task_ids)
        self.nodes = nodes  # every node this backward will reach (after pruning to inputs)
        self.partial = partial  # inputs= or autograd.grad: torch's checkpoint-invalid case
        self.accumulates = accumulates  # False under autograd.grad
        self.unpacked = None  # Note: one unpack per saved tensor and backward
        self.callbacks = None  # queue_callback's: run once this backward has finished


# Note: deep reentrant backward
# A backward called from inside a backward (a custom Function's backward, a checkpoint) nests
# Python frames; a few hundred levels reach the recursion limit. torch hands reentrant
# backwards past a depth to another thread; so does this, every _REENTRANT_DEPTH levels: a new
# thread starts with an empty stack. It gets the caller's thread-local modes (grad mode,
# saved-tensor hooks) and the caller waits for it, so the order of work is unchanged.
_REENTRANT_DEPTH = 50


def _on_fresh_thread(function, *args):
    from .graph import saved_hooks_state

    modes = (grad_mode.state.grad_enabled, grad_mode.state.inference,
             grad_mode.state.grad_layout_enforced)
    hooks = (saved_hooks_state.stack, saved_hooks_state.disabled)
    outcome = {}

    def work():
        (grad_mode.state.grad_enabled, grad_mode.state.inference,
         grad_mode.state.grad_layout_enforced) = modes
        saved_hooks_state.stack, saved_hooks_state.disabled = hooks
        try:
            outcome["result"] = function(*args)
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            outcome["error"] = error

    worker = threading.Thread(target=work, name="leafgrad-reentrant-backward")
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def queue_callback(callback) -> None:
    """Run ``callback()`` when the backward running in this thread finishes (torch's
    ``Variable._execution_engine.queue_callback``, used by hooks that need every gradient)."""
    tasks = getattr(_running, "tasks", None)
    if not tasks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    task = tasks[-1]
    if task.callbacks is None:
        task.callbacks = []
    task.callbacks.append(callback)


_task_ids = itertools.count()
_running = threading.local()  # .tasks: the backward calls running in this thread, innermost last


def current_task() -> _Task | None:
    """The innermost backward running in this thread, or None outside backward."""
    tasks = getattr(_running, "tasks", None)
    return tasks[-1] if tasks else None


def _discover(roots: list[Node]) -> dict:
    """Count, for every node reachable from the roots, the edges that lead into it."""
    dependencies: dict = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for child in node._next_nodes:
            if child is None:
                continue
            dependencies[child] = dependencies.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    for root in roots:
        dependencies.setdefault(root, 0)
    return dependencies


def _reaches_other_sinks(dependencies: dict, targets: set) -> bool:
    """Whether some node without children is not a target. In a graph (a DAG) every node
    reaches such a sink, so when all sinks are targets every node leads to a target and pruning
    would keep the graph as it is (the usual ``autograd.grad(f, x)``: one pass instead of
    three)."""
    for node in dependencies:
        if node in targets:
            continue
        for child in node._next_nodes:
            if child is not None:
                break
        else:
            return True
    return False


def _prune(roots: list[Node], dependencies: dict, targets: set) -> dict:
    """Keep only nodes from which a target can be reached; recount edges among them."""
    # Kahn order from the roots gives parents before children; walking it backwards decides
    # each node after all its children.
    remaining = dict(dependencies)
    order = []
    ready = [node for node in roots if remaining[node] == 0]
    seen = set()
    while ready:
        node = ready.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        for child in node._next_nodes:
            if child is None:
                continue
            remaining[child] -= 1
            if remaining[child] == 0:
                ready.append(child)
    needed = set()
    for node in reversed(order):
        if node in targets:
            needed.add(node)
            continue
        for child in node._next_nodes:
            if child in needed:
                needed.add(node)
                break
    pruned = {node: 0 for node in needed}
    for node in needed:
        for child in node._next_nodes:
            if child in needed:
                pruned[child] += 1
    return pruned


# Note: gradients a hook kept
# torch's AccumulateGrad keeps (steals) an arriving gradient only when nothing else holds it;
# one a tensor hook stored (grads.append) is copied, so the hook's tensor and .grad never
# share memory. leafgrad's steal test counts references, and how many the engine itself holds
# differs between paths (a gradient summed from several uses has one fewer), so a hook's one
# reference could go unseen: a hook that holds its argument afterwards, or returns a tensor
# something else holds, marks it here (by id; the holder keeps it alive), and AccumulateGrad
# copies a marked gradient.
# The marks are cleared when the outermost backward ends.
kept_by_hooks: set = set()


def _call_tensor_pre_hooks(hookset, buffer: list) -> None:
    hooks = hookset.tensor_pre
    if hooks:
        for output_nr, fn in list(hooks.values()):
            # torch calls the hook of every output of a node it runs, with None for an output
            # that got no gradient (a sibling's piece of unbind/chunk, a Function's None)
            grad = buffer[output_nr] if output_nr < len(buffer) else None
            before = sys.getrefcount(grad)
            result = fn(grad)
            if grad is not None:  # see Note: gradients a hook kept
                if result is None or result is grad:  # (``result``: one more reference)
                    if sys.getrefcount(grad) > before + (result is grad):
                        kept_by_hooks.add(id(grad))
                elif sys.getrefcount(result) > 2:  # ``result`` and getrefcount's own
                    kept_by_hooks.add(id(result))
            if _observer is not None:
                _observer.hook(hookset, "tensor hook", fn, (grad,), result)
            if result is not None:
                check_hook_value(fn, grad, result)  # Note: hook results
                buffer[output_nr] = result
    retains = hookset.retains_grad
    if retains:
        for output_nr, fn in list(retains.items()):
            if output_nr < len(buffer) and buffer[output_nr] is not None:
                fn(buffer[output_nr])
                if _observer is not None:
                    _observer.retained(hookset, output_nr, fn, buffer[output_nr])


def run_backward(
    roots: list,
    root_grads: list,
    retain_graph: bool,
    create_graph: bool,
    inputs: list | None = None,
    accumulate: bool = True,
) -> list | None:
    """Backpropagate ``root_grads`` from the edges ``roots`` (``(node, output_nr)`` pairs).

    ``inputs`` are ``(node, output_nr, tensor)`` triples. With ``accumulate`` the leaves'
    ``.grad`` are updated (``Tensor.backward``); ``inputs`` then restricts which ones (a non-leaf
    listed there retains its grad through its retain_grad hook). Without it (``autograd.grad``) nothing is written and
    the gradient arriving at each input's edge is returned, ``None`` where none arrived.
    """
    tasks = getattr(_running, "tasks", None)
    if tasks is not None and len(tasks) >= _REENTRANT_DEPTH:
        return _on_fresh_thread(run_backward, roots, root_grads, retain_graph, create_graph,
                                inputs, accumulate)
    root_nodes = []
    for node, _ in roots:
        if node not in root_nodes:
            root_nodes.append(node)
    dependencies = _discover(root_nodes)

    # Edges whose arriving gradient is captured rather than passed on.
    captures: dict = {}
    if inputs is not None:
        for index, (node, output_nr, tensor) in enumerate(inputs):
            captures.setdefault(node, []).append((output_nr, index, tensor))
        targets = set(captures)
        if _reaches_other_sinks(dependencies, targets):
            dependencies = _prune(root_nodes, dependencies, targets)
    results = [None] * len(inputs) if inputs is not None else None

    buffers: dict = {}
    skipped: dict = {}  # roots that lead to none of ``inputs``: only their tensor hooks run
    for (node, output_nr), grad in zip(roots, root_grads):
        buffer = (buffers if node in dependencies else skipped).setdefault(node, [])
        _add_to_buffer(buffer, output_nr, grad)

    ready = []
    ticket = itertools.count().__next__  # ties (accumulators) run in the order they got ready
    for node in root_nodes:
        if node in dependencies and dependencies[node] == 0:
            heapq.heappush(ready, (-node._seq, ticket(), node))

    _record.note_backward(root_nodes, accumulate, inputs)
    observer = _observer
    if observer is not None:
        observer.begin(root_nodes, roots, root_grads, retain_graph, accumulate)
    previous_mode = _grad_state.grad_enabled
    _grad_state.grad_enabled = create_graph
    for node, buffer in skipped.items():
        # torch's engine runs the tensor pre-hooks (retain_grad included) of every node it
        # evaluates, needed or not; a root is always evaluated
        hookset = node._hookset
        if hookset is not None and (hookset.tensor_pre or hookset.retains_grad):
            try:
                _call_tensor_pre_hooks(hookset, buffer)
            except BaseException:
                _grad_state.grad_enabled = previous_mode
                raise
    pop, push, get_count = heapq.heappop, heapq.heappush, dependencies.get
    # Anomaly mode (anomaly_mode.py) is read once per backward; while off it costs one local
    # check per node run.
    anomaly = _anomaly.state.enabled
    parent = _anomaly.enter_node(None) if anomaly else None
    node = None
    tasks = getattr(_running, "tasks", None)
    if tasks is None:
        tasks = _running.tasks = []
    task = _Task(dependencies, inputs is not None, accumulate)
    tasks.append(task)
    try:
        upcoming = None  # see Note: the next node without the heap
        while True:
            if upcoming is not None:
                node = upcoming
                upcoming = None
            elif ready:
                node = pop(ready)[2]
            else:
                break
            buffer = buffers.pop(node, None)
            grads_in = None
            if _GRAD_DTYPE_SEEN[0] and buffer is not None and type(node) is AccumulateGrad:
                _cast_to_grad_dtype(node, buffer)
            if buffer is not None and (buffer[0] is not None or _any_grad(buffer)) or \
                    node.runs_without_grads:  # (Note: nodes reached without a gradient)
                if buffer is None:
                    buffer = [None]
                hookset = node._hookset
                captured = captures.get(node) if captures else None
                before_hooks = None
                if hookset is not None:
                    if not (hookset.tensor_pre or hookset.retains_grad or hookset.pre
                            or hookset.post):
                        # no hook in it (every AccumulateGrad has one: it shares its leaf's
                        # hook dict, empty unless the leaf has hooks): run the node plainly
                        hookset = None
                    else:
                        if _capture.active:
                            _capture.tracer.broke(
                                "a backward hook (register_hook, retain_grad) ran")
                        if captured is not None and not accumulate and hookset.tensor_pre and \
                                any(child in dependencies for child in node._next_nodes):
                            # autograd.grad of a tensor whose node runs on (an input further
                            # down needs it): torch captures the gradient before the tensor's
                            # hooks, which run with the node (generated-program seed 52950)
                            before_hooks = list(buffer)
                        _call_tensor_pre_hooks(hookset, buffer)
                if captured is not None:
                    for output_nr, index, tensor in captured:
                        source = buffer if before_hooks is None else before_hooks
                        grad = source[output_nr] if output_nr < len(source) else None
                        if not accumulate:
                            results[index] = grad
                        # (backward(inputs=...) on a non-leaf: its retain_grad hook, run
                        # above, has already stored the grad)
                run = captured is None or (accumulate and type(node) is AccumulateGrad)
                if not run and any(child in dependencies for child in node._next_nodes):
                    run = True
                if run:
                    if anomaly:
                        _anomaly.enter_node(node)
                    if observer is None:
                        grads_in = node._apply(buffer) if hookset is None else _run_hooked(
                            node, hookset, buffer)
                    else:
                        grads_in = observer.run(node, buffer, hookset, _run_hooked, retain_graph)
                    if anomaly:
                        _anomaly.check_nan(node, grads_in)
                    if _ZERO_GRADS_SEEN[0] and grads_in is not None:
                        grads_in = _zeros_through(node, buffer, grads_in)
                    if not retain_graph:
                        node._release()
                elif accumulate:
                    # backward(inputs=[t]) with t a non-leaf needs t's node itself, as torch's
                    # engine marks it: it runs with every output unneeded (its hooks see None
                    # for each input) and its saved tensors are freed (generated-program seed
                    # 37514)
                    if hookset is not None and (hookset.pre or hookset.post):
                        _run_hooked(node, hookset, buffer, compute=False)
                    if not retain_graph:
                        node._release()
            elif node._hookset is not None:
                _hooks_without_grads(node, captures.get(node) if captures else None)
            # Pass the results along the edges; queue children whose inputs are complete.
            first = None  # the first child this node made ready (_QUEUED once it is queued)
            position = -1
            for child, output_nr in zip(node._next_nodes, node._next_nrs):
                position += 1
                if child is None:
                    continue
                count = get_count(child)
                if count is None:
                    continue
                if grads_in is not None:
                    grad = grads_in[position]
                    if grad is not None:
                        child_buffer = buffers.get(child)
                        if child_buffer is None and output_nr == 0:
                            buffers[child] = [grad]  # the usual case, without a call
                        else:
                            if child_buffer is None:
                                buffers[child] = child_buffer = [None] * (output_nr + 1)
                            _add_to_buffer(child_buffer, output_nr, grad)
                dependencies[child] = count - 1
                if count == 1:
                    if first is None:
                        first = child
                        continue
                    if first is not _QUEUED:
                        push(ready, (-first._seq, ticket(), first))
                        first = _QUEUED
                    push(ready, (-child._seq, ticket(), child))
            if first is not None and first is not _QUEUED:
                if ready and ready[0][0] <= -first._seq:
                    push(ready, (-first._seq, ticket(), first))
                else:
                    upcoming = first
        if task.callbacks:
            # torch runs them after the graph, in order, including ones queued by a callback
            _grad_state.grad_enabled = previous_mode
            index = 0
            while index < len(task.callbacks):
                task.callbacks[index]()
                index += 1
    except Exception:
        if anomaly:
            _anomaly.report_error(node)
        raise
    finally:
        _grad_state.grad_enabled = previous_mode
        if anomaly:
            _anomaly.leave_backward(parent)
        tasks.pop()
        if not tasks and kept_by_hooks:
            kept_by_hooks.clear()
    return results


# Note: the next node without the heap
# The heap pops the ready node with the highest sequence number, accumulators first, ties in
# the order they got ready. When a node makes exactly one child ready and that child outranks
# everything queued (strictly: a tie goes to the node queued earlier), the heap would pop it
# next anyway, so it runs next without a push and a pop: the usual step of a chain.
_QUEUED = object()


def _any_grad(buffer: list) -> bool:
    return any(grad is not None for grad in buffer)


def _add_to_buffer(buffer: list, output_nr: int, grad) -> None:
    while len(buffer) <= output_nr:
        buffer.append(None)
    previous = buffer[output_nr]
    if previous is None:
        buffer[output_nr] = grad
    elif _ZERO_GRADS_SEEN[0] and (_is_zero_grad(grad) or _is_zero_grad(previous)):
        if not _is_zero_grad(previous) and _sum_in_place(previous, grad):
            # torch's InputBuffer adds a ZeroTensor arriving second in place into a private
            # buffer, where its ZeroTensor fallback materialises +0.: a -0. becomes +0. there
            # (seed 38997, once an unsqueeze's backward passed sgn's ZeroTensor on)
            return
        # (Note: zero gradients, graph.py) the other operand's values; a recorded sum
        # (create_graph) is still an add in the graph, as torch's
        kept = previous if _is_zero_grad(grad) else grad
        if _grad_state.grad_enabled and (grad._requires_grad or previous._requires_grad):
            total = previous + grad
            total._data = kept._data.copy()
            kept = total
        buffer[output_nr] = kept
    elif not _sum_in_place(previous, grad):
        buffer[output_nr] = previous + grad



# The backward nodes that give torch's ZeroTensors from ZeroTensors, and to which of their
# inputs (None: all): those whose formula ends in an op with a ZeroTensor kernel or a view
# (mul, div by the gradient's divisor, add, reshape/unsqueeze/squeeze/narrow: cat's, mv's
# ger), as observed in torch 2.13 for sgn's zero gradient; the others make real zeros of them
# (torch's ZeroTensor fallback: a transpose's, neg's or sqrt's-divisor backward, where a -0.
# plus those zeros is +0.: seed 38997). The forward MvBackward0 and CatBackward0 passing one on
# gave -0. products where torch's leaf gradient is a ZeroTensor (seed 42217).
_KEEPS_ZEROS = {
    "MulBackward0": None, "MulBackward1": None, "DivBackward0": (0,), "DivBackward1": (0,),
    "AddBackward0": None, "AddBackward1": (0,), "SubBackward0": (0,), "SubBackward1": (0,),
    "MvBackward0": (0,), "ViewBackward0": None, "UnsqueezeBackward0": None,
    "SqueezeBackward0": None, "SqueezeBackward1": None, "SqueezeBackward2": None,
    "CatBackward0": None, "StackBackward0": None, "CloneBackward0": None,
    "AbsBackward0": None, "ExpBackward0": None, "Exp2Backward0": None, "Expm1Backward0": None,
    "SqrtBackward0": None, "RsqrtBackward0": None, "PowBackward0": None, "PowBackward1": (1,),
    "SinBackward0": None, "CosBackward0": None, "TanBackward0": None, "LogBackward0": None,
    "Log2Backward0": None, "Log1PBackward0": None, "LerpBackward0": None,
    "LerpBackward1": None, "AddcmulBackward0": None, "AddcdivBackward0": None,
    # (a transpose of a ZeroTensor is one, and so is a reshape that is a view of it: one that
    # must copy materialises +0.; matmul's unsafe view, a full sum's expand, dot's products:
    # seeds 152000, 171887)
    "TransposeBackward0": None, "TBackward0": None, "PermuteBackward0": None,
    "UnsafeViewBackward0": None, "SumBackward0": None, "DotBackward0": None,
}
_RESHAPES = ("ViewBackward0", "UnsafeViewBackward0")


def _zeros_through(node, buffer: list, grads_in):
    """A node whose every incoming gradient is a ZeroTensor gives ZeroTensors to the inputs
    ``_KEEPS_ZEROS`` names (Note: zero gradients, graph.py): +0. (torch skips the arithmetic),
    marked again."""
    name = node.name()
    if name not in _KEEPS_ZEROS or \
            not all(grad is None or _is_zero_grad(grad) for grad in buffer):
        return grads_in
    from .graph import zero_grad_tensor
    from ..tensor import _wrap

    kept = _KEEPS_ZEROS[name]
    if name in _RESHAPES and grads_in[0] is not None and \
            not np.shares_memory(grads_in[0]._data, buffer[0]._data):
        return grads_in  # (a reshape that copied: torch's fallback materialised the zeros)
    marked = []
    for index, grad in enumerate(grads_in):
        if grad is not None and (kept is None or index in kept):
            if not grad._requires_grad:
                grad = _wrap(np.zeros(grad._data.shape, grad._data.dtype))
            grad = zero_grad_tensor(grad)
        marked.append(grad)
    return type(grads_in)(marked) if isinstance(grads_in, tuple) else marked


# Note: summing gradients in place
# A gradient arriving at an input that already has one is added to it. When nothing records
# that sum (no create_graph, no forward-AD level) and the buffer's tensor is private to the
# buffer (held by nothing else, its array not shared, owning its memory, writeable, same
# dtype and shape), the sum is written into it instead of into a new tensor, as torch's
# InputBuffer does: one ufunc call instead of an op. A leaf used at every step of a chain
# (benchmarks/bench_chain.py) gets one such sum per use.
# References to ``previous`` seen here: the buffer list, _add_to_buffer's local, this
# function's argument and getrefcount's own; to its array: the tensor, the local ``data`` and
# getrefcount's own. Calibrated by tests/autograd/test_engine.py
# (test_gradients_are_summed_in_place_only_into_private_buffers).
_PRIVATE_REFS = 4
SUMS_WRITE = [True]  # whether an in-place sum counts in _version (func/_transforms.py: off)


def _sum_in_place(previous, grad) -> bool:
    if _grad_state.grad_enabled or _dual_state.active:
        return False
    data = previous._data
    other = grad._data
    if data.dtype is not other.dtype or data.shape != other.shape:
        return False
    # the tensor is held by the buffer alone, and its array by that tensor alone
    if sys.getrefcount(previous) > _PRIVATE_REFS or sys.getrefcount(data) > 3:
        return False
    flags = data.flags  # (counted after: a flags object holds its array)
    if not (flags.owndata and flags.writeable and flags.c_contiguous):
        if data.size:
            return False
        # an empty one (an as_strided view, Note: strides of empty tensors) holds no memory:
        # the sum is itself, and torch's add_ into it still counts as a write (below)
    else:
        token = _quiet()  # torch sums silently (see Note: floating-point warnings)
        try:
            if data.ndim and data.size == 1:  # NumPy adds into its own one-element operand at
                # twice the cost (0-d: NumPy would return a scalar)
                previous._data = np.add(data, other)  # (a new array: 0.59 against 0.31 us)
            else:
                np.add(data, other, out=data)
        finally:
            _loud(token)
    # torch's old_var.add_(var) counts as a write: the sum has _version 1 more (a gradient
    # autograd.grad returns, or .grad keeps it). The buffer's tensor is private, no view, and
    # nothing traced it (leafgrad.compile replays this sum as a whole). Not for torch.func's
    # gradients (SUMS_WRITE off): torch takes them with create_graph (an out-of-place sum)
    if SUMS_WRITE[0]:
        counter = previous._vc
        if counter is None:
            previous._vc = [1]
        else:
            counter[0] += 1
    return True


# Note: nodes reached without a gradient
# torch's engine calls every node it reaches; a built-in node whose incoming gradients are all
# undefined returns undefined ones (its formulas test any_grad_defined), which leafgrad skips
# (_hooks_without_grads); a custom Function's node (PyNode) calls the Function's backward
# (with zeros for them, or None without materialize_grads), whose results pass on as any
# others: a Function returning None, or a module's backward pre-hook replacing a gradient with
# None, still gives zeros to the inputs of a Function below it (BackwardHookFunction's: the
# module's inputs). The test costs nothing while gradients arrive (it follows the buffer's).
def _hooks_without_grads(node: Node, captured) -> None:
    """A node reached without any gradient: torch still runs it, so its hooks see None (tensor
    hooks and pre-hooks a None per output, post-hooks None per input; a leaf's
    post-accumulate hooks run with its grad unchanged). Its backward computes nothing."""
    hookset = node._hookset
    if not (hookset.tensor_pre or hookset.pre or hookset.post or type(node) is AccumulateGrad):
        return
    buffer = [None] * _num_outputs(node)
    _call_tensor_pre_hooks(hookset, buffer)
    if captured is not None and type(node) is not AccumulateGrad:
        return
    if type(node) is AccumulateGrad:
        if captured is None:
            hooks = node.variable._post_accumulate_hooks()
            for fn in list(hooks.values()) if hooks else ():
                fn(node.variable)
        return
    for fn in list(hookset.pre.values()) if hookset.pre else ():
        result = fn(tuple(buffer))
        if result is not None:
            buffer = list(check_hook_values(fn, tuple(buffer), result))
    grads_in = (None,) * len(node.next_functions)
    for fn in list(hookset.post.values()) if hookset.post else ():
        result = fn(grads_in, tuple(buffer))
        if result is not None:
            grads_in = check_hook_values(fn, grads_in, result)


# Note: multi-output hooks
# A node's pre-hooks and post-hooks see one grad per output of the node, None for an output
# that received none, as torch pads its input buffer: a custom Function counts every output
# (``_output_meta``), a multi-output op its differentiable ones (``_num_outputs``, set when its
# outputs are wrapped: max(dim)'s integer indices are no output of MaxBackward0).
def _num_outputs(node: Node) -> int:
    meta = getattr(node, "_output_meta", None)
    if meta:
        return len(meta)
    return getattr(node, "_num_outputs", 1)


def _run_hooked(node: Node, hookset, buffer: list, compute: bool = True):
    """Run a node that has hooks: pre-hooks, the node, then post-hooks (torch's order).
    ``compute`` False: none of the node's outputs is needed (its gradients are None)."""
    if hookset.pre or hookset.post:
        count = _num_outputs(node)
        if len(buffer) < count:
            buffer = buffer + [None] * (count - len(buffer))  # hooks see every output
    if hookset.pre:
        for fn in list(hookset.pre.values()):
            result = fn(tuple(buffer))
            if _observer is not None:
                _observer.hook(hookset, "prehook", fn, tuple(buffer), result)
            if result is not None:
                buffer = list(check_hook_values(fn, tuple(buffer), result))
    if compute and _any_grad(buffer):
        grads_in = node._apply(buffer)
    else:  # the pre-hooks replaced every gradient with None: torch's backward gives None too
        grads_in = (None,) * len(node.next_functions)
    if hookset.post:
        task = _running.tasks[-1] if getattr(_running, "tasks", None) else None
        if task is not None and task.partial and getattr(node, "masks_unneeded_grads", False):
            # (Note: unneeded input gradients, ops/registry.py) an input pruned from this
            # backward gets None (generated-program seed 47150)
            needed = task.nodes
            grads_in = tuple(None if child is not None and child not in needed else grad
                             for grad, child in zip(grads_in, node._next_nodes))
        for fn in list(hookset.post.values()):
            result = fn(tuple(grads_in), tuple(buffer))
            if _observer is not None:
                _observer.hook(hookset, "hook", fn, tuple(grads_in), result)
            if result is not None:
                grads_in = check_hook_values(fn, tuple(grads_in), result)
    return grads_in
