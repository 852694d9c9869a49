"""``torch.fx.proxy``: ``Proxy``, the stand-in value symbolic tracing runs a program on.

Every operation on a proxy becomes a node of the tracer's graph: operators record
``operator.<name>`` calls, attribute reads ``getattr`` (or, when called, ``call_method``), and
leafgrad's functions and Tensor methods reach ``Proxy.__torch_function__`` through the
``__torch_function__`` protocol of ``leafgrad.overrides`` (switched on by the tracer)."""

from __future__ import annotations

import dis
import inspect
import operator
import sys

from .graph import magic_methods, reflectable_magic_methods
from .node import Node, map_aggregate

__all__ = ["Proxy", "Attribute", "TraceError", "TracerBase", "ParameterProxy",
           "GraphAppendingTracer"]


class TraceError(ValueError):
    pass


def _assert_is_none(value, msg) -> None:
    assert value is None, msg


class TracerBase:
    """What a proxy asks of its tracer: making nodes, and the answers to bool(), iter()
    and ``**``."""

    graph = None
    record_stack_traces = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope = None
    module_stack = None
    node_name_to_scope = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None) -> Node:
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        import copy

        if self.module_stack:  # (made inside a module's call: its stack, as torch records)
            node.meta["nn_module_stack"] = copy.copy(self.module_stack)
        preserved = getattr(self, "_preserved_meta", None)
        if preserved:  # (a Transformer's node keeps the module stack of the one it replaces)
            for field in ("nn_module_stack", "stack_trace"):
                if field in preserved:
                    node.meta[field] = copy.copy(preserved[field])
        return node

    def proxy(self, node: Node) -> "Proxy":
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None) -> "Proxy":
        """A node for the call (its arguments with proxies as their nodes) and its proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """``a`` as a graph argument: proxies as their nodes, containers item by item."""
        from .._device import device
        from .._dtype import dtype

        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple):
            if hasattr(a, "_fields"):
                return type(a)(*(self.create_arg(elem) for elem in a))
            return type(a)(self.create_arg(elem) for elem in a)
        if isinstance(a, list):
            return [self.create_arg(elem) for elem in a]
        if isinstance(a, dict):
            result = {}
            for key, value in a.items():
                key = self.create_arg(key)
                if isinstance(key, Node):
                    raise RuntimeError("Keys for dictionaries used as an argument cannot "
                                       f"contain a Node. Got key: {key}")
                result[key] = self.create_arg(value)
            return result
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, Node) or a is None or a is ... or isinstance(
                a, (str, int, float, bool, complex, dtype, device)) or _is_leafgrad_enum(a):
            return a
        import enum

        if isinstance(a, enum.Enum):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: "Proxy") -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to control "
                         "flow")

    def iter(self, obj: "Proxy"):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the "
                         "Proxy is used in a loop or as a *args or **kwargs function argument. "
                         "See the torch.fx docs on pytorch.org for a more detailed explanation "
                         "of what types of control flow can be traced, and check out the Proxy "
                         "docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj: "Proxy") -> "Proxy":
        return Attribute(obj, "keys")()


def _is_leafgrad_enum(a) -> bool:
    """leafgrad's layout / memory-format objects (arguments as torch's are)."""
    kind = type(a)
    return kind.__module__.startswith("leafgrad") and kind.__name__ in ("layout",
                                                                        "memory_format")


class Proxy:
    """A value being traced: what is done to it is recorded in ``tracer.graph``."""

    def __init__(self, node: Node, tracer=None):
        from ..overrides import _activate

        _activate()  # (leafgrad's functions reach a proxy made outside a trace too)
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __deepcopy__(self, memo):
        import copy

        result = object.__new__(type(self))
        memo[id(self)] = result
        result.__dict__.update({k: copy.deepcopy(v, memo) for k, v in self.__dict__.items()})
        return result

    def __setstate__(self, d):
        self.__dict__ = d

    def __call__(self, *args, **kwargs) -> "Proxy":
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        instructions = list(dis.get_instructions(frame.f_code))
        if sys.version_info >= (3, 11):
            from bisect import bisect_left

            index = bisect_left(instructions, frame.f_lasti, key=lambda x: x.offset)
        else:
            index = frame.f_lasti // 2
        instruction = instructions[index]
        if instruction.opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(instruction.argval))
        return self.tracer.iter(self)

    def __abs__(self) -> "Proxy":
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self) -> int:
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want "
                           "this call to be recorded, please call torch.fx.wrap('len') at "
                           "module scope")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers: dict = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None

        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers.keys())} while "
                               f"trying to trace operations {orig_method}")
        tracer = next(iter(tracers.keys()))
        from ..overrides import is_tensor_method_or_property

        if is_tensor_method_or_property(orig_method):
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        name = orig_method.__name__
        if getattr(orig_method, "_torch_function_name", None) is not None:
            from .node import _get_qualified_name

            name = _get_qualified_name(orig_method).rsplit(".", 1)[-1]  # (torch's builtin's
            # name where leafgrad's differs: F.logsigmoid is torch._C._nn.log_sigmoid)
        return tracer.create_proxy("call_function", orig_method, args, kwargs,
                                   name=tracer.graph._target_to_str(name))


class GraphAppendingTracer(TracerBase):
    """The tracer of a proxy made without one: it appends to the node's graph."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}


class Attribute(Proxy):
    """``proxy.name``: a ``getattr`` node when used as a value (made on first use), a
    ``call_method`` node when called."""

    def __init__(self, root: Proxy, attr: str):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A parameter's proxy that answers shape questions from the parameter itself."""

    def __init__(self, tracer, node: Node, name, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self) -> str:
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self):  # (torch's takes no dim: p.size(1) is its TypeError)
        return self.param.size()

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


def _define_magic(method: str) -> None:
    def impl(*args, **kwargs):
        tracer = args[0].tracer
        return tracer.create_proxy("call_function", getattr(operator, method), args, kwargs)

    impl.__name__ = method
    setattr(Proxy, f"__{method.strip('_')}__", impl)


def _define_reflected(method: str) -> None:
    name = f"__r{method.strip('_')}__"

    def impl(self, rhs):
        return self.tracer.create_proxy("call_function", getattr(operator, method),
                                        (rhs, self), {})

    impl.__name__ = name
    impl.__qualname__ = f"Proxy.{name}"
    setattr(Proxy, name, impl)


for _method in magic_methods:
    _define_magic(_method)
for _method in reflectable_magic_methods:
    _define_reflected(_method)
