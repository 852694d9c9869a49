"""``torch.fx.node``: a graph's instruction (``Node``) and the helpers that walk arguments.

A node knows its opcode (placeholder, get_attr, call_function, call_method, call_module,
output), its target, its arguments (which may hold other nodes, in tuples, lists, dicts and
slices) and the nodes using it (``users``, kept up to date whenever arguments change)."""

from __future__ import annotations

import builtins
import operator
import types as _types

__all__ = ["Node", "map_arg", "map_aggregate", "Argument", "Target"]

Argument = object
Target = object

_OPCODES = ("placeholder", "call_method", "call_module", "call_function", "get_attr",
            "output", "root")


class immutable_list(list):
    """A list that refuses changes (torch.fx.immutable_collections.immutable_list)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError(f"'{type(self).__name__}' object does not support mutation. "
                        "If you are attempting to modify the kwargs or args of a "
                        "torch.fx.Node object,\ninstead create a new copy of it and assign "
                        "the copy to the node:\n    new_args = ... # copy and mutate args\n"
                        "    node.args = new_args\n")

    __delitem__ = __iadd__ = __imul__ = __setitem__ = append = clear = extend = insert = \
        pop = remove = reverse = sort = _refuse

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (tuple(iter(self)),))


class immutable_dict(dict):
    """A dict that refuses changes (torch.fx.immutable_collections.immutable_dict)."""

    _refuse = immutable_list._refuse
    __delitem__ = __setitem__ = clear = pop = popitem = setdefault = update = _refuse

    def __ior__(self, other):
        return self._refuse()

    def __hash__(self):
        return hash(tuple(self.items()))

    def __reduce__(self):
        return (immutable_dict, (list(self.items()),))


def map_aggregate(a, fn):
    """Apply ``fn`` to each leaf of ``a`` (through tuples, lists, dicts and slices)."""
    kind = type(a)
    if kind is tuple or isinstance(a, tuple) and not hasattr(a, "_fields"):
        items = tuple(map_aggregate(item, fn) for item in a)
        return items if kind is tuple else kind(items)
    if isinstance(a, tuple):  # a named tuple
        return kind(*(map_aggregate(item, fn) for item in a))
    if isinstance(a, list):
        return immutable_list(map_aggregate(item, fn) for item in a)
    if isinstance(a, dict):
        return immutable_dict((key, map_aggregate(value, fn)) for key, value in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Apply ``fn`` to each Node in ``a``."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _input_nodes(args, kwargs) -> dict:
    found: dict = {}
    map_arg((args, kwargs), lambda n: found.setdefault(n))
    return found


def _find_module_of(function) -> str:
    module = getattr(function, "__module__", None)
    if module is not None:
        return module
    raise RuntimeError(f"cannot find module for {function}")


# nn.functional's functions that torch implements in C++ and names by their C module
_F_QUALIFIED = {
    "adaptive_avg_pool1d": "torch.adaptive_avg_pool1d", "avg_pool1d": "torch.avg_pool1d",
    "avg_pool2d": "torch._C._nn.avg_pool2d", "avg_pool3d": "torch._C._nn.avg_pool3d",
    "bilinear": "torch.bilinear", "celu_": "torch.celu_", "channel_shuffle":
    "torch.channel_shuffle", "conv1d": "torch.conv1d", "conv2d": "torch.conv2d",
    "conv3d": "torch.conv3d", "conv_tbc": "torch.conv_tbc", "conv_transpose1d":
    "torch.conv_transpose1d", "conv_transpose2d": "torch.conv_transpose2d",
    "conv_transpose3d": "torch.conv_transpose3d", "cosine_similarity":
    "torch.cosine_similarity", "elu_": "torch._C._nn.elu_", "gelu": "torch._C._nn.gelu",
    "hardshrink": "torch.hardshrink", "hardtanh_": "torch._C._nn.hardtanh_", "leaky_relu_":
    "torch._C._nn.leaky_relu_", "linear": "torch._C._nn.linear", "logsigmoid":
    "torch._C._nn.log_sigmoid", "native_channel_shuffle": "torch.native_channel_shuffle",
    "one_hot": "torch._C._nn.one_hot", "pairwise_distance": "torch.pairwise_distance",
    "pdist": "torch.pdist", "pixel_shuffle": "torch.pixel_shuffle", "pixel_unshuffle":
    "torch.pixel_unshuffle", "prelu": "torch.prelu", "relu_": "torch.relu_", "rrelu_":
    "torch.rrelu_", "scaled_dot_product_attention": "torch._C._nn.scaled_dot_product_attention",
    "selu_": "torch.selu_", "softplus": "torch._C._nn.softplus", "softshrink":
    "torch._C._nn.softshrink", "threshold_": "torch.threshold_"}


def _get_qualified_name(function) -> str:
    """The dotted name torch prints for a callable target: ``getattr`` for builtins,
    ``torch.relu`` for leafgrad's functions (published under torch's names), ``module.name``
    else."""
    name = getattr(function, "__name__", None)
    if name is None:
        raise AttributeError(f"'{type(function).__name__}' object has no attribute '__name__'")
    if getattr(builtins, name, None) is function:
        return name
    published = getattr(function, "_torch_function_name", None)
    if published is not None:  # a namespace function behind leafgrad's dispatch wrapper
        if published.startswith("torch.nn.") and not published.startswith(
                "torch.nn.functional."):
            return _F_QUALIFIED.get(published[len("torch.nn."):], published)
        for namespace in ("linalg", "fft", "special"):  # (torch._C._linalg.linalg_norm)
            if published.startswith(f"torch.{namespace}.{namespace}_"):
                return f"torch._C._{namespace}." + published[len(f"torch.{namespace}."):]
        module = function.__module__
    else:
        module = _find_module_of(function)
    if name == "<lambda>":
        try:
            import inspect

            name = inspect.getsource(function).split("=")[0].strip()
        except Exception as error:
            raise RuntimeError("Unable to represent lambda") from error
    if module.startswith("leafgrad.") and published is None:
        module = _published_module(function, name) or module
    if module == "leafgrad" or module.startswith("leafgrad."):
        module = "torch" + module[len("leafgrad"):]
        if module == "torch.nn.functional":
            qualified = _F_QUALIFIED.get(name)
            if qualified is not None:
                return qualified
    return f"{module}.{name}"


def _published_module(function, name: str):
    """Where leafgrad publishes one of its functions (defined in an inner module): the
    top-level namespace or nn.functional, as torch names it (None elsewhere)."""
    import leafgrad
    import leafgrad.nn.functional as F

    for namespace in (leafgrad, F):
        value = vars(namespace).get(name)
        if value is function or getattr(value, "_torch_function_wrapped", None) is function:
            return namespace.__name__
    return None


def _format_arg(arg, max_list_len=float("inf")) -> str:
    if hasattr(arg, "_custom_fx_repr_fn"):
        return arg._custom_fx_repr_fn()
    if isinstance(arg, list):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"[{items}{more}]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"({items}{',' if len(arg) == 1 else ''}{more})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


def _type_repr(obj) -> str:
    if isinstance(obj, type) and not isinstance(obj, _types.GenericAlias):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        module = obj.__module__
        if module == "leafgrad" or module.startswith("leafgrad."):
            module = "torch"  # (the classes torch publishes at its top: torch.Tensor)
        return f"{module}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if isinstance(obj, _types.FunctionType):
        return obj.__name__
    text = repr(obj)
    return text.replace("leafgrad.", "torch.") if getattr(obj, "__origin__", None) else text


class Node:
    """One instruction of a ``Graph`` (see the module doc)."""

    def __init__(self, graph, name: str, op: str, target, args: tuple, kwargs: dict,
                 return_type=None):
        if op not in _OPCODES:
            raise AssertionError(f"Expected op to be one of {_OPCODES}, got {op}")
        if op in ("call_function",) and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target)} but a Callable is expected")
        if op in ("placeholder", "call_method", "call_module", "get_attr") and \
                not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict = {}
        self.users: dict = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self._sort_key = ()
        self._repr_fn = None
        self.meta: dict = {}
        self._args: tuple = ()
        self._kwargs: dict = immutable_dict()
        self._update_args_kwargs(args, kwargs)

    # -- position in the graph's list -----------------------------------------------------------
    @property
    def next(self) -> "Node":
        return self._next

    @property
    def prev(self) -> "Node":
        return self._prev

    def prepend(self, x: "Node") -> None:
        """Put ``x`` just before this node (moving it if it is in the list already)."""
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if self is x:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: "Node") -> None:
        """Put ``x`` just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        p, n = self._prev, self._next  # (its own links stay: an iteration on it goes on)
        p._next, n._prev = n, p

    def __gt__(self, other: "Node") -> bool:
        return self._position() > other._position()

    def __lt__(self, other: "Node") -> bool:
        return self._position() < other._position()

    def __ge__(self, other):
        return self > other or self == other

    def __le__(self, other):
        return self < other or self == other

    def _position(self) -> int:
        for i, node in enumerate(self.graph.nodes):
            if node is self:
                return i
        return -1

    # -- arguments ------------------------------------------------------------------------------
    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, a) -> None:
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k) -> None:
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list:
        return list(self._input_nodes)

    def update_arg(self, idx: int, arg) -> None:
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg) -> None:
        self.args = self.args[:idx] + (arg,) + self.args[idx:]

    def update_kwarg(self, key: str, arg) -> None:
        self.kwargs = {**self.kwargs, key: arg}

    def _update_args_kwargs(self, new_args, new_kwargs) -> None:
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._args = map_aggregate(tuple(new_args), lambda x: x)
        self._kwargs = map_aggregate(dict(new_kwargs), lambda x: x)
        self._input_nodes = _input_nodes(self._args, self._kwargs)
        for new in self._input_nodes:
            new.users.setdefault(self)

    def replace_all_uses_with(self, replace_with: "Node", delete_user_cb=None, *,
                              propagate_meta: bool = False) -> list:
        """Make every user of this node use ``replace_with`` instead (those for which
        ``delete_user_cb`` is true, when given); the users changed."""
        if propagate_meta:
            if len(replace_with.meta) != 0:
                raise AssertionError(
                    "Called node.replace_all_uses_with(replace_with, propagate_meta=True), "
                    "but replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if delete_user_cb is not None and not delete_user_cb(user):
                continue
            changed.append(user)
            user.replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old_input: "Node", new_input: "Node") -> None:
        swap = (lambda n: new_input if n is old_input else n)
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    _replace_input_with = replace_input_with

    # -- properties -----------------------------------------------------------------------------
    @property
    def stack_trace(self):
        return self.meta.get("stack_trace", None)

    @stack_trace.setter
    def stack_trace(self, trace) -> None:
        self.meta["stack_trace"] = trace

    def is_impure(self, impure_random: bool = True) -> bool:
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions()
        if self.op == "call_module":
            module = self.graph.owning_module.get_submodule(self.target)
            return getattr(module, "_is_impure", False)
        if self.op == "call_method":
            return isinstance(self.target, str) and self.target.endswith("_") and \
                not self.target.endswith("__")
        return False

    def normalized_arguments(self, *args, **kwargs):
        return None

    def __repr__(self) -> str:
        if self._repr_fn:
            return self._repr_fn(self)
        return self.name

    @staticmethod
    def _pretty_print_target(target) -> str:
        if isinstance(target, str):
            return target
        if hasattr(target, "__module__"):
            name = getattr(target, "__name__", None)
            if name is None:
                return _get_qualified_name(target)
            if target.__module__ == "builtins":
                return f"builtins.{name}"
            if target.__module__ == "_operator":
                return f"operator.{name}"
        return _get_qualified_name(target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None, *,
                    include_tensor_metadata: bool = False):
        """The node as ``Graph.__str__`` prints it (``%name : [num_users=n] = op[target=...]
        (args = ..., kwargs = ...)``)."""
        typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        if self.op == "placeholder":
            if placeholder_names:
                placeholder_names.append(self.target)
                return None
            default = "(default=" + str(self.args[0]) + ")" if self.args else ""
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self.target}]{default}")
        if self.op == "get_attr":
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self._pretty_print_target(self.target)}]")
        if self.op == "output":
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                f"{self.op}[target={self._pretty_print_target(self.target)}]("
                f"args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)


def _side_effectful_functions() -> set:
    from . import proxy

    return {proxy._assert_is_none, operator.setitem, __import__("builtins").print} | \
        set(_SIDE_EFFECTS)


_SIDE_EFFECTS: list = []


def has_side_effect(fn):
    """Mark ``fn`` as side-effectful: dead-code elimination keeps its nodes."""
    _SIDE_EFFECTS.append(fn)
    return fn
