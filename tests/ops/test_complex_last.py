"""Complex inputs for the last ops that refused them, against torch 2.13: logsumexp, logaddexp,
sinc, isclose/allclose, cumprod (values in complex64/complex128 including special values,
result dtypes, call forms, layouts, gradients with torch's conjugate convention, and
gradcheck/gradgradcheck in complex128)."""

from __future__ import annotations

import itertools
import warnings
import zlib

import numpy as np
import pytest

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck
from tests._torch import require_torch

torch = require_torch()

DTYPES = ["complex64", "complex128"]
TOLERANCE = {"complex64": (2e-5, 2e-6), "complex128": (1e-11, 1e-13)}
SPECIAL = [0j, complex(-0.0, 0.0), 1 + 2j, -1 - 0.5j, 0.5j, 30 + 1j, -30 + 2j, 3 + 4j, 3 - 4j,
           complex(np.inf, 1), complex(-np.inf, 1), complex(np.inf, -2), complex(-np.inf, 0),
           complex(np.nan, 1), complex(1, np.nan), complex(np.inf, np.inf),
           complex(-np.inf, np.inf), complex(1, np.inf)]


def _complex(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _close(ours, theirs, dtype):
    """Real and imaginary parts apart (NumPy calls inf+nanj unequal to itself)."""
    rtol, atol = TOLERANCE[dtype]
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype
    for part in (np.real, np.imag):
        np.testing.assert_allclose(part(ours), part(theirs), rtol=rtol, atol=atol,
                                   equal_nan=True)


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


def _grads(lib, function, arrays, dtype, weights, requires=None):
    """Values, grad_fn name and the gradients of ``real(sum(f * w)) + sum(|f|)``."""
    requires = requires or [True] * len(arrays)
    inputs = [lib.tensor(a, dtype=getattr(lib, dtype) if np.iscomplexobj(a) else None,
                         requires_grad=r) for a, r in zip(arrays, requires)]
    out = function(lib, *inputs)
    loss = (out * lib.tensor(weights, dtype=out.dtype)).real.sum() + out.abs().sum()
    wanted = [x for x in inputs if x.requires_grad]
    grads = lib.autograd.grad(loss, wanted)
    return out.detach().numpy(), out.grad_fn.name(), [g.numpy() for g in grads]


def _compare(function, arrays, dtype, seed=0, requires=None):
    rng = np.random.default_rng(seed)
    expected = function(torch, *[torch.tensor(a) for a in arrays])
    weights = _complex(rng, tuple(expected.shape))
    ours = _grads(leafgrad, function, arrays, dtype, weights, requires)
    theirs = _grads(torch, function, arrays, dtype, weights, requires)
    _close(ours[0], theirs[0], dtype)
    assert ours[1] == theirs[1]
    for got, want in zip(ours[2], theirs[2]):
        assert got.dtype == want.dtype
        rtol, atol = TOLERANCE[dtype]
        np.testing.assert_allclose(got, want, rtol=rtol * 10, atol=atol * 10)


def _checks(function, arrays):
    inputs = [leafgrad.tensor(a, requires_grad=True) for a in arrays]
    assert gradcheck(lambda *xs: function(leafgrad, *xs), inputs, eps=1e-6, atol=1e-5)
    assert gradgradcheck(lambda *xs: function(leafgrad, *xs), inputs, eps=1e-6, atol=1e-5)


def _same_error(function):
    """leafgrad raises torch's exception type with torch's first line."""
    with pytest.raises(Exception) as theirs:
        function(torch)
    with pytest.raises(type(theirs.value)) as ours:
        function(leafgrad)
    first = str(ours.value).replace("leafgrad.", "torch.").splitlines()[0]
    assert first == str(theirs.value).splitlines()[0]


# -- logsumexp ------------------------------------------------------------------------------------

LOGSUMEXP_CALLS = [
    lambda lib, x: lib.logsumexp(x, 0),
    lambda lib, x: x.logsumexp(1, keepdim=True),
    lambda lib, x: lib.logsumexp(x, dim=(0, 1)),
    lambda lib, x: x.t().logsumexp(-1),
    lambda lib, x: x[:, ::2].logsumexp(0),
    lambda lib, x: x[1, 2].logsumexp(0),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", range(len(LOGSUMEXP_CALLS)))
def test_logsumexp(index, dtype):
    z = _complex(np.random.default_rng(index), (3, 4)) * 2
    _compare(LOGSUMEXP_CALLS[index], [z], dtype, seed=index)
    if dtype == "complex128":
        _checks(LOGSUMEXP_CALLS[index], [z])


@pytest.mark.parametrize("dtype", DTYPES)
def test_logsumexp_special_values_empty_and_out(dtype):
    z = np.array(SPECIAL, dtype=dtype).reshape(3, 6)
    for dim in (0, 1):
        ours = leafgrad.logsumexp(leafgrad.tensor(z), dim).numpy()
        _close(ours, torch.logsumexp(torch.tensor(z), dim).numpy(), dtype)
    empty = np.zeros((0, 3), dtype=dtype)
    for dim in (0, 1):
        ours = leafgrad.logsumexp(leafgrad.tensor(empty), dim)
        theirs = torch.logsumexp(torch.tensor(empty), dim)
        assert tuple(ours.shape) == tuple(theirs.shape)
        _close(ours.numpy(), theirs.numpy(), dtype)
    results = []
    for lib in (leafgrad, torch):
        out = lib.empty(4, dtype=getattr(lib, dtype))
        lib.logsumexp(lib.tensor(z[:, :4]), 0, out=out)
        results.append(out.numpy())
    _close(*results, dtype)


def test_logsumexp_out_of_integer_dtype():
    z = _complex(np.random.default_rng(3), (2, 3))
    _same_error(lambda lib: lib.logsumexp(lib.tensor(z), 0, out=lib.empty(3, dtype=lib.int64)))


# -- logaddexp ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_logaddexp_special_values(dtype):
    pairs = np.array(list(itertools.product(SPECIAL, SPECIAL)), dtype=dtype)
    ours = leafgrad.logaddexp(leafgrad.tensor(pairs[:, 0]), leafgrad.tensor(pairs[:, 1]))
    theirs = torch.logaddexp(torch.tensor(pairs[:, 0]), torch.tensor(pairs[:, 1]))
    _close(ours.numpy(), theirs.numpy(), dtype)


LOGADDEXP_CALLS = [
    lambda lib, a, b: lib.logaddexp(a, b),
    lambda lib, a, b: a.logaddexp(b.t()[:, :1].t()),
    lambda lib, a, b: lib.logaddexp(a.t(), b[0, ::2][0]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", range(len(LOGADDEXP_CALLS)))
def test_logaddexp_gradients(index, dtype):
    rng = np.random.default_rng(10 + index)
    a, b = _complex(rng, (2, 3)), _complex(rng, (2, 3))
    for requires in ([True, True], [True, False], [False, True]):
        _compare(LOGADDEXP_CALLS[index], [a, b], dtype, seed=index, requires=requires)
    if dtype == "complex128":
        _checks(LOGADDEXP_CALLS[index], [a, b])


def test_logaddexp_with_real_operands():
    """A real tensor or number beside a complex one: torch's promoted dtype and values. A real
    input that requires grad gets the real part of the complex gradient, as every other op
    gives it (torch's logaddexp formula lacks handle_r_to_c: its backward raises 'Expected
    isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex)'; see
    docs/known-differences.md), compared here with torch's gradient of the input made complex."""
    rng = np.random.default_rng(20)
    z, x = _complex(rng, (2, 3)), rng.standard_normal((2, 3))
    _compare(lambda lib, a, b: lib.logaddexp(a, b), [z, x], "complex128", requires=[True, False])
    _compare(lambda lib, a, b: lib.logaddexp(b.float(), a), [z.astype(np.complex64), x],
             "complex64", requires=[True, False])
    weights = _complex(rng, (2, 3))
    grads = []
    for lib, real in ((leafgrad, lambda t: t), (torch, lambda t: t.to(torch.complex128))):
        a = lib.tensor(x, requires_grad=True)
        out = lib.logaddexp(real(a), lib.tensor(z))
        ((out * lib.tensor(weights)).real.sum() + out.abs().sum()).backward()
        grads.append(a.grad.numpy())
    assert grads[0].dtype == np.float64
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-13)
    with pytest.raises(RuntimeError, match="input_is_complex == grad_is_complex"):
        a = torch.tensor(x, requires_grad=True)
        torch.logaddexp(a, torch.tensor(z)).abs().sum().backward()
    for other in (2.0, 1 - 1j):
        ours = leafgrad.logaddexp(leafgrad.tensor(z), leafgrad.tensor(other))
        theirs = torch.logaddexp(torch.tensor(z), torch.tensor(other))
        _close(ours.numpy(), theirs.numpy(), "complex128")
    results = []
    for lib in (leafgrad, torch):
        out = lib.empty((2, 3), dtype=lib.complex128)
        lib.logaddexp(lib.tensor(z), lib.tensor(x), out=out)
        results.append(out.numpy())
    _close(*results, "complex128")
    _same_error(lambda lib: lib.logaddexp(lib.tensor(z), lib.tensor(x), out=lib.empty((2, 3))))
    _same_error(lambda lib: lib.logaddexp2(lib.tensor(z), lib.tensor(z)))


# -- sinc -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_sinc(dtype):
    special = SPECIAL + [1 + 0j, 2 + 0j, 1e-8 + 1e-8j, 200 + 1j, 1 + 200j]
    z = np.array(special, dtype=dtype)
    for function in (leafgrad.sinc, leafgrad.special.sinc, lambda t: t.sinc()):
        ours = function(leafgrad.tensor(z)).numpy()
        _close(ours, torch.sinc(torch.tensor(z)).numpy(), dtype)
    smooth = _complex(np.random.default_rng(30), (2, 3))
    smooth[0, 0] = 0  # torch's gradient there is 0
    calls = [lambda lib, x: lib.sinc(x), lambda lib, x: x.t().sinc(),
             lambda lib, x: x[1, ::2].sinc(), lambda lib, x: lib.special.sinc(x[0, 1])]
    for call in calls:
        _compare(call, [smooth], dtype)
    if dtype == "complex128":
        _checks(calls[0], [smooth[:, 1:]])


def test_sinc_inplace_and_out():
    z = _complex(np.random.default_rng(31), 5)
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(z)
        x.sinc_()
        out = lib.empty(5, dtype=lib.complex128)
        lib.sinc(lib.tensor(z), out=out)
        results.append((x.numpy(), out.numpy()))
    _close(results[0][0], results[1][0], "complex128")
    _close(results[0][1], results[1][1], "complex128")
    _same_error(lambda lib: lib.sinc(lib.tensor(z), out=lib.empty(5)))


# -- isclose / allclose ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_isclose_and_allclose(dtype):
    a = np.array([1 + 1j, complex(np.nan, 0), complex(np.inf, 1), complex(1, np.nan),
                  1 + 1e-9j, complex(np.inf, np.inf), 0j, 1e-3j], dtype=dtype)
    b = np.array([1 + 1j, complex(np.nan, 0), complex(np.inf, 1), complex(2, np.nan), 1 + 0j,
                  complex(np.inf, -np.inf), 1e-9 + 0j, 1.001e-3j], dtype=dtype)
    options = [{}, {"equal_nan": True}, {"rtol": 0, "atol": 0}, {"rtol": 1e-2, "atol": 0},
               {"rtol": 0, "atol": 1e-8}]
    for option in options:
        results = []
        for lib in (leafgrad, torch):
            x, y = lib.tensor(a), lib.tensor(b)
            results.append((lib.isclose(x, y, **option).numpy(),
                            x.isclose(y, **option).numpy(),
                            x[::2].isclose(y[1::2], **option).numpy(),
                            lib.allclose(x[:1], y[:1], **option),
                            x.allclose(y, **option),
                            lib.isclose(x[0], y[0], **option).numpy()))
        for ours, theirs in zip(*results):
            np.testing.assert_array_equal(ours, theirs)
    empty = [lib.isclose(lib.tensor(a[:0]), lib.tensor(b[:0])) for lib in (leafgrad, torch)]
    assert tuple(empty[0].shape) == tuple(empty[1].shape) == (0,)


def test_isclose_refuses_mixed_dtypes():
    z = np.array([1 + 1j, 2j])
    _same_error(lambda lib: lib.isclose(lib.tensor(z), lib.tensor(z.real)))
    _same_error(lambda lib: lib.isclose(lib.tensor(z.real), lib.tensor(z)))
    _same_error(lambda lib: lib.isclose(lib.tensor(z), lib.tensor(z, dtype=lib.complex64)))
    _same_error(lambda lib: lib.allclose(lib.tensor(z), lib.tensor(z.real)))
    _same_error(lambda lib: lib.isclose(lib.tensor(z), lib.tensor(z), rtol=-1))


# -- cumprod --------------------------------------------------------------------------------------


def _with_zeros(index):
    z = _complex(np.random.default_rng(40 + index), (3, 4))
    if index == 1:
        z[1, 1] = z[2, 0] = z[2, 3] = 0  # one zero per slice
    if index == 2:
        z[0, 1] = z[0, 2] = 0  # two zeros in one slice
    return z


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("zeros", range(3))
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod_gradients_including_zeros(dim, zeros, dtype):
    z = _with_zeros(zeros)
    _compare(lambda lib, x: lib.cumprod(x, dim), [z], dtype, seed=zeros)
    # the gradient of the gradient, through the formula with or without zeros
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(z, dtype=getattr(lib, dtype), requires_grad=True)
        y = x.cumprod(dim)
        (grad,) = lib.autograd.grad((y * (1 - 2j)).real.sum() + y.abs().sum(), x,
                                    create_graph=True)
        (second,) = lib.autograd.grad((grad * grad.conj()).real.sum(), x)
        results.append(second.numpy())
    rtol, atol = TOLERANCE[dtype]
    np.testing.assert_allclose(results[0], results[1], rtol=rtol * 100, atol=atol * 100)
    if dtype == "complex128":
        _checks(lambda lib, x: lib.cumprod(x, dim), [z])


def test_cumprod_forms_layouts_and_dtypes():
    z = _complex(np.random.default_rng(50), (3, 4))
    calls = [lambda lib, x: x.cumprod(0), lambda lib, x: x.t().cumprod(1),
             lambda lib, x: x[:, ::2].cumprod(dim=0), lambda lib, x: lib.cumprod(x[1, 1], 0),
             lambda lib, x: lib.cumprod(x[:0], 1),
             lambda lib, x: lib.cumprod(x.real.float(), 1, dtype=lib.complex64),
             lambda lib, x: lib.cumprod(x, 1, dtype=lib.complex64)]
    for call in calls:
        ours, theirs = call(leafgrad, leafgrad.tensor(z)), call(torch, torch.tensor(z))
        assert tuple(ours.shape) == tuple(theirs.shape)
        _close(ours.numpy(), theirs.numpy(), _name(theirs.dtype))
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(z)
        x.cumprod_(1)
        out = lib.empty((3, 4), dtype=lib.complex128)
        lib.cumprod(lib.tensor(z), 0, out=out)
        results.append((x.numpy(), out.numpy()))
    for ours, theirs in zip(*results):
        _close(ours, theirs, "complex128")
    _same_error(lambda lib: lib.cumprod(lib.tensor(z), 2))


# -- addmv, addbmm, baddbmm -----------------------------------------------------------------------

# (function, shapes of self / the two operands); self broadcasts where torch lets it
ADD_PRODUCTS = [
    ("addmv", ((2,), (2, 3), (3,))),
    ("addmv", ((), (2, 3), (3,))),
    ("addmv", ((1,), (2, 3), (3,))),
    ("baddbmm", ((2, 2, 4), (2, 2, 3), (2, 3, 4))),
    ("baddbmm", ((2, 4), (2, 2, 3), (2, 3, 4))),
    ("addbmm", ((2, 4), (3, 2, 3), (3, 3, 4))),
    ("addbmm", ((4,), (3, 2, 3), (3, 3, 4))),
]
SCALARS = [{}, {"alpha": 1j, "beta": 2 - 1j}, {"alpha": 0.5, "beta": 0}, {"beta": 0j},
           {"alpha": -1 + 0.5j}]


def _product_call(name, scalars, method=False):
    if method:
        return lambda lib, s, a, b: getattr(s, name)(a, b, **scalars)
    return lambda lib, s, a, b: getattr(lib, name)(s, a, b, **scalars)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(ADD_PRODUCTS)))
def test_add_products_values_and_gradients(case, dtype):
    name, shapes = ADD_PRODUCTS[case]
    rng = np.random.default_rng(60 + case)
    arrays = [_complex(rng, shape) for shape in shapes]
    for index, scalars in enumerate(SCALARS):
        call = _product_call(name, scalars, method=index % 2 == 1)
        _compare(call, arrays, dtype, seed=index)
        for requires in ([True, False, False], [False, True, False], [False, False, True]):
            _compare(call, arrays, dtype, seed=index, requires=requires)
    if dtype == "complex128":
        for scalars in SCALARS[:2]:
            _checks(_product_call(name, scalars), arrays)


@pytest.mark.parametrize("name", ["addmv", "baddbmm", "addbmm"])
def test_add_products_layouts_empty_out_and_inplace(name):
    shapes = dict((n, s) for n, s in ADD_PRODUCTS[::-1])[name]
    rng = np.random.default_rng(70)
    arrays = [_complex(rng, shape) for shape in shapes]
    transposed = [np.ascontiguousarray(np.swapaxes(a, -1, -2)) if a.ndim > 1 else a
                  for a in arrays]

    def views(lib, s, a, b):  # transposed (non-contiguous) operands
        flip = [t.transpose(-1, -2) if t.ndim > 1 else t for t in (s, a, b)]
        return getattr(lib, name)(*flip, alpha=2j)

    _compare(views, transposed, "complex128")
    empty_inner = [arrays[0], arrays[1][..., :0], arrays[2][..., :0, :] if arrays[2].ndim > 1
                   else arrays[2][:0]]
    for lib_args in (arrays, empty_inner):
        ours = getattr(leafgrad, name)(*[leafgrad.tensor(a) for a in lib_args], beta=1j)
        theirs = getattr(torch, name)(*[torch.tensor(a) for a in lib_args], beta=1j)
        _close(ours.numpy(), theirs.numpy(), "complex128")
    results = []
    for lib in (leafgrad, torch):
        tensors = [lib.tensor(a) for a in arrays]
        result = getattr(lib, name)(*tensors, alpha=1 - 1j)
        out = lib.empty(tuple(result.shape), dtype=lib.complex128)
        getattr(lib, name)(*tensors, alpha=1 - 1j, out=out)
        base = result.clone()
        getattr(base, name + "_")(*tensors[1:], beta=0.5j)
        results.append((out.numpy(), base.numpy()))
    for ours, theirs in zip(*results):
        _close(ours, theirs, "complex128")


@pytest.mark.parametrize("name", ["addmv", "baddbmm", "addbmm", "addmm", "addr"])
def test_add_products_refuse_what_torch_refuses(name):
    """Mixed real/complex operands, complex64 beside complex128, and complex scalars for real
    kernels (torch's checked conversion: an imaginary part is an overflow, named by the C type)."""
    shapes = {"addmv": ((2,), (2, 3), (3,)), "baddbmm": ((2, 2, 4), (2, 2, 3), (2, 3, 4)),
              "addbmm": ((2, 4), (3, 2, 3), (3, 3, 4)), "addmm": ((2, 4), (2, 3), (3, 4)),
              "addr": ((2, 3), (2,), (3,))}[name]
    rng = np.random.default_rng(80)
    arrays = [_complex(rng, shape) for shape in shapes]
    for which in range(3):
        mixed = [a.real if i == which else a for i, a in enumerate(arrays)]
        if name != "addr":  # addr promotes its operands
            _same_error(lambda lib: getattr(lib, name)(*[lib.tensor(a) for a in mixed]))
        narrow = [lib_a.astype(np.complex64) if i == which else lib_a
                  for i, lib_a in enumerate(arrays)]
        if name != "addr":
            _same_error(lambda lib: getattr(lib, name)(*[lib.tensor(a) for a in narrow]))
    for dtype in ("float64", "float32", "float16", "int64", "int32", "uint8", "bool"):
        def tensors(lib):
            return [lib.ones(shape, dtype=getattr(lib, dtype)) for shape in shapes]
        for scalars in ({"alpha": 1j}, {"beta": 2 - 1j}):
            _same_error(lambda lib: getattr(lib, name)(*tensors(lib), **scalars))
        # a zero imaginary part converts (torch's checked conversion), floats truncate for
        # integer kernels; bool kernels are refused
        for scalars in ({"alpha": 2 + 0j, "beta": 1 + 0j}, {"alpha": 2.5}):
            try:
                theirs = getattr(torch, name)(*tensors(torch), **scalars)
            except Exception:
                _same_error(lambda lib: getattr(lib, name)(*tensors(lib), **scalars))
                continue
            ours = getattr(leafgrad, name)(*tensors(leafgrad), **scalars)
            assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# -- transposed convolutions, fold and unfold -----------------------------------------------------

# (function, input/weight/bias shapes, keyword arguments)
CONVOLUTIONS = [
    ("conv_transpose2d", ((1, 2, 3, 3), (2, 3, 3, 3), (3,)),
     {"stride": 2, "padding": 1, "output_padding": 1}),
    ("conv_transpose2d", ((1, 4, 3, 3), (4, 1, 2, 2)), {"groups": 2, "dilation": 2}),
    ("conv_transpose2d", ((2, 3, 3), (2, 2, 2, 2), (2,)), {}),
    ("conv_transpose1d", ((2, 2, 5), (2, 3, 3), (3,)), {"stride": 2}),
    ("conv_transpose1d", ((2, 5), (2, 3, 3)), {"padding": 1}),
    ("conv_transpose3d", ((1, 1, 3, 2, 3), (1, 2, 2, 2, 2), (2,)), {"stride": (1, 2, 1)}),
    ("fold", ((1, 8, 4),), {"output_size": (3, 3), "kernel_size": (2, 2)}),
    ("fold", ((8, 6),), {"output_size": (4, 3), "kernel_size": 2, "padding": (1, 0),
                         "stride": (2, 1)}),
    ("unfold", ((2, 2, 4, 4),), {"kernel_size": 2, "padding": 1, "stride": 2}),
    ("unfold", ((2, 4, 4),), {"kernel_size": (2, 3), "dilation": (2, 1)}),
]


def _functional(name, options):
    return lambda lib, *xs: getattr(lib.nn.functional, name)(*xs, **options)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(CONVOLUTIONS)))
