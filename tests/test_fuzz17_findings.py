"""Differences found by the generated-program comparison (tests/differential: the seeds
test_fuzz16_findings.py left unexamined, and programs_wide3.py's seeds from 30_000_000), each
fixed and checked here against torch 2.13 as a class (not the one seed). Each test sweeps its
class of inputs in one loop (the suite's time budget)."""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()

LIBS = (torch, leafgrad)

# the comparisons test_fuzz14_findings.py defined (every bit of a tensor's values, NaN payloads
# aside; a result or an exception's type and first line)
from tests.test_fuzz14_findings import _outcome  # noqa: E402
from tests.test_fuzz16_findings import _fbits  # noqa: E402


# -- float16/bfloat16 activation backwards compute in float and round once ----------------------
# (generated-program seed 20009531: func.grad of exp(tanh(exp(a))).sum() at float16 a printed
# 0.2734 where torch prints 0.2729: torch's tanh_backward, silu/softplus/log_sigmoid/mish/
# hardswish/elu_backward take a reduced float type in float (isReducedFloatingType branches)
# and round once; leafgrad computed their formulas in the reduced dtype, every step rounded:
# half of the float16 gradients of tanh, silu, mish differed in the last bit)

_ACTIVATIONS = ["x.tanh()", "F.silu(x)", "F.softplus(x)", "F.softplus(x, beta=2, threshold=1)",
                "F.logsigmoid(x)", "F.mish(x)", "F.hardswish(x)", "F.elu(x)", "F.selu(x)",
                "F.celu(x, 0.5)", "F.tanhshrink(x)", "F.elu(x, 0.7)"]


def test_reduced_float_activation_backwards_round_once():
    failures = []
    rng = np.random.RandomState(0)
    values = (rng.randn(2, 300) * 2.5).astype(np.float32)
    grads = rng.randn(2, 300).astype(np.float32)
    for form, dtype, layout, call in itertools.product(
            _ACTIVATIONS, ["float16", "bfloat16"], ["plain", "strided", "few"],
            ["backward", "grad"]):
        results = []
        for lib in LIBS:
            def run():
                dt = getattr(lib, dtype)
                x = lib.tensor(values).to(dt)
                g = lib.tensor(grads).to(dt)
                if layout == "strided":
                    x, g = x.t(), g.t()
                elif layout == "few":
                    x, g = x[0, :5], g[0, :5]
                x.requires_grad_()
                y = eval(form, {"x": x, "F": lib.nn.functional})
                if call == "backward":
                    y.backward(g)
                    return _fbits(y), _fbits(x.grad)
                return _fbits(lib.autograd.grad(y, x, g)[0])
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, dtype, layout, call))
    assert not failures, (len(failures), failures[:6])


# -- float16 convolutions are torch's slow kernel's frames, each gemm in float ------------------
# (generated-program seeds 20009194, 20011717, 20013222, 20013318, 10032043: a float16 conv1d
# printed 1.9287 where torch prints 1.9297: torch's float16 convolution (no oneDNN form without
# AVX512-FP16) is slow_conv2d, whose gemm sums each output in float from the bias and rounds
# once; leafgrad's NumPy product rounded the sum, then added the bias in float16. The weight
# and input gradients are that kernel's gemm calls too.)

_CONVS = [
    ("F.conv1d(x, w, b, padding='same')", (2, 3, 7), (4, 3, 3)),
    ("F.conv1d(x, w, b, stride=2, padding=1)", (3, 4, 9), (2, 2, 3), 2),
    ("F.conv1d(x, w, None, padding=1)", (1, 6, 5), (1, 6, 2)),
    ("F.conv1d(x[0], w, b, padding=2)", (1, 2, 3), (3, 2, 3)),
    ("F.conv2d(x, w, b, padding=1)", (2, 3, 5, 4), (4, 3, 3, 3)),
    ("F.conv2d(x, w, b, stride=(2, 1), groups=2)", (2, 4, 6, 5), (4, 2, 2, 3), 2),
    ("F.conv2d(x, w, None)", (1, 5, 4, 4), (2, 5, 3, 3)),
]


def test_float16_convolutions_round_each_output_once():
    failures = []
    rng = np.random.RandomState(1)
    for spec, wants in itertools.product(_CONVS, [(True, True, True), (True, False, False),
                                                  (False, True, True)]):
        form, x_shape, w_shape = spec[:3]
        groups = spec[3] if len(spec) > 3 else 1
        x_values = (rng.randn(*x_shape) * 2).astype(np.float16)
        w_values = rng.randn(*w_shape).astype(np.float16)
        b_values = rng.randn(w_shape[0]).astype(np.float16)
        results = []
        for lib in LIBS:
            def run():
                x = lib.tensor(x_values).requires_grad_(wants[0])
                w = lib.tensor(w_values).requires_grad_(wants[1])
                b = lib.tensor(b_values).requires_grad_(wants[2])
                y = eval(form, {"x": x, "w": w, "b": b, "F": lib.nn.functional,
                                "groups": groups})
                g = lib.linspace(-2, 3, y.numel(), dtype=lib.float16).reshape(y.shape)
                leaves = [t for t in (x, w, b) if t.requires_grad and
                          (t is not b or "b," in form)]
                grads = lib.autograd.grad(y, leaves, g)
                return [_fbits(y)] + [_fbits(t) for t in grads]
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, wants))
    assert not failures, (len(failures), failures[:6])


