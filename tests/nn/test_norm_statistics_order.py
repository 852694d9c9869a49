"""Note: statistics in NumPy's order (ops/reduce.py): the normalisations' backward formulas
sum over non-adjacent dims in NumPy's order, the same in a plain backward, under
create_graph and in a leafgrad.compile replay; torch's own reductions keep torch's order."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

MODULES = {
    "batch_norm2d": (lambda nn: nn.BatchNorm2d(6), (8, 6, 5, 4)),
    "batch_norm3d": (lambda nn: nn.BatchNorm3d(3), (4, 3, 2, 3, 4)),
    "batch_norm1d_3d_input": (lambda nn: nn.BatchNorm1d(5), (6, 5, 7)),
    "instance_norm2d": (lambda nn: nn.InstanceNorm2d(4, affine=True), (3, 4, 5, 5)),
    "group_norm": (lambda nn: nn.GroupNorm(2, 6), (4, 6, 3, 3)),
    "layer_norm": (lambda nn: nn.LayerNorm((5, 3)), (4, 2, 5, 3)),
}


def _run(lib, name, dtype, train, create_graph):
    make, shape = MODULES[name]
    lib.manual_seed(0)
    module = make(lib.nn).to(getattr(lib, dtype))
    module.train(train)
    rng = np.random.default_rng(len(name))
    x = lib.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
    g = lib.tensor(rng.standard_normal(shape).astype(dtype))
    out = module(x)
    params = [p for p in module.parameters()]
    grads = lib.autograd.grad(out, [x] + params, g, create_graph=create_graph)
    return [t.detach().numpy() for t in grads]


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(MODULES))
def test_norm_gradients_same_bits_with_and_without_create_graph_and_torchs_values(
        name, dtype, train):
    torch = require_torch()
    plain = _run(leafgrad, name, dtype, train, False)
    recorded = _run(leafgrad, name, dtype, train, True)
    expected = _run(torch, name, dtype, train, False)
    tolerance = dict(rtol=2e-4, atol=2e-5) if dtype == "float32" else dict(rtol=1e-10,
                                                                             atol=1e-12)
    expected_recorded = _run(torch, name, dtype, train, True)
    for a, b, c, d in zip(plain, recorded, expected, expected_recorded):
        if name in RECORDED_COMPOSITE:
            np.testing.assert_allclose(b, d, **tolerance)
        else:
            np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, c, **tolerance)


# group_norm's create_graph backward is torch's composite formula (another order of
# operations than its kernel: torch's own two results differ in the last bits too)
RECORDED_COMPOSITE = {"group_norm"}


def test_batch_norm_step_compiled_equals_eager_bitwise():
    def build():
        leafgrad.manual_seed(0)
        model = leafgrad.nn.Sequential(leafgrad.nn.Conv2d(2, 4, 3), leafgrad.nn.BatchNorm2d(4),
                                       leafgrad.nn.ReLU(), leafgrad.nn.Flatten(),
                                       leafgrad.nn.Linear(4 * 4 * 4, 3))
        return model, leafgrad.optim.SGD(model.parameters(), lr=0.1)

    def step(model, optimizer, x, y):
        optimizer.zero_grad()
        loss = leafgrad.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    rng = np.random.default_rng(5)
    batches = [(leafgrad.tensor(rng.standard_normal((8, 2, 6, 6)).astype(np.float32)),
                leafgrad.tensor(rng.integers(0, 3, 8))) for _ in range(4)]
    eager_model, eager_opt = build()
    compiled_model, compiled_opt = build()
    compiled = leafgrad.compile(lambda x, y: step(compiled_model, compiled_opt, x, y))
    for x, y in batches:
        a = step(eager_model, eager_opt, x, y)
        b = compiled(x, y)
        assert a.item() == b.item()
    assert len(compiled.captures) == 1 and compiled.replays == 3  # replayed, not eager
    for p, q in zip(eager_model.state_dict().values(), compiled_model.state_dict().values()):
        np.testing.assert_array_equal(p.numpy(), q.numpy())


@pytest.mark.parametrize("shape,dims", [((32, 16, 8, 8), (0, 2, 3)), ((6, 5, 4, 3), (0, 2)),
                                        ((4, 3, 5, 2, 2), (0, 2, 4))])
def test_public_sums_over_non_adjacent_dims_keep_torchs_order(shape, dims):
    torch = require_torch()
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    for reduce in ("sum", "mean"):
        mine = getattr(leafgrad.tensor(a), reduce)(dims).numpy()
        theirs = getattr(torch.tensor(a), reduce)(dims).numpy()
        np.testing.assert_array_equal(mine, theirs)
