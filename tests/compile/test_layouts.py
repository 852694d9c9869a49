"""leafgrad.compile and memory layouts (codegen.py Note: layouts in the replay).

Where the operands of an elementwise op disagree on a layout, eager code orders the result as
torch's TensorIterator does (ops/_layout.py Note: output layout), NumPy's own call would give
row-major. A replay gives every result eager's strides, so results, their strides and the sums
over them (which add in memory order) are bitwise eager's, on the capture call and on replays;
an input or a tensor from outside the call whose strides change gets a capture of its own.
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

UNARY = {
    "tanh": lambda m, t: t.tanh(),
    "sigmoid": lambda m, t: t.sigmoid(),
    "relu": lambda m, t: t.relu(),
    "exp": lambda m, t: (t * 0.25).exp(),
    "square": lambda m, t: t * t,
    "gelu": lambda m, t: m.nn.functional.gelu(t),
    "softplus": lambda m, t: m.nn.functional.softplus(t),
}
BINARY = {
    "mul": lambda m, a, b: a * b,
    "add": lambda m, a, b: a + b,
    "sub": lambda m, a, b: a - b,
    "div": lambda m, a, b: a / (b * b + 1),
    "maximum": lambda m, a, b: m.maximum(a, b),
    "where": lambda m, a, b: m.where(a > b, a, b),
    "atan2": lambda m, a, b: m.atan2(a, b),
    "hypot": lambda m, a, b: m.hypot(a, b),
    "lerp": lambda m, a, b: m.lerp(a, b, 0.3),
    "addcmul": lambda m, a, b: m.addcmul(a, a, b, value=0.5),
    "xlogy": lambda m, a, b: m.xlogy(a, b * b + 1),
    "pow": lambda m, a, b: (a * a + 1) ** b,
    "logaddexp": lambda m, a, b: m.logaddexp(a, b),
}
SHAPE = (48, 40)  # large enough that sums in another order round differently


def _operands(m, x, y, order):
    """A transposed view and a row-major tensor of one shape, in either order."""
    return (x.t(), y) if order == 0 else (y, x.t())


def _program(unary, binary, order, how):
    def program(x, y):
        a, b = _operands(leafgrad, x, y, order)
        out = UNARY[unary](leafgrad, BINARY[binary](leafgrad, a, b))
        if how == "grad":
            gx, gy = leafgrad.autograd.grad(out.sum(), [x, y])
            return out.detach(), out.sum(1).detach(), gx, gy, (gx * 1.5).sum(0)
        if how == "backward":
            (out * x.t()).sum().backward()
            return out.detach(), out.sum(0).detach()
        return out, out.sum(0), (out + b).sum(1)  # no gradient: every node a kernel or forward

    return program


def _tensors(seed, dtype, requires_grad):
    rng = np.random.default_rng(seed)
    return [leafgrad.tensor(rng.standard_normal(shape), dtype=dtype,
                            requires_grad=requires_grad) for shape in (SHAPE, SHAPE[::-1])]


def _assert_same(got, expected):
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        assert (a is None) == (b is None)
        if a is None:
            continue
        assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def _run(program, dtype, requires_grad, calls=3):
    compiled = leafgrad.compile(program)
    for call in range(calls):
        ours = _tensors(call, dtype, requires_grad)
        theirs = [t.detach().clone().requires_grad_(requires_grad) for t in ours]
        got = list(compiled(*ours)) + [t.grad for t in ours]
        expected = list(program(*theirs)) + [t.grad for t in theirs]
        _assert_same(got, expected)
    assert compiled.replays == calls - 1, [e.breaks for e in compiled.captures]
    return compiled


@pytest.mark.parametrize("dtype", [leafgrad.float32, leafgrad.float64])
@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("binary", sorted(BINARY))
def test_mixed_layouts_compiled_equal_eager(binary, order, dtype):
    for unary in sorted(UNARY):
        for how in ("grad", "backward", "forward"):
            _run(_program(unary, binary, order, how), dtype, how != "forward")


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("binary", sorted(BINARY))
def test_mixed_layouts_compiled_match_torch(binary, order):
    """The replayed results have torch's strides and values (the forward's layouts are what
    the TensorIterator rule decides; gradients' values as torch's)."""
    torch = require_torch()
    for unary in sorted(UNARY):
        program = _program(unary, binary, order, "grad")
        compiled = leafgrad.compile(program)
        for call in range(2):
            ours = _tensors(call, leafgrad.float64, True)
            got = compiled(*ours)
            x, y = [torch.tensor(t.detach().numpy(), requires_grad=True) for t in ours]
            a, b = _operands(torch, x, y, order)
            out = UNARY[unary](torch, BINARY[binary](torch, a, b))
            gx, gy = torch.autograd.grad(out.sum(), [x, y])
            expected = (out.detach(), out.sum(1).detach(), gx, gy, (gx * 1.5).sum(0))
            assert got[0].stride() == expected[0].stride()
            assert got[1].stride() == expected[1].stride()
            for mine, theirs in zip(got, expected):
                np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-9, atol=1e-12)
        assert compiled.replays == 1


def test_three_dims_and_broadcast_operands():
    """A permuted 3-d operand first, then a broadcast and a row-major one: the first operand
    whose strides tell two dims apart decides (0 strides, a broadcast, decide nothing)."""

    def program(x, y, z):
        p = x.permute(2, 0, 1)
        out = leafgrad.addcmul(z, p, y, value=0.5)  # z broadcast first: p decides
        return out, out.sum((0, 2)), (p * y).exp().sum(1), leafgrad.where(p > 0, y, p).sum(0)

    compiled = leafgrad.compile(program)
    for call in range(3):
        rng = np.random.default_rng(call)
        make = lambda shape: leafgrad.tensor(rng.standard_normal(shape),  # noqa: E731
                                             dtype=leafgrad.float32)
        ours = [make((20, 30, 16)), make((16, 20, 30)), make((1, 20, 1))]
        _assert_same(list(compiled(*ours)), list(program(*ours)))
    assert compiled.replays == 2
    assert compiled.captures[0].graph.stats["results in TensorIterator's order"] > 0


def test_row_major_programs_have_no_layout_step():
    """The common case: all operands row-major, the generated code is what it was (no node
    reordered, no layout call)."""

    def program(x, y):
        y = y.reshape(x.shape)  # a row-major view
        out = (x * y).tanh() + y
        gx, gy = leafgrad.autograd.grad(out.sum(), [x, y])
        return gx, gy

    compiled = _run(program, leafgrad.float32, True)
    assert compiled.captures[0].graph.stats["results in TensorIterator's order"] == 0
    mixed = _run(_program("tanh", "mul", 0, "grad"), leafgrad.float32, True)
    assert mixed.captures[0].graph.stats["results in TensorIterator's order"] > 0


def test_input_strides_are_part_of_the_key():
    """An input of other strides (same shape and dtype) gets a capture of its own, as
    torch.compile guards on strides: buffers and reordered results have the capture's
    layout, so replaying a capture made for other strides gave other sums."""

    def program(x):
        out = (x * 1.3).exp() * 0.7
        return out, out.sum(1)

    compiled = leafgrad.compile(program)
    rng = np.random.default_rng(0)
    for call in range(6):
        values = rng.standard_normal((300, 400))
        x = leafgrad.tensor(np.asfortranarray(values) if call % 2 else values,
                            dtype=leafgrad.float32)  # (a column-major copy keeps its layout)
        assert x.is_contiguous() is (call % 2 == 0)
        _assert_same(list(compiled(x)), list(program(x)))
    assert len(compiled.captures) == 2 and compiled.replays == 4


def test_external_strides_are_guarded():
    """A tensor from outside the call whose array changed strides misses the guard and is
    captured again (its results then have eager's strides and sums)."""
    rng = np.random.default_rng(1)
    w = leafgrad.tensor(rng.standard_normal((300, 400)), dtype=leafgrad.float32)

    def program(x):
        out = (w * x).exp()
        return out, out.sum(0)

    compiled = leafgrad.compile(program)
    for call in range(4):
        if call == 2:
            w.data = w.data.t().contiguous().t()  # same values and shape, column-major
        x = leafgrad.tensor(rng.standard_normal((300, 400)), dtype=leafgrad.float32)
        _assert_same(list(compiled(x)), list(program(x)))
    assert len(compiled.captures) == 2 and compiled.replays == 2


def test_returned_constant_keeps_its_layout():
    """A tensor made in the call and returned is copied afresh on each replay, in its own
    layout (zeros_like of a transposed tensor is column-major, as in torch)."""

    def program(x):
        c = leafgrad.zeros_like(x.t())
        return c, (c + x.t()).sum(0)

    compiled = leafgrad.compile(program)
    for call in range(3):
        x = leafgrad.tensor(np.random.default_rng(call).standard_normal((40, 30)),
                            dtype=leafgrad.float32)
        _assert_same(list(compiled(x)), list(program(x)))
    assert compiled.replays == 2
