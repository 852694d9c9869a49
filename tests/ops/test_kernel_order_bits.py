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


def test_glu_values_and_gradients_are_torchs_float32_bits():
    """ATen's glu kernel: a * (1 / (1 + exp(-b))); its backward: sigmoid(b) * grad for the first
    half and (1 - s) * s * a * grad for the second (leafgrad divided, and multiplied in
    another order: a last bit off on ~30% of values); also the values of a create_graph
    backward (GluBackwardBackward0's)."""
    rng = np.random.default_rng(4)
    differing = []
    _glu_cases(rng, differing)
    assert not differing, differing


def _glu_cases(rng, differing):
    for shape, dim in [((8, 16), 1), ((8, 16), 0), ((4, 6), -1), ((3, 100), 1), ((2, 70, 3), 1),
                       ((2,), 0)]:
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        g_shape = list(shape)
        g_shape[dim] //= 2
        g = rng.standard_normal(g_shape).astype(np.float32)
        for xs in ([x, x.T] if x.ndim == 2 and dim in (0, 1) else [x]):
            d = dim if xs is x else 1 - dim
            gs = g if xs is x else g.T
            seen = []
            for lib in (torch, leafgrad):
                t = lib.tensor(xs).requires_grad_()
                y = lib.nn.functional.glu(t, d)
                (first,) = lib.autograd.grad(y, t, lib.tensor(np.ascontiguousarray(gs)),
                                             create_graph=True)
                seen.append((y, first))
            if not all(_same(u, v) for u, v in zip(*seen)):
                differing.append((xs.shape, xs.strides, d))


def test_scalar_loops_take_glibcs_expf_bits():
    """torch's scalar loops (a strided run, the leftover after the last pair of vectors) call
    std::exp, glibc's expf, which is not float64's exp rounded once on ~0.07% of inputs
    (expf(-0.49571458) is 0.6091355, not 0.60913545): sigmoid, silu and softplus of strided
    float32 tensors, forward and backward, every element through that loop. (softplus also
    calls log1pf, glibc's replay of which runs under ``torch_bits`` only: README.)"""
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(2 * 20000) * 4).astype(np.float32)
    g = rng.standard_normal(20000).astype(np.float32)
    differing = []
    forms = {
        "sigmoid": lambda lib, t: t.sigmoid(),
        "silu": lambda lib, t: lib.nn.functional.silu(t),
        "softplus": lambda lib, t: lib.nn.functional.softplus(t),
    }
    previous = leafgrad.backends.cpu.torch_bits
    for name, form in forms.items():
        leafgrad.backends.cpu.torch_bits = name == "softplus"
        try:
            seen = []
            for lib in (torch, leafgrad):
                t = lib.tensor(x).requires_grad_()
                y = form(lib, t[::2])  # strided: every element takes the scalar loop
                y.backward(lib.tensor(g))
                seen.append((y, t.grad))
        finally:
            leafgrad.backends.cpu.torch_bits = previous
        if not all(_same(u, v) for u, v in zip(*seen)):
            differing.append(name)
    assert not differing, differing


def test_libm_expf_is_the_c_librarys():
    import ctypes
    import ctypes.util

    from leafgrad.ops import _libm

    library = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    expf = library.expf
    expf.restype, expf.argtypes = ctypes.c_float, [ctypes.c_float]
    rng = np.random.default_rng(6)
    values = np.concatenate([
        (rng.standard_normal(100000) * 10).astype(np.float32),
        np.linspace(-110, 90, 100001, dtype=np.float32),  # subnormal results and overflow
        np.arange(0x3E000000, 0x3E000000 + 100000, dtype=np.uint32).view(np.float32),
        np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32)])
    want = np.array([expf(v) for v in values.tolist()], np.float32)
    got = _libm.expf(values)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_layer_norm_values_are_torchs_bits_by_default():
    """F.layer_norm's float32 values replay torch's RowwiseMoments and output kernel by
    default up to 4,096 elements (about half of them were a last bit off with NumPy's
    statistics: a transformer tutorial's printed activations)."""
    rng = np.random.default_rng(7)
    differing = []
    cases = [((8, 16), 1), ((32, 64), 1), ((4, 6, 10), 2), ((3, 5, 17), 1), ((64, 64), 1),
             ((2, 2048), 1), ((5, 3), 1)]
    for shape, dims in cases:
        normalized = shape[len(shape) - dims:]
        x = (rng.standard_normal(shape) * 2 + 0.5).astype(np.float32)
        w = rng.standard_normal(normalized).astype(np.float32)
        b = rng.standard_normal(normalized).astype(np.float32)
        for affine in ("none", "weight", "both"):
            seen = []
            for lib in (torch, leafgrad):
                weight = lib.tensor(w) if affine != "none" else None
                bias = lib.tensor(b) if affine == "both" else None
                seen.append(lib.nn.functional.layer_norm(lib.tensor(x), normalized, weight,
                                                         bias))
            if not _same(*seen):
                differing.append((shape, dims, affine))
    assert not differing, differing


