"""Differences from torch 2.13 found in the dtypes1 audit of dtype-kind tests, each checked
against torch itself in the same run.

leafgrad's bfloat16 arrays are ml_dtypes' (kind "V"), so a test ``dtype.kind in "fc"`` is False
for them (Note: bfloat16 in _dtype.py); ``_dtype.is_inexact``/``is_floating`` know it.

1. Backward formulas under create_graph take C++'s Tensor-and-number operator forms
   (AddBackward1, MulBackward1: Note: C++ operators in backward formulas) for bfloat16 too
   (leafgrad recorded Python's AddBackward0/MulBackward0 there).
2. bernoulli and multinomial take bfloat16 probabilities (leafgrad: "not implemented for
   'BFloat16'" / "only supports floating-point dtypes"); searchsorted/bucketize see NaN in
   bfloat16 boundaries or values (torch's binary search, not NumPy's NaN-last order).
3. torch.special's Bessel, Airy and polynomial kernels refuse Half and BFloat16 (ATen
   dispatches float and double only); bincount's weights give float32 for float32 and float64
   for every other dtype (leafgrad kept float16).
4. Complex true division is torch's kernel: c10::complex's scaled formula with torch's fma
   contractions (leafgrad: NumPy's division, other last bits in ~8% of real and imaginary
   parts, x / x's imaginary part not 0), and for complex64 the last element of each
   odd-length inner loop as torch's compiled epilogue rounds it.
5. Complex multiplication is torch's kernel: its vector loop rounds each product (NumPy's
   product rounds as fma: another last bit in most elements, and in every gradient through a
   complex product), its epilogue contracts as measured (_float_kernels.complex_multiply).
6. LAPACK-backed linalg refuses what torch refuses, in its words: inv/inverse/inv_ex/tensorinv
   of bfloat16 ("Low precision dtypes not supported"), cholesky of bfloat16, matrix_rank and
   lstsq of anything but float/double/complex, householder_product's orgqr, vander of half
   types and bool; lu/geqrf/matrix_exp and exponential_ name bfloat16 and complex dtypes as
   torch ('BFloat16', 'ComplexFloat': leafgrad's own name tables printed NumPy's names).
7. dot/vdot check dims, then dtypes, then sizes (torch's order), on the operands' own dtypes
   (a bfloat16 operand was checked widened: bfloat16 . float32 computed, 'Float and Long'
   named); vdot of a real self is torch's dot, whose message says "dot".
8. float16/bfloat16 convolutions of one product per output sum from +0. (leafgrad gave the
   product's -0. as for float32; bfloat16's forward sees float32, so Convolution's
   bfloat16_finish clears the sign).
"""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()

FLOATING = ("bfloat16", "float16", "float32", "float64")
VALUES = {"f": [-1.5, 0.25, 2.0, 3.75, -0.0, 7.0], "c": [1 + 2j, -0.5 + 0.25j, 3 - 1j, 0j, 2 + 0j, -1 - 1j]}


def _outcome(call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - type and first line are compared
        return type(error).__name__, str(error).splitlines()[0].replace("leafgrad", "torch")
    return "ok", result


def _bits(tensor):
    """dtype, shape and bytes of a tensor (bfloat16 read as int16: NumPy has no bfloat16)."""
    lib = torch if isinstance(tensor, torch.Tensor) else leafgrad
    data = tensor.detach()
    if data.dtype == lib.bfloat16:
        data = data.view(lib.int16)
    return str(tensor.dtype).split(".")[1], tuple(tensor.shape), data.contiguous().numpy().tobytes()


def _make(lib, dtype, requires_grad=False, shape=(2, 3)):
    values = VALUES["c" if dtype.startswith("complex") else "f"]
    made = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)
    return made.requires_grad_(requires_grad)


def _graph(tensor):
    """The node names of ``tensor``'s graph, depth first in input order."""
    seen, names, stack = set(), [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node).__name__)
        stack.extend(parent for parent, _ in reversed(node.next_functions))
    return names


