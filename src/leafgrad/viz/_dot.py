"""DOT text: ``make_dot`` as torchviz writes it, and a ``Digraph`` with graphviz's interface.

``make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50)`` walks the
graph in torchviz's order (node before its inputs, each input's edge just before that input's
subtree) and writes the same statements with the same attributes: blue leaves, green outputs,
dark green view bases, orange saved tensors, node names ``str(id(obj))``. The walk is
iterative, so deep graphs do not hit Python's recursion limit (torchviz's does).

``Digraph`` has the part of ``graphviz.Digraph`` torchviz users touch (``source``, ``body``,
``node``, ``edge``, ``attr``, ``save``, ``render``, ``pipe``, Jupyter display). ``render`` and
``pipe`` in SVG need no graphviz program: leafgrad lays the graph out itself. Other formats
(png, pdf, ...) run the ``dot`` program when it is installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from ..tensor import Tensor
from . import _layout, _svg

__all__ = ["Digraph", "make_dot", "quote", "attr_list"]

_ID = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$")
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}
_UNESCAPED_QUOTE = re.compile(r'(?P<bs>(?:\\\\)*)\\?(?P<quote>")')

# X11 colour names graphviz knows and SVG does not
_X11 = {
    "darkolivegreen1": "#caff70",
    "darkolivegreen3": "#a2cd5a",
    "lightgrey": "#d3d3d3",
    "lightgray": "#d3d3d3",
}


def quote(identifier: str) -> str:
    """An identifier as DOT needs it: bare when it is a name or a number, else quoted."""
    identifier = str(identifier)
    if identifier.startswith("<") and identifier.endswith(">"):
        return identifier  # an HTML-like label
    if not _ID.match(identifier) or identifier.lower() in _KEYWORDS:
        return '"' + _UNESCAPED_QUOTE.sub(r'\g<bs>\\\g<quote>', identifier) + '"'
    return identifier


def attr_list(label=None, kwargs=None, attributes=None) -> str:
    """`` [label=... key=value ...]`` with keyword attributes sorted, as graphviz writes it."""
    parts = [f"label={quote(label)}"] if label is not None else []
    if kwargs:
        parts += [f"{quote(k)}={quote(v)}" for k, v in sorted(kwargs.items()) if v is not None]
    if attributes:
        items = sorted(attributes.items()) if isinstance(attributes, dict) else attributes
        parts += [f"{quote(k)}={quote(v)}" for k, v in items if v is not None]
    return f" [{' '.join(parts)}]" if parts else ""


class Digraph:
    """A directed graph in DOT, with ``graphviz.Digraph``'s methods torchviz users call."""

    directed = True

    def __init__(self, name=None, comment=None, filename=None, directory=None, format=None,
                 engine=None, encoding="utf-8", graph_attr=None, node_attr=None,
                 edge_attr=None, body=None, strict=False):
        self.name = name
        self.comment = comment
        self.filename = filename
        self.directory = directory or ""
        self.format = format
        self.engine = engine or "dot"
        self.encoding = encoding
        self.graph_attr = dict(graph_attr or {})
        self.node_attr = dict(node_attr or {})
        self.edge_attr = dict(edge_attr or {})
        self.body = list(body or [])
        self.strict = strict
        self._nodes: dict = {}  # name -> merged attributes (for leafgrad's own drawing)
        self._edges: list = []

    # -- building --------------------------------------------------------------------------
    def node(self, name, label=None, _attributes=None, **attrs) -> None:
        name = str(name)
        self.body.append(f"\t{quote(name)}{attr_list(label, attrs, _attributes)}\n")
        merged = self._nodes.setdefault(name, {})
        if label is not None:
            merged["label"] = label
        merged.update({k: v for k, v in attrs.items() if v is not None})

    def edge(self, tail_name, head_name, label=None, _attributes=None, **attrs) -> None:
        tail_name, head_name = str(tail_name), str(head_name)
        self.body.append(f"\t{quote(tail_name)} -> {quote(head_name)}"
                         f"{attr_list(label, attrs, _attributes)}\n")
        self._edges.append((tail_name, head_name, dict(attrs)))

    def edges(self, tail_head_iter) -> None:
        for tail, head in tail_head_iter:
            self.edge(tail, head)

    def attr(self, kw=None, _attributes=None, **attrs) -> None:
        if kw is not None and kw.lower() not in ("graph", "node", "edge"):
            raise ValueError(f"attr statement must target graph, node, or edge: {kw!r}")
        if attrs or _attributes:
            self.body.append(f"\t{kw or 'graph'}{attr_list(None, attrs, _attributes)}\n")

    def clear(self, keep_attrs: bool = False) -> None:
        if not keep_attrs:
            self.graph_attr, self.node_attr, self.edge_attr = {}, {}, {}
        self.body = []
        self._nodes, self._edges = {}, []

    # -- text --------------------------------------------------------------------------------
    def __iter__(self):
        if self.comment:
            yield f"// {self.comment}\n"
        head = "strict digraph" if self.strict else "digraph"
        yield f"{head} {quote(self.name) + ' ' if self.name else ''}{{\n"
        for kw in ("graph", "node", "edge"):
            attrs = getattr(self, f"{kw}_attr")
            if attrs:
                yield f"\t{kw}{attr_list(None, attrs)}\n"
        yield from self.body
        yield "}\n"

    @property
    def source(self) -> str:
        return "".join(self)

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        return f"<leafgrad.viz.Digraph object with {len(self._nodes)} nodes>"

    # -- leafgrad's own drawing --------------------------------------------------------------
    def _svg(self) -> str:
        units = []
        for name, attrs in self._nodes.items():
            label = attrs.get("label", name)
            lines = str(label).split("\n")
            fill = attrs.get("fillcolor") or self.node_attr.get("fillcolor") or "lightgrey"
            units.append({"id": name, "kind": "dot", "label": lines,
                          "fill": _X11.get(fill, fill), "title": str(label)})
        known = {unit["id"] for unit in units}
        for tail, head, _ in self._edges:  # an edge may name a node no statement declared
            for name in (tail, head):
                if name not in known:
                    known.add(name)
                    units.append({"id": name, "kind": "dot", "label": [name],
                                  "fill": "#d3d3d3", "title": name})
        for unit in units:
            unit["w"], unit["h"] = _layout.node_size(unit["label"])
        edges = [{"from": tail, "to": head, "input": 0, "dir": attrs.get("dir"),
                  "kind": "output" if attrs.get("style") == "dotted" else ""}
                 for tail, head, attrs in self._edges]
        placed = _layout.layout(units, edges)
        return _svg.render(units, edges, placed, [])

    def _repr_svg_(self) -> str:
        return self._svg()

    def _repr_mimebundle_(self, include=None, exclude=None, **_) -> dict:
        return {"image/svg+xml": self._svg()}

    def pipe(self, format=None, renderer=None, formatter=None, encoding=None, **_):
        """The drawing as bytes (``encoding`` given: text): SVG by leafgrad, others by dot."""
        format = format or self.format or "pdf"
        if format == "svg":
            data = self._svg().encode("utf-8")
        elif format in ("dot", "gv", "canon"):
            data = self.source.encode("utf-8")
        else:
            data = _run_dot(self.source, format, self.engine)
        return data.decode(encoding) if encoding else data

    def save(self, filename=None, directory=None, *, skip_existing=False) -> str:
        if filename is not None:
            self.filename = filename
        if directory is not None:
            self.directory = directory
        path = self._filepath()
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        with open(path, "w", encoding=self.encoding) as handle:
            handle.write(self.source)
        return path

    def render(self, filename=None, directory=None, view=False, cleanup=False, format=None,
               renderer=None, formatter=None, neato_no_op=None, quiet=False,
               quiet_view=False, *, outfile=None, engine=None, raise_if_result_exists=False,
               overwrite_source=False) -> str:
        """Write the source, then ``<source>.<format>`` beside it (graphviz's naming)."""
        if outfile is not None:
            stem, suffix = os.path.splitext(os.fspath(outfile))
            format = format or suffix.lstrip(".")
            if filename is None:
                filename = stem + ".gv"
        format = format or self.format or "pdf"
        source_path = self.save(filename, directory)
        target = os.fspath(outfile) if outfile is not None else f"{source_path}.{format}"
        data = self.pipe(format=format) if engine is None else _run_dot(self.source, format,
                                                                          engine)
        with open(target, "wb") as handle:
            handle.write(data)
        if cleanup:
            os.remove(source_path)
        return target

    def view(self, *args, **kwargs) -> str:
        return self.render(*args, **kwargs)

    @property
    def filepath(self) -> str:
        return self._filepath()

    def _filepath(self) -> str:
        filename = self.filename or f"{self.name or 'Digraph'}.gv"
        return os.path.join(self.directory or "", filename)