def test_transposed_convolutions_fold_unfold(case, dtype):
    name, shapes, options = CONVOLUTIONS[case]
    rng = np.random.default_rng(90 + case)
    arrays = [_complex(rng, shape) for shape in shapes]
    call = _functional(name, options)
    _compare(call, arrays, dtype, seed=case)
    for which in range(len(arrays)):
        requires = [i == which for i in range(len(arrays))]
        _compare(call, arrays, dtype, seed=case, requires=requires)
    doubled = [np.repeat(a, 2, axis=-1) for a in arrays]  # every other column: strided views
    _compare(lambda lib, *xs: call(lib, *[x[..., ::2] for x in xs]), doubled, dtype)
    if dtype == "complex128":
        _checks(call, arrays)


def test_transposed_convolution_modules_and_tensor_unfold():
    rng = np.random.default_rng(100)
    z = _complex(rng, (1, 2, 4, 4))
    results = []
    for lib in (leafgrad, torch):
        lib.manual_seed(0)
        layer = lib.nn.ConvTranspose2d(2, 3, 2, stride=2, dtype=lib.complex64)
        out = layer(lib.tensor(z, dtype=lib.complex64))
        out.abs().sum().backward()
        results.append((out.detach().numpy(), layer.weight.grad.numpy(), layer.bias.grad.numpy(),
                        lib.tensor(z).unfold(2, 2, 1).numpy()))
    for ours, theirs in zip(*results):
        _close(ours, theirs, str(theirs.dtype))