def test_short_scalar_loops_take_glibcs_log1pf_and_expm1f_by_default():
    """softplus's scalar loop calls glibc's log1pf, elu/selu/celu's its expm1f: up to 256
    elements leafgrad calls the C library itself (float64's values rounded once, before,
    were a last bit off on ~3% of them); strided inputs put every element through that loop,
    and a row of 40 leaves 8 to it (elu's vectors are SLEEF's expm1f, replayed)."""
    rng = np.random.default_rng(8)
    differing = []
    forms = {
        "softplus": lambda lib, t: lib.nn.functional.softplus(t),
        "elu": lambda lib, t: lib.nn.functional.elu(t),
        "selu": lambda lib, t: lib.nn.functional.selu(t),
        "celu": lambda lib, t: lib.nn.functional.celu(t, 0.7),
    }
    for size in (1, 5, 40, 200):
        x = (rng.standard_normal(2 * size) * 3).astype(np.float32)
        g = rng.standard_normal(size).astype(np.float32)
        for name, form in forms.items():
            for strided in (False, True):
                seen = []
                for lib in (torch, leafgrad):
                    t = lib.tensor(x).requires_grad_()
                    y = form(lib, t[::2] if strided else t[:size])
                    y.backward(lib.tensor(g))
                    seen.append((y, t.grad))
                if name == "softplus" and not strided and size >= 32:
                    continue  # (its vectors' log1pf: SLEEF's, replayed under torch_bits)
                if not all(_same(u, v) for u, v in zip(*seen)):
                    differing.append((name, size, strided))
    assert not differing, differing


def test_one_norm_is_torchs_in_order_sum():
    """torch's 1-norm adds |x| one element after another in memory order (NormOneOps through
    binary_kernel_reduce, in float for float16/float32); NumPy's pairwise sum was a last bit
    off on ~70% of float32 1-norms, and clip_grad_norm_(norm_type=1) scaled every gradient by
    that other total."""
    rng = np.random.default_rng(9)
    differing = []
    forms = {
        "all": lambda lib, t: lib.linalg.vector_norm(t, 1),
        "dim 0": lambda lib, t: lib.linalg.vector_norm(t, 1, dim=0),
        "dim -1 keepdim": lambda lib, t: lib.linalg.vector_norm(t, 1, dim=-1, keepdim=True),
        "transposed": lambda lib, t: lib.linalg.vector_norm(t.t(), 1, dim=1),
        "two dims": lambda lib, t: lib.linalg.vector_norm(t.reshape(5, 4, -1), 1, dim=(0, 2)),
        "Tensor.norm": lambda lib, t: t.norm(1),
        "torch.norm": lambda lib, t: lib.norm(t, p=1, dim=1),
    }
    for dtype in (np.float16, np.float32, np.float64):
        for trial in range(4):
            x = (rng.standard_normal((20, 10)) * 3).astype(dtype)
            for name, form in forms.items():
                results = [form(lib, lib.tensor(x)) for lib in (torch, leafgrad)]
                if not _same(*results):
                    differing.append((name, dtype.__name__, trial))
    for shape in [(0,), (), (1,), (0, 3)]:
        x = rng.standard_normal(shape).astype(np.float32)
        results = [lib.linalg.vector_norm(lib.tensor(x), 1) for lib in (torch, leafgrad)]
        if not _same(*results):
            differing.append(("edge", shape))
    # clip_grad_norm_ with norm_type 1: the total norm and every scaled gradient
    shapes = [(10, 20), (20,), (5, 10)]
    grads = [(rng.standard_normal(s) * 3).astype(np.float32) for s in shapes]
    for foreach in (None, False, True):
        seen = []
        for lib in (torch, leafgrad):
            params = [lib.zeros(s, requires_grad=True) for s in shapes]
            for p, g in zip(params, grads):
                p.grad = lib.tensor(g)
            total = lib.nn.utils.clip_grad_norm_(params, 0.5, norm_type=1.0, foreach=foreach)
            seen.append([total] + [p.grad for p in params])
        if not all(_same(u, v) for u, v in zip(*seen)):
            differing.append(("clip_grad_norm_", foreach))
    assert not differing, differing


