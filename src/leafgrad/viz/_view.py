"""``draw`` and the ``GraphView`` it returns: one snapshot of a graph, exported many ways."""

from __future__ import annotations

import json
import os

from . import _model, _names

__all__ = ["draw", "GraphView"]


class GraphView:
    """A snapshot of a recorded graph (nodes, edges, values, gradients, saved tensors, hooks).

    Taken when ``draw`` is called: draw again after ``backward`` to see the gradients. Exports:
    ``to_dict`` (JSON-able), ``to_dot``, ``to_svg`` (laid out by leafgrad), ``to_html`` (one
    self-contained page) and ``save(path)`` by suffix; Jupyter shows it inline.
    """

    def __init__(self, model: dict, trace: dict | None = None, title: str | None = None):
        self._model = model
        self._trace = trace
        self.title = title or "leafgrad graph"

    # -- reading ---------------------------------------------------------------------------
    @property
    def nodes(self) -> list:
        """The described nodes (dicts), in walk order: function nodes, then tensors."""
        return self._model["nodes"]

    @property
    def edges(self) -> list:
        """``{"from", "to", "input", "output", "kind"}``; data flows from ``from`` to ``to``."""
        return self._model["edges"]

    @property
    def groups(self) -> list:
        return self._model["groups"]

    def node(self, name: str) -> dict:
        """The first node whose variable name or torch name is ``name``."""
        for node in self._model["nodes"]:
            if node.get("name") == name:
                return node
        raise KeyError(name)

    def __repr__(self) -> str:
        stats = self._model["stats"]
        return (f"<GraphView: {stats['nodes_in_graph']} graph nodes, "
                f"{len(self._model['nodes'])} drawn, {len(self._model['groups'])} groups>")

    # -- exports ---------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The model as plain JSON-able data (a deep copy)."""
        data = json.loads(json.dumps(self._model))
        if self._trace is not None:
            data["trace"] = json.loads(json.dumps(self._trace))
        return data

    def to_dot(self) -> str:
        """DOT text: every drawn node with its label; groups as clusters."""
        from ._dot import model_dot

        return model_dot(self._model)

    def to_svg(self, expanded=None) -> str:
        """A standalone SVG, laid out by leafgrad (no graphviz program); groups collapsed
        as the page first shows them unless ``expanded`` (group ids) says otherwise."""
        from ._svg import to_svg

        return to_svg(self._model, set(expanded) if expanded is not None else None)

    def to_html(self) -> str:
        """One self-contained page (no network, nothing beside it): pan, zoom, search, click a
        node for its details, expand and collapse groups, replay the backward if traced."""
        from ._html import to_html

        return to_html(self._model, self._trace, self.title)

    def save(self, path) -> str:
        """Write by suffix: ``.html``/``.htm``, ``.svg``, ``.dot``/``.gv``, ``.json``."""
        path = os.fspath(path)
        suffix = os.path.splitext(path)[1].lower()
        writers = {".html": self.to_html, ".htm": self.to_html, ".svg": self.to_svg,
                   ".dot": self.to_dot, ".gv": self.to_dot,
                   ".json": lambda: json.dumps(self.to_dict(), indent=1)}
        if suffix not in writers:
            raise ValueError(
                f"GraphView.save: unknown suffix {suffix!r}; use .html, .svg, .dot, .gv or .json"
            )
        text = writers[suffix]()
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path

    def _repr_html_(self) -> str:
        # Jupyter: the page in an iframe (srcdoc), so its script and styles stay its own.
        from html import escape

        return (f'<iframe srcdoc="{escape(self.to_html(), quote=True)}" '
                'style="width:100%;height:560px;border:1px solid #ccc"></iframe>')

    def _repr_svg_(self) -> str:
        return self.to_svg()


def draw(*roots, params=None, show_saved: bool = True, max_nodes: int = 2000) -> GraphView:
    """A ``GraphView`` of everything reachable from ``roots`` (tensors or ``grad_fn`` nodes).

    Tensors are named after the caller's variables (``w``, ``x``, ``loss``) and ``params``
    (``dict(model.named_parameters())``, as in torchviz). Long runs of a repeated op pattern
    are collapsed into expandable groups; ``max_nodes`` bounds how many nodes are described.

    >>> y = (x + w) * (w + 1)
    >>> y.backward()
    >>> leafgrad.viz.draw(y).save("graph.html")
    'graph.html'
    """
    frame = _names.caller_frame(1)
    names = _names.names_in([frame.f_locals, frame.f_globals]) if frame is not None else {}
    del frame
    items = _model.flatten_roots(roots)
    if not items:
        raise ValueError("draw() needs at least one tensor or grad_fn")
    model = _model.build(items, params=params, show_saved=show_saved, max_nodes=max_nodes,
                         names=names)
    return GraphView(model)
