"""float16 and bfloat16 matrix products bit for bit with torch 2.13 (Note: half-precision gemm,
ops/linalg.py): every operand layout torch's gemm loop distinguishes, inner sizes around its
4-, 16- and 64-term blocks, empty and single-row/column products, addmm's beta/alpha and bias
shapes, bmm on both sides of its 400 multiply-add switch, nn.Linear forward and backward."""

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

_DTYPES = ("float16", "bfloat16")
# (m, k, n): inner sizes below, at and past 4, 16 and 64 terms, and single rows/columns
_SIZES = [(3, 5, 4), (4, 16, 8), (6, 17, 5), (5, 33, 7), (8, 64, 3), (7, 70, 6), (6, 130, 5),
          (1, 40, 9), (9, 40, 1), (1, 1, 1), (2, 0, 3), (0, 4, 3), (4, 3, 0)]


def _values(rng, shape):
    # magnitudes over 2**-8..2**8: the order of the additions shows in the rounded results
    return (rng.standard_normal(shape) * 2.0 ** rng.integers(-8, 8, shape)).astype(np.float32)


def _layouts(array):
    """The operand as given, column-major (a transposed copy) and a strided slice."""
    yield "row-major", array, lambda t: t
    # (a fresh copy: NumPy keeps a transposed view's size-1 strides, which torch.tensor copies)
    yield "column-major", np.array(array.T, order="C"), lambda t: t.T
    wide = np.repeat(array, 2, axis=1)
    yield "sliced", wide, lambda t: t[:, ::2]


def _pair(dtype, array, view):
    return (view(torch.tensor(array).to(getattr(torch, dtype))),
            view(lg.tensor(array).to(getattr(lg, dtype))))


def _bits(tensor):
    return tensor.detach().float().numpy().view(np.uint32)


def test_mm_and_matmul_every_layout():
    rng = np.random.default_rng(0)
    failures = []
    for dtype in _DTYPES:
        for m, k, n in _SIZES:
            a, b = _values(rng, (m, k)), _values(rng, (k, n))
            for a_name, a_array, a_view in _layouts(a):
                for b_name, b_array, b_view in _layouts(b):
                    ta, la = _pair(dtype, a_array, a_view)
                    tb, lb = _pair(dtype, b_array, b_view)
                    for form, op_t, op_l in (("mm", torch.mm, lg.mm),
                                             ("matmul", torch.matmul, lg.matmul)):
                        expected, got = _bits(op_t(ta, tb)), _bits(op_l(la, lb))
                        if expected.shape != got.shape or not np.array_equal(expected, got):
                            failures.append((dtype, (m, k, n), a_name, b_name, form))
    assert not failures, failures[:10]


def test_addmm_beta_alpha_and_bias_shapes():
    rng = np.random.default_rng(1)
    failures = []
    for dtype in _DTYPES:
        for m, k, n in [(5, 33, 7), (8, 64, 3), (7, 70, 6), (9, 40, 1), (1, 40, 9), (3, 0, 4)]:
            a, b = _values(rng, (m, k)), _values(rng, (k, n))
            for bias_shape in [(m, n), (n,), (1, n), (m, 1), ()]:
                bias = _values(rng, bias_shape)
                for beta, alpha in [(1, 1), (0, 1), (-4.775, 2.0315), (0.5, 1), (1, -3.0)]:
                    for a_name, a_array, a_view in _layouts(a):
                        for b_name, b_array, b_view in list(_layouts(b))[:2]:
                            ta, la = _pair(dtype, a_array, a_view)
                            tb, lb = _pair(dtype, b_array, b_view)
                            tc, lc = _pair(dtype, bias, lambda t: t)
                            expected = _bits(torch.addmm(tc, ta, tb, beta=beta, alpha=alpha))
                            got = _bits(lg.addmm(lc, la, lb, beta=beta, alpha=alpha))
                            if not np.array_equal(expected, got):
                                failures.append((dtype, (m, k, n), bias_shape, beta, alpha,
                                                 a_name, b_name))
    assert not failures, failures[:10]


