"""Misuse of tensors and autograd: same exception type and first message line as torch."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

EXPRESSIONS = ["lib.ones(2, dtype=lib.int64).requires_grad_()", "lib.tensor([1, 2], requires_grad=True)",
          "setattr(y, 'requires_grad', False)", "lib.ones(2).register_hook(lambda g: g)",
          "lib.ones(2).retain_grad()", "y[0].detach_()", "setattr(x, 'grad', lib.ones(3))",
          "setattr(x, 'grad', lib.ones(2, dtype=lib.float64))", "setattr(x, 'grad', 3)",
          "len(lib.tensor(1.))", "iter(lib.tensor(1.))", "[1,2][lib.tensor(1.)]", "[1,2][lib.tensor([1])]",
          "lib.ones(2).view(3)", "lib.ones(2,3).t().view(6)", "lib.ones(2,3).view(-1,-1)",
          "lib.ones(2,3).permute(0)", "lib.ones(2,3).permute(0,0)", "lib.ones(2,3,4).t()",
          "lib.ones(2).expand(1)", "lib.ones(2,1).expand(-1, -1, 3)", "lib.ones(2).narrow(0, 1, 5)",
          "lib.ones(2).select(0, 5)", "lib.tensor(1.).select(0,0)", "lib.ones(2)[5]", "lib.ones(2)[0,0]",
          "lib.ones(2)[lib.tensor([1.])]", "lib.ones(2)[lib.tensor([3])]",
          "lib.cat([])", "lib.cat(lib.ones(2))", "lib.cat([lib.ones(2), lib.ones(2,2)])", "lib.cat([lib.tensor(1.)])",
          "lib.stack([])", "lib.ones(2).sum(3)", "lib.ones(2).mean()", "lib.ones(2, dtype=lib.int64).mean()",
          "lib.ones(2,3).squeeze(5)", "lib.ones(2).unsqueeze(3)", "lib.ones(2).transpose(0, 2)",
          "lib.ones(2) @ lib.ones(3)", "lib.ones(2,3) @ lib.ones(2)", "lib.ones(2) @ lib.ones(3,2)",
          "lib.tensor(1.) @ lib.ones(2)", "lib.ones(2,2,3) @ lib.ones(2,2,3)", "lib.ones(2,3).mm(lib.ones(2,3))",
          "lib.ones(2,2) @ lib.ones(2,2, dtype=lib.float64)", "lib.ones(2, dtype=lib.int64).add_(1.5)",
          "lib.ones(2).add_(lib.ones(2,2))", "lib.tensor([True]) - lib.tensor([True])", "-lib.tensor([True])",
          "lib.ones(2).item()", "bool(lib.ones(2))", "bool(lib.ones(0))", "x.numpy()",
          "lib.ones(2,3).bmm(lib.ones(2,3,1))", "lib.zeros(-1)", "lib.arange(0, 5, 0)", "lib.arange(5, 0, 1)",
          "lib.ones(2).backward()", "lib.ones(2, requires_grad=True).sum().backward(inputs=[])",
          "lib.ones(2, requires_grad=True).backward(lib.ones(2), inputs=[lib.ones(2)])",
          "lib.autograd.grad(lib.ones(2, requires_grad=True).sum(), [])",
          "lib.ones(2,2).expand(2)", "lib.ones(3).view(2, -1)", "lib.ones(0).reshape(-1, 0)",
          "lib.ones(2).clamp()", "lib.ones(2,3).flatten(1, 0)"]


def _outcome(lib, expression):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    namespace = {"lib": lib, "np": np, "x": x, "y": x * 2}
    try:
        eval(expression, namespace)
    except Exception as error:  # noqa: BLE001 - the point is to compare whatever is raised
        text = str(error).splitlines()[0] if str(error) else ""
        return type(error).__name__, text.replace("torch.", "leafgrad.")
    return "OK", ""


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_same_error_as_torch(expression):
    assert _outcome(leafgrad, expression) == _outcome(torch, expression)
