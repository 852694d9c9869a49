"""leafgrad.amp.GradScaler against torch.amp.GradScaler on CPU: same scales, same steps."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _train(m, steps, inf_at=(), growth_interval=3, use_unscale=False):
    m.manual_seed(0)
    model = m.nn.Linear(3, 2)
    opt = m.optim.SGD(model.parameters(), lr=0.1)
    scaler = m.amp.GradScaler("cpu", init_scale=256.0, growth_interval=growth_interval)
    history = []
    for step in range(steps):
        x = m.randn(4, 3)
        opt.zero_grad()
        with m.autocast("cpu", dtype=m.float16):
            loss = m.nn.functional.mse_loss(model(x), m.zeros(4, 2))
        if step in inf_at:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        if use_unscale:
            scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        history.append((scaler.get_scale(), scaler._get_growth_tracker(), loss.dtype))
    return history, [p.detach().numpy().copy() for p in model.parameters()], scaler.state_dict()


@pytest.mark.parametrize("inf_at", [(), (1,), (0, 4)])
@pytest.mark.parametrize("use_unscale", [False, True])
def test_training_loop_matches_torch(inf_at, use_unscale):
    t_hist, t_params, t_state = _train(torch, 8, inf_at, use_unscale=use_unscale)
    l_hist, l_params, l_state = _train(lg, 8, inf_at, use_unscale=use_unscale)
    assert [h[:2] for h in l_hist] == [h[:2] for h in t_hist]
    assert l_state == t_state
    for a, b in zip(l_params, t_params):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-3)


def test_disabled_default_device_passes_through():
    outcomes = []
    for m in (torch, lg):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = m.amp.GradScaler()
        loss = m.tensor(2.0, requires_grad=True)
        outcomes.append((scaler.is_enabled(), scaler.get_scale(), scaler.scale(loss) is loss,
                         scaler.state_dict(), [str(w.message) for w in caught]))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("call", ["double_unscale", "unscale_after_step", "no_scale",
                                  "closure", "bad_growth", "bad_backoff", "load_empty"])
def test_errors(call):
    outcomes = []
    for m in (torch, lg):
        model = m.nn.Linear(2, 1)
        opt = m.optim.SGD(model.parameters(), lr=0.1)
        try:
            if call == "bad_growth":
                m.amp.GradScaler("cpu", growth_factor=1.0)
            elif call == "bad_backoff":
                m.amp.GradScaler("cpu", backoff_factor=1.0)
            scaler = m.amp.GradScaler("cpu")
            if call == "load_empty":
                scaler.load_state_dict({})
            if call == "no_scale":
                scaler.step(opt)
            scaler.scale(model(m.ones(1, 2)).sum()).backward()
            if call == "closure":
                scaler.step(opt, closure=lambda: 0)
            scaler.unscale_(opt)
            if call == "double_unscale":
                scaler.unscale_(opt)
            scaler.step(opt)
            if call == "unscale_after_step":
                scaler.unscale_(opt)
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[0] == outcomes[1] and outcomes[0] is not None
