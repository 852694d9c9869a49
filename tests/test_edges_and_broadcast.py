"""Small agreements with torch 2.13 found while testing other areas: the loss nodes that take a
weight they never differentiate have no edge for it, and broadcast_tensors reports a mismatch
with torch's message (naming the sizes in torch's order of checks)."""

from __future__ import annotations

import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _edge_names(node):
    return [None if child is None else (child.name(), nr) for child, nr in node.next_functions]


@pytest.mark.parametrize("program", [
    "F.nll_loss(x.log_softmax(1), lib.tensor([0, 1, 2]))",
    "F.nll_loss(x.log_softmax(1), lib.tensor([0, 1, 2]), weight=lib.ones(4))",
    "F.cross_entropy(x, lib.tensor([0, 1, 2]), weight=lib.ones(4), reduction='none')",
    "F.nll_loss(x.view(3, 2, 2, 1), lib.zeros(3, 2, 1).long())",
    "F.nll_loss(x.view(3, 2, 2), lib.zeros(3, 2).long(), reduction='sum')",
    "F.multi_margin_loss(x, lib.tensor([0, 3, 1]), weight=lib.ones(4))",
    "F.multi_margin_loss(x, lib.tensor([0, 3, 1]))",
])
def test_loss_nodes_have_torchs_edges(program):
    def edges(lib):
        x = lib.randn(3, 4, requires_grad=True)
        out = eval(program, {"lib": lib, "F": lib.nn.functional, "x": x})
        return out.grad_fn.name(), _edge_names(out.grad_fn)

    assert edges(leafgrad) == edges(torch)


@pytest.mark.parametrize("shapes", [
    [(2,), (3,)], [(2, 3), (4, 3)], [(1,), (2,), (3,)], [(2, 1), (3,), (4, 1, 5)],
    [(2, 1), (3,)], [(0,), (1,)], [(0,), (2,)], [()], [],
])
def test_broadcast_tensors_as_torch(shapes):
    def run(lib):
        try:
            return [tuple(t.shape) for t in lib.broadcast_tensors(*[lib.ones(s) for s in shapes])]
        except Exception as error:  # noqa: BLE001 - comparing what torch raises
            return type(error).__name__, str(error)

    assert run(leafgrad) == run(torch)
