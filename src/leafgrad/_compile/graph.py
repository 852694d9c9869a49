"""The captured graph: values (arrays at replay time) and the nodes that make or change them.

A ``Graph`` prints as one line per node, in execution order::

    %3 = MulBackward0(%0, %w)            (2, 3) float32
    %4 = AddBackward0(%3, %b)            (2, 3) float32
    grad(b) <- %9                        (store the first gradient)
    call SGD.step()

``%name`` values are graph values; inputs are ``%x0, %x1, ...``, tensors from outside the call
``%e0, ...`` (parameters), constants made inside the call ``%c0, ...``.
"""

from __future__ import annotations

import difflib

import numpy as np

__all__ = ["Graph", "Node", "Value", "Live", "copy_as_made"]


def copy_as_made(array: np.ndarray):
    """A copy of a constant's array with its strides (capture.py, Note: constants written in
    place), or None when no copy has them (overlapping or gapped strides: the capture breaks).
    NumPy's order="K" copy keeps the order of the dimensions but may give a size-1 dimension
    another stride, which ``Tensor.stride()`` would show: those are set back (and all of an
    empty array's, which address nothing)."""
    copy = array.copy(order="K")
    if copy.strides != array.strides:
        if array.size and any(mine != theirs for size, mine, theirs in
                              zip(array.shape, array.strides, copy.strides) if size > 1):
            return None
        copy = np.lib.stride_tricks.as_strided(copy, array.shape, array.strides)
    return copy


class AsTensor:
    """A tensor handed to an op's forward as a Tensor (in its parameters or inside a list),
    not as an array: the replay wraps the value's array."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"tensor({self.value!r})"


class Live:
    """In a result: a tensor object returned as itself (an input, a tensor from outside)."""

    __slots__ = ("input_index", "tensor")

    def __init__(self, input_index=None, tensor=None) -> None:
        self.input_index = input_index
        self.tensor = tensor

    def describe(self) -> str:
        if self.input_index is not None:
            return f"<input {self.input_index} itself>"
        return "<tensor from outside the call>"


class Value:
    """One array of the replay: an input, an external tensor's array, a constant, a grad read
    from a parameter, or an op's result."""

    __slots__ = ("kind", "index", "shape", "dtype", "strides", "producer", "tensor", "path",
                 "array", "escapes", "tensor_index", "name", "users", "alias_of", "initial")

    def __init__(self, kind: str, index: int, array: np.ndarray, producer=None, tensor=None,
                 path=None) -> None:
        self.kind = kind
        self.index = index
        self.shape = array.shape
        self.dtype = array.dtype
        self.strides = array.strides  # a buffer standing in for it keeps its memory layout
        self.producer = producer
        self.tensor = tensor
        self.path = path
        self.array = array  # only during the trace (dropped by Graph.seal)
        self.escapes = False  # reaches the caller (an output, a .grad): never a reused buffer
        self.tensor_index = None
        self.name = f"v{index}"
        self.users = 0
        self.alias_of = None
        self.initial = None  # a constant: its values as made (capture.py, Note: constants...)

    def __repr__(self) -> str:
        return "%" + self.name


class Node:
    """``kind`` is "op" (a table op's forward), "inplace" (a table op writing into its first
    argument), "kernel" (an op's array-level backward helper), "accumulate" (AccumulateGrad),
    "setgrad" (``p.grad = ...``) or "call" (an optimizer method)."""

    __slots__ = ("kind", "op", "args", "params", "outputs", "multi", "param", "mode", "copy",
                 "target_tensor", "dead", "aliases", "cast", "line", "kept", "needs", "bumps")

    def __init__(self, kind: str, op, args: list, params: dict) -> None:
        self.kind = kind
        self.op = op
        self.args = args
        self.params = params
        self.outputs: list = []
        self.multi = False
        self.param = None
        self.mode = None
        self.copy = False
        self.target_tensor = None
        self.dead = False
        self.aliases = True  # an op's result may share memory with an argument
        self.cast = None  # in-place ufunc path: the dtype the other operand is cast to
        self.line = None
        self.kept: list = []  # (ctx key, index in a kept tuple or None, Value)
        self.needs = ()
        self.bumps = True  # an in-place write bumps its target's version (capture.unversioned)

    def produced(self):
        yield from self.outputs
        for _, _, value in self.kept:
            yield value

    def values_read(self):
        for arg in self.args:
            yield from _values_in(arg)
        for arg in self.params.values():
            yield from _values_in(arg)

    def label(self) -> str:
        if self.kind in ("op", "inplace", "kernel"):
            name = {"op": lambda o: o.__name__, "inplace": _inplace_name,
                    "kernel": lambda f: f"{f.__module__.rsplit('.', 1)[-1]}.{f.__name__}"}[
                self.kind](self.op)
            args = ", ".join(_show(a) for a in self.args)
            params = ", ".join(f"{k}={_show(v)}" for k, v in self.params.items())
            return f"{name}({args}{', ' + params if params else ''})"
        if self.kind == "accumulate":
            how = "store" if self.mode == "set" else "add in place"
            return f"grad({_param_name(self.param)}) <- {_show(self.args[0])}   ({how})"
        if self.kind == "setgrad":
            value = _show(self.args[0]) if self.args else "None"
            return f"grad({_param_name(self.param)}) = {value}"
        owner = type(self.param).__name__
        params = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"call {owner}.{self.mode}({params})"


