"""``leafgrad.autograd.trace()``: the backward pass as a list of events, replayable in a page.

>>> with leafgrad.autograd.trace() as t:
...     y.backward()
>>> [(e["step"], e["kind"], e["node"]) for e in t.events][:2]
[(0, 'node', 'MulBackward0'), (1, 'free', 'MulBackward0')]
>>> t.save("backward.html")     # the graph with a step control replaying these events

Events, in the order the engine does things: ``node`` (a node ran: the gradients that arrived,
``grad_outputs``, and those it sent along each edge, ``grad_inputs``), ``accumulate`` (a
``.grad`` was written: ``before`` and ``after``; also for a retained non-leaf), ``hook`` (a hook
ran: what it got and what it returned) and ``free`` (a node's saved tensors were released).
Every event is a JSON-able dict with ``step``, ``kind``, ``node`` (torch's name), ``id`` (the
node's id in the drawing) and ``run`` (which backward call inside the block). Tensors are
summarised (shape, dtype, statistics, torch's repr; values for small ones).
"""

from __future__ import annotations

import threading

from . import engine as _engine
from .graph import AccumulateGrad, SavedTensor

__all__ = ["trace", "Trace", "TraceDiff"]

_lock = threading.Lock()


def _summary(tensor):
    if tensor is None:
        return None
    from ..viz._describe import tensor_summary

    return tensor_summary(tensor)


