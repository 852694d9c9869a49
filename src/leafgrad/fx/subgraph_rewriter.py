"""``torch.fx.subgraph_rewriter``: ``replace_pattern`` finds each (non-overlapping) copy of a
pattern's graph in a GraphModule's graph and puts the replacement's graph in its place.

Matching follows torch's SubgraphMatcher: the pattern's output inputs are the anchors, a node
matches a node of the same opcode and target whose arguments match in turn (a pattern
placeholder matches anything, literals match by type and value), and a match whose inner
nodes are used outside it is dropped."""

from __future__ import annotations

import copy
from typing import NamedTuple

from .graph import Graph
from .graph_module import GraphModule
from .node import Node

__all__ = ["Match", "ReplacedPatterns", "replace_pattern"]


class Match(NamedTuple):
    anchor: Node
    nodes_map: dict


class ReplacedPatterns(NamedTuple):
    anchor: Node
    nodes_map: dict
    replacements: list


class _InternalMatch:
    def __init__(self, anchors):
        self.anchors = anchors
        self.nodes_map: dict = {}
        self.placeholder_nodes: list = []
        self.returning_nodes: list = []

    def __copy__(self):
        result = _InternalMatch(self.anchors)
        result.nodes_map = dict(self.nodes_map)
        result.placeholder_nodes = list(self.placeholder_nodes)
        result.returning_nodes = list(self.returning_nodes)
        return result