def _inplace_name(op) -> str:
    return f"{op.__name__}_"


def _param_name(param) -> str:
    return f"#{id(param) & 0xFFFF:04x}"


def _values_in(item):
    if isinstance(item, Value):
        yield item
    elif isinstance(item, AsTensor):
        yield item.value
    elif isinstance(item, (list, tuple)):
        for i in item:
            yield from _values_in(i)


def _show(item) -> str:
    if isinstance(item, (Value, AsTensor)):
        return repr(item)
    if isinstance(item, (list, tuple)):
        inner = ", ".join(_show(i) for i in item)
        return f"[{inner}]" if isinstance(item, list) else f"({inner}{',' if len(item) == 1 else ''})"
    if isinstance(item, np.ndarray):
        return f"array{list(item.shape)}"
    return repr(item)


class Graph:
    """Values and nodes of one capture (see the module docstring for the printed form)."""

    def __init__(self) -> None:
        self.values: list[Value] = []
        self.nodes: list[Node] = []
        self.inputs: list[Value] = []
        self.externals: list[Value] = []
        self.grad_reads: list[Value] = []
        self.grad_guards: list = []  # (param, grad is None at entry)
        self.module_guards: list = []  # (module, its training flag during the capture)
        self.sources = None  # the Python values it read (sources.py), guarded by the replay
        self.input_index: dict = {}  # id(input tensor) -> position, during code generation
        self.output_template = None  # the result's structure with Values in tensor places
        self.output_values: list[Value] = []
        self.stats: dict = {}
        self.written: set = set()  # constants the call writes into (directly or through a view)

    def value(self, kind: str, array, **kwargs) -> Value:
        value = Value(kind, len(self.values), array, **kwargs)
        self.values.append(value)
        return value

    def name_values(self) -> None:
        """Readable names: inputs x0.., externals e0.., constants c0.., grads g0.., others v0.."""
        counters: dict = {}
        prefix = {"input": "x", "external": "e", "constant": "c", "grad": "g", "op": "v"}
        for value in self.values:
            p = prefix[value.kind]
            n = counters.get(p, 0)
            counters[p] = n + 1
            value.name = f"{p}{n}"

    def seal(self) -> None:
        """Drop the trace-time arrays (the graph keeps shapes and dtypes, not data)."""
        for value in self.values:
            if value.kind == "op":
                value.array = None
            elif value.kind == "constant":  # the replay holds its copy (``initial``) only
                value.array = value.tensor = None
        for node in self.nodes:
            node.target_tensor = None  # the capture's tensor written in place
        self.input_index = {}  # ids of the capture's input tensors mean nothing later

    def live_nodes(self):
        return [n for n in self.nodes if not n.dead]

    def __str__(self) -> str:
        lines = []
        for value in self.values:
            if value.kind in ("input", "external", "constant", "grad") and value.users:
                what = {"input": "input", "external": "tensor from outside the call",
                        "constant": "constant made in the call", "grad": "a parameter's .grad"}
                lines.append(f"{value!r:<8} {what[value.kind]:<30} {_meta(value)}")
        for node in self.live_nodes():
            if node.outputs:
                outs = ", ".join(repr(v) for v in node.produced())
                meta = _meta(node.outputs[0])
                lines.append(f"{outs} = {node.label()}".ljust(60) + f" {meta}")
            else:
                lines.append(node.label())
        if self.output_template is not None:
            lines.append(f"return {_show_template(self.output_template)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        ops = sum(1 for n in self.live_nodes())
        return f"<leafgrad captured graph: {ops} nodes, {len(self.inputs)} inputs>"

    def diff(self, other: "Graph") -> str:
        """A unified diff of two captures' printed forms (for example of one function under
        two branches of its control flow)."""
        mine, theirs = str(self).splitlines(), str(other).splitlines()
        return "\n".join(difflib.unified_diff(mine, theirs, "first capture", "second capture",
                                              lineterm=""))


def _meta(value: Value) -> str:
    return f"{tuple(value.shape)} {value.dtype}"


def _show_template(template) -> str:
    if isinstance(template, Value):
        return repr(template)
    if isinstance(template, Live):
        return template.describe()
    if isinstance(template, list):
        return "[" + ", ".join(_show_template(t) for t in template) + "]"
    if isinstance(template, tuple):
        return "(" + ", ".join(_show_template(t) for t in template) + (",)" if len(template) == 1 else ")")
    if isinstance(template, dict):
        return "{" + ", ".join(f"{k!r}: {_show_template(v)}" for k, v in template.items()) + "}"
    return repr(template)
