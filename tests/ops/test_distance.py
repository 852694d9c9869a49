"""cdist, pdist, dist beyond the op table: torch's errors, the matmul path's graph, float32
values, double backward (torch's NotImplementedError), and the one known difference (dist's
gradient for p = 0)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

# a, b: (3, 4) and (5, 4) float32; c: (2, 3, 4); big: (30, 4)
ERRORS = [
    "lib.cdist(a, b.double())", "lib.cdist(a.double(), b)",
    "lib.cdist(a, b.double(), compute_mode='use_mm_for_euclid_dist')",
    "lib.cdist(a.int(), b)", "lib.cdist(a, b.int())", "lib.cdist(a.half(), b.half())",
    "lib.cdist(c, lib.randn(3, 5, 4))", "lib.cdist(c, lib.randn(3, 5, 3))",
    "lib.cdist(a[0], b[0])", "lib.cdist(a, b[0])", "lib.cdist(a, b, p=float('nan'))",
    "lib.cdist(a, b, p=-0.5)", "lib.cdist(a.int(), b, p=-1)", "lib.cdist(a, b, p=2j)",
    "lib.cdist(a, b, p='2')", "lib.cdist(a, 3)", "lib.cdist(a, b, compute_mode='x')",
    "lib.cdist(lib.randn(2, 0, 4), lib.randn(0, 5, 4))",
    "lib.pdist(a.int())", "lib.pdist(a.half())", "lib.pdist(c)", "lib.pdist(a[0])",
    "lib.pdist(a, p=float('nan'))", "lib.nn.functional.pdist(a, p=-1)",
    "lib.dist(a, b)", "lib.dist(a, 2)", "lib.dist(a.int(), lib.tensor(2))",
    "lib.dist(lib.randn(0), lib.randn(0), p=-float('inf'))", "lib.dist(a, b[:3], p='fro')",
    "lib.dist(a, b[:3], out=a)",
]
RESULTS = [
    "lib.cdist(a, b, 2, 'use_mm_for_euclid_dist')", "lib.cdist(a, b, p=True)",
    "lib.cdist(a, b, p=lib.tensor(2.))", "lib.cdist(lib.randn(0, 4), lib.randn(0, 4))",
    "lib.cdist(lib.randn(3, 0), lib.randn(5, 0), p=0.5)",
    "lib.cdist(lib.randn(3, 0), lib.randn(5, 0), p=float('inf'))",
    "lib.cdist(big, b)", "lib.cdist(c, big)", "lib.cdist(big, big, p=1)",
    "lib.cdist(big.double(), b.double(), compute_mode='donot_use_mm_for_euclid_dist')",
    "lib.pdist(a.double(), p=3)", "lib.pdist(a, 1.5)", "lib.pdist(lib.randn(3, 0), p=0.5)",
    "lib.pdist(big)", "lib.pdist(lib.randn(0, 3))",
    "lib.dist(a, b[:3])", "lib.dist(a, b[:3].double())", "lib.dist(a, lib.tensor(2))",
    "lib.dist(a, b[:3], p=float('inf'))", "lib.dist(a, b[:3], p=0)",
    "lib.dist(lib.randn(0), lib.randn(0), p=0.5)", "a.dist(b[1], 3)",
    "lib.pairwise_distance(a, b[:3])", "lib.pairwise_distance(a, b[:3], 1, 0.1, True)",
]


def _namespace(lib):
    rng = np.random.default_rng(0)
    arrays = {"a": (3, 4), "b": (5, 4), "c": (2, 3, 4), "big": (30, 4)}
    return {"lib": lib, **{name: lib.tensor(rng.normal(size=shape).astype(np.float32))
                           for name, shape in arrays.items()}}


def _outcome(lib, code):
    try:
        value = eval(code, _namespace(lib))  # noqa: S307 - the table's calls
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0]
    return value


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(code):
    ours, theirs = _outcome(leafgrad, code), _outcome(torch, code)
    assert isinstance(theirs, tuple), theirs
    assert ours == theirs


@pytest.mark.parametrize("code", RESULTS)
def test_values_match_torch(code):
    ours, theirs = _outcome(leafgrad, code), _outcome(torch, code)
    assert not isinstance(theirs, tuple), theirs
    assert not isinstance(ours, tuple), ours
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-6, atol=2e-6)


def _names(tensor):
    """Node names of the graph in depth-first order (children in input order)."""
    names, stack = [], [(tensor.grad_fn, 0)]
    while stack:
        node, depth = stack.pop()
        if node is None:
            continue
        names.append((depth, node.name().split("::")[-1]))
        stack.extend((child, depth + 1) for child, _ in reversed(node.next_functions))
    return names


@pytest.mark.parametrize("shapes", [((2, 30, 4), (1, 26, 4)), ((30, 4), (2, 26, 4)),
                                    ((2, 30, 4), (2, 26, 4)), ((30, 4), (26, 4)),
                                    ((0, 4), (2, 26, 4)), ((2, 30, 0), (2, 26, 0))])
def test_matmul_path_graph_is_torchs(shapes):
    def graph(lib):
        x1 = lib.ones(shapes[0], requires_grad=True)
        x2 = lib.ones(shapes[1], requires_grad=True)
        return _names(lib.cdist(x1, x2))

    assert graph(leafgrad) == graph(torch)


@pytest.mark.parametrize("call", ["lib.cdist(x, y)", "lib.cdist(x, y, p=1)",
                                  "lib.pdist(x)", "lib.pdist(x, p=float('inf'))"])
def test_double_backward_raises_torchs_error(call):
    def run(lib):
        rng = np.random.default_rng(1)
        x = lib.tensor(rng.normal(size=(3, 2)), requires_grad=True)
        y = lib.tensor(rng.normal(size=(4, 2)), requires_grad=True)
        out = eval(call, {"lib": lib, "x": x, "y": y})  # noqa: S307
        (grad,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        try:
            grad.sum().backward()
        except Exception as error:  # noqa: BLE001
            return grad.grad_fn.name(), type(error).__name__, str(error).splitlines()[0]
        return grad.grad_fn.name(), None

    assert run(leafgrad) == run(torch)


def test_matmul_path_is_twice_differentiable_like_torch():
    def run(lib):
        rng = np.random.default_rng(2)
        x = lib.tensor(rng.normal(size=(30, 3)), requires_grad=True)
        y = lib.tensor(rng.normal(size=(4, 3)), requires_grad=True)
        (grad,) = lib.autograd.grad(lib.cdist(x, y).sum(), x, create_graph=True)
        (second,) = lib.autograd.grad((grad * grad).sum(), y)
        return grad.grad_fn.name(), second.detach().numpy()

    ours, theirs = run(leafgrad), run(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")])
def test_gradient_at_zero_distance_is_torchs(p):
    """Rows equal to rows of the other input (and ties for inf): torch's conventions."""
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [0.0, 0.0], [1.0, 1.0]], requires_grad=True)
        y = lib.tensor([[1.0, 2.0], [2.0, 1.0]], requires_grad=True)
        lib.cdist(x, y, p=p).sum().backward()
        z = lib.tensor([[1.0, 2.0], [1.0, 2.0], [2.0, 3.0]], requires_grad=True)
        lib.pdist(z, p=p).sum().backward()
        return x.grad.numpy(), y.grad.numpy(), z.grad.numpy()

    for ours, theirs in zip(run(leafgrad), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_float32_matmul_path_values():
    rng = np.random.default_rng(3)
    x1, x2 = rng.normal(size=(200, 16)), rng.normal(size=(300, 16))
    ours = leafgrad.cdist(leafgrad.tensor(x1, dtype=leafgrad.float32),
                          leafgrad.tensor(x2, dtype=leafgrad.float32))
    theirs = torch.cdist(torch.tensor(x1, dtype=torch.float32),
                         torch.tensor(x2, dtype=torch.float32))
    assert ours.dtype == leafgrad.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)


def test_dist_p0_gradient_is_zero():
    """Known difference: when ``other`` requires grad, torch's dist backward for p=0 raises an
    internal error ("Expected a proper Tensor but got None": it negates the undefined gradient);
    the 0-norm is piecewise constant, and leafgrad gives no gradient to either input, as torch
    does for ``input`` alone."""
    a = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    b = leafgrad.tensor([1.0, 0.0], requires_grad=True)
    out = leafgrad.dist(a, b, 0)
    assert out.item() == 1.0 and out.grad_fn.name() == "DistBackward0"
    assert leafgrad.autograd.grad(out, (a, b), allow_unused=True) == (None, None)
    ta = torch.tensor([1.0, 2.0], requires_grad=True)
    tb = torch.tensor([1.0, 0.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Expected a proper Tensor"):
        torch.dist(ta, tb, 0).backward()
    assert torch.autograd.grad(torch.dist(ta, tb.detach(), 0), ta, allow_unused=True) == (None,)
