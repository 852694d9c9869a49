"""Linear algebra beyond the op table: composites, factors, errors, named tuples, edge cases.

Composites (outer, kron, einsum, tensordot, matrix norms, matrix_power, ...) have no op of their
own, so the op table cannot hold them; ``COMPOSITES`` runs the same checks on them: values,
dtype, shape and grad_fn name equal torch's, gradients equal torch's, gradcheck and
gradgradcheck pass. Factorizations are compared with torch directly (up to the sign of each
singular/eigen vector and Householder reflection).
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck

from .._torch import require_torch
from .samples import Sample, values
from .samples_linalg import _regular, _spd

torch = require_torch()

A, W = "any", "away0"
INF = float("inf")


def _usv_old(lib, a, some=True):
    u, s, v = lib.svd(a, some=some)
    k = s.shape[-1]
    return u[..., :k] @ lib.diag_embed(s) @ v[..., :k].mT


COMPOSITES = {
    "outer": Sample(lambda lib, a, b: lib.outer(a, b), (((3,), A), ((4,), A))),
    "ger-noncontiguous": Sample(lambda lib, a, b: a[::2].ger(b), (((6,), A), ((2,), A))),
    "kron-2d": Sample(lambda lib, a, b: lib.kron(a, b), (((2, 2), A), ((2, 3), A))),
    "kron-1d": Sample(lambda lib, a, b: a.kron(b), (((3,), A), ((2,), A))),
    "kron-0d": Sample(lambda lib, a, b: lib.kron(a, b), (((), A), ((2, 2), A))),
    "kron-3d-2d": Sample(lambda lib, a, b: lib.kron(a, b), (((2, 2, 2), A), ((3, 1), A))),
    "einsum-mm": Sample(lambda lib, a, b: lib.einsum("ij,jk->ik", a, b),
                        (((2, 3), A), ((3, 4), A))),
    "einsum-implicit": Sample(lambda lib, a, b: lib.einsum("ij,jk", a, b),
                              (((2, 3), A), ((3, 4), A))),
    "einsum-bmm": Sample(lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b),
                         (((2, 2, 3), A), ((2, 3, 4), A))),
    "einsum-dot": Sample(lambda lib, a, b: lib.einsum("i,i->", a, b), (((3,), A), ((3,), A))),
    "einsum-outer": Sample(lambda lib, a, b: lib.einsum("i,j->ij", a, b),
                           (((3,), A), ((2,), A))),
    "einsum-diagonal": Sample(lambda lib, a: lib.einsum("ii->i", a), (((3, 3), A),)),
    "einsum-trace": Sample(lambda lib, a: lib.einsum("ii", a), (((3, 3), A),)),
    "einsum-transpose": Sample(lambda lib, a: lib.einsum("ij->ji", a), (((2, 3), A),)),
    "einsum-sum": Sample(lambda lib, a: lib.einsum("ij->", a), (((2, 3), A),)),
    "einsum-colsum": Sample(lambda lib, a: lib.einsum("ij->j", a), (((2, 3), A),)),
    "einsum-rowdot": Sample(lambda lib, a, b: lib.einsum("ij,ij->i", a, b),
                            (((2, 3), A), ((2, 3), A))),
    "einsum-mul": Sample(lambda lib, a, b: lib.einsum("ij,ij->ij", a, b),
                         (((2, 3), A), ((2, 3), A))),
    "einsum-broadcast-1": Sample(lambda lib, a, b: lib.einsum("ij,ij->i", a, b),
                                 (((2, 1), A), ((2, 4), A))),
    "einsum-ellipsis": Sample(lambda lib, a, b: lib.einsum("...ij,jk->...ik", a, b),
                              (((2, 3, 4), A), ((4, 2), A))),
    "einsum-ellipsis-broadcast": Sample(lambda lib, a, b: lib.einsum("...ij,...jk", a, b),
                                        (((2, 1, 3, 4), A), ((3, 4, 2), A))),
    "einsum-batch-diagonal": Sample(lambda lib, a: lib.einsum("bii->bi", a),
                                    (((2, 3, 3), A),)),
    "einsum-three": Sample(lambda lib, a, b, c: lib.einsum("ij,jk,kl->il", a, b, c),
                           (((2, 3), A), ((3, 4), A), ((4, 2), A))),
    "einsum-list": Sample(lambda lib, a, b: lib.einsum("ij,jk", [a, b]),
                          (((2, 3), A), ((3, 4), A))),
    "einsum-sublist": Sample(lambda lib, a, b: lib.einsum(a, [0, 1], b, [1, 2], [0, 2]),
                             (((2, 3), A), ((3, 4), A))),
    "einsum-mixed-contraction": Sample(lambda lib, a, b: lib.einsum("ijk,ikl->jl", a, b),
                                       (((2, 3, 4), A), ((2, 4, 2), A))),
    "tensordot-2": Sample(lambda lib, a, b: lib.tensordot(a, b),
                          (((2, 3, 4), A), ((3, 4, 5), A))),
    "tensordot-lists": Sample(lambda lib, a, b: lib.tensordot(a, b, dims=([1, 0], [0, 1])),
                              (((2, 3, 4), A), ((3, 2), A))),
    "tensordot-0": Sample(lambda lib, a, b: lib.tensordot(a, b, dims=0),
                          (((2,), A), ((3,), A))),
    "tensordot-noncontiguous": Sample(lambda lib, a, b: lib.tensordot(a.t(), b, dims=1),
                                      (((3, 2), A), ((3, 4), A))),
    "addmm": Sample(lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2),
                    (((2, 4), A), ((2, 3), A), ((3, 4), A))),
    "addmm-method": Sample(lambda lib, c, a, b: c.addmm(a, b), (((4,), A), ((2, 3), A),
                                                             ((3, 4), A))),
    "norm-vector": Sample(lambda lib, a: lib.linalg.norm(a), (((2, 3, 2), A),)),
    "norm-vector-ord": Sample(lambda lib, a: lib.linalg.norm(a, 3), (((4,), A),)),
    "norm-dim": Sample(lambda lib, a: lib.linalg.norm(a, dim=-1, keepdim=True), (((2, 3), A),)),
    "norm-fro": Sample(lambda lib, a: lib.linalg.norm(a, "fro"), (((2, 3), A),)),
    "norm-spectral": Sample(lambda lib, a: lib.linalg.norm(a, 2), (((3, 2), A),)),
    "norm-matrix-dims": Sample(lambda lib, a: lib.linalg.norm(a, 1, dim=(0, 2)),
                               (((2, 3, 4), W),)),
    "vector-norm": Sample(lambda lib, a: lib.linalg.vector_norm(a, INF, dim=(0, 1)),
                          (((2, 3), A),)),
    "matrix-norm-fro": Sample(lambda lib, a: lib.linalg.matrix_norm(a, dim=(0, 2), keepdim=True),
                              (((2, 3, 4), A),)),
    "matrix-norm-nuc": Sample(lambda lib, a: lib.linalg.matrix_norm(a, "nuc"), (((3, 4), A),)),
    "matrix-norm-nuc-keepdim": Sample(
        lambda lib, a: lib.linalg.matrix_norm(a, "nuc", dim=(0, 2), keepdim=True),
        (((2, 3, 4), A),)),
    "matrix-norm-2": Sample(lambda lib, a: lib.linalg.matrix_norm(a, 2), (((2, 3, 4), A),)),
    "matrix-norm--2": Sample(lambda lib, a: lib.linalg.matrix_norm(a, -2), (((4, 3), A),)),
    "matrix-norm-1": Sample(lambda lib, a: lib.linalg.matrix_norm(a, 1), (((3, 4), W),)),
    "matrix-norm--1-keepdim": Sample(lambda lib, a: lib.linalg.matrix_norm(a, -1, keepdim=True),
                                     (((2, 3, 4), W),)),
    "matrix-norm-inf": Sample(lambda lib, a: lib.linalg.matrix_norm(a, INF, dim=(0, 2)),
                              (((3, 2, 4), W),)),
    "matrix-norm--inf": Sample(lambda lib, a: lib.linalg.matrix_norm(a, -INF), (((3, 4), W),)),
    "matrix-power-0": Sample(lambda lib, a: lib.linalg.matrix_power(a, 0), (((2, 3, 3), A),)),
    "matrix-power-1": Sample(lambda lib, a: a.matrix_power(1), (((3, 3), A),)),
    "matrix-power-2": Sample(lambda lib, a: lib.matrix_power(a, 2), (((3, 3), A),)),
    "matrix-power-3": Sample(lambda lib, a: lib.linalg.matrix_power(a, 3), (((2, 3, 3), A),)),
    "matrix-power-5": Sample(lambda lib, a: lib.linalg.matrix_power(a, 5), (((2, 2), A),)),
    "matrix-power--1": Sample(lambda lib, a: lib.linalg.matrix_power(_regular(lib, a), -1),
                              (((3, 3), A),)),
    "matrix-power--3": Sample(lambda lib, a: lib.linalg.matrix_power(_regular(lib, a), -3),
                              (((2, 3, 3), A),)),
    "logdet": Sample(lambda lib, a: lib.logdet(_spd(lib, a)), (((3, 3), A),)),
    "logdet-method": Sample(lambda lib, a: _spd(lib, a).logdet(), (((2, 3, 3), A),)),
    "slogdet-method": Sample(lambda lib, a: _regular(lib, a).slogdet().logabsdet,
                             (((3, 3), A),)),
    "svd-old": Sample(lambda lib, a: _usv_old(lib, a), (((4, 3), A),)),
    "svd-old-full": Sample(lambda lib, a: _usv_old(lib, a, some=False), (((3, 2), A),)),
    "svd-method": Sample(lambda lib, a: a.svd().S, (((2, 3), A),)),
    "pinverse-method": Sample(lambda lib, a: a.pinverse(), (((3, 2), A),)),
    "diag-then-trace": Sample(lambda lib, a: lib.diag(lib.diag(a)).trace(), (((3, 3), A),)),
}


def _inputs(name: str, sample: Sample):
    rng = np.random.default_rng(sum(map(ord, name)))
    arrays = [values(shape, domain, rng) for shape, domain in sample.shapes]
    ours = [leafgrad.tensor(a, dtype=leafgrad.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    return ours, theirs


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_matches_torch(name):
    sample = COMPOSITES[name]
    ours, theirs = _inputs(name, sample)
    out = sample.call(leafgrad, *ours)
    expected = sample.call(torch, *theirs)
    assert tuple(out.shape) == tuple(expected.shape)
    assert str(out.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    assert out.grad_fn.name() == expected.grad_fn.name()
    grad_out = np.random.default_rng(1).normal(size=tuple(expected.shape))
    grads = leafgrad.autograd.grad(out, ours, leafgrad.tensor(grad_out), allow_unused=True)
    expected_grads = torch.autograd.grad(expected, theirs, torch.tensor(grad_out),
                                         allow_unused=True)
    for got, want in zip(grads, expected_grads):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_gradcheck(name):
    sample = COMPOSITES[name]
    ours, _ = _inputs(name, sample)
    function = lambda *xs: sample.call(leafgrad, *xs)  # noqa: E731
    assert gradcheck(function, ours, eps=1e-6, atol=1e-5)
    assert gradgradcheck(function, ours, eps=1e-6, atol=1e-5)


# -- factors compared with torch ------------------------------------------------------------------


def _pair(shape, seed=0, transform=None):
    array = np.random.default_rng(seed).normal(size=shape)
    if transform is not None:
        array = transform(array)
    return leafgrad.tensor(array), torch.tensor(array)


def _sym_array(a):
    return a + np.swapaxes(a, -1, -2)


def _spd_array(a):
    return a @ np.swapaxes(a, -1, -2) + 3 * np.eye(a.shape[-1])


def _close(ours, theirs, **options):
    options = {"rtol": 1e-10, "atol": 1e-12, **options}
    np.testing.assert_allclose(np.asarray(ours), theirs.detach().numpy(), **options)


def _column_signs(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """+-1 per column making our vectors point the way torch's do."""
    signs = np.sign(np.sum(ours * theirs, axis=-2, keepdims=True))
    signs[signs == 0] = 1
    return signs


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3), (0, 2)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_factors(shape, mode):
    ours, theirs = _pair(shape)
    q, r = leafgrad.linalg.qr(ours, mode=mode)
    tq, tr = torch.linalg.qr(theirs, mode=mode)
    assert q.shape == tuple(tq.shape) and r.shape == tuple(tr.shape)
    k = min(shape[-2:])
    signs = _column_signs(q.numpy()[..., :k], tq.numpy()[..., :k])
    _close(q.numpy()[..., :k] * signs, tq[..., :k])
    _close(r.numpy()[..., :k, :] * np.swapaxes(signs, -1, -2), tr[..., :k, :])
    _close((q @ r).numpy(), theirs)


