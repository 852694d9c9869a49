"""``torch.fx.interpreter``: ``Interpreter`` runs a GraphModule's graph node by node (one
method per opcode, for subclasses to override); ``Transformer`` runs it on proxies to build a
new graph."""

from __future__ import annotations

import inspect
from contextlib import contextmanager

from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_aggregate, map_arg
from .proxy import Proxy
from ._symbolic_trace import Tracer

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs ``module.graph`` (or ``graph``) on concrete values; each value is dropped after its
    last use when ``garbage_collect_values``."""

    def __init__(self, module, garbage_collect_values: bool = True, graph=None):
        self.module = module
        self.submodules = dict(self.module.named_modules())
        if graph is not None:
            self.graph = graph
        else:
            self.graph = self.module.graph
        self.env: dict = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.current_node = None
        if self.garbage_collect_values:
            last_use: dict = {}
            self.user_to_last_uses: dict = {}
            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    if n not in last_use:
                        last_use[n] = node
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env=None, enable_io_processing: bool = True):
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as error:
                if self.extra_traceback:
                    message = f"While executing {node.format_node()}"
                    message = f"{error.args[0]}\n\n{message}" if error.args else str(message)
                    message += f"\nOriginal traceback:\n{node.stack_trace}"
                    message += ("\nUse tlparse to see full graph. (https://github.com/pytorch/"
                                "tlparse?tab=readme-ov-file#tlparse-parse-structured-pt2-logs)")
                    error.args = (message,) + error.args[1:]
                    if isinstance(error, KeyError):
                        raise RuntimeError(*error.args) from error
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list):
        args_iter = iter(args_list)
        env = {}
        for n in self.graph.nodes:
            if n.op == "placeholder":
                env[n] = next(args_iter)
        args_list.clear()
        return self.run(initial_env=env)

    @contextmanager
    def _set_current_node(self, node):
        saved, self.current_node = self.current_node, node
        try:
            yield
        finally:
            self.current_node = saved

    def run_node(self, n: Node):
        with self._set_current_node(n):
            args, kwargs = self.fetch_args_kwargs_from_env(n)
            return getattr(self, n.op)(n.target, args, kwargs)

    # -- one method per opcode ------------------------------------------------------------------
    def placeholder(self, target, args, kwargs):
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as stop:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one "
                               "was not passed in!") from stop

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return submod(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    # -- helpers --------------------------------------------------------------------------------
    def fetch_attr(self, target: str):
        atoms = target.split(".")
        attr = self.module
        for i, atom in enumerate(atoms):
            if not hasattr(attr, atom):
                raise RuntimeError("Node referenced nonexistent target "
                                   f"{'.'.join(atoms[:i + 1])}")
            attr = getattr(attr, atom)
        return attr

    def fetch_args_kwargs_from_env(self, n: Node):
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return args, kwargs

    def map_nodes_to_values(self, args, n: Node):
        def load_arg(n_arg):
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run "
                                   "Graph.lint() to diagnose such issues")
            return self.env[n_arg]

        return map_arg(args, load_arg)


class _TransformerTracer(Tracer):
    def __init__(self, graph: Graph):
        super().__init__()
        self.graph = graph
        self.tensor_attrs = {}

    def is_leaf_module(self, _, __) -> bool:
        return True


class Transformer(Interpreter):
    """An Interpreter that runs the graph on proxies: what its methods return builds a new
    graph, and ``transform()`` returns it as a GraphModule."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.new_graph.set_codegen(module.graph._codegen)
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def run_node(self, n: Node):
        saved, self.tracer._preserved_meta = getattr(self.tracer, "_preserved_meta", None), n.meta
        try:
            return super().run_node(n)
        finally:
            self.tracer._preserved_meta = saved

    def placeholder(self, target, args, kwargs):
        default = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self) -> GraphModule:
        from .. import overrides

        overrides._activate()  # (leafgrad's functions reach proxies)
        result = super().run(enable_io_processing=False)
        if result is not None:
            def strip_proxy(a):
                return a.node if isinstance(a, Proxy) else a

            new_output = self.new_graph.output(map_aggregate(result, strip_proxy))
            old_output = list(self.graph.nodes)[-1]
            new_output.meta.update(old_output.meta)
        return GraphModule(self.module, self.new_graph)