def test_two_norm_generic_reduction_and_dtype_are_torchs():
    """The 2-norm outside the vectorised last-dim kernel (several dims, float16) adds the
    rounded squares in memory order as NormTwoOps does, and with ``dtype=`` torch casts first
    and runs the same kernels (leafgrad skipped the last-dim kernel there)."""
    rng = np.random.default_rng(10)
    differing = []
    forms = {
        "two dims": lambda lib, t, d: lib.linalg.vector_norm(t.reshape(5, 4, -1), 2,
                                                             dim=(0, 2)),
        "dim 1": lambda lib, t, d: lib.linalg.vector_norm(t, 2, dim=1),
        "dim 0": lambda lib, t, d: lib.linalg.vector_norm(t, 2, dim=0),
        "all, dtype": lambda lib, t, d: lib.linalg.vector_norm(t, 2, dtype=d),
        "dim 1, dtype": lambda lib, t, d: lib.linalg.vector_norm(t, 2, dim=1, dtype=d),
    }
    for dtype in (np.float16, np.float32, np.float64):
        for trial in range(4):
            x = (rng.standard_normal((20, 10)) * 3).astype(dtype)
            for name, form in forms.items():
                if "dtype" in name and dtype == np.float64:
                    continue
                results = [form(lib, lib.tensor(x), lib.float64) for lib in (torch, leafgrad)]
                if not _same(*results):
                    differing.append((name, dtype.__name__, trial))
    assert not differing, differing