def test_qr_mode_r():
    ours, theirs = _pair((4, 3))
    q, r = leafgrad.linalg.qr(ours, mode="r")
    tq, tr = torch.linalg.qr(theirs, mode="r")
    assert q.shape == tuple(tq.shape) == (0,)
    _close(np.abs(r.numpy()), tr.abs())


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_factors(shape, full_matrices):
    ours, theirs = _pair(shape, seed=1)
    u, s, vh = leafgrad.linalg.svd(ours, full_matrices=full_matrices)
    tu, ts, tvh = torch.linalg.svd(theirs, full_matrices=full_matrices)
    assert (u.shape, s.shape, vh.shape) == (tuple(tu.shape), tuple(ts.shape), tuple(tvh.shape))
    _close(s.numpy(), ts)
    k = s.shape[-1]
    signs = _column_signs(u.numpy()[..., :k], tu.numpy()[..., :k])
    _close(u.numpy()[..., :k] * signs, tu[..., :k])
    _close(vh.numpy()[..., :k, :] * np.swapaxes(signs, -1, -2), tvh[..., :k, :])
    _close(leafgrad.linalg.svdvals(ours).numpy(), torch.linalg.svdvals(theirs))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_factors(uplo):
    ours, theirs = _pair((2, 4, 4), seed=2)  # not symmetric: only the UPLO triangle is read
    w, v = leafgrad.linalg.eigh(ours, UPLO=uplo)
    tw, tv = torch.linalg.eigh(theirs, UPLO=uplo)
    _close(w.numpy(), tw)
    _close(v.numpy() * _column_signs(v.numpy(), tv.numpy()), tv)
    _close(leafgrad.linalg.eigvalsh(ours, UPLO=uplo).numpy(), torch.linalg.eigvalsh(theirs, uplo))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_factor(upper):
    ours, theirs = _pair((2, 3, 3), seed=3, transform=_spd_array)
    _close(leafgrad.linalg.cholesky(ours, upper=upper).numpy(),
           torch.linalg.cholesky(theirs, upper=upper))
    # Only one triangle is read: the lower one, or the upper one with upper=True.
    lopsided = np.array([[4.0, 1.0, 0.5], [2.0, 5.0, 0.3], [0.1, 0.7, 6.0]])
    _close(leafgrad.linalg.cholesky(leafgrad.tensor(lopsided), upper=upper).numpy(),
           torch.linalg.cholesky(torch.tensor(lopsided), upper=upper))