def _run_dot(source: str, format: str, engine: str = "dot") -> bytes:
    program = shutil.which(engine)
    if program is None:
        raise RuntimeError(
            f"rendering to {format!r} needs the graphviz program {engine!r}, which is not "
            "installed; leafgrad draws 'svg' itself (and leafgrad.viz.draw(...).to_svg() / "
            ".save('graph.html') need no program at all)"
        )
    done = subprocess.run([program, f"-T{format}"], input=source.encode("utf-8"),
                          capture_output=True, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr.decode("utf-8", "replace").strip())
    return done.stdout


# -- make_dot ------------------------------------------------------------------------------

_NODE_ATTR = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1",
                  height="0.2", fontname="monospace")


def _size_to_str(size) -> str:
    return "(" + ", ".join("%d" % v for v in size) + ")"


def _saved_attributes(fn) -> list:
    """``_saved_<name>`` accessors a node serves, sorted as ``dir()`` lists them."""
    names = set()
    saved = fn._saved
    if saved:
        names.update(key for key in saved if key != "tensors" or not hasattr(fn, "_forward_cls"))
    names.update(getattr(fn, "_params", None) or {})
    return sorted("_saved_" + name for name in names)


def _fn_name(fn, show_attrs: bool, max_attr_chars: int) -> str:
    name = str(type(fn).__name__)
    if not show_attrs:
        return name
    attrs = {}
    for attr in _saved_attributes(fn):
        try:
            value = getattr(fn, attr)
        except RuntimeError:
            continue  # freed by backward
        key = attr[len("_saved_"):]
        if isinstance(value, Tensor):
            attrs[key] = "[saved tensor]"
        elif isinstance(value, (tuple, list)) and any(isinstance(v, Tensor) for v in value):
            attrs[key] = "[saved tensors]"
        else:
            attrs[key] = str(value)
    if not attrs:
        return name
    max_attr_chars = max(max_attr_chars, 3)
    col1 = max(len(k) for k in attrs)
    col2 = min(max(len(str(v)) for v in attrs.values()), max_attr_chars)
    separator = "-" * max(col1 + col2 + 2, len(name))
    row = "%-" + str(col1) + "s: %" + str(col2) + "s"

    def cut(text: str) -> str:
        return text[:col2 - 3] + "..." if len(text) > col2 else text

    lines = "\n".join(row % (k, cut(str(v))) for k, v in attrs.items())
    return name + "\n" + separator + "\n" + lines