@pytest.mark.parametrize("name", ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"])
def test_transposed_convolutions_refuse_mixed_dtypes(name):
    spatial = int(name[-2])
    shapes = ((1, 2) + (3,) * spatial, (2, 2) + (2,) * spatial, (2,))
    rng = np.random.default_rng(110)
    z = [_complex(rng, shape) for shape in shapes]
    variants = [[z[0], z[1].real, z[2]], [z[0].real, z[1], z[2]], [z[0], z[1], z[2].real],
                [z[0], z[1].astype(np.complex64), z[2]], [z[0].real, z[1].real, z[2]]]
    for arrays in variants:
        _same_error(lambda lib: getattr(lib.nn.functional, name)(
            *[lib.tensor(a) for a in arrays]))


def test_real_convolutions_refuse_a_complex_bias():
    for name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "conv_transpose3d"):
        spatial = int(name[-2])
        for dtype in ("float32", "float64"):
            def call(lib):
                real = getattr(lib, dtype)
                complex_dtype = lib.complex64 if dtype == "float32" else lib.complex128
                return getattr(lib.nn.functional, name)(
                    lib.ones((1, 2) + (3,) * spatial, dtype=real),
                    lib.ones((2, 2) + (2,) * spatial, dtype=real),
                    lib.ones(2, dtype=complex_dtype))
            _same_error(call)