def test_solve_triangular_with_zero_on_the_diagonal():
    matrix, rhs = [[1.0, 0.0], [2.0, 0.0]], [[1.0], [1.0]]
    for upper in (False, True):
        ours = leafgrad.linalg.solve_triangular(leafgrad.tensor(matrix), leafgrad.tensor(rhs),
                                                upper=upper)
        theirs = torch.linalg.solve_triangular(torch.tensor(matrix), torch.tensor(rhs),
                                               upper=upper)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("call", [
    "lib.linalg.inv(x)", "lib.linalg.det(x)", "lib.linalg.slogdet(x).logabsdet",
    "lib.linalg.svdvals(x)", "lib.linalg.eigvalsh(x + x.mT)", "lib.linalg.pinv(x)",
    "lib.linalg.solve(x, x[..., 0])", "lib.linalg.matrix_norm(x, 'nuc')",
])
def test_float32_stays_float32(call):
    array = np.random.default_rng(4).normal(size=(2, 3, 3)) + 3 * np.eye(3)
    ours = eval(call, {"lib": leafgrad, "x": leafgrad.tensor(array, dtype=leafgrad.float32)})
    theirs = eval(call, {"lib": torch, "x": torch.tensor(array, dtype=torch.float32)})
    assert ours.dtype == leafgrad.float32
    _close(ours.numpy(), theirs, rtol=1e-4, atol=1e-5)


