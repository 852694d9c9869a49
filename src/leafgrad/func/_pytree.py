"""The nested containers torch.func accepts (tuples, lists, dicts, namedtuples, and types
registered with ``torch.utils._pytree.register_pytree_node``): flatten, rebuild, and torch's
``TreeSpec`` text for error messages."""

from __future__ import annotations

import sys
from collections import OrderedDict

__all__ = ["flatten", "unflatten", "Spec", "broadcast_prefix"]


class Spec:
    """The structure of a tree: its type, keys (dicts) and children; a leaf has type None."""

    __slots__ = ("kind", "context", "children")

    def __init__(self, kind, context, children):
        self.kind = kind
        self.context = context
        self.children = children

    @property
    def is_leaf(self) -> bool:
        return self.kind is None

    def leaves(self) -> int:
        return 1 if self.is_leaf else sum(child.leaves() for child in self.children)

    def same_structure(self, other: "Spec") -> bool:
        if self.is_leaf or other.is_leaf:
            return self.is_leaf and other.is_leaf
        return (self.kind is other.kind and self.context == other.context
                and len(self.children) == len(other.children)
                and all(a.same_structure(b) for a, b in zip(self.children, other.children)))

    def text(self, depth: int = 1) -> str:
        if self.is_leaf:
            return "*"
        joiner = ",\n" + "  " * depth
        children = joiner.join(child.text(depth + 1) for child in self.children)
        context = "None" if self.context is None else repr(self.context)
        return f"TreeSpec({self.kind.__name__}, {context}, [{children}])"

    def __repr__(self) -> str:
        return self.text()

    def pprint(self) -> str:
        """torch's ``treespec_pprint``: the tree written as Python with ``*`` for leaves
        (``{'a': *, 'b': [*, *]}``), used by vjp's structure error."""
        if self.is_leaf:
            return "*"
        children = [child.pprint() for child in self.children]
        if self.kind is dict:
            return "{" + ", ".join(f"{key!r}: {child}" for key, child in
                                   zip(self.context, children)) + "}"
        if self.kind is OrderedDict:
            return "OrderedDict([" + ", ".join(f"({key!r}, {child})" for key, child in
                                               zip(self.context, children)) + "])"
        if self.kind is list:
            return "[" + ", ".join(children) + "]"
        if self.kind is tuple:
            return "(" + ", ".join(children) + ("," if len(children) == 1 else "") + ")"
        if self.context is None or not _is_namedtuple_class(self.kind):
            # a return_types structseq or a type registered with utils._pytree
            return self.kind.__name__ + "(" + ", ".join(children) + ")"
        # a namedtuple
        return self.kind.__name__ + "(" + ", ".join(
            f"{field}={child}" for field, child in zip(self.context, children)) + ")"


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _is_namedtuple_class(kind) -> bool:
    return isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")


def _registered(kind):
    """The registration of a container type registered through ``leafgrad.utils._pytree``
    (None when that module is not loaded: nothing can have been registered)."""
    registry = sys.modules.get("leafgrad.utils._pytree")
    if registry is None:
        return None
    node = registry._NODES.get(kind)
    if node is None and registry.is_structseq_class(kind):  # torch.max(x, 0)'s result
        registry._register_structseq(kind)
        node = registry._NODES[kind]
    return node


def _is_structseq(value) -> bool:
    """A ``return_types`` result (``x.max(0)``): a node of torch's pytrees too, rebuilt from
    one sequence."""
    return isinstance(value, tuple) and hasattr(type(value), "n_sequence_fields")


def flatten(tree) -> tuple[list, Spec]:
    """The leaves in order and the structure."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves: list) -> Spec:
    if isinstance(tree, (tuple, list)) and (type(tree) in (tuple, list) or _is_namedtuple(tree)
                                            or _is_structseq(tree)):
        children = [_flatten(item, leaves) for item in tree]
        context = list(type(tree)._fields) if _is_namedtuple(tree) else None
        return Spec(type(tree), context, children)
    if type(tree) in (dict, OrderedDict):
        keys = list(tree.keys())
        children = [_flatten(tree[key], leaves) for key in keys]
        return Spec(type(tree), keys, children)
    node = _registered(type(tree))
    if node is not None:
        values, context = node.flatten(tree)
        return Spec(type(tree), context, [_flatten(value, leaves) for value in values])
    leaves.append(tree)
    return Spec(None, None, None)


def unflatten(leaves, spec: Spec):
    iterator = iter(leaves)
    return _build(iterator, spec)


def _build(iterator, spec: Spec):
    if spec.is_leaf:
        return next(iterator)
    items = [_build(iterator, child) for child in spec.children]
    if spec.kind in (dict, OrderedDict):
        return spec.kind(zip(spec.context, items))
    if spec.kind not in (tuple, list) and not _is_namedtuple_class(spec.kind):
        return _registered(spec.kind).unflatten(items, spec.context)
    if spec.context is not None:  # namedtuple
        return spec.kind(*items)
    return spec.kind(items)


def broadcast_prefix(prefix, tree_spec: Spec):
    """``prefix`` (a tree whose leaves apply to whole subtrees of the tree) expanded to one
    value per leaf of the tree; None when the structures do not match."""
    out: list = []
    if not _broadcast(prefix, tree_spec, out):
        return None
    return out


def _broadcast(prefix, spec: Spec, out: list) -> bool:
    prefix_leaves, prefix_spec = flatten(prefix)
    if prefix_spec.is_leaf:
        out.extend([prefix] * spec.leaves())
        return True
    if spec.is_leaf:
        return False
    if prefix_spec.kind is not spec.kind or len(prefix_spec.children) != len(spec.children):
        return False
    if spec.kind in (dict, OrderedDict):
        if set(prefix.keys()) != set(spec.context):
            return False
        items = [prefix[key] for key in spec.context]
    elif spec.kind in (tuple, list) or _is_namedtuple_class(spec.kind):
        items = list(prefix)
    else:
        items = _registered(spec.kind).flatten(prefix)[0]
    return all(_broadcast(item, child, out) for item, child in zip(items, spec.children))
