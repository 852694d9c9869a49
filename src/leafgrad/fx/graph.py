"""``torch.fx.graph``: the ``Graph`` (a doubly linked list of ``Node``s with a namespace of
unique names) and the Python code a ``GraphModule`` runs, generated from it."""

from __future__ import annotations

import builtins
import inspect
import keyword
import math
import re
import warnings
from collections import defaultdict
from contextlib import contextmanager

from .node import Node, _get_qualified_name, _type_repr, map_arg

__all__ = ["Graph", "PythonCode", "CodeGen"]

_snake_case_sub = re.compile(r"(?<=[a-z])([A-Z])")
_illegal_char_regex = re.compile("[^0-9a-zA-Z_]+")
_name_regex = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")


def _snake_case(s: str) -> str:
    return _snake_case_sub.sub(r"_\1", s).lower()


def _is_magic(x: str) -> bool:
    return x.startswith("__") and x.endswith("__")


reflectable_magic_methods = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}",
    "truediv": "{} / {}", "div": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}",
    "lshift": "{} << {}", "rshift": "{} >> {}", "and_": "{} & {}", "or_": "{} | {}",
    "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}"}

magic_methods = {"eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}",
                 "le": "{} <= {}", "ge": "{} >= {}", "pos": "+{}", "neg": "-{}",
                 "invert": "~{}", **reflectable_magic_methods}


def _custom_builtins() -> dict:
    """Names every generated program can use: torch's (``torch`` is leafgrad here)."""
    import leafgrad

    return {"inf": math.inf, "nan": math.nan, "NoneType": type(None), "torch": leafgrad,
            "device": leafgrad.device}


def _dtype_abbrs() -> dict:
    import leafgrad

    names = {"bfloat16": "bf16", "float64": "f64", "float32": "f32", "float16": "f16",
             "complex32": "c32", "complex64": "c64", "complex128": "c128", "int8": "i8",
             "int16": "i16", "int32": "i32", "int64": "i64", "bool": "b8", "uint8": "u8",
             "uint16": "u16", "uint32": "u32", "uint64": "u64"}
    return {getattr(leafgrad, name): abbr for name, abbr in names.items()
            if hasattr(leafgrad, name)}


_ABBRS: dict = {}


def _abbr(dtype) -> str:
    """torch's short dtype names in annotations (f32, i64, b8...)."""
    if not _ABBRS:
        _ABBRS.update(_dtype_abbrs())
    return _ABBRS.get(dtype, str(dtype))


