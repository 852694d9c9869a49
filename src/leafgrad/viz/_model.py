"""The graph model behind every export: nodes, edges and collapsible groups as plain dicts.

``build`` walks the recorded graph from the given roots without recursion (each node is visited
once, children in ``next_functions`` order, so ids and drawings are deterministic), groups long
runs of a repeated op pattern and module scopes, and describes the nodes that will be shown.
Nodes inside a long repeated run are described only near its ends: a 100,000-op chain costs
one cheap visit per node and a full description for a few hundred.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..autograd.graph import AccumulateGrad, SavedTensor
from ..tensor import Tensor, _wrap
from . import _describe, _formula, _scopes
from ._repeats import MIN_RUN_NODES, periodic_runs

__all__ = ["build", "walk", "flatten_roots"]

SMALL_VALUE = 6  # tensors up to this many elements show their values in the node's box


def flatten_roots(items) -> list:
    """Tensors and nodes from the arguments of ``draw`` (lists, tuples and dicts are opened)."""
    found = []
    stack = [items]
    while stack:
        item = stack.pop()
        if isinstance(item, Tensor) or hasattr(item, "next_functions"):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif item is None:
            continue
        else:
            raise TypeError(
                f"draw() expects tensors or grad_fn nodes (or lists/dicts of them), got "
                f"{type(item).__name__}"
            )
    return found


def walk(root_nodes: list) -> tuple[list, dict]:
    """Every node reachable from ``root_nodes``, depth first in ``next_functions`` order."""
    order: list = []
    index: dict = {}
    stack = list(reversed(root_nodes))
    while stack:
        node = stack.pop()
        if node in index:
            continue
        index[node] = len(order)
        order.append(node)
        children = node.next_functions
        for position in range(len(children) - 1, -1, -1):
            child = children[position][0]
            if child is not None and child not in index:
                stack.append(child)
    return order, index


def retained_tensor(fn):
    """The tensor behind a ``retain_grad`` hook (it holds a weak reference to it)."""
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, weakref.ref):
            target = value()
            if isinstance(target, Tensor):
                return target
    return None


def build(roots: list, params=None, show_saved: bool = True, max_nodes: int = 2000,
          names: dict | None = None, scope_records: bool = True) -> dict:
    """The model of everything reachable from ``roots`` (tensors or grad_fn nodes)."""
    builder = _Builder(params, show_saved, max(int(max_nodes), 10), names or {})
    return builder.run(roots, scope_records)


def _param_map(params) -> dict:
    if params is None:
        return {}
    items = params.items() if hasattr(params, "items") else params
    mapping = {}
    for name, value in items:
        if isinstance(value, Tensor):
            mapping[id(value)] = str(name)
    return mapping


class _Builder:
    def __init__(self, params, show_saved: bool, max_nodes: int, names: dict):
        self.param_names = _param_map(params)
        self.show_saved = show_saved
        self.max_nodes = max_nodes
        # names given by the caller's variables; parameters' names win
        self.names = {**{k: v[0] for k, v in names.items()}, **self.param_names}
        self.known = {k: v[1] for k, v in names.items() if len(v) > 1}
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.groups: list[dict] = []

    # -- the walk --------------------------------------------------------------------------
    def run(self, roots: list, scope_records: bool) -> dict:
        root_tensors = [r for r in roots if isinstance(r, Tensor)]
        root_nodes = []
        for root in roots:
            fn = root._node if isinstance(root, Tensor) else root
            if isinstance(root, Tensor) and fn is None and root._requires_grad:
                fn = root._accumulator()
            if fn is not None and fn not in root_nodes:
                root_nodes.append(fn)
        order, index = walk(root_nodes)
        self.order, self.index = order, index
        count = len(order)
        is_acc = [type(node) is AccumulateGrad for node in order]
        self.is_acc = is_acc

        # Tensors we can show: outputs asked for, retained non-leaves, the caller's variables.
        outputs: dict = {}  # (node index, output_nr) -> tensor
        for tensor in list(self.known.values()) + root_tensors:
            fn = tensor._node
            if fn is not None and fn in index:
                outputs.setdefault((index[fn], tensor._output_nr), tensor)
        retained: dict = {}
        for position, node in enumerate(order):
            hookset = node._hookset
            if hookset is not None and hookset.retains_grad:
                for output_nr, fn in hookset.retains_grad.items():
                    tensor = retained_tensor(fn)
                    if tensor is not None:
                        retained[(position, output_nr)] = tensor
                        outputs.setdefault((position, output_nr), tensor)
        self.outputs = outputs
        self.own_nodes = {id(t) for t in root_tensors} | {id(t) for t in retained.values()}

        scopes = _scopes.recorded_scopes(order) if scope_records else {}
        if not scopes:
            scopes = _scopes.infer_scopes(order, is_acc, index, self.param_names)
        # a leaf read only inside one module call belongs to it (its parameters)
        consumers = self._acc_consumers() if scopes else {}
        for position, readers in consumers.items():
            if position in scopes:
                continue
            chains = [scopes.get(reader) for reader in readers]
            if chains and all(c is not None and c[-1][0] == chains[0][-1][0] for c in chains):
                scopes[position] = chains[0]
        self.scope_of = scopes

        repeats = self._find_repeats()
        shown = self._choose_shown(repeats)

        # Describe what is shown; ids follow the walk so a trace can refer to them.
        for position in shown:
            self._function_node(position)
        for position in shown:
            node = order[position]
            for input_nr, (child, output_nr) in enumerate(node.next_functions):
                if child is None:
                    continue
                child_pos = index[child]
                if child_pos in shown:
                    self.edges.append({"from": f"f{child_pos}", "to": f"f{position}",
                                       "input": input_nr, "output": output_nr, "kind": "next"})
        self._elided_edges(repeats, shown)
        self._truncation_stub(shown)

        # Tensor nodes: leaves (beside their accumulator), outputs asked for, retained ones.
        tensor_ids: dict = {}
        for position in shown:
            if is_acc[position]:
                variable = order[position].variable
                tid = self._tensor_node(variable, "leaf", tensor_ids, position)
                self.edges.append({"from": tid, "to": f"f{position}", "input": 0, "output": 0,
                                   "kind": "variable"})
        for tensor in root_tensors:
            fn = tensor._node
            if fn is None:
                if id(tensor) in tensor_ids:
                    continue
                self._tensor_node(tensor, "leaf" if tensor._requires_grad else "output",
                                  tensor_ids, None)
                continue
            tid = self._tensor_node(tensor, "output", tensor_ids, None)
            if index[fn] in shown:
                self.edges.append({"from": f"f{index[fn]}", "to": tid, "input": 0,
                                   "output": tensor._output_nr, "kind": "output"})
        for (position, output_nr), tensor in retained.items():
            if position in shown and id(tensor) not in tensor_ids:
                tid = self._tensor_node(tensor, "retained", tensor_ids, None)
                self.edges.append({"from": f"f{position}", "to": tid, "input": 0,
                                   "output": output_nr, "kind": "output"})
        self._build_groups(repeats, shown)
        return {
            "format": "leafgrad-graph",
            "version": 1,
            "nodes": self.nodes,
            "edges": self.edges,
            "groups": self.groups,
            "roots": [f"f{index[n]}" for n in root_nodes],
            "stats": {
                "functions": sum(1 for a in is_acc if not a),
                "accumulators": sum(is_acc),
                "nodes_in_graph": count,
                "nodes_described": len(shown),
                "max_nodes": self.max_nodes,
            },
        }

    # -- repeated runs ---------------------------------------------------------------------
    def _find_repeats(self) -> list[dict]:
        """Maximal chains of single-input/single-consumer nodes, cut into periodic runs."""
        order, index, is_acc = self.order, self.index, self.is_acc
        count = len(order)
        scope_key = [self._innermost_scope(i) for i in range(count)]
        only_child = [-1] * count
        consumers = [0] * count
        for position, node in enumerate(order):
            if is_acc[position]:
                continue
            kids = []
            for child, _ in node.next_functions:
                if child is None:
                    continue
                child_pos = index[child]
                if not is_acc[child_pos] and child_pos not in kids:
                    kids.append(child_pos)
            for child_pos in kids:
                consumers[child_pos] += 1
            if len(kids) == 1:
                only_child[position] = kids[0]
        linked = [False] * count
        next_in_chain = [-1] * count
        for position in range(count):
            child = only_child[position]
            if child >= 0 and consumers[child] == 1 and scope_key[child] == scope_key[position]:
                next_in_chain[position] = child
                linked[child] = True
        runs = []
        names = [None] * count
        for start in range(count):
            if is_acc[start] or linked[start]:
                continue
            chain = [start]
            while next_in_chain[chain[-1]] >= 0:
                chain.append(next_in_chain[chain[-1]])
            if len(chain) < MIN_RUN_NODES:
                continue
            for position in chain:
                names[position] = order[position].name()
            runs.extend(periodic_runs(chain, [names[p] for p in chain]))
        return runs

    def _innermost_scope(self, position: int):
        chain = self.scope_of.get(position)
        return chain[-1][0] if chain else None

    def _choose_shown(self, repeats: list[dict]) -> set:
        """Which nodes get described: all outside long runs (up to ``max_nodes``, in walk
        order, so what is kept stays connected to the roots) and each run's two ends."""
        hidden = set()
        for run in repeats:
            hidden.update(run["members"])
        top = [p for p in range(len(self.order)) if p not in hidden]
        budget = self.max_nodes
        shown = set(top[:budget])
        self.cut = set(top[budget:])
        left = max(budget - len(shown), 0)
        share = left // max(len(repeats), 1)
        for run in repeats:
            members = run["members"]
            period = run["period"]
            keep = max(2 * period, min(len(members), share - share % period))
            if keep >= len(members):
                run["shown"] = list(members)
            else:
                half = max(period, (keep // 2) // period * period)
                run["shown"] = members[:half] + members[-half:]
                run["elided"] = (members[half - 1], members[-half])
            shown.update(run["shown"])
            # the leaves a shown member reads are shown with it
            for position in run["shown"]:
                for child, _ in self.order[position].next_functions:
                    if child is not None and self.is_acc[self.index[child]]:
                        shown.add(self.index[child])
                        self.cut.discard(self.index[child])
        return shown

    def _elided_edges(self, repeats: list[dict], shown: set) -> None:
        for number, run in enumerate(repeats):
            if "elided" not in run:
                continue
            upper, lower = run["elided"]  # upper is nearer the output
            hidden = len(run["members"]) - len(run["shown"])
            more_id = f"m{number}"
            run["more_id"] = more_id
            self.nodes.append({
                "id": more_id, "kind": "more", "name": f"{hidden:,} more",
                "label": [f"\u2026 {hidden // run['period']:,} more repetitions \u2026",
                          f"({hidden:,} nodes not shown)"],
                "hidden": hidden,
            })
            self.edges.append({"from": f"f{lower}", "to": more_id, "input": 0, "output": 0,
                               "kind": "elided"})
            self.edges.append({"from": more_id, "to": f"f{upper}", "input": 0, "output": 0,
                               "kind": "elided"})

    def _truncation_stub(self, shown: set) -> None:
        if not self.cut:
            return
        stub = "more"
        cut = len(self.cut)
        self.nodes.append({
            "id": stub, "kind": "more", "name": f"{cut:,} more nodes",
            "label": [f"\u2026 {cut:,} more nodes", f"(max_nodes={self.max_nodes})"],
            "hidden": cut,
        })
        for position in sorted(shown):
            node = self.order[position]
            if any(child is not None and self.index[child] in self.cut
                   for child, _ in node.next_functions):
                self.edges.append({"from": stub, "to": f"f{position}", "input": 0, "output": 0,
                                   "kind": "elided"})

    # -- groups ----------------------------------------------------------------------------
    def _build_groups(self, repeats: list[dict], shown: set) -> None:
        by_id = {node["id"]: node for node in self.nodes}
        scope_groups: dict = {}
        for position in shown:
            chain = self.scope_of.get(position)
            if not chain:
                continue
            for key, label, parent in chain:
                if key not in scope_groups:
                    scope_groups[key] = {
                        "id": f"s{len(scope_groups)}", "kind": "scope", "label": label,
                        "parent_key": parent, "collapsed": False, "count": 0,
                    }
            by_id[f"f{position}"]["group"] = scope_groups[chain[-1][0]]["id"]
            for key, _, _ in chain:
                scope_groups[key]["count"] += 1
        for group in scope_groups.values():
            parent = group.pop("parent_key")
            group["parent"] = scope_groups[parent]["id"] if parent in scope_groups else None
            self.groups.append(group)
        for number, run in enumerate(repeats):
            if not run["shown"]:
                continue
            members = run["members"]
            scope = self.scope_of.get(members[0])
            parent = scope_groups[scope[-1][0]]["id"] if scope else None
            pattern = run["pattern"]
            group_id = f"r{number}"
            self.groups.append({
                "id": group_id, "kind": "repeat",
                "label": " \u2192 ".join(pattern) + f" \u00d7{run['repeats']:,}",
                "pattern": pattern, "repeats": run["repeats"], "period": run["period"],
                "count": len(members), "parent": parent, "collapsed": True,
            })
            inside = set(run["shown"])
            ends = (members[0], members[-1])
            for position in run["shown"]:
                by_id[f"f{position}"]["group"] = group_id
                if position in ends:
                    continue  # leaves read at the ends stay in sight, outside the group
                for child, _ in self.order[position].next_functions:
                    if child is None:
                        continue
                    child_pos = self.index[child]
                    if self.is_acc[child_pos] and self._only_consumers_in(child_pos, inside):
                        by_id[f"f{child_pos}"]["group"] = group_id
            if "more_id" in run:
                by_id[run["more_id"]]["group"] = group_id
        # leaf tensors sit in their accumulator's group
        for edge in self.edges:
            if edge["kind"] == "variable":
                group = by_id[edge["to"]].get("group")
                if group is not None:
                    by_id[edge["from"]]["group"] = group

    def _only_consumers_in(self, position: int, inside: set) -> bool:
        consumers = self._acc_consumers().get(position, ())
        return bool(consumers) and all(c in inside for c in consumers)

    def _acc_consumers(self) -> dict:
        cached = getattr(self, "_consumers_cache", None)
        if cached is None:
            cached = {}
            for position, node in enumerate(self.order):
                for child, _ in node.next_functions:
                    if child is not None and type(child) is AccumulateGrad:
                        cached.setdefault(self.index[child], []).append(position)
            self._consumers_cache = cached
        return cached

    # -- node descriptions -----------------------------------------------------------------
    def _function_node(self, position: int) -> None:
        node = self.order[position]
        name = node.name()
        description = {
            "id": f"f{position}",
            "kind": "function",
            "name": name,
            "type": type(node).__name__,
            "accumulate": self.is_acc[position],
        }
        sequence = getattr(node, "_seq", None)
        description["seq"] = sequence if isinstance(sequence, int) else None
        if self.is_acc[position]:
            variable = node.variable
            label = self.names.get(id(variable), "")
            description["formula"] = [
                f"{label or 'variable'}.grad = grad, or .grad += grad when it holds one"
            ]
        else:
            description["formula"] = _formula.formula(node)
        description["source"] = _formula.backward_source(node)
        inputs = []
        meta = getattr(node, "_input_meta", ()) or ()
        for input_nr, (child, output_nr) in enumerate(node.next_functions):
            entry = {"position": input_nr,
                     "from": f"f{self.index[child]}" if child is not None else None}
            if input_nr < len(meta) and meta[input_nr] is not None:
                shape, dtype = meta[input_nr]
                entry["shape"] = [int(s) for s in shape]
                entry["dtype"] = str(dtype)
            input_names = getattr(type(node), "inputs", None)
            if input_names and input_nr < len(input_names):
                entry["name"] = input_names[input_nr]
            inputs.append(entry)
        description["inputs"] = inputs
        outputs = []
        for (owner, output_nr), tensor in self.outputs.items():
            if owner != position:
                continue
            outputs.append({"output_nr": output_nr, "name": self.names.get(id(tensor)),
                            "value": _describe.tensor_summary(tensor),
                            "own_node": id(tensor) in self.own_nodes})
        outputs.sort(key=lambda entry: entry["output_nr"])
        if not outputs:
            kept = self._saved_result(node)
            if kept is not None:
                outputs.append({"output_nr": 0, "name": None, "from_saved": True,
                                "value": _describe.tensor_summary(kept)})
        description["outputs"] = outputs
        description["saved"], description["attrs"] = self._saved(node)
        description["hooks"] = self._node_hooks(node)
        description["scope"] = self._scope_label(position)
        label = [type(node).__name__]
        for entry in outputs:
            if entry.get("own_node"):
                continue
            if entry.get("name"):
                label.append(f"{entry['name']} = {_short_value(entry['value'])}")
            elif not self.is_acc[position]:
                label.append(_short_value(entry["value"]))
        description["label"] = label
        self.nodes.append(description)

    def _scope_label(self, position: int):
        chain = self.scope_of.get(position)
        return chain[-1][1] if chain else None

    def _saved_result(self, node):
        saved = node._saved
        if not saved:
            return None
        value = saved.get("result")
        if isinstance(value, SavedTensor) and value.data is not None:
            return _wrap(value.data)
        return None

    def _saved(self, node) -> tuple[list, dict]:
        saved = node._saved
        attrs = {}
        for key, value in (getattr(node, "_params", None) or {}).items():
            attrs[key] = _attr_text(value)
        if not self.show_saved:
            return [], attrs
        entries = []
        if saved is None:
            for name in _expected_saves(node):
                entries.append({"name": name, "state": "freed"})
            if not entries:
                entries.append({"name": "*", "state": "freed"})
            return entries, attrs
        items = list(saved.items())
        if len(items) == 1 and items[0][0] == "tensors" and isinstance(items[0][1], list):
            items = [(f"tensors[{i}]", v) for i, v in enumerate(items[0][1])]
        for key, value in items:
            if isinstance(value, SavedTensor) and value.data is None and value.tensor is None:
                entries.append({"name": key, "state": "packed"})  # by saved_tensors_hooks
            elif isinstance(value, SavedTensor):
                data = value.data if value.data is not None else value.tensor._data
                now = value.version_counter[0]
                entries.append({
                    "name": key, "shape": [int(s) for s in data.shape], "dtype": str(data.dtype),
                    "bytes": int(data.nbytes), "version_saved": value.version,
                    "version_now": now, "state": "kept" if now == value.version else "modified",
                    "is_output": value.data is not None,
                })
            elif isinstance(value, Tensor):
                entries.append({"name": key, "shape": list(value.shape), "dtype": str(value.dtype),
                                "bytes": int(value._data.nbytes), "state": "kept"})
            else:
                attrs.setdefault(key, _attr_text(value))
        return entries, attrs

    def _node_hooks(self, node) -> list:
        hookset = node._hookset
        hooks = []
        if hookset is None:
            return hooks
        for kind, store in (("prehook", hookset.pre), ("hook", hookset.post)):
            for fn in (store or {}).values():
                hooks.append(_describe.describe_hook(kind, fn))
        for entry in (hookset.tensor_pre or {}).values():
            fn = entry[1] if isinstance(entry, tuple) else entry
            hooks.append(_describe.describe_hook("tensor hook", fn))
        return hooks

    def _tensor_node(self, tensor, role: str, tensor_ids: dict, acc_position) -> str:
        key = id(tensor)
        if key in tensor_ids:
            return tensor_ids[key]
        tid = f"t{len(tensor_ids)}"
        tensor_ids[key] = tid
        name = self.names.get(key, "")
        grad = tensor._grad_value
        hooks = []
        if tensor._node is None and tensor._hooks:
            for entry in tensor._hooks.values():
                fn = entry[1] if isinstance(entry, tuple) else entry
                hooks.append(_describe.describe_hook("tensor hook", fn))
        description = {
            "id": tid,
            "kind": "tensor",
            "role": role,
            "name": name,
            "shape": [int(s) for s in tensor._data.shape],
            "dtype": str(tensor.dtype),
            "value": _describe.tensor_summary(tensor),
            "grad": _describe.tensor_summary(grad) if grad is not None else None,
            "requires_grad": bool(tensor._requires_grad),
            "is_leaf": tensor._node is None,
            "retains_grad": bool(tensor._retains_grad),
            "version": tensor._version,
            "grad_fn": tensor._node.name() if tensor._node is not None else None,
            "hooks": hooks,
        }
        if acc_position is not None:
            scope = self._scope_label(acc_position)
            description["scope"] = scope
        label = [(name + " " if name else "") + _describe.shape_text(tensor._data.shape)]
        label.append("data " + _short_value(description["value"]))
        if grad is not None:
            label.append("grad " + _short_value(description["grad"]))
        description["label"] = label
        self.nodes.append(description)
        return tid


def _expected_saves(node) -> list:
    plan = getattr(type(node), "_save_plan", None)
    if not plan:
        return []
    edges = node.next_functions
    names = []
    for name, _, needing in plan:
        if any(i < len(edges) and edges[i][0] is not None for i in needing):
            names.append(name)
    return names


def _attr_text(value) -> str:
    if isinstance(value, np.ndarray):
        return f"array(shape={list(value.shape)}, dtype={value.dtype})"
    if isinstance(value, Tensor):
        return f"tensor(shape={list(value.shape)})"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _short_value(summary: dict | None) -> str:
    """A box-sized rendering: the values when there are few, else the range."""
    if summary is None:
        return "None"
    values = summary.get("values")
    if values is not None and summary["numel"] <= SMALL_VALUE:
        flat = np.asarray(values, dtype=np.float64).reshape(-1)
        text = ", ".join(_number(v) for v in flat)
        return text if not summary["shape"] else f"[{text}]"
    if "min" in summary:
        return f"[{_number(summary['min'])} \u2026 {_number(summary['max'])}]"
    if summary["numel"] == 0:
        return "[]"
    return "[nan]"


def _number(value: float) -> str:
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e6:
        return f"{int(value)}."
    return f"{value:.4g}"