# -- gradients torch defines by convention --------------------------------------------------------


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("matrix", [[[1.0, 2.0], [2.0, 4.0]], [[0.0, 1.0], [0.0, 0.0]]])
def test_det_gradient_of_singular_matrix(matrix, create_graph):
    ours = leafgrad.tensor(matrix, dtype=leafgrad.float64, requires_grad=True)
    theirs = torch.tensor(matrix, dtype=torch.float64, requires_grad=True)
    (got,) = leafgrad.autograd.grad(leafgrad.linalg.det(ours), ours, create_graph=create_graph)
    (want,) = torch.autograd.grad(torch.linalg.det(theirs), theirs, create_graph=create_graph)
    _close(got.detach().numpy(), want)
    assert got.requires_grad == want.requires_grad


def test_slogdet_sign_has_no_gradient():
    ours = leafgrad.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    theirs = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    leafgrad.linalg.slogdet(ours).sign.sum().backward()
    torch.linalg.slogdet(theirs).sign.sum().backward()
    assert (ours.grad is None) == (theirs.grad is None)


def test_factor_outputs_saved_for_double_backward():
    # The backward of svd uses U, S, Vh; differentiating it again must go through svd again.
    rng = np.random.default_rng(5)
    array = rng.normal(size=(3, 3))
    ours = leafgrad.tensor(array, requires_grad=True)
    theirs = torch.tensor(array, requires_grad=True)
    results = []
    for lib, x in ((leafgrad, ours), (torch, theirs)):
        u, s, vh = lib.linalg.svd(x)
        (g,) = lib.autograd.grad((u[:, :1] * vh[:1].mT).sum() + s.prod(), x, create_graph=True)
        results.append(lib.autograd.grad((g * g).sum(), x)[0])
    _close(results[0].numpy(), results[1])