class _Namespace:
    """Unique Python identifiers for a graph's nodes and globals (torch's rules: a name is
    sanitised, a ``_<n>`` suffix is counted per base, keywords and builtins are avoided)."""

    def __init__(self):
        self._obj_to_name: dict = {}
        self._used_names: set = set()
        self._base_count: dict = defaultdict(int)

    def create_name(self, candidate: str, obj) -> str:
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)]
        if _name_regex.match(candidate) is None:
            candidate = _illegal_char_regex.sub("_", candidate)
            if not candidate:
                candidate = "_unnamed"
            if candidate[0].isdigit():
                candidate = f"_{candidate}"
        match = _name_regex.match(candidate)
        base, number = match.group(1, 2)
        num = None if number is None else int(number)
        candidate = base if num is None else f"{base}_{num}"
        if not num:
            num = self._base_count[base]
        while candidate in self._used_names or self._is_illegal_name(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = candidate
        return candidate

    def associate_name_with_obj(self, name: str, obj) -> None:
        self._obj_to_name[id(obj)] = name

    def _rename_object(self, obj, name: str) -> None:
        self._obj_to_name[id(obj)] = name

    @staticmethod
    def _is_illegal_name(name: str, obj) -> bool:
        if name in keyword.kwlist:
            return True
        if name in builtins.__dict__:
            return obj is not builtins.__dict__[name]
        custom = _custom_builtins()
        if name in custom:
            return obj is not custom[name]
        return False


class PythonCode:
    """The generated source and the globals it runs with."""

    def __init__(self, src: str, globals_: dict, _lineno_map=None):
        self.src = src
        self.globals = globals_
        self._lineno_map = _lineno_map


def _attr_exists(module, qualified_name: str) -> bool:
    """Whether ``qualified_name`` names a submodule, parameter or buffer of ``module``, as
    torch's Graph.get_attr checks before it warns (a missing parent module warns too)."""
    from ..nn import Module, Parameter

    path, _, name = qualified_name.rpartition(".")
    try:
        parent = module.get_submodule(path)
    except AttributeError:
        warnings.warn(f"Failed to fetch module {path}!")
        return False
    if not hasattr(parent, name):
        return False
    value = getattr(parent, name)
    return isinstance(value, (Module, Parameter)) or name in parent._buffers


def _format_target(base: str, target: str) -> str:
    result = base
    for element in target.split("."):
        result = f'getattr({result}, "{element}")' if not element.isidentifier() \
            else f"{result}.{element}"
    return result


def _is_from_leafgrad(obj) -> bool:
    module = getattr(obj, "__module__", None)
    if module is not None:
        return module == "leafgrad" or module.startswith("leafgrad.")
    return False


class CodeGen:
    """Writes a graph as a ``forward`` (torch's CodeGen: one statement per node, each value
    freed after its last use)."""

    def gen_fn_def(self, free_vars: list, maybe_return_annotation: str) -> str:
        if len(free_vars) == 0 or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def forward({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args, repr_fn=repr) -> str:
        return f"return {repr_fn(output_args)}"

    def _gen_python_code(self, nodes, root_module: str, namespace: _Namespace, *,
                         verbose: bool = False, include_stride: bool = False,
                         include_device: bool = False) -> PythonCode:
        free_vars: list = []
        body: list = []
        globals_: dict = {}
        return_annotation = [""]

        def add_global(name_hint: str, obj) -> str:
            if _is_from_leafgrad(obj) and obj is not _custom_builtins()["device"]:
                if isinstance(obj, type):  # (a class torch publishes: torch.Tensor)
                    import leafgrad

                    if getattr(leafgrad, obj.__name__, None) is obj:
                        return f"torch.{obj.__name__}"
                else:
                    return _get_qualified_name(obj)  # (reached through ``torch``)
            name = namespace.create_name(name_hint, obj)
            if name in globals_:
                return name
            globals_[name] = obj
            return name

        for name, obj in _custom_builtins().items():
            add_global(name, obj)

        def type_repr(o) -> str:
            if o == ():
                return "()"
            origin = getattr(o, "__origin__", None)
            if origin is not None:  # (List[int], Optional[Tensor]: the origin, then args)
                import typing

                if isinstance(o, typing._GenericAlias):
                    origin = {list: typing.List, dict: typing.Dict, set: typing.Set,
                              frozenset: typing.FrozenSet, tuple: typing.Tuple}.get(origin,
                                                                                   origin)
                name = add_global(_type_repr(origin), origin)
                if getattr(o, "__args__", None):
                    return f"{name}[{','.join(type_repr(arg) for arg in o.__args__)}]"
                return name
            return add_global(_type_repr(o), o)

        def get_repr(arg) -> str:
            from ..tensor import Tensor

            if isinstance(arg, Node):
                return repr(arg)
            if isinstance(arg, tuple) and hasattr(arg, "_fields"):
                name = add_global(_get_qualified_name(type(arg)).replace(".", "_"), type(arg))
                return f"{name}{repr(tuple(arg))}"
            if isinstance(arg, Tensor):
                return f"torch.Tensor(size={list(arg.size())}, " \
                       f"dtype={str(arg.dtype).split('.')[-1]})"
            if isinstance(arg, tuple):
                if len(arg) == 1:
                    return f"({get_repr(arg[0])},)"
                return "(" + ", ".join(get_repr(a) for a in arg) + ")"
            if isinstance(arg, list):
                return "[" + ", ".join(get_repr(a) for a in arg) + "]"
            if isinstance(arg, slice):
                return f"slice({get_repr(arg.start)}, {get_repr(arg.stop)}, " \
                       f"{get_repr(arg.step)})"
            if isinstance(arg, dict):
                return "{" + ", ".join(f"{get_repr(k)}: {get_repr(v)}"
                                       for k, v in arg.items()) + "}"
            if isinstance(arg, float) and not math.isfinite(arg):
                return repr(arg)  # inf / nan are builtins of the program
            text = repr(arg)
            if text.startswith("leafgrad.") and _is_from_leafgrad(type(arg)):
                return "torch." + text[len("leafgrad."):]  # (torch.float64: the program's name)
            return text

        def format_args(args, kwargs) -> str:
            parts = [get_repr(a) for a in args]
            parts.extend(f"{k} = {get_repr(v)}" for k, v in kwargs.items())
            return ", ".join(parts)

        last_use: dict = {}
        last_uses_of: dict = {}
        for node in reversed(nodes):
            for used in node._input_nodes:
                if used not in last_use:
                    last_use[used] = node
                    last_uses_of.setdefault(node, []).append(used)

        def delete_unused_values(user: Node) -> None:
            if user.op == "placeholder":
                return
            if user.op == "output":
                body.append("\n")
                return
            freed = list(last_uses_of.get(user, []))
            if len(user.users) == 0:
                freed.append(user)
            if freed:
                body.append(";  " + " = ".join([repr(n) for n in freed] + ["None"]) + "\n")
            else:
                body.append("\n")

        wrapped_fns: dict = {}

        def stringify_shape(shape) -> str:
            return f"[{', '.join(str(x) for x in shape)}]"

        def emit_node(node: Node) -> None:
            annotation = "" if node.type is None else f" : {type_repr(node.type)}"
            if verbose:  # tensor metadata (ShapeProp's) as a string annotation
                from ..tensor import Tensor
                from .passes.shape_prop import TensorMetadata

                value = node.meta.get("val", node.meta.get("tensor_meta",
                                                           node.meta.get("example_value")))
                if isinstance(value, Tensor):
                    core = (_abbr(value.dtype) +
                            stringify_shape(value.shape) +
                            (stringify_shape(value.stride()) if include_stride else "") +
                            (f"{value.device}" if include_device else ""))
                    annotation = f': "{core}"' if type(value) is Tensor else \
                        f': "{type(value).__name__}({core})"'
                elif isinstance(value, TensorMetadata):
                    annotation = (f': "{_abbr(value.dtype)}'
                                  f'{stringify_shape(value.shape)}"')
            if node.op == "placeholder":
                default = "" if not node.args else f" = {get_repr(node.args[0])}"
                free_vars.append(f"{node.target}{annotation}{default}")
                raw_name = node.target.replace("*", "")
                if raw_name != repr(node):
                    body.append(f"{repr(node)} = {raw_name}\n")
                return
            if node.op == "call_method":
                body.append(f"{repr(node)}{annotation} = "
                            f"{_format_target(get_repr(node.args[0]), node.target)}"
                            f"({format_args(node.args[1:], node.kwargs)})")
                return
            if node.op == "call_function":
                target = node.target
                if getattr(target, "__module__", "") == "_operator" and \
                        target.__name__ in magic_methods:
                    body.append(f"{repr(node)}{annotation} = " + magic_methods[
                        target.__name__].format(*(get_repr(a) for a in node.args)))
                    return
                global_name = add_global(_get_qualified_name(target), target)
                if global_name == "getattr" and isinstance(node.args, tuple) and \
                        len(node.args) == 2 and isinstance(node.args[1], str) and \
                        node.args[1].isidentifier():
                    body.append(f"{repr(node)}{annotation} = "
                                f"{_format_target(get_repr(node.args[0]), node.args[1])}")
                    return
                body.append(f"{repr(node)}{annotation} = {global_name}("
                            f"{format_args(node.args, node.kwargs)})")
                if node.meta.get("is_wrapped", False):
                    wrapped_fns.setdefault(global_name)
                return
            if node.op == "call_module":
                body.append(f"{repr(node)}{annotation} = "
                            f"{_format_target(root_module, node.target)}"
                            f"({format_args(node.args, node.kwargs)})")
                return
            if node.op == "get_attr":
                body.append(f"{repr(node)}{annotation} = "
                            f"{_format_target(root_module, node.target)}")
                return
            if node.op == "output":
                if node.type is not None:
                    return_annotation[0] = f" -> {type_repr(node.type)}"
                body.append(self.generate_output(node.args[0], repr_fn=get_repr))
                return
            raise NotImplementedError(f"node: {node.op} {node.target}")

        previous_summary = [None]
        for node in nodes:
            if verbose and node.op not in ("placeholder", "output"):
                summary = "\n# No stacktrace found for following nodes\n"
                if node.stack_trace:
                    summary = "\n# " + node.stack_trace.strip().split("\n")[-1].strip() + "\n"
                if summary != previous_summary[0]:
                    previous_summary[0] = summary
                    body.append(summary)
            emit_node(node)
            delete_unused_values(node)
        if not body:
            body.append("pass\n")
        if wrapped_fns:
            from ._symbolic_trace import wrap

            wrap_name = add_global("wrap", wrap)
            wrap_stmts = "\n".join(f'{wrap_name}("{name}")' for name in wrapped_fns)
        else:
            wrap_stmts = ""
        prologue = self.gen_fn_def(free_vars, return_annotation[0])
        code = "".join(body).lstrip("\n")
        code = "\n".join("    " + line for line in code.split("\n"))
        fn_code = f"\n{wrap_stmts}\n\n{prologue}\n{code}"
        return PythonCode(fn_code, globals_)


class _NodeList:
    """``graph.nodes``: the nodes in order (or reversed), sized, iterable while the graph
    changes (an erased node is skipped)."""

    def __init__(self, graph: "Graph", direction: str = "_next"):
        self.graph = graph
        self.direction = direction

    def __len__(self) -> int:
        return self.graph._len

    def __iter__(self):
        root = self.graph._root
        step = self.direction
        cur = getattr(root, step)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, step)

    def __reversed__(self):
        return _NodeList(self.graph, "_prev" if self.direction == "_next" else "_next")

    def __repr__(self) -> str:
        return repr(list(self))


class _InsertPoint:
    def __init__(self, graph: "Graph", insert):
        self.graph = graph
        self.saved = graph._insert
        graph._insert = insert

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        self.graph._insert = self.saved
        return False


class Graph:
    """The instructions of a program (torch.fx.Graph): placeholders, operations and an output,
    in order; ``str(graph)`` prints them, ``python_code`` writes them as a forward."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._used_names: dict = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()
        self._co_fields: dict = {}

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, module) -> None:
        self._owning_module = module

    @property
    def nodes(self) -> _NodeList:
        return _NodeList(self)

    def output_node(self) -> Node:
        return next(iter(reversed(self.nodes)))

    def find_nodes(self, *, op: str, target=None, sort: bool = True) -> list:
        return [node for node in self.nodes if node.op == op and
                (target is None or node.target == target)]

    # -- building -------------------------------------------------------------------------------
    def create_node(self, op: str, target, args=None, kwargs=None, name=None,
                    type_expr=None) -> Node:
        """A new node at the insertion point (named after ``name`` or its target)."""
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError("args must be a tuple")
        if not isinstance(kwargs, dict):
            raise AssertionError("kwargs must be a dict")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        node = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, node)
        self._insert(node)
        self._len += 1
        return node

    def _target_to_str(self, target) -> str:
        if callable(target):
            op = target.__name__
        else:
            op = target
            if _is_magic(op):
                op = op[2:-2]
        return _snake_case(op)

    def placeholder(self, name: str, type_expr=None, default_value=inspect.Signature.empty
                    ) -> Node:
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr=None) -> Node:
        if self._owning_module is not None and not _attr_exists(self._owning_module,
                                                                qualified_name):
            warnings.warn("Attempted to insert a get_attr Node with no underlying reference in "
                          "the owning GraphModule! Call GraphModule.add_submodule to add the "
                          "necessary submodule, GraphModule.add_parameter to add the necessary "
                          "Parameter, or nn.Module.register_buffer to add the necessary buffer")
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        # torch looks the module up (get_submodule: a missing one is its AttributeError; the
        # warning below is for a get_submodule that returns None)
        if self._owning_module is not None \
                and self._owning_module.get_submodule(module_name) is None:
            warnings.warn("Attempted to insert a call_module Node with no underlying reference "
                          "in the owning GraphModule! Call GraphModule.add_submodule to add the "
                          "necessary submodule")
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None,
                      name=None) -> Node:
        return self.create_node("call_function", the_function, args, kwargs, name=name,
                                type_expr=type_expr)

    def output(self, result, type_expr=None) -> Node:
        return self.create_node(op="output", target="output", args=(result,),
                                type_expr=type_expr)

    def erase_node(self, to_erase: Node) -> None:
        """Remove a node that nothing uses any more."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: "
                               f"{to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            import warnings

            warnings.warn(f"erase_node({to_erase}) on an already erased node")
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def inserting_before(self, n=None):
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def node_copy(self, node: Node, arg_transform=lambda x: x) -> Node:
        """A copy of ``node`` (from any graph) in this graph, its arguments mapped."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = dict(node.meta)
        return result

    def graph_copy(self, g: "Graph", val_map: dict, return_output_node: bool = False):
        """Copy ``g``'s nodes but its output into this graph (``val_map``: old -> new);
        returns the copied output value."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                result = map_arg(node.args[0], lambda n: val_map[n])
                return (result, node) if return_output_node else result
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        memo = memo if memo else {}
        graph = Graph(tracer_cls=self._tracer_cls)
        output_vals = graph.graph_copy(self, val_map=memo, return_output_node=True)
        graph._codegen = self._codegen
        if output_vals is not None:
            output_val, old_output = output_vals
            new_output = graph.output(output_val, type_expr=getattr(old_output, "type", None))
            new_output.meta = dict(old_output.meta)
        return graph

    def eliminate_dead_code(self, is_impure_node=None) -> bool:
        """Erase the nodes nothing uses and that have no side effect; whether any was."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Check ownership, topological order and (with an owning module) targets."""
        seen: set = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to "
                                       "this Graph, but was used as an argument! If you are "
                                       "copying nodes from another graph, make sure to use "
                                       "``arg_transform`` on node_copy() to remap values\n"
                                       f"{self}")
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it "
                                       "has been defined! Please check that Nodes in the "
                                       "graph are topologically ordered\n"
                                       f"{self}")
            seen.add(node)
        if self.owning_module is not None:
            for node in self.nodes:
                if node.op == "call_module":
                    try:
                        self.owning_module.get_submodule(node.target)
                    except AttributeError:
                        raise RuntimeError(f"Node {node} target {node.target} references "
                                           "nonexistent attribute") from None

    # -- printing and code ----------------------------------------------------------------------
    def python_code(self, root_module: str, *, verbose: bool = False,
                    include_stride: bool = False, include_device: bool = False,
                    colored: bool = False, **kwargs) -> PythonCode:
        namespace = _Namespace()
        saved = {}
        for node in self.nodes:  # (a node's name in the program goes through the namespace)
            saved[node] = node._repr_fn
            node._repr_fn = lambda n: namespace.create_name(n.name, n)
        try:
            return self._codegen._gen_python_code(
                list(self.nodes), root_module, namespace, verbose=verbose,
                include_stride=include_stride, include_device=include_device)
        finally:
            for node, repr_fn in saved.items():
                node._repr_fn = repr_fn

    def __str__(self) -> str:
        placeholder_names: list = []
        return_typename = [""]
        lines = [node.format_node(placeholder_names) for node in self.nodes]
        text = f"graph({', '.join(placeholder_names)}){return_typename[0]}:"
        for line in lines:
            if line:
                text += "\n    " + line
        return text

    def print_tabular(self) -> None:
        """The nodes as a table (needs the ``tabulate`` package, as torch's)."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be "
                  "found on this machine. Run `pip install tabulate` to install the library.")
            raise
        specs = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(specs, headers=["opcode", "name", "target", "args", "kwargs"]))

    @contextmanager
    def _set_codegen(self, codegen):
        saved, self._codegen = self._codegen, codegen
        try:
            yield
        finally:
            self._codegen = saved

    def set_codegen(self, codegen) -> None:
        self._codegen = codegen