class Trace:
    """What ``trace()`` recorded: ``events``, and the graphs they ran on (``runs``)."""

    def __init__(self, keep_last: bool = False):
        self.events: list[dict] = []
        self.runs: list[dict] = []
        self._keep_last = keep_last
        self._thread = None
        self._previous = None
        self._frame = None
        self._names = {}
        self._current = None

    # -- the context manager -----------------------------------------------------------------
    def __enter__(self) -> "Trace":
        import sys

        with _lock:
            self._previous = _engine._observer
            _engine._observer = self
        self._thread = threading.get_ident()
        self._frame = sys._getframe(1)
        return self

    def __exit__(self, *exc) -> None:
        with _lock:
            _engine._observer = self._previous
        frame, self._frame = self._frame, None
        if frame is not None:
            self._remember_names([frame.f_locals, frame.f_globals])
        del frame

    def _remember_names(self, namespaces) -> None:
        from ..viz._names import names_in

        self._names = names_in(namespaces)

    # -- what the engine calls ---------------------------------------------------------------
    def begin(self, root_nodes, roots, root_grads, retain_graph, accumulate) -> None:
        if threading.get_ident() != self._thread:
            self._current = None
            return
        from ..viz._model import walk

        order, index = walk(root_nodes)
        hooksets = {}
        for position, node in enumerate(order):
            if node._hookset is not None:
                hooksets[id(node._hookset)] = node
        from ..viz._names import caller_frame, names_in

        frame = caller_frame(1)  # the user's code that called backward: its variables name
        names = names_in([frame.f_locals, frame.f_globals]) if frame is not None else {}
        del frame
        run = {"roots": list(root_nodes), "index": index, "hooksets": hooksets, "names": names,
               "retain_graph": bool(retain_graph), "accumulate": bool(accumulate),
               "first_step": len(self.events) if not self._keep_last else 0,
               "root_grads": [_summary(g) for g in root_grads]}
        if self._keep_last:
            self.runs = []
            self.events = []
        self.runs.append(run)
        self._current = run

    def _base(self, kind: str, node) -> dict:
        run = self._current
        position = run["index"].get(node)
        return {
            "step": len(self.events),
            "kind": kind,
            "node": node.name() if node is not None else None,
            "id": f"f{position}" if position is not None else None,
            "run": len(self.runs) - 1,
        }

    def run(self, node, buffer, hookset, run_hooked, retain_graph):
        if self._current is None or threading.get_ident() != self._thread:
            return node._apply(buffer) if hookset is None else run_hooked(node, hookset, buffer)
        if type(node) is AccumulateGrad:
            variable = node.variable
            before = _summary(variable._grad_value)
            grads_in = node._apply(buffer) if hookset is None else run_hooked(
                node, hookset, buffer)
            event = self._base("accumulate", node)
            event.update({"grad": _summary(buffer[0] if buffer else None), "before": before,
                          "after": _summary(variable._grad_value), "retained": False})
            self.events.append(event)
            return grads_in
        arrived = [_summary(g) for g in buffer]
        freed = None
        if not retain_graph and node._saved:
            freed = _saved_sizes(node)
        grads_in = node._apply(buffer) if hookset is None else run_hooked(node, hookset, buffer)
        event = self._base("node", node)
        run = self._current
        edges = []
        for child, _ in node.next_functions:
            position = run["index"].get(child) if child is not None else None
            edges.append(f"f{position}" if position is not None else None)
        event.update({"grad_outputs": arrived,
                      "grad_inputs": [_summary(g) for g in (grads_in or ())],
                      "edges": edges})
        self.events.append(event)
        if freed is not None:
            event = self._base("free", node)
            event.update({"saved": freed, "bytes": sum(item["bytes"] for item in freed)})
            self.events.append(event)
        return grads_in

    def hook(self, hookset, kind: str, fn, arguments, result) -> None:
        if self._current is None or threading.get_ident() != self._thread:
            return
        from ..viz._describe import describe_hook

        node = self._current["hooksets"].get(id(hookset))
        event = self._base("hook", node)
        returned = None
        if result is not None:
            items = result if isinstance(result, (tuple, list)) else (result,)
            returned = [_summary(g) if _is_tensor(g) else None for g in items]
        event.update({"hook": describe_hook(kind, fn),
                      "grad": [_summary(g) if _is_tensor(g) else None for g in arguments],
                      "returned": returned, "replaced": result is not None})
        self.events.append(event)

    def retained(self, hookset, output_nr: int, fn, grad) -> None:
        if self._current is None or threading.get_ident() != self._thread:
            return
        from ..viz._model import retained_tensor

        node = self._current["hooksets"].get(id(hookset))
        tensor = retained_tensor(fn)
        event = self._base("accumulate", node)
        event.update({"grad": _summary(grad), "before": None,
                      "after": _summary(tensor._grad_value) if tensor is not None else None,
                      "retained": True, "output_nr": output_nr})
        self.events.append(event)

    # -- results -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.events)

    def __repr__(self) -> str:
        kinds = {}
        for event in self.events:
            kinds[event["kind"]] = kinds.get(event["kind"], 0) + 1
        counted = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
        return f"<Trace: {len(self.runs)} backward run(s), {len(self.events)} events ({counted})>"

    def view(self, run: int = -1, params=None, max_nodes: int = 2000):
        """The ``GraphView`` of one traced backward (the last by default), with its events."""
        from ..viz._model import build
        from ..viz._view import GraphView

        if not self.runs:
            raise RuntimeError("trace recorded no backward: call backward() inside the block")
        record = self.runs[run]
        number = self.runs.index(record)
        roots = list(record["roots"])
        names = {**self._names, **record["names"]}
        named = [t for _, t in names.values()
                 if t._node is not None and t._node in record["roots"]]
        model = build(roots + named, params=params, max_nodes=max_nodes, names=names)
        events = [e for e in self.events if e["run"] == number]
        trace = {"events": events, "root_grads": record["root_grads"],
                 "retain_graph": record["retain_graph"]}
        return GraphView(model, trace=trace, title="leafgrad backward trace")

    def to_html(self, run: int = -1, params=None) -> str:
        """The graph page with a step control replaying the backward one event at a time."""
        return self.view(run, params=params).to_html()

    def save(self, path, run: int = -1, params=None) -> str:
        return self.view(run, params=params).save(path)

    def diff(self, other: "Trace") -> "TraceDiff":
        """Where two traces of the same code differ: the ops run, the gradients' shapes and
        dtypes, and the paths (which node sent gradients where)."""
        return TraceDiff(self.events, other.events)


