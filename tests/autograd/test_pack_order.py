"""saved_tensors_hooks see an op's saved tensors in torch's order: its inputs by name (``a * b``
packs ``other`` then ``self``), its outputs after them (the "Hooks for saved tensors" tutorial
prints them as they are packed)."""

import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

CASES = {
    "mul": lambda m, a, b, v, w, A, B: a * b,
    "div": lambda m, a, b, v, w, A, B: a / b,
    "mm": lambda m, a, b, v, w, A, B: a.mm(b),
    "bmm": lambda m, a, b, v, w, A, B: A.bmm(B),
    "mv": lambda m, a, b, v, w, A, B: a.mv(w),
    "dot": lambda m, a, b, v, w, A, B: v.dot(w),
    "atan2": lambda m, a, b, v, w, A, B: m.atan2(a, b),
    "maximum": lambda m, a, b, v, w, A, B: m.maximum(a, b),
    "minimum": lambda m, a, b, v, w, A, B: m.minimum(a, b),
    "fmax": lambda m, a, b, v, w, A, B: m.fmax(a, b),
    "hypot": lambda m, a, b, v, w, A, B: m.hypot(a, b),
    "pow": lambda m, a, b, v, w, A, B: a ** b,
    "lerp": lambda m, a, b, v, w, A, B: m.lerp(a, b, a),
    "addcmul": lambda m, a, b, v, w, A, B: m.addcmul(a, a, b),
    "addcdiv": lambda m, a, b, v, w, A, B: m.addcdiv(v, a, b),
    "cross": lambda m, a, b, v, w, A, B: m.linalg.cross(a, b),
    "xlogy": lambda m, a, b, v, w, A, B: m.xlogy(a, b),
    "copysign": lambda m, a, b, v, w, A, B: m.copysign(a, b),
    "fmod": lambda m, a, b, v, w, A, B: m.fmod(a, b),
    "remainder": lambda m, a, b, v, w, A, B: m.remainder(a, b),
    "addmm": lambda m, a, b, v, w, A, B: m.addmm(v, a, b),
    "baddbmm": lambda m, a, b, v, w, A, B: m.baddbmm(A, A, B),
    "dist": lambda m, a, b, v, w, A, B: m.dist(a, b),
    "outer": lambda m, a, b, v, w, A, B: m.outer(v, w),
    "tanh then mul": lambda m, a, b, v, w, A, B: a.tanh() * b,
    "sigmoid": lambda m, a, b, v, w, A, B: a.sigmoid(),
    "linear": lambda m, a, b, v, w, A, B: m.nn.functional.linear(a, b, v),
}


def _order(m, name):
    m.manual_seed(0)
    def leaf(*shape, shift=0.0):
        return (m.rand(*shape, dtype=m.float64) + shift).requires_grad_()

    a, b, v, w = leaf(3, 3, shift=0.5), leaf(3, 3), leaf(3), leaf(3)
    A, B = leaf(2, 3, 3), leaf(2, 3, 3)  # noqa: N806 - batched matrices
    names = {id(t): n for n, t in zip("abvwAB", (a, b, v, w, A, B))}
    packed = []

    def pack(t):
        packed.append(names.get(id(t), "new"))
        return t

    with m.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = CASES[name](m, a, b, v, w, A, B)
    out.sum().backward()  # the unpacked tensors still make the gradients
    return packed, a.grad


@pytest.mark.parametrize("name", CASES)
def test_pack_order_matches_torch(name):
    got, grad = _order(lg, name)
    want, torch_grad = _order(torch, name)
    assert got == want
    assert (grad is None) == (torch_grad is None)
