"""Complex inputs for exp2, log2, log10, tan, sinh and cosh against torch 2.13: values (cuts of
the logarithms, signed zeros, infinities and nan), result dtypes, gradients with torch's
conjugate convention (derivatives.yaml: exp2 grad * result.conj() * ln 2, log2/log10
grad / (self.conj() * ln b), tan grad * (1 + result^2).conj(), sinh/cosh grad * cosh/sinh.conj()),
grad_fn names, and gradcheck/gradgradcheck in complex128."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch
from tests.ops._complex_support import assert_unary_gradients_match

torch = require_torch()

NAMES = ["exp2", "log2", "log10", "tan", "sinh", "cosh"]
TOLERANCE = {np.complex64: (2e-5, 2e-6), np.complex128: (1e-12, 1e-13)}


def _points(dtype):
    rng = np.random.default_rng(13)
    z = (rng.standard_normal(40) + 1j * rng.standard_normal(40)) * 1.5
    special = [0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), 1 + 0j,
               complex(-2, 0.0), complex(-2, -0.0), 0.5j, -3j, complex(-0.0, 2),
               complex(np.inf, 1), complex(1, np.inf), complex(np.nan, 1), complex(-np.inf, 0),
               complex(np.inf, np.nan), complex(0, np.nan)]
    return np.concatenate([z, special]).astype(dtype)


def _signs_match(ours, theirs):
    """Signed zeros of the results (finite parts equal to 0 must carry torch's sign)."""
    for part in (np.real, np.imag):
        a, b = part(ours), part(theirs)
        zero = (a == 0) & (b == 0)
        assert np.array_equal(np.signbit(a[zero]), np.signbit(b[zero]))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", NAMES)
def test_values_and_gradients(name, dtype):
    rtol, atol = TOLERANCE[dtype]
    z = _points(dtype)
    ours = getattr(leafgrad, name)(leafgrad.tensor(z)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(z)).numpy()
    assert ours.dtype == theirs.dtype
    for part in (np.real, np.imag):  # parts apart: NumPy calls inf+nanj unequal to itself
        np.testing.assert_allclose(part(ours), part(theirs), rtol=rtol, atol=atol,
                                   equal_nan=True)
    _signs_match(ours, theirs)
    finite = z[:40]
    rng = np.random.default_rng(14)
    weights = (rng.standard_normal(40) + 1j * rng.standard_normal(40)).astype(dtype)
    assert_unary_gradients_match(torch, name, finite, weights, rtol, atol)


@pytest.mark.parametrize("name", NAMES)
def test_method_forms_shapes_and_layouts(name):
    """Function and method forms on 0-d, empty, transposed and strided complex inputs."""
    rng = np.random.default_rng(15)
    z = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex128)
    views = [lambda t: t, lambda t: t[1, 2], lambda t: t[:0], lambda t: t.T,
             lambda t: t[:, ::2]]
    for view in views:
        x, t = view(leafgrad.tensor(z)), view(torch.tensor(z))
        for ours, theirs in ((getattr(leafgrad, name)(x), getattr(torch, name)(t)),
                             (getattr(x, name)(), getattr(t, name)())):
            assert tuple(ours.shape) == tuple(theirs.shape)
            assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "leafgrad.")
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name", NAMES)
def test_out_and_inplace_forms(name):
    rng = np.random.default_rng(16)
    z = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex64)
    results = []
    for lib in (leafgrad, torch):
        out = lib.empty(5, dtype=lib.complex64)
        getattr(lib, name)(lib.tensor(z), out=out)
        x = lib.tensor(z)
        getattr(x, name + "_")()
        results.append((out.numpy(), x.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", NAMES)
def test_gradcheck_and_gradgradcheck(name):
    rng = np.random.default_rng(17)
    z = (rng.standard_normal(5) + 1j * rng.standard_normal(5)) * 0.6 + 0.2 + 0.3j
    x = leafgrad.tensor(z, dtype=leafgrad.complex128, requires_grad=True)
    function = getattr(leafgrad, name)
    assert leafgrad.autograd.gradcheck(function, (x,))
    assert leafgrad.autograd.gradgradcheck(function, (x,))


@pytest.mark.parametrize("name", NAMES)
def test_real_input_with_complex_gradient_flowing_back(name):
    """A real input reaching a complex op through ``complex()`` gets a real gradient, as in
    torch (the imaginary half goes to the other input)."""
    rng = np.random.default_rng(18)
    re, im = rng.standard_normal(4), rng.standard_normal(4)
    grads = []
    for lib in (leafgrad, torch):
        a = lib.tensor(re, requires_grad=True)
        b = lib.tensor(im, requires_grad=True)
        getattr(lib, name)(lib.complex(a, b)).abs().sum().backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
    for ours, theirs in zip(*grads):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)


def _complex_or_real(rng, shape, kind, dtype):
    real = rng.standard_normal(shape) + 0.5
    if kind == "r":
        return real.astype(np.float64 if dtype == np.complex128 else np.float32)
    return (real + 1j * rng.standard_normal(shape)).astype(dtype)


ADDC_VALUES = [1, 0.5, -2, 1.5 - 0.5j]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("kinds", ["ccc", "rcc", "crc", "ccr", "rrc", "crr"])
@pytest.mark.parametrize("value", ADDC_VALUES)
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv_complex(name, value, kinds, dtype):
    """addcmul/addcdiv with complex and mixed real/complex operands (broadcast shapes), a
    complex ``value``, every operand requiring grad: values, dtypes, grad_fn and the grads of
    torch's derivatives.yaml (tensor1: grad * (tensor2 * value).conj(); real inputs get the
    real part), or torch's error."""
    rng = np.random.default_rng(19)
    shapes = [(2, 3), (3,), (2, 1)]
    arrays = [_complex_or_real(rng, shape, kind, dtype) for shape, kind in zip(shapes, kinds)]
    weight = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(dtype)
    outcomes = []
    for lib in (leafgrad, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        try:  # torch's addcdiv backward fills a real tensor2 with a complex value and raises
            out = getattr(lib, name)(*xs, value=value)
            (out * lib.tensor(weight)).real.sum().backward()
        except Exception as error:
            outcomes.append((type(error), str(error).splitlines()[0]))
            continue
        outcomes.append((out, [x.grad.numpy() for x in xs], out.grad_fn.name()))
    ours, theirs = outcomes
    if isinstance(theirs[0], type):
        assert ours == theirs
        return
    rtol, atol = TOLERANCE[dtype]
    assert str(ours[0].dtype).split(".")[-1] == str(theirs[0].dtype).split(".")[-1]
    np.testing.assert_allclose(ours[0].detach().numpy(), theirs[0].detach().numpy(),
                               rtol=rtol * 10, atol=atol * 10)
    assert ours[2] == theirs[2]
    for got, want in zip(ours[1], theirs[1]):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol * 10, atol=atol * 10)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv_complex_forms_and_gradcheck(name):
    """Method, in-place and out= forms with complex tensors; an in-place call on a real tensor
    with a complex result raises torch's error and leaves the tensor as it was; gradcheck and
    gradgradcheck in complex128."""
    rng = np.random.default_rng(20)
    a, b, c = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)) + 0.5
               for _ in range(3))
    results = []
    for lib in (leafgrad, torch):
        x, y, z = (lib.tensor(v) for v in (a, b, c))
        method = getattr(x, name)(y, z, value=2)
        inplace = x.clone()
        getattr(inplace, name + "_")(y, z, value=0.5j)
        out = lib.empty((2, 3), dtype=lib.complex128)
        getattr(lib, name)(x, y, z, out=out)
        real = lib.tensor(a.real)
        try:
            getattr(real, name + "_")(y, z)
            error = None
        except Exception as caught:
            error = (type(caught), str(caught).splitlines()[0])
        results.append(([method.numpy(), inplace.numpy(), out.numpy(), real.numpy()], error))
    for got, want in zip(results[0][0], results[1][0]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
    assert results[0][1] == results[1][1]
    xs = [leafgrad.tensor(v, requires_grad=True) for v in (a, b, c)]
    function = lambda *t: getattr(leafgrad, name)(*t, value=0.7 - 0.2j)  # noqa: E731
    assert leafgrad.autograd.gradcheck(function, xs)
    assert leafgrad.autograd.gradgradcheck(function, xs)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("weight", [0.3, 0.7, -1.5, 0.2 + 0.1j, 0.6 - 0.8j, "tensor"])
@pytest.mark.parametrize("grads", ["se", "s", "e", "sew", "w"])
def test_lerp_complex(grads, weight, dtype):
    """lerp of complex tensors with a number (real or complex: torch picks its formula by
    |weight| < 0.5) or tensor weight, each subset of inputs requiring grad: values, grad_fn
    and torch's grads (derivatives.yaml: grad * (1 - weight).conj(), grad * weight.conj(),
    grad * (end - self).conj())."""
    if weight != "tensor" and "w" in grads:
        return  # a number weight has no gradient; covered by the other subsets
    rng = np.random.default_rng(21)
    start, end, w = ((rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)))
                     .astype(dtype) for _ in range(3))
    upstream = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(dtype)
    results = []
    for lib in (leafgrad, torch):
        xs = [lib.tensor(start, requires_grad="s" in grads),
              lib.tensor(end, requires_grad="e" in grads),
              lib.tensor(w, requires_grad="w" in grads)]
        out = lib.lerp(xs[0], xs[1], xs[2] if weight == "tensor" else weight)
        (out * lib.tensor(upstream)).real.sum().backward()
        results.append((out.detach().numpy(), out.grad_fn.name(),
                        [None if x.grad is None else x.grad.numpy() for x in xs]))
    (ours, node, our_grads), (theirs, torch_node, torch_grads) = results
    rtol, atol = TOLERANCE[dtype]
    assert ours.dtype == theirs.dtype and node == torch_node
    np.testing.assert_allclose(ours, theirs, rtol=rtol * 10, atol=atol * 10)
    for got, want in zip(our_grads, torch_grads):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=rtol * 10, atol=atol * 10)


