"""``SummaryWriter.add_graph``: a model's forward as a TensorBoard GraphDef.

torch traces the model with its JIT and converts the traced graph. leafgrad records the same
run with a ``TorchFunctionMode`` (every torch function, method and operator the forward calls,
as the JIT's trace records aten ops) and global module hooks (which module each op ran in).
The GraphDef follows torch's conventions, so TensorBoard shows what it shows for torch:

- ``input/<name>`` nodes (op ``IO Node``) for the tensors passed in, named after the forward's
  parameters; ``output/output.1`` for the result (a tuple, list or dict of tensors: a
  ``prim::TupleConstruct`` node, and the output node's shape ``[1]``, as torch writes it);
- one node per recorded op, op ``aten::<name>``, inside the scope of the module it ran in:
  the model's class name, then ``Class[attribute]`` per submodule
  (``Net/Conv2d[conv1]/conv2d.1``), with its inputs' nodes as edges;
- the parameters and buffers an op reads as nodes of their module's scope (op ``prim::GetAttr``),
  other tensors (made inside the forward without an op, or closed over) as ``prim::Constant``;
- ``_output_shapes`` on every node (a tensor's sizes) and torch's ``attr`` string.

As torch, the model is traced in eval mode (``model.train(False)``, then its own mode back on
the model and, as torch's ``_set_model_to_eval``, on every submodule) and the step statistics
name one CPU device. ``verbose=True`` prints the recorded graph, one node per line.
"""

from __future__ import annotations

import contextlib
import inspect

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

__all__ = ["graph"]


@contextlib.contextmanager
def _eval_mode(model):
    training = getattr(model, "training", None)
    if training is None:
        yield
        return
    model.train(False)
    try:
        yield
    finally:
        model.train(training)


def _tensors(value, found: list) -> list:
    """The tensors in ``value`` (nested tuples, lists and dict values), in order."""
    from ...tensor import Tensor

    if isinstance(value, Tensor):
        found.append(value)
    elif isinstance(value, (tuple, list)):
        for item in value:
            _tensors(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _tensors(item, found)
    return found


def _shape(tensor) -> TensorShapeProto:
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(s)) for s in tensor.shape])


class _Recorder:
    """The nodes of one traced forward (see the module docstring)."""

    def __init__(self, model):
        self.nodes: list[NodeDef] = []
        self.names: dict = {}  # id(tensor) -> node name
        self.alive: list = []  # every named tensor, so that no id is reused while recording
        self.scopes = [type(model).__name__]
        self.counts: dict = {}
        self.attributes: dict = {}  # id(parameter or buffer) -> (owner's scope, name)
        self.module_scope = {id(model): type(model).__name__}
        for path, module in model.named_modules():
            if not path:
                continue
            parent, _, attribute = path.rpartition(".")
            owner = self.module_scope.get(id(model.get_submodule(parent)) if parent else id(model))
            self.module_scope.setdefault(id(module), f"{owner}/{type(module).__name__}[{attribute}]")
        for module_path, module in model.named_modules():
            scope = self.module_scope[id(module)]
            for name, value in list(module.named_parameters(recurse=False)) + \
                    list(module.named_buffers(recurse=False)):
                if value is not None:
                    self.attributes.setdefault(id(value), (scope, name))

    def add(self, name: str, op: str, inputs: list, tensor=None, attr: str = "{}") -> str:
        node = NodeDef(name=name, op=op, input=inputs)
        node.attr["attr"].CopyFrom(AttrValue(s=attr.encode()))
        if tensor is not None:
            node.attr["_output_shapes"].CopyFrom(
                AttrValue(list=AttrValue.ListValue(shape=[_shape(tensor)])))
        self.nodes.append(node)
        return name

    def name_of(self, tensor) -> str:
        """The node that made ``tensor`` (a parameter, buffer or constant node when none)."""
        name = self.names.get(id(tensor))
        if name is None:
            owner = self.attributes.get(id(tensor))
            if owner is not None:
                name = self.add(f"{owner[0]}/{owner[1]}", "prim::GetAttr", [], tensor)
            else:
                name = self.add(self.unique(self.scopes[-1], "constant"), "prim::Constant", [],
                                tensor)
            self.keep(tensor, name)
        return name

    def keep(self, tensor, name: str) -> None:
        self.names[id(tensor)] = name
        self.alive.append(tensor)

    def unique(self, scope: str, base: str) -> str:
        count = self.counts[base] = self.counts.get(base, 0) + 1
        return f"{scope}/{base}.{count}"

    def op(self, func, args, kwargs, result) -> None:
        """One node per tensor ``func`` returned, with every tensor argument as an input
        (calls that return no tensor, ``x.size()``, ``x.dim()``, leave no node)."""
        outputs = _tensors(result, [])
        if not outputs:
            return
        inputs = [self.name_of(t) for t in _tensors((args, kwargs), [])]
        short = (getattr(func, "__name__", None) or type(func).__name__).strip("_") or "op"
        scope = self.scopes[-1]
        for tensor in outputs:
            self.keep(tensor, self.add(self.unique(scope, short), f"aten::{short}", inputs,
                                       tensor))