def test_fold_unfold_refuse_integers_still():
    _same_error(lambda lib: lib.nn.functional.unfold(lib.ones(1, 1, 2, 2, dtype=lib.int64), 1))
    _same_error(lambda lib: lib.nn.functional.fold(lib.ones(1, 4, 1, dtype=lib.int32), 2, 2))


# -- linalg ---------------------------------------------------------------------------------------


def _hermitian_pd(lib, a):
    return a @ a.mH + 3 * lib.eye(a.shape[-1], dtype=a.dtype)


def _hermitian(lib, a):
    return a + a.mH


def _regular(lib, a):
    return a + 4 * lib.eye(a.shape[-1], dtype=a.dtype)


def _svd_invariants(lib, a, full_matrices=False):
    """What does not depend on the singular vectors' phases: U S Vh, S, |U|, |Vh|."""
    u, s, vh = lib.linalg.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    return (u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :], s, u[..., :k].abs(), vh[..., :k, :].abs()


def _eigh_invariants(lib, a, uplo="L"):
    values, vectors = lib.linalg.eigh(_hermitian(lib, a), UPLO=uplo)
    return values, vectors.abs(), (vectors * values.unsqueeze(-2)) @ vectors.mH


def _qr_parts(lib, a, mode="reduced"):
    q, r = lib.linalg.qr(a, mode=mode)
    return q, r


