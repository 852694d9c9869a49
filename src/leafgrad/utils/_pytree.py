"""``torch.utils._pytree``: nested containers as leaves plus a structure (a ``TreeSpec``).

Libraries written for torch flatten and rebuild arguments with it and register their own
container types (``register_pytree_node``); leafgrad's torch.func transforms accept registered
types too (func/_pytree.py asks this registry). Containers known from the start: tuple, list,
dict, namedtuples, OrderedDict, defaultdict, deque and torch's structseq return types
(``torch.max(x, 0)``). Anything else is a leaf, None included.
"""

from __future__ import annotations

import dataclasses
import json
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

__all__ = ["PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext",
           "ToDumpableContextFn", "FromDumpableContextFn", "PyTreeSpec", "TreeSpec", "LeafSpec",
           "keystr", "key_get", "register_pytree_node", "tree_is_leaf", "tree_flatten",
           "tree_flatten_with_path", "tree_unflatten", "tree_iter", "tree_leaves",
           "tree_leaves_with_path", "tree_structure", "tree_map", "tree_map_with_path",
           "tree_map_", "tree_map_only", "tree_map_only_", "tree_all", "tree_any",
           "tree_all_only", "tree_any_only", "treespec_dumps", "treespec_loads",
           "treespec_pprint", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
           "is_structseq", "is_structseq_class", "is_structseq_instance", "SequenceKey",
           "MappingKey", "GetAttrKey"]

PyTree = Any
Context = Any
FlattenFn = Callable[[PyTree], "tuple[list, Context]"]
UnflattenFn = Callable[[Iterable, Context], PyTree]
DumpableContext = Any
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
_PROTOCOL = 1


# -- key paths -------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """A key path as text: ``['a'][0].x``."""
    return "".join(str(key) for key in kp)


def key_get(obj, kp):
    """The value at key path ``kp`` in ``obj``."""
    for key in kp:
        obj = key.get(obj)
    return obj


# -- the registry ----------------------------------------------------------------------------------
class _Node(NamedTuple):
    type: type
    flatten: Callable
    unflatten: Callable
    flatten_with_keys: Callable | None
    serialized_name: str | None
    to_dumpable: Callable | None
    from_dumpable: Callable | None


_NODES: dict = {}
_BY_NAME: dict = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None) -> None:
    """Make ``cls`` a container: ``flatten_fn(x) -> (children, context)`` and
    ``unflatten_fn(children, context) -> x``."""
    if cls in _NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError("Both to_dumpable_context and from_dumpable_context must be None or "
                         "registered.")
    _NODES[cls] = _Node(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn,
                        serialized_type_name, to_dumpable_context, from_dumpable_context)
    if serialized_type_name is not None:
        _BY_NAME[serialized_type_name] = _NODES[cls]


def is_namedtuple_class(cls) -> bool:
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and callable(getattr(cls, "_make", None)))


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj) -> bool:
    """A namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls) -> bool:
    """torch's structseq return types (``torch.return_types.max``): tuples with field counts."""
    return (isinstance(cls, type) and issubclass(cls, tuple) and not is_namedtuple_class(cls)
            and isinstance(getattr(cls, "n_fields", None), int))


def is_structseq_instance(obj) -> bool:
    return is_structseq_class(type(obj))


def is_structseq(obj) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _node_type(tree):
    kind = type(tree)
    if kind in _NODES:
        return kind
    if is_namedtuple_class(kind):
        return namedtuple
    if is_structseq_class(kind):
        _register_structseq(kind)
    return kind


def _register_structseq(kind) -> None:
    """A return type (``torch.return_types.max``) is its own node, as torch registers each."""
    register_pytree_node(
        kind, lambda t: (list(t), None), lambda values, _: kind(values),
        flatten_with_keys_fn=lambda t: ([(SequenceKey(i), v) for i, v in enumerate(t)], None))


def _field_names(cls):
    if is_namedtuple_class(cls):
        return cls._fields
    return tuple(name for name in dir(cls) if not name.startswith(("_", "n_"))
                 and isinstance(getattr(cls, name, None), property))


