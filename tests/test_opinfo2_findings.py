"""Findings of the OpInfo replay for ops m..z, nn.functional.*, special.* (tests/opinfo/
sweep_m_z.py), each swept beyond op_db's samples against torch."""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _same_bits(a, b) -> bool:
    """torch's and leafgrad's tensors: same dtype, shape and every bit (NaNs equal)."""
    x, y = a.detach().numpy(), b.detach().numpy()
    if str(a.dtype).split(".")[1] != str(b.dtype).split(".")[1] or x.shape != y.shape:
        return False
    if x.dtype.kind == "f":
        nan = np.isnan(x) & np.isnan(y)
        return bool(np.array_equal(x.view(f"u{x.itemsize}")[~nan], y.view(f"u{y.itemsize}")[~nan]))
    return bool(np.array_equal(x, y))


def test_polygamma_and_zeta_replay_atens_arithmetic():
    """polygamma(n >= 2) is (+-1) exp(lgamma(n + 1)) zeta(n + 1, x) with the C library's lgamma
    and exp (Python's math.lgamma rounds differently: n! came out a few ulps off, so every
    element differed); zeta's sums use the C library's pow, Cephes' stopping test (which never
    holds while the sum is negative, q < 0) and, for float32, powf for the first term."""
    grid = np.concatenate([np.linspace(-9.7, 9.3, 1001), [0.5, 1.0, 1e-3, 25.0, -0.5, -3.0]])
    for dtype in ("float64", "float32"):
        x_t = torch.tensor(grid, dtype=getattr(torch, dtype))
        x_l = leafgrad.tensor(grid, dtype=getattr(leafgrad, dtype))
        for n in range(6):
            assert _same_bits(torch.polygamma(n, x_t), leafgrad.polygamma(n, x_l)), (dtype, n)
            assert _same_bits(x_t.polygamma(n), x_l.polygamma(n)), (dtype, n)
        for s in (1.5, 2.0, 3.0, 3.5, 4.0, 5.0, 7.0):
            got_t = torch.special.zeta(torch.full_like(x_t, s), x_t)
            got_l = leafgrad.special.zeta(leafgrad.full(tuple(x_l.shape), s, dtype=x_l.dtype), x_l)
            assert _same_bits(got_t, got_l), (dtype, s)


def test_take_along_dim_wraps_indices_along_dim():
    """torch 2.13's take_along_dim(input, indices, dim) takes the indices modulo the size of
    dim (-1 is the last, size the first), forward and backward; the flat form still refuses."""
    for shape, dim in [((2, 5), 1), ((2, 5), 0), ((3, 4, 2), -1), ((3, 1), 1)]:
        size = shape[dim]
        for values in ([-1], [size], [-size - 1, 2 * size + 1], [0, -size]):
            index_shape = list(shape)
            index_shape[dim] = len(values)
            index = np.broadcast_to(
                np.array(values).reshape([-1 if i == dim % len(shape) else 1
                                          for i in range(len(shape))]), index_shape)
            results = []
            for lib in (torch, leafgrad):
                a = lib.arange(float(np.prod(shape)), dtype=lib.float64).reshape(shape)
                a.requires_grad_(True)
                out = lib.take_along_dim(a, lib.tensor(index.copy()), dim)
                out.backward(lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape))
                results.append((out, a.grad, out.grad_fn.name()))
            (out_t, grad_t, name_t), (out_l, grad_l, name_l) = results
            assert _same_bits(out_t, out_l) and _same_bits(grad_t, grad_l), (shape, dim, values)
            assert name_t == name_l
    messages = []
    for lib in (torch, leafgrad):
        try:
            lib.take_along_dim(lib.zeros(5), lib.tensor([-1, 7]))
        except RuntimeError as error:
            messages.append(str(error))
    assert len(messages) == 2 and messages[0] == messages[1]


