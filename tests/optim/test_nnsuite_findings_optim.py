"""lr_scheduler behaviours found by replaying PyTorch's test/optim/test_lrscheduler.py as
programs run under torch and leafgrad; each program's observations must be identical."""

from __future__ import annotations

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _outcome(call):
    try:
        return "ok", call()
    except Exception as error:  # noqa: BLE001 - the exception is the observation
        return type(error).__name__, str(error).split("\n")[0]


@pytest.mark.parametrize("combiner", ["ChainedScheduler", "SequentialLR"])
def test_combined_schedulers_check_their_members(combiner):
    # ChainedScheduler accepted a ReduceLROnPlateau (and a member without an optimizer)
    def program(lib):
        S = lib.optim.lr_scheduler
        seen = []

        def optimizer():
            return lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1)

        def combine(members, opt):
            if combiner == "ChainedScheduler":
                return S.ChainedScheduler(members)
            return S.SequentialLR(opt, members, list(range(1, len(members))))

        for index in range(2):
            opt, other = optimizer(), optimizer()
            cases = [S.ReduceLROnPlateau(opt), object(), S.ExponentialLR(other, 0.9),
                     S.StepLR(opt, 2)]
            for odd in cases:
                members = [S.ConstantLR(opt, 0.5, 2)]
                members.insert(index, odd)

                def build():
                    combined = combine(members, opt)
                    for _ in range(3):
                        opt.step()
                        combined.step()
                    return [round(lr, 12) for lr in combined.get_last_lr()]

                seen.append((index, type(odd).__name__, _outcome(build)))
        return seen

    assert _outcome(lambda: program(leafgrad)) == _outcome(lambda: program(torch))
