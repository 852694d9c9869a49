"""nn.AdaptiveLogSoftmaxWithLoss against torch: same seed -> same weights; output, loss,
gradients, log_prob, predict, repr, state_dict keys and errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [dict(in_features=8, n_classes=10, cutoffs=[3, 6]),
         dict(in_features=16, n_classes=20, cutoffs=[5], div_value=2.0, head_bias=True),
         dict(in_features=8, n_classes=7, cutoffs=[2, 4, 6], div_value=1.5)]


@pytest.mark.parametrize("options", CASES, ids=str)
@pytest.mark.parametrize("batched", [True, False])
def test_adaptive_log_softmax_matches_torch(options, batched):
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.AdaptiveLogSoftmaxWithLoss(**options).double()
        rng = np.random.default_rng(1)
        n = options["n_classes"]
        x = lib.tensor(rng.normal(size=(6, options["in_features"])), requires_grad=True)
        target = lib.tensor(np.array([0, n - 1, 1, n // 2, n - 2, 2]))
        if not batched:
            x, target = x[2].detach().requires_grad_(), target[3]
        out, loss = model(x, target)
        loss.backward()
        leaf = x
        full = model.log_prob(x if batched else x.unsqueeze(0))
        return dict(out=out.detach().numpy(), loss=float(loss), node=out.grad_fn.name(),
                    loss_node=loss.grad_fn.name(), grad=leaf.grad.numpy(),
                    grads=[None if p.grad is None else p.grad.numpy()
                           for p in model.parameters()],
                    full=full.detach().numpy(),
                    predict=model.predict(x if batched else x.unsqueeze(0)).numpy().tolist(),
                    repr=repr(model), keys=list(model.state_dict()))

    ours, theirs = run(leafgrad), run(torch)
    for key in ("node", "loss_node", "predict", "repr", "keys"):
        assert ours[key] == theirs[key], key
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=1e-12)
    for key in ("out", "grad", "full"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-10, atol=1e-12)
    for a, b in zip(ours["grads"], theirs["grads"]):
        if b is None:  # a cluster no target reached
            assert a is None
            continue
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


BAD = [
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.zeros(2, 8),
                                                             lib.tensor([1, 10])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.zeros(3, 8),
                                                             lib.tensor([1, 2])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.zeros(2, 2, 8),
                                                             lib.tensor([1, 2])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.zeros(2, 8), lib.tensor(1)),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.zeros(2, 8),
                                                             lib.zeros(2, 2, dtype=lib.int64)),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_errors_match_torch(index):
    def run(lib):
        try:
            BAD[index](lib)
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0]
        return None

    theirs = run(torch)
    assert theirs is not None
    assert run(leafgrad) == theirs
