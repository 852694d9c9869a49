"""torch.cond and torch.while_loop run eagerly: the branch taken, the node torch names
(CondAutogradOpBackward, WhileLoopAutogradOpBackward), gradients for operands and for tensors a
branch closes over, a Python predicate calling the branch directly, torch's errors for bad
predicates and operands. Each program's transcript is torch's."""

from __future__ import annotations

import leafgrad
from tests._torch import require_torch
from tests._tutorial_harness import first_difference, transcript

torch = require_torch()


def _attempt(function):
    try:
        result = function()
        items = result if isinstance(result, tuple) else (result,)
        print("ok", result, [type(i.grad_fn).__name__ if getattr(i, "grad_fn", None) else None
                             for i in items])
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        print(type(error).__name__, "|", str(error).splitlines()[0])


def _program(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor(3.0, requires_grad=True)
    y = lib.cond(x.sum() > 0, lambda v: (v * w).sin(), lambda v: v.cos(), (x,))
    y.sum().backward()
    print(y, x.grad, w.grad, type(y.grad_fn).__name__)
    x.grad = None
    y = lib.cond(x.sum() < 0, lambda v: (v * w).sin(), lambda v: v.cos(), [x])
    y.sum().backward()
    print(y, x.grad)
    _attempt(lambda: lib.cond(True, lambda v: v * 2, lambda v: v * 3, (x,)))
    _attempt(lambda: lib.cond(1, lambda v: v * 2, lambda v: v * 3, (x,)))
    _attempt(lambda: lib.cond(x > 0, lambda v: v * 2, lambda v: v * 3, (x,)))
    _attempt(lambda: lib.cond(lib.tensor(False), lambda v: (v * 2, v + 1),
                              lambda v: (v * 3, v - 1), (x,)))
    _attempt(lambda: lib.cond(lib.tensor(True), lambda: x * 2, lambda: x * 3, ()))
    _attempt(lambda: lib.cond(lib.tensor(True), lambda v: v * 2, lambda v: v * 3, x))
    _attempt(lambda: lib.cond(lib.tensor([True]), lambda v: v * 2, lambda v: v * 3,
                              (x.detach(),)))
    _attempt(lambda: lib.cond(lib.tensor(True), lambda v, n: v * n, lambda v, n: v * 3, (x, 2)))
    i, z = lib.tensor(0), lib.ones(2)
    _attempt(lambda: lib.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * 2), (i, z)))
    _attempt(lambda: lib.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * 2), [i, z]))
    zr = lib.ones(2, requires_grad=True)
    result = lib.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * 2), (i, zr))
    print(result, type(result[1].grad_fn).__name__)
    result[1].sum().backward()
    print(zr.grad)


def test_cond_and_while_loop_match_torch():
    ours = transcript(_program, leafgrad)
    assert len(ours) == 14 and not any(line.startswith("raised") for line in ours), ours
    assert first_difference(_program, leafgrad, torch) is None