def _register_builtins() -> None:
    register_pytree_node(
        tuple, lambda t: (list(t), None), lambda values, _: tuple(values),
        serialized_type_name="builtins.tuple",
        flatten_with_keys_fn=lambda t: ([(SequenceKey(i), v) for i, v in enumerate(t)], None))
    register_pytree_node(
        list, lambda t: (list(t), None), lambda values, _: list(values),
        serialized_type_name="builtins.list",
        flatten_with_keys_fn=lambda t: ([(SequenceKey(i), v) for i, v in enumerate(t)], None))
    register_pytree_node(
        dict, lambda d: (list(d.values()), list(d.keys())),
        lambda values, keys: dict(zip(keys, values)), serialized_type_name="builtins.dict",
        flatten_with_keys_fn=lambda d: ([(MappingKey(k), v) for k, v in d.items()],
                                        list(d.keys())))
    register_pytree_node(
        namedtuple, lambda t: (list(t), type(t)), lambda values, cls: cls(*values),
        serialized_type_name="collections.namedtuple",
        flatten_with_keys_fn=lambda t: ([(GetAttrKey(f), v) for f, v in zip(t._fields, t)],
                                        type(t)))
    register_pytree_node(
        OrderedDict, lambda d: (list(d.values()), list(d.keys())),
        lambda values, keys: OrderedDict(zip(keys, values)),
        serialized_type_name="collections.OrderedDict",
        flatten_with_keys_fn=lambda d: ([(MappingKey(k), v) for k, v in d.items()],
                                        list(d.keys())))
    register_pytree_node(
        defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
        lambda values, context: defaultdict(context[0], zip(context[1], values)),
        serialized_type_name="collections.defaultdict",
        to_dumpable_context=_defaultdict_dumpable, from_dumpable_context=_defaultdict_loaded,
        flatten_with_keys_fn=lambda d: ([(MappingKey(k), v) for k, v in d.items()],
                                        [d.default_factory, list(d.keys())]))
    register_pytree_node(
        deque, lambda d: (list(d), d.maxlen), lambda values, maxlen: deque(values, maxlen),
        serialized_type_name="collections.deque",
        flatten_with_keys_fn=lambda d: ([(SequenceKey(i), v) for i, v in enumerate(d)],
                                        d.maxlen))


def _defaultdict_dumpable(context):
    factory, keys = context
    return {"default_factory_module": factory.__module__,
            "default_factory_name": factory.__qualname__, "dict_context": keys}


def _defaultdict_loaded(dumpable):
    import importlib

    module = importlib.import_module(dumpable["default_factory_module"])
    return [getattr(module, dumpable["default_factory_name"]), dumpable["dict_context"]]


_register_builtins()
_DICTS = frozenset({dict, OrderedDict, defaultdict})
_BUILTIN = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})