_CREATE_GRAPH = {
    "sinc": lambda lib, x: x.sinc(),
    "atan": lambda lib, x: x.atan(),
    "asin": lambda lib, x: (x / 10).asin(),
    "acos": lambda lib, x: (x / 10).acos(),
    "pairwise_distance": lambda lib, x: lib.nn.functional.pairwise_distance(x, x.detach() + 1),
    "pow": lambda lib, x: x ** 3,
    "rdiv": lambda lib, x: 2 / (x + 10),
    "rsub": lambda lib, x: 1 - x * 2,
    "erf": lambda lib, x: x.erf(),
    "softplus": lambda lib, x: lib.nn.functional.softplus(x),
}


def test_create_graph_backward_formulas_take_cpp_scalar_forms_for_bfloat16():
    for (name, function), dtype in itertools.product(_CREATE_GRAPH.items(), FLOATING):
        seen = []
        for lib in (torch, leafgrad):
            def run():
                x = _make(lib, dtype, True)
                grad, = lib.autograd.grad(function(lib, x).sum(), x, create_graph=True)
                return _bits(grad), _graph(grad)

            seen.append(_outcome(run))
        assert seen[0] == seen[1], (name, dtype)


def _compare(call, label):
    seen = [_outcome(lambda: call(lib)) for lib in (torch, leafgrad)]
    assert seen[0] == seen[1], label


def _summary(value):
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        return _bits(value)
    if isinstance(value, (tuple, list)):
        return tuple(_summary(item) for item in value)
    return value


def test_random_draws_take_bfloat16_probabilities():
    forms = {
        "bernoulli": lambda lib, p: lib.bernoulli(p),
        "bernoulli_ tensor": lambda lib, p: lib.zeros(2, 3, dtype=p.dtype).bernoulli_(p),
        "bernoulli_ of float32 by bfloat16": lambda lib, p: lib.zeros(2, 3).bernoulli_(p),
        "multinomial": lambda lib, p: lib.multinomial(p, 2),
        "multinomial replacement": lambda lib, p: lib.multinomial(p, 5, replacement=True),
        "multinomial 1-d": lambda lib, p: lib.multinomial(p[0], 3),
    }
    for (name, form), dtype in itertools.product(forms.items(), FLOATING):
        def call(lib):
            lib.manual_seed(0)
            p = (_make(lib, dtype) / 8).abs() + 0.05
            return _summary(form(lib, p))

        _compare(call, (name, dtype))


def test_searchsorted_with_bfloat16_nan_takes_torch_binary_search():
    for dtype, right, nan_in in itertools.product(FLOATING, (False, True), ("sorted", "values")):
        def call(lib):
            boundaries = lib.tensor([0.0, 1.0, 3.0, float("nan") if nan_in == "sorted" else 5.0],
                                    dtype=getattr(lib, dtype))
            values = _make(lib, dtype)
            if nan_in == "values":
                values = values.log()  # (-1.5 gives NaN)
            return (_bits(lib.searchsorted(boundaries, values, right=right)),
                    _bits(lib.bucketize(values, boundaries, right=right)))

        _compare(call, (dtype, right, nan_in))


_SPECIAL = ("airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
            "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
            "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0")
_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                "laguerre_polynomial_l", "legendre_polynomial_p")


def test_special_functions_refuse_half_precision_as_torch():
    for name, dtype in itertools.product(_SPECIAL + _POLYNOMIALS, ("bfloat16", "float16")):
        for operands in ("x", "n", "both") if name in _POLYNOMIALS else ("x",):
            def call(lib):
                function = getattr(lib.special, name)
                x = lib.tensor([0.5, 1.0], dtype=getattr(lib, dtype if operands != "n" else "int64"))
                if name not in _POLYNOMIALS:
                    return _bits(function(x))
                n = lib.tensor([2, 3], dtype=getattr(lib, dtype if operands != "x" else "int64"))
                return _bits(function(x, n))

            _compare(call, (name, dtype, operands))


ALL_DTYPES = FLOATING + ("uint8", "int8", "int16", "int32", "int64", "bool")


def test_bincount_weights_give_float_for_float_else_double():
    for dtype in ALL_DTYPES:
        def call(lib):
            weights = lib.tensor([1, 0, 1, 1, 0, 1], dtype=getattr(lib, dtype))
            return _bits(lib.bincount(lib.tensor([0, 1, 1, 3, 0, 2]), weights=weights))

        _compare(call, dtype)


def _complex_pair(lib, dtype, shape, seed):
    generator = np.random.default_rng(seed)
    real = getattr(lib, "float32" if dtype == "complex64" else "float64")
    parts = [lib.from_numpy(generator.standard_normal(shape)).to(real) for _ in range(2)]
    return lib.complex(*parts)