def test_bmm_both_kernels():
    rng = np.random.default_rng(2)
    failures = []
    for dtype in _DTYPES:
        # k * m * n below 400 (torch's own loop) and above (one gemm per matrix)
        for batch, m, k, n in [(3, 4, 5, 6), (2, 7, 7, 8), (2, 6, 70, 5), (3, 16, 33, 4),
                               (2, 32, 64, 32), (2, 24, 130, 16),
                               (2, 0, 3, 4), (2, 3, 0, 4)]:
            a, b = _values(rng, (batch, m, k)), _values(rng, (batch, k, n))
            for transposed in (False, True):
                if transposed:
                    ta, la = _pair(dtype, np.ascontiguousarray(np.swapaxes(b, 1, 2)),
                                   lambda t: t.transpose(1, 2))
                    tb, lb = _pair(dtype, np.ascontiguousarray(np.swapaxes(a, 1, 2)),
                                   lambda t: t.transpose(1, 2))
                    ta, la, tb, lb = tb, lb, ta, la  # a then b, both column-major per matrix
                else:
                    ta, la = _pair(dtype, a, lambda t: t)
                    tb, lb = _pair(dtype, b, lambda t: t)
                for form, op_t, op_l in (("bmm", torch.bmm, lg.bmm),
                                         ("matmul", torch.matmul, lg.matmul)):
                    if not np.array_equal(_bits(op_t(ta, tb)), _bits(op_l(la, lb))):
                        failures.append((dtype, (batch, m, k, n), transposed, form))
    assert not failures, failures


@pytest.mark.parametrize("dtype", _DTYPES)
def test_half_linear_layer_forward_and_backward(dtype):
    rng = np.random.default_rng(3)
    for batch, features, out in [(4, 70, 6), (32, 20, 10), (3, 130, 1)]:
        for bias in (True, False):
            x = _values(rng, (batch, features)) / 64
            results = []
            for lib in (torch, lg):
                lib.manual_seed(0)
                layer = lib.nn.Linear(features, out, bias=bias).to(getattr(lib, dtype))
                inp = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
                y = layer(inp)
                (y * y).sum().backward()
                results.append([_bits(y), _bits(inp.grad), _bits(layer.weight.grad)]
                               + ([_bits(layer.bias.grad)] if bias else []))
            for expected, got in zip(*results):
                np.testing.assert_array_equal(got, expected)


def test_bfloat16_broadcast_gradients_sum_in_float32():
    # a backward that sums a broadcast bfloat16 gradient back to its input's shape (a bias)
    # adds in float32 and rounds once, as torch's sum
    rng = np.random.default_rng(4)
    failures = []
    for out_shape, in_shape in [((32, 10), (10,)), ((4, 5, 6), (5, 1)), ((7, 3), ()),
                                ((64, 3), (1, 3)), ((3, 40), (3, 1))]:
        x, w = _values(rng, out_shape), _values(rng, in_shape)
        grads = []
        for lib in (torch, lg):
            leaf = lib.tensor(w).to(lib.bfloat16).requires_grad_()
            (lib.tensor(x).to(lib.bfloat16) * 3 + leaf).backward(lib.tensor(x).to(lib.bfloat16))
            grads.append(_bits(leaf.grad))
        if not np.array_equal(*grads):
            failures.append((out_shape, in_shape))
    assert not failures, failures