# -- named tuples, errors, dtypes, in place --------------------------------------------------------


@pytest.mark.parametrize("call", [
    "lib.linalg.slogdet(x)", "lib.slogdet(x)", "x.slogdet()", "lib.linalg.qr(x)",
    "lib.linalg.eigh(x + x.mT)", "lib.linalg.svd(x, full_matrices=False)", "lib.svd(x)",
])
def test_named_tuple_repr(call):
    array = np.array([[2.0, 1.0], [0.5, 3.0]])
    ours = eval(call, {"lib": leafgrad, "x": leafgrad.tensor(array, requires_grad=True)})
    theirs = eval(call, {"lib": torch, "x": torch.tensor(array, requires_grad=True)})
    assert type(ours).__name__ == type(theirs).__name__
    assert ours.n_fields == theirs.n_fields and tuple(ours) == tuple(ours[:])
    if "svd" in call or "eigh" in call or "qr" in call:
        # factors are compared up to sign: print their absolute values
        ours = type(ours)([t.abs() for t in ours])
        theirs = type(theirs)([t.abs() for t in theirs])
    assert repr(ours).replace("leafgrad.", "torch.") == repr(theirs)


def test_linalg_error_type():
    assert issubclass(leafgrad.linalg.LinAlgError, RuntimeError)
    with pytest.raises(leafgrad.linalg.LinAlgError) as ours:
        leafgrad.linalg.inv(leafgrad.zeros(2, 2))
    with pytest.raises(torch.linalg.LinAlgError) as theirs:
        torch.linalg.inv(torch.zeros(2, 2))
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value) == str(theirs.value)


