"""Differences found by the generated-program comparison (tests/differential, seeds 61000 and
up) and the open items fuzz8 left, each fixed and checked here against torch 2.13 as a class
(not the one seed). Each test sweeps its class of inputs in one loop (the suite's time budget)."""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()

LIBS = (torch, leafgrad)


def _signs(tensor) -> list:
    return np.signbit(tensor.detach().numpy()).tolist()


# -- the signed zeros of a convolution whose outputs are one product each ------------------------
# (generated-program seeds 57898, 52582: a zero gradient through conv1d with one output channel
# and a 1-element kernel gave the input gradient the products' -0. where torch's backward kernel
# sums from +0.; torch's forward keeps a product's sign for float64 and a float32 batch of one,
# and sums from +0. for a float32 batch of two or more split over threads or strided, in 1, 2
# and 3 dimensions)


def _convolutions(lib, spatial: int, transposed: bool):
    functional = lib.nn.functional
    if transposed:
        return (functional.conv_transpose1d, functional.conv_transpose2d,
                functional.conv_transpose3d)[spatial - 1]
    return (functional.conv1d, functional.conv2d, functional.conv3d)[spatial - 1]


def test_convolution_zero_signs_of_single_products():
    threads = torch.get_num_threads()
    try:
        for count in (1, 2):  # torch splits a float32 batch over its threads (below)
            torch.set_num_threads(count)
            leafgrad.set_num_threads(count)
            _check_convolution_zero_signs(count)
    finally:
        torch.set_num_threads(threads)
        leafgrad.set_num_threads(threads)


def _check_convolution_zero_signs(threads: int):
    failures = []
    # a 1-element kernel makes one product per output; a (2, 1, ...) kernel two (the control)
    cases = itertools.product(("float32", "float64"), (1, 2, 3), (1, 2), (1, 2), (1, 2), (1, 2),
                              (0, 1), (1, 2), (False, True))
    if threads > 1:  # only float32 batches of two or more differ
        cases = [case for case in cases if case[0] == "float32" and case[2] == 2]
    count = 0
    for dtype, spatial, batch, channels, out_channels, kernel, padding, stride, transposed \
            in cases:
        if (transposed and padding >= kernel) or (kernel == 2 and (stride, padding) != (1, 0)):
            continue
        count += 1
        observed = []
        for lib in LIBS:
            rng = np.random.default_rng(count)
            kind = getattr(lib, dtype)
            input_shape = (batch, channels) + (3,) * spatial
            weight_shape = ((channels, out_channels) if transposed else
                            (out_channels, channels)) + (kernel,) + (1,) * (spatial - 1)
            x = lib.tensor(rng.standard_normal(input_shape), dtype=kind, requires_grad=True)
            zeros = lib.tensor(np.where(rng.random(input_shape) < 0.5, 0.0, -0.0), dtype=kind)
            w = lib.tensor(rng.standard_normal(weight_shape), dtype=kind, requires_grad=True)
            convolution = _convolutions(lib, spatial, transposed)
            y = convolution(x, w, padding=padding, stride=stride)
            of_zeros = convolution(zeros, w, padding=padding, stride=stride)
            grad = np.where(rng.random(tuple(y.shape)) < 0.5, 0.0, -0.0)
            y.backward(lib.tensor(grad, dtype=kind))
            observed.append((_signs(y), _signs(of_zeros), _signs(x.grad), _signs(w.grad)))
        if observed[0] != observed[1]:
            failures.append((dtype, spatial, batch, channels, out_channels, kernel, padding,
                             stride, transposed))
    assert not failures, f"{threads} threads: {len(failures)} of {count}: {failures[:10]}"


# -- float32 gelu (exact form) of a contiguous tensor is oneDNN's -------------------------------
# (generated-program seeds 43903, 53095 (fuzz8's open items), 61839, 63823: torch hands a
# contiguous float32 tensor of two or more elements to oneDNN's gelu_erf, whose exp and erf are
# its own polynomials; leafgrad's float32 formula gave torch's bits on about half the elements)


def test_float32_gelu_forward_bits_are_torchs():
    from leafgrad.ops import _isa

    if not (_isa.ONEDNN_AVX2 or _isa.ONEDNN_AVX512):  # (ops/_onednn.py's two replays)
        import pytest

        pytest.skip("oneDNN's gelu_erf is replayed for its AVX2 and AVX-512 code only")
    rng = np.random.default_rng(9)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 88.0, -88.0, 1e30, -1e30,
               3.4e38, -3.4e38, 9.0, -9.0, 14.0, -14.0]
    arrays = [rng.standard_normal(n) * scale for n in (2, 3, 8, 15, 16, 17, 33, 300)
              for scale in (1.0, 4.0)]
    arrays += [np.array(special), rng.standard_normal((2, 3, 4)), rng.standard_normal(()),
               rng.standard_normal(1), rng.standard_normal((4, 6))[:, ::2]]
    failures = []
    for index, array in enumerate(arrays):
        array = np.asarray(array, dtype=np.float32)
        for form in ("function", "module"):  # (the tanh form is ATen's kernel: not this class)
            observed = []
            for lib in LIBS:
                x = lib.from_numpy(array.copy())
                if array.ndim == 2 and array.shape == (4, 3):  # a non-contiguous view
                    x = lib.from_numpy(np.ascontiguousarray(np.repeat(array, 2, 1)))[:, ::2]
                if form == "module":
                    y = lib.nn.GELU()(x)
                else:
                    y = lib.nn.functional.gelu(x, approximate="none")
                observed.append(y.numpy())
            expected, actual = observed
            same = np.array_equal(actual.view(np.uint32), expected.view(np.uint32)) or (
                np.isnan(expected).any() and np.array_equal(actual, expected, equal_nan=True))
            if not same:
                failures.append((index, form, array.shape))
    assert not failures, failures