LINALG = {
    "inv": (lambda lib, a: lib.linalg.inv(_regular(lib, a)), [(3, 3)]),
    "inverse_batched": (lambda lib, a: _regular(lib, a).inverse(), [(2, 3, 3)]),
    "det": (lambda lib, a: lib.linalg.det(a), [(2, 3, 3)]),
    "det_method": (lambda lib, a: a.mT.det(), [(3, 3)]),
    "slogdet": (lambda lib, a: tuple(lib.linalg.slogdet(a)), [(2, 3, 3)]),
    "slogdet_sign": (lambda lib, a: lib.linalg.slogdet(a).sign, [(3, 3)]),
    "slogdet_logabsdet": (lambda lib, a: lib.slogdet(a)[1], [(3, 3)]),
    "logdet": (lambda lib, a: lib.logdet(_regular(lib, a)), [(3, 3)]),
    "solve": (lambda lib, a, b: lib.linalg.solve(_regular(lib, a), b), [(3, 3), (3, 2)]),
    "solve_vector": (lambda lib, a, b: lib.linalg.solve(_regular(lib, a), b), [(2, 3, 3), (3,)]),
    "solve_right": (lambda lib, a, b: lib.linalg.solve(_regular(lib, a), b, left=False),
                    [(3, 3), (2, 3)]),
    "solve_triangular": (lambda lib, a, b: lib.linalg.solve_triangular(
        _regular(lib, a), b, upper=True), [(3, 3), (3, 2)]),
    "solve_triangular_right_unit": (lambda lib, a, b: lib.linalg.solve_triangular(
        a, b, upper=False, left=False, unitriangular=True), [(2, 3, 3), (2, 3)]),
    "cholesky": (lambda lib, a: lib.linalg.cholesky(_hermitian_pd(lib, a)), [(3, 3)]),
    "cholesky_upper": (lambda lib, a: lib.linalg.cholesky(_hermitian_pd(lib, a), upper=True),
                       [(2, 3, 3)]),
    "cholesky_legacy": (lambda lib, a: _hermitian_pd(lib, a).cholesky(), [(3, 3)]),
    "qr": (lambda lib, a: _qr_parts(lib, a), [(4, 3)]),
    "qr_wide": (lambda lib, a: _qr_parts(lib, a), [(3, 5)]),
    "qr_complete_square": (lambda lib, a: _qr_parts(lib, a, "complete"), [(2, 3, 3)]),
    "qr_r": (lambda lib, a: lib.linalg.qr(a).R, [(4, 3)]),
    "svd": (lambda lib, a: _svd_invariants(lib, a), [(4, 3)]),
    "svd_wide_batched": (lambda lib, a: _svd_invariants(lib, a), [(2, 3, 4)]),
    "svdvals": (lambda lib, a: lib.linalg.svdvals(a), [(3, 4)]),
    "eigh": (lambda lib, a: _eigh_invariants(lib, a), [(3, 3)]),
    "eigh_upper": (lambda lib, a: _eigh_invariants(lib, a, "U"), [(2, 3, 3)]),
    "eigvalsh": (lambda lib, a: lib.linalg.eigvalsh(_hermitian(lib, a)), [(3, 3)]),
    "pinv": (lambda lib, a: lib.linalg.pinv(a), [(4, 3)]),
    "pinv_wide": (lambda lib, a: lib.pinverse(a), [(2, 2, 3)]),
    "pinv_hermitian": (lambda lib, a: lib.linalg.pinv(_hermitian_pd(lib, a), hermitian=True),
                       [(3, 3)]),
}
LINALG_TOLERANCE = {"complex64": (2e-4, 2e-5), "complex128": (1e-9, 1e-11)}


