"""A standalone SVG of the graph, laid out by leafgrad (see _layout.py)."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from . import _layout
from ._visible import visible

__all__ = ["to_svg", "FILL"]

# torchviz's colours, so the picture reads the same: blue leaves, green outputs, grey functions
FILL = {
    "leaf": "#add8e6",  # lightblue
    "output": "#caff70",  # darkolivegreen1
    "retained": "#ffd39b",  # a lighter orange than the saved tensors' orange
    "function": "#d3d3d3",  # lightgrey
    "repeat": "#fff2b3",
    "scope": "#e4dcf7",
    "more": "#ffffff",
}

STYLE = """
.lg-edge{fill:none;stroke:#555;stroke-width:1.2}
.lg-edge.variable{stroke:#6a8fa0}
.lg-edge.output{stroke-dasharray:4 3}
.lg-edge.elided{stroke-dasharray:2 4;stroke:#999}
.lg-node rect{stroke:#333;stroke-width:1}
.lg-node.more rect{stroke-dasharray:4 3;stroke:#888}
.lg-node.group rect{stroke-width:2}
.lg-node text{font-family:DejaVu Sans Mono,Menlo,Consolas,monospace;font-size:11px;fill:#111}
.lg-node text.title{font-size:12px;font-weight:bold}
.lg-box{fill:#8a7ac8;fill-opacity:0.06;stroke:#8a7ac8;stroke-opacity:0.6;stroke-dasharray:5 3}
.lg-box.repeat{fill:#e0b000;stroke:#c09000}
.lg-box-label{font-family:DejaVu Sans,Arial,sans-serif;font-size:11px;fill:#5a4a98}
"""


def unit_fill(unit: dict) -> str:
    if unit["kind"] == "group":
        return FILL[unit["group_kind"]]
    if unit["kind"] == "tensor":
        return FILL.get(unit.get("role"), FILL["leaf"])
    if unit["kind"] == "more":
        return FILL["more"]
    return FILL["function"]


def _title(unit: dict) -> str:
    node = unit.get("node")
    if node is None:
        return " ".join(unit["label"])
    lines = [node.get("name") or node["label"][0]]
    if node["kind"] == "function":
        for line in node.get("formula") or ():
            lines.append(line)
        for output in node.get("outputs") or ():
            lines.append(output["value"].get("repr", ""))
    elif node["kind"] == "tensor":
        lines.append(node["value"].get("repr", ""))
        if node.get("grad") is not None:
            lines.append("grad: " + node["grad"].get("repr", ""))
    return "\n".join(lines)


def path_data(points: list) -> str:
    """Vertical-tangent cubic pieces through the route's points."""
    if not points:
        return ""
    parts = [f"M{points[0][0]:.1f},{points[0][1]:.1f}"]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        middle = (y0 + y1) / 2
        parts.append(f"C{x0:.1f},{middle:.1f} {x1:.1f},{middle:.1f} {x1:.1f},{y1:.1f}")
    return " ".join(parts)


def to_svg(model: dict, expanded: set | None = None) -> str:
    shown = visible(model, expanded)
    for unit in shown["units"]:
        unit["fill"] = unit_fill(unit)
        unit["title"] = _title(unit)
    return render(shown["units"], shown["edges"], shown["layout"], shown["boxes"])


def render(units: list, edges: list, placed: dict, boxes: list) -> str:
    """SVG text for laid-out units (``label`` lines, ``fill``, ``title``) and edges."""
    left, top = 0.0, 0.0
    right, bottom = placed["width"], placed["height"]
    for box in boxes:  # group outlines reach a little past the nodes
        left = min(left, box["x"] - 4)
        top = min(top, box["y"] - 4)
        right = max(right, box["x"] + box["w"] + 4)
        bottom = max(bottom, box["y"] + box["h"] + 4)
    width, height = right - left, bottom - top
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="{left:.1f} {top:.1f} {width:.1f} {height:.1f}">',
        f"<style>{STYLE}</style>",
        '<defs><marker id="lg-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#555"/>'
        "</marker></defs>",
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{width:.1f}" height="{height:.1f}" '
        'fill="#ffffff"/>',
        '<g class="lg-boxes">',
    ]
    for box in boxes:
        out.append(
            f'<rect class="lg-box {box["kind"]}" x="{box["x"]:.1f}" y="{box["y"]:.1f}" '
            f'width="{box["w"]:.1f}" height="{box["h"]:.1f}" rx="8"/>'
            f'<text class="lg-box-label" x="{box["x"] + 8:.1f}" y="{box["y"] + 13:.1f}">'
            f'{escape(box["label"])}</text>'
        )
    out.append('</g><g class="lg-edges">')
    for edge, route in zip(edges, placed["edges"]):
        if not route:
            continue
        marker = "" if edge.get("dir") == "none" else ' marker-end="url(#lg-arrow)"'
        out.append(f'<path class="lg-edge {edge.get("kind", "")}" d="{path_data(route)}"'
                   f"{marker}/>")
    out.append('</g><g class="lg-nodes">')
    for unit in units:
        box = placed["nodes"][unit["id"]]
        classes = f"lg-node {unit['kind']}"
        if unit.get("role"):
            classes += " " + unit["role"]
        left = box["x"] - box["w"] / 2
        top = box["y"] - box["h"] / 2
        rounded = 10 if unit["kind"] == "tensor" else 3
        out.append(
            f'<g class={quoteattr(classes)} data-id={quoteattr(unit["id"])}>'
            f"<title>{escape(unit.get('title', ''))}</title>"
            f'<rect x="{left:.1f}" y="{top:.1f}" width="{box["w"]:.1f}" height="{box["h"]:.1f}" '
            f'rx="{rounded}" fill="{unit["fill"]}"/>'
        )
        for number, line in enumerate(unit["label"]):
            text = line if len(line) <= _layout.MAX_LABEL_CHARS else (
                line[:_layout.MAX_LABEL_CHARS - 1] + "\u2026")
            baseline = top + _layout.PAD_Y + (number + 1) * _layout.LINE_HEIGHT - 4
            css = ' class="title"' if number == 0 else ""
            out.append(f'<text{css} x="{left + _layout.PAD_X:.1f}" y="{baseline:.1f}">'
                       f"{escape(text)}</text>")
        out.append("</g>")
    out.append("</g></svg>")
    return "\n".join(out)