# -- the layout of an elementwise result of one expanded operand ---------------------------------
# (generated-program seed 67086: ``x.t().expand(2, 3, -1) / -1.5`` had NumPy's layout, the
# expanded dim innermost, where TensorIterator leaves it outermost: torch's result was
# contiguous, so F.linear took its flattened addmm path, ViewBackward0(AddmmBackward0))


def _expanded_operands(lib):
    base = lib.arange(6.0).reshape(2, 3)
    column = lib.arange(3.0).reshape(1, 3)
    yield column.t().expand(2, 3, -1)
    yield column.t().expand(3, 4)
    yield column.expand(4, 3)
    yield base.t().expand(2, 3, 2)
    yield base.expand(4, 2, 3).transpose(0, 2)
    yield base.t().unsqueeze(1).expand(3, 4, 2)
    yield column.t().expand(2, 3, 1).transpose(1, 2)


def test_elementwise_layout_of_an_expanded_operand():
    failures = []
    forms = {
        "div": lambda lib, x: x / -1.5,
        "mul": lambda lib, x: lib.mul(x, 2),
        "add": lambda lib, x: x + 1,
        "sub": lambda lib, x: lib.sub(x, 0.5, alpha=2),
    }
    # (open: ops of one operand and a number held as a parameter, such as neg, x ** 2 and 2 - x,
    # keep NumPy's layout; the strides of size-1 dims are NumPy's, as elsewhere in leafgrad, so
    # only dims of two or more elements are compared)
    for name, form in forms.items():
        observed = []
        for lib in LIBS:
            results = [form(lib, x) for x in _expanded_operands(lib)]
            observed.append([(tuple(stride for stride, size in zip(r.stride(), r.shape)
                                    if size > 1), r.is_contiguous(), r.tolist())
                             for r in results])
        for index, (expected, actual) in enumerate(zip(*observed)):
            if expected != actual:
                failures.append((name, index, expected[:2], actual[:2]))
    observed = []
    for lib in LIBS:
        x = lib.tensor([[1, 0, 0]]).t().expand(2, 3, -1) / -1.5
        weight = lib.ones(3, 1, requires_grad=True)
        y = lib.nn.functional.linear(x, weight, lib.ones(3, requires_grad=True))
        observed.append((y.grad_fn.name(), y.grad_fn.next_functions[0][0].name(), y._version))
    assert not failures and observed[0] == observed[1], (failures, observed)


# -- prod's gradient over a dim of one element, with zeros, under create_graph -------------------
# (generated-program seed 68000: torch's prod_safe_zeros_backward returns the gradient itself
# when the reduced dim has one element; leafgrad recorded its cumprod formula, MulBackward0)


def _graph(node, depth=3):
    if node is None:
        return None
    return (node.name(), tuple(_graph(n, depth - 1) for n, _ in node.next_functions)
            if depth else ())


def test_prod_gradient_over_one_element_with_zeros():
    failures = []
    cases = [((3, 1), -1, False), ((3, 1), 1, True), ((1, 3), 0, False), ((3, 2), 1, False),
             ((1,), None, False), ((1, 1), None, False), ((2, 1, 2), 1, False)]
    for values, (shape, dim, keepdim), dtype in itertools.product(
            ([1.0, 2.0, 3.0, 4.0], [1.0, 0.0, 3.0, 4.0], [0.0, 0.0, 2.0, 0.0]), cases,
            ("float32", "float64")):
        observed = []
        for lib in LIBS:
            count = int(np.prod(shape))
            x = lib.tensor((values * 2)[:count], dtype=getattr(lib, dtype),
                           requires_grad=True)
            y = x.reshape(shape) * 2  # a recorded gradient reaches the prod node
            result = y.prod() if dim is None else y.prod(dim, keepdim=keepdim)
            grad, = lib.autograd.grad((result * 3).sum(), y, create_graph=True)
            observed.append((_graph(grad.grad_fn), grad.tolist()))
        if observed[0] != observed[1]:
            failures.append((values, shape, dim, keepdim, dtype, observed))
    assert not failures, (len(failures), failures[:3])
