"""A tutorial's small training loops end on torch's weights bit for bit: five Adam steps of
an MLP with BatchNorm1d and Dropout under cross-entropy, one with LayerNorm and SiLU, one with
sigmoid under mse_loss, and a GRU, each from the same seed, the batches drawn from torch's
generator. Before stop 29 the first two ended with a few hundred weights a last bit off
(BatchNorm1d's input gradient, layer_norm's forward statistics, silu's gradient), the GRU with
~600 (its gates' sigmoid split), and mse_loss's gradient was off on half its elements."""

from __future__ import annotations

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()
LIBS = (torch, leafgrad)


def _model(lib, arch: str):
    nn = lib.nn
    lib.manual_seed(0)
    if arch == "mlp_batchnorm":
        return nn.Sequential(nn.Linear(20, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2),
                             nn.Linear(64, 5))
    if arch == "mlp_layernorm_silu":
        return nn.Sequential(nn.Linear(20, 32), nn.LayerNorm(32), nn.SiLU(), nn.Linear(32, 5))
    if arch == "mlp_sigmoid_mse":
        return nn.Sequential(nn.Linear(20, 16), nn.Sigmoid(), nn.Linear(16, 5))
    return nn.GRU(20, 16, batch_first=True)


def _train(lib, arch: str):
    model = _model(lib, arch)
    optimizer = lib.optim.Adam(model.parameters(), lr=0.01)
    generator = lib.Generator().manual_seed(1)
    functional = lib.nn.functional
    losses = []
    for _ in range(5):
        if arch == "gru":
            x = lib.randn(8, 6, 20, generator=generator)
            target = lib.randn(8, 6, 16, generator=generator)
            loss = functional.mse_loss(model(x)[0], target)
        elif arch == "mlp_sigmoid_mse":
            x = lib.randn(16, 20, generator=generator)
            loss = functional.mse_loss(model(x), lib.randn(16, 5, generator=generator))
        else:
            x = lib.randn(16, 20, generator=generator)
            labels = lib.randint(0, 5, (16,), generator=generator)
            loss = functional.cross_entropy(model(x), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, [p.detach().numpy().tobytes() for p in model.parameters()]


@pytest.mark.parametrize("arch", ["mlp_batchnorm", "mlp_layernorm_silu", "mlp_sigmoid_mse",
                                  "gru"])
def test_five_training_steps_end_on_torchs_weights(arch):
    threads = [lib.get_num_threads() for lib in LIBS]
    try:
        for lib in LIBS:
            lib.set_num_threads(1)
        (want_losses, want), (got_losses, got) = (_train(lib, arch) for lib in LIBS)
    finally:
        for lib, count in zip(LIBS, threads):
            lib.set_num_threads(count)
    assert got_losses == want_losses
    assert [g == w for g, w in zip(got, want)] == [True] * len(want)
