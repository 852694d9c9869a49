"""``torch.utils._pytree`` compared with torch: flattening every built-in container (tuple,
list, dict, namedtuple, OrderedDict, defaultdict, deque, return types, None as a leaf), specs'
text and counts, key paths, tree_map and its mismatch errors, the *_only forms, JSON dumps and
loads, registered types, and registered types inside torch.func transforms."""

from __future__ import annotations

import collections

import leafgrad
import leafgrad.utils._pytree as lpytree

from .._torch import require_torch

torch = require_torch()
import torch.utils._pytree as tpytree  # noqa: E402

P = collections.namedtuple("P", "x y")
LIBS = ((torch, tpytree), (leafgrad, lpytree))


def _text(call):
    try:
        return repr(call()).replace("leafgrad", "torch")
    except Exception as error:  # noqa: BLE001 - the type and message are compared
        return f"{type(error).__name__}: {str(error)[:300]}".replace("leafgrad", "torch")


def _trees(lib):
    return [None, 1, (1, [2, 3], {"b": 4, "a": 5}), P(1, [2]),
            collections.OrderedDict(a=1, b=(2,)), collections.defaultdict(list, a=1),
            collections.deque([1, 2], maxlen=3), [], {}, ((),), lib.max(lib.ones(2, 2), 0),
            {"a": [lib.ones(2), (lib.zeros(1), None)]}]


def _structure_outcomes(lib, p):
    out = []
    for tree in _trees(lib):
        leaves, spec = p.tree_flatten(tree)
        out.append(_text(lambda: (len(leaves), spec, str(spec), spec.num_leaves, spec.num_nodes,
                                  spec.num_children, spec.is_leaf(), p.treespec_pprint(spec))))
        out.append(_text(lambda: [(p.keystr(k), type(v).__name__)
                                  for k, v in p.tree_leaves_with_path(tree)]))
        out.append(_text(lambda: p.treespec_dumps(spec)))
        out.append(_text(lambda: p.treespec_loads(p.treespec_dumps(spec)) == spec))
        rebuilt = p.tree_unflatten(leaves, spec)
        out.append(_text(lambda: (type(rebuilt).__name__, p.tree_structure(rebuilt) == spec)))
    return out


def test_structures_match_torch():
    ours, theirs = (_structure_outcomes(lib, p) for lib, p in LIBS[::-1])
    assert ours == theirs


def _mapping_outcomes(lib, p):
    calls = [
        lambda: p.tree_map(lambda x, y: x + y, [1, 2], [3, 4]),
        lambda: p.tree_map(lambda x, y: x + y, [1, 2], [3]),
        lambda: p.tree_map(lambda x, y: x + y, [1, 2], (3, 4)),
        lambda: p.tree_map(lambda x, y: x + y, {"a": 1}, {"b": 1}),
        lambda: p.tree_map(lambda x, y: (x, y), [1, 2], [[3, 4], 5]),
        lambda: p.tree_map(lambda x, y: x + y, [1, [2]], [3, 4]),
        lambda: p.tree_map(lambda x, y: x + y, {"a": 1, "b": 2}, {"b": 10, "a": 20}),
        lambda: p.tree_map(lambda x: x * 2, P(1, [2])),
        lambda: p.tree_map(lambda x, y: x + y, P(1, 2), collections.namedtuple("Q", "x y")(1, 2)),
        lambda: p.tree_map(lambda x, y: x + y, {"a": 1}, collections.OrderedDict(a=2)),
        lambda: p.tree_map(lambda x, y: x + y, collections.deque([1], 2), collections.deque([1])),
        lambda: p.tree_map(lambda x, y: x + y, {"a": 1, "b": 2}, {"a": 1}),
        lambda: p.register_pytree_node(list, lambda x: (x, None), lambda x, c: x),
        lambda: p.tree_unflatten([1, 2], 3),
        lambda: p.tree_structure([1, 2]).unflatten([1]),
        lambda: p.tree_flatten([1, [2, 3]], is_leaf=lambda x: isinstance(x, list) and x[:1] == [2]),
        lambda: p.tree_structure({"b": 1, "a": 2}) == p.tree_structure({"a": 1, "b": 2}),
        lambda: p.tree_map_(lambda x: None, [1, 2]),
        lambda: p.tree_all_only(int, lambda x: x > 0, [1, "a", -1.0]),
        lambda: p.tree_any_only(float, lambda x: x > 0, [1, "a", -1.0]),
        lambda: p.tree_map_only((int, str), lambda x: x * 2, [1, "a", 2.0]),
        lambda: p.tree_map_only(lambda x: x == 1, lambda x: x * 2, [1, "a", 2.0]),
        lambda: p.tree_map_only_(int, lambda x: None, [1, "a"]),
        lambda: p.tree_map_with_path(lambda k, v: p.keystr(k) + str(v), {"a": [1, P(2, 3)]}),
        lambda: (p.tree_all(lambda x: x > 0, [1, 2]), p.tree_any(lambda x: x > 1, [1, 2])),
        lambda: (p.is_namedtuple(P), p.is_namedtuple(P(1, 2)), p.is_namedtuple((1,)),
                 p.is_structseq(lib.max(lib.ones(2, 2), 0)), p.is_namedtuple_instance(P),
                 p.is_structseq_class(tuple)),
        lambda: p.key_get({"a": [1, P(2, 3)]}, (p.MappingKey("a"), p.SequenceKey(1),
                                                p.GetAttrKey("y"))),
        lambda: list(p.tree_iter({"a": [1, 2], "b": (3,)})),
        lambda: (p.tree_is_leaf([1]), p.tree_is_leaf(None), p.tree_is_leaf("ab")),
        lambda: (p.LeafSpec(), p.tree_structure(3) == p.LeafSpec()),
        lambda: p.treespec_dumps(p.tree_structure(P(1, 2))),
        lambda: p.treespec_dumps(p.tree_structure([1]), protocol=2),
    ]
    return [_text(call) for call in calls]