def test_masked_fill_out_of_place_broadcasts_to_the_mask():
    """masked_fill (not masked_fill_) expands self and mask to their broadcast shape before the
    fill (torch's expand_outplace); the gradient of self is summed back, the grad_fn stays
    MaskedFillBackward0/1; the in-place form still refuses a mask that would grow self."""
    shapes = [((5,), (3, 5)), ((4, 1), (1, 3)), ((), (2, 2)), ((2, 3), (3,)), ((1,), (0,))]
    for (self_shape, mask_shape), tensor_value in itertools.product(shapes, (False, True)):
        rng = np.random.default_rng(len(self_shape) + 7 * len(mask_shape))
        x = rng.standard_normal(self_shape)
        mask = rng.random(mask_shape) > 0.5
        results = []
        for lib in (torch, leafgrad):
            a = lib.tensor(x, requires_grad=True)
            value = lib.tensor(2.5, dtype=lib.float64, requires_grad=True) if tensor_value else 2.5
            out = a.masked_fill(lib.tensor(mask), value)
            out.backward(lib.ones_like(out) * 3)
            results.append((out, a.grad, value.grad if tensor_value else None,
                            out.grad_fn.name(), out.stride()))
        (o_t, g_t, v_t, n_t, s_t), (o_l, g_l, v_l, n_l, s_l) = results
        assert _same_bits(o_t, o_l) and _same_bits(g_t, g_l) and (n_t, s_t) == (n_l, s_l)
        assert v_t is None or _same_bits(v_t, v_l)
    messages = []
    for lib in (torch, leafgrad):
        try:
            lib.zeros(5).masked_fill_(lib.ones(2, 5, dtype=lib.bool), 1.0)
        except RuntimeError as error:
            messages.append(str(error))
    assert len(messages) == 2 and messages[0] == messages[1]


def _outcome(function):
    """('ok', value) or (exception type name, message) of a call."""
    try:
        return ("ok", function())
    except Exception as error:  # noqa: BLE001 - the type and message are compared
        return (type(error).__name__, str(error))


def _same_outcome(make):
    """make(lib) under torch and leafgrad: both raise alike, or both return equal tensors."""
    got_t, got_l = _outcome(lambda: make(torch)), _outcome(lambda: make(leafgrad))
    if got_t[0] != "ok" or got_l[0] != "ok":
        return got_t == got_l
    a, b = got_t[1], got_l[1]
    if isinstance(a, torch.Tensor):
        return _same_bits(a, b) and tuple(a.stride()) == tuple(b.stride())
    return a == b


def test_integer_alpha_is_checked_and_wrapped_as_c10_converts_it():
    """add/sub/rsub's alpha on integer tensors is converted to the dtype with c10's check: an
    unsigned type takes -max..-1 by wrapping (uint8 sub(a, b, alpha=-3) multiplies by 253,
    it raised NumPy's OverflowError), a narrow type refuses other out-of-range numbers with
    torch's message, and sub/rsub check -alpha (int8 sub with alpha=-128 is refused)."""
    alphas = (-256, -255, -129, -128, -3, -1, 2, 127, 128, 255, 256, 40000)
    for dtype, alpha in itertools.product(("uint8", "int8", "int16", "int32", "int64"), alphas):
        def tensors(lib):
            big = 250 if dtype == "uint8" else 100
            a = lib.tensor([[1, 2], [3, big]], dtype=getattr(lib, dtype))
            return a, lib.tensor([[5, 1], [0, 2]], dtype=getattr(lib, dtype))

        calls = [
            lambda lib: lib.add(*tensors(lib), alpha=alpha),
            lambda lib: lib.sub(*tensors(lib), alpha=alpha),
            lambda lib: lib.rsub(*tensors(lib), alpha=alpha),
            lambda lib: lib.rsub(tensors(lib)[0], 3, alpha=alpha),
            lambda lib: tensors(lib)[0].sub_(tensors(lib)[1], alpha=alpha),
            lambda lib: tensors(lib)[0].add_(tensors(lib)[1], alpha=alpha),
        ]
        for index, make in enumerate(calls):
            assert _same_outcome(make), (dtype, alpha, index)


def test_tensordot_sums_broadcast_dims_in_the_input_dtype():
    """tensordot sums a contracted dim of size 1 away with sum(dim, keepdim, dtype=input's):
    integer inputs no longer reach mm as int64 against int32 ('expected m1 and m2 to have the
    same dtype')."""
    cases = [((1, 1, 1), (2, 1, 2), ([0, 1], [2, 0])), ((3, 1), (1, 4), ([1], [0])),
             ((2, 3), (3, 1), ([1], [0])), ((1, 2), (3, 2), ([0, 1], [0, 1]))]
    for dtype in ("int32", "int16", "int8", "uint8", "int64", "float64", "float32"):
        for shape_a, shape_b, dims in cases:
            rng = np.random.default_rng(3)
            x, y = rng.integers(0, 4, shape_a), rng.integers(0, 4, shape_b)
            assert _same_outcome(lambda lib: lib.tensordot(
                lib.tensor(x, dtype=getattr(lib, dtype)), lib.tensor(y, dtype=getattr(lib, dtype)),
                dims=dims)), (dtype, shape_a, shape_b, dims)


def test_dtype_methods_take_memory_format():
    """Tensor.float() ... bool() take to()'s keyword memory_format (op_db's short sample)."""
    methods = ("float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte",
               "bool")
    formats = ("preserve_format", "contiguous_format", "channels_last")
    for method, form, start in itertools.product(methods, formats, ("float32", "int16")):
        def make(lib):
            x = lib.arange(120, dtype=getattr(lib, start)).reshape(2, 3, 4, 5).permute(0, 2, 3, 1)
            out = getattr(x, method)(memory_format=getattr(lib, form))
            return (str(out.dtype).split(".")[1], tuple(out.stride()), out is x)

        assert _same_outcome(make), (method, form, start)


