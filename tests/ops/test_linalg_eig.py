"""linalg.eig and linalg.eigvals against torch 2.13: values, dtypes, layouts, errors, out=,
gradients, double backward and forward mode.

torch's eigenvectors come from MKL's geev, leafgrad's from NumPy's (OpenBLAS) geev: both have
unit 2-norm and a real largest component, but each column's sign (phase, for complex inputs)
is the library's choice, and in single precision the eigenvalues are sometimes listed in
another order. So eigenvalues are compared after matching each of torch's to leafgrad's
nearest, eigenvectors column by column up to a unit factor, and gradients only of losses that
do not depend on the phases (which is what torch's backward requires anyway).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck

from .._torch import require_torch

torch = require_torch()

DTYPES = ["float32", "float64", "complex64", "complex128"]
SHAPES = [(1, 1), (2, 2), (3, 3), (5, 5), (2, 4, 4), (2, 1, 3, 3)]


def _array(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.normal(size=shape)
    return a.astype(dtype)


def _both(a, requires_grad=False):
    return (leafgrad.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _matching(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """For each matrix of the batch, the index of leafgrad's eigenvalue nearest each of torch's
    (a permutation: checked)."""
    order = np.abs(theirs[..., :, None] - ours[..., None, :]).argmin(-1)
    for row in order.reshape(-1, order.shape[-1]):
        assert sorted(row) == list(range(len(row))), "eigenvalues do not pair up"
    return order


def _tolerance(dtype):
    return 2e-4 if dtype in ("float32", "complex64") else 1e-10


def _check_eig(ours, theirs, a, dtype):
    """Eigenvalues equal torch's as a set; each eigenvector is torch's times a unit factor;
    A V = V diag(L) with unit columns; dtypes, shapes and strides equal torch's."""
    (values, vectors), (t_values, t_vectors) = ours, theirs
    for mine, other in ((values, t_values), (vectors, t_vectors)):
        assert str(mine.dtype) == str(other.dtype).replace("torch", "leafgrad")
        assert tuple(mine.shape) == tuple(other.shape)
        assert mine.stride() == other.stride()
    tol = _tolerance(dtype)
    values, vectors = values.detach().numpy(), vectors.detach().numpy()
    t_values, t_vectors = t_values.detach().numpy(), t_vectors.detach().numpy()
    order = _matching(values, t_values)
    values = np.take_along_axis(values, order, -1)
    vectors = np.take_along_axis(vectors, order[..., None, :], -1)
    np.testing.assert_allclose(values, t_values, rtol=tol, atol=tol)
    factor = (t_vectors.conj() * vectors).sum(-2, keepdims=True)  # v_torch^H v_ours
    np.testing.assert_allclose(np.abs(factor), 1, atol=tol)
    np.testing.assert_allclose(vectors, t_vectors * factor, atol=tol * 10)
    np.testing.assert_allclose(a @ vectors, vectors * values[..., None, :], atol=tol * 30)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=-2), 1, atol=tol)
    # LAPACK's normalisation: the largest component of each eigenvector is real
    largest = np.take_along_axis(vectors, np.abs(vectors).argmax(-2)[..., None, :], -2)
    np.testing.assert_allclose(largest.imag, 0, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_eig_matches_torch(dtype, shape):
    a = _array(shape, dtype, seed=len(shape) * 10 + shape[-1])
    ours, theirs = _both(a)
    result = leafgrad.linalg.eig(ours)
    assert type(result).__name__ == "linalg_eig"
    assert result.eigenvalues is result[0] and result.eigenvectors is result[1]
    _check_eig(result, torch.linalg.eig(theirs), a, dtype)
    values, t_values = leafgrad.linalg.eigvals(ours), torch.linalg.eigvals(theirs)
    assert values.dtype == result.eigenvalues.dtype and values.stride() == t_values.stride()
    np.testing.assert_array_equal(values.numpy(), result.eigenvalues.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_non_contiguous_inputs(dtype):
    a = _array((2, 6, 6), dtype, seed=3)
    for view in (lambda x: x.mT, lambda x: x[:, ::2, 1::2], lambda x: x[1].mT):
        ours, theirs = _both(a)
        assert not view(ours).is_contiguous()
        _check_eig(leafgrad.linalg.eig(view(ours)), torch.linalg.eig(view(theirs)),
                   view(ours).numpy(), dtype)


def test_known_values():
    """A rotation's eigenvalues are e^{+-i theta}; a triangular matrix's its diagonal."""
    theta = 0.3
    rotation = leafgrad.tensor([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]],
                               dtype=leafgrad.float64)
    values = np.sort_complex(leafgrad.linalg.eigvals(rotation).numpy())
    np.testing.assert_allclose(values, [np.exp(-1j * theta), np.exp(1j * theta)], atol=1e-14)
    upper = leafgrad.tensor([[1.0, 2.0, 3.0], [0.0, 4.0, 5.0], [0.0, 0.0, 6.0]])
    np.testing.assert_allclose(np.sort(leafgrad.linalg.eigvals(upper).numpy().real), [1, 4, 6])


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3), (3, 0, 0, 0)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_empty(shape, dtype):
    a = np.zeros(shape, dtype)
    ours, theirs = _both(a)
    for name in ("eig", "eigvals"):
        mine, other = getattr(leafgrad.linalg, name)(ours), getattr(torch.linalg, name)(theirs)
        mine = mine if isinstance(mine, tuple) else (mine,)
        other = other if isinstance(other, tuple) else (other,)
        for x, y in zip(mine, other, strict=True):
            assert tuple(x.shape) == tuple(y.shape)
            assert str(x.dtype) == str(y.dtype).replace("torch", "leafgrad")


