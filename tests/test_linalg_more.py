"""The linalg functions of leafgrad/_linalg_more.py against torch: values, result structure,
errors, gradients (gradcheck and gradgradcheck in float64, and the same gradients as torch)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck

from ._torch import require_torch

torch = require_torch()

RNG = np.random.default_rng(7)
SQUARE = RNG.normal(size=(4, 4)) + 4 * np.eye(4)
BATCH = RNG.normal(size=(2, 3, 3))
TALL = RNG.normal(size=(5, 3))
WIDE = RNG.normal(size=(3, 5))
RHS = RNG.normal(size=(4, 2))
SPD = SQUARE @ SQUARE.T + np.eye(4)
VEC = RNG.normal(size=(4,))


def _plain(value):
    if hasattr(value, "detach") and hasattr(value, "dtype"):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape),
                value.detach().numpy().astype(float))
    if isinstance(value, (tuple, list)):
        return [type(value).__name__.replace("torch", "lib"), *[_plain(v) for v in value]]
    return value


def _same(ours, theirs, rtol=1e-9, atol=1e-10):
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs)
        assert ours[0] == theirs[0]
        for a, b in zip(ours[1:], theirs[1:]):
            _same(a, b, rtol, atol)
        return
    if isinstance(theirs, tuple) and theirs and theirs[0] == "tensor":
        assert ours[:3] == theirs[:3]
        np.testing.assert_allclose(ours[3], theirs[3], rtol=rtol, atol=atol)
        return
    assert ours == theirs


def _run(lib, code, dtype="float64"):
    namespace = {"lib": lib, "np": np}
    for name, array in (("S", SQUARE), ("B", BATCH), ("T", TALL), ("W", WIDE), ("R", RHS),
                        ("P", SPD), ("v", VEC)):
        namespace[name] = lib.tensor(array, dtype=getattr(lib, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _plain(eval(code, namespace))  # noqa: S307 - the cases below
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            return type(error).__name__, str(error).splitlines()[0].replace("leafgrad", "torch")


VALUE_CASES = [
    "lib.linalg.lu_factor(S)", "lib.linalg.lu_factor(B)", "lib.linalg.lu_factor(T)",
    "lib.linalg.lu_factor(W)", "lib.linalg.lu_factor_ex(S)", "lib.linalg.lu(S)",
    "lib.linalg.lu(T)", "lib.linalg.lu(W)", "lib.linalg.lu(B)",
    "lib.linalg.lu_factor(lib.zeros(2, 2))", "lib.linalg.lu_factor_ex(lib.zeros(2, 2))",
    "lib.linalg.lu_factor_ex(lib.zeros(2, 3, 3))[1:]",
    "lib.linalg.lu_factor(lib.eye(2, dtype=lib.int64))", "lib.linalg.lu_factor(S, pivot=False)",
    "lib.linalg.lu_factor(v)",
    "lib.linalg.lu_solve(*lib.linalg.lu_factor(S), R)",
    "lib.linalg.lu_solve(*lib.linalg.lu_factor(S), R, adjoint=True)",
    "lib.linalg.lu_solve(*lib.linalg.lu_factor(S), R.mT, left=False)",
    "lib.linalg.lu_solve(*lib.linalg.lu_factor(S), R.mT, left=False, adjoint=True)",
    "lib.linalg.lu_solve(*lib.linalg.lu_factor(B), B[0])",
    "lib.linalg.lu_solve(*lib.linalg.lu_factor(S), v)", "lib.linalg.lu_factor_ex(v)",
    "lib.linalg.lu(v)",
    "lib.lu_unpack(*lib.linalg.lu_factor(S))", "lib.lu_unpack(*lib.linalg.lu_factor(T))",
    "lib.lu_unpack(*lib.linalg.lu_factor(W))",
    "lib.lu_solve(R, *lib.linalg.lu_factor(S))",
    "lib.linalg.solve_ex(S, R)", "lib.linalg.solve_ex(S, v)", "lib.linalg.inv_ex(S)",
    "lib.linalg.inv_ex(B)", "lib.linalg.cholesky_ex(P)", "lib.linalg.cholesky_ex(P, upper=True)",
    "lib.linalg.inv_ex(lib.zeros(2, 2))[1]", "lib.linalg.solve_ex(lib.zeros(2, 2), lib.ones(2))[1]",
    "lib.linalg.cholesky_ex(-lib.eye(2))[1]", "lib.linalg.cholesky_ex(-lib.eye(2), check_errors=True)",
    "lib.linalg.inv_ex(lib.zeros(2, 2), check_errors=True)",
    "lib.linalg.lstsq(T, R[:, :1].expand(4, 1)[:3].repeat(5, 1)[:5])",
    "lib.linalg.lstsq(T, T[:, :2])", "lib.linalg.lstsq(T, T[:, :2], driver='gelsd')",
    "lib.linalg.lstsq(T, T[:, :2], driver='gelss')", "lib.linalg.lstsq(T, T[:, :2], driver='gels')",
    "lib.linalg.lstsq(W, W[:, :2])", "lib.linalg.lstsq(T, T[:, 0])", "lib.linalg.lstsq(B, B)",
    "lib.linalg.lstsq(T, T[:, :2].float())", "lib.linalg.lstsq(T, T, driver='x')",
    "lib.linalg.matrix_rank(S)", "lib.linalg.matrix_rank(B)", "lib.linalg.matrix_rank(T)",
    "lib.linalg.matrix_rank(lib.ones(3, 3))", "lib.linalg.matrix_rank(S, tol=5.0)",
    "lib.linalg.matrix_rank(S, atol=1.0, rtol=0.5)", "lib.linalg.matrix_rank(P, hermitian=True)",
    "lib.linalg.matrix_rank(S, 5.0)",
    "lib.linalg.multi_dot([S, S])", "lib.linalg.multi_dot([v, S, S])",
    "lib.linalg.multi_dot([S, S, v])", "lib.linalg.multi_dot([v, S, R])",
    "lib.linalg.multi_dot([T.mT, T, W, W.mT, S[:3, :3]])", "lib.linalg.multi_dot([S])",
    "lib.linalg.multi_dot([])", "lib.linalg.multi_dot([S.unsqueeze(0), S])",
    "lib.linalg.multi_dot([S, S[0], S])", "lib.linalg.multi_dot([S, T])",
    "lib.linalg.vecdot(S, S)", "lib.linalg.vecdot(S, v, dim=0)", "lib.linalg.vecdot(S, S.float())",
    "lib.linalg.matrix_exp(S * 0.3)", "lib.linalg.matrix_exp(B)", "lib.linalg.matrix_exp(S * 9)",
    "lib.linalg.matrix_exp(lib.zeros(0, 0))", "lib.linalg.matrix_exp(S[:1, :1])",
    "lib.linalg.matrix_exp(T)", "lib.matrix_exp(S * 0.1)", "(S * 0.1).matrix_exp()",
    "lib.linalg.cond(S)", "lib.linalg.cond(T)", "lib.linalg.cond(S, 'fro')", "lib.linalg.cond(S, 1)",
    "lib.linalg.cond(S, -2)", "lib.linalg.cond(S, float('inf'))", "lib.linalg.cond(T, 1)",
    "lib.linalg.cond(B, 'nuc')",
    "lib.linalg.tensorinv(S.reshape(4, 2, 2), ind=1)", "lib.linalg.tensorinv(S.reshape(2, 2, 4))",
    "lib.linalg.tensorinv(lib.ones(4, 6), ind=1)", "lib.linalg.tensorinv(S, ind=0)",
    "lib.linalg.tensorsolve(S.reshape(2, 2, 2, 2), R[:, 0].reshape(2, 2))",
    "lib.linalg.tensorsolve(S.reshape(2, 2, 4), v.reshape(2, 2))",
    "lib.linalg.tensorsolve(S.reshape(2, 2, 2, 2), R[:, 0].reshape(2, 2), dims=(0,))",
    "lib.linalg.vander(v)", "lib.linalg.vander(v, N=6)", "lib.linalg.vander(B[0])",
    "lib.linalg.vander(v, N=1)", "lib.linalg.vander(lib.tensor([1, 2, 3]))",
    "lib.linalg.vander(lib.tensor(2.0))",
    "lib.linalg.householder_product(T, v[:3])", "lib.linalg.householder_product(T, v[:2])",
    "lib.linalg.householder_product(B, B[:, 0, :2])", "lib.linalg.householder_product(T, v)",
    "lib.linalg.householder_product(W, v[:2])", "lib.linalg.householder_product(T, v[:2].float())",
    "lib.orgqr(T, v[:3])", "T.orgqr(v[:2])", "lib.orgqr(W, v[:2])", "lib.orgqr(T, v[:2].float())",
    "lib.orgqr(*lib.geqrf(T))", "T.geqrf()[0].orgqr(T.geqrf()[1])",
    "lib.cholesky_solve(R, lib.linalg.cholesky(P))",
    "lib.cholesky_solve(R, lib.linalg.cholesky(P, upper=True), upper=True)",
    "lib.cholesky_inverse(lib.linalg.cholesky(P))",
    "lib.cholesky_inverse(lib.linalg.cholesky(P, upper=True), upper=True)",
    "R.cholesky_solve(lib.linalg.cholesky(P))", "lib.linalg.cholesky(P).cholesky_inverse()",
    "lib.triangular_solve(R, S.triu())", "lib.triangular_solve(R, S.tril(), upper=False)",
    "lib.triangular_solve(R, S.triu(), transpose=True)",
    "lib.triangular_solve(R, S.triu(), unitriangular=True)", "R.triangular_solve(S.triu())",
    "lib.qr(S)", "lib.qr(T, some=False)", "T.qr()",
]


@pytest.mark.parametrize("code", VALUE_CASES)
def test_values_match_torch(code):
    _same(_run(leafgrad, code), _run(torch, code))


@pytest.mark.parametrize("code", ["lib.linalg.lu_factor(S)", "lib.linalg.lstsq(T, T[:, :2])",
                                  "lib.linalg.matrix_exp(S * 0.3)", "lib.linalg.lu(S)",
                                  "lib.linalg.multi_dot([v, S, R])"])
def test_float32_values(code):
    _same(_run(leafgrad, code, "float32"), _run(torch, code, "float32"), rtol=2e-5, atol=2e-5)


def _tensor(lib, array, grad=True):
    return lib.tensor(array, dtype=lib.float64, requires_grad=grad)


GRAD_CASES = {
    "lu_factor": (lambda lib, a: lib.linalg.lu_factor(a).LU, [SQUARE]),
    "lu_factor_batch": (lambda lib, a: lib.linalg.lu_factor(a)[0], [BATCH]),
    "lu_factor_tall": (lambda lib, a: lib.linalg.lu_factor(a)[0], [TALL]),
    "lu_factor_wide": (lambda lib, a: lib.linalg.lu_factor(a)[0], [WIDE]),
    "lu_wide_U": (lambda lib, a: lib.linalg.lu(a).U, [WIDE]),
    "lu_tall_L": (lambda lib, a: lib.linalg.lu(a).L, [TALL]),
    "lu_L": (lambda lib, a: lib.linalg.lu(a).L, [SQUARE]),
    "lu_U": (lambda lib, a: lib.linalg.lu(a).U, [SQUARE]),
    "lu_solve": (lambda lib, lu, b: lib.linalg.lu_solve(
        lu, lib.linalg.lu_factor(lib.tensor(SQUARE)).pivots, b), [np.triu(SQUARE) + np.tril(
            SQUARE, -1) * 0.1, RHS]),
    "lu_solve_adjoint_right": (lambda lib, lu, b: lib.linalg.lu_solve(
        lu, lib.linalg.lu_factor(lib.tensor(SQUARE)).pivots, b, left=False, adjoint=True),
        [np.triu(SQUARE) + np.tril(SQUARE, -1) * 0.1, RHS.T]),
    "lstsq": (lambda lib, a, b: lib.linalg.lstsq(a, b).solution, [TALL, TALL[:, :2] + 0.3]),
    "lstsq_wide": (lambda lib, a, b: lib.linalg.lstsq(a, b).solution, [WIDE, WIDE[:, :2]]),
    "multi_dot": (lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]), [VEC, SQUARE, RHS]),
    "multi_dot_4": (lambda lib, a, b, c, d: lib.linalg.multi_dot([a, b, c, d]),
                    [TALL, WIDE, TALL, WIDE]),
    "vecdot": (lambda lib, a, b: lib.linalg.vecdot(a, b), [SQUARE, VEC]),
    "matrix_exp": (lambda lib, a: lib.linalg.matrix_exp(a), [SQUARE * 0.3]),
    "matrix_exp_batch": (lambda lib, a: lib.linalg.matrix_exp(a), [BATCH]),
    "cond": (lambda lib, a: lib.linalg.cond(a), [SQUARE]),
    "cond_fro": (lambda lib, a: lib.linalg.cond(a, "fro"), [SQUARE]),
    "tensorinv": (lambda lib, a: lib.linalg.tensorinv(a.reshape(4, 2, 2), ind=1), [SQUARE]),
    "tensorsolve": (lambda lib, a, b: lib.linalg.tensorsolve(a.reshape(2, 2, 2, 2),
                                                             b.reshape(2, 2)), [SQUARE, VEC]),
    "vander": (lambda lib, a: lib.linalg.vander(a, N=5), [VEC]),
    "householder_product": (lambda lib, a, t: lib.linalg.householder_product(a, t),
                            [TALL, VEC[:3]]),
    "orgqr": (lambda lib, a, t: lib.orgqr(a, t), [TALL, VEC[:3]]),
    "cholesky_solve": (lambda lib, b, low: lib.cholesky_solve(b, low.tril() + 3 * lib.eye(4,
                       dtype=lib.float64)), [RHS, SQUARE]),
    "cholesky_inverse": (lambda lib, up: lib.cholesky_inverse(up.triu() + 3 * lib.eye(
        4, dtype=lib.float64), upper=True), [SQUARE]),
    "triangular_solve": (lambda lib, b, a: lib.triangular_solve(b, a.triu(), transpose=True)[0],
                         [RHS, SQUARE]),
    "solve_ex": (lambda lib, a, b: lib.linalg.solve_ex(a, b).result, [SQUARE, RHS]),
    "inv_ex": (lambda lib, a: lib.linalg.inv_ex(a).inverse, [SQUARE]),
    "cholesky_ex": (lambda lib, a: lib.linalg.cholesky_ex(a @ a.mT + lib.eye(4,
                    dtype=lib.float64)).L, [SQUARE]),
}

# composites whose second derivative is not needed by torch users of these functions and whose
# gradgradcheck through many tiny ops is slow: gradcheck only
FIRST_ORDER_ONLY = {"multi_dot_4"}

# torch 2.13 cannot differentiate linalg.cond for the norms computed through inv: its
# implementation modifies the inverse in place after saving it ("modified by an inplace
# operation"). leafgrad gives the gradient (checked numerically); DESIGN: do better and say so.
TORCH_RAISES = {"cond_fro"}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_torch_and_gradcheck(name):
    function, arrays = GRAD_CASES[name]
    results = []
    for lib in (leafgrad, torch):
        if lib is torch and name in TORCH_RAISES:
            inputs = [_tensor(lib, a) for a in arrays]
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                lib.autograd.grad(function(lib, *inputs).sum(), inputs)
            results.append(results[0])
            continue
        inputs = [_tensor(lib, a) for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = function(lib, *inputs)
        weights = np.random.default_rng(1).normal(size=tuple(out.shape))
        grads = lib.autograd.grad((out * lib.tensor(weights)).sum(), inputs)
        results.append([out.detach().numpy()] + [g.numpy() for g in grads])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)
    inputs = [_tensor(leafgrad, a) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda *xs: function(leafgrad, *xs), inputs, eps=1e-6, atol=1e-5)
        if name not in FIRST_ORDER_ONLY:
            assert gradgradcheck(lambda *xs: function(leafgrad, *xs), inputs, eps=1e-6,
                                 atol=1e-5)


@pytest.mark.parametrize("code", ["lib.linalg.lu_factor(x).LU", "lib.linalg.lu_factor_ex(x)[0]",
                                  "lib.linalg.matrix_exp(x)", "lib.matrix_exp(x)"])
def test_primitive_node_names(code):
    names = []
    for lib in (leafgrad, torch):
        x = lib.tensor(SQUARE * 0.2, requires_grad=True)
        names.append(eval(code, {"lib": lib, "x": x}).grad_fn.name())  # noqa: S307
    assert names[0] == names[1]


def test_pivots_and_info_dtypes():
    for code in ["lib.linalg.lu_factor_ex(B)"]:
        ours, theirs = _run(leafgrad, code), _run(torch, code)
        _same(ours, theirs)


DEPRECATED = ["lib.qr(S)", "lib.triangular_solve(R, S.triu())",
              "lib.lu_solve(R, *lib.linalg.lu_factor(S))"]


@pytest.mark.parametrize("code", DEPRECATED)
def test_deprecation_warnings(code):
    messages = []
    for lib in (leafgrad, torch):
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                eval(code, {"lib": lib, "S": lib.tensor(SQUARE), "R": lib.tensor(RHS)})  # noqa
        finally:
            lib.set_warn_always(False)
        messages.append([str(w.message).split(" (Triggered")[0] for w in caught])
    assert messages[0] == messages[1]