def make_dot(var, params=None, show_attrs: bool = False, show_saved: bool = False,
             max_attr_chars: int = 50) -> Digraph:
    """torchviz's ``make_dot``: the graph behind ``var`` (a tensor or a tuple of them) in DOT.

    Blue: leaves that require grad; orange: saved tensors; green: ``var``; dark green: the base
    of a ``var`` that is a view. ``params`` (``dict(model.named_parameters())``) names leaves.

    >>> dot = leafgrad.viz.make_dot(loss, params=dict(model.named_parameters()))
    >>> dot.render("graph", format="svg")      # no graphviz program needed for svg
    'graph.svg'
    """
    if params is not None:
        if not all(isinstance(p, Tensor) for p in params.values()):
            raise AssertionError()
        param_map = {id(v): k for k, v in params.items()}
    else:
        param_map = {}
    dot = Digraph(node_attr=dict(_NODE_ATTR), graph_attr=dict(size="12,12"))
    seen: set = set()

    def var_name(tensor, name=None) -> str:
        if not name:
            name = param_map.get(id(tensor), "")
        return "%s\n %s" % (name, _size_to_str(tensor.size()))

    def enter(fn) -> bool:
        """Everything torchviz does for a node before its inputs; False if seen already."""
        if id(fn) in seen:
            return False
        seen.add(id(fn))
        if show_saved:
            for attr in _saved_attributes(fn):
                try:
                    value = getattr(fn, attr)
                except RuntimeError:
                    continue  # freed by backward: nothing to show (torchviz would stop here)
                seen.add(id(value))
                key = attr[len("_saved_"):]
                if isinstance(value, Tensor):
                    dot.edge(str(id(fn)), str(id(value)), dir="none")
                    dot.node(str(id(value)), var_name(value, key), fillcolor="orange")
                if isinstance(value, tuple):
                    for i, item in enumerate(value):
                        if isinstance(item, Tensor):
                            dot.edge(str(id(fn)), str(id(item)), dir="none")
                            dot.node(str(id(item)), var_name(item, key + "[%s]" % i),
                                     fillcolor="orange")
        variable = getattr(fn, "variable", None)
        if variable is not None:
            seen.add(id(variable))
            dot.node(str(id(variable)), var_name(variable), fillcolor="lightblue")
            dot.edge(str(id(variable)), str(id(fn)))
        dot.node(str(id(fn)), _fn_name(fn, show_attrs, max_attr_chars))
        return True

    def leave(fn) -> None:
        if not hasattr(type(fn), "saved_tensors"):
            return
        try:
            tensors = fn.saved_tensors
        except RuntimeError:
            return  # freed by backward
        for tensor in tensors:
            seen.add(id(tensor))
            dot.edge(str(id(tensor)), str(id(fn)), dir="none")
            dot.node(str(id(tensor)), var_name(tensor), fillcolor="orange")

    def add_nodes(root) -> None:
        # torchviz recurses: node, then per input its edge and its whole subtree, then the
        # node's custom-Function saved tensors. A stack of (node, next input) does the same.
        if not enter(root):
            return
        stack = [[root, 0]]
        while stack:
            frame = stack[-1]
            fn, position = frame
            children = fn.next_functions
            while position < len(children) and children[position][0] is None:
                position += 1
            if position >= len(children):
                stack.pop()
                leave(fn)
                continue
            frame[1] = position + 1
            child = children[position][0]
            dot.edge(str(id(child)), str(id(fn)))
            if enter(child):
                stack.append([child, 0])

    def add_base_tensor(tensor, color="darkolivegreen1") -> None:
        if id(tensor) in seen:
            return
        seen.add(id(tensor))
        dot.node(str(id(tensor)), var_name(tensor), fillcolor=color)
        fn = tensor.grad_fn
        if fn:
            add_nodes(fn)
            dot.edge(str(id(fn)), str(id(tensor)))
        if tensor._is_view():
            add_base_tensor(tensor._base, color="darkolivegreen3")
            dot.edge(str(id(tensor._base)), str(id(tensor)), style="dotted")

    if isinstance(var, tuple):
        for item in var:
            add_base_tensor(item)
    else:
        add_base_tensor(var)
    # torchviz's resize_graph: 0.15 inch per body line, at least 12
    size = max(12, len(dot.body) * 0.15)
    dot.graph_attr.update(size=str(size) + "," + str(size))
    return dot