ERROR_PROGRAMS = [
    "lib.linalg.inv(r23)", "lib.linalg.inv(i22)", "lib.linalg.inv(v3)", "lib.linalg.inv(sing2)",
    "lib.linalg.inv(sing3)", "lib.linalg.inv(lib.stack([lib.eye(2), sing2]))",
    "lib.inverse(r23)", "r23.inverse()", "lib.linalg.det(r23)", "lib.linalg.det(i22)",
    "lib.det(r23)", "lib.linalg.slogdet(r23)", "lib.linalg.slogdet(i22)", "lib.logdet(r23)",
    "lib.linalg.solve(r23, v3)", "lib.linalg.solve(sing2, lib.ones(2))",
    "lib.linalg.solve(lib.stack([lib.eye(2), sing2]), lib.ones(2, 2))",
    "lib.linalg.solve(i22, i22)", "lib.linalg.solve(lib.eye(2), lib.ones(2).double())",
    "lib.linalg.solve(lib.eye(2), v3)", "lib.linalg.solve(lib.eye(2), lib.ones(3, 2))",
    "lib.linalg.solve(lib.eye(2).expand(3, 2, 2), lib.ones(4, 2, 1))",
    "lib.linalg.solve(v3, v3)", "lib.linalg.cholesky(lib.tensor([[1., 2.], [2., 1.]]))",
    "lib.linalg.cholesky(lib.tensor([[-1., 0.], [0., 1.]]))",
    "lib.linalg.cholesky(lib.stack([lib.eye(2), lib.tensor([[1., 2.], [2., 1.]])]))",
    "lib.linalg.cholesky(r23)", "lib.linalg.cholesky(i22)", "lib.linalg.qr(i22)",
    "lib.linalg.qr(v3)", "lib.linalg.qr(r23, mode='foo')", "lib.linalg.svd(i22)",
    "lib.linalg.svd(v3)", "lib.linalg.svdvals(i22)", "lib.linalg.eigh(r23)",
    "lib.linalg.eigh(i22)", "lib.linalg.eigh(lib.eye(2), UPLO='X')", "lib.trace(lib.ones(2, 2, 2))",
    "lib.trace(v3)", "lib.trace(i22.bool())", "lib.tril(v3)", "lib.triu(lib.tensor(1.))",
    "v3.tril_()", "lib.diag(lib.ones(2, 2, 2))", "lib.diag(lib.tensor(1.))",
    "lib.diag_embed(lib.tensor(1.))", "lib.diag_embed(v3, dim1=0, dim2=0)",
    "lib.diag_embed(v3, dim1=3)", "lib.outer(r23, v3)", "lib.outer(v3, r23)",
    "lib.linalg.norm(i22)", "lib.linalg.vector_norm(i22)", "lib.linalg.matrix_norm(v3)",
    "lib.linalg.matrix_norm(r23, ord=3)", "lib.linalg.matrix_norm(r23, ord='foo')",
    "lib.linalg.matrix_norm(r23, dim=(0, 0))", "lib.linalg.matrix_norm(r23, dim=(0,))",
    "lib.linalg.norm(lib.ones(2, 2, 2), ord=2)", "lib.linalg.norm(v3, ord='fro')",
    "lib.linalg.norm(r23, dim=(0, 1, 1))",
    "lib.baddbmm(lib.ones(2, 3, 5), lib.ones(2, 3, 4), lib.ones(2, 5, 5))",
    "lib.baddbmm(lib.ones(3, 3, 5), lib.ones(2, 3, 4), lib.ones(2, 4, 5))",
    "lib.baddbmm(lib.ones(5).double(), lib.ones(2, 3, 4), lib.ones(2, 4, 5))",
    "lib.baddbmm(lib.ones(5), lib.ones(3, 4), lib.ones(2, 4, 5))",
    "lib.addmv(lib.ones(3), lib.ones(3, 4), lib.ones(5))",
    "lib.addmv(lib.ones(4), lib.ones(3, 4), lib.ones(4))",
    "lib.addmv(lib.ones(3).double(), lib.ones(3, 4), lib.ones(4))",
    "lib.addmv(lib.ones(3), lib.ones(4), lib.ones(4))",
    "lib.addmm(lib.ones(3, 5), lib.ones(3, 4).double(), lib.ones(4, 5))",
    "lib.addmm(lib.ones(5).double(), lib.ones(3, 4), lib.ones(4, 5))",
    "lib.einsum('ij,jk', lib.ones(2, 2))", "lib.einsum('ijk', lib.ones(2, 2))",
    "lib.einsum('ij,jk', lib.ones(2, 2), lib.ones(3, 2))", "lib.einsum('ij->k', lib.ones(2, 2))",
    "lib.einsum('ij->ii', lib.ones(2, 2))", "lib.einsum('i1->i', lib.ones(2, 2))",
    "lib.einsum('ii->i', r23)", "lib.einsum('ij,jk', r23.double(), lib.ones(3, 4))",
    "lib.einsum('')", "lib.einsum('i,i', v3)",
    "lib.tensordot(r23, lib.ones(4, 5), dims=1)", "lib.tensordot(r23, lib.ones(3, 5), dims=3)",
    "lib.tensordot(r23, lib.ones(3, 5), dims=-1)",
    "lib.tensordot(r23, lib.ones(3, 5), dims=([0, 1], [0]))",
    "lib.tensordot(r23, lib.ones(3, 5).double(), dims=1)",
    "lib.linalg.matrix_power(r23, 2)", "lib.linalg.matrix_power(i22, -1)",
    "lib.linalg.pinv(v3)",
    *(f"lib.{call.replace('X', 'lib.eye(2).half()')}" for call in (
        "linalg.inv(X)", "linalg.det(X)", "linalg.slogdet(X)", "logdet(X)", "linalg.solve(X, X)",
        "linalg.cholesky(X)", "linalg.qr(X)", "linalg.svd(X)", "linalg.svdvals(X)",
        "linalg.eigh(X)", "linalg.pinv(X)", "linalg.solve_triangular(X, X, upper=True)",
    )),
]


