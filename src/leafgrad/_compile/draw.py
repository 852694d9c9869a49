"""Pictures of a captured graph: DOT (``leafgrad.viz.Digraph``) and a ``leafgrad.viz``
GraphView, so a capture is drawn with the same tools as a recorded eager graph."""

from __future__ import annotations

from .graph import Graph, Node, Value

__all__ = ["to_dot", "graph_view"]

_COLOURS = {"input": "lightblue", "external": "darkolivegreen1", "constant": "lightgrey",
            "grad": "orange"}


def _digraph(graph: Graph):
    from ..viz import Digraph

    dot = Digraph(name="captured", node_attr={"shape": "box", "fontsize": "10",
                                                "style": "filled", "fillcolor": "white"},
                  graph_attr={"rankdir": "TB"})
    producer: dict = {}
    for value in graph.values:
        if value.kind != "op" and value.users:
            dot.node(f"v{value.index}", f"{value.name}\n{tuple(value.shape)} {value.dtype}",
                     fillcolor=_COLOURS[value.kind], shape="ellipse")
            producer[value] = f"v{value.index}"
    for position, node in enumerate(graph.live_nodes()):
        name = f"n{position}"
        label = _label(node)
        dot.node(name, label, fillcolor="white" if node.kind == "op" else "lightyellow")
        for value in node.produced():
            producer[value] = name
        for value in node.values_read():
            if value in producer:
                dot.edge(producer[value], name)
    for index, value in enumerate(graph.output_values):
        dot.node(f"out{index}", f"result {value.name}", fillcolor="darkolivegreen3",
                 shape="ellipse")
        if value in producer:
            dot.edge(producer[value], f"out{index}")
    return dot


def _label(node: Node) -> str:
    text = node.label()
    if len(text) > 60:
        text = text[:57] + "..."
    outs = ", ".join(repr(v) for v in node.produced())
    return f"{outs} = {text}" if outs else text


def to_dot(graph: Graph) -> str:
    """The graph in Graphviz's DOT language (values in ellipses, nodes in boxes)."""
    if graph is None:
        raise RuntimeError("nothing captured yet: call the compiled function first")
    return _digraph(graph).source


def graph_view(graph: Graph):
    """A ``leafgrad.viz.GraphView`` of the capture (its DOT, SVG and HTML exports)."""
    if graph is None:
        raise RuntimeError("nothing captured yet: call the compiled function first")
    from ..viz._view import GraphView

    nodes, edges = [], []
    index_of: dict = {}
    for value in graph.values:
        if value.kind != "op" and value.users:
            index_of[value] = f"t{value.index}"
            nodes.append({"id": f"t{value.index}", "kind": "tensor", "name": value.name,
                          "label": [value.name, f"{tuple(value.shape)} {value.dtype}"],
                          "role": value.kind,
                          "value": {"repr": f"{tuple(value.shape)} {value.dtype}"}})
    for position, node in enumerate(graph.live_nodes()):
        nid = f"f{position}"
        nodes.append({"id": nid, "kind": "function", "name": node.label().split("(")[0],
                      "label": [_label(node)], "role": node.kind})
        for value in node.values_read():
            if value in index_of:
                edges.append({"from": index_of[value], "to": nid, "input": 0, "output": 0,
                              "kind": "next"})
        for value in node.produced():
            index_of[value] = nid
    model = {"format": "leafgrad-captured-graph", "version": 1, "nodes": nodes,
             "edges": edges, "groups": [], "roots": [],
             "stats": {"nodes_in_graph": len(graph.live_nodes()),
                       "nodes_described": len(nodes)}}
    return GraphView(model, title="leafgrad captured graph")
