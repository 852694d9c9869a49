"""The gradient layout contract against torch (Note: gradient layout contract, tensor.py): a
leaf's first .grad has the leaf's strides when the leaf is non-overlapping and dense, row-major
otherwise; ``enforce_grad_layout_policy(False)`` keeps whatever gradient arrives."""

from __future__ import annotations

import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()

LEAVES = {
    "contiguous": lambda lib: lib.randn(4, 3),
    "transposed": lambda lib: lib.randn(3, 4).t(),
    "permuted": lambda lib: lib.randn(2, 3, 4).permute(2, 0, 1),
    "sliced": lambda lib: lib.randn(4, 6)[:, ::2],
    "size_one": lambda lib: lib.randn(1, 4).t(),
    "channels_last": lambda lib: lib.randn(2, 3, 2, 2).contiguous(
        memory_format=lib.channels_last),
    "zero_d": lambda lib: lib.randn(()),
    "empty": lambda lib: lib.randn(0, 3).t(),
}
LOSSES = {
    "mul": lambda lib, p: (p * 2).sum(),
    "transposed_use": lambda lib, p: (p.transpose(0, -1) * 3).sum() if p.ndim else p * 3,
    "matmul": lambda lib, p: (p.reshape(-1, 1) @ lib.ones(1, 2)).sum(),
    "exp": lambda lib, p: p.exp().sum(),
}


def _run(lib, leaf, loss, policy):
    lib.manual_seed(0)
    p = LEAVES[leaf](lib).requires_grad_()
    if policy is None:
        LOSSES[loss](lib, p).backward()
    else:
        with lib.autograd.enforce_grad_layout_policy(policy):
            LOSSES[loss](lib, p).backward()
    first = (p.grad.stride(), p.grad.tolist())
    LOSSES[loss](lib, p).backward()  # accumulated in place: the layout stays
    return first, p.grad.stride(), p.grad.tolist()


@pytest.mark.parametrize("policy", [None, True, False])
@pytest.mark.parametrize("loss", sorted(LOSSES))
@pytest.mark.parametrize("leaf", sorted(LEAVES))
def test_layout(leaf, loss, policy):
    assert _run(leafgrad, leaf, loss, policy) == _run(torch, leaf, loss, policy)


def test_call_forms():
    def run(lib):
        states = []
        p = lib.randn(3, 4).t().requires_grad_()
        lib.autograd.enforce_grad_layout_policy(False)  # as a function: in effect at once
        (p * 2).sum().backward()
        states.append(p.grad.stride())
        lib.autograd.enforce_grad_layout_policy(True)
        p.grad = None

        @lib.autograd.enforce_grad_layout_policy(False)
        def step():
            (p * 2).sum().backward()

        (p * 2).sum().backward()  # the decorator's construction did not change the policy
        states.append(p.grad.stride())
        p.grad = None
        step()
        states.append(p.grad.stride())
        return states, type(lib.autograd.enforce_grad_layout_policy(True)).__name__

    assert run(leafgrad) == run(torch)
