"""optim.swa_utils against torch: AveragedModel (SWA, EMA, custom avg_fn/multi_avg_fn,
use_buffers), update_bn, SWALR's learning rates, and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                             lib.nn.Linear(4, 2)).double()


def _averaging(lib, kind):
    swa = lib.optim.swa_utils
    options = {
        "swa": {}, "ema": {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.9)},
        "ema_single": {"avg_fn": swa.get_ema_avg_fn(0.8)},
        "swa_multi": {"multi_avg_fn": swa.get_swa_multi_avg_fn()},
        "custom": {"avg_fn": lambda a, p, n: 0.5 * a + 0.5 * p * (n + 1)},
        "buffers": {"use_buffers": True},
        "buffers_ema": {"use_buffers": True, "multi_avg_fn": swa.get_ema_multi_avg_fn(0.5)},
    }[kind]
    model = _model(lib)
    averaged = swa.AveragedModel(model, **options)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    data = lib.tensor(np.random.default_rng(0).normal(size=(8, 3)))
    for _ in range(6):
        optimizer.zero_grad()
        model(data).pow(2).sum().backward()
        optimizer.step()
        averaged.update_parameters(model)
    state = averaged.state_dict()
    return {key: value.numpy().astype(float) for key, value in state.items()}, \
        list(state), averaged(data).detach().numpy()


@pytest.mark.parametrize("kind", ["swa", "ema", "ema_single", "swa_multi", "custom", "buffers",
                                  "buffers_ema"])
def test_averaged_model_matches_torch(kind):
    (ours, our_keys, our_out), (theirs, their_keys, their_out) = \
        _averaging(leafgrad, kind), _averaging(torch, kind)
    assert our_keys == their_keys
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-12, atol=1e-14, err_msg=key)
    np.testing.assert_allclose(our_out, their_out, rtol=1e-12, atol=1e-14)


def test_update_bn_matches_torch():
    results = []
    for lib in (leafgrad, torch):
        model = _model(lib)
        data = lib.tensor(np.random.default_rng(1).normal(size=(12, 3)))
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(data), batch_size=5)
        model.eval()
        bn = model[1]
        bn.momentum = 0.3
        lib.optim.swa_utils.update_bn(loader, model)
        results.append((bn.running_mean.numpy(), bn.running_var.numpy(),
                        int(bn.num_batches_tracked), bn.momentum, model.training))
        plain = lib.nn.Linear(2, 2)
        lib.optim.swa_utils.update_bn([lib.ones(1, 2)], plain)  # no BatchNorm: nothing to do
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


SCHEDULES = [
    {"swa_lr": 0.05}, {"swa_lr": 0.05, "anneal_epochs": 3, "anneal_strategy": "linear"},
    {"swa_lr": [0.01, 0.2], "anneal_epochs": 0}, {"swa_lr": 0.5, "anneal_epochs": 1},
]


@pytest.mark.parametrize("options", SCHEDULES, ids=[str(o) for o in SCHEDULES])
def test_swalr_matches_torch(options):
    results = []
    for lib in (leafgrad, torch):
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(2, requires_grad=True)
        optimizer = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.3}], lr=1.0)
        scheduler = lib.optim.swa_utils.SWALR(optimizer, **options)
        lrs = [scheduler.get_last_lr()]
        for _ in range(15):
            optimizer.step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr())
        results.append((lrs, [g["swa_lr"] for g in optimizer.param_groups]))
    np.testing.assert_allclose(np.array(results[0][0]), np.array(results[1][0]), rtol=1e-13)
    assert results[0][1] == results[1][1]


def _error(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0]
    return None


def test_errors_match_torch():
    def run(lib):
        swa = lib.optim.swa_utils
        optimizer = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        cases = [lambda: swa.SWALR(optimizer, 0.1, anneal_strategy="exp"),
                 lambda: swa.SWALR(optimizer, 0.1, anneal_epochs=-1),
                 lambda: swa.SWALR(optimizer, 0.1, anneal_epochs=1.5),
                 lambda: swa.SWALR(optimizer, [0.1, 0.2]),
                 lambda: swa.get_ema_avg_fn(1.5), lambda: swa.get_ema_multi_avg_fn(-0.1),
                 lambda: swa.AveragedModel(lib.nn.Linear(1, 1), avg_fn=lambda *a: a[0],
                                           multi_avg_fn=lambda *a: None)]
        return [_error(case) for case in cases]

    assert run(leafgrad) == run(torch)
