"""make_dot writes the DOT torchviz writes (node ids aside), and Digraph behaves as graphviz's."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import warnings

import pytest

import leafgrad
from leafgrad.viz import Digraph, make_dot
from leafgrad.viz._dot import quote

from .._torch import require_torch


def _torchviz():
    """torchviz (a test dependency): skipped locally when absent, required under CI=1."""
    require_torch()
    if importlib.util.find_spec("torchviz") is None and not os.environ.get("CI"):
        pytest.skip("torchviz is not installed (pip install -e '.[test]')")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torchviz imports distutils
        from torchviz import make_dot as torchviz_make_dot
    return torchviz_make_dot


def _ids_in_order(source: str) -> str:
    """Node names are ``str(id(obj))``: number them by first appearance instead."""
    ids: dict = {}
    return re.sub(r"\b\d{6,}\b", lambda m: ids.setdefault(m.group(0), f"N{len(ids)}"), source)


def _seeds(t):
    w = t.tensor([1.0], requires_grad=True)
    x = t.tensor([2.0], requires_grad=True)
    return t.mul(t.add(w, x), t.add(w, 1)), {"w": w, "x": x}


def _view(t):
    x = t.tensor([2.0], requires_grad=True)
    return x.view(1, 1).expand(2, 1), None


def _mlp(t):
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.ReLU(), t.nn.Linear(4, 2))
    return model(t.randn(2, 3)).sum(), dict(model.named_parameters())


def _outputs(t):
    a = t.tensor([1.0, 2.0], requires_grad=True)
    return (a * 2, a.exp()), None


def _function(t):
    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    a = t.tensor([3.0], requires_grad=True)
    return Square.apply(a).sum(), None


def _retained_and_shared(t):
    w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = w.sin()
    return (h * h + h.cos()).mean(), {"w": w}


PROGRAMS = [_seeds, _view, _mlp, _outputs, _function, _retained_and_shared]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__.strip("_"))
def test_same_dot_as_torchviz(program):
    torchviz_make_dot = _torchviz()
    import torch

    theirs, their_params = program(torch)
    ours, our_params = program(leafgrad)
    expected = torchviz_make_dot(theirs, params=their_params).source
    assert _ids_in_order(make_dot(ours, params=our_params).source) == _ids_in_order(expected)


@pytest.mark.parametrize("program", [_seeds, _view, _mlp, _function],
                         ids=lambda p: p.__name__.strip("_"))
def test_same_saved_tensor_nodes_as_torchviz(program):
    # show_saved lists what ``_saved_*`` accessors return; on these programs leafgrad's nodes
    # save what torch's do (see the report for ops where the accessors differ)
    torchviz_make_dot = _torchviz()
    import torch

    theirs, their_params = program(torch)
    ours, our_params = program(leafgrad)
    expected = torchviz_make_dot(theirs, params=their_params, show_saved=True).source
    got = make_dot(ours, params=our_params, show_saved=True).source
    assert _ids_in_order(got) == _ids_in_order(expected)


def test_the_dot_torchviz_users_read():
    w = leafgrad.tensor([1.0], requires_grad=True)
    y = (w * 3).sum()
    dot = make_dot(y, params={"w": w})
    source = dot.source
    assert source.startswith('digraph {\n\tgraph [size="12,12"]\n\tnode [align=left '
                             "fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box "
                             "style=filled]\n")
    assert f'\t{id(w)} [label="w\n (1)" fillcolor=lightblue]\n' in source
    assert f"\t{id(y)} [label=\"\n ()\" fillcolor=darkolivegreen1]\n" in source
    assert f"\t{id(y.grad_fn)} [label=SumBackward0]\n" in source
    assert source.endswith("}\n")
    assert str(dot) == source


def test_resize_like_torchviz():
    x = leafgrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(60):
        y = y * 1.5
    dot = make_dot(y)
    size = max(12, len(dot.body) * 0.15)
    assert dot.graph_attr["size"] == f"{size},{size}"
    assert dot.graph_attr["size"] != "12,12"


def test_deep_graph_without_recursion():
    x = leafgrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0001
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # torchviz's recursive walk needs one frame per node
    try:
        dot = make_dot(y)
    finally:
        sys.setrecursionlimit(limit)
    assert dot.source.count("MulBackward0") == 5000


def test_render_svg_needs_no_graphviz_program(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "")  # no dot program
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    dot = make_dot((x * x).sum(), params={"x": x})
    target = dot.render(str(tmp_path / "graph"), format="svg")
    assert target == str(tmp_path / "graph") + ".svg"
    with open(target, encoding="utf-8") as handle:
        svg = handle.read()
    assert svg.startswith("<svg") and "MulBackward0" in svg and "SumBackward0" in svg
    with open(str(tmp_path / "graph"), encoding="utf-8") as handle:
        assert handle.read() == dot.source  # the source is saved beside it, as graphviz does
    assert dot._repr_mimebundle_()["image/svg+xml"].startswith("<svg")
    assert dot.pipe(format="svg", encoding="utf-8").startswith("<svg")
    with pytest.raises(RuntimeError, match="needs the graphviz program 'dot'"):
        dot.render(str(tmp_path / "graph"), format="png")


def test_digraph_statements_and_quoting():
    graph = Digraph(comment="hi", node_attr={"shape": "box"})
    graph.node("a", "first node")
    graph.node("node")  # a keyword: quoted
    graph.edge("a", "node", style="dotted")
    graph.attr("graph", rankdir="LR")
    assert graph.source == (
        "// hi\ndigraph {\n\tnode [shape=box]\n\ta [label=\"first node\"]\n\t\"node\"\n"
        "\ta -> \"node\" [style=dotted]\n\tgraph [rankdir=LR]\n}\n")
    assert quote("spam") == "spam" and quote("-4.2") == "-4.2" and quote("a b") == '"a b"'
    assert quote('say "hi"') == '"say \\"hi\\""'
    with pytest.raises(ValueError, match="attr statement must target graph, node, or edge"):
        graph.attr("cluster", color="red")


def test_params_must_be_tensors():
    x = leafgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(AssertionError):
        make_dot(x * 2, params={"x": 1.0})