@pytest.mark.parametrize("call", [
    lambda lib, a, c: lib.lerp(a, a, 0.5j),
    lambda lib, a, c: lib.lerp(a.double(), a.double(), 1 - 2j),
    lambda lib, a, c: lib.lerp(a, a, 1 + 0j),
    lambda lib, a, c: lib.lerp(c, a, 0.5),
    lambda lib, a, c: lib.lerp(c, c, a),
    lambda lib, a, c: lib.lerp(c, c, c[0]),
    lambda lib, a, c: c.lerp(c * 2, 0.25 + 1j),
    lambda lib, a, c: c.clone().lerp_(c * 2, c * 0.5),
    lambda lib, a, c: a.clone().lerp_(c, 0.5),
    lambda lib, a, c: lib.lerp(c, c, 0.3, out=lib.empty(3, dtype=lib.complex64)),
])
def test_lerp_complex_forms_and_errors(call):
    """Method, in-place, out= and 0-d-weight forms, and torch's errors: a complex weight with
    real tensors, mixed real/complex start/end/weight."""
    outcomes = []
    for lib in (leafgrad, torch):
        a = lib.tensor([1.0, 2.0, -0.5])
        c = lib.tensor([1 + 1j, -2 + 0.5j, 0.25j], dtype=lib.complex64)
        try:
            outcomes.append(call(lib, a, c).numpy())
        except Exception as error:
            outcomes.append((type(error), str(error).splitlines()[0]))
    ours, theirs = outcomes
    if isinstance(theirs, tuple):
        assert ours == theirs
    else:
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


def test_lerp_complex_gradcheck():
    rng = np.random.default_rng(22)
    xs = [leafgrad.tensor(rng.standard_normal(4) + 1j * rng.standard_normal(4),
                          requires_grad=True) for _ in range(3)]
    assert leafgrad.autograd.gradcheck(leafgrad.lerp, xs)
    assert leafgrad.autograd.gradgradcheck(leafgrad.lerp, xs)
    for weight in (0.3, 0.9 - 0.4j):
        function = lambda s, e: leafgrad.lerp(s, e, weight)  # noqa: E731
        assert leafgrad.autograd.gradcheck(function, xs[:2])
        assert leafgrad.autograd.gradgradcheck(function, xs[:2])