def _linalg_results(lib, function, arrays, dtype, weights):
    inputs = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]
    out = function(lib, *inputs)
    outs = out if isinstance(out, tuple) else (out,)
    loss = sum((o * lib.tensor(w, dtype=o.dtype)).real.sum() + o.abs().sum()
               for o, w in zip(outs, weights))
    grads = lib.autograd.grad(loss, inputs)
    values = [o.detach().resolve_conj().numpy() for o in outs]
    return values, [o.grad_fn.name() for o in outs], [g.resolve_conj().numpy() for g in grads]


def _inputs_and_weights(name, function, shapes):
    """Complex inputs seeded by the case's name, and a weight per output of torch's result
    (complex for complex outputs) for the weighted-sum loss the gradients come from."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    arrays = [_complex(rng, shape) for shape in shapes]
    probe = function(torch, *[torch.tensor(a) for a in arrays])
    outs = probe if isinstance(probe, tuple) else (probe,)
    weights = [_complex(rng, tuple(o.shape)) if o.is_complex() else
               rng.standard_normal(tuple(o.shape)) for o in outs]
    return arrays, weights


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_values_and_gradients(name, dtype):
    function, shapes = LINALG[name]
    arrays, weights = _inputs_and_weights(name, function, shapes)
    ours = _linalg_results(leafgrad, function, arrays, dtype, weights)
    theirs = _linalg_results(torch, function, arrays, dtype, weights)
    rtol, atol = LINALG_TOLERANCE[dtype]
    for got, want in zip(ours[0], theirs[0]):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    assert ours[1] == theirs[1]
    for got, want in zip(ours[2], theirs[2]):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol * 10, atol=atol * 10)
    if dtype == "complex128":
        _checks(function, arrays)


def test_det_of_singular_complex_matrices():
    """The adjugate formula (from the SVD) where det is 0 or nearly so. (The loss of
    ``_compare`` adds ``|det|``, whose gradient at a det of rounding noise, ~1e-16, is that
    noise's phase: it depends on each library's LAPACK and processor, so it is left out.)"""
    rng = np.random.default_rng(120)
    rank_one = np.outer(_complex(rng, 3), _complex(rng, 3))
    rank_two = _complex(rng, (3, 2)) @ _complex(rng, (2, 3))
    weight = _complex(rng, ())
    for matrix in (rank_one, rank_two, np.zeros((3, 3), complex)):
        seen = []
        for lib in (leafgrad, torch):
            x = lib.tensor(matrix, requires_grad=True)
            det = lib.linalg.det(x)
            (grad,) = lib.autograd.grad((det * lib.tensor(weight)).real, x)
            seen.append((det.detach().numpy(), det.grad_fn.name(), grad.numpy()))
        np.testing.assert_allclose(seen[0][0], seen[1][0], atol=1e-12)
        assert seen[0][1] == seen[1][1]
        np.testing.assert_allclose(seen[0][2], seen[1][2], rtol=1e-9, atol=1e-12)


def test_phase_dependent_losses_are_refused():
    rng = np.random.default_rng(130)
    wide, square = _complex(rng, (4, 3)), _complex(rng, (3, 3))
    losses = [lambda lib, a: lib.linalg.svd(a, full_matrices=False)[0].real.sum(),
              lambda lib, a: lib.linalg.svd(a, full_matrices=False)[2].imag.sum(),
              lambda lib, a: lib.linalg.eigh(a + a.mH)[1].real.sum()]
    for loss in losses:
        for matrix in (wide, square):
            if loss is losses[2] and matrix is wide:
                continue
            _same_error(lambda lib: loss(lib, lib.tensor(matrix, requires_grad=True)).backward())


def test_linalg_refuses_what_torch_refuses():
    rng = np.random.default_rng(140)
    z, x = _complex(rng, (3, 3)), rng.standard_normal((3, 2))
    calls = [
        lambda lib: lib.linalg.solve(lib.tensor(z), lib.tensor(x)),
        lambda lib: lib.linalg.solve(lib.tensor(z.real), lib.tensor(z)),
        lambda lib: lib.linalg.solve(lib.tensor(z, dtype=lib.complex64), lib.tensor(z)),
        lambda lib: lib.linalg.inv(lib.tensor(z[:, :2])),
        lambda lib: lib.linalg.det(lib.zeros((2, 3), dtype=lib.complex128)),
        lambda lib: lib.linalg.cholesky(lib.tensor(z[:2, :3])),
        lambda lib: lib.linalg.eigh(lib.tensor(z), UPLO="X"),
        lambda lib: lib.linalg.qr(lib.tensor(z), mode="bad"),
        lambda lib: lib.matmul(lib.tensor(z).expand(2, 3, 3), lib.tensor(z.real).expand(2, 3, 3)),
        lambda lib: lib.mv(lib.tensor(z), lib.tensor(x[:, 0])),
        lambda lib: lib.bmm(lib.tensor(z)[None], lib.tensor(z, dtype=lib.complex64)[None]),
    ]
    for call in calls:
        _same_error(call)
    # solve_triangular computes in A's dtype (B cast to it)
    for a, b in ((z + 3 * np.eye(3), x), (x[:2, :2] + 3 * np.eye(2), z[:2]),
                 (z.astype(np.complex64), z)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # complex B for a real A: the imaginary part goes
            ours = leafgrad.linalg.solve_triangular(leafgrad.tensor(a), leafgrad.tensor(b),
                                                    upper=True)
            theirs = torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b), upper=True)
        assert str(ours.dtype).split(".")[-1] == _name(theirs.dtype)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
    # the legacy cholesky of a matrix that is not positive-definite: torch's message
    with pytest.raises(RuntimeError, match="leading minor of order 1 is not positive-definite"):
        leafgrad.linalg.cholesky(leafgrad.tensor(-np.eye(2, dtype=complex)))


# -- LU, lstsq, matrix_exp and the other composites; cross, dist, ldexp, frobenius_norm ----------

COMPOSITES = {
    "matrix_exp": (lambda lib, a: lib.linalg.matrix_exp(a), [(3, 3)]),
    "matrix_exp_batched": (lambda lib, a: (a * 2).matrix_exp(), [(2, 3, 3)]),
    "lu_factor": (lambda lib, a: lib.linalg.lu_factor(a).LU, [(3, 3)]),
    "lu_wide": (lambda lib, a: tuple(lib.linalg.lu(a))[1:], [(3, 4)]),
    "lu_tall": (lambda lib, a: tuple(lib.linalg.lu(a))[1:], [(4, 3)]),
    "lu_solve": (lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b),
                 [(3, 3), (3, 2)]),
    "lu_solve_adjoint": (lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b,
                                                               adjoint=True), [(3, 3), (3, 2)]),
    "lu_solve_right": (lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b,
                                                             left=False), [(3, 3), (2, 3)]),
    "lstsq": (lambda lib, a, b: lib.linalg.lstsq(a, b).solution, [(4, 3), (4, 2)]),
    "lstsq_gelsd": (lambda lib, a, b: tuple(lib.linalg.lstsq(a, b, driver="gelsd"))[:2],
                    [(4, 3), (4, 2)]),
    "lstsq_wide": (lambda lib, a, b: lib.linalg.lstsq(a, b).solution, [(2, 3), (2, 2)]),
    "cholesky_solve": (lambda lib, a, b: lib.cholesky_solve(b, lib.linalg.cholesky(
        _hermitian_pd(lib, a))), [(3, 3), (3, 2)]),
    "cholesky_solve_upper": (lambda lib, a, b: lib.cholesky_solve(b, lib.linalg.cholesky(
        _hermitian_pd(lib, a), upper=True), upper=True), [(3, 3), (3, 2)]),
    "cholesky_inverse": (lambda lib, a: lib.cholesky_inverse(lib.linalg.cholesky(
        _hermitian_pd(lib, a))), [(3, 3)]),
    "householder_product": (lambda lib, a, tau: lib.linalg.householder_product(a, tau),
                            [(4, 3), (3,)]),
    "matrix_power": (lambda lib, a: lib.linalg.matrix_power(_regular(lib, a), -2), [(3, 3)]),
    "cond": (lambda lib, a: lib.linalg.cond(a), [(3, 3)]),
    "inv_ex": (lambda lib, a: lib.linalg.inv_ex(_regular(lib, a)).inverse, [(3, 3)]),
    "solve_ex": (lambda lib, a, b: lib.linalg.solve_ex(_regular(lib, a), b).result,
                 [(3, 3), (3,)]),
    "tensorinv": (lambda lib, a: lib.linalg.tensorinv(_regular(lib, a).reshape(2, 2, 4)),
                  [(4, 4)]),
    "cross": (lambda lib, a, b: lib.linalg.cross(a, b), [(2, 3), (2, 3)]),
    "cross_broadcast": (lambda lib, a, b: lib.cross(a, b, dim=0), [(3, 2), (3, 1)]),
    "dist": (lambda lib, a, b: lib.dist(a, b), [(2, 3), (2, 3)]),
    "dist_1": (lambda lib, a, b: lib.dist(a, b, 1), [(2, 3), (3,)]),
    "dist_inf": (lambda lib, a, b: a.dist(b, float("inf")), [(2, 3), (2, 3)]),
    "dist_half": (lambda lib, a, b: lib.dist(a, b, 0.5), [(2, 3), (2, 3)]),
    "ldexp": (lambda lib, a, b: lib.ldexp(a, b), [(3,), (3,)]),
    "frobenius_norm": (lambda lib, a: lib.frobenius_norm(a, [1]), [(2, 3)]),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composites_values_and_gradients(name, dtype):
    function, shapes = COMPOSITES[name]
    arrays, weights = _inputs_and_weights(name, function, shapes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # frobenius_norm's deprecation
        ours = _linalg_results(leafgrad, function, arrays, dtype, weights)
        theirs = _linalg_results(torch, function, arrays, dtype, weights)
    rtol, atol = LINALG_TOLERANCE[dtype]
    for got, want in zip(ours[0], theirs[0]):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    for got, want in zip(ours[2], theirs[2]):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol * 10, atol=atol * 10)
    if dtype == "complex128" and not name.startswith("lu") and name not in ("cond", "dist_inf"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _checks(function, arrays)


def test_ldexp_with_real_operands_and_integer_exponents():
    rng = np.random.default_rng(150)
    z, x = _complex(rng, 4), rng.standard_normal(4)
    for exponent in (np.arange(-1, 3), np.arange(4, dtype=np.int32)):
        _compare(lambda lib, a, b: lib.ldexp(a, b), [z, exponent], "complex128",
                 requires=[True, False])
    for a, b in ((z, x), (x, z)):
        ours = leafgrad.ldexp(leafgrad.tensor(a), leafgrad.tensor(b))
        theirs = torch.ldexp(torch.tensor(a), torch.tensor(b))
        _close(ours.numpy(), theirs.numpy(), "complex128")


def test_custom_function_with_complex_output_is_differentiable():
    """An autograd.Function returning a complex tensor records its node, as in torch."""
    results = []
    for lib in (leafgrad, torch):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * (2 - 1j)

            @staticmethod
            def backward(ctx, grad):
                return grad * (2 + 1j)

        x = lib.tensor([1 + 1j, -2j], requires_grad=True)
        out = Twice.apply(x)
        out.abs().sum().backward()
        results.append((out.requires_grad, x.grad.numpy()))
    assert results[0][0] and results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


# -- all, any and the logical ops -----------------------------------------------------------------

TRUTH_VALUES = np.array([0j, complex(-0.0, 0), 1j, 1 + 0j, complex(np.nan, 0), complex(0, np.nan),
                         complex(np.inf, 0), 2 - 3j])


@pytest.mark.parametrize("dtype", DTYPES)
def test_logical_ops_all_any(dtype):
    """A complex number is true where either part is nonzero (nan included)."""
    other = TRUTH_VALUES[::-1].copy()
    results = []
    for lib in (leafgrad, torch):
        a = lib.tensor(TRUTH_VALUES, dtype=getattr(lib, dtype))
        b = lib.tensor(other, dtype=getattr(lib, dtype))
        outs = [lib.logical_and(a, b), lib.logical_or(a, b), lib.logical_xor(a, b),
                lib.logical_not(a), a.all(), a.any(), a.reshape(2, 4).all(1),
                a.reshape(2, 4).any(0, keepdim=True), lib.logical_or(a, lib.tensor([True] * 8)),
                lib.logical_and(a.real, b), a[:0].all(), a[:0].any(), lib.all(a[1:4]),
                a.reshape(4, 2).t().any(1), a.clone().logical_not_(),
                a.clone().logical_xor_(b)]
        out = lib.empty(8, dtype=getattr(lib, dtype))
        outs.append(lib.logical_or(a, b, out=out))
        results.append([(str(o.dtype).split(".")[-1], o.numpy().tolist()) for o in outs])
    assert results[0] == results[1]


# -- LSTM -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_complex_lstm_layers_and_cells(dtype):
    """nn.LSTM (two layers, bidirectional) and nn.LSTMCell with complex parameters: values
    and the gradients of the input and every parameter, against torch."""
    rng = np.random.default_rng(160)
    x = _complex(rng, (5, 2, 3)) * 0.5
    shapes = None
    values = None
    results = []
    for lib in (leafgrad, torch):
        complex_dtype = getattr(lib, dtype)
        lstm = lib.nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype=complex_dtype)
        cell = lib.nn.LSTMCell(3, 4, dtype=complex_dtype)
        parameters = list(lstm.parameters()) + list(cell.parameters())
        if values is None:
            shapes = [tuple(p.shape) for p in parameters]
            values = [_complex(rng, shape) * 0.3 for shape in shapes]
        with lib.no_grad():
            for parameter, value in zip(parameters, values):
                parameter.copy_(lib.tensor(value, dtype=complex_dtype))
        inputs = lib.tensor(x, dtype=complex_dtype, requires_grad=True)
        out, (h, c) = lstm(inputs)
        h_cell, c_cell = cell(inputs[0])
        loss = (out.abs().sum() + h.real.sum() + c.imag.sum() + h_cell.abs().sum()
                + (c_cell * (1 - 2j)).real.sum())
        loss.backward()
        results.append([t.detach().numpy() for t in (out, h, c, h_cell, c_cell, inputs.grad)]
                       + [p.grad.numpy() for p in parameters])
    rtol, atol = LINALG_TOLERANCE[dtype]
    for got, want in zip(*results):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# -- count_nonzero, nan_to_num, silu --------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_count_nonzero_nan_to_num_silu_values(dtype):
    special = np.array([[1 + 2j, complex(np.nan, 1), complex(np.inf, -np.inf)],
                        [0j, 1j, complex(-np.inf, np.nan)]])
    smooth = _complex(np.random.default_rng(170), (2, 3))
    results = []
    for lib in (leafgrad, torch):
        a = lib.tensor(special, dtype=getattr(lib, dtype))
        s = lib.tensor(smooth, dtype=getattr(lib, dtype))
        outs = [lib.count_nonzero(a), lib.count_nonzero(a, dim=1), a.t().count_nonzero(0),
                lib.nan_to_num(a), lib.nan_to_num(a, nan=2.0, posinf=1.0, neginf=-1.0),
                a.t().nan_to_num(), a.clone().nan_to_num_(0.5),
                lib.nn.functional.silu(s), lib.nn.SiLU()(s.t()), s.clone().nan_to_num()]
        results.append(outs)
    for ours, theirs in zip(*results):
        _close(ours.numpy(), theirs.numpy(), dtype) if theirs.is_complex() else \
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_silu_and_nan_to_num_refuse_complex_autograd():
    """torch computes both for complex input but has no derivative for them: recording one
    raises; without grad (or under no_grad) they compute."""
    z = _complex(np.random.default_rng(171), 3)
    for call in (lambda lib, x: lib.nn.functional.silu(x), lambda lib, x: lib.nn.SiLU()(x),
                 lambda lib, x: lib.nan_to_num(x), lambda lib, x: x.nan_to_num()):
        _same_error(lambda lib: call(lib, lib.tensor(z, requires_grad=True)))
        values = []
        for lib in (leafgrad, torch):
            with lib.no_grad():
                values.append(call(lib, lib.tensor(z, requires_grad=True)).numpy())
        _close(*values, "complex128")


@pytest.mark.parametrize("dtype", DTYPES)
def test_soft_margin_loss(dtype):
    """log1p(exp(-target * input)) on complex values, every reduction; a real input with a
    complex target and complex autograd are refused as torch refuses them."""
    x = np.array([1 + 1j, 0.5 - 2j, 40 + 1j, -40 + 3j])
    y = np.array([1 + 0j, -1 + 0j, -1 + 0j, 1 + 2j])
    results = []
    for lib in (leafgrad, torch):
        a, b = lib.tensor(x, dtype=getattr(lib, dtype)), lib.tensor(y, dtype=getattr(lib, dtype))
        outs = [lib.nn.functional.soft_margin_loss(a, b, reduction=reduction)
                for reduction in ("mean", "none", "sum")]
        outs += [lib.nn.functional.soft_margin_loss(a, b.real),
                 lib.nn.SoftMarginLoss(reduction="sum")(a.flip(0), lib.tensor([1.0, -1, 1, 1]))]
        results.append(outs)
    for ours, theirs in zip(*results):
        _close(ours.numpy(), theirs.numpy(), dtype)
    _same_error(lambda lib: lib.nn.functional.soft_margin_loss(lib.tensor(x.real),
                                                               lib.tensor(y)))
    _same_error(lambda lib: lib.nn.functional.soft_margin_loss(
        lib.tensor(x, requires_grad=True), lib.tensor(y)))
