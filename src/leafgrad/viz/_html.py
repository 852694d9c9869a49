"""The self-contained page: the model as JSON, page.js and page.css inline, nothing fetched."""

from __future__ import annotations

import json
import os
from html import escape

from ._svg import FILL

__all__ = ["to_html"]

_HERE = os.path.dirname(os.path.abspath(__file__))

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<div id="lg-bar">
  <h1>{title}</h1>
  <input id="lg-search" type="search" placeholder="search: name, op, formula (Enter: next)" autocomplete="off">
  <span id="lg-count"></span>
  <button id="lg-fit" title="fit the graph in the window">fit</button>
  <button id="lg-zoom-in" title="zoom in">+</button>
  <button id="lg-zoom-out" title="zoom out">&minus;</button>
  <button id="lg-expand" title="open every group">expand all</button>
  <button id="lg-collapse" title="close every group">collapse all</button>
  <span id="lg-status"></span>
</div>
<div id="lg-main">
  <svg id="lg-svg" xmlns="http://www.w3.org/2000/svg">
    <defs><marker id="lg-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>
    <g id="lg-viewport"></g>
  </svg>
  <div id="lg-details"></div>
</div>
<div id="lg-replay">
  <div class="lg-controls">
    <button id="lg-first" title="before backward">|&#x25c0;&#x25c0;</button>
    <button id="lg-prev" title="one step back (left arrow)">&#x25c0;</button>
    <button id="lg-play">&#x25b6; play</button>
    <button id="lg-next" title="one step (right arrow)">&#x25b6;</button>
    <button id="lg-last" title="after backward">&#x25b6;&#x25b6;|</button>
    <input id="lg-slider" type="range" min="0" value="0">
    <span id="lg-step"></span>
  </div>
  <div id="lg-event"></div>
  <ol id="lg-events"></ol>
</div>
<script type="application/json" id="lg-data">{data}</script>
<script>{js}</script>
</body>
</html>
"""


def _read(name: str) -> str:
    with open(os.path.join(_HERE, name), encoding="utf-8") as handle:
        return handle.read()


def to_html(model: dict, trace: dict | None, title: str) -> str:
    data = json.dumps({"model": model, "trace": trace, "fill": FILL}, separators=(",", ":"),
                      allow_nan=False, default=str)
    # inside <script>, "</" could end the element early
    data = data.replace("</", "<\\/")
    return _TEMPLATE.format(title=escape(title), css=_read("page.css"), js=_read("page.js"),
                            data=data)