class _SubgraphMatcher:
    def __init__(self, pattern: Graph):
        self.pattern = pattern
        self.pattern_placeholder_nodes = [n for n in pattern.nodes if n.op == "placeholder"]
        output_node = next(iter(reversed(pattern.nodes)))
        self.pattern_returning_nodes = output_node.all_input_nodes
        # a node whose only user is the output is a sink of the pattern: an anchor
        self.pattern_anchors = [n for n in output_node.all_input_nodes if len(n.users) == 1]

    def _nodes_are_equal(self, pn: Node, gn: Node) -> bool:
        if pn.op == "placeholder":
            return True  # (a wildcard)
        if pn.op != gn.op:
            return False
        if pn.op in ("placeholder", "output"):
            return True
        if pn.op == "get_attr":
            return self._match_attributes(pn, gn)
        return pn.target == gn.target

    @staticmethod
    def _match_attributes(pn: Node, gn: Node) -> bool:
        from ..tensor import Tensor

        def fetch(module, target):
            for atom in target.split("."):
                module = getattr(module, atom)
            return module

        pv = fetch(pn.graph.owning_module, pn.target)
        gv = fetch(gn.graph.owning_module, gn.target)
        if type(pv) is not type(gv):
            return False
        if isinstance(pv, Tensor):
            return isinstance(gv, Tensor)
        raise RuntimeError(f"Unsupported type {pv} when matching attributes")

    @staticmethod
    def _match_literals(pn, gn, match: _InternalMatch) -> bool:
        if isinstance(pn, Node) and not isinstance(gn, Node):
            if pn.op == "placeholder":
                if pn in match.nodes_map:
                    return match.nodes_map[pn] == gn
                match.nodes_map[pn] = gn
                return True
            return False
        if not isinstance(pn, Node) and isinstance(gn, Node):
            return False
        return type(gn) is type(pn) and gn == pn

    def _match_nodes(self, pn: Node, gn: Node, match: _InternalMatch) -> bool:
        if pn in match.nodes_map:
            return match.nodes_map[pn] is gn
        if any(gn is value for value in match.nodes_map.values()):
            return False
        if not self._nodes_are_equal(pn, gn):
            return False
        match.nodes_map[pn] = gn  # (optimistically; torch does not take it back on failure)
        if pn.op == "placeholder":
            return True

        def match_args(args1, args2) -> bool:
            if len(args1) != len(args2):
                return False
            for a1, a2 in zip(args1, args2):
                if isinstance(a1, Node) and isinstance(a2, Node):
                    matched = self._match_nodes(a1, a2, match)
                elif isinstance(a1, (list, tuple)) and isinstance(a2, (list, tuple)):
                    matched = match_args(a1, a2)
                else:
                    matched = self._match_literals(a1, a2, match)
                if not matched:
                    return False
            return True

        pn_args = list(pn.args) + list(pn.kwargs.values())
        gn_args = list(gn.args) + list(gn.kwargs.values())
        return len(pn_args) == len(gn_args) and match_args(pn_args, gn_args)

    def _is_contained(self, nodes_map: dict) -> bool:
        lookup = {gn: pn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        for gn, pn in lookup.items():
            if pn in self.pattern_returning_nodes:
                continue
            for user in gn.users:
                if user not in lookup:
                    return False
        return True

    def match(self, graph: Graph) -> list:
        candidates: dict = {}
        for anchor in self.pattern_anchors:
            for node in graph.nodes:
                if self._nodes_are_equal(anchor, node):
                    candidates.setdefault(anchor, []).append(node)
        candidate_list = list(candidates.items())
        matches: list = []

        def backtrack(index: int, match: _InternalMatch) -> None:
            if index == len(candidate_list):
                match.placeholder_nodes = [match.nodes_map[pn]
                                           for pn in self.pattern_placeholder_nodes]
                match.returning_nodes = [match.nodes_map[pn]
                                         for pn in self.pattern_returning_nodes]
                matches.append(match)
                return
            anchor, nodes = candidate_list[index]
            saved = copy.copy(match)
            for node in nodes:
                if self._match_nodes(anchor, node, match):
                    backtrack(index + 1, match)
                match = copy.copy(saved)

        if candidate_list:
            backtrack(0, _InternalMatch(self.pattern_anchors))
        matches = [m for m in matches if self._is_contained(m.nodes_map)]
        kept: list = []
        taken: set = set()
        for m in matches:  # (the first of overlapping matches wins)
            inner = [gn for pn, gn in m.nodes_map.items() if pn.op not in ("placeholder",
                                                                           "output")]
            if any(gn in taken for gn in inner):
                continue
            kept.append(m)
            taken.update(inner)
        return kept


def _graph_of(value) -> Graph:
    from ._symbolic_trace import symbolic_trace

    if isinstance(value, GraphModule):
        return value.graph
    if isinstance(value, Graph):
        return value
    return symbolic_trace(value).graph


def replace_pattern(gm: GraphModule, pattern, replacement) -> list:
    """Replace every match of ``pattern`` (a function, module, GraphModule or Graph) in
    ``gm.graph`` with ``replacement``; recompiles ``gm`` and returns the ``Match``es."""
    from ..nn.modules.module import Module

    original_graph = gm.graph
    pattern_graph = _graph_of(pattern)
    replacement_graph = _graph_of(replacement)
    matches = _SubgraphMatcher(pattern_graph).match(original_graph)
    replacement_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    changed: dict = {}
    results = []
    for match in matches:
        if len(match.placeholder_nodes) != len(replacement_placeholders):
            raise AssertionError("pattern and replacement take different numbers of inputs")
        val_map: dict = {}
        for rn, gn in zip(replacement_placeholders, match.placeholder_nodes):
            if isinstance(gn, Node):
                val_map[rn] = changed.get(gn, gn)
                if gn is not val_map[rn]:
                    for pn, mapped in list(match.nodes_map.items()):
                        if mapped is gn:
                            match.nodes_map[pn] = val_map[rn]
            else:
                val_map[rn] = gn
        users: set = set()
        for n in match.returning_nodes:
            users.update(n.users)
        if len(users) == 1:
            first_user = next(iter(users))
        else:
            first_user = next(n for n in original_graph.nodes if n in users)
        with original_graph.inserting_before(first_user):
            copied = original_graph.graph_copy(replacement_graph, val_map)
        if isinstance(copied, Node):
            copied = (copied,)
        replacements = [v for v in val_map.values() if v not in match.placeholder_nodes]
        for gn, new in zip(match.returning_nodes, copied):
            gn.replace_all_uses_with(new)
            changed[gn] = new
        for node in reversed(pattern_graph.nodes):
            if node.op not in ("placeholder", "output"):
                original_graph.erase_node(match.nodes_map[node])
        results.append(ReplacedPatterns(match.anchors[0], match.nodes_map, replacements))
    gm.recompile()
    if isinstance(replacement, Module):
        _replace_attributes(gm, replacement)
    return [Match(anchor=m.anchor, nodes_map=m.nodes_map) for m in results]


def _replace_attributes(gm: GraphModule, replacement) -> None:
    gm.delete_all_unused_submodules()
    if isinstance(replacement, GraphModule):
        replacement.graph.lint()
    for node in gm.graph.nodes:
        if node.op in ("call_module", "get_attr"):
            try:
                gm.get_submodule(node.target) if node.op == "call_module" else None
                continue
            except AttributeError:
                pass
            value = replacement
            for atom in node.target.split("."):
                value = getattr(value, atom)
            gm.add_submodule(node.target, copy.deepcopy(value))