# -- TreeSpec --------------------------------------------------------------------------------------
class TreeSpec:
    """A tree's structure: its node type, that node's context (dict keys, a namedtuple's class,
    ...) and a spec per child; a leaf's spec has type None and no children."""

    def __init__(self, type, context, children_specs) -> None:  # noqa: A002 - torch's name
        self.type = type
        self.context = context
        self._children = list(children_specs)
        self.num_nodes = 1 + sum(child.num_nodes for child in self._children)
        self.num_leaves = (1 if type is None else
                           sum(child.num_leaves for child in self._children))
        self.num_children = len(self._children)

    @property
    def children_specs(self) -> list:
        return self._children

    def is_leaf(self) -> bool:
        return self.type is None

    def children(self) -> list:
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def __eq__(self, other) -> bool:
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type is other.type and self.context == other.context
                and self._children == other._children)

    def __hash__(self) -> int:
        return hash((self.type, self.num_nodes, self.num_leaves))

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        text = ""
        if self._children:
            indent += 2
            text = self._children[0].__repr__(indent)
            if len(self._children) > 1:
                text += "," + ",".join("\n" + " " * indent + child.__repr__(indent)
                                       for child in self._children[1:])
        return f"TreeSpec({self.type.__name__}, {self.context}, [{text}])"

    __str__ = __repr__

    def unflatten(self, leaves: Iterable):
        """The tree of this structure holding ``leaves``."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec "
                f"refers to a pytree that holds {self.num_leaves} items ({self}).")
        return self._build(iter(leaves))

    def _build(self, leaves):
        if self.is_leaf():
            return next(leaves)
        values = [child._build(leaves) for child in self._children]
        return _NODES[self.type].unflatten(values, self.context)

    def flatten_up_to(self, tree) -> list:
        """The subtrees of ``tree`` at this structure's leaves (``tree`` has at least this
        structure)."""
        out: list = []
        self._up_to(tree, out)
        return out

    def _up_to(self, tree, out: list) -> None:
        if self.is_leaf():
            out.append(tree)
            return
        kind = _node_type(tree)
        if self.type not in _BUILTIN:  # a registered type must match exactly
            if kind is not self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {kind!r}.")
            children, context = _NODES[kind].flatten(tree)
            self._check_arity(len(children))
            if context != self.context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            dicts = self.type in _DICTS and kind in _DICTS  # interchangeable with each other
            if not dicts and kind is not self.type:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got "
                                 f"{kind!r}.")
            self._check_arity(len(tree))
            if dicts:
                wanted = self.context if self.type is not defaultdict else self.context[1]
                if set(tree) != set(wanted):
                    missing, extra = set(wanted) - set(tree), set(tree) - set(wanted)
                    message = (f"; missing key(s): {missing}" if missing else "") + (
                        f"; extra key(s): {extra}" if extra else "")
                    raise ValueError(f"Node keys mismatch{message}.")
                children = [tree[key] for key in wanted]
            else:
                children, context = _NODES[kind].flatten(tree)
                if kind is not deque and context != self.context:  # (a deque's maxlen may
                    raise ValueError(  # differ)
                        f"Node context mismatch for node type {self.type!r}; expected "
                        f"{self.context!r}, but got {context!r}.")
        for child, subtree in zip(self._children, children):
            child._up_to(subtree, out)

    def _check_arity(self, count: int) -> None:
        if count != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                             f"{count}.")


class LeafSpec(TreeSpec):
    """The structure of a leaf (``*``)."""

    def __init__(self) -> None:
        super().__init__(None, None, [])


PyTreeSpec = TreeSpec
_LEAF = LeafSpec()


# -- flattening ------------------------------------------------------------------------------------
def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether ``tree`` is a leaf: not a registered container, or ``is_leaf(tree)``."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in _NODES


def _flatten_into(tree, leaves: list, is_leaf) -> TreeSpec:
    if tree_is_leaf(tree, is_leaf):
        leaves.append(tree)
        return _LEAF
    kind = _node_type(tree)
    children, context = _NODES[kind].flatten(tree)
    return TreeSpec(kind, context, [_flatten_into(child, leaves, is_leaf) for child in children])


def tree_flatten(tree, is_leaf=None):
    """``(leaves, treespec)``: the leaves in order and the structure."""
    leaves: list = []
    return leaves, _flatten_into(tree, leaves, is_leaf)


def tree_unflatten(leaves, treespec: TreeSpec):
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of "
                        f"type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves, one at a time."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = _NODES[_node_type(tree)].flatten(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def _keyed_children(tree):
    node = _NODES[_node_type(tree)]
    if node.flatten_with_keys is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node.type}. Please "
                         "pass a flatten_with_keys_fn argument to register_pytree_node.")
    return node.flatten_with_keys(tree)


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(key_path, leaf), ...], treespec)``."""
    pairs: list = []

    def walk(node, path):
        if tree_is_leaf(node, is_leaf):
            pairs.append((path, node))
            return
        keyed, _ = _keyed_children(node)
        for key, child in keyed:
            walk(child, (*path, key))

    walk(tree, ())
    return pairs, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    return tree_flatten_with_path(tree, is_leaf)[0]


# -- mapping ---------------------------------------------------------------------------------------
def tree_map(func, tree, *rests, is_leaf=None):
    """A tree of ``tree``'s structure holding ``func(leaf, *matching leaves of rests)``."""
    leaves, treespec = tree_flatten(tree, is_leaf)
    others = [treespec.flatten_up_to(rest) for rest in rests]
    return treespec.unflatten(map(func, leaves, *others))