BAD = [
    ("2x3", lambda lib: lib.ones(2, 3)),
    ("1-d", lambda lib: lib.ones(3)),
    ("0-d", lambda lib: lib.tensor(1.0)),
    ("half", lambda lib: lib.ones(3, 3, dtype=lib.float16)),
    ("half 2x3", lambda lib: lib.ones(2, 3, dtype=lib.float16)),
    ("half 1-d", lambda lib: lib.ones(3, dtype=lib.float16)),
    ("int64", lambda lib: lib.ones(3, 3, dtype=lib.int64)),
    ("int64 1-d", lambda lib: lib.ones(3, dtype=lib.int64)),
    ("int32 empty", lambda lib: lib.ones(0, 0, dtype=lib.int32)),
    ("int8", lambda lib: lib.ones(2, 2, dtype=lib.int8)),
    ("uint8", lambda lib: lib.ones(2, 2, dtype=lib.uint8)),
    ("uint16", lambda lib: lib.ones(2, 2, dtype=lib.uint16)),
    ("bool", lambda lib: lib.ones(2, 2, dtype=lib.bool)),
    ("nan", lambda lib: lib.full((3, 3), float("nan"))),
    ("inf complex", lambda lib: lib.full((2, 2), float("inf"), dtype=lib.complex128)),
]


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return type(error).__name__, str(error).splitlines()[0]
    return None


@pytest.mark.parametrize("case", BAD, ids=[case[0] for case in BAD])
def test_errors_match_torch(case):
    _, build = case
    theirs = _error(lambda: torch.linalg.eig(build(torch)))
    assert theirs is not None
    assert _error(lambda: leafgrad.linalg.eig(build(leafgrad))) == theirs
    if case[0] in ("nan", "inf complex"):
        return  # torch's eigvals crashes on them: test_eigvals_of_non_finite
    theirs = _error(lambda: torch.linalg.eigvals(build(torch)))
    assert theirs is not None
    assert _error(lambda: leafgrad.linalg.eigvals(build(leafgrad))) == theirs


def test_eigvals_of_non_finite():
    """torch 2.13's eigvals checks for infs and NaNs only when a gradient is needed (it then
    runs eig); without one it hands them to LAPACK and crashes. leafgrad raises eig's error."""
    theirs = _error(lambda: torch.linalg.eigvals(torch.full((2, 2), float("nan"),
                                                            requires_grad=True)))
    expected = ("RuntimeError", "torch.linalg.eig: input tensor should not contain infs or NaNs.")
    assert theirs == expected
    for requires_grad in (True, False):
        nan = leafgrad.full((2, 2), float("nan"), requires_grad=requires_grad)
        assert _error(lambda: leafgrad.linalg.eigvals(nan)) == expected
    assert _error(lambda: leafgrad.linalg.eigvals(leafgrad.full((2, 2), float("inf")))) == expected


