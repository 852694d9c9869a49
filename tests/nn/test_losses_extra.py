"""More losses against torch, as functions and as modules: values, grad_fn names and gradients
for every reduction and option; torch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [
    "F.margin_ranking_loss(a, b, t, 0.2)", "F.margin_ranking_loss(a, b, t, reduction='none')",
    "nn.MarginRankingLoss(margin=0.5, reduction='sum')(a, b, t)",
    "F.hinge_embedding_loss(x, lib.sign(y))", "nn.HingeEmbeddingLoss(0.5, reduction='sum')(x, lib.sign(y))",
    "F.cosine_embedding_loss(x, y, t)", "nn.CosineEmbeddingLoss(0.3, reduction='none')(x, y, t)",
    "F.triplet_margin_loss(x, y, y * 2)",
    "nn.TripletMarginLoss(p=1, swap=True, reduction='sum')(x, y, y * 2)",
    "F.poisson_nll_loss(x, y.abs())",
    "nn.PoissonNLLLoss(log_input=False, full=True, reduction='none')(x.abs() + 0.5, y.abs() * 3)",
    "F.gaussian_nll_loss(x, y, y.abs() + 0.1)",
    "nn.GaussianNLLLoss(full=True, reduction='sum')(x, y, y[:, 0].abs() + 0.1)",
    "F.multilabel_soft_margin_loss(x, (y > 0).double())",
    "nn.MultiLabelSoftMarginLoss(weight=lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64), "
    "reduction='none')(x, (y > 0).double())",
    "nn.PairwiseDistance()(x, y).sum()", "nn.PairwiseDistance(p=1, keepdim=True)(x, y).sum()",
    "F.margin_ranking_loss(a, b, t, size_average=False)",
    "F.soft_margin_loss(x, lib.sign(y))", "nn.SoftMarginLoss(reduction='none')(x, lib.sign(y))",
    "F.multi_margin_loss(x, lib.tensor([0, 2, 1, 2]))",
    "nn.MultiMarginLoss(p=2, margin=0.5, reduction='sum')(x, lib.tensor([0, 2, 1, 2]))",
    "nn.MultiMarginLoss(weight=lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64), "
    "reduction='none')(x, lib.tensor([0, 2, 1, 2]))",
    "F.triplet_margin_with_distance_loss(x, y, y * 2)",
    "nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: (a - b).abs().sum(-1), "
    "swap=True, reduction='sum')(x, y, y * 2)",
]


def _run(lib, code):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.normal(size=(4, 3)), requires_grad=True)
    y = lib.tensor(rng.normal(size=(4, 3)))
    t = lib.tensor([1.0, -1, 1, -1], dtype=lib.float64)
    a = lib.tensor(rng.normal(size=4), requires_grad=True)
    b = lib.tensor(rng.normal(size=4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = eval(code, {"lib": lib, "F": lib.nn.functional, "nn": lib.nn, "x": x, "y": y,  # noqa: S307
                          "t": t, "a": a, "b": b})
    out.sum().backward()
    grad = x.grad if x.grad is not None else a.grad
    name = out.grad_fn.name()
    return name, out.detach().numpy(), grad.numpy()


@pytest.mark.parametrize("code", CASES)
def test_loss_matches_torch(code):
    ours, theirs = _run(leafgrad, code), _run(torch, code)
    if "PairwiseDistance" not in code:  # torch's C++ pairwise_distance records NormBackward1
        assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-10, atol=1e-12)


def test_errors_match_torch():
    def run(lib):
        out = []
        for bad in (lambda: lib.nn.functional.gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3),
                                                                lib.ones(3, 3)),
                    lambda: lib.nn.functional.gaussian_nll_loss(lib.ones(2), lib.ones(2),
                                                                -lib.ones(2)),
                    lambda: lib.nn.TripletMarginLoss(margin=0.0),
                    lambda: lib.nn.functional.poisson_nll_loss(lib.ones(2), lib.ones(2),
                                                               reduction="bad")):
            try:
                bad()
                out.append(None)
            except Exception as error:  # noqa: BLE001
                out.append((type(error).__name__, str(error).splitlines()[0]))
        return out

    assert run(leafgrad) == run(torch)