def _is_tensor(value) -> bool:
    return hasattr(value, "_data") and hasattr(value, "_grad_fn")


def _saved_sizes(node) -> list:
    sizes = []
    saved = node._saved or {}
    items = list(saved.items())
    if len(items) == 1 and items[0][0] == "tensors" and isinstance(items[0][1], list):
        items = [(f"tensors[{i}]", v) for i, v in enumerate(items[0][1])]
    for name, value in items:
        if isinstance(value, SavedTensor):
            if value.data is None and value.tensor is None:
                continue  # kept by a saved_tensors_hooks pack hook: its size is the hook's
            data = value.data if value.data is not None else value.tensor._data
            sizes.append({"name": name, "bytes": int(data.nbytes),
                          "shape": [int(s) for s in data.shape]})
    return sizes


class TraceDiff:
    """The differences between two event lists; empty (falsy) when the runs did the same."""

    def __init__(self, mine: list, theirs: list):
        self.differences: list[dict] = []
        for step in range(max(len(mine), len(theirs))):
            if step >= len(mine) or step >= len(theirs):
                have = mine if step < len(mine) else theirs
                side = "first" if step < len(mine) else "second"
                self.differences.append({
                    "step": step, "what": "length",
                    "text": f"step {step}: only the {side} trace goes on "
                            f"({len(mine)} vs {len(theirs)} events; next: "
                            f"{have[step]['kind']} {have[step]['node']})",
                })
                break
            a, b = mine[step], theirs[step]
            if (a["kind"], a["node"]) != (b["kind"], b["node"]):
                self.differences.append({
                    "step": step, "what": "op",
                    "text": f"step {step}: {a['kind']} {a['node']} vs {b['kind']} {b['node']}",
                })
                break  # after a different op, the two runs no longer line up
            for field in ("grad_outputs", "grad_inputs", "grad", "after"):
                left, right = a.get(field), b.get(field)
                if isinstance(left, dict) or left is None:
                    left, right = [left], [right]
                for number, (x, y) in enumerate(zip(left or (), right or ())):
                    shape_x = (x or {}).get("shape"), (x or {}).get("dtype")
                    shape_y = (y or {}).get("shape"), (y or {}).get("dtype")
                    if (x is None) != (y is None) or shape_x != shape_y:
                        self.differences.append({
                            "step": step, "what": "shape",
                            "text": f"step {step} ({a['node']}): {field}[{number}] is "
                                    f"{_shape_text(x)} vs {_shape_text(y)}",
                        })
            if a.get("edges") != b.get("edges"):
                self.differences.append({
                    "step": step, "what": "path",
                    "text": f"step {step} ({a['node']}): gradients go to "
                            f"{_edges_text(a, mine)} vs {_edges_text(b, theirs)}",
                })

    def __bool__(self) -> bool:
        return bool(self.differences)

    def __len__(self) -> int:
        return len(self.differences)

    def __iter__(self):
        return iter(self.differences)

    def __str__(self) -> str:
        if not self.differences:
            return "the two traces ran the same ops on gradients of the same shapes"
        return "\n".join(item["text"] for item in self.differences)

    __repr__ = __str__


def _shape_text(summary) -> str:
    if summary is None:
        return "None"
    return f"{tuple(summary['shape'])} {summary['dtype']}"


def _edges_text(event: dict, events: list) -> str:
    names = {}
    for other in events:
        if other.get("id") is not None:
            names.setdefault(other["id"], other["node"])
    targets = [names.get(edge, edge) if edge is not None else "None" for edge in event["edges"]]
    return "[" + ", ".join(str(t) for t in targets) + "]"


def trace(keep_last: bool = False) -> Trace:
    """Record the backward passes run inside the block (``keep_last``: only the last one)."""
    return Trace(keep_last=keep_last)