def _observe(lib, program):
    names = {
        "lib": lib, "r23": lib.ones(2, 3), "i22": lib.tensor([[1, 2], [3, 4]]),
        "v3": lib.ones(3), "sing2": lib.tensor([[1.0, 2.0], [2.0, 4.0]]),
        "sing3": lib.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [7.0, 8.0, 9.0]]),
    }
    try:
        result = eval(program, names)
    except Exception as error:  # noqa: BLE001 - comparing whatever torch raises
        return ("raised", type(error).__name__, str(error).splitlines()[0])
    return ("returned", tuple(result.shape), str(result.dtype).split(".")[-1])


@pytest.mark.parametrize("program", ERROR_PROGRAMS)
def test_errors_match_torch(program):
    assert _observe(leafgrad, program) == _observe(torch, program)


RESULT_PROGRAMS = [
    "lib.trace(i22.int())", "lib.trace(r23)", "lib.trace(lib.ones(0, 3))", "lib.tril(i22.bool())",
    "lib.diag(i22)", "lib.diag(lib.tensor([1, 2]), 1)", "lib.kron(i22, lib.ones(2))",
    "lib.outer(lib.tensor([1, 2]), lib.ones(2))", "lib.einsum('ij,jk', i22, i22)",
    "lib.addmv(lib.tensor([1, 1]), i22, lib.tensor([1, 2]))",
    "lib.linalg.matrix_power(i22, 3)", "lib.linalg.matrix_power(i22, 0)",
    "lib.linalg.inv(lib.zeros(0, 0))", "lib.linalg.inv(lib.zeros(0, 3, 3))",
    "lib.linalg.det(lib.zeros(0, 0))", "lib.linalg.det(lib.zeros(2, 0, 0))",
    "lib.linalg.det(sing3)", "lib.linalg.slogdet(sing2).logabsdet",
    "lib.linalg.solve(lib.eye(2).expand(3, 2, 2), lib.ones(3, 2))",
    "lib.linalg.solve(lib.eye(2).expand(3, 2, 2), lib.ones(2))",
    "lib.linalg.vector_norm(lib.ones(2, 3), dim=())", "lib.svd(r23, compute_uv=False)[0]",
    "lib.svd(r23.t(), some=True, compute_uv=False)[2]",
    "lib.tensordot(r23, lib.ones(3, 5), dims=lib.tensor(1))",
    "lib.tensordot(lib.ones(2, 1), lib.ones(3, 5), dims=([1], [0]))",
]