# -- float16/bfloat16 layer norm backward: torch's frame in float, its buffers in the dtype ------
# (generated-program seed 10033018: a zero gradient through layer_norm(float16 x, weight with a
# negative entry) gave x.grad [0., -0., 0.] where torch gives +0.: leafgrad's formula ran in the
# reduced dtype, each step rounded (44% of float16 input gradients differed); torch's
# layer_norm_backward_frame computes in float from mean and rstd saved in the input's dtype,
# rounds the per-thread dgamma/dbeta buffers to it after each row and dx once)

_LAYER_NORMS = [((3,), 1), ((4, 5), 1), ((2, 3, 4), 2), ((6, 7), 1), ((2, 1, 3), 1)]


def test_reduced_layer_norm_backward_is_torch_frame():
    failures = []
    rng = np.random.RandomState(2)
    for (shape, count), dtype, affine, wants, zero in itertools.product(
            _LAYER_NORMS, ["float16", "bfloat16"], ["weight", "both", "none"],
            [(True, True, True), (True, False, False), (False, True, True)], [False, True]):
        normalized = shape[len(shape) - count:]
        values = [rng.randn(*shape), rng.randn(*normalized), rng.randn(*normalized),
                  np.zeros(shape) if zero else rng.randn(*shape)]
        values = [v.astype(np.float32) for v in values]
        results = []
        for lib in LIBS:
            def run():
                dt = getattr(lib, dtype)
                x, w, b, g = [lib.tensor(v).to(dt) for v in values]
                x.requires_grad_(wants[0])
                w = w.requires_grad_(wants[1]) if affine != "none" else None
                b = b.requires_grad_(wants[2]) if affine == "both" else None
                y = lib.nn.functional.layer_norm(x, normalized, w, b)
                leaves = [t for t in (x, w, b) if t is not None and t.requires_grad]
                if not leaves:
                    return [_fbits(y)]
                return [_fbits(y)] + [_fbits(t) for t in lib.autograd.grad(y, leaves, g)]
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((shape, dtype, affine, wants, zero))
    assert not failures, (len(failures), failures[:6])


# -- addcmul/addcdiv's value is c10's checked conversion to an integer result's type ----------
# (generated-program seeds 20000555, 20006043, 20008385, 20008625: uint8 x.addcmul_(x, x,
# value=-3) raised NumPy's 'OverflowError: Python integer -3 out of bounds for uint8' where torch
# wraps it to 253, as it does add's alpha; out of range, torch's 'value cannot be converted to
# type uint8_t without overflow', and a float value too large for the type is refused the same)

_ADDC_FORMS = ["x.addcmul(x, y, value=v)", "x.addcmul_(x, y, value=v)",
               "lib.addcmul(x, y, x, value=v)", "lib.addcmul(x, x, y, value=v, out=o)",
               "x.addcdiv(f, f + 1, value=v)", "x.clone().addcmul_(y, y, value=v)"]


def test_addcmul_value_is_checked_against_integer_results():
    failures = []
    for form, dtype, value in itertools.product(
            _ADDC_FORMS + ["x.add(y, alpha=v)", "x.sub_(y, alpha=v)",
                           "lib.add(x, y, alpha=v, out=o)"],
            ["uint8", "int8", "int16", "int32", "int64"],
            [-3, -255, -256, 300, -300, 2.5, -2.5, 1e30, -70000, 2 ** 40, True]):
        results = []
        for lib in LIBS:
            def run():
                dt = getattr(lib, dtype)
                x = lib.tensor([[0, 1], [6, 2]], dtype=dt)
                y = lib.tensor([3, 7], dtype=dt)
                f = lib.tensor([1.5, -2.0])
                o = lib.empty(2, 2, dtype=dt)
                try:
                    r = eval(form, {"x": x, "y": y, "f": f, "o": o, "v": value, "lib": lib})
                except Exception:
                    return (_outcome(lambda: eval(form, {"x": x, "y": y, "f": f, "o": o,
                                                         "v": value, "lib": lib})),
                            x.tolist(), x._version)
                return r.tolist(), str(r.dtype).split(".")[-1], x.tolist(), x._version
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, dtype, value, results))
    assert not failures, (len(failures), failures[:4])