def test_squeeze_dims_on_a_0d_tensor_and_repeated_dims():
    """squeeze(x, dims) of a 0-d tensor accepts 0 and -1 (it raised IndexError), and a dim
    named twice is refused with torch's message whatever the rank."""
    all_dims = [(0,), (-1,), (), (0, 0), (0, -1), (1, -2), (2, 1, -1), (1,)]
    for shape, dims in itertools.product([(), (1,), (1, 1), (2, 1, 1)], all_dims):
        def make(lib):
            x = lib.zeros(shape, dtype=lib.float64).requires_grad_(True)
            out = lib.squeeze(x, dims)
            out.sum().backward()
            return (tuple(out.shape), out.grad_fn.name(), tuple(x.grad.shape))

        assert _same_outcome(make), (shape, dims)


def test_multi_margin_loss_of_a_0d_input_and_sum_to_size_to_0d():
    """multi_margin_loss takes a 0-d input as one sample of one class (it raised IndexError);
    sum_to_size(()) is ATen's sum_to: the plain sum, int64 for integers and SumBackward0, even
    for a 0-d tensor (leafgrad returned the tensor itself)."""
    for value, p, reduction in itertools.product((0.3, -2.0), (1, 2), ("mean", "sum", "none")):
        def make(lib):
            x = lib.tensor(value, dtype=lib.float64, requires_grad=True)
            loss = lib.nn.functional.multi_margin_loss(x, lib.tensor(0), p=p, reduction=reduction)
            loss.backward()
            return (loss.item(), tuple(loss.shape), x.grad.item(), loss.grad_fn.name())

        assert _same_outcome(make), (value, p, reduction)
    for dtype in ("int32", "uint8", "bool", "float32"):
        def make(lib):
            x = lib.tensor(1, dtype=getattr(lib, dtype))
            out = x.sum_to_size(())
            return (str(out.dtype).split(".")[1], out is x)

        assert _same_outcome(make), dtype
    x_t = torch.tensor(2.0, requires_grad=True)
    x_l = leafgrad.tensor(2.0, requires_grad=True)
    assert x_t.sum_to_size(()).grad_fn.name() == x_l.sum_to_size(()).grad_fn.name()


def test_orthogonal_polynomials_replay_atens_contracted_recurrences_and_closed_forms():
    """special.*_polynomial_*: each recurrence step a*q - b*p is fused (fma(a, q, -(b p)), the
    kernels are compiled with contraction); the Chebyshev kernels switch to their trigonometric
    forms with the C library's acos/cos/sin (float32: acosf/cosf/sinf, n converted to float) at
    torch's thresholds (n > 6 for T and every shifted kernel but W, n > 4 for shifted W, n > 8
    for U, V, W)."""
    names = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
             "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
             "laguerre_polynomial_l", "legendre_polynomial_p", "shifted_chebyshev_polynomial_t",
             "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
             "shifted_chebyshev_polynomial_w"]
    rng = np.random.default_rng(0)
    # (no NaN or inf: torch's loop stops at a NaN q and returns its uninitialised r, the
    # previous element's value)
    x = np.concatenate([rng.uniform(-9, 9, 120), rng.uniform(-1, 1, 120),
                        [0.0, 1.0, -1.0, 0.5, 1e-20, -1e-20, 1 - 1e-16]])
    for dtype, name in itertools.product(("float64", "float32"), names):
        for n in (0, 1, 2, 3, 5, 6, 7, 8, 9, 12, 20):
            got_t = getattr(torch.special, name)(torch.tensor(x, dtype=getattr(torch, dtype)), n)
            got_l = getattr(leafgrad.special, name)(
                leafgrad.tensor(x, dtype=getattr(leafgrad, dtype)), n)
            assert _same_bits(got_t, got_l), (dtype, name, n)


def test_hardswish_and_hardsigmoid_gradients_are_plus_zero_where_flat():
    """hardswish's gradient up to -3 and hardsigmoid's outside (-3, 3) are torch's literal 0
    (+0), not grad * 0 (-0 for a negative incoming gradient), in every dtype and under
    create_graph."""
    x = np.array([-1e9, -4.0, -3.0, -2.9, -1.0, -0.0, 0.0, 2.0, 2.9, 3.0, 4.0, 1e9])
    for name, dtype, create_graph in itertools.product(
            ("hardswish", "hardsigmoid"), ("float64", "float32"), (False, True)):
        if create_graph and name == "hardsigmoid":
            continue  # torch has no double backward for hardsigmoid
        grads = []
        for lib in (torch, leafgrad):
            a = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
            out = getattr(lib.nn.functional, name)(a)
            g, = lib.autograd.grad(out, a, lib.full(tuple(out.shape), -1.5, dtype=out.dtype),
                                   create_graph=create_graph)
            grads.append(g)
        assert _same_bits(*grads), (name, dtype, create_graph)


