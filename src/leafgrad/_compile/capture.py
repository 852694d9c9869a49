"""Capturing a call: the first call runs eagerly while a tracer writes down what happened.

Note: what a capture records
The eager code reports to the tracer at a few places (each behind ``state.active``):

- ``Op.apply`` and the in-place path: every op of the table, forward and backward alike (the
  engine runs backward formulas as table ops; ``plain_backward()`` is False while capturing so
  formulas take no array-level shortcuts the tracer could not see).
- ``Tensor._accumulate_grad``: what AccumulateGrad does to a leaf's ``.grad`` (store the first
  gradient, or add into the existing one in place).
- ``Tensor.grad``'s getter and setter, and ``Optimizer.step``/``zero_grad``: an optimizer call
  is recorded as a call, replayed by calling the same method on the live optimizer (its state
  dictionaries, step counters and hyperparameters stay the optimizer's own business, so a
  replay updates them exactly as eager code does). A learning-rate scheduler's ``step`` too:
  its epoch counter and the groups' ``lr`` advance on every replay as they do eagerly.
- Tensor creation (``_finish``): a tensor made inside the function is a constant of the
  graph (see Note: constants written in place).
- ``.item()``, ``bool()``, ``.tolist()``, ``.numpy()`` and friends, hooks, ``out=``, random
  numbers, forward-AD: graph breaks. The call goes on eagerly (its result is the eager result)
  and the capture is dropped, with the line and the reason kept for ``explain``.

Values are keyed by the identity of their NumPy array (all arrays are kept alive during the
trace, so identities are not reused): an op's output array is a graph value; an array the
tracer has not seen before belongs to a tensor that existed before the call (a parameter, a
tensor from a closure), read from that tensor object on every replay.

Note: constants written in place
Eager code makes a factory tensor (``zeros``, ``full``, ``tensor(...)``, ``*_like``...) afresh
on every call, with the values it was made with; the function may then write into it
(``add_``, ``c[i] = ...``, ``copy_``, ``index_put_``, through a view, as a ``.grad`` that
backward adds into). A replay must start from the values as made, not from those the capture
left behind: the tracer copies a constant's array when the graph first meets it (every write
before that is either recorded, and refers to the tensor first, or breaks the graph), and a
replay reads that copy, copied again for a replay that writes into it or returns it. Which
constants are written is decided by memory, not by names: before every recorded write the
tracer marks each constant whose memory the target may share (a view of it, ``.data``,
``detach()``). The copy keeps the array's strides (``graph.copy_as_made``); a layout no copy
keeps (``empty_strided`` with overlapping or gapped strides) breaks the graph. A factory tensor
that shares memory with an object from outside the call (``as_tensor``/``asarray``/
``from_numpy`` of a NumPy array, ``frombuffer``) is not a constant: it is read, and written,
live on every replay, as a parameter is; a copying factory of a NumPy array (``tensor(arr)``,
``as_tensor(arr, dtype=...)``) is a copy kernel of the array read live (``copied_array``;
sources.py Note: Python values from outside the call). A leaf made in the call has no ``.grad`` at the start of every call (no guard
on it), and an optimizer made in the call, or over tensors made in it, breaks the graph (a
replay would call the capture's optimizer, with the state the capture left in it).
"""

from __future__ import annotations

import linecache
import os
import sys
import threading

import numpy as np

from .graph import AsTensor, Graph, Node, Value, copy_as_made
from .state import state