def test_mapping_and_errors_match_torch():
    ours, theirs = (_mapping_outcomes(lib, p) for lib, p in LIBS[::-1])
    assert ours == theirs


def test_registered_types():
    seen = []
    for lib, p in LIBS:
        class Box:
            def __init__(self, a, b):
                self.a, self.b = a, b

            def __repr__(self):
                return f"Box({self.a!r}, {self.b!r})"

        class Plain(Box):
            pass

        p.register_pytree_node(Box, lambda b: ([b.a, b.b], "ctx"), lambda v, c: Box(*v),
                               serialized_type_name="tests.Box",
                               flatten_with_keys_fn=lambda b: ([(p.GetAttrKey("a"), b.a),
                                                                (p.GetAttrKey("b"), b.b)], "ctx"))
        p.register_pytree_node(Plain, lambda b: ([b.a, b.b], None), lambda v, c: Plain(*v))
        calls = [lambda: p.tree_flatten([Box(1, (2, 3))]),
                 lambda: p.tree_map(lambda x: x * 10, Box(1, [2])),
                 lambda: p.tree_leaves_with_path(Box(1, 2)),
                 lambda: p.tree_leaves_with_path(Plain(1, 2)),
                 lambda: p.treespec_dumps(p.tree_structure(Box(1, 2))),
                 lambda: p.treespec_loads(p.treespec_dumps(p.tree_structure(Box(1, [2])))),
                 lambda: p.treespec_dumps(p.tree_structure(Plain(1, 2))),
                 lambda: p.treespec_pprint(p.tree_structure(Box(1, [2]))),
                 lambda: p.tree_map(lambda x, y: x + y, Box(1, 2), Box(3, 4)),
                 lambda: p.tree_map(lambda x, y: x + y, Box(1, 2), Plain(3, 4)),
                 lambda: p.register_pytree_node(Box, lambda b: ([], None), lambda v, c: None)]
        seen.append([_text(call).replace(".<locals>", "") for call in calls])
    assert seen[0] == seen[1]


def test_registered_types_in_func_transforms():
    seen = []
    for lib, p in LIBS:
        class Pair:
            def __init__(self, a, b):
                self.a, self.b = a, b

        p.register_pytree_node(Pair, lambda q: ([q.a, q.b], None), lambda v, c: Pair(*v))
        x, y = lib.arange(6.0).reshape(2, 3), lib.ones(3)
        batched = lib.func.vmap(lambda q: Pair(q.a * q.b, q.a.sum()),
                                in_dims=(Pair(0, None),))(Pair(x, y))
        gradient = lib.func.grad(lambda q: (q.a * q.b).sum())(Pair(lib.ones(3), lib.arange(3.0)))
        mismatch = _text(lambda: lib.func.vmap(lambda q: q.a, in_dims=([0],))(Pair(x, y)))
        seen.append((batched.a.tolist(), batched.b.tolist(), type(gradient).__name__,
                     gradient.a.tolist(), gradient.b.tolist(), mismatch.split(" has structure")[0]))
    assert seen[0] == seen[1]
