"""mse_loss's gradients are torch's bits: ATen's mse_loss_backward kernel computes
``norm * (x - target) * grad`` (``norm`` = 2 / numel for 'mean'), where leafgrad's formula was
``grad / numel * ((x - target) * 2)``, a last bit off on about half the elements of a 'mean'
loss's gradient (the loss of every linear-regression tutorial)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _operands(rng, dtype):
    """(input, target) array pairs: 0-d, empty, vectors of several lengths, a matrix, a
    transposed input, a target broadcast against the input."""
    def draw(*shape):
        return rng.standard_normal(shape).astype(dtype)

    pairs = [(draw(), draw()), (draw(0), draw(0)), (draw(1), draw(1)), (draw(7, 5), draw(7, 5)),
             (draw(5, 7).T, draw(7, 5)), (draw(7, 5), draw(5)), (draw(6), draw(1, 6))]
    pairs += [(draw(n), draw(n)) for n in (3, 10, 33, 100, 257)]
    return pairs


def _run(lib, x, y, needs, reduction, upstream, create_graph):
    a = lib.tensor(x).requires_grad_(needs[0])
    b = lib.tensor(y).requires_grad_(needs[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcast pairs' size warning (checked elsewhere)
        loss = lib.nn.functional.mse_loss(a, b, reduction=reduction)
    inputs = [t for t, need in zip((a, b), needs) if need]
    grad_out = lib.full_like(loss, upstream)
    grads = lib.autograd.grad(loss, inputs, grad_out, create_graph=create_graph)
    seen = [loss.detach().numpy().tobytes()] + [g.detach().numpy().tobytes() for g in grads]
    seen += [tuple(g.shape) for g in grads]
    if create_graph:
        total = sum((g * g).sum() for g in grads)
        seen += [g.numpy().tobytes() for g in lib.autograd.grad(total, inputs)]
    return seen


def test_mse_loss_gradients_are_torchs_bits():
    rng = np.random.default_rng(0)
    differing = []
    for dtype in (np.float16, np.float32, np.float64):
        for (x, y), reduction in itertools.product(_operands(rng, dtype),
                                                   ("mean", "sum", "none")):
            for needs in ((True, True), (True, False), (False, True)):
                upstream = float(rng.standard_normal())
                for create_graph in (False, True):
                    args = (x, y, needs, reduction, upstream, create_graph)
                    if _run(torch, *args) != _run(leafgrad, *args):
                        differing.append((dtype.__name__, x.shape, y.shape, reduction, needs,
                                          create_graph))
    assert not differing, differing[:10]