# -- a torch.func transform may save an inference tensor its function captures ----------------
# (generated-program seed 10031819: vjp(lambda a: a.cos().tanh().exp() * c, x) with c made under
# inference_mode raised 'Inference tensors cannot be saved for backward' where torch lifts c
# into the transform's GradTrackingTensor, no inference tensor; outside a transform the error
# stays)

_CAPTURES = [
    "lib.func.vjp(lambda a: a.cos() * c, x)[1](lib.ones_like(x))",
    "lib.func.vjp(lambda a: a.cos() * c, x)[0]",
    "lib.func.grad(lambda a: (a.sin() * c).sum())(x)",
    "lib.func.grad_and_value(lambda a: (a * c.detach()).exp().sum())(x)",
    "lib.func.jacrev(lambda a: a * c)(x)",
    "lib.func.hessian(lambda a: (a * a * c).sum())(x)",
    "lib.func.jvp(lambda a: a.exp() * c, (x,), (lib.ones_like(x),))",
    "(x.requires_grad_() * c).sum()",
    "lib.autograd.grad((x.requires_grad_() * c.clone()).sum(), x)",
]


def test_transforms_save_captured_inference_tensors():
    failures = []
    for form, dtype in itertools.product(_CAPTURES, ["float32", "float64"]):
        results = []
        for lib in LIBS:
            def run():
                x = lib.tensor([0.5, -1.0, 2.0], dtype=getattr(lib, dtype))
                with lib.inference_mode():
                    c = x * 2
                r = eval(form, {"lib": lib, "x": x, "c": c})
                flat = r if isinstance(r, tuple) else (r,)
                flat = [t for item in flat for t in (item if isinstance(item, tuple) else (item,))]
                return [_fbits(t) for t in flat]
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, dtype, results))
    assert not failures, (len(failures), failures[:3])


# -- float16/bfloat16 prod over a dim multiplies in the dtype, each product rounded ------------
# (generated-program seed 30000036: float16 x.prod(-1) printed 0.9751 where torch prints
# 0.9761: torch's prod over a dim keeps its running product in the reduced dtype; NumPy's
# float16 reduce carries it in float32 and rounds once, and leafgrad's bfloat16 ops computed
# in float32)

def test_reduced_prod_over_a_dim_rounds_each_product():
    failures = []
    rng = np.random.RandomState(3)
    for (shape, dim), dtype, keepdim, layout in itertools.product(
            [((6, 4), -1), ((6, 4), 0), ((3, 20), 1), ((7, 3, 5), 1), ((1, 17), 1), ((4,), 0),
             ((2, 0), 1)],
            ["float16", "bfloat16"], [False, True], ["plain", "transposed"]):
        values = rng.uniform(0.6, 1.6, size=shape).astype(np.float32)
        results = []
        for lib in LIBS:
            def run():
                x = lib.tensor(values).to(getattr(lib, dtype))
                if layout == "transposed" and x.ndim > 1:
                    x = x.mT.contiguous().mT
                x.requires_grad_()
                y = x.prod(dim, keepdim=keepdim)
                (grad,) = lib.autograd.grad(y.sum(), x)
                return _fbits(y), _fbits(grad), _fbits(lib.prod(x, dim, dtype=lib.float32))
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((shape, dim, dtype, keepdim, layout))
    assert not failures, (len(failures), failures[:6])


# -- a complex product in torch's vector loop rounds its two products separately ---------------
# (generated-program seeds 30000370, 30000560: conj(x) * x printed imaginary parts of 1e-17
# where torch prints 0: torch's vectorised complex multiply computes ac - bd and ad + bc with
# each product rounded; NumPy fuses one of them, as torch's scalar loop does on the elements
# its vectors leave. complex64's scalar loop takes a last odd element alone, unfused.)

def test_complex_products_in_torch_vector_loop():
    failures = []
    rng = np.random.RandomState(4)
    forms128 = ["x.conj() * x", "x * y", "lib.mul(x, y)", "x.mul_(y)", "x * (1.5 - 0.5j)",
                "x.view(-1, 1) * y", "x[::2] * y[::2]", "x * y.real", "lib.mul(x, y, out=o)"]
    forms64 = ["x.conj() * x", "x * y", "lib.mul(x, y)", "x.mul_(y)", "x * x"]
    for dtype, forms in (("complex128", forms128), ("complex64", forms64)):
        for form, n in itertools.product(forms, [1, 3, 4, 5, 8, 9, 12, 17, 33]):
            v = rng.randn(n) + 1j * rng.randn(n)
            w = rng.randn(n) + 1j * rng.randn(n)
            results = []
            for lib in LIBS:
                def run():
                    dt = getattr(lib, dtype)
                    x, y = lib.tensor(v).to(dt), lib.tensor(w).to(dt)
                    o = lib.empty(n, dtype=dt)
                    return _fbits(eval(form, {"x": x, "y": y, "o": o, "lib": lib}))
                results.append(_outcome(run))
            if results[0] != results[1]:
                failures.append((dtype, form, n))
    assert not failures, (len(failures), failures[:6])