def test_removed_torch_eig_raises_torch_message():
    """torch.eig was removed in 1.9; torch 2.13 keeps torch.eig and Tensor.eig to raise a
    message pointing to linalg.eig/eigvals (the whole text is compared)."""
    for call in (lambda lib: lib.eig(lib.ones(2, 2)),
                 lambda lib: lib.ones(2, 2).eig(eigenvectors=True),
                 lambda lib: lib.eig(lib.ones(2, 2), True, e=None, v=None)):
        outcomes = []
        for lib in (leafgrad, torch):
            with pytest.raises(RuntimeError) as error:
                call(lib)
            outcomes.append(str(error.value))
        assert outcomes[0] == outcomes[1]
        assert outcomes[0].startswith("This function was deprecated since version 1.9")


def test_call_forms():
    a = _array((3, 3), "float64", seed=5)
    ours = leafgrad.tensor(a)
    expected = leafgrad.linalg.eig(ours)
    for result in (leafgrad.linalg.eig(A=ours), leafgrad.linalg.eig(ours.mT.mT)):
        for x, y in zip(result, expected, strict=True):
            np.testing.assert_array_equal(x.numpy(), y.numpy())
    np.testing.assert_array_equal(leafgrad.linalg.eigvals(A=ours).numpy(),
                                  expected.eigenvalues.numpy())


@pytest.mark.parametrize("out_dtypes", [("complex128", "complex128"), ("complex64", "complex128"),
                                        ("complex128", "complex64"), ("complex64", "complex64")])