_DIVISIONS = {
    "operator": lambda lib, x, y: x / y,
    "div": lambda lib, x, y: lib.div(x, y),
    "true_divide": lambda lib, x, y: lib.true_divide(x, y),
    "method": lambda lib, x, y: x.div(y),
    "out=": lambda lib, x, y: lib.div(x, y, out=lib.empty_like(x)),
    "x / x": lambda lib, x, y: x / x,
    "by a Python complex": lambda lib, x, y: x / complex(y.reshape(-1)[0]) if y.numel() else x / 2j,
    "by a 0-d tensor": lambda lib, x, y: x / y.reshape(-1)[0] if y.numel() else x / y.sum(),
    "0-d by a tensor": lambda lib, x, y: y.reshape(-1)[0] / x if y.numel() else y.sum() / x,
    "transposed": lambda lib, x, y: x.transpose(0, -1) / y.transpose(0, -1),
    "broadcast row": lambda lib, x, y: x / y[:1],
    "broadcast column": lambda lib, x, y: x / y[..., :1],
}


def test_complex_division_is_torch_kernel():
    # c10::complex's scaled division with torch's fma contractions (NumPy's rounds otherwise),
    # and for complex64 the last element of an odd-length inner loop with torch's epilogue's
    for (name, form), dtype, shape in itertools.product(
            _DIVISIONS.items(), ("complex64", "complex128"), ((7,), (3, 5), (4, 6), (1,), (0, 3),
                                                           (37,), (2, 3, 5), ())):
        def call(lib):
            x, y = _complex_pair(lib, dtype, shape, 0), _complex_pair(lib, dtype, shape, 1)
            result = form(lib, x, y)
            return _bits(result), result.stride()

        _compare(call, (name, dtype, shape))


_PRODUCTS = {
    "operator": lambda lib, x, y: x * y,
    "mul": lambda lib, x, y: lib.mul(x, y),
    "method": lambda lib, x, y: x.mul(y),
    "out=": lambda lib, x, y: lib.mul(x, y, out=lib.empty_like(x)),
    "x * x": lambda lib, x, y: x * x,
    "by the conjugate": lambda lib, x, y: x * y.conj(),
    "transposed": lambda lib, x, y: x.transpose(0, -1) * y.transpose(0, -1),
    "broadcast row": lambda lib, x, y: x * y[:1],
    "broadcast column": lambda lib, x, y: x * y[..., :1],
    "by a Python complex": lambda lib, x, y: x * (0.3 - 1.7j),
    "by a 0-d tensor": lambda lib, x, y: x * y.reshape(-1)[0] if y.numel() else x * y.sum(),
    "gradient": lambda lib, x, y: lib.autograd.grad(x.requires_grad_() * y, x, grad_outputs=y)[0],
}
# Loops whose first operand is a scalar: their epilogue's contractions are left
# (complex_multiply), so these run on whole vectors only (16 complex64 / 8 complex128 elements
# per step)
_SCALAR_PRODUCTS = {
    "0-d tensor by": lambda lib, x, y: y.reshape(-1)[0] * x,
    "Python complex by (reflected)": lambda lib, x, y: (0.3 - 1.7j) * x,
}


def test_complex_multiplication_is_torch_kernel():
    # torch's vector loop rounds each product; its epilogue contracts some into fma (see
    # _float_kernels.complex_multiply): every remainder of a 16 (complex64) / 8 (complex128)
    # element step is among the lengths
    shapes = [(length,) for length in range(1, 17)] + [(37,), (3, 5), (2, 3, 5), (), (0, 3)]
    cases = [(form, shape) for form, shape in itertools.product(_PRODUCTS.items(), shapes)]
    cases += itertools.product(_SCALAR_PRODUCTS.items(), ((32,), (3, 16), (0, 16)))
    for ((name, form), shape), dtype in itertools.product(cases, ("complex64", "complex128")):
        def call(lib):
            x, y = _complex_pair(lib, dtype, shape, 2), _complex_pair(lib, dtype, shape, 3)
            result = form(lib, x, y)
            return _bits(result), result.stride()

        _compare(call, (name, dtype, shape))


