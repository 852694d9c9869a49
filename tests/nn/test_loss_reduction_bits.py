"""Reduced losses add in torch's order: apply_loss_reduction is loss.sum() / loss.mean(), the
same cascade as Tensor.sum (ops/_cascade_sum.py); NumPy's pairwise sum differed in the last
bit on about half of mse/bce/smooth_l1/huber/soft_margin losses."""

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

LOSSES = {
    "mse_loss": lambda F, m, x, p, t, r: F.mse_loss(x, t, reduction=r),
    "smooth_l1_loss": lambda F, m, x, p, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.5),
    "huber_loss": lambda F, m, x, p, t, r: F.huber_loss(x, t, reduction=r, delta=0.7),
    "soft_margin_loss": lambda F, m, x, p, t, r: F.soft_margin_loss(x, t * 2 - 1, reduction=r),
    "binary_cross_entropy": lambda F, m, x, p, t, r: F.binary_cross_entropy(p, t, reduction=r),
    "mse_broadcast_module": lambda F, m, x, p, t, r: m.nn.MSELoss(reduction=r)(x, t[:1]),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("shape", [(3,), (6,), (9,), (33,), (4, 25), (1000,), (3, 7, 11)],
                         ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reduced_loss_bits(name, shape, dtype):
    for seed in range(6):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(shape).astype(dtype)
        p = (rng.random(shape) * 0.98 + 0.01).astype(dtype)
        t = (rng.random(shape) > 0.5).astype(dtype)
        for reduction in ("sum", "mean"):
            values = []
            for m in (torch, lg):
                # the pointwise part is exact for these (no exp/log except bce's log, whose
                # float64-rounded form is torch's on these inputs)
                out = LOSSES[name](m.nn.functional, m, m.tensor(x), m.tensor(p), m.tensor(t),
                                   reduction)
                values.append(out.item())
            if name in ("soft_margin_loss", "binary_cross_entropy"):
                # an elementwise log/exp may differ in a last bit (docs/float32-bits.md): the
                # reduction must be the cascade sum of leafgrad's own pointwise losses, and
                # torch's value wherever those pointwise losses are torch's
                pointwise = [LOSSES[name](m.nn.functional, m, m.tensor(x), m.tensor(p),
                                          m.tensor(t), "none").numpy() for m in (torch, lg)]
                mine = getattr(torch.tensor(pointwise[1]), reduction)().item()
                assert values[1] == mine
                if np.array_equal(pointwise[0], pointwise[1]):
                    assert values[0] == values[1], (seed, reduction)
                continue
            assert values[0] == values[1], (seed, reduction)