__all__ = ["Tracer", "Unsupported", "InvalidBackend"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TorchDynamoException(RuntimeError):
    """torch._dynamo.exc's base class of the errors below."""


class Unsupported(TorchDynamoException):
    """Raised by a ``fullgraph=True`` function at a graph break (torch._dynamo's Unsupported)."""


class InvalidBackend(TorchDynamoException):
    """``compile(backend=name)`` with a name torch does not register."""


# the first line of torch's Unsupported for the breaks both make (its graph-break titles);
# leafgrad's own reason and place follow on the next line
_TORCH_TITLES = (("bool(tensor)", "Data-dependent branching"),
                 ("torch._dynamo.graph_break()", "Call to `torch._dynamo.graph_break()`"))


class Break:
    """Why and where a capture had to give up."""

    __slots__ = ("reason", "filename", "lineno", "line")

    def __init__(self, reason: str, filename: str, lineno: int, line: str) -> None:
        self.reason, self.filename, self.lineno, self.line = reason, filename, lineno, line

    def __repr__(self) -> str:
        where = f"{os.path.basename(self.filename)}:{self.lineno}" if self.filename else "?"
        text = f"  {self.line}" if self.line else ""
        return f"{self.reason} at {where}{text}"


def _user_frame():
    """The innermost frame outside the leafgrad package (the line of user code responsible)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    return frame


class Tracer:
    """Records one eager call into a ``Graph`` (see Note: what a capture records)."""

    def __init__(self, fullgraph: bool = False) -> None:
        self.fullgraph = fullgraph
        self.thread = threading.get_ident()
        self.graph = Graph()
        self.slot_of: dict = {}  # id(ndarray) -> Value
        self.keep: list = []  # every array and tensor seen, alive until the trace ends
        self.external_of: dict = {}  # id(Tensor) -> Value, for tensors from before the call
        self.created: dict = {}  # id(ndarray) -> Tensor made inside the call (a constant)
        self.shared: set = set()  # ids of created arrays over memory from outside the call
        self.constants: list = []  # constant Values (see Note: constants written in place)
        self.optimizers_made: set = set()  # ids of optimizers constructed during the call
        self.grad_seen: dict = {}  # id(param) -> param whose .grad state the trace depends on
        self.by_layout: dict = {}  # (address, shape, strides, dtype) -> Value
        self.fresh: dict = {}
        self.modules_seen: set = set()  # id(Tensor) -> Tensor made during the call outside the ops
        self.breaks: list = []
        self.mutated: set = set()  # Values written in place
        self.rng_state = None  # the generator's state after the last recorded draw
        self.sources = None  # the Sources watching the call (sources.py), set by api.py
        self.result_grad: dict = {}  # Value -> ("leaf", tensor) / ("node", maker) (api.py)
        self.live_arrays: dict = {}  # id -> outside NumPy array read live (sources.py)
        # a backward's tracer (differentiable.py): the forward capture's (slot_of, by_layout),
        # and the forward Values its "saved" inputs stand for, in input order
        self.forward_values = None
        self.saved_sources: list = []

    # -- bookkeeping ---------------------------------------------------------------------------
    def broke(self, reason: str) -> None:
        frame = _user_frame()
        if frame is not None:
            filename, lineno = frame.f_code.co_filename, frame.f_lineno
            line = linecache.getline(filename, lineno).strip()
        else:
            filename, lineno, line = "", 0, ""
        self.broke_at(reason, filename, lineno, line)

    def broke_at(self, reason: str, filename: str, lineno: int, line: str = "") -> None:
        if not line and filename:
            line = linecache.getline(filename, lineno).strip()
        record = Break(reason, filename, lineno, line)
        self.breaks.append(record)
        if self.fullgraph:
            state.active = False
            state.tracer = None
            title = next((t for prefix, t in _TORCH_TITLES if reason.startswith(prefix)), None)
            text = f"graph break: {record!r}"
            raise Unsupported(f"{title}\n  {text}" if title else text)

    def _foreign(self) -> bool:
        if threading.get_ident() != self.thread:
            self.broke("an op ran in another thread during the capture")
            return True
        return False

    def add_input(self, tensor, path: tuple) -> None:
        data = tensor._data
        value = self.graph.value("input", data, path=path)
        value.tensor_index = len(self.graph.inputs)
        self.graph.input_index[id(tensor)] = value.tensor_index
        self.graph.inputs.append(value)
        self._register(data, value)
        self.keep.append(tensor)

    def ref(self, item, nested: bool = False):
        """The graph's handle for an op argument: a Value for tensors, the item otherwise.
        ``nested``: the op receives tensors there as Tensors (parameters, list members)."""
        from ..tensor import Tensor

        if isinstance(item, Tensor):
            data = item._data
            value = self.slot_of.get(id(data))
            if value is None:
                value = self._outside(item)
            return AsTensor(value) if nested else value
        if isinstance(item, np.bool_):
            self.broke("a formula passed a truth value computed from the values (a NumPy bool)")
            return item
        if isinstance(item, np.ndarray):
            value = self.slot_of.get(id(item))
            if value is None and self.forward_values is not None:
                source = self._forward_source(item)
                if source is not None:  # an array the forward kept (ctx.keep)
                    from ..tensor import _wrap

                    return self._saved_input(_wrap(item), source)
            if value is None:
                owner = _owner(item)
                if owner is not None:  # a tensor's own array, passed as a parameter
                    return self.ref(owner)
                self.broke("an array made outside the op table was passed to an op "
                           f"({type(item).__name__} {item.shape} {item.dtype})")
                return item
            return value
        if isinstance(item, (list, tuple)) and any(_has_tensor(i) for i in item):
            return type(item)(self.ref(i, True) for i in item)
        return item

    def _outside(self, tensor):
        """A tensor the trace did not make with an op: made inside the call (a constant), or
        from before it (read from the tensor object at every replay)."""
        data = tensor._data
        self.keep.append(tensor)
        self.keep.append(data)
        if self.forward_values is not None:
            source = self._forward_source(data)
            if source is not None:
                return self._saved_input(tensor, source)
        made = self.created.get(id(data))
        same = self.by_layout.get(_layout(data))
        if same is not None:
            # another array object over the same memory and layout as a graph value (a view
            # regenerated after an in-place op on its base): the same values at every moment
            self.slot_of[id(data)] = same
            return same
        if made is not None and id(data) not in self.shared:
            value = self.graph.value("constant", data, tensor=made)
            self.constants.append(value)
            value.initial = copy_as_made(data)  # the values as made (Note: constants...)
            if value.initial is None:  # overlapping or gapped strides (empty_strided)
                self.broke("a tensor made in the call has a memory layout a copy does not keep "
                           f"(strides {data.strides})")
                value.initial = data
        elif made is None and id(tensor) in self.fresh:
            # made during the call around an array no op made: a formula computed it with
            # NumPy (a mask, a helper array); a replay could not recompute it
            self.broke("a tensor was made from an array computed outside the op table")
            value = self.graph.value("constant", data, tensor=tensor)
            value.initial = data
        else:  # from before the call, or a factory's tensor over memory from outside it
            value = self.external_of.get(id(tensor))
            if value is not None and value.array is not data:
                value = None  # the tensor's array was replaced during the call
            if value is None:
                value = self.graph.value("external", data, tensor=tensor)
                self.external_of[id(tensor)] = value
                self.graph.externals.append(value)
        self._register(data, value)
        return value

    def _forward_source(self, array):
        """The forward capture's Value of an array a backward's trace meets, or None."""
        by_id, by_layout = self.forward_values
        source = by_id.get(id(array))
        return source if source is not None else by_layout.get(_layout(array))

    def _saved_input(self, tensor, source) -> "Value":
        """An array of the forward read by the backward: an input of the backward's graph."""
        self.add_input(tensor, ("saved", len(self.saved_sources)))
        self.saved_sources.append(source)
        return self.slot_of[id(tensor._data)]

    def _output(self, array, node: Node) -> "Value":
        value = self.graph.value("op", array, producer=node)
        self._register(array, value)
        return value

    def _register(self, array, value) -> None:
        self.slot_of[id(array)] = value
        self.keep.append(array)
        self.by_layout[_layout(array)] = value

    def _grad_state(self, param) -> None:
        """The first time the trace meets a parameter's ``.grad``: guard on whether it is set."""
        key = id(param)
        if key not in self.grad_seen:
            self.grad_seen[key] = param
            if self.created.get(id(param._data)) is not param:
                # (a tensor made in the call starts without a .grad on every call: no guard,
                # which would fail on the object the capture's own replay gave a .grad)
                self.graph.grad_guards.append((param, param._grad_value is None))
            self.keep.append(param)

    # -- reports from the eager code -----------------------------------------------------------
    def op(self, cls, args: tuple, params: dict):
        state.active = False
        try:
            result = cls.apply(*args, **params)
        finally:
            state.active = True
        if self._foreign():
            return result
        refs = [self.ref(a) for a in args]
        param_refs = {k: self.ref(v, True) for k, v in params.items()}
        for name in cls.mask_params:
            if _has_bool(params.get(name)):
                self.broke(f"{cls.__name__} with a boolean mask: the result's shape depends "
                           "on the values")
        node = Node("op", cls, refs, param_refs)
        outputs = result if cls.multi_output else (result,)
        from ..tensor import Tensor

        arrays = [a._data for a in args if isinstance(a, Tensor)]
        node.aliases = cls.is_view or any(
            np.may_share_memory(t._data, a) for t in outputs for a in arrays)
        node.outputs = [self._output(t._data, node) for t in outputs]
        node.multi = cls.multi_output
        recorded = outputs[0]._node if outputs and isinstance(outputs[0], Tensor) else None
        if type(recorded) is cls:
            if cls.backward_reads_values:
                self.broke(f"{cls.__name__}'s backward branches on the values")
            self._kept(node, recorded)
        if node.aliases and refs and isinstance(refs[0], Value):
            root = refs[0].alias_of or refs[0]
            for value in node.outputs:
                value.alias_of = root
        self.graph.nodes.append(node)
        return result

    def _kept(self, node: Node, recorded) -> None:
        """Arrays the forward kept for the backward (``ctx.keep``) become results of the
        node: the replay runs the forward with a context that keeps them too."""
        saved = recorded._saved
        if not saved:
            return
        for key, item in saved.items():
            items = item if isinstance(item, (tuple, list)) else (item,)
            for index, array in enumerate(items):
                if type(array) is np.ndarray and id(array) not in self.slot_of:
                    value = self._output(array, node)
                    node.kept.append((key, index if item is not array else None, value))
        if node.kept:
            node.needs = tuple(fn is not None for fn, _ in recorded.next_functions)

    def inplace(self, op, target, others: tuple, params: dict):
        from ..ops.inplace import inplace

        if self._foreign():
            return _untraced(inplace, op, target, *others, **params)
        target_ref = self.ref(target)
        self._writes(target._data)
        before = target._data
        path, cast = _inplace_path(op, target, others, params)
        result = _untraced(inplace, op, target, *others, **params)
        if target._data is not before:  # a view regenerated from its base: same memory
            self.slot_of[id(target._data)] = target_ref
            self.keep.append(target._data)
        refs = [self.ref(o) for o in others]
        param_refs = {k: self.ref(v, True) for k, v in params.items()}
        node = Node("inplace", op, [target_ref] + refs, param_refs)
        # A recorded in-place op that saves ``self`` saved a copy of the old values
        # (ops/inplace.py): the replay makes the same copy before writing.
        recorded = target._node
        if target._base is not None and target._base._node is not None:
            recorded = getattr(target._base._node, "_op_node", recorded)
        saved = getattr(recorded, "_saved", None) if isinstance(recorded, op) else None
        old = saved.get("self") if saved else None
        old = getattr(old, "tensor", None)
        if old is not None and id(old._data) not in self.slot_of:
            value = self.graph.value("op", old._data, producer=node)
            self._register(old._data, value)
            node.kept.append(("old", None, value))
        node.target_tensor = target
        node.mode = path
        node.cast = cast
        self.keep.append(target)
        self.graph.nodes.append(node)
        self.mutated.add(target_ref)
        return result

    def _writes(self, array) -> None:
        """``array`` is about to be written in place: the constants it may share memory with
        must be copied afresh by each replay (see Note: constants written in place)."""
        for value in self.constants:
            if np.may_share_memory(value.array, array):
                self.graph.written.add(value)

    def accumulate(self, param, grad) -> None:
        """AccumulateGrad on ``param`` with ``grad`` (called in place of the eager update)."""
        self._grad_state(param)
        mode = "set" if param._grad_value is None else "add"
        if mode == "add":
            self._writes(param._grad_value._data)
        ref = self.ref(grad)
        _untraced(param._accumulate_grad, grad)
        node = Node("accumulate", None, [ref], {})
        node.param = param
        node.mode = mode
        if mode == "set":
            # Eager code keeps the gradient's own array when nothing else holds it and its
            # layout is plain (tensor.py _can_steal); the trace itself holds every array, so
            # the layout half is decided here and the "nothing else" half by the code
            # generator from the graph's uses.
            data = grad._data
            flags = data.flags
            base = data.base
            node.copy = not (flags.c_contiguous and flags.writeable and (
                flags.owndata or (type(base) is np.ndarray and base.flags.owndata
                                  and base.nbytes == data.nbytes)))
            ref.escapes = True
            kept = param._grad_value._data
            if id(kept) not in self.slot_of:
                # eager stored a copy: the new .grad is this node's result, so a later read
                # of param.grad (returned, used) is that array and not the .grad from before
                node.outputs = [self._output(kept, node)]
        self.graph.nodes.append(node)

    def read_grad(self, param, grad) -> None:
        """``param.grad`` read by the function: a graph value, or the live ``.grad`` if it
        was set before the call."""
        self._grad_state(param)
        if grad is None or id(grad._data) in self.slot_of:
            return
        value = self.graph.value("grad", grad._data, tensor=param)
        self.slot_of[id(grad._data)] = value
        self.keep.append(grad._data)
        self.graph.grad_reads.append(value)

    def set_grad(self, param, grad) -> None:
        if id(param) not in self.grad_seen:  # overwritten: its state before does not matter
            self.grad_seen[id(param)] = param
            self.keep.append(param)
        ref = self.ref(grad) if grad is not None else None
        node = Node("setgrad", None, [ref] if ref is not None else [], {})
        node.param = param
        if ref is not None:
            ref.escapes = True
        self.graph.nodes.append(node)

    def call(self, method, optimizer, name: str, args: tuple, kwargs: dict):
        """An optimizer's ``step``/``zero_grad``: run now, replayed as the same call."""
        if args or any(k != "set_to_none" for k in kwargs):
            self.broke(f"{type(optimizer).__name__}.{name} with arguments (a closure)")
        if id(optimizer) in self.optimizers_made or any(
                self.created.get(id(p._data)) is p
                for group in optimizer.param_groups for p in group["params"]):
            # a replay calls the capture's optimizer, with the state the capture left in it
            # and its parameters; eager code makes both afresh on every call
            self.broke(f"{type(optimizer).__name__}.{name} of an optimizer made in the call, "
                       "or over tensors made in the call")
        forgets = name == "zero_grad" and kwargs.get("set_to_none", True)
        for group in optimizer.param_groups:
            for param in group["params"]:
                if forgets and id(param) not in self.grad_seen:
                    self.grad_seen[id(param)] = param  # None afterwards, whatever it was
                    self.keep.append(param)
                    continue
                self._grad_state(param)
                grad = param._grad_value
                if grad is not None and name == "zero_grad":
                    self._writes(grad._data)  # zeroed in place (set_to_none=False)
                if grad is not None:
                    # the optimizer reads .grad: values it uses must exist at replay
                    ref = self.slot_of.get(id(grad._data))
                    if ref is not None:
                        ref.escapes = True
        result = _untraced(method, *args, **kwargs)
        node = Node("call", method, list(args), dict(kwargs))
        node.param = optimizer
        node.mode = name
        self.graph.nodes.append(node)
        return result

    def scheduler_call(self, method, scheduler, args: tuple, kwargs: dict):
        """A learning-rate scheduler's ``step``: run now, replayed as the same call on the
        live scheduler (it advances Python numbers and writes the groups' ``lr``, which the
        replayed optimizer step reads live)."""
        import functools

        from ..tensor import Tensor

        if getattr(scheduler, "_is_initial", False):  # its constructor's first step
            self.optimizers_made.add(id(scheduler))
            self.keep.append(scheduler)
            return _untraced(method, scheduler, *args, **kwargs)
        if id(scheduler) in self.optimizers_made or \
                id(getattr(scheduler, "optimizer", None)) in self.optimizers_made:
            self.broke(f"{type(scheduler).__name__}.step of a scheduler or optimizer made in "
                       "the call")
        if any(isinstance(a, Tensor) for a in (*args, *kwargs.values())):
            self.broke(f"{type(scheduler).__name__}.step with a tensor argument (its value is "
                       "read into Python)")
        result = _untraced(method, scheduler, *args, **kwargs)
        node = Node("call", functools.partial(method, scheduler, *args), [], dict(kwargs))
        node.param = scheduler
        node.mode = method.__name__
        self.keep.append(scheduler)
        self.graph.nodes.append(node)
        return result

    def bumped(self, tensor) -> None:
        """A version bump the tracer did not cause: a write outside the op table, unless it
        marks the result the last op just made (matmul's squeeze counts as a write)."""
        value = self.slot_of.get(id(tensor._data))
        nodes = self.graph.nodes
        if value is not None and nodes and value in nodes[-1].outputs:
            return
        self.broke("a tensor was written outside the op table (out=, a random fill, ...)")

    def unversioned(self, tensor) -> None:
        """The in-place write just recorded into ``tensor`` keeps its version (batch norm's
        running statistics: torch's kernel writes them without a bump); the replay skips the
        bump too."""
        nodes = self.graph.nodes
        if nodes and nodes[-1].kind == "inplace" and nodes[-1].target_tensor is tensor:
            nodes[-1].bumps = False

    def become(self, tensor) -> None:
        """An in-place shape change (``unsqueeze_``...): fine for a value of this call."""
        value = self.slot_of.get(id(tensor._data))
        if value is None or value.kind != "op":
            self.broke("an in-place shape change of a tensor from outside the call")

    def wrapped(self, tensor) -> None:
        self.fresh[id(tensor)] = tensor

    def kernel(self, fn, arrays: tuple, params: dict):
        """An op's array-level backward helper (``ops.registry.array_kernel``), or a kernel
        that draws from the default generator (``draws_random``: dropout's mask), which a
        replay runs again. Draws outside such kernels break the graph (api.py _capture): the
        generator must be where the last recorded draw left it."""
        refs = [self.ref(a) for a in arrays]
        param_refs = {k: self.ref(v, True) for k, v in params.items()}
        draws = getattr(fn, "draws_random", False)
        if draws:
            from .._rng import default_generator

            if (default_generator.state_array() != self.rng_state).any():
                self.broke("random numbers were drawn (rand, randn, ...): a replay would "
                           "repeat them")
        out = _untraced(fn, *arrays, **params)
        if draws:
            self.rng_state = default_generator.state_array()
        if self._foreign():
            return out
        node = Node("kernel", fn, refs, param_refs)
        # a tuple of arrays: a multi-output kernel (a backward's gradients, LSTM's)
        multi = isinstance(out, tuple)
        outs = tuple(np.asarray(o) for o in out) if multi else (np.asarray(out),)
        node.outputs = [self._output(o, node) for o in outs]
        node.multi = multi
        node.aliases = any(np.may_share_memory(o, a) for o in outs for a in arrays
                           if isinstance(a, np.ndarray))
        self.graph.nodes.append(node)
        return outs if multi else outs[0]

    def module_called(self, module, plain: bool) -> None:
        """An nn.Module call: its ``training`` flag is guarded (train/eval change the ops);
        forward hooks are Python a replay would not run."""
        if not plain:
            self.broke(f"{type(module).__name__} has forward or backward hooks")
        if id(module) not in self.modules_seen:
            self.modules_seen.add(id(module))
            self.keep.append(module)
            self.graph.module_guards.append((module, module.training))
            if self.sources is not None:  # its hyperparameters (Dropout's p, eps, ...)
                self.sources.watch_module(module)

    def made_optimizer(self, optimizer) -> None:
        self.optimizers_made.add(id(optimizer))
        self.keep.append(optimizer)

    def created_tensor(self, tensor, shares: bool = False) -> None:
        """A factory made ``tensor``; ``shares``: over memory of an object from outside the
        call (``as_tensor`` of a NumPy array), read live at replay like a parameter."""
        self.created[id(tensor._data)] = tensor
        if shares:
            self.shared.add(id(tensor._data))
            self.live_arrays[id(tensor._data)] = tensor._data  # read live: no value guard
        self.keep.append(tensor)

    def copied_array(self, array, dtype):
        """A copying factory (``tensor(arr)``, ``as_tensor(arr, dtype=...)``) of the NumPy array
        ``array``: ``array`` is read live on every replay (as a parameter is read), the copy is
        a kernel of it (sources.py Note: Python values from outside the call)."""
        from ..ops.registry import array_kernel

        if id(array) not in self.slot_of:
            from ..tensor import _wrap

            holder = _untraced(_wrap, array)
            self.keep.append(holder)
            value = self.graph.value("external", array, tensor=holder)
            self.external_of[id(holder)] = value
            self.graph.externals.append(value)
            self._register(array, value)
            self.live_arrays[id(array)] = array
        return array_kernel(_copy_array, array, dtype=dtype)


def _copy_array(array, dtype):
    return np.array(array, dtype=dtype, copy=True)


def _inplace_path(op, target, others: tuple, params: dict):
    """Which of ops/inplace.py's two paths eager code takes ("ufunc": one ufunc call with
    out=, after casting the other operand to ``cast``; "forward": the op's forward, then
    copyto), decided as ``inplace`` decides it."""
    from ..autograd.grad_mode import state as grad_state
    from ..ops import _promote
    from ..tensor import Tensor

    recording = grad_state.grad_enabled and op.differentiable and (
        target._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others)
        or (target._base is not None and target._base._requires_grad))
    from ..ops.inplace import scaled_operand

    ufunc = op.inplace_ufunc
    if recording or ufunc is None or len(others) != 1:
        return "forward", None
    if params.get("alpha", 1) != 1 and not scaled_operand(target, others[0]):
        return "forward", None
    data = target._data
    value = others[0]._data if isinstance(others[0], Tensor) else others[0]
    result = _promote.result_np_dtype(data, value)
    if ufunc is np.true_divide and result.kind != "f":
        result = _promote.float_result(np.empty(0, result)).dtype
    if isinstance(value, np.ndarray) and value.dtype != result:
        return "ufunc", result
    return "ufunc", None


