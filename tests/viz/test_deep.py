"""Deep graphs: a 100,000-op chain is drawn and laid out without recursion, its runs collapsed.

No timing assertion (the README records the figures); the recursion limit is lowered so that
any recursive walk would fail.
"""

from __future__ import annotations

import sys

import leafgrad as torch
from leafgrad.viz import draw


def test_hundred_thousand_op_chain_draws_and_lays_out():
    x = torch.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(25_000):
        y = (((y * 1.0001) + 0.001).sin()).tanh()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(120)
    try:
        view = draw(y)
        svg = view.to_svg()
        html = view.to_html()
        expanded = view.to_svg(expanded=[g["id"] for g in view.groups])
    finally:
        sys.setrecursionlimit(limit)
    (group,) = view.groups
    assert group["repeats"] == 25_000 and group["count"] == 100_000
    assert group["pattern"] == ["MulBackward0", "AddBackward0", "SinBackward0", "TanhBackward0"]
    assert view.to_dict()["stats"]["nodes_in_graph"] == 100_001
    assert len(view.nodes) <= 2000 + 10  # max_nodes bounds what is described
    assert svg.count('class="lg-node ') == 4 and len(html) < 3_000_000
    assert expanded.count("SinBackward0") > 100
    y.backward()  # the graph itself is untouched by drawing
    assert x.grad is not None
