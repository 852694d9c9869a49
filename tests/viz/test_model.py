"""The graph model behind draw(): nodes, edges, order, values, saved tensors, groups, exports.

Structure is checked against torch's own graph for the same program: the function nodes and
their next_functions, walked the same way, must have the same names in the same order.
"""

from __future__ import annotations

import json

import pytest

import leafgrad as torch
from leafgrad.ops import OPS
from leafgrad.viz import GraphView, draw
from leafgrad.viz._formula import formula

from .._torch import require_torch


def _walk_names(root_fn) -> list:
    """Depth first from ``root_fn`` in next_functions order: the walk draw() numbers nodes by."""
    order, seen, stack = [], set(), [root_fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(type(node).__name__)
        for child, _ in reversed(node.next_functions):
            if child is not None and child not in seen:
                stack.append(child)
    return order


def _seeds(t):
    w = t.tensor([1.0], requires_grad=True)
    x = t.tensor([2.0], requires_grad=True)
    a = t.add(w, x)
    b = t.add(w, 1)
    y = t.mul(a, b)
    return w, x, a, b, y


def _function_names(view: GraphView) -> list:
    return [n["type"] for n in view.nodes if n["kind"] == "function"]


def test_seeds_graph_nodes_edges_and_values():
    w, x, a, b, y = _seeds(torch)
    y.backward()
    view = draw(y)
    assert _function_names(view) == ["MulBackward0", "AddBackward0", "AccumulateGrad",
                                      "AccumulateGrad", "AddBackward0"]
    real = require_torch()
    tw, tx, ta, tb, ty = _seeds(real)
    ty.backward()
    assert _function_names(view) == _walk_names(ty.grad_fn)
    # edges: data flows from next_functions[i] into the node, input i, torch's order
    by_id = {n["id"]: n for n in view.nodes}
    mul = view.node("MulBackward0")
    into_mul = sorted((e["input"], by_id[e["from"]]["label"][1]) for e in view.edges
                      if e["to"] == mul["id"])
    assert into_mul == [(0, "a = [3.]"), (1, "b = [2.]")]
    assert [i["name"] for i in mul["inputs"]] == ["self", "other"]
    w_node, x_node, y_node = view.node("w"), view.node("x"), view.node("y")
    assert w_node["role"] == "leaf" and y_node["role"] == "output"
    assert w_node["grad"]["repr"] == repr(tw.grad) == "tensor([5.])"
    assert x_node["grad"]["repr"] == repr(tx.grad)
    assert w_node["value"]["repr"] == repr(w)
    assert y_node["value"]["values"] == [6.0]
    assert (w_node["is_leaf"], w_node["requires_grad"], w_node["retains_grad"]) == (
        tw.is_leaf, tw.requires_grad, tw.retains_grad)
    assert mul["formula"] == ["grad_self = grad * conj(other)", "grad_other = grad * conj(self)"]
    assert mul["source"].endswith(".py:" + mul["source"].rsplit(":", 1)[1])
    # saved tensors were freed by backward (no retain_graph); listed as saved (torch's order)
    assert [(s["name"], s["state"]) for s in mul["saved"]] == [("other", "freed"),
                                                               ("self", "freed")]


def test_saved_tensors_bytes_versions_and_modification():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    y = h * h
    kept = draw(y).node("MulBackward0")
    saved = {s["name"]: s for s in kept["saved"]}
    assert saved["self"]["bytes"] == 12 and saved["self"]["shape"] == [3]
    assert saved["self"]["version_saved"] == 0 and saved["self"]["state"] == "kept"
    with torch.no_grad():
        h.add_(1)  # the saved h is now stale: backward would fail
    modified = {s["name"]: s for s in draw(y).node("MulBackward0")["saved"]}
    assert modified["self"]["state"] == "modified" and modified["self"]["version_now"] == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_retain_graph_keeps_saved_tensors():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    exp = draw(y).node("ExpBackward0")
    assert [s["state"] for s in exp["saved"]] == ["kept"]
    assert exp["outputs"][0]["from_saved"]  # the result it saved is its value
    y.backward()
    assert [s["state"] for s in draw(y).node("ExpBackward0")["saved"]] == ["freed"]


def test_module_with_parameters_names_and_scopes():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    loss = model(torch.randn(5, 3)).pow(2).mean()
    loss.backward()
    view = draw(loss, params=dict(model.named_parameters()))
    leaves = sorted(n["name"] for n in view.nodes if n.get("role") == "leaf")
    assert leaves == ["0.bias", "0.weight", "2.bias", "2.weight"]
    scopes = {g["label"]: g for g in view.groups if g["kind"] == "scope"}
    assert set(scopes) == {"0", "2"}
    addmm = [n for n in view.nodes if n.get("type") == "AddmmBackward0"]
    assert sorted(n["scope"] for n in addmm) == ["0", "2"]
    for name in ("0.weight", "2.bias"):
        assert view.node(name)["grad"]["repr"] == repr(dict(model.named_parameters())[name].grad)
    real = require_torch()
    real.manual_seed(0)
    theirs = real.nn.Sequential(real.nn.Linear(3, 4), real.nn.Tanh(), real.nn.Linear(4, 2))
    their_loss = theirs(real.randn(5, 3)).pow(2).mean()
    assert _function_names(view) == _walk_names(their_loss.grad_fn)


def test_scopes_recorded_from_module_calls():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
    with torch.viz.record_scopes() as scopes:
        out = model(torch.ones(1, 2)).sum()
    assert [r[3] for r in scopes.records] == ["Sequential", "Linear", "ReLU"]
    view = draw(out)
    labels = {g["label"] for g in view.groups}
    assert {"Sequential", "0 (Linear)", "1 (ReLU)"} <= labels
    assert view.node("ReluBackward0")["scope"] == "1 (ReLU)"
    assert view.node("SumBackward0").get("scope") is None


def test_retained_non_leaf_hooks_and_names():
    w = torch.tensor([1.0, -1.0], requires_grad=True)
    h = w * 3
    h.retain_grad()

    def double(grad):
        return grad * 2

    w.register_hook(double)
    y = h.relu().sum()
    y.backward()
    view = draw(y)
    retained = view.node("h")
    assert retained["role"] == "retained" and retained["grad"]["values"] == [1.0, 0.0]
    hooks = [hook for n in view.nodes for hook in n.get("hooks", [])]
    assert any(h["fn"].endswith("double") and h["where"] for h in hooks)
    assert view.node("w")["grad"]["values"] == [6.0, 0.0]


def test_grad_fn_as_root_and_bad_arguments():
    x = torch.tensor([1.0], requires_grad=True)
    y = x.exp()
    view = draw(y.grad_fn)
    assert _function_names(view) == ["ExpBackward0", "AccumulateGrad"]
    assert draw([y, {"more": x.sin()}]).to_dict()["roots"] == ["f0", "f2"]
    with pytest.raises(ValueError, match="at least one tensor"):
        draw()
    with pytest.raises(TypeError, match="expects tensors or grad_fn nodes"):
        draw(5)


def test_leaf_root_and_tensor_without_graph():
    x = torch.tensor([1.0], requires_grad=True)
    c = torch.tensor([2.0])
    view = draw(x, c)
    assert [n["role"] for n in view.nodes if n["kind"] == "tensor"] == ["leaf", "output"]


def test_repeated_runs_collapse_and_elide():
    x = torch.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(300):
        y = (y * 1.5).sin()
    view = draw(y, max_nodes=50)
    (group,) = view.groups
    assert group["kind"] == "repeat" and group["pattern"] == ["MulBackward0", "SinBackward0"]
    assert group["repeats"] == 300 and group["count"] == 600 and group["collapsed"]
    members = [n for n in view.nodes if n.get("group") == group["id"]]
    assert len(members) < 100  # the middle of the run is one placeholder
    more = [n for n in members if n["kind"] == "more"]
    assert len(more) == 1 and more[0]["hidden"] == 600 - (len(members) - 1)
    assert view.node("x")["role"] == "leaf" and view.node("x").get("group") is None
    # the collapsed drawing: the leaf, its accumulator, the run, the output
    svg = view.to_svg()
    assert svg.count('class="lg-node ') == 4 and "\u00d7300 repeated" in svg


def test_max_nodes_cuts_a_wide_graph():
    xs = [torch.tensor([float(i)], requires_grad=True) for i in range(100)]
    total = xs[0] * 2
    for x in xs[1:]:
        total = total + x * 2
    view = draw(total, max_nodes=60)
    stubs = [n for n in view.nodes if n["kind"] == "more"]
    assert len(stubs) == 1 and stubs[0]["hidden"] > 0
    described = [n for n in view.nodes if n["kind"] == "function"]
    assert len(described) <= 60 + 2


def test_exports(tmp_path):
    w, x, a, b, y = _seeds(torch)
    y.backward()
    view = draw(y)
    data = view.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert view.to_dot().startswith("digraph {")
    assert "f1 -> f0" in view.to_dot()
    svg = view.to_svg()
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    html = view.to_html()
    for ref in ("<script src", "<link", "url(http", "import("):
        assert ref not in html
    # the only URL is the SVG namespace name (an identifier, never fetched)
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html
    for suffix in (".html", ".svg", ".dot", ".gv", ".json"):
        path = view.save(tmp_path / f"graph{suffix}")
        assert path.endswith(suffix)
    with pytest.raises(ValueError, match="unknown suffix"):
        view.save(tmp_path / "graph.png")
    assert view._repr_svg_().startswith("<svg")
    assert view._repr_html_().startswith("<iframe srcdoc=")


def test_nan_and_inf_values_stay_json():
    x = torch.tensor([float("nan"), float("inf"), 1.0], requires_grad=True)
    view = draw((x * 2).sum())
    data = json.loads(json.dumps(view.to_dict(), allow_nan=False))
    leaf = [n for n in data["nodes"] if n.get("role") == "leaf"][0]
    assert leaf["value"]["values"] == ["nan", "inf", 1.0] and leaf["value"]["nan"] == 1
    assert "lg-data" in view.to_html()


def test_formulas_come_from_the_op_classes():
    x = torch.tensor([1.0], requires_grad=True)
    assert formula(torch.add(x, x).grad_fn) == ["grad_self = grad", "grad_other = grad"]
    assert formula(torch.add(x, x, alpha=2).grad_fn) == ["grad_self = grad",
                                                         "grad_other = scale(grad, conj(2))"]
    assert formula((x * 3).sin().grad_fn) == ["grad_self = grad * conj(self.cos())"]
    assert formula(x.exp().grad_fn) == ["grad_self = grad * conj(result)"]
    assert formula((x ** 0).grad_fn) == ["grad_self = zeros_like(grad)"]
    # every op: a list of "grad_<input> = ..." lines or None, never an error
    derived = 0
    for cls in OPS.values():
        node = cls.__new__(cls)
        node._params = {}
        lines = formula(node)
        if lines is not None:
            derived += 1
            assert all(line.startswith("grad_") and " = " in line for line in lines)
    assert derived > len(OPS) // 2
