"""What the replay writes for ufunc kernels: Python number operands as typed 0-d arrays, the
few-call kernels (``capture_steps``) inline, and in-place replays of fused steps; results stay
bitwise eager's, including the sign of zero and numbers a dtype cannot hold."""

import numpy as np
import pytest

import leafgrad

SPECIAL = [0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 3e-39, 0.3, -7.25]


def _bits(t):
    return np.ascontiguousarray(t.detach().numpy()).tobytes()


def _constants(x):
    # -0. and 0. must stay two constants; 2**40 is no exact float32; 1e300 overflows float32
    a = x * -0.0
    b = x * 0.0
    c = (x + 2 ** 40) - 3
    d = x / 1.7 + 1e300 * (x - x)
    return a + b, c, d


def _smooth(x, w):
    y = (x * w).tanh() * 1.5 + (x - w).sigmoid() * 0.5
    return y.tanh().sigmoid()


@pytest.mark.parametrize("dtype", [leafgrad.float32, leafgrad.float64])
def test_number_operands_bitwise(dtype):
    def step(x):
        return _constants(x)

    compiled = leafgrad.compile(step)
    x = leafgrad.tensor(SPECIAL, dtype=dtype)
    for values in (SPECIAL, SPECIAL[::-1], [v * 3 for v in SPECIAL]):
        x = leafgrad.tensor(values, dtype=dtype)
        with np.errstate(all="ignore"):
            expected = step(x)
            got = compiled(x)
        assert [_bits(t) for t in got] == [_bits(t) for t in expected]
    assert compiled.replays >= 2
    assert "K" in compiled.code  # the numbers are named constants


@pytest.mark.parametrize("dtype", [leafgrad.float32, leafgrad.float64])
def test_inlined_steps_bitwise(dtype):
    rng = np.random.default_rng(0)

    def step(x, w):
        w.grad = None
        out = _smooth(x, w)
        out.backward(leafgrad.ones_like(out))
        return out.detach(), w.grad

    compiled = leafgrad.compile(step)
    w = leafgrad.tensor(rng.standard_normal(16), dtype=dtype, requires_grad=True)
    for _ in range(3):
        x = leafgrad.tensor(rng.standard_normal(16), dtype=dtype)
        expected = step(x, w)
        got = compiled(x, w)
        assert [_bits(t) for t in got] == [_bits(t) for t in expected]
    assert compiled.replays == 2
    from leafgrad.ops.elementwise import SigmoidBackward, TanhBackward

    names = compiled.captures[-1].replay.__globals__
    used = {id(value) for value in names.values()}
    # sigmoid's backward is written as its ufunc calls, not a call of its kernel; tanh's calls
    # its kernel (1 - y * y fused as torch's, ops/_float_kernels.tanh_backward)
    assert id(np.subtract) in used
    assert id(SigmoidBackward.capture_kernel) not in used
    assert id(TanhBackward.capture_kernel) in used


@pytest.mark.parametrize("dtype", [leafgrad.float32, leafgrad.float64])
def test_matmul_kernels_bitwise(dtype):
    from leafgrad.ops.linalg import Addmm, Mm

    rng = np.random.default_rng(1)

    def tensor(*shape, grad=False):
        return leafgrad.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=grad)

    w, b = tensor(6, 9, grad=True), tensor(6, grad=True)
    v, c = tensor(6, 9, grad=True), tensor(5, 1, grad=True)

    def step(x):
        w.grad = b.grad = v.grad = c.grad = None
        h = leafgrad.nn.functional.linear(x, w, b).relu()  # addmm into a buffer
        y = leafgrad.addmm(c, h.t().t(), w) @ v.t()  # broadcast bias; transposed operands
        (y * y).sum().backward()
        return y.detach(), w.grad, b.grad, v.grad, c.grad

    compiled = leafgrad.compile(step)
    for _ in range(3):
        x = tensor(5, 9)
        assert [_bits(t) for t in compiled(x)] == [_bits(t) for t in step(x)]
    assert compiled.replays == 2
    names = compiled.captures[-1].replay.__globals__
    used = {id(value) for value in names.values()}
    assert id(Mm.capture_kernel) in used and id(Addmm.capture_kernel) in used


def test_returned_grad_is_the_new_one():
    # w.grad is set during the call from an array eager copies (a transposed sum of two
    # contributions); the replay returned the .grad the call started with
    rng = np.random.default_rng(2)
    w = leafgrad.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    v = leafgrad.tensor(rng.standard_normal((4, 3)), requires_grad=True)

    def step(x):
        w.grad = v.grad = None
        h = (x @ w.t()).relu()
        ((x @ w.t() + h) @ v).sum().backward()
        return w.grad, v.grad

    compiled = leafgrad.compile(step)
    for _ in range(3):
        x = leafgrad.tensor(rng.standard_normal((5, 3)))
        got = compiled(x)
        assert got[0]._data is w.grad._data and got[1]._data is v.grad._data
        assert [_bits(t) for t in got] == [_bits(t) for t in step(x)]
    assert compiled.replays == 2


@pytest.mark.parametrize("size", [1, 3])
def test_one_element_results_never_overwrite_their_arguments(size):
    """A one-element kernel result takes a buffer freed by an earlier node, never the buffer of
    one of its own arguments (NumPy runs such a ufunc at twice the cost); larger results take
    over a dying argument's buffer. Results and gradients stay bitwise eager's."""
    import re

    rng = np.random.default_rng(3)
    w = leafgrad.tensor(rng.uniform(0.9, 1.1, size).astype(np.float32), requires_grad=True)
    b = leafgrad.tensor(rng.uniform(-0.1, 0.1, size).astype(np.float32), requires_grad=True)

    def step(x):
        w.grad = None
        b.grad = None
        y = x
        for _ in range(6):
            y = (y * w + b).tanh() * 1.7
        y.sum().backward()
        return y

    compiled = leafgrad.compile(step)
    for seed in range(3):
        x = leafgrad.tensor(np.random.default_rng(seed).uniform(-1, 1, size).astype(np.float32))
        expected = [_bits(step(x)), _bits(w.grad), _bits(b.grad)]
        got = [_bits(compiled(x)), _bits(w.grad), _bits(b.grad)]
        assert got == expected
    holder = {}  # value name -> buffer name it was written into
    overwrites = 0
    for line in compiled.code.splitlines():
        match = re.match(r"\s*(v\d+) = U\d+\((.*), (B\d+)\)$", line)
        if not match:
            continue
        target, args, buffer = match.groups()
        if any(holder.get(arg.strip()) == buffer for arg in args.split(",")):
            overwrites += 1
        holder[target] = buffer
    if size == 1:
        assert overwrites == 0
    else:
        assert overwrites > 0  # the chain runs in place