def model_dot(model: dict) -> str:
    """The GraphView's DOT: every described node with its label, groups as clusters."""
    lines = ["digraph {\n", '\tgraph [rankdir=TB size="12,12"]\n',
             "\tnode [fontname=monospace fontsize=10 shape=box style=filled]\n"]
    colour = {"leaf": "lightblue", "output": "darkolivegreen1", "retained": "orange"}
    children: dict = {}
    for group in model["groups"]:
        children.setdefault(group.get("parent"), []).append(group)
    members: dict = {}
    for node in model["nodes"]:
        members.setdefault(node.get("group"), []).append(node)

    def node_line(node, indent: str) -> str:
        if node["kind"] == "tensor":
            fill = colour.get(node.get("role"), "lightblue")
        elif node["kind"] == "more":
            fill = "white"
        else:
            fill = "lightgrey"
        label = "\n".join(node["label"])
        return f"{indent}{quote(node['id'])}{attr_list(label, {'fillcolor': fill})}\n"

    # groups as nested clusters, written without recursion: (group or None, depth) pairs
    stack = [(None, 0, False)]
    while stack:
        group, depth, closing = stack.pop()
        indent = "\t" * (depth + 1)
        if closing:
            lines.append("\t" * depth + "}\n")
            continue
        if group is not None:
            lines.append("\t" * depth + f"subgraph {quote('cluster_' + group['id'])} {{\n")
            lines.append(f"{indent}label={quote(group['label'])}\n")
            stack.append((group, depth, True))
        key = group["id"] if group is not None else None
        for node in members.get(key, ()):
            lines.append(node_line(node, indent))
        for child in reversed(children.get(key, ())):
            stack.append((child, depth + 1, False))
    for edge in model["edges"]:
        attrs = {}
        if edge["kind"] in ("output", "elided"):
            attrs["style"] = "dashed" if edge["kind"] == "output" else "dotted"
        lines.append(f"\t{quote(edge['from'])} -> {quote(edge['to'])}{attr_list(None, attrs)}\n")
    lines.append("}\n")
    return "".join(lines)
