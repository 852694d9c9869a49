"""Ops whose arithmetic order was not ATen's, found by sweeping common ops over 8x16 to 33x50
tensors against torch (values and gradients bit for bit):

- hardsigmoid: ATen computes ``min(max(x + 3, 0), 6) / 6`` (in float for float16/bfloat16,
  rounded once); leafgrad's ``x / 6 + 0.5`` was a last bit off on ~40% of values;
- log10's gradient: derivatives.yaml's ``grad / (self * 2.3025850929940456)``, a double one
  ulp below ``math.log(10)``, which leafgrad used (~90% of float64 gradients a last bit off);
- trace: ATen's trace_cpu adds the diagonal in order into ``acc_type`` (double for float32,
  float for float16, complex<double> for complex64), where NumPy's pairwise float32 sum gave
  another last bit.

(NaN payloads are compared as NaN: torch's vector loops return an all-ones NaN where its
scalar loop keeps the input's.)"""

from __future__ import annotations

import numpy as np

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _same(a, b) -> bool:
    a, b = a.detach(), b.detach()
    if a.dtype == torch.bfloat16:
        a, b = a.float(), b.float()
    a, b = a.numpy(), b.numpy()
    if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
        return False
    if a.dtype.kind == "f":  # the signs of zeros (not of NaNs: see the module doc)
        numbers = ~np.isnan(a)
        return np.array_equal(np.signbit(a[numbers]), np.signbit(b[numbers]))
    return True


def _inputs(rng, dtype):
    """0-d, empty, a vector, a matrix and its transpose, a larger matrix; specials in each."""
    out = []
    for shape in [(), (0,), (7,), (8, 16), (33, 50)]:
        x = rng.standard_normal(shape) * 4
        if x.size > 4:
            x.flat[:4] = [np.nan, -0.0, 3.0, -3.0]
        x = x.astype(dtype)
        out += [x, x.T] if x.ndim == 2 else [x]
    return out


def test_hardsigmoid_values_are_torchs_bits():
    rng = np.random.default_rng(0)
    differing = []
    for dtype in (np.float16, np.float32, np.float64, "bfloat16"):
        wire = np.float32 if dtype == "bfloat16" else dtype
        for x in _inputs(rng, wire):
            results = []
            for lib in (torch, leafgrad):
                t = lib.tensor(x)
                if dtype == "bfloat16":
                    t = t.bfloat16()
                results.append(lib.nn.functional.hardsigmoid(t))
            if not _same(*results):
                differing.append((str(dtype), x.shape, x.strides))
    assert not differing, differing


def test_log_gradients_are_torchs_bits():
    rng = np.random.default_rng(1)
    differing = []
    for dtype in (np.float32, np.float64):
        for x in _inputs(rng, dtype):
            x = np.abs(x) + dtype(0.01)
            for name in ("log10", "log2", "log"):
                grads = []
                for lib in (torch, leafgrad):
                    t = lib.tensor(x, requires_grad=True)
                    y = getattr(t, name)()
                    y.backward(lib.full_like(y, 0.7))
                    grads.append(t.grad)
                if not _same(*grads):
                    differing.append((name, dtype.__name__, x.shape))
    assert not differing, differing


def test_trace_is_torchs_bits():
    rng = np.random.default_rng(2)
    differing = []
    dtypes = (np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int32,
              np.int64)
    for dtype in dtypes:
        for shape in [(0, 0), (1, 1), (3, 5), (5, 3), (50, 50), (200, 200), (7, 1)]:
            m = rng.standard_normal(shape) * (100 if np.dtype(dtype).kind == "i" else 1)
            if np.dtype(dtype).kind == "c":
                m = m + 1j * rng.standard_normal(shape)
            m = m.astype(dtype)
            for matrix in (m, m.T):
                if not _same(torch.tensor(matrix).trace(), leafgrad.tensor(matrix).trace()):
                    differing.append((np.dtype(dtype).name, matrix.shape, matrix.strides))
    zeros = -np.zeros((3, 3), np.float32)  # the sum starts at +0
    if not _same(torch.tensor(zeros).trace(), leafgrad.tensor(zeros).trace()):
        differing.append("-0 diagonal")
    assert not differing, differing


def test_silu_gradient_is_torchs_float32_kernel():
    """ATen's silu_backward: dy * s * (1 + x * (1 - s)) with the bracket one fused
    multiply-add, s from SLEEF's expf in the vectors and glibc's expf in the scalar tail (its
    split as TensorIterator makes it: contiguous runs, transposed operands, a non-contiguous
    upstream gradient)."""
    rng = np.random.default_rng(3)
    differing = []
    shapes = [(), (0,), (1,), (5,), (31,), (32,), (33,), (70,), (8, 16), (33, 50)]
    for shape in shapes:
        x = (rng.standard_normal(shape) * 4).astype(np.float32)
        g = rng.standard_normal(shape).astype(np.float32)
        layouts = [(x, g)]
        if x.ndim == 2:
            layouts += [(x.T, g.T), (x.T, np.ascontiguousarray(g.T)),
                        (x, np.asfortranarray(g))]
        for xs, gs in layouts:
            grads = []
            for lib in (torch, leafgrad):
                t = lib.tensor(xs).requires_grad_()
                upstream = lib.tensor(gs) if gs.flags.c_contiguous else \
                    lib.tensor(np.ascontiguousarray(gs.T)).t()
                lib.nn.functional.silu(t).backward(upstream)
                grads.append(t.grad)
            if not _same(*grads):
                differing.append((xs.shape, xs.strides, gs.strides))
    assert not differing, differing