def test_gelu_tanh_form_follows_atens_order():
    """gelu(approximate='tanh') as ATen's GeluKernel/GeluBackwardKernel compute it: the
    bracket x + kappa x^3 fused, and the backward's 1 - t^2 and 1 + 3 kappa x^2 fused as the
    compiler contracts them (the former order left ~33% of float32 gradients a last bit off).
    What remains is the tanh itself: torch's vectors run SLEEF's tanhf, leafgrad MKL's tanh
    (or float64's rounded), which differ on well under 1% of inputs."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(20000) * 2).astype(np.float32)
    dy = rng.standard_normal(20000).astype(np.float32)
    seen = []
    for lib in (torch, leafgrad):
        t = lib.tensor(x).requires_grad_()
        y = lib.nn.functional.gelu(t, approximate="tanh")
        y.backward(lib.tensor(dy))
        seen.append((y.detach().numpy(), t.grad.numpy()))
    (y0, g0), (y1, g1) = seen
    assert np.mean(y0 != y1) < 0.003 and np.mean(g0 != g1) < 0.003, (
        np.mean(y0 != y1), np.mean(g0 != g1))


def test_gelu_exact_form_gradient_is_onednns_bits():
    """gelu_backward (exact form) of a contiguous float32 input of two or more elements is
    oneDNN's gelu_erf backward, as torch's gelu_backward_out_cpu hands it (Abramowitz-Stegun
    erf, oneDNN's exp, fused steps; the same code on AVX2 and AVX-512); leafgrad's formula with
    MKL's erf was a last bit off on ~25% of gradients. One element and a non-contiguous input
    take ATen's GeluBackwardKernel (its vector erf and SLEEF's expf, the C library's erff and
    expf in the scalar loop: which elements take which follows TensorIterator). Swept: specials, every scale, lengths
    around the vector widths, 0-d/1-element/non-contiguous inputs (ATen's own kernel in torch),
    broadcast and non-contiguous incoming gradients, and the module and functional forms."""
    from leafgrad.ops import _isa
    if not (_isa.ONEDNN_AVX2 or _isa.ONEDNN_AVX512):
        import pytest
        pytest.skip("oneDNN's gelu_erf backward is replayed for its AVX2 and AVX-512 code only")
    rng = np.random.default_rng(13)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-30, 88.0, -88.0,
                        3.4e38, -3.4e38, 9.0, -9.0, 13.2, -13.2, 0.125, -0.125], np.float32)
    arrays = [special]
    arrays += [(rng.standard_normal(n) * scale).astype(np.float32)
               for n in (2, 3, 15, 16, 17, 33, 300, 5000) for scale in (0.01, 1.0, 4.0)]
    arrays += [rng.standard_normal(s).astype(np.float32)
               for s in [(), (1,), (2, 3, 4), (6, 5), (40, 33), (3, 50, 7)]]
    failures = []
    for index, array in enumerate(arrays):
        for layout in ("contiguous", "transposed"):
            if layout == "transposed" and array.ndim < 2:
                continue
            for grad_form in ("given", "same layout", "broadcast"):
                seen = []
                for lib in (torch, leafgrad):
                    x = lib.from_numpy(array.copy())
                    if layout == "transposed":
                        x = x.transpose(0, 1)
                    x.requires_grad_()
                    module = index % 2 == 0
                    y = lib.nn.GELU()(x) if module else lib.nn.functional.gelu(x)
                    if grad_form == "given":  # (a transposed input's is laid out otherwise)
                        g = lib.from_numpy(rng_grad(array.shape)).reshape(x.shape)
                        y.backward(g)
                    elif grad_form == "same layout":
                        g = lib.from_numpy(rng_grad(array.shape))
                        y.backward(g.transpose(0, 1) if layout == "transposed" else g)
                    else:
                        (y * 1.5).sum().backward()
                    seen.append(x.grad)
                if not _same(*seen):
                    failures.append((index, layout, grad_form, array.shape))
    assert not failures, failures


def rng_grad(shape):
    return np.random.default_rng(sum(shape) + len(shape)).standard_normal(shape).astype(np.float32)


def test_layer_norm_parameter_gradients_up_to_128_rows_per_thread():
    """LayerNorm's dgamma and dbeta by default: torch's per-thread buffers (one row at a time,
    dgamma's step a fused multiply-add) are replayed up to 128 rows per thread; 32 before, so a
    (4, 24, 32) LayerNorm's weight gradient was NumPy's sum (78% a last bit off)."""
    rng = np.random.default_rng(40)
    failures = []
    for threads in (1, 2):
        saved = torch.get_num_threads(), leafgrad.get_num_threads()
        torch.set_num_threads(threads)
        leafgrad.set_num_threads(threads)
        try:
            for shape in [(4, 24, 32), (33, 16), (2, 64, 48), (128, 20), (96, 7), (3, 85, 64)]:
                if int(np.prod(shape[:-1])) > 128 * threads:
                    continue
                x = rng.standard_normal(shape).astype(np.float32)
                g = rng.standard_normal(shape).astype(np.float32)
                seen = []
                for lib in (torch, leafgrad):
                    module = lib.nn.LayerNorm(shape[-1])
                    with lib.no_grad():
                        module.weight.copy_(lib.linspace(0.5, 1.5, shape[-1]))
                    t = lib.tensor(x, requires_grad=True)
                    module(t).backward(lib.tensor(g))
                    seen.append((t.grad, module.weight.grad, module.bias.grad))
                if not all(_same(a, b) for a, b in zip(*seen)):
                    failures.append((threads, shape))
        finally:
            torch.set_num_threads(saved[0])
            leafgrad.set_num_threads(saved[1])
    assert not failures, failures
