"""F.multilabel_margin_loss and nn.MultiLabelMarginLoss against torch: values, gradients and
node names for batched, single-sample and 0-d input, targets ended by -1 (or not), repeated
targets, every reduction, float32/float64; reprs; torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [((3, 4), [[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 2, 2]]), ((4,), [2, 2, 0, -1]),
         ((), 0), ((2, 5), [[-1, 0, 0, 0, 0], [4, 4, 1, -1, 3]]), ((1, 3), [[0, 1, 2]])]


@pytest.mark.parametrize("shape,target", CASES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_torch(shape, target, reduction, dtype):
    scores = np.random.default_rng(len(shape)).normal(size=shape)

    def run(lib):
        x = lib.tensor(scores, dtype=getattr(lib, dtype), requires_grad=True)
        loss = lib.nn.functional.multilabel_margin_loss(x, lib.tensor(target),
                                                        reduction=reduction)
        module = lib.nn.MultiLabelMarginLoss(reduction=reduction)(x, lib.tensor(target))
        loss.sum().backward()
        return (loss.detach().numpy(), x.grad.numpy(), loss.grad_fn.name(),
                str(loss.dtype).split(".")[-1], module.detach().numpy())

    ours, theirs = run(leafgrad), run(torch)
    tol = 1e-6 if dtype == "float32" else 1e-12
    assert ours[2:4] == theirs[2:4]
    for a, b in zip(ours[:2] + ours[4:], theirs[:2] + theirs[4:]):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return None


BAD = ["F.multilabel_margin_loss(x, t[:, :3])", "F.multilabel_margin_loss(x, t.float())",
       "F.multilabel_margin_loss(x, t + 5)", "F.multilabel_margin_loss(x, t - 5)",
       "F.multilabel_margin_loss(lib.zeros(2, 3, 4), t)",
       "F.multilabel_margin_loss(lib.zeros(3, 0), lib.zeros(3, 0, dtype=lib.int64))",
       "F.multilabel_margin_loss(x, t, reduction='foo')"]


@pytest.mark.parametrize("code", BAD)
def test_errors_match_torch(code):
    def run(lib):
        scope = {"lib": lib, "F": lib.nn.functional, "x": lib.zeros(3, 4),
                 "t": lib.tensor([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 2, 2]])}
        return _error(lambda: eval(code, scope))

    assert run(torch) is not None
    assert run(leafgrad) == run(torch)


def test_module_repr_and_legacy_arguments():
    def run(lib):
        modules = [lib.nn.MultiLabelMarginLoss(), lib.nn.MultiLabelMarginLoss(reduction="sum"),
                   lib.nn.MultiLabelMarginLoss(size_average=False)]
        x = lib.tensor([[0.1, 0.2, 0.4, 0.8]])
        return [(repr(m), m.reduction, float(m(x, lib.tensor([[3, 0, -1, 1]]))))
                for m in modules]

    assert run(leafgrad) == run(torch)