def test_unfold_and_fold_take_bool_tensors():
    """im2col/col2im have bool kernels in torch (unfold of a bool mask); leafgrad refused
    them as it does integer tensors (which torch refuses too)."""
    rng = np.random.default_rng(0)
    cases = [((1, 2, 4, 4), 2, 1, 0, 1), ((2, 3, 5, 6), (2, 3), 2, 1, 1), ((3, 5, 5), 3, 1, 1, 2)]
    for (shape, kernel, stride, padding, dilation), dtype in itertools.product(
            cases, ("bool", "int64", "uint8", "float32")):
        x = rng.random(shape) > 0.5

        def unfold(lib):
            return lib.nn.functional.unfold(lib.tensor(x, dtype=getattr(lib, dtype)), kernel,
                                            dilation, padding, stride)

        assert _same_outcome(unfold), (shape, dtype)
        columns = torch.nn.functional.unfold(torch.tensor(x), kernel, dilation, padding,
                                             stride).shape
        c = rng.random(columns) > 0.5

        def fold(lib):
            return lib.nn.functional.fold(lib.tensor(c, dtype=getattr(lib, dtype)), shape[-2:],
                                          kernel, dilation, padding, stride)

        assert _same_outcome(fold), (shape, dtype)


def test_polar_and_complex_lay_out_broadcast_results_as_tensoriterator():
    """polar/complex of inputs that broadcast each other ((10, 1, 5) and (10, 5)) give
    TensorIterator's layout (row-major there; NumPy's empty_like of the broadcast view was
    (50, 1, 10)-strided), and shapes that do not broadcast raise torch's message."""
    shapes = [((10, 1, 5), (10, 5)), ((3, 4), (4,)), ((4, 1), (1, 3)), ((2, 3), (2, 3)),
              ((5,), ()), ((1, 3, 1), (2, 1, 4)), ((3, 4), (3,))]
    for (shape_a, shape_b), transpose, name in itertools.product(shapes, (False, True),
                                                                 ("polar", "complex")):
        def make(lib):
            a = lib.arange(float(np.prod(shape_a)), dtype=lib.float64).reshape(shape_a)
            b = lib.arange(float(np.prod(shape_b)), dtype=lib.float64).reshape(shape_b)
            if transpose and a.ndim >= 2:
                a = a.transpose(0, 1)
            return getattr(lib, name)(a, b)

        assert _same_outcome(make), (shape_a, shape_b, transpose, name)


def test_unravel_index_returns_views_of_one_stacked_tensor():
    """unravel_index's coordinates are torch's unbind(-1) of one (..., ndim) tensor: views
    strided (..., ndim) at offsets 0, 1, ... (leafgrad made separate contiguous tensors)."""
    for shape, dims in itertools.product([(2, 3), (), (0,), (4,)], [(4, 5), (3,), (2, 3, 4)]):
        def make(lib):
            count = int(np.prod(shape))
            flat = lib.arange(count, dtype=lib.int64).reshape(shape) * 3
            result = lib.unravel_index(flat, dims)
            return [(tuple(t.shape), t.stride(), t.storage_offset(), t._base is not None,
                     t.tolist()) for t in result]

        assert _same_outcome(make), (shape, dims)


def test_conj_of_a_dense_permuted_tensor_keeps_its_strides():
    """conj (a view in torch) of a dense transposed/permuted complex tensor keeps the source's
    strides, size-1 dims' included: mH/adjoint of a (1, 2, 3) tensor are (6, 1, 3)-strided
    (NumPy's conj gave (1, 1, 3))."""
    for shape, perm in itertools.product([(1, 2, 3), (4, 1, 3), (2, 3), (1, 1, 4)],
                                         ["mH", "adjoint", "T", "reverse"]):
        def make(lib):
            z = lib.arange(float(np.prod(shape)), dtype=lib.float64).reshape(shape)
            z = lib.complex(z, -z)
            if perm == "mH":
                out = z.mH
            elif perm == "adjoint":
                out = z.adjoint()
            elif perm == "T":
                out = z.transpose(-2, -1).conj()
            else:
                out = z.permute(*reversed(range(z.ndim))).conj()
            return (tuple(out.shape), out.stride(), out.is_conj(), out.resolve_conj().tolist())

        assert _same_outcome(make), (shape, perm)
