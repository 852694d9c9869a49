"""nn.functional beyond the op table: composites, dispatch paths, state updates and errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

X = [[0.5, -1.0, 2.0, 0.0], [1.5, 0.25, -0.75, 3.0], [-2.0, 0.1, 0.2, 0.3]]

PROGRAMS = [
    # linear takes torch's three paths: addmm, flattened addmm + view, matmul + add_
    "F.linear(x, w, b)", "F.linear(x.view(3, 1, 4), w, b)", "F.linear(x[0], w, b)",
    "F.linear(x.t().contiguous().t(), w)", "F.linear(x.view(1, 3, 4).transpose(0, 1), w, b)",
    "F.l1_loss(x, x.flip(0))", "F.l1_loss(x, x.flip(0), reduction='none')",
    "F.l1_loss(x, x.flip(0), reduction='sum')",
    "F.kl_div(x.log_softmax(1), x.flip(0).softmax(1), reduction='batchmean')",
    "F.kl_div(x.log_softmax(1), x.flip(0).softmax(1), reduction='sum')",
    "F.kl_div(x.log_softmax(1), x.flip(0).log_softmax(1), reduction='none', log_target=True)",
    "F.kl_div(x.log_softmax(1), lib.tensor([[0., 1., 0., 0.]] * 3), reduction='sum')",
    "F.normalize(x)", "F.normalize(x, p=1, dim=0)", "F.cosine_similarity(x, x.flip(1))",
    "F.cosine_similarity(x[0], x[1], dim=0)", "F.pad(x, (1, 1, 1, 0), mode='circular')",
    "F.pad(x.view(1, 3, 4), (2, 1), mode='circular')", "F.one_hot(lib.tensor([0, 3, 1]))",
    "F.one_hot(lib.tensor([[1], [2]]), 5)", "F.softmax(x, dim=-1)", "F.log_softmax(x, 0)",
    "F.softmin(x, 1)", "x.softmax(1, dtype=lib.float64)", "F.relu6(x * 3)",
    "F.hardtanh(x, -0.5, 0.5)", "F.leaky_relu(x)", "F.gelu(x)", "F.silu(x)", "F.mish(x)",
    "F.softplus(x, beta=2)", "F.elu(x)", "F.selu(x)", "F.celu(x, 2.0)",
    "F.cross_entropy(x, lib.tensor([3, 0, 1]), ignore_index=0)",
    "F.cross_entropy(x, lib.tensor([3, 0, 1]), ignore_index=0, label_smoothing=0.3)",
    "F.cross_entropy(x, lib.tensor([3, 0, 1]), reduction='none', label_smoothing=0.1)",
    "F.cross_entropy(x, x.flip(0).softmax(1), label_smoothing=0.2)",
    "F.cross_entropy(x, x.flip(0).softmax(1), reduction='none')",
    "F.cross_entropy(x[0], lib.tensor(2))",
    "F.nll_loss(x.log_softmax(1), lib.tensor([1, 1, 2]), weight=lib.tensor([1., 2., 3., 4.]))",
    "F.mse_loss(x, lib.tensor(0.5))", "F.smooth_l1_loss(x, x * 0, beta=0.0)",
    "F.binary_cross_entropy(x.sigmoid(), (lib.tensor(X) > 0).float())",
    "F.binary_cross_entropy_with_logits(x, (x > 0).float(), weight=lib.tensor([1., 2., 3., 4.]))",
    "F.embedding(lib.tensor([[0, 2]]), w.t())",
    "F.layer_norm(x, (4,), eps=1e-3)", "F.group_norm(x.view(3, 2, 2), 1)",
    "F.max_pool2d(x.view(1, 1, 3, 4), 2, ceil_mode=True)",
    "F.avg_pool2d(x.view(1, 1, 3, 4), (2, 3), stride=1, padding=(1, 1), divisor_override=2)",
    "F.adaptive_avg_pool2d(x.view(1, 3, 4), (2, 2))",
    "F.conv1d(x.view(1, 3, 4), w.view(2, 3, 2)[:, :, :1].contiguous(), padding='same')",
    "F.conv2d(x.view(1, 1, 3, 4), lib.ones(1, 1, 2, 2), padding='valid', stride=(1, 2))",
    # errors
    "F.cross_entropy(x, lib.tensor([4, 0, 1]))", "F.nll_loss(x, lib.tensor([1.0, 2.0, 0.0]))",
    "F.nll_loss(x, lib.tensor([1, 2]))", "F.mse_loss(x, x, reduction='avg')",
    "F.binary_cross_entropy(x, x.sigmoid())", "F.one_hot(lib.tensor([1.0]))",
    "F.one_hot(lib.tensor([3]), 2)", "F.layer_norm(x, (3,))", "F.group_norm(x.view(3, 4, 1), 3)",
    "F.conv2d(x.view(1, 1, 3, 4), lib.ones(1, 2, 2, 2))", "F.pad(x, (1,))",
    "F.pad(x.view(1, 3, 4), (4, 4), mode='reflect')", "F.dropout(x, 1.5)",
    "F.gelu(x, approximate='fast')", "F.embedding(lib.tensor([0.5]), w)",
    "F.batch_norm(x, None, None, training=False)",
    "F.max_pool2d(x.view(1, 1, 3, 4), 2, padding=2)",
    # target dtype and shape rules of cross_entropy / nll_loss
    "F.cross_entropy(x, lib.tensor([[0, 1, 2, 3]] * 3))",
    "F.cross_entropy(x, x.softmax(1), ignore_index=1)",
    "F.cross_entropy(x, lib.rand(3))", "F.cross_entropy(x, lib.rand(3, 5))",
    "F.cross_entropy(x, lib.tensor([1, 2, 3]).int())",
    "F.cross_entropy(x, lib.tensor([1, 2, 3]).to(lib.uint8))",
    "F.nll_loss(x, lib.tensor([1, 2, 3]).to(lib.int16))", "F.nll_loss(x, lib.zeros(3, 4).long())",
    "F.nll_loss(x.view(3, 2, 2), lib.zeros(3, 2).to(lib.uint8))",
    "F.nll_loss(x.view(3, 2, 2), lib.zeros(3, 2).bool())",
    "F.cross_entropy(x.view(3, 2, 2), x.view(3, 2, 2).softmax(1).detach(), label_smoothing=0.1,"
    " reduction='none')",
]


def _observe(lib, program):
    F = lib.nn.functional
    x = lib.tensor(X, requires_grad=True)
    w = lib.tensor([[0.1, -0.2, 0.3, 0.4], [0.5, 0.6, -0.7, 0.8], [0.9, 1.0, 1.1, -1.2]][:2],
                   requires_grad=True)
    b = lib.tensor([0.01, -0.02], requires_grad=True)
    namespace = {"lib": lib, "F": F, "x": x, "w": w, "b": b, "X": X}
    try:
        out = eval(program, namespace)
    except Exception as error:  # noqa: BLE001 - comparing what torch raises
        return ("error", type(error).__name__, str(error).splitlines()[0])
    result = [tuple(out.shape), str(out.dtype).split(".")[-1],
              None if out.grad_fn is None else out.grad_fn.name()]
    values = out.detach().numpy().astype(np.float64)
    grads = []
    if out.requires_grad:
        seed = lib.tensor(np.linspace(-1, 1, max(out.numel(), 1)).reshape(tuple(out.shape)),
                          dtype=out.dtype)
        leaves = [t for t in (x, w, b)]
        found = lib.autograd.grad(out, leaves, seed, allow_unused=True)
        grads = [None if g is None else g.numpy().astype(np.float64) for g in found]
    return result, values, grads


@pytest.mark.parametrize("program", PROGRAMS)
def test_matches_torch(program):
    ours, theirs = _observe(leafgrad, program), _observe(torch, program)
    if theirs[0] == "error":
        assert ours == theirs
        return
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert len(ours[2]) == len(theirs[2])
    for mine, expected in zip(ours[2], theirs[2]):
        if expected is None:
            assert mine is None or not np.any(mine)
        else:
            np.testing.assert_allclose(mine, expected, rtol=1e-4, atol=1e-6)


def test_batch_norm_updates_running_statistics_like_torch():
    def run(lib):
        F = lib.nn.functional
        x = lib.tensor(np.arange(24, dtype=np.float32).reshape(4, 3, 2) / 7.0)
        mean, var = lib.zeros(3), lib.ones(3)
        F.batch_norm(x, mean, var, training=True, momentum=0.3)
        F.batch_norm(x * 2, mean, var, training=True, momentum=0.3)
        return mean.tolist(), var.tolist()

    ours, theirs = run(leafgrad), run(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_dropout_scales_survivors_and_is_identity_in_eval():
    x = leafgrad.ones(2000)
    out = leafgrad.nn.functional.dropout(x, 0.25)
    kept = out.numpy() != 0
    assert 0.7 < kept.mean() < 0.8  # Bernoulli(0.75): 4+ standard deviations of slack
    np.testing.assert_allclose(out.numpy()[kept], 1 / 0.75, rtol=1e-6)
    assert leafgrad.nn.functional.dropout(x, 0.25, training=False) is x
    y = leafgrad.ones(5, requires_grad=True)
    assert leafgrad.nn.functional.dropout(y, 0.5).grad_fn.name() == "MulBackward0"
    assert not np.any(leafgrad.nn.functional.dropout(leafgrad.ones(4), 1.0).numpy())
