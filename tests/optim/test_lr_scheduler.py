"""lr_scheduler against torch.optim.lr_scheduler: the learning rates (and cycled momenta) of
40 epochs, chained/sequential schedulers, ReduceLROnPlateau on a metric sequence, explicit
epochs (closed forms), state_dict round trips, warnings and errors."""

from __future__ import annotations

import warnings

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _optimizer(lib, kind="SGD"):
    w = lib.zeros(2, requires_grad=True)
    b = lib.zeros(1, requires_grad=True)
    groups = [{"params": [w]}, {"params": [b], "lr": 0.5}]
    if kind == "Adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


SCHEDULERS = [
    "S.StepLR(opt, step_size=7)", "S.StepLR(opt, 3, gamma=0.5)",
    "S.MultiStepLR(opt, milestones=[5, 12, 12, 30], gamma=0.3)",
    "S.ConstantLR(opt)", "S.ConstantLR(opt, factor=0.5, total_iters=10)",
    "S.LinearLR(opt)", "S.LinearLR(opt, start_factor=0.2, end_factor=0.9, total_iters=13)",
    "S.ExponentialLR(opt, gamma=0.9)", "S.PolynomialLR(opt, total_iters=17, power=2.0)",
    "S.CosineAnnealingLR(opt, T_max=10)", "S.CosineAnnealingLR(opt, T_max=7, eta_min=0.01)",
    "S.CosineAnnealingWarmRestarts(opt, T_0=5)",
    "S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)",
    "S.LambdaLR(opt, lambda epoch: 0.95 ** epoch)",
    "S.LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.9 ** e])",
    "S.MultiplicativeLR(opt, lambda epoch: 0.97)",
    "S.OneCycleLR(opt, max_lr=1.0, total_steps=41)",
    "S.OneCycleLR(opt, max_lr=[1.0, 2.0], epochs=4, steps_per_epoch=11, "
    "anneal_strategy='linear', three_phase=True)",
    "S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.1, total_iters=2), "
    "S.ExponentialLR(opt, gamma=0.9)], milestones=[2])",
    "S.SequentialLR(opt, [S.LinearLR(opt, 0.1, total_iters=5), "
    "S.CosineAnnealingLR(opt, T_max=20)], milestones=[5])",
    "S.ChainedScheduler([S.ConstantLR(opt, factor=0.1, total_iters=2), "
    "S.ExponentialLR(opt, gamma=0.9)])",
]


def _run(lib, code, kind="SGD", epochs=40):
    opt = _optimizer(lib, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scheduler = eval(code, {"S": lib.optim.lr_scheduler, "opt": opt})  # noqa: S307
    rates = [scheduler.get_last_lr()]
    momenta = []
    for _ in range(epochs):
        opt.step()
        scheduler.step()
        rates.append(scheduler.get_last_lr())
        momenta.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return rates, momenta, [g["lr"] for g in opt.param_groups]


@pytest.mark.parametrize("code", SCHEDULERS)
def test_rates_match_torch(code):
    ours, theirs = _run(leafgrad, code), _run(torch, code)
    assert ours == theirs  # the same float arithmetic: equal to the last bit


@pytest.mark.parametrize("code", ["S.OneCycleLR(opt, max_lr=0.3, total_steps=40)"])
def test_one_cycle_with_adam_cycles_beta1_like_torch(code):
    ours, theirs = _run(leafgrad, code, "Adam", 39), _run(torch, code, "Adam", 39)
    assert ours == theirs


def test_reduce_lr_on_plateau_matches_torch():
    metrics = [1.0, 0.9, 0.91, 0.92, 0.93, 0.89, 0.9, 0.95, 0.97, 0.99, 1.0, 0.5, 0.6, 0.7,
               0.8, 0.9, 0.85, 0.86, 0.87]

    def run(lib, **options):
        opt = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **options)
        out = []
        for metric in metrics:
            scheduler.step(metric)
            out.append((scheduler.get_last_lr(), scheduler.num_bad_epochs, scheduler.best))
        return out

    for options in ({"patience": 1}, {"mode": "max", "patience": 2, "factor": 0.5},
                    {"patience": 0, "cooldown": 2, "min_lr": [0.01, 0.2]},
                    {"threshold_mode": "abs", "threshold": 0.05, "patience": 1}):
        assert run(leafgrad, **options) == run(torch, **options)


def test_explicit_epochs_use_torchs_closed_forms():
    def run(lib, code):
        opt = _optimizer(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scheduler = eval(code, {"S": lib.optim.lr_scheduler, "opt": opt})  # noqa: S307
            out = []
            for epoch in (3, 7, 2, 15, 15, 30):
                opt.step()
                scheduler.step(epoch)
                out.append(scheduler.get_last_lr())
        return out

    for code in SCHEDULERS[:13]:
        assert run(leafgrad, code) == run(torch, code), code


def test_state_dict_round_trip_continues_like_torch():
    def run(lib):
        opt = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=9)
        for _ in range(4):
            opt.step()
            scheduler.step()
        state = scheduler.state_dict()
        opt2 = _optimizer(lib)
        opt2.load_state_dict(opt.state_dict())
        resumed = lib.optim.lr_scheduler.CosineAnnealingLR(opt2, T_max=9)
        resumed.load_state_dict(state)
        rates = []
        for _ in range(10):
            opt2.step()
            resumed.step()
            rates.append(resumed.get_last_lr())
        return sorted(k for k in state if not k.startswith("_get")), rates

    assert run(leafgrad) == run(torch)


def test_warnings_and_errors_match_torch():
    def run(lib):
        out = []
        opt = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler.step()  # before any optimizer.step()
            scheduler.get_lr()  # outside step
        out.append([str(w.message).split(".")[0] for w in caught])
        S = lib.optim.lr_scheduler
        for bad in (lambda: S.StepLR(object(), 2), lambda: S.ConstantLR(opt, factor=2),
                    lambda: S.LinearLR(opt, start_factor=0),
                    lambda: S.CosineAnnealingWarmRestarts(opt, T_0=0),
                    lambda: S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0),
                    lambda: S.OneCycleLR(opt, max_lr=1.0),
                    lambda: S.OneCycleLR(opt, max_lr=1.0, total_steps=5, pct_start=2.0),
                    lambda: S.ReduceLROnPlateau(opt, factor=1.5),
                    lambda: S.ReduceLROnPlateau(opt, mode="middle"),
                    lambda: S.SequentialLR(opt, [S.StepLR(opt, 2)], milestones=[3]),
                    lambda: S.LambdaLR(opt, [lambda e: 1.0]),
                    lambda: S.StepLR(_optimizer(lib), 2, last_epoch=3)):
            try:
                bad()
                out.append(None)
            except Exception as error:  # noqa: BLE001
                out.append((type(error).__name__, str(error).splitlines()[0]))
        return out

    assert run(leafgrad) == run(torch)