def _owner(array):
    """The tensor whose array ``array`` is, if one holds it (an op parameter made from a
    tensor, as nll_loss's target). Looked up through the garbage collector's referrers: slow,
    but only for arrays the trace has not seen, once per capture."""
    import gc

    from ..tensor import Tensor

    for referrer in gc.get_referrers(array):
        if isinstance(referrer, Tensor) and referrer._data is array:
            return referrer
    if gc.get_freeze_count():
        # get_referrers does not see objects moved out of the collector's reach by
        # gc.freeze() (benchmarks/_harness.py freezes everything alive after warm-up): look
        # again with them back, then freeze again (objects made since are frozen with them)
        gc.unfreeze()
        try:
            for referrer in gc.get_referrers(array):
                if isinstance(referrer, Tensor) and referrer._data is array:
                    return referrer
        finally:
            gc.freeze()
    return None


def _layout(array) -> tuple:
    return (array.__array_interface__["data"][0], array.shape, array.strides, array.dtype.str)


def _has_bool(item) -> bool:
    if isinstance(item, (list, tuple)):
        return any(_has_bool(i) for i in item)
    data = getattr(item, "_data", item)
    return isinstance(data, np.ndarray) and data.dtype == np.bool_


def _has_tensor(item) -> bool:
    from ..tensor import Tensor

    if isinstance(item, (list, tuple)):
        return any(_has_tensor(i) for i in item)
    return isinstance(item, (Tensor, np.ndarray))


def _untraced(fn, *args, **kwargs):
    """Run eager code with the capture switched off (its ops are the caller's business)."""
    state.active = False
    try:
        return fn(*args, **kwargs)
    finally:
        state.active = True
