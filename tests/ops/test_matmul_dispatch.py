"""matmul picks the same primitives as ATen (fold into mm/mv, squeeze, bmm) in every case, so
the recorded graph, values and gradients equal torch's."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

LEFT = [(3,), (2, 3), (4, 2, 3), (5, 4, 2, 3), (1, 2, 3), (1, 1, 2, 3)]
RIGHT = [(3,), (3, 2), (4, 3, 2), (5, 1, 3, 2), (1, 3, 2), (4, 1, 3, 2)]
GRADS = [(True, False), (False, True), (True, True)]


def _names(tensor, depth=6):
    names, stack = [], [(tensor.grad_fn, 0)]
    while stack:
        node, level = stack.pop(0)
        if node is None or level > depth:
            continue
        names.append(node.name())
        stack.extend((child, level + 1) for child, _ in node.next_functions)
    return names


def _run(lib, a, b, grads, transposed):
    left = lib.tensor(a, requires_grad=grads[0])
    right = lib.tensor(b, requires_grad=grads[1])
    if transposed and left.ndim >= 3:  # same values, non-contiguous strides
        left = left.transpose(-1, -2).contiguous().transpose(-1, -2)
    out = left @ right
    seed = lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
    found = lib.autograd.grad(out, [t for t in (left, right) if t.requires_grad], seed)
    return _names(out), out.detach().numpy(), [g.numpy() for g in found]


CASES = [
    (a, b, g, t)
    for a, b, g, t in itertools.product(LEFT, RIGHT, GRADS, (False, True))
    if not (t and len(a) < 3)
]


@pytest.mark.parametrize("left,right,grads,transposed", CASES)
def test_matmul_matches_torch(left, right, grads, transposed):
    rng = np.random.default_rng(len(left) * 10 + len(right))
    a, b = rng.normal(size=left), rng.normal(size=right)
    try:
        expected = _run(torch, a, b, grads, transposed)
    except RuntimeError as error:
        with pytest.raises(RuntimeError) as info:
            _run(leafgrad, a, b, grads, transposed)
        assert str(info.value).splitlines()[0] == str(error).splitlines()[0]
        return
    names, values, found = _run(leafgrad, a, b, grads, transposed)
    assert names == expected[0]
    np.testing.assert_allclose(values, expected[1], rtol=1e-12, atol=1e-12)
    for mine, theirs in zip(found, expected[2]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)
