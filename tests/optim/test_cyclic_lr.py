"""lr_scheduler.CyclicLR against torch: rates and momenta (SGD's momentum, Adam's beta1) to the
last bit for every mode, per-group bounds, asymmetric cycles, a custom scale function in both
scale modes, cycle_momentum off; state_dict round trip; errors."""

from __future__ import annotations

import pytest

import leafgrad

from .._torch import require_torch
from .test_lr_scheduler import _optimizer, _run

torch = require_torch()


class _Halving:
    """A callable object: its attributes go into the state dict (torch's rule)."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base ** x


CYCLIC = [
    "S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)",
    "S.CyclicLR(opt, 0.01, [0.1, 1.0], step_size_up=3, step_size_down=7, mode='triangular2')",
    "S.CyclicLR(opt, [0.001, 0.01], 0.2, step_size_up=5, mode='exp_range', gamma=0.97, "
    "base_momentum=[0.7, 0.6], max_momentum=0.95)",
    "S.CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1 / (x + 1))",
    "S.CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 0.99 ** x, "
    "scale_mode='iterations', cycle_momentum=False)",
]


@pytest.mark.parametrize("code", CYCLIC)
@pytest.mark.parametrize("kind", ["SGD", "Adam"])
def test_cyclic_rates_match_torch(code, kind):
    assert _run(leafgrad, code, kind) == _run(torch, code, kind)


def test_state_dict_round_trip():
    def run(lib):
        opt = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=3,
                                                    scale_fn=_Halving())
        for _ in range(5):
            opt.step()
            scheduler.step()
        state = scheduler.state_dict()
        state["_scale_fn_custom"]["base"] = 0.25
        resumed = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=3,
                                                  scale_fn=_Halving())
        resumed.load_state_dict(dict(state))
        rates = []
        for _ in range(6):
            opt.step()
            resumed.step()
            rates.append(resumed.get_last_lr())
        return sorted(state), rates

    assert run(leafgrad) == run(torch)


def test_errors_match_torch():
    def run(lib):
        found = []
        for code in ("S.CyclicLR(opt, 0.01, 0.1, mode='sine')",
                     "S.CyclicLR(lib.optim.Adagrad([lib.zeros(1, requires_grad=True)]), 0.1, "
                     "1.0)",
                     "S.CyclicLR(opt, [0.01], 0.1)", "S.CyclicLR(None, 0.01, 0.1)"):
            try:
                eval(code, {"S": lib.optim.lr_scheduler, "opt": _optimizer(lib), "lib": lib})
                found.append(None)
            except (TypeError, ValueError) as error:
                found.append((type(error).__name__, str(error)))
        return found

    assert run(leafgrad) == run(torch)
