"""addr, addbmm, block_diag, chain_matmul (ops/matrix_extra.py): dtypes, call forms, the
bias rules and errors against torch 2.13 (values and gradients: the op table)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch
from ._table_outcome import assert_same, outcome

torch = require_torch()

SETUP = """
M = lib.tensor([[1.0, -2.0, 0.5, 3.0], [0.0, 1.5, -1.0, 2.0], [2.5, 0.25, 1.0, -0.5]])
u = lib.tensor([1.0, -1.0, 2.0]); v = lib.tensor([0.5, 2.0, -3.0, 1.0])
I = lib.tensor([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]); iu = lib.tensor([1, -2, 3])
iv = lib.tensor([2, 0, -1, 4])
B1 = lib.arange(30.0).reshape(5, 3, 2) / 10; B2 = lib.arange(40.0).reshape(5, 2, 4) / 20 - 1
N = lib.full((3, 4), float('nan'))
"""

CASES = [
    # addr: promotion, scalars, bool/integer rules, broadcasting, errors
    "lib.addr(M, u, v)", "lib.addr(M, u, v, beta=2, alpha=0.5)", "lib.addr(M[0], u, v)",
    "lib.addr(lib.tensor(1.0), u, v)", "lib.addr(M, u, v[:3])", "lib.addr(M, u[None], v)",
    "lib.addr(M, u, lib.tensor(1.0))", "lib.addr(I, iu, iv)", "lib.addr(I, iu, iv, beta=2, alpha=3)",
    "lib.addr(I, iu, iv, alpha=0.5)", "lib.addr(I, iu, iv, beta=0.5)", "lib.addr(I, iu, iv, beta=True)",
    "lib.addr(M, iu, iv, alpha=True)", "lib.addr(M, iu, iv)", "lib.addr(M, iu, iv, alpha=0.5)",
    "lib.addr(I > 4, iu > 0, iv > 0)", "lib.addr(I > 4, iu > 0, iv > 0, beta=0)",
    "lib.addr(I > 4, iu > 0, iv > 0, alpha=0)", "lib.addr(I > 4, iu > 0, iv > 0, alpha=0.5)",
    "lib.addr(M.double(), u, v)", "lib.addr(M, u.double(), v)", "lib.addr(I.int(), iu.to(lib.int8), iv)",
    "lib.addr(N, u, v, beta=0)", "lib.addr(M, u, v, 2, 3)", "lib.addr(M[:2], iu, iv)",
    "lib.addr(M, u, v, beta=2+1j)", "M.addr(u, v)", "M.clone().addr_(u, v, alpha=2)",
    "I.clone().addr_(iu, iv)", "I.clone().addr_(u, v)", "M[:, :2].clone().addr_(u, v)",
    "lib.addr(M[0, 0], lib.ones(0), v)", "lib.addr(M.half(), u.half(), v.half())",
    "lib.addr(input=M, vec1=u, vec2=v)", "lib.addr(M, u, 2.0)",
    # addbmm
    "lib.addbmm(M, B1, B2)", "lib.addbmm(M, B1, B2, beta=0.5, alpha=2)", "lib.addbmm(M[0], B1, B2)",
    "lib.addbmm(lib.tensor(1.0), B1, B2)", "lib.addbmm(N, B1, B2, beta=0)",
    "lib.addbmm(M, B1[0], B2)", "lib.addbmm(M, B1, B2[0])", "lib.addbmm(M, B1[0, 0], B2)",
    "lib.addbmm(M, B1, B2[:4])", "lib.addbmm(M, B1, B2[:, :1])", "lib.addbmm(M[:2], B1, B2)",
    "lib.addbmm(M[None], B1, B2)", "lib.addbmm(M.double(), B1, B2)", "lib.addbmm(M, B1.double(), B2)",
    "lib.addbmm(M, B1.int(), B2.int())", "lib.addbmm(I, B1.long(), B2.long(), alpha=2)",
    "lib.addbmm(I.int(), (B1 * 10).int(), (B2 * 10).int(), alpha=2.7)",
    "lib.addbmm(I > 0, B1 > 0, B2 > 0)", "lib.addbmm(M, B1[:0], B2[:0])",
    "M.addbmm(B1, B2)", "M.clone().addbmm_(B1, B2, beta=0)", "M[:2].clone().addbmm_(B1, B2)",
    "lib.addbmm(M, B1, B2, beta=True)",
    # block_diag
    "lib.block_diag(M, u, lib.tensor(2.0), v[None])", "lib.block_diag()", "lib.block_diag(M, B1)",
    "lib.block_diag(M, iu)", "lib.block_diag(iu, iv > 0)", "lib.block_diag(M.double(), u)",
    "lib.block_diag(M[:0], u)", "lib.block_diag([M])", "lib.block_diag(lib.zeros(0, 3), lib.zeros(2, 0))",
    "lib.block_diag(lib.zeros(0))", "lib.block_diag(lib.tensor(True), lib.tensor(3))",
    "lib.block_diag(M.t(), u.to(lib.complex64))",
    # chain_matmul
    "lib.chain_matmul(M, M.t())", "lib.chain_matmul(M)", "lib.chain_matmul()",
    "lib.chain_matmul(M, M.t(), M)", "lib.chain_matmul(M, u)", "lib.chain_matmul(B1, B2)",
    "lib.chain_matmul(M, M.t().double())", "lib.chain_matmul([M, M.t()])", "lib.chain_matmul(M, M)",
    "lib.chain_matmul(I, I.t(), I)", "lib.chain_matmul(M.t(), M, M.t(), M)",
]


def _outcome(lib, code):
    return outcome(lib, SETUP, code)


@pytest.mark.parametrize("code", CASES)
def test_values_dtypes_and_errors_match_torch(code):
    assert_same(_outcome(leafgrad, code), _outcome(torch, code))


@pytest.mark.parametrize("code", ["lib.addr(M, u, v)", "lib.addbmm(M, B1, B2)",
                                  "lib.block_diag(M, u)", "lib.chain_matmul(M, M.t())",
                                  "lib.chain_matmul(M)", "lib.chain_matmul(M, M.t(), M)"])
def test_grad_fn_names_match_torch(code):
    def run(lib):
        namespace = {"lib": lib}
        exec(SETUP, namespace)  # noqa: S102
        namespace["M"].requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return eval(code, namespace).grad_fn.name()  # noqa: S307

    assert run(leafgrad) == run(torch)


def test_chain_matmul_warns_once_as_deprecated():
    from leafgrad.ops import matrix_extra

    matrix_extra._chain_matmul_warned.clear()
    m = leafgrad.eye(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        leafgrad.chain_matmul(m, m)
        leafgrad.chain_matmul(m, m)
    assert [(w.category, str(w.message)) for w in caught] == [(UserWarning, (
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters."))]


def test_addr_with_mixed_dtypes_gives_each_input_its_dtype():
    """torch's backward fails here (addmv with mixed dtypes); leafgrad casts and succeeds."""
    x = leafgrad.ones(3, dtype=leafgrad.float64, requires_grad=True)
    y = leafgrad.ones(4, requires_grad=True)
    leafgrad.addr(leafgrad.ones(3, 4), x, y).sum().backward()
    assert (x.grad.dtype, y.grad.dtype) == (leafgrad.float64, leafgrad.float32)
    np.testing.assert_array_equal(x.grad.numpy(), np.full(3, 4.0))
    np.testing.assert_array_equal(y.grad.numpy(), np.full(4, 3.0))


def test_complex_addr_values_and_gradients_match_torch():
    def run(lib):
        m = lib.tensor([[1 + 2j, 0.5j], [-1.0 + 0j, 2 - 1j]], requires_grad=True)
        u = lib.tensor([1 - 1j, 2 + 0.5j], requires_grad=True)
        v = lib.tensor([0.5 + 0j, -1 + 3j], requires_grad=True)
        out = lib.addr(m, u, v, beta=0.5 - 1j, alpha=2 + 1j)
        (out.abs() ** 2).sum().backward()
        return [t.detach().numpy() for t in (out, m.grad, u.grad, v.grad)]

    for ours, theirs in zip(run(leafgrad), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
