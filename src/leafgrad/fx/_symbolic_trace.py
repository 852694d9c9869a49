"""``torch.fx._symbolic_trace``: ``Tracer`` and ``symbolic_trace``.

Tracing runs the module's ``forward`` on proxies for its arguments. While it runs, Module's
``__call__`` and ``__getattr__`` are patched (a leaf module's call becomes a ``call_module``
node, a parameter read a ``get_attr`` node), the functions registered with ``wrap`` (and the
math functions a traced module imported by name) record a ``call_function`` node when given a
proxy, and leafgrad's ``__torch_function__`` protocol is on, so that leafgrad's functions and
Tensor methods reach ``Proxy.__torch_function__``."""

from __future__ import annotations

import builtins
import collections
import functools
import inspect
import math
import warnings

from .graph import Graph
from .graph_module import GraphModule
from .proxy import ParameterProxy, Proxy, TracerBase, _assert_is_none

__all__ = ["Tracer", "symbolic_trace", "wrap", "is_fx_tracing", "PH", "PHBase"]

_is_fx_tracing_flag = False


def is_fx_tracing() -> bool:
    return _is_fx_tracing_flag


class PHBase:
    """A placeholder object for ``concrete_args`` (a value left as an input)."""

    def __repr__(self) -> str:
        return "PH"


PH = PHBase()

_wrapped_fns_to_patch: dict = {}  # (id(globals), name) -> globals


class _Patcher:
    """Attribute replacements undone (in reverse) on exit."""

    def __init__(self):
        self.patches: list = []
        self.visited: set = set()

    def patch(self, frame_dict: dict, name: str, new_fn) -> None:
        if name in frame_dict:
            self.patches.append((frame_dict, name, frame_dict[name], True))
        else:
            self.patches.append((frame_dict, name, None, False))
        frame_dict[name] = new_fn

    def patch_method(self, cls, name: str, new_fn) -> None:
        self.patches.append((cls, name, vars(cls).get(name), name in vars(cls), "cls"))
        setattr(cls, name, new_fn)

    def visit_once(self, thing) -> bool:
        key = id(thing)
        if key in self.visited:
            return False
        self.visited.add(key)
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        while self.patches:
            entry = self.patches.pop()
            if len(entry) == 5:
                cls, name, old, existed, _ = entry
                if existed:
                    setattr(cls, name, old)
                else:
                    delattr(cls, name)
            else:
                frame_dict, name, old, existed = entry
                if existed:
                    frame_dict[name] = old
                else:
                    del frame_dict[name]
        self.visited.clear()
        return False


def _find_proxy(*objects):
    found = []

    def visit(a):
        if isinstance(a, Proxy):
            found.append(a)

    from .node import map_aggregate

    map_aggregate(objects, visit)
    return found[0] if found else None


def _create_wrapped_func(orig_fn):
    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            result = proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
            result.node.meta["is_wrapped"] = True
            return result
        return orig_fn(*args, **kwargs)

    return wrapped


def _patch_wrapped_functions(patcher: _Patcher) -> None:
    for (_, name), frame_dict in list(_wrapped_fns_to_patch.items()):
        if name not in frame_dict and hasattr(builtins, name):
            orig_fn = getattr(builtins, name)
        else:
            orig_fn = frame_dict[name]
        patcher.patch(frame_dict, name, _create_wrapped_func(orig_fn))


def _autowrap_check(patcher: _Patcher, frame_dict: dict, function_ids: set) -> None:
    if patcher.visit_once(frame_dict):
        for name, value in list(frame_dict.items()):
            if not name.startswith("_") and callable(value) and id(value) in function_ids:
                patcher.patch(frame_dict, name, _create_wrapped_func(value))


def _dispatch_check(patcher: _Patcher, frame_dict: dict) -> None:
    """Names in ``frame_dict`` bound to one of leafgrad's namespace functions as it was before
    the ``__torch_function__`` protocol was switched on (``from leafgrad import relu`` at the
    top of a module) take its dispatching wrapper while tracing, so that the call is recorded
    as ``torch.relu`` as torch's (whose functions always dispatch) would be."""
    from ..overrides import _WRAPPER_OF

    key = ("dispatch", id(frame_dict))
    if key in patcher.visited:
        return
    patcher.visited.add(key)
    for name, value in list(frame_dict.items()):
        wrapper = _WRAPPER_OF.get(id(value))
        if wrapper is not None and wrapper._torch_function_wrapped is value:
            patcher.patch(frame_dict, name, wrapper)