def tree_map_(func, tree, *rests, is_leaf=None):
    """``func`` on every leaf, for its effect; returns ``tree``."""
    leaves, treespec = tree_flatten(tree, is_leaf)
    others = [treespec.flatten_up_to(rest) for rest in rests]
    for args in zip(leaves, *others):
        func(*args)
    return tree


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """``func(key_path, leaf, *others)`` for every leaf."""
    pairs, treespec = tree_flatten_with_path(tree, is_leaf)
    others = [treespec.flatten_up_to(rest) for rest in rests]
    paths = [path for path, _ in pairs]
    leaves = [leaf for _, leaf in pairs]
    return treespec.unflatten(func(*args) for args in zip(paths, leaves, *others))


def _only(type_or_types_or_pred, func):
    """``func`` applied to the leaves the first argument selects (a type, a tuple of types or
    a predicate); the others pass through."""
    if isinstance(type_or_types_or_pred, (type, tuple)):
        kinds = type_or_types_or_pred

        def select(leaf):
            return isinstance(leaf, kinds)
    elif callable(type_or_types_or_pred):
        select = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapped(leaf):
        return func(leaf) if select(leaf) else leaf

    return wrapped, select


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map(_only(type_or_types_or_pred, func)[0], tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map_(_only(type_or_types_or_pred, func)[0], tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    select = _only(type_or_types, pred)[1]
    return all(pred(leaf) for leaf in tree_iter(tree, is_leaf) if select(leaf))


def tree_any_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    select = _only(type_or_types, pred)[1]
    return any(pred(leaf) for leaf in tree_iter(tree, is_leaf) if select(leaf))


# -- text and serialisation ------------------------------------------------------------------------
class _Star:
    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The structure written as its containers' repr with ``*`` for leaves:
    ``{'a': [*, (*,)]}``."""
    return repr(treespec.unflatten([_Star()] * treespec.num_leaves))


def _to_json(treespec: TreeSpec) -> dict:
    if treespec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    node = _NODES[treespec.type]
    if node.serialized_name is None:
        raise NotImplementedError(
            f"No registered serialization name for {treespec.type} found. Please update your "
            "_register_pytree_node call with a `serialized_type_name` kwarg.")
    if treespec.type is namedtuple:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {treespec.context} because we "
            "didn't register a serializated_type_name. Please register using "
            "`_register_namedtuple`.")
    if node.to_dumpable is not None:
        context = node.to_dumpable(treespec.context)
    else:
        try:
            context = json.dumps(treespec.context)
        except TypeError as error:
            raise TypeError("Unable to serialize context. Please make the context json dump-able,"
                            " or register a custom serializer using _register_pytree_node.") \
                from error
    return {"type": node.serialized_name, "context": context,
            "children_spec": [_to_json(child) for child in treespec.children_specs]}


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """The structure as a JSON string (protocol 1, torch's layout)."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"treespec_dumps(treespec, protocol): Expected `treespec` to be instance "
                        f"of PyTreeSpec but got item of type {type(treespec)}.")
    if protocol is None:
        protocol = _PROTOCOL
    if protocol != _PROTOCOL:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [{_PROTOCOL}]")
    return json.dumps([protocol, _to_json(treespec)])


def _from_json(data: dict) -> TreeSpec:
    if data["type"] is None:
        return LeafSpec()
    node = _BY_NAME.get(data["type"])
    if node is None:
        raise NotImplementedError(f"Deserializing {data['type']} in pytree is not registered.")
    if node.from_dumpable is not None:
        context = node.from_dumpable(data["context"])
    else:
        context = json.loads(data["context"])
    return TreeSpec(node.type, context, [_from_json(child) for child in data["children_spec"]])


def treespec_loads(serialized: str) -> TreeSpec:
    protocol, data = json.loads(serialized)
    if protocol != _PROTOCOL:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [{_PROTOCOL}]")
    return _from_json(data)
