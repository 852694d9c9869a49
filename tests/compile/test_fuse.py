"""Fused elementwise runs (_compile/fuse.py, ops/_numba_tape.py): every instruction of the
compiled loop gives the bits of the NumPy call it stands for, on every class of float32 and
float64 input, and replays that fuse equal eager steps bit for bit, with the loops on, off, and
with MKL's functions switched off after the capture.

numba and MKL are test dependencies: without them these tests skip locally and fail in CI
(CI=1), as for torch."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import _float_kernels, _isa, _mkl, _numba_kernels

if os.environ.get("CI"):
    import numba  # noqa: F401 - CI installs the test extra; its absence must fail loudly
else:
    pytest.importorskip("numba")

if _isa.CAPABILITY != "avx512":  # pragma: no cover - the loops serve AVX-512 machines only
    pytest.skip("the compiled loops serve AVX-512 machines only", allow_module_level=True)

from leafgrad._compile import fuse  # noqa: E402
from tests.compile.test_numba_kernels import assert_same_bits  # noqa: E402
from leafgrad.ops import _numba_tape as tape  # noqa: E402

_RNG = np.random.default_rng(20261130)
_SIZES = (1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 64, 65, 1024)


def _values(dtype, size: int) -> np.ndarray:
    """Random bit patterns, ordinary numbers and the special values, ``size`` of them."""
    unsigned = {np.float32: np.uint32, np.float64: np.uint64}[dtype]
    info = np.iinfo(unsigned)
    patterns = _RNG.integers(0, info.max, size, dtype=unsigned, endpoint=True).view(dtype)
    ordinary = _RNG.standard_normal(size).astype(dtype) * dtype(3)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-40, -1e-310,
                        np.finfo(dtype).max, np.finfo(dtype).tiny, 0.5], dtype)
    pick = _RNG.integers(0, 3, size)
    out = np.where(pick == 0, patterns, ordinary)
    specials = _RNG.integers(0, len(special), size)
    return np.where(_RNG.random(size) < 0.15, special[specials], out).astype(dtype)


def _mkl_or_skip():
    if not _mkl.available():
        if os.environ.get("CI"):
            raise AssertionError("CI installs the mkl extra: MKL's functions must be found")
        pytest.skip("MKL's vector functions are not installed")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_instruction_gives_the_numpy_calls_bits(dtype):
    consts_values = (0.0, -0.0, 1.7, -3.25, np.inf, np.nan, 1e-3)
    consts = np.array(consts_values, dtype)
    wide = dtype == np.float64
    with np.errstate(all="ignore"):
        for size in _SIZES:
            a, b = _values(dtype, size), _values(dtype, size)
            for ufunc, opcode in tape.BINARY.items():
                ws = np.stack([a, b, np.zeros_like(a)])
                tape.run(np.array([[opcode, 2, 0, 1]], np.int64), ws, consts, fuse.FUNCTIONS,
                         wide)
                assert_same_bits(ws[2], ufunc(a, b))
                for index, c in enumerate(consts):
                    ws = np.stack([a, np.zeros_like(a), np.zeros_like(a)])
                    code = np.array([[opcode + tape.ADD_C, 1, 0, index],
                                     [opcode + tape.C_ADD, 2, 0, index]], np.int64)
                    tape.run(code, ws, consts, fuse.FUNCTIONS, wide)
                    assert_same_bits(ws[1], ufunc(a, consts[index:index + 1].reshape(())))
                    assert_same_bits(ws[2], ufunc(consts[index:index + 1].reshape(()), a))
                # in place: the destination is an operand (a buffer taken over)
                ws = np.stack([a, b])
                tape.run(np.array([[opcode, 0, 0, 1]], np.int64), ws, consts, fuse.FUNCTIONS,
                         wide)
                assert_same_bits(ws[0], ufunc(a, b))
            ws = np.stack([a, np.zeros_like(a)])
            tape.run(np.array([[tape.NEG, 1, 0, 0]], np.int64), ws, consts, fuse.FUNCTIONS,
                     wide)
            assert_same_bits(ws[1], np.negative(a))
            y = np.tanh(a)  # tanh's backward reads tanh's results (and, here, anything else)
            for second in (y, b):
                ws = np.stack([a, second, np.zeros_like(a)])
                tape.run(np.array([[tape.TANH_BACKWARD, 2, 0, 1]], np.int64), ws, consts,
                         fuse.FUNCTIONS, wide)
                assert_same_bits(ws[2], _float_kernels.tanh_backward(a, second,
                                                                     np.empty_like(a)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mkl_functions_give_the_capture_kernels_bits(dtype):
    _mkl_or_skip()
    kernels = {"exp": _float_kernels.exp_into, "log": _float_kernels.log_into,
               "sqrt": _float_kernels.sqrt_into, "sin": _float_kernels.sin_into,
               "cos": _float_kernels.cos_into, "tanh": _float_kernels.tanh_into}
    with np.errstate(all="ignore"):
        for name, kernel in kernels.items():
            index = fuse._vml_index(name, np.dtype(dtype))
            assert index is not None, name
            for size in _SIZES:
                a = _values(dtype, size)
                ws = np.stack([a, np.zeros_like(a), a])
                code = np.array([[tape.VML, 1, 0, index], [tape.VML, 2, 2, index]], np.int64)
                tape.run(code, ws, np.zeros(0, dtype), fuse.FUNCTIONS, dtype == np.float64)
                want = kernel(a, np.empty_like(a))
                assert_same_bits(ws[1], want)
                assert_same_bits(ws[2], want)  # in place


def _step(lib, dtype, size, which):
    """Parameters and a step of every fusible kind (forward and backward), the leaves in
    ``which`` requiring grad."""
    g = lib.Generator().manual_seed(7)
    x, w, b = (lib.rand(size, generator=g, dtype=dtype) + 0.5 for _ in range(3))
    for t, flag in zip((x, w, b), which):
        t.requires_grad_(flag)

    def step(x, w, b):
        y = x * w
        y = y + b
        y = y - 0.25
        y = 2.0 - y
        y = y / 1.3
        y = 0.5 / (y * y + 1)
        y = -y
        y = y.tanh()
        y = (y + 1.5).sqrt()
        y = y.exp() * 0.1
        y = (y + 1).log()
        y = y.sin() + y.cos()
        y = y.sigmoid() * 1.7
        if y.requires_grad:
            (y * y).sum().backward()
        return y.detach().sum()

    return (x, w, b), step


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_replays_fuse_and_equal_eager(dtype_name):
    for size, which in itertools.product((1, 3, 64, 1024, 1025),
                                         [(True, True, True), (True, False, False),
                                          (False, True, True), (False, False, False)]):
        dtype = getattr(leafgrad, dtype_name)
        eager_inputs, step = _step(leafgrad, dtype, size, which)
        compiled_inputs, _ = _step(leafgrad, dtype, size, which)
        compiled = leafgrad.compile(step)
        for _ in range(3):
            want = step(*eager_inputs)
            got = compiled(*compiled_inputs)
            assert_same_bits(got.numpy(), want.numpy())
            for mine, theirs in zip(compiled_inputs, eager_inputs):
                if theirs.grad is None:
                    assert mine.grad is None
                else:
                    assert_same_bits(mine.grad.numpy(), theirs.grad.numpy())
        fused = compiled.graph.stats["nodes in fused runs"]
        if size <= fuse.MAX_ELEMENTS:
            assert fused >= 10, (size, which, compiled.graph.stats)
        else:
            assert fused == 0


def test_switched_off_after_capture_the_numpy_calls_run():
    _mkl_or_skip()
    cpu = leafgrad.backends.cpu
    for setting in ("compiled_loops", "mkl_vml"):
        eager_inputs, step = _step(leafgrad, leafgrad.float32, 5, (True, True, True))
        compiled_inputs, _ = _step(leafgrad, leafgrad.float32, 5, (True, True, True))
        compiled = leafgrad.compile(step)
        for _ in range(2):  # captures without, then with, .grad
            compiled(*compiled_inputs)
            step(*eager_inputs)
        assert compiled.graph.stats["nodes in fused runs"] > 0
        captures = len(compiled.captures)
        was = getattr(cpu, setting)
        setattr(cpu, setting, False)
        try:
            for _ in range(2):
                assert_same_bits(compiled(*compiled_inputs).numpy(),
                                 step(*eager_inputs).numpy())
                for mine, theirs in zip(compiled_inputs, eager_inputs):
                    assert_same_bits(mine.grad.numpy(), theirs.grad.numpy())
            assert len(compiled.captures) == captures  # (replayed: the NumPy branch ran)
        finally:
            setattr(cpu, setting, was)


def test_operands_from_other_workspaces_and_inputs_are_copied_in():
    # float32 and float64 runs in one step, operands of each crossing over by casts, an
    # operand read by a later run after a matrix product, one-element and longer rows
    def make(lib):
        g = lib.Generator().manual_seed(3)
        a = lib.rand(4, generator=g, requires_grad=True)
        m = lib.rand(4, 4, generator=g, requires_grad=True)
        return a, m

    def step(a, m):
        y = ((a * 2. + 1.) * a - 0.5) * a
        z = (((y.double() * 3. - 1.) * y.double()) + 0.25) / 1.5
        y = (y * y) @ m
        y = (y.tanh() + z.float() * y) * a - y
        w = ((y.sum(0, keepdim=True) * 0.5 + 1.) * 2. - 3.) * 1.5
        (y.sum() + (w * w).sum() + (z * z).sum()).backward()
        return y.detach()

    eager, compiled_inputs = make(leafgrad), make(leafgrad)
    compiled = leafgrad.compile(step)
    for _ in range(3):
        want = step(*eager)
        got = compiled(*compiled_inputs)
        assert_same_bits(got.numpy(), want.numpy())
        for mine, theirs in zip(compiled_inputs, eager):
            assert_same_bits(mine.grad.numpy(), theirs.grad.numpy())
    assert compiled.graph.stats["fused elementwise runs"] >= 2


_UNARY = [lambda t: -t, lambda t: t.tanh(), lambda t: (t * t + 0.5).sqrt(),
          lambda t: (t * 0.25).exp(), lambda t: (t * t + 1.0).log(), lambda t: t.sin(),
          lambda t: t.cos(), lambda t: t.sigmoid(), lambda t: t * 1.7, lambda t: 0.5 - t,
          lambda t: t / 3.0, lambda t: 2.0 / (t * t + 1.0), lambda t: t + -0.0,
          lambda t: t - 1e-3]
_BINARY = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b,
           lambda a, b: a / (b * b + 1.0)]


def _random_program(seed: int):
    rng = np.random.default_rng(seed)
    steps = [(int(rng.integers(2)), int(rng.integers(len(_UNARY))),
              int(rng.integers(len(_BINARY))), int(rng.integers(100)), int(rng.integers(100)))
             for _ in range(int(rng.integers(3, 25)))]
    use_backward = bool(rng.integers(2))
    gradient = bool(rng.integers(2))

    def program(x, w, b):
        pool = [x, w, b]
        for binary, u, bi, i, j in steps:
            a = pool[i % len(pool)]
            pool.append(_BINARY[bi](a, pool[j % len(pool)]) if binary else _UNARY[u](a))
        out = pool[-1]
        loss = out * out if gradient else out
        differentiable = [t for t in (x, w, b) if t.requires_grad]
        if not differentiable or not loss.requires_grad:
            return out.detach()
        seed_grad = leafgrad.ones_like(loss) * 0.5
        if use_backward:
            loss.backward(seed_grad)
            return out.detach()
        grads = leafgrad.autograd.grad(loss, differentiable, seed_grad, allow_unused=True,
                                       materialize_grads=True)
        return (out.detach(),) + tuple(grads)

    return program


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_generated_elementwise_programs_equal_eager_bit_for_bit(dtype_name):
    dtype = getattr(leafgrad, dtype_name)
    fused = 0
    for seed in range(60):
        program = _random_program(seed)
        rng = np.random.default_rng(seed)
        shape = [(1,), (5,), (2, 3), (4, 16)][seed % 4]
        which = [bool(f) for f in rng.integers(0, 2, 3)]

        def inputs(call):
            data = np.random.default_rng(1000 * seed + call).standard_normal((3,) + shape)
            return [leafgrad.tensor(d, dtype=dtype, requires_grad=f) for d, f in zip(data, which)]

        compiled = leafgrad.compile(program)
        for call in range(3):
            ours, theirs = inputs(call), inputs(call)
            got, want = compiled(*ours), program(*theirs)
            got = got if isinstance(got, tuple) else (got,)
            want = want if isinstance(want, tuple) else (want,)
            for a, b in zip(got + tuple(t.grad for t in ours),
                            want + tuple(t.grad for t in theirs)):
                assert (a is None) == (b is None), seed
                if a is not None:
                    assert_same_bits(a.numpy(), b.numpy())
        fused += compiled.graph.stats.get("nodes in fused runs", 0)
    assert fused > 200  # (the runs are there to be compared)