def wrap(fn_or_name):
    """Register a global function (or its name) of the calling module as a leaf: tracing
    records a call to it instead of tracing through it. Called at module level only."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or "
                           "string name")
    fn_name = fn_or_name.__name__ if callable(fn_or_name) else fn_or_name
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(frame.f_globals), fn_name)] = frame.f_globals
    return fn_or_name


def _is_leafgrad_module_class(kind) -> bool:
    module = kind.__module__
    return module.startswith("leafgrad.nn") or module.startswith("leafgrad.ao.nn")


class Tracer(TracerBase):
    """Records a module's (or function's) forward as a ``Graph`` (see the module doc)."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(),
                 param_shapes_constant: bool = False):
        super().__init__()
        self._autowrap_function_ids = {
            id(value) for module in autowrap_modules for name, value in vars(module).items()
            if not name.startswith("_") and callable(value)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_modules = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root_module_name = ""
        self.scope = None
        self.module_stack = collections.OrderedDict()
        self.num_calls: dict = {}
        self.node_name_to_scope = {}

    def create_arg(self, a):
        """torch's rules on top of the proxy's: parameters, buffers and tensor attributes of
        the root become ``get_attr`` nodes (other tensors ``_tensor_constant<n>`` attributes)."""
        from ..nn.modules.module import Module
        from ..nn.parameter import Parameter
        from ..tensor import Tensor

        if isinstance(a, Parameter):
            for name, param in self.root.named_parameters():
                if a is param:
                    return self.create_node("get_attr", name, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Module):
            for name, module in self.root.named_modules():
                if a is module:
                    return self.create_node("get_attr", name, (), {})
        if isinstance(a, Tensor):
            for name, buffer in self.root.named_buffers():
                if a is buffer:
                    return self.create_node("get_attr", name, (), {})
        if isinstance(a, tuple) and hasattr(a, "_fields"):  # built by a node of its own
            return self.create_node("call_function", a.__class__,
                                    tuple(self.create_arg(elem) for elem in a), {})
        if isinstance(a, Tensor):
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                qualname = _free_attribute(self.root, "_tensor_constant")
                self.tensor_attrs[id(a)] = qualname
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        if type(a) in _proxyable_classes:
            qualname = _free_attribute(self.root, f"_{a.__class__.__name__}_constant_")
            setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        """torch's built-in layers are leaves (recorded as one call), Sequential is not."""
        from ..nn.modules.container import Sequential

        return _is_leafgrad_module_class(type(m)) and not isinstance(m, Sequential)

    def path_of_module(self, mod) -> str:
        if self.submodule_paths:
            path = self.submodule_paths.get(id(mod))
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for name, module in self.root.named_modules():
            if module is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A leaf module's call as one node, another's forward traced through; the nodes made
        meanwhile carry the module stack (``meta['nn_module_stack']``: key -> (path, class),
        a repeated call's key suffixed ``@<n>``)."""
        module_qualified_name = self.path_of_module(m)
        calls = self.num_calls.get(module_qualified_name, 0)
        key = f"{module_qualified_name}@{calls}" if calls > 0 else module_qualified_name
        self.module_stack[key] = (module_qualified_name, type(m))
        self.num_calls[module_qualified_name] = calls + 1
        try:
            if not self.is_leaf_module(m, module_qualified_name):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", module_qualified_name, args, kwargs)
        finally:
            self.module_stack.popitem(last=True)

    def getattr(self, attr: str, attr_val, parameter_proxy_cache: dict):
        from ..nn.parameter import Parameter
        from ..tensor import Tensor

        def proxy_for(value, collection):
            for name, item in collection:
                if value is item:
                    if name not in parameter_proxy_cache:
                        factory = None if not self.param_shapes_constant else (
                            lambda node: ParameterProxy(self, node, name, value))
                        parameter_proxy_cache[name] = self.create_proxy(
                            "get_attr", name, (), {}, proxy_factory_fn=factory)
                    return parameter_proxy_cache[name]
            return None

        if isinstance(attr_val, Parameter):
            found = proxy_for(attr_val, self.root.named_parameters())
            if found is not None:
                return found
        if self.proxy_buffer_attributes and isinstance(attr_val, Tensor):
            found = proxy_for(attr_val, self.root.named_buffers())
            if found is not None:
                return found
        return attr_val

    def create_args_for_root(self, root_fn, is_module: bool, concrete_args=None):
        fn = inspect.unwrap(root_fn)
        code = fn.__code__
        total_args = code.co_argcount + code.co_kwonlyargcount
        names_iter = iter(code.co_varnames)
        args = []
        skip = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip = 1
            next(names_iter)
            args.append(self.root)
        sig = inspect.signature(fn)
        has_varstuff = code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        if isinstance(concrete_args, tuple) and len(concrete_args) > 0 and has_varstuff and \
                total_args == 1:
            for i, _ in enumerate(concrete_args):
                args.append(self.create_proxy("placeholder", f"input_{i}", (), {}))
            return root_fn, args
        arg_names = [next(names_iter) for _ in range(skip, total_args)]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(f"Tracing expected {len(arg_names)} arguments but got "
                                   f"{len(concrete_args)} concrete arguments")
            concrete_args = dict(zip(arg_names, concrete_args))
        args.extend(self._proxy_placeholder(name, concrete_args, sig, fn) for name in arg_names)
        if code.co_kwonlyargcount > 0 or has_varstuff:
            if code.co_flags & inspect.CO_VARARGS:
                args.append(self._proxy_placeholder("*" + next(names_iter), concrete_args,
                                                    sig, fn))
            if code.co_flags & inspect.CO_VARKEYWORDS:
                args.append(self._proxy_placeholder("**" + next(names_iter), concrete_args,
                                                    sig, fn))
            root_fn = _patch_function(root_fn, len(args))
        return root_fn, args

    def _proxy_placeholder(self, name: str, concrete_args, sig, fn):
        if concrete_args is not None and name in concrete_args:
            value = concrete_args[name]
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
            count = [0]

            def replace(x):
                count[0] += 1
                out = self.create_proxy("placeholder", f"{name}_{count[0]}", default, {})
                if isinstance(x, PHBase):
                    return out
                from .. import _assert
                from ..tensor import Tensor

                if type(x) is bool or type(x) in (int, float, str, complex) and \
                        not isinstance(x, Tensor):
                    _assert(out == x, f"{name} has been specialized to have value {x} but got "
                                      "another value")
                elif x is None:
                    self.create_proxy("call_function", _assert_is_none,
                                      (out, f"{name} has been specialized to have value None "
                                            "but got another value"), {})
                else:
                    warnings.warn(f"Was not able to add assertion to guarantee correct input "
                                  f"{name} to specialized function. It is up to the user to "
                                  "make sure that your inputs match the inputs you specialized "
                                  "the function with.")
                return x

            from ..utils._pytree import tree_map

            return tree_map(replace, value)
        if name[0] == "*":
            default = ()
        else:
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
        return self.create_proxy("placeholder", name, default, {},
                                 type_expr=fn.__annotations__.get(name, None))

    def trace(self, root, concrete_args=None) -> Graph:
        """The graph of ``root``'s forward (or of the function ``root``)."""
        global _is_fx_tracing_flag
        from .. import overrides
        from ..nn.modules.module import Module

        overrides._activate()  # (leafgrad's functions and methods dispatch to proxies)
        saved_flag = _is_fx_tracing_flag
        _is_fx_tracing_flag = True
        try:
            if isinstance(root, Module):
                self.root = root
                fn = type(root).forward
                self.submodule_paths = {id(mod): name for name, mod in root.named_modules()}
            else:
                self.root = Module()
                fn = root
            self.graph = Graph(tracer_cls=getattr(self, "__class__", None))
            self.module_stack = collections.OrderedDict()
            self.num_calls = {}
            self.tensor_attrs = {}
            from ..tensor import Tensor

            def collect_tensor_attrs(m, prefix):
                for k, v in m.__dict__.items():
                    if isinstance(v, Tensor):
                        self.tensor_attrs[id(v)] = ".".join(prefix + [k])
                for k, v in m.named_children():
                    collect_tensor_attrs(v, prefix + [k])

            collect_tensor_attrs(self.root, [])
            fn_globals = fn.__globals__
            fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
            parameter_proxy_cache: dict = {}
            original_getattr = Module.__getattr__
            original_call = Module.__call__

            @functools.wraps(original_getattr)
            def module_getattr_wrapper(mod, attr):
                value = original_getattr(mod, attr)
                return self.getattr(attr, value, parameter_proxy_cache)

            @functools.wraps(original_call)
            def module_call_wrapper(mod, *args, **kwargs):
                def forward(*args, **kwargs):
                    return original_call(mod, *args, **kwargs)

                module_globals = getattr(getattr(mod, "forward", mod), "__globals__", {})
                _autowrap_check(patcher, module_globals, self._autowrap_function_ids)
                _dispatch_check(patcher, module_globals)
                return self.call_module(mod, forward, args, kwargs)

            with _Patcher() as patcher:
                patcher.patch_method(Module, "__getattr__", module_getattr_wrapper)
                patcher.patch_method(Module, "__call__", module_call_wrapper)
                _patch_wrapped_functions(patcher)
                _autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                _dispatch_check(patcher, fn_globals)
                for module in self._autowrap_modules:
                    _autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
                self.create_node("output", "output", (self.create_arg(fn(*args)),), {},
                                 type_expr=fn.__annotations__.get("return", None))
            self.submodule_paths = None
        finally:
            _is_fx_tracing_flag = saved_flag
        return self.graph

    def __deepcopy__(self, memo):
        import copy

        new_tracer = Tracer.__new__(Tracer)
        for k, v in self.__dict__.items():
            setattr(new_tracer, k, v if k == "_autowrap_function_ids" else copy.deepcopy(v, memo))
        return new_tracer


_proxyable_classes: dict = {}


def _patch_function(fn, nargs: int):
    """``fn`` taking ``nargs`` positional arguments (its *args and **kwargs among them), so
    the tracer can call it with one proxy each."""
    import types

    code = fn.__code__
    flags = code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    new_code = code.replace(co_argcount=nargs, co_kwonlyargcount=0, co_flags=flags)
    return types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def symbolic_trace(root, concrete_args=None) -> GraphModule:
    """Trace ``root`` (a module or a function) into a ``GraphModule``."""
    from ..nn.modules.module import Module

    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


def _free_attribute(root, prefix: str) -> str:
    """``prefix`` numbered from 0: the first name ``root`` has no attribute of (the names
    torch's tracer gives the constants it stores on the root module)."""
    i = 0
    while hasattr(root, f"{prefix}{i}"):
        i += 1
    return f"{prefix}{i}"
