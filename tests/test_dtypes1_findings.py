"""Differences from torch 2.13 found in the dtypes1 audit of dtype-kind tests, each checked
against torch itself in the same run.

leafgrad's bfloat16 arrays are ml_dtypes' (kind "V"), so a test ``dtype.kind in "fc"`` is False
for them (Note: bfloat16 in _dtype.py); ``_dtype.is_inexact``/``is_floating`` know it.

1. Backward formulas under create_graph take C++'s Tensor-and-number operator forms
   (AddBackward1, MulBackward1: Note: C++ operators in backward formulas) for bfloat16 too
   (leafgrad recorded Python's AddBackward0/MulBackward0 there).
"""

from __future__ import annotations

import itertools

import leafgrad
from tests._torch import require_torch

torch = require_torch()

FLOATING = ("bfloat16", "float16", "float32", "float64")
VALUES = {"f": [-1.5, 0.25, 2.0, 3.75, -0.0, 7.0], "c": [1 + 2j, -0.5 + 0.25j, 3 - 1j, 0j, 2 + 0j, -1 - 1j]}


def _outcome(call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - type and first line are compared
        return type(error).__name__, str(error).splitlines()[0].replace("leafgrad", "torch")
    return "ok", result


def _bits(tensor):
    """dtype, shape and bytes of a tensor (bfloat16 read as int16: NumPy has no bfloat16)."""
    lib = torch if isinstance(tensor, torch.Tensor) else leafgrad
    data = tensor.detach()
    if data.dtype == lib.bfloat16:
        data = data.view(lib.int16)
    return str(tensor.dtype).split(".")[1], tuple(tensor.shape), data.contiguous().numpy().tobytes()


def _make(lib, dtype, requires_grad=False, shape=(2, 3)):
    values = VALUES["c" if dtype.startswith("complex") else "f"]
    made = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)
    return made.requires_grad_(requires_grad)


def _graph(tensor):
    """The node names of ``tensor``'s graph, depth first in input order."""
    seen, names, stack = set(), [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node).__name__)
        stack.extend(parent for parent, _ in reversed(node.next_functions))
    return names


_CREATE_GRAPH = {
    "sinc": lambda lib, x: x.sinc(),
    "atan": lambda lib, x: x.atan(),
    "asin": lambda lib, x: (x / 10).asin(),
    "acos": lambda lib, x: (x / 10).acos(),
    "pairwise_distance": lambda lib, x: lib.nn.functional.pairwise_distance(x, x.detach() + 1),
    "pow": lambda lib, x: x ** 3,
    "rdiv": lambda lib, x: 2 / (x + 10),
    "rsub": lambda lib, x: 1 - x * 2,
    "erf": lambda lib, x: x.erf(),
    "softplus": lambda lib, x: lib.nn.functional.softplus(x),
}


def test_create_graph_backward_formulas_take_cpp_scalar_forms_for_bfloat16():
    for (name, function), dtype in itertools.product(_CREATE_GRAPH.items(), FLOATING):
        seen = []
        for lib in (torch, leafgrad):
            def run():
                x = _make(lib, dtype, True)
                grad, = lib.autograd.grad(function(lib, x).sum(), x, create_graph=True)
                return _bits(grad), _graph(grad)

            seen.append(_outcome(run))
        assert seen[0] == seen[1], (name, dtype)
