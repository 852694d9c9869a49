"""Generated programs, compiled: random compositions of elementwise, broadcasting, reduction,
matmul, view and in-place ops, differentiated with autograd.grad and with backward(); the
compiled function's results and gradients equal eager ones bit for bit on fresh inputs."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

UNARY = [
    ("tanh", lambda t: leafgrad.tanh(t)),
    ("sigmoid", lambda t: leafgrad.sigmoid(t)),
    ("exp", lambda t: (t * 0.25).exp()),
    ("relu", lambda t: t.relu()),
    ("sin", lambda t: t.sin()),
    ("neg", lambda t: -t),
    ("square", lambda t: t * t),
    ("scale", lambda t: t * 1.7 + 0.5),
    ("softmax", lambda t: leafgrad.softmax(t, dim=-1)),
    ("log_softmax", lambda t: leafgrad.log_softmax(t, dim=0)),
    ("transpose_back", lambda t: t.t().contiguous().t() if t.ndim == 2 else t + 0.0),
    ("clone_inplace", lambda t: t.clone().mul_(0.5).add_(1.0)),
    ("slice_inplace", lambda t: _slice_inplace(t)),
    ("sum_keepdim", lambda t: t - t.sum(-1, keepdim=True) * 0.1),
    ("mean_all", lambda t: t + t.mean()),
]
BINARY = [
    ("add", lambda a, b: a + b),
    ("sub", lambda a, b: a - b),
    ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / (b * b + 1.0)),
    ("maximum", lambda a, b: leafgrad.maximum(a, b)),
    ("where", lambda a, b: leafgrad.where(a > b, a, b * 0.5)),
]


def _slice_inplace(t):
    out = t * 1.0
    out[..., :1].mul_(2.0)
    return out


def _build(seed: int):
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(int(rng.integers(4, 10))):
        if rng.random() < 0.5:
            steps.append(("u", int(rng.integers(len(UNARY))), int(rng.integers(100))))
        else:
            steps.append(("b", int(rng.integers(len(BINARY))), int(rng.integers(100)),
                          int(rng.integers(100))))
    use_matmul = rng.random() < 0.5
    use_backward = rng.random() < 0.5

    def program(x, w, b):
        pool = [x, x * w, x + b]
        for step in steps:
            if step[0] == "u":
                pool.append(UNARY[step[1]][1](pool[step[2] % len(pool)]))
            else:
                pool.append(BINARY[step[1]][1](pool[step[2] % len(pool)],
                                              pool[step[3] % len(pool)]))
        out = pool[-1]
        if use_matmul:
            out = out @ w.reshape(-1, 1) if out.ndim == 2 else out
        loss = sum(p.sum() for p in pool[3:]) + out.sum()
        if use_backward:
            loss.backward()
            return loss.detach(), out.detach()
        grads = leafgrad.autograd.grad(loss, [x, w, b], allow_unused=True)
        return loss.detach(), out.detach(), grads

    return program


def _inputs(seed: int, dtype):
    rng = np.random.default_rng(seed)
    make = lambda shape: leafgrad.tensor(rng.standard_normal(shape), dtype=dtype,  # noqa: E731
                                         requires_grad=True)
    return make((3, 4)), make((4,)), make((1, 4))


def _strides(tensor):
    """The strides of the dims of size > 1 (the layout: a size-1 dim's stride addresses
    nothing, as tests/ops/test_layout.py compares them)."""
    return tuple(s for n, s in zip(tensor.shape, tensor.stride()) if n > 1)


def _flat(result):
    out = []
    for item in result if isinstance(result, (tuple, list)) else [result]:
        if isinstance(item, (tuple, list)):
            out.extend(_flat(item))
        else:
            out.append(item)
    return out


@pytest.mark.parametrize("dtype", [leafgrad.float32, leafgrad.float64])
@pytest.mark.parametrize("seed", range(60))
def test_generated_program(seed, dtype):
    program = _build(seed)
    compiled = leafgrad.compile(program)
    for call in range(3):
        ours = _inputs(1000 * seed + call, dtype)
        theirs = [t.detach().clone().requires_grad_() for t in ours]
        got, expected = _flat(compiled(*ours)), _flat(program(*theirs))
        for a, b in zip(got + [t.grad for t in ours], expected + [t.grad for t in theirs]):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.dtype == b.dtype and _strides(a) == _strides(b)
                np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert compiled.replays >= 1, [e.breaks for e in compiled.captures]