_LINALG = {
    "inv": lambda lib, a: lib.linalg.inv(a),
    "inverse": lambda lib, a: a.inverse(),
    "inv_ex": lambda lib, a: lib.linalg.inv_ex(a),
    "tensorinv": lambda lib, a: lib.linalg.tensorinv(a, 1),
    "cholesky": lambda lib, a: lib.linalg.cholesky(a),
    "cholesky_ex": lambda lib, a: lib.linalg.cholesky_ex(a),
    "torch.cholesky": lambda lib, a: lib.cholesky(a),
    "lu": lambda lib, a: lib.linalg.lu(a),
    "lu_factor": lambda lib, a: lib.linalg.lu_factor(a),
    "lu_factor_ex": lambda lib, a: lib.linalg.lu_factor_ex(a),
    "geqrf": lambda lib, a: lib.geqrf(a),
    "matrix_rank": lambda lib, a: lib.linalg.matrix_rank(a),
    "lstsq": lambda lib, a: lib.linalg.lstsq(a, a),
    "householder_product": lambda lib, a: lib.linalg.householder_product(a, a[0, :1]),
    "vander": lambda lib, a: lib.linalg.vander(a[0]),
    "vander N=1": lambda lib, a: lib.linalg.vander(a[0], N=1),
    "det": lambda lib, a: lib.linalg.det(a),
    "slogdet": lambda lib, a: lib.linalg.slogdet(a),
    "solve": lambda lib, a: lib.linalg.solve(a, a),
}


def test_linalg_refuses_half_types_in_torch_words():
    # torch's LAPACK-backed functions refuse the half types in torch's words (leafgrad computed
    # inv, cholesky, matrix_rank, lstsq, householder_product, vander, or named ml_dtypes'
    # 'bfloat16'); a result is compared by dtype and shape (LAPACK's last bits are not the
    # subject here)
    def shapes(value):
        if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
            return str(value.dtype).split(".")[1], tuple(value.shape)
        return tuple(shapes(item) for item in value)

    for (name, function), dtype in itertools.product(_LINALG.items(), ALL_DTYPES):
        def call(lib):
            a = lib.tensor([[2.0, 1.0], [1.0, 3.0]]).to(getattr(lib, dtype))
            return shapes(function(lib, a))

        _compare(call, (name, dtype))


def test_exponential_names_the_dtype_as_torch():
    for dtype in ALL_DTYPES + ("complex64", "complex128", "uint16"):
        def call(lib):
            lib.manual_seed(0)  # (the draws: each library's generator from the same seed)
            return _bits(lib.zeros(3, dtype=getattr(lib, dtype)).exponential_())

        _compare(call, dtype)


def test_dot_checks_dims_then_dtypes_then_sizes_on_the_operands_own_dtypes():
    shapes = [((6,), (6,)), ((6,), (5,)), ((6,), ()), ((2, 3), (6,))]
    for function, (first, second), one, other in itertools.product(
            ("dot", "vdot"), shapes, ("bfloat16", "float32"), ("bfloat16", "float32", "float64",
                                                               "int64", "complex64")):
        def call(lib):
            x = lib.arange(6 if first == (6,) else 6).reshape(first).to(getattr(lib, one))
            y = lib.arange(int(np.prod(second, dtype=int))).reshape(second).to(getattr(lib, other))
            return _bits(getattr(lib, function)(x, y))

        _compare(call, (function, first, second, one, other))


def test_half_type_convolutions_of_one_product_sum_from_positive_zero():
    # one input channel, a 1-element kernel, six output channels: float32/float64 give each
    # output its product's signed zero (conv3d.single_products), float16/bfloat16 sum from +0.
    for dims, dtype, batch, bias in itertools.product((1, 2, 3), FLOATING, (1, 2), (False, True)):
        def call(lib):
            x = _make(lib, dtype).reshape((1, 1) + (1,) * (dims - 1) + (6,))
            x = x.repeat((batch,) + (1,) * (dims + 1)).requires_grad_()
            w = _make(lib, dtype).reshape((6, 1) + (1,) * dims)
            b = -_make(lib, dtype)[0].abs() * 0 if bias else None
            y = getattr(lib.nn.functional, f"conv{dims}d")(x, w, b)
            return _bits(y), _bits(lib.autograd.grad(y.sum(), x)[0])

        _compare(call, (dims, dtype, batch, bias))
