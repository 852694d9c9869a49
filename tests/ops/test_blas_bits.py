"""Matrix products with torch's exact bits (ops/_blas.py, ops/linalg.py).

torch multiplies float matrices with MKL's gemm/gemv/dot (the MKL 2024.2 in its wheel), and
batched products of fewer than 400 multiply-adds with its own loop. With the ``mkl`` package
(2024.2.0, the test extra installs it) leafgrad makes the same calls with the same layout
decisions, so every element of every product and gradient must be torch's, for every shape
class (empty, one row, one column, a 1x1 result, k = 0), layout (transposed, sliced, expanded
operands), alpha/beta and dtype. Expected values are torch's results on the same inputs. The
small batched loop needs no MKL and is checked without it too. Locally a missing ``mkl``
package skips the MKL tests with a message; under ``CI=1`` it fails them.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch
from tests.ops._mkl_support import one_thread_and_defaults, require_mkl

torch = require_torch()

SHAPES = [(m, k, n) for m in (0, 1, 2, 5, 33) for k in (0, 1, 3, 17, 130) for n in (1, 2, 9, 64)]
DTYPES = [np.float32, np.float64]


_require_mkl = require_mkl


@pytest.fixture(autouse=True)
def _one_thread():
    yield from one_thread_and_defaults(torch)


def _same(ours, theirs, what=""):
    ours = np.asarray(ours.detach().numpy() if hasattr(ours, "detach") else ours)
    theirs = theirs.detach().numpy()
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, what
    assert np.ascontiguousarray(ours).tobytes() == np.ascontiguousarray(theirs).tobytes(), (
        f"{what}: {np.mean(ours == theirs):.2%} of the elements are torch's")


def _data(seed, *shapes, dtype):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_linear_forward_and_backward(m, k, n, dtype):
    """nn.functional.linear with and without a bias (addmm / mm of weight.t()), its input,
    weight and bias gradients."""
    _require_mkl()
    x, w, b, g = _data(m * 1000 + k * 10 + n, (m, k), (n, k), (n,), (m, n), dtype=dtype)
    for bias in (True, False):
        results = []
        for lib in (leafgrad, torch):
            xs, ws, bs = (lib.tensor(v, requires_grad=True) for v in (x, w, b))
            y = lib.nn.functional.linear(xs, ws, bs if bias else None)
            y.backward(lib.tensor(g))
            results.append([y, xs.grad, ws.grad] + ([bs.grad] if bias else []))
        for name, ours, theirs in zip(("output", "input grad", "weight grad", "bias grad"),
                                      *results):
            _same(ours, theirs, f"{name}, bias={bias}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n", [(2, 3, 4), (1, 7, 1), (17, 130, 9), (33, 1, 64), (5, 0, 2)])
def test_every_operand_layout_and_scalar(m, k, n, dtype):
    """mm and addmm with row-major, transposed (column-major), sliced and expanded operands,
    alpha and beta (beta 0 ignores the bias, NaN included), a broadcast bias, out=."""
    _require_mkl()
    a, b, bias, col = _data(7, (m, k), (k, n), (n,), (m, 1), dtype=dtype)

    def layouts(lib, array):
        yield lib.tensor(array)
        yield lib.tensor(array.T.copy()).t()  # column-major
        wide = lib.tensor(np.repeat(array, 2, axis=1))
        yield wide[:, ::2]  # a column stride of 2: copied for BLAS, as torch does
        if array.shape[0]:
            yield lib.tensor(array[:1]).expand(array.shape[0], array.shape[1])  # stride 0

    for (i, first), (j, second) in itertools.product(
            enumerate(zip(layouts(leafgrad, a), layouts(torch, a))),
            enumerate(zip(layouts(leafgrad, b), layouts(torch, b)))):
        (a_ours, a_theirs), (b_ours, b_theirs) = first, second
        _same(leafgrad.mm(a_ours, b_ours), torch.mm(a_theirs, b_theirs), f"mm {i}, {j}")
        for beta, alpha in ((1, 1), (0.5, 2.0), (0, 3), (2, 0)):
            for add_ours, add_theirs in ((leafgrad.tensor(bias), torch.tensor(bias)),
                                         (leafgrad.tensor(col), torch.tensor(col))):
                _same(leafgrad.addmm(add_ours, a_ours, b_ours, beta=beta, alpha=alpha),
                      torch.addmm(add_theirs, a_theirs, b_theirs, beta=beta, alpha=alpha),
                      f"addmm {i}, {j}, beta={beta}, alpha={alpha}")
    nan_bias = np.full(n, np.nan, dtype)
    _same(leafgrad.addmm(leafgrad.tensor(nan_bias), leafgrad.tensor(a), leafgrad.tensor(b),
                         beta=0),
          torch.addmm(torch.tensor(nan_bias), torch.tensor(a), torch.tensor(b), beta=0))
    out_ours, out_theirs = leafgrad.empty(m, n, dtype=leafgrad.tensor(a).dtype), torch.empty(
        m, n, dtype=torch.tensor(a).dtype)
    assert leafgrad.mm(leafgrad.tensor(a), leafgrad.tensor(b), out=out_ours) is out_ours
    torch.mm(torch.tensor(a), torch.tensor(b), out=out_theirs)
    _same(out_ours, out_theirs, "out=")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch,m,k,n", [(2, 2, 3, 4), (3, 7, 7, 7), (10, 1, 50, 1),
                                         (3, 1, 399, 1), (2, 8, 8, 8), (4, 16, 16, 16),
                                         (2, 5, 100, 5), (3, 2, 1, 4), (2, 0, 3, 4),
                                         (2, 3, 0, 4), (0, 2, 3, 4)])
def test_bmm_and_batched_matmul(batch, m, k, n, dtype):
    """bmm below 400 multiply-adds (torch's own loop: needs no MKL) and above (a gemm per
    matrix), its gradients, and a 4-d matmul torch runs as bmm."""
    small = k * m * n < 400
    if not small:
        _require_mkl()
    a, b, g = _data(batch + m + k + n, (batch, m, k), (batch, k, n), (batch, m, n), dtype=dtype)
    results = []
    for lib in (leafgrad, torch):
        xs, ys = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        out = lib.bmm(xs, ys)
        out.backward(lib.tensor(g))
        four = lib.matmul(lib.tensor(a)[None].expand(2, *a.shape), lib.tensor(b))
        results.append([out, xs.grad, ys.grad, four])
    for name, ours, theirs in zip(("bmm", "grad 1", "grad 2", "4-d matmul"), *results):
        _same(ours, theirs, name)


def test_small_bmm_needs_no_mkl():
    leafgrad.backends.cpu.mkl_vml = False
    a, b = _data(3, (4, 3, 5), (4, 5, 6), dtype=np.float32)
    _same(leafgrad.bmm(leafgrad.tensor(a), leafgrad.tensor(b)),
          torch.bmm(torch.tensor(a), torch.tensor(b)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k", [(1, 1), (1, 100), (5, 1), (5, 1000), (33, 17)])
def test_mv_dot_and_vector_matmul(m, k, dtype):
    """mv (gemv, the matrix as it lies or a copy), dot (with its vectors' strides),
    vector @ matrix, and their gradients."""
    _require_mkl()
    mat, vec, other, g = _data(m * k, (m, k), (k,), (k,), (m,), dtype=dtype)
    results = []
    for lib in (leafgrad, torch):
        ms, vs = lib.tensor(mat, requires_grad=True), lib.tensor(vec, requires_grad=True)
        out = lib.mv(ms, vs)
        out.backward(lib.tensor(g))
        column_major = lib.mv(lib.tensor(mat.T.copy()).t(), lib.tensor(vec))
        strided = lib.dot(lib.tensor(np.repeat(vec, 2))[::2], lib.tensor(other))
        results.append([out, ms.grad, vs.grad, column_major,
                        lib.dot(lib.tensor(vec), lib.tensor(other)), strided,
                        lib.matmul(lib.tensor(vec), lib.tensor(mat.T.copy()))])
    names = ("mv", "matrix grad", "vector grad", "column-major mv", "dot", "strided dot",
             "vector @ matrix")
    for name, ours, theirs in zip(names, *results):
        _same(ours, theirs, name)


def test_an_mlp_step_is_torchs_bit_for_bit():
    """A step of nn.Linear layers with ReLU and an MSE loss (ops whose kernels leafgrad
    replays exactly): the loss, every gradient and the SGD update equal torch's bits."""
    _require_mkl()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 20)).astype(np.float32)
    target = rng.standard_normal((64, 3)).astype(np.float32)

    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(20, 32), lib.nn.ReLU(), lib.nn.Linear(32, 3))
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        losses = []
        for _ in range(5):
            optimizer.zero_grad()
            loss = ((model(lib.tensor(x)) - lib.tensor(target)) ** 2).mean()
            loss.backward()
            optimizer.step()
            losses.append(loss.detach())
        return losses + [p.detach() for p in model.parameters()]

    for ours, theirs in zip(run(leafgrad), run(torch)):
        _same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_without_mkl_products_stay_close(dtype):
    """No MKL (``backends.cpu.mkl_vml = False``): NumPy's BLAS, the same values to rounding."""
    leafgrad.backends.cpu.mkl_vml = False
    a, b, v = _data(5, (17, 130), (130, 9), (130,), dtype=dtype)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(leafgrad.mm(leafgrad.tensor(a), leafgrad.tensor(b)).numpy(),
                               torch.mm(torch.tensor(a), torch.tensor(b)).numpy(),
                               rtol=tolerance, atol=tolerance * 10)
    np.testing.assert_allclose(leafgrad.mv(leafgrad.tensor(a), leafgrad.tensor(v)).numpy(),
                               torch.mv(torch.tensor(a), torch.tensor(v)).numpy(),
                               rtol=tolerance, atol=tolerance * 10)