def test_products_past_the_replay_limit():
    # larger products are one float32 gemm rounded once (Note: half-precision gemm): torch's
    # bits but where the two float32 sums round differently (within the sums' error bound)
    rng = np.random.default_rng(5)
    for dtype in _DTYPES:
        # (values without a spread of magnitudes: no cancellation to magnify a last float32
        # bit into several of the dtype's)
        a = rng.standard_normal((64, 300)).astype(np.float32)
        b = rng.standard_normal((300, 40)).astype(np.float32)
        ta, la = _pair(dtype, a, lambda t: t)
        tb, lb = _pair(dtype, b, lambda t: t)
        for op_t, op_l in ((torch.mm, lg.mm), (lambda x, y: torch.addmm(x[:, :40], x, y),
                                                lambda x, y: lg.addmm(x[:, :40], x, y))):
            expected = op_t(ta, tb).float().numpy()
            got = op_l(la, lb).float().numpy()
            # a float32 sum's rounding error bound (k * eps * sum |a_i b_i|, bias included)
            # plus one step of the dtype at the result
            magnitude = np.abs(ta.float().numpy()) @ np.abs(tb.float().numpy()) + 1
            step = np.abs(np.spacing(expected.astype(np.float16))).astype(np.float32) \
                if dtype == "float16" else np.abs(expected) * 2.0 ** -7
            assert (np.abs(got - expected) <= step + 300 * 2.0 ** -24 * magnitude).all()
            assert (got == expected).mean() > 0.98


def test_mixed_dtype_products_fail_as_torch():
    # matrix products do not promote: bfloat16 operands are no longer widened before the check
    # (mm(bfloat16, float32) and bmm/baddbmm gave float32 results), and F.linear checks its
    # bias's dtype as addmm does (a float64 bias gave a float64 result)
    def cases(lib):
        bf = lambda *s: lib.ones(*s).bfloat16()  # noqa: E731
        f, h, d = (lambda *s: lib.ones(*s)), (lambda *s: lib.ones(*s).half()), \
            (lambda *s: lib.ones(*s).double())
        linear = lib.nn.functional.linear
        return [lambda: lib.mm(bf(2, 2), f(2, 2)), lambda: lib.mm(f(2, 2), bf(2, 2)),
                lambda: lib.matmul(h(2, 2), bf(2, 2)), lambda: lib.matmul(bf(3, 2, 2), f(2, 2)),
                lambda: lib.addmm(f(2), bf(2, 2), bf(2, 2)),
                lambda: lib.addmm(bf(2), bf(2, 2), f(2, 2)),
                lambda: lib.bmm(bf(1, 2, 2), f(1, 2, 2)), lambda: lib.bmm(d(1, 2, 2), bf(1, 2, 2)),
                lambda: lib.baddbmm(f(1, 2, 2), bf(1, 2, 2), bf(1, 2, 2)),
                lambda: lib.baddbmm(bf(1, 2, 2), bf(1, 2, 2), f(1, 2, 2)),
                lambda: lib.addbmm(f(2, 2), bf(1, 2, 2), bf(1, 2, 2)),
                lambda: lib.addr(f(2, 2), bf(2), bf(2)), lambda: lib.addr(bf(2, 2), bf(2), f(2)),
                lambda: linear(bf(2, 2), f(3, 2)), lambda: linear(bf(2, 2), bf(3, 2), f(3)),
                lambda: linear(f(2, 2), f(3, 2), d(3)), lambda: linear(d(2, 2), f(3, 2), d(3)),
                lambda: linear(f(4, 2, 2), f(3, 2), d(3)), lambda: linear(f(2), f(3, 2), d(3)),
                lambda: linear(f(4, 2, 2).transpose(0, 1), f(3, 2), d(3)),
                lambda: lib.einsum("ij,jk->ik", bf(2, 2), f(2, 2))]

    def outcomes(lib):
        results = []
        for case in cases(lib):
            try:
                value = case()
            except Exception as error:  # noqa: BLE001 - type and first line compared
                results.append((type(error).__name__, str(error).splitlines()[0]))
            else:
                results.append((str(value.dtype).split(".")[-1], value.float().tolist()))
        return results

    assert outcomes(lg) == outcomes(torch)
