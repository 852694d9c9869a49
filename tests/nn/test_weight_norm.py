"""nn.utils.weight_norm / remove_weight_norm against torch: parameters and their order, the
recomputed weight and its node, outputs and gradients after steps, every dim (None, 0, last,
middle), the deprecation warning, removal and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [("Linear(3, 4)", {}, (5, 3)), ("Linear(3, 4)", {"dim": 1}, (5, 3)),
         ("Linear(3, 4)", {"dim": None}, (5, 3)), ("Conv1d(2, 3, 3)", {}, (2, 2, 6)),
         ("Conv2d(2, 3, 2)", {"dim": 1}, (1, 2, 4, 4)),
         ("Conv2d(2, 3, 2)", {"dim": 3}, (1, 2, 4, 4)),
         ("Linear(3, 4, bias=False)", {"name": "weight", "dim": -1}, (2, 3))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layer,options,shape", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_weight_norm_matches_torch(layer, options, shape, dtype):
    def run(lib):
        lib.manual_seed(0)
        module = eval("lib.nn." + layer, {"lib": lib}).to(getattr(lib, dtype))  # noqa: S307
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            same = lib.nn.utils.weight_norm(module, **options) is module
        names = [(n, tuple(p.shape)) for n, p in module.named_parameters()]
        x = lib.tensor(np.random.default_rng(1).normal(size=shape), dtype=getattr(lib, dtype))
        outs = []
        for _ in range(2):  # the hook recomputes the weight from the updated g and v
            out = module(x)
            (out * out).sum().backward()
            with lib.no_grad():
                for p in module.parameters():
                    p.sub_(0.1 * p.grad)
                    p.grad = None
            outs.append(out.detach().numpy())
        node = module.weight.grad_fn.name()
        state = list(module.state_dict())
        lib.nn.utils.remove_weight_norm(module, options.get("name", "weight"))
        after = [(n, type(p).__name__) for n, p in module.named_parameters()]
        return (same, [str(w.message) for w in caught], names, node, state, after,
                outs, module.weight.detach().numpy())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:6] == theirs[:6]
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-11, atol=1e-12)
    for a, b in zip(ours[6] + [ours[7]], theirs[6] + [theirs[7]]):
        np.testing.assert_allclose(a, b, **tol)


@pytest.mark.parametrize("code", [
    "U.weight_norm(U.weight_norm(nn.Linear(2, 2)))",
    "U.remove_weight_norm(nn.Linear(2, 2))",
    "U.remove_weight_norm(U.weight_norm(nn.Linear(2, 2)), 'bias')",
    "U.weight_norm(nn.Linear(2, 2), name='nope')",
])
def test_weight_norm_errors_match_torch(code):
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                eval(code, {"nn": lib.nn, "U": lib.nn.utils})  # noqa: S307
            except Exception as error:  # noqa: BLE001
                return type(error).__name__, str(error).splitlines()[0]
        return None

    expected = run(torch)
    assert expected is not None
    assert run(leafgrad) == expected
