"""Parameters (and Buffers) as operands, as in torch: every binary operator between two
Parameters, a Parameter and a Tensor, and a Parameter and a number gives a plain Tensor with
torch's value and node; unsupported operands raise torch's TypeError."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

# floordiv and mod are left to the core's operator tests: torch records floor_divide and
# remainder(number, tensor) as torch::autograd::NotImplemented nodes
OPERATORS = ["add", "sub", "mul", "truediv", "pow", "matmul", "lt", "le", "gt", "ge", "eq",
             "ne"]


@pytest.mark.parametrize("right", ["parameter", "tensor", "number", "buffer"])
@pytest.mark.parametrize("name", OPERATORS)
def test_parameters_are_operands(name, right):
    def run(lib):
        a = lib.nn.Parameter(lib.tensor([1.5, 2.0, 3.0]))
        b = {"parameter": lib.nn.Parameter(lib.tensor([0.5, 4.0, 1.0])),
             "tensor": lib.tensor([0.5, 4.0, 1.0]), "number": 2.0,
             "buffer": lib.nn.Buffer(lib.tensor([0.5, 4.0, 1.0]))}[right]
        results = []
        for x, y in ((a, b), (b, a)):
            if name == "matmul" and right == "number":
                continue
            out = getattr(operator, name)(x, y)
            node = out.grad_fn.name() if out.grad_fn is not None else None
            results.append((type(out).__name__, node, out.detach().numpy()))
        return results

    ours, theirs = run(leafgrad), run(torch)
    assert [r[:2] for r in ours] == [r[:2] for r in theirs]
    for a, b in zip(ours, theirs):  # float32 pow may differ in the last bit
        np.testing.assert_allclose(a[2], b[2], rtol=1e-6)


@pytest.mark.parametrize("other", ["None", "'text'", "[1.0]"])
def test_unsupported_operands_raise_torchs_type_error(other):
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        try:
            p * eval(other)  # noqa: S307 - literals above
        except TypeError as error:
            return str(error)
        return None

    assert run(leafgrad) == run(torch) is not None