def _values(lib, program):
    names = {
        "lib": lib, "r23": lib.ones(2, 3), "i22": lib.tensor([[1, 2], [3, 4]]),
        "sing2": lib.tensor([[1.0, 2.0], [2.0, 4.0]]),
        "sing3": lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
    }
    result = eval(program, names)
    return str(result.dtype).split(".")[-1], tuple(result.shape), np.asarray(result.tolist())


@pytest.mark.parametrize("program", RESULT_PROGRAMS)
def test_results_match_torch(program):
    ours, theirs = _values(leafgrad, program), _values(torch, program)
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode,shape", [("r", (3, 2)), ("complete", (3, 2))])
def test_qr_backward_errors(mode, shape):
    messages = []
    for lib in (leafgrad, torch):
        x = lib.tensor(np.random.default_rng(6).normal(size=shape), requires_grad=True)
        r = lib.linalg.qr(x, mode=mode).R
        with pytest.raises(RuntimeError) as caught:
            r.sum().backward()
        messages.append(str(caught.value).splitlines()[0])
    assert messages[0] == messages[1]


@pytest.mark.parametrize("method", ["tril_", "triu_"])
def test_in_place_triangles(method):
    array = np.arange(12.0).reshape(3, 4)
    for diagonal in (-1, 0, 2):
        ours, theirs = leafgrad.tensor(array), torch.tensor(array)
        version = ours._version
        result = getattr(ours, method)(diagonal)
        assert result is ours and ours._version == version + 1
        getattr(theirs, method)(diagonal)
        _close(ours.numpy(), theirs)
    # On a view of a non-leaf: the base's history becomes CopySlices, gradients as torch's.
    grads, names = [], []
    for lib in (leafgrad, torch):
        x = lib.tensor(array, requires_grad=True)
        y = x * 2
        getattr(y[:, 1:], method)()
        (y * y).sum().backward()
        grads.append(x.grad.numpy())
        names.append(y.grad_fn.name())
    assert names[0] == names[1]
    _close(grads[0], torch.tensor(grads[1]))


def test_no_graph_for_values_only():
    x = leafgrad.ones(2, 3)
    assert leafgrad.linalg.svdvals(x).grad_fn is None
    assert leafgrad.linalg.eigvalsh(leafgrad.eye(2)).grad_fn is None
    with leafgrad.no_grad():
        u, s, _ = leafgrad.linalg.svd(leafgrad.ones(2, 2, requires_grad=True))
    assert not s.requires_grad and u.shape == (2, 2)
