"""What is on screen for a given set of expanded groups: units, edges, their layout.

A node inside a collapsed group is drawn as that group (its outermost collapsed ancestor);
edges between the same two units are drawn once. ``page.js`` does the same in the browser.
"""

from __future__ import annotations

from . import _layout

__all__ = ["visible", "default_expanded", "group_label"]


def default_expanded(model: dict) -> set:
    """Groups open at first: scopes; repeated runs stay collapsed."""
    return {group["id"] for group in model["groups"] if not group.get("collapsed")}


def group_label(group: dict) -> list:
    count = group.get("count", 0)
    if group["kind"] == "repeat":
        lines = [f"\u00d7{group['repeats']:,} repeated ({count:,} nodes)"]
        line = ""
        for name in group["pattern"]:
            piece = name if not line else " \u2192 " + name
            if line and len(line) + len(piece) > _layout.MAX_LABEL_CHARS:
                lines.append(line + " \u2192")
                line = name
            else:
                line += piece
        lines.append(line)
        return lines
    return [group["label"], f"{count:,} nodes"]


def visible(model: dict, expanded: set | None = None) -> dict:
    """Units (nodes or collapsed groups) with labels and positions, edges with routes, and
    the boxes of expanded groups."""
    if expanded is None:
        expanded = default_expanded(model)
    groups = {group["id"]: group for group in model["groups"]}

    def representative(group_id):
        """The outermost collapsed group on the chain from ``group_id`` up, or None."""
        chosen = None
        while group_id is not None:
            if group_id not in expanded:
                chosen = group_id
            group_id = groups[group_id].get("parent")
        return chosen

    unit_of = {}
    units = []
    seen_units = set()
    for node in model["nodes"]:
        group = representative(node.get("group"))
        unit = group if group is not None else node["id"]
        unit_of[node["id"]] = unit
        if unit in seen_units:
            continue
        seen_units.add(unit)
        if group is not None:
            label = group_label(groups[group])
            units.append({"id": group, "kind": "group", "group_kind": groups[group]["kind"],
                          "label": label})
        else:
            units.append({"id": node["id"], "kind": node["kind"], "label": node["label"],
                          "role": node.get("role"), "node": node})
    for unit in units:
        unit["w"], unit["h"] = _layout.node_size(unit["label"])
        # the open groups around the unit, outermost first (kept together by the layout)
        start = groups[unit["id"]].get("parent") if unit["kind"] == "group" else (
            unit["node"].get("group"))
        chain = []
        while start is not None:
            chain.append(start)
            start = groups[start].get("parent")
        chain.reverse()
        unit["cluster"] = chain
    edges = []
    seen_edges = {}
    for edge in model["edges"]:
        a = unit_of.get(edge["from"])
        b = unit_of.get(edge["to"])
        if a is None or b is None or a == b:
            continue
        key = (a, b)
        if edge["kind"] != "next" or key not in seen_edges:
            seen_edges[key] = len(edges)
            edges.append({"from": a, "to": b, "input": edge.get("input", 0),
                          "kind": edge["kind"], "model_from": edge["from"],
                          "model_to": edge["to"]})
    placed = _layout.layout(units, edges)
    boxes = []
    members: dict = {}
    for node in model["nodes"]:
        unit = unit_of[node["id"]]
        group_id = node.get("group")
        while group_id is not None:
            if group_id in expanded and representative(group_id) is None:
                members.setdefault(group_id, set()).add(unit)
            group_id = groups[group_id].get("parent")
    for group_id, unit_ids in members.items():
        left = top = float("inf")
        right = bottom = float("-inf")
        for unit in unit_ids:
            box = placed["nodes"][unit]
            left = min(left, box["x"] - box["w"] / 2)
            right = max(right, box["x"] + box["w"] / 2)
            top = min(top, box["y"] - box["h"] / 2)
            bottom = max(bottom, box["y"] + box["h"] / 2)
        depth = 0
        parent = groups[group_id].get("parent")
        while parent is not None:
            depth += 1
            parent = groups[parent].get("parent")
        pad = 8 + 4 * max(0, 3 - depth)
        boxes.append({"id": group_id, "kind": groups[group_id]["kind"],
                      "label": groups[group_id]["label"], "depth": depth,
                      "x": left - pad, "y": top - pad - 14, "w": right - left + 2 * pad,
                      "h": bottom - top + 2 * pad + 14})
    boxes.sort(key=lambda box: box["depth"])
    return {"units": units, "edges": edges, "layout": placed, "boxes": boxes,
            "unit_of": unit_of}
