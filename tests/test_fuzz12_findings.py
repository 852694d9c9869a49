"""Differences found by the generated-program comparison (tests/differential, seeds 185000 and
up) and the open items fuzz11 left, each fixed and checked here against torch 2.13 as a class
(not the one seed). Each test sweeps its class of inputs in one loop (the suite's time
budget)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import _isa
from tests._torch import require_torch

torch = require_torch()

LIBS = (torch, leafgrad)


def _same_bits(expected: np.ndarray, actual: np.ndarray) -> bool:
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        return False
    nan = np.isnan(expected)
    return bool(np.array_equal(nan, np.isnan(actual))
                and expected[~nan].tobytes() == actual[~nan].tobytes())


# -- float32 gelu (exact form) on an AVX-512 processor: oneDNN's minimax polynomials ----------
# (generated-program seeds 146959, 147503, 150815, 151071, 158279, 162359: torch hands a
# contiguous float32 tensor of two or more elements to oneDNN's gelu_erf, which on avx512_core
# is 25 degree-5 polynomials in |x| chosen by x's bits, not the AVX2 code's exp and
# Abramowitz-Stegun erf that leafgrad replayed; this machine's formula was used instead and
# differed in the last bits)


def test_float32_gelu_forward_bits_on_every_onednn_isa():
    if not (_isa.ONEDNN_AVX2 or _isa.ONEDNN_AVX512):
        pytest.skip("oneDNN's gelu_erf is replayed for its AVX2 and AVX-512 code only")
    rng = np.random.default_rng(12)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-30, -1e-30, 88.0, -88.0,
               3.4e38, -3.4e38, 5.5420, -5.5420, 5.5421, -5.5421, 9.0, -9.0, 0.125, -0.125]
    # every polynomial's interval: |x| from 2^-8 to 2^3 in steps of a quarter octave
    edges = 2.0 ** np.arange(-8, 3.25, 0.25)
    arrays = [np.array(special), np.concatenate([edges, -edges, np.nextafter(edges, 0)])]
    arrays += [rng.standard_normal(n) * scale for n in (2, 3, 15, 16, 17, 33, 300, 5000)
               for scale in (0.01, 1.0, 3.0)]
    arrays += [rng.standard_normal((2, 3, 4)), rng.standard_normal(()), rng.standard_normal(1),
               rng.standard_normal((4, 6))]
    failures = []
    for index, array in enumerate(arrays):
        array = np.asarray(array, dtype=np.float32)
        for form in ("function", "module"):
            observed = []
            for lib in LIBS:
                x = lib.from_numpy(array.copy())
                if form == "module":
                    y = lib.nn.GELU()(x)
                else:
                    y = lib.nn.functional.gelu(x, approximate="none")
                observed.append(y.numpy())
            if not _same_bits(*observed):
                failures.append((index, form, array.shape))
    assert not failures, failures


# -- torch's ZeroTensor gradients through views, matmul's reshapes, full sums and dot ----------
# (generated-program seeds 152000, 171887: sgn's zero gradient (abs's second derivative) passes
# a transpose, a permute, matmul's unsafe view, a full sum and dot as a ZeroTensor, and a
# reshape that is a view of it; leafgrad made real zeros there, so a product by a negative
# number further down gave -0. where torch's gradient is +0., or a sum with a -0. gave +0.)

_Z = [[1.0, -2.0, 0.5], [-1.5, 0.25, 2.0]]
_ZERO_PATHS = {
    "transpose": lambda lib, x: x.transpose(0, 1) * -1.5,
    "t": lambda lib, x: x.t() * -1.5,
    "permute": lambda lib, x: x.permute(1, 0) * -1.5,
    "transpose 3d size-1": lambda lib, x: x.reshape(1, 6, 1).transpose(-1, -2) * -1.5,
    "reshape of a transpose (copies)": lambda lib, x: x.t().reshape(6) * -1.5,
    "reshape of a transpose (a view)": lambda lib, x: x.reshape(1, 6, 1).transpose(0, 2)
    .reshape(6) * -1.5,
    "view then transpose": lambda lib, x: x.reshape(3, 2).t() * -1.5,
    "matmul 1d @ 3d": lambda lib, x: lib.tensor([-0.5]) @ x.reshape(1, 1, 6),
    "matmul 3d @ 1d": lambda lib, x: x.reshape(2, 3, 1) @ lib.tensor([-0.5]),
    "matmul 3d @ 2d": lambda lib, x: x.reshape(1, 2, 3) @ lib.tensor(_Z).t(),
    "sum": lambda lib, x: x.sum() * -1.5,
    "dot": lambda lib, x: x.reshape(6) @ lib.tensor(_Z).reshape(6),
    "dot other": lambda lib, x: lib.tensor(_Z).reshape(6) @ x.reshape(6),
}


def test_zero_gradients_through_views_reshapes_sums_and_dot():
    failures = []
    for name, then in itertools.product(_ZERO_PATHS, ["sgn", "sgn + zero", "abs twice"]):
        results = []
        for lib in LIBS:
            x = lib.tensor(_Z, requires_grad=True)
            if then == "abs twice":
                # abs's second derivative (the seeds' form): sgn's zero through the path
                w = lib.tensor(_Z).abs().reshape(-1)[: _ZERO_PATHS[name](lib, x).numel()]
                y = _ZERO_PATHS[name](lib, x).abs()
                g, = lib.autograd.grad(y, x, grad_outputs=w.reshape(y.shape) * -1,
                                       create_graph=True)
                (g.sum() + (x * lib.tensor(-0.0)).sum()).backward()
            else:
                total = lib.sgn(_ZERO_PATHS[name](lib, x)).sum()
                if then == "sgn + zero":
                    total = total + (x * lib.tensor(-0.0)).sum() * -1.0
                total.backward()
            results.append(x.grad.detach().numpy(force=True))
        if not _same_bits(*results):
            failures.append((name, then, results))
    assert not failures, (len(failures), failures[:3])


# -- a retained gradient plus a ZeroTensor keeps its values ----------------------------------
# (generated-program seed 197610: torch's retain_grad adds a second backward's gradient as
# ``grad() + grad``; sgn's ZeroTensor there leaves the first gradient's -0. as it is, where
# leafgrad added real zeros and gave +0.)


def test_retained_gradient_plus_a_zero_gradient_keeps_its_signs():
    failures = []
    targets = [1.4, -1.6, 1.6, -0.4, -1.6, 0.75]
    for start, second in itertools.product((0.0, -0.0, 1.5, -1.5), ("backward", "grad")):
        results = []
        for lib in LIBS:
            x = lib.full((2, 3), start, requires_grad=True)
            v = (x * 1).reshape(-1)
            v.retain_grad()
            loss = lib.nn.functional.l1_loss(v.abs() + 0.5, lib.tensor(targets))
            g, = lib.autograd.grad(loss, [x], create_graph=True)
            if second == "backward":
                g.sum().backward()
            else:
                (g * -1).sum().backward(inputs=[x, v])
            results.append(v.grad.detach().numpy())
        if not _same_bits(*results):
            failures.append((start, second, results))
    assert not failures, failures


# -- cumprod's recorded gradient of an input with zeros is torch's slice-by-slice loop --------
# (generated-program seeds 186616, 200096: under create_graph torch's cumprod_backward of an
# input with a zero fills a zero tensor one slice at a time (select(dim, k).copy_ of a
# SumBackward1), so the gradient's grad_fn is CopySlices; leafgrad's (n, n) matrix form gave
# TransposeBackward0 and other values in the last bits)


def _grad_fn_tree(fn, depth=3):
    if fn is None or depth == 0:
        return None
    return (fn.name(), tuple(_grad_fn_tree(child, depth - 1) for child, _ in fn.next_functions))


def test_cumprod_recorded_gradient_with_zeros_is_torchs_loop():
    failures = []
    rng = np.random.default_rng(12)
    shapes = ((4,), (2, 4), (3, 1), (1, 5, 2))
    for dtype, shape, zeros, leaves in itertools.product(
            ("float32", "float64"), shapes, (1, "all"), ("one", "two")):
        values = rng.standard_normal(shape).astype(dtype)
        flat = values.reshape(-1)
        flat[: flat.size if zeros == "all" else zeros] = 0.0
        rng.shuffle(flat)
        weights = rng.standard_normal(shape).astype(dtype)
        for dim in range(-len(shape), len(shape)):
            results = []
            for lib in LIBS:
                x = lib.tensor(values, requires_grad=True)
                inputs = [x]
                source = x
                if leaves == "two":
                    other = lib.tensor(weights, requires_grad=True)
                    source = x * other
                    inputs.append(other)
                y = lib.cumprod(source, dim)
                grads = lib.autograd.grad((y * lib.tensor(weights)).sum(), inputs,
                                          create_graph=True)
                total = sum((g * g).sum() for g in grads)
                second = lib.autograd.grad(total, inputs, allow_unused=True,
                                           materialize_grads=True) \
                    if total.requires_grad else ()
                results.append(([_grad_fn_tree(g.grad_fn) for g in grads]
                                + [g.detach().numpy().tobytes() for g in grads],
                                [g.numpy() for g in second]))
            (expected, expected_second), (actual, actual_second) = results
            # (the second derivative goes through prod's and cumprod's own backward: close)
            tolerance = 1e-5 if dtype == "float32" else 1e-12
            if expected != actual or not all(
                    np.allclose(a, e, rtol=tolerance, atol=tolerance)
                    for a, e in zip(actual_second, expected_second)):
                failures.append((dtype, shape, zeros, leaves, dim))
    assert not failures, (len(failures), failures[:5])


# -- float64 softmax and log_softmax backward over a dim that is not the last ------------------
# (generated-program seeds 162316, 182112, 183112, 185488: torch's _vec_softmax_backward sums
# ``grad * output`` over the dim as fused multiply-adds from +0, and _vec_log_softmax_backward
# fuses ``grad - exp(output) * sum`` (SLEEF's exp in the vectors, glibc's in the tails), for
# float64 as for float32; leafgrad's float64 formula rounded the products first, so a gradient
# that cancels to about 1e-17 came out with another value and sign)


def test_float64_softmax_backward_over_another_dim_bits():
    rng = np.random.default_rng(12)
    failures = []
    count = 0
    cases = (((3, 1), 0), ((3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 0), ((5, 9), 0), ((3, 17), -2),
             ((4, 2, 8), 1), ((2, 5, 3, 20), 1), ((6, 1, 1), 0), ((2, 7, 1, 9), -3))
    for (shape, dim), log, form in itertools.product(cases, (False, True),
                                                     ("backward", "create_graph")):
        count += 1
        x = rng.standard_normal(shape)
        g = rng.standard_normal(shape)
        observed = []
        for lib in LIBS:
            t = lib.tensor(x, requires_grad=True)
            y = (lib.log_softmax if log else lib.softmax)(t, dim)
            if lib is torch:
                forward = y.detach().numpy().copy()
            else:  # torch's forward values (its float64 forward over this dim is not replayed)
                y.data.copy_(lib.tensor(forward))
            grad, = lib.autograd.grad(y, t, lib.tensor(g), create_graph=form == "create_graph")
            observed.append(grad.detach().numpy())
        if not _same_bits(*observed):
            failures.append((shape, dim, log, form))
    assert not failures, (len(failures), count, failures[:5])


# -- float64 log_softmax backward of a gradient with signed zeros ----------------------------
# (generated-program seeds 211538, 213562: nll_loss's gradient of a zero loss gradient is -0.
# at the target; torch's ``grad - exp(output) * sum(grad)`` as one fused operation keeps it,
# leafgrad's double-double replay of that operation turned -0. - exp * +0. into +0.)


def test_float64_log_softmax_backward_keeps_signed_zeros():
    failures = []
    rng = np.random.default_rng(12)
    for shape, dim, pattern in itertools.product(((3,), (2, 5), (4, 9), (3, 2, 4)), (-1, 0),
                                                 ("zeros", "one", "mixed")):
        x = rng.standard_normal(shape)
        g = np.zeros(shape)
        g.reshape(-1)[::2] = -0.0
        if pattern == "one":
            g.reshape(-1)[1] = 1.5
        elif pattern == "mixed":
            g.reshape(-1)[1::3] = rng.standard_normal(g.reshape(-1)[1::3].shape)
        observed = []
        for lib in LIBS:
            t = lib.tensor(x, requires_grad=True)
            y = lib.log_softmax(t, dim)
            if lib is torch:
                forward = y.detach().numpy().copy()
            else:
                y.data.copy_(lib.tensor(forward))
            grad, = lib.autograd.grad(y, t, lib.tensor(g))
            observed.append(grad.numpy())
        if not _same_bits(*observed):
            failures.append((shape, dim, pattern))
    assert not failures, failures


# -- bicubic upsampling's backward adds each output's 16 taps in ATen's order ----------------
# (generated-program seed 216630: ATen's upsample_bicubic2d backward scatters every output's
# gradient, in raster order, into its 16 inputs one addition at a time, with coefficients
# computed without fused multiply-adds; leafgrad's separable adjoint summed in another order and
# a cancelling input gradient differed in its 5th digit)


def test_bicubic_backward_bits():
    rng = np.random.default_rng(12)
    failures = []
    cases = itertools.product(("float32", "float64"), ((1, 1, 3, 4), (2, 3, 2, 5), (1, 2, 5, 3)),
                              ({"scale_factor": 2}, {"scale_factor": 1.7}, {"size": (7, 3)},
                               {"size": (2, 2)}, {"scale_factor": 0.6}),
                              (False, True), (False, True))
    for dtype, shape, size, align_corners, create_graph in cases:
        x = rng.standard_normal(shape).astype(dtype)
        observed = []
        for lib in LIBS:
            t = lib.tensor(x, requires_grad=True)
            y = lib.nn.functional.interpolate(t, mode="bicubic", align_corners=align_corners,
                                              **size)
            if lib is torch:
                g = rng.standard_normal(tuple(y.shape)).astype(dtype)
            grad, = lib.autograd.grad(y, t, lib.tensor(g), create_graph=create_graph)
            observed.append(grad.detach().numpy())
        if not _same_bits(*observed):
            failures.append((dtype, shape, size, align_corners, create_graph))
    assert not failures, (len(failures), failures[:5])


# -- amax/amin of a 0-d tensor with dims named: the engine sums the restored gradient --------
# (generated-program seed 207114 and fuzz11's open item: torch's restore_reduced_dims gives the
# gradient of a 0-d input one size-1 dim per named dim, and the engine's sum back to 0-d
# records SumBackward0 and turns a -0. gradient into +0.)


def _grad_fn_names(fn, depth=2):
    if fn is None or depth == 0:
        return None
    return (fn.name(), tuple(_grad_fn_names(child, depth - 1) for child, _ in fn.next_functions))


def test_amax_amin_of_zero_d_tensor_with_dims():
    failures = []
    forms = ((-1,), (0,), ((0,),), ([-1],), ((),), ())
    for name, args, keepdim, value, recorded in itertools.product(
            ("amax", "amin"), forms, (False, True), (1.5, -0.0, 0.0), (False, True)):
        observed = []
        for lib in LIBS:
            x = lib.tensor(0.3, dtype=lib.float64, requires_grad=True)
            y = getattr(x, name)(*args, keepdim=keepdim) if args else getattr(x, name)()
            grad_output = lib.tensor(value, dtype=lib.float64).reshape(y.shape)
            if recorded:
                grad_output.requires_grad_()
            g, = lib.autograd.grad(y, x, grad_output, create_graph=recorded)
            observed.append((g.detach().numpy().tobytes(), tuple(g.shape),
                             _grad_fn_names(g.grad_fn)))
        if observed[0] != observed[1]:
            failures.append((name, args, keepdim, value, recorded, observed))
    assert not failures, (len(failures), failures[:3])


# -- float64 softmax and log_softmax over a dim that is not the last --------------------------
# (generated-program seed 202532: torch's _vec_softmax / _vec_log_softmax take SLEEF's expd in
# Vectorized<double>'s vectors, glibc's exp in the scalar tails and SLEEF's logd of the sums,
# as for float32; leafgrad's float64 formula used NumPy's exp and log)


def test_float64_softmax_over_another_dim_bits():
    rng = np.random.default_rng(12)
    failures = []
    cases = (((3, 1), 0), ((3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 0), ((5, 9), 0),
             ((3, 17), -2), ((4, 2, 8), 1), ((2, 5, 3, 20), 1), ((6, 1, 1), 0), ((2, 40), 0),
             ((7, 3, 33), 1))
    threads = [lib.get_num_threads() for lib in LIBS]
    try:
        for count, ((shape, dim), name) in itertools.product(
                (1, 2), itertools.product(cases, ("softmax", "log_softmax"))):
            for lib in LIBS:
                lib.set_num_threads(count)
            x = rng.standard_normal(shape) * 3
            observed = [getattr(lib, name)(lib.tensor(x), dim).numpy() for lib in LIBS]
            if not _same_bits(*observed):
                failures.append((count, shape, dim, name))
    finally:
        for lib, count in zip(LIBS, threads):
            lib.set_num_threads(count)
    assert not failures, failures


# -- a convolution with a -0. bias: sums of -0. products stay -0. ------------------------------
# (generated-program seeds 171806, 210742: torch adds the products into the bias, so where a
# window's products are all -0. (padding or zeros under weights of the other sign) a -0. bias
# gives -0.; leafgrad summed from +0. and added the bias: +0.)


def test_convolution_with_negative_zero_bias_keeps_signs():
    # (one thread: torch's float32 kernels for larger shapes choose by the thread count)
    threads = [lib.get_num_threads() for lib in LIBS]
    try:
        for lib in LIBS:
            lib.set_num_threads(1)
        _check_convolution_with_negative_zero_bias()
    finally:
        for lib, count in zip(LIBS, threads):
            lib.set_num_threads(count)


def _check_convolution_with_negative_zero_bias():
    rng = np.random.default_rng(12)
    failures = []
    count = 0
    for dtype, spatial, (batch, out_channels), groups, stride, padding, weights in \
            itertools.product(("float32", "float64"), (1, 2), ((1, 1), (2, 4)), (1, 2), (1, 2),
                              (1, 2), ("negative", "mixed", "zeros")):
        if out_channels % groups:
            continue
        count += 1
        channels, dilation = 2, 1 + count % 2
        shape = (batch, channels) + (5,) * spatial
        x = rng.standard_normal(shape).astype(dtype)
        x.reshape(-1)[::3] = 0.0
        x.reshape(-1)[1::7] = -0.0
        w = rng.standard_normal((out_channels, channels // groups) + (2,) * spatial)
        if weights == "negative":
            w = -np.abs(w)
        elif weights == "zeros":
            w.reshape(-1)[::2] = -0.0
        w = w.astype(dtype)
        bias = np.array([-0.0, 0.0, -0.0, 1.5][:out_channels], dtype=dtype)
        observed = []
        for lib in LIBS:
            conv = getattr(lib.nn.functional, f"conv{spatial}d")
            out = conv(lib.tensor(x), lib.tensor(w), lib.tensor(bias), stride=stride,
                       padding=padding, dilation=dilation, groups=groups)
            observed.append(out.numpy())
        expected, actual = observed
        if not (np.allclose(actual, expected, rtol=1e-5, atol=1e-6)
                and _zero_signs_match(expected, actual)):
            failures.append((dtype, spatial, batch, out_channels, groups, stride, padding,
                             weights))
    assert not failures, (len(failures), count, failures[:5])


def _zero_signs_match(expected, actual) -> bool:
    zeros = expected == 0
    return bool(np.array_equal(actual[zeros], expected[zeros])
                and np.array_equal(np.signbit(actual[zeros]), np.signbit(expected[zeros])))
