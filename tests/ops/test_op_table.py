"""Walk the op table: every op has samples, and each sample matches torch and finite differences.

For each sample: forward values, dtype, shape and grad_fn name equal torch 2.13's; gradients of
a random vector-Jacobian product equal torch's; gradcheck and gradgradcheck (float64, central
differences) pass; and the op's own node occurs in the recorded graph, so the sample really
exercises the op it is filed under.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck
from leafgrad.ops import OPS

from .._torch import require_torch
from .samples import SAMPLES, values

torch = require_torch()

CASES = [
    pytest.param(name, i, id=f"{name}-{i}")
    for name in sorted(OPS)
    for i in range(len(SAMPLES.get(name, [])))
]


def test_every_op_has_samples():
    missing = [name for name in OPS if not SAMPLES.get(name)]
    assert missing == [], f"ops without sample inputs: {missing}"
    stale = [name for name in SAMPLES if name not in OPS]
    assert stale == [], f"samples for ops that do not exist: {stale}"


def _inputs(name: str, index: int):
    sample = SAMPLES[name][index]
    rng = np.random.default_rng(zlib.crc32(f"{name}-{index}".encode()))
    arrays = [values(shape, domain, rng) for shape, domain in sample.shapes]
    ours = [leafgrad.tensor(a, dtype=leafgrad.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    return sample, ours, theirs


def _nodes(tensor):
    """Class names of every node reachable from ``tensor.grad_fn``."""
    seen, stack, names = set(), [tensor.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(type(node).__name__)
        stack.extend(child for child, _ in node.next_functions)
    return names


@pytest.mark.parametrize("name,index", CASES)
def test_matches_torch(name, index):
    sample, ours, theirs = _inputs(name, index)
    out = sample.call(leafgrad, *ours)
    expected = sample.call(torch, *theirs)
    assert tuple(out.shape) == tuple(expected.shape)
    assert str(out.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    assert out.requires_grad == expected.requires_grad
    if expected.grad_fn is not None and sample.check_node:
        assert out.grad_fn.name() == expected.grad_fn.name()
    if not expected.requires_grad:
        return
    op_node = OPS[name].node
    assert op_node in _nodes(out), f"{op_node} not in the graph of this sample: {_nodes(out)}"
    rng = np.random.default_rng(index)
    grad_out = rng.normal(size=tuple(expected.shape))
    grads = leafgrad.autograd.grad(out, ours, leafgrad.tensor(grad_out, dtype=leafgrad.float64),
                                   allow_unused=True)
    expected_grads = torch.autograd.grad(expected, theirs, torch.tensor(grad_out),
                                         allow_unused=True)
    for got, want in zip(grads, expected_grads):
        if want is None:
            assert got is None or not np.any(got.numpy())
            continue
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


SUBSET_CASES = [
    pytest.param(name, i, id=f"{name}-{i}")
    for name in sorted(OPS)
    for i, sample in enumerate(SAMPLES.get(name, []))
    if len(sample.shapes) > 1
]


@pytest.mark.parametrize("name,index", SUBSET_CASES)
def test_every_subset_of_inputs_requiring_grad(name, index):
    """Note: saved values. A backward may only read what ``saves`` kept for the inputs that
    need a gradient; running every proper subset of inputs with requires_grad catches a
    formula that reads a value saved only for another input (a KeyError in backward)."""
    sample, ours, theirs = _inputs(name, index)
    count = len(ours)
    for mask in range(1, 2**count - 1):
        chosen = [i for i in range(count) if mask >> i & 1]
        for tensors in (ours, theirs):
            for i, tensor in enumerate(tensors):
                tensor.requires_grad_(i in chosen)
        try:
            expected = sample.call(torch, *theirs)
        except RuntimeError as error:  # e.g. a sample that differentiates an unused input
            with pytest.raises(RuntimeError) as ours_error:
                sample.call(leafgrad, *ours)
            assert str(ours_error.value) == str(error).splitlines()[0], chosen
            continue
        out = sample.call(leafgrad, *ours)
        assert out.requires_grad == expected.requires_grad, chosen
        np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(),
                                   rtol=1e-12, atol=1e-12)
        if not expected.requires_grad:
            continue
        if expected.grad_fn is not None and sample.check_node:
            assert out.grad_fn.name() == expected.grad_fn.name(), chosen
        grad_out = np.random.default_rng(mask).normal(size=tuple(expected.shape))
        grads = leafgrad.autograd.grad(
            out, [ours[i] for i in chosen], leafgrad.tensor(grad_out, dtype=leafgrad.float64),
            allow_unused=True)
        expected_grads = torch.autograd.grad(
            expected, [theirs[i] for i in chosen], torch.tensor(grad_out), allow_unused=True)
        for got, want in zip(grads, expected_grads):
            if want is None:
                assert got is None or not np.any(got.numpy()), chosen
                continue
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"inputs requiring grad: {chosen}")


@pytest.mark.parametrize("name,index", CASES)
def test_gradcheck(name, index):
    sample, ours, _ = _inputs(name, index)
    if not OPS[name].differentiable:
        # Comparisons: the output must never require grad (torch agrees: test_matches_torch).
        assert not sample.call(leafgrad, *ours).requires_grad
        return
    if not sample.finite_differences:
        # Documented in the sample: torch's gradient is a convention, not the derivative; the
        # gradient is compared with torch's in test_matches_torch.
        assert sample.note
        return
    options = {"eps": 1e-6, "atol": 1e-5, **sample.check_options}
    assert gradcheck(lambda *xs: sample.call(leafgrad, *xs), ours, **options)
    if sample.second_order:
        assert gradgradcheck(lambda *xs: sample.call(leafgrad, *xs), ours, **options)