def test_out_matches_torch(out_dtypes):
    a = _array((2, 3, 3), "float64", seed=6)
    results = []
    for lib in (leafgrad, torch):
        values = lib.empty(0, dtype=getattr(lib, out_dtypes[0]))
        vectors = lib.empty(0, dtype=getattr(lib, out_dtypes[1]))
        result = lib.linalg.eig(lib.tensor(a), out=(values, vectors))
        assert type(result).__name__ == "linalg_eig_out"
        assert result[0] is values and result[1] is vectors
        results.append((values, vectors))
    (values, vectors), (t_values, t_vectors) = results
    assert values.dtype == getattr(leafgrad, out_dtypes[0])
    assert vectors.dtype == getattr(leafgrad, out_dtypes[1])
    assert tuple(values.shape) == tuple(t_values.shape)
    assert tuple(vectors.shape) == tuple(t_vectors.shape)
    expected = leafgrad.linalg.eig(leafgrad.tensor(a))
    np.testing.assert_allclose(values.numpy(), expected[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(vectors.numpy(), expected[1].numpy(), rtol=1e-6, atol=1e-7)
    for lib in (leafgrad, torch):
        out = lib.empty(0, dtype=getattr(lib, out_dtypes[0]))
        assert lib.linalg.eigvals(lib.tensor(a), out=out) is out
        assert tuple(out.shape) == (2, 3)
        np.testing.assert_allclose(out.numpy(), expected[0].numpy(), rtol=1e-6)


def _out_error(lib, a, out):
    try:
        if isinstance(out, tuple):
            lib.linalg.eig(a, out=out)
        else:
            lib.linalg.eigvals(a, out=out)
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return None


@pytest.mark.parametrize("case", ["values float", "vectors float", "both float", "eigvals float",
                                  "eigvals int", "requires grad", "out requires grad",
                                  "eigvals out requires grad", "eigvals both require grad"])
def test_out_errors_match_torch(case):
    a = _array((3, 3), "float64", seed=7)
    errors = []
    for lib in (leafgrad, torch):
        c, f = lib.complex128, lib.float64
        dtypes = {"values float": (f, c), "vectors float": (c, f), "both float": (f, f),
                  "requires grad": (c, c), "out requires grad": (c, c)}
        x = lib.tensor(a, requires_grad=case in ("requires grad", "eigvals both require grad"))
        if case.startswith("eigvals"):
            dtype = {"eigvals float": f, "eigvals int": lib.int64}.get(case, c)
            wants_grad = case in ("eigvals out requires grad", "eigvals both require grad")
            out = lib.full((2,), 7.0, dtype=dtype, requires_grad=wants_grad)
        else:
            out = tuple(lib.full((2,), 7.0, dtype=d) for d in dtypes[case])
            if case == "out requires grad":
                out[0].requires_grad_()
        outs = out if isinstance(out, tuple) else (out,)
        versions = [t._version for t in (out if isinstance(out, tuple) else (out,))]
        errors.append(_out_error(lib, x, out))
        # nothing was written
        for t, version in zip(out if isinstance(out, tuple) else (out,), versions, strict=True):
            assert t._version == version and tuple(t.shape) == (2,)
            np.testing.assert_array_equal(t.detach().numpy(), 7.0)
    assert errors[0] is not None and errors[0] == errors[1]


def test_eigvals_out_with_grad_records_not_implemented():
    """torch's eigvals(out=) takes an input that requires grad: out gets the values and a node
    named NotImplemented whose backward raises; out itself must not require grad."""
    a = _array((3, 3), "float64", seed=8)
    outcomes = []
    for lib in (leafgrad, torch):
        x = lib.tensor(a, requires_grad=True)
        out = lib.empty(0, dtype=lib.complex128)
        assert lib.linalg.eigvals(x, out=out) is out
        node = out.grad_fn
        assert out.requires_grad and not out.is_leaf and out._version == 1
        assert node.next_functions[0][0].variable is x and len(node.next_functions) == 1
        outcomes.append((type(node).__name__, node.name(), out.detach().numpy().copy(),
                         _error(lambda: out.abs().sum().backward())))
        with lib.no_grad():
            quiet = lib.empty(0, dtype=lib.complex128)
            lib.linalg.eigvals(x, out=quiet)
            assert not quiet.requires_grad
    assert outcomes[0][:2] == outcomes[1][:2] == ("NotImplemented",
                                                  "torch::autograd::NotImplemented")
    assert outcomes[0][3] == outcomes[1][3] == (
        "RuntimeError", "derivative for aten::linalg_eigvals is not implemented")
    np.testing.assert_allclose(outcomes[0][2], outcomes[1][2], rtol=1e-12)


def test_out_resize_warning_matches_torch():
    a = _array((3, 3), "float64", seed=9)
    messages = []
    for lib in (leafgrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.linalg.eigvals(lib.tensor(a), out=lib.empty(2, dtype=lib.complex128))
        # torch's text ends with where its C++ raised it: "(Triggered internally at ...)"
        messages.append([str(w.message).split(" (Triggered internally")[0] for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_graph_matches_torch():
    a = _array((3, 3), "float64", seed=10)
    ours, theirs = _both(a, requires_grad=True)
    for lib, x in ((leafgrad, ours), (torch, theirs)):
        values, vectors = lib.linalg.eig(x)
        assert type(values.grad_fn).__name__ == "LinalgEigBackward0"
        assert values.grad_fn is vectors.grad_fn
        assert type(lib.linalg.eigvals(x).grad_fn).__name__ == "LinalgEigBackward0"
        assert lib.linalg.eigvals(x.detach()).grad_fn is None
        node = values.grad_fn
        assert type(node.next_functions[0][0]).__name__ == "AccumulateGrad"
        assert node.next_functions[0][0].variable is x
        np.testing.assert_array_equal(node._saved_eigenvalues.detach().numpy(),
                                      values.detach().numpy())
        assert node._saved_eigenvectors.shape == vectors.shape
    with leafgrad.no_grad():
        assert leafgrad.linalg.eig(ours)[0].grad_fn is None


# Losses that do not depend on the eigenvectors' phases (nor on the eigenvalues' order).
def _values_only(lib, a):
    values = lib.linalg.eigvals(a)
    return (values * values).real.sum() + values.abs().sum()


def _eig_values_only(lib, a):
    values = lib.linalg.eig(a).eigenvalues
    return (values.real ** 3).sum() + values.imag.abs().sum()


def _vectors_only(lib, a):
    vectors = lib.linalg.eig(a).eigenvectors
    return (vectors.abs() ** 3).sum()


def _both_outputs(lib, a):
    values, vectors = lib.linalg.eig(a)
    product = (vectors * values.unsqueeze(-2)) @ vectors.mH  # phases cancel column by column
    weighted = vectors.abs() * values.abs().unsqueeze(-2)
    return lib.view_as_real(product).pow(2).sum() + weighted.sum()


LOSSES = [_values_only, _eig_values_only, _vectors_only, _both_outputs]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("loss", LOSSES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)], ids=str)
def test_gradients_match_torch(dtype, loss, shape):
    a = _array(shape, dtype, seed=11 + shape[-1])
    ours, theirs = _both(a, requires_grad=True)
    loss(leafgrad, ours).backward()
    loss(torch, theirs).backward()
    assert ours.grad.dtype == ours.dtype
    tol = 2e-3 if dtype in ("float32", "complex64") else 1e-9
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("loss", LOSSES, ids=lambda f: f.__name__)
def test_gradcheck(dtype, loss):
    a = leafgrad.tensor(_array((3, 3), dtype, seed=13), requires_grad=True)
    assert gradcheck(lambda x: loss(leafgrad, x), (a,))
    assert gradgradcheck(lambda x: loss(leafgrad, x), (a,))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradcheck_outputs(dtype):
    """Every output element (through phase-invariant maps) and a batch."""
    a = leafgrad.tensor(_array((2, 3, 3), dtype, seed=14), requires_grad=True)

    def outputs(x):
        values, vectors = leafgrad.linalg.eig(x)
        return leafgrad.view_as_real(values), vectors.abs()

    assert gradcheck(outputs, (a,))
    assert gradgradcheck(outputs, (a,))


def test_double_backward_matches_torch():
    a = _array((3, 3), "float64", seed=15)
    ours, theirs = _both(a, requires_grad=True)
    results = []
    for lib, x in ((leafgrad, ours), (torch, theirs)):
        (grad,) = lib.autograd.grad(_both_outputs(lib, x), x, create_graph=True)
        (grad * grad).sum().backward()
        results.append((grad.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("loss", [lambda lib, v: v.real.sum(), lambda lib, v: v.imag.sum(),
                                  lambda lib, v: v[..., -1, :].imag.sum()],
                         ids=["real", "imag", "last row"])
def test_phase_dependent_loss_raises_torch_error(dtype, loss):
    # a real matrix with a complex pair of eigenvalues: its eigenvectors have phases too (a
    # real eigenvector's is a sign, which no real part can detect)
    a = np.array([[0.0, -2.0, 0.1], [1.0, 0.3, 0.0], [0.2, 0.1, 1.0]]) if dtype == "float64" \
        else _array((3, 3), dtype, seed=16)
    ours, theirs = _both(a, requires_grad=True)
    theirs_error = _error(lambda: loss(torch, torch.linalg.eig(theirs)[1]).backward())
    assert theirs_error == (
        "RuntimeError", "linalg_eig_backward: The eigenvectors in the complex case are specified "
        "up to multiplication by e^{i phi}. The specified loss function depends on this "
        "quantity, so it is ill-defined.")
    assert _error(lambda: loss(leafgrad, leafgrad.linalg.eig(ours)[1]).backward()) == theirs_error
    assert ours.grad is None


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_forward_mode_matches_torch(dtype):
    a = _array((2, 4, 4), dtype, seed=17)
    tangent = _array(a.shape, dtype, seed=18)
    results = []
    for lib in (leafgrad, torch):
        forward_ad = lib.autograd.forward_ad
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(lib.tensor(a), lib.tensor(tangent))
            values, vectors = lib.linalg.eig(dual)
            # (V^H V).real's diagonal holds the column norms: checks the normalisation term
            outputs = (lib.view_as_real(values), vectors.abs(), (vectors.mH @ vectors).real.abs(),
                       lib.view_as_real(lib.linalg.eigvals(dual)))
            results.append([forward_ad.unpack_dual(o).tangent.numpy() for o in outputs])
    for mine, theirs in zip(*results, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-10)


def test_vmap_matches_loop():
    a = leafgrad.tensor(_array((3, 4, 4), "float64", seed=19))
    batched = leafgrad.func.vmap(lambda x: leafgrad.linalg.eigvals(x))(a)
    looped = leafgrad.stack([leafgrad.linalg.eigvals(x) for x in a])
    np.testing.assert_array_equal(batched.numpy(), looped.numpy())


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)], ids=str)
def test_empty_backward(shape):
    for lib in (leafgrad, torch):
        a = lib.zeros(shape, dtype=lib.float64, requires_grad=True)
        values, vectors = lib.linalg.eig(a)
        (values.abs().sum() + vectors.abs().sum()).backward()
        assert tuple(a.grad.shape) == shape and a.grad.dtype == lib.float64


def test_repeated_eigenvalues_and_1x1_like_torch():
    """Repeated eigenvalues: the eigenvector gradient divides by zero gaps, NaN as in torch
    (without NumPy warnings); a 1x1 matrix has no gaps at all."""
    results = []
    for lib in (leafgrad, torch):
        grads = []
        for a in (lib.eye(3, dtype=lib.float64), lib.tensor([[2.0]], dtype=lib.float64)):
            a.requires_grad_()
            values, vectors = lib.linalg.eig(a)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                (vectors.abs().sum() + values.real.sum()).backward()
            grads.append(a.grad.numpy())
        results.append(grads)
    for mine, theirs in zip(*results, strict=True):
        np.testing.assert_array_equal(mine, theirs)