def _input_names(model, count: int) -> list:
    try:
        parameters = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError, AttributeError):
        parameters = []
    names = [p.name for p in parameters
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [names[i] if i < len(names) else f"input.{i + 1}" for i in range(count)]


def trace(model, args):
    """The recorded GraphDef nodes of ``model(*args)`` (see the module docstring)."""
    from ... import overrides
    from ...nn.modules import module as _module

    if args is None:
        args = ()
    elif not isinstance(args, (tuple, list)):
        args = (args,)
    args = tuple(args)
    recorder = _Recorder(model)
    for name, tensor in zip(_input_names(model, len(_tensors(args, []))), _tensors(args, [])):
        recorder.keep(tensor, recorder.add(f"input/{name}", "IO Node", [], tensor))

    class _Mode(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            result = func(*args, **kwargs)
            recorder.op(func, args, kwargs, result)
            return result

    def enter(module, _inputs):
        recorder.scopes.append(recorder.module_scope.get(id(module), recorder.scopes[-1]))

    def leave(module, _inputs, _output):
        if len(recorder.scopes) > 1:
            recorder.scopes.pop()

    handles = [_module.register_module_forward_pre_hook(enter),
               _module.register_module_forward_hook(leave, always_call=True)]
    try:
        with _eval_mode(model), _Mode():
            result = model(*args)
    finally:
        for handle in handles:
            handle.remove()
    from ...tensor import Tensor

    if isinstance(result, Tensor):
        recorder.add("output/output.1", "IO Node", [recorder.name_of(result)], result)
    else:
        # torch's trace returns one value: the tuple (list, dict) built from the tensors; its
        # output node has no sizes, which torch's converter writes as [1]
        kind = {list: "ListConstruct", dict: "DictConstruct"}.get(type(result), "TupleConstruct")
        made = recorder.add(recorder.unique(recorder.scopes[0], kind), f"prim::{kind}",
                            [recorder.name_of(t) for t in _tensors(result, [])])
        recorder.add("output/output.1", "IO Node", [made])
        node = recorder.nodes[-1]
        node.attr["_output_shapes"].CopyFrom(AttrValue(list=AttrValue.ListValue(
            shape=[TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)])])))
    return recorder.nodes


def _module_class():
    from ...nn.modules.module import Module

    return Module


def graph(model, args, verbose: bool = False, use_strict_trace: bool = True):
    """``(GraphDef, RunMetadata)`` of ``model`` run on ``args``, as torch's
    ``torch.utils.tensorboard._pytorch_graph.graph`` returns them (``use_strict_trace``:
    torch's JIT option, without effect here: lists and dicts are always followed)."""
    from ... import jit

    # torch's graph comes from torch.jit.trace, which warns that TorchScript is deprecated,
    # as leafgrad.jit.trace of a module does (Python's default filters hide both)
    jit._deprecated("trace")
    nodes = trace(model, args)
    if isinstance(model, _module_class()):
        jit._deprecated("trace_method")
        jit._deprecated("trace_method")
    else:
        jit._deprecated("trace")
    if verbose:
        for node in nodes:
            shapes = [list(d.size for d in s.dim)
                      for s in node.attr["_output_shapes"].list.shape]
            print(f"{node.name} = {node.op}({', '.join(node.input)})"
                  + (f" : {shapes[0]}" if shapes else ""))
    stats = RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0")]))
    return GraphDef(node=nodes, versions=VersionDef(producer=22)), stats
