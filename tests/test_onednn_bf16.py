"""bfloat16 matrix products around oneDNN's threshold: on a processor with AVX-512 (BW, VL, DQ)
torch hands products of more than 16 * 16 * 16 multiply-adds to oneDNN (a float32 sum, rounded
once: ``beta * c + alpha * a @ b`` included), and smaller ones to its own loops; elsewhere its
loops take them all (ops/_isa.py's ONEDNN_BF16). Bit for bit against torch, every layout."""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

_SHAPES = [(16, 16, 16), (17, 16, 16), (32, 64, 64), (64, 100, 1), (1, 100, 64), (8, 600, 2),
           (40, 40, 40), (3, 2000, 1), (64, 64, 1), (65, 63, 1), (5, 9, 3)]


def _operand(T, values, transposed):
    if transposed:
        return T.tensor(values.T.copy()).to(T.bfloat16).t()
    return T.tensor(values).to(T.bfloat16)


def _products(T, a, b, c, layout):
    left, right = _operand(T, a, layout[0] == "t"), _operand(T, b, layout[1] == "t")
    bias = T.tensor(c).to(T.bfloat16)
    out = [left @ right, T.addmm(bias, left, right),
           T.addmm(bias, left, right, beta=0.5, alpha=2.0), T.addmm(bias, left, right, beta=0)]
    if right.shape[1] == 1:  # the matrix-vector forms
        vec, bias_vec = right[:, 0], bias[:, 0]
        out += [T.mv(left, vec), T.addmv(bias_vec, left, vec),
                T.addmv(bias_vec, left, vec, beta=1, alpha=1), T.addmv(bias_vec, left, vec, beta=0)]
    return out


def test_bfloat16_products_match_torch_across_the_onednn_threshold():
    rng = np.random.default_rng(0)
    checked = 0
    for (m, k, n), layout in itertools.product(_SHAPES, ("nn", "tn", "nt", "tt")):
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        c = rng.standard_normal((m, n)).astype(np.float32)
        for ours, theirs in zip(_products(lg, a, b, c, layout), _products(torch, a, b, c, layout)):
            assert str(ours.dtype) == "leafgrad.bfloat16" and ours.shape == tuple(theirs.shape)
            np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy(),
                                          err_msg=str(((m, k, n), layout)))
            checked += 1
    assert checked > 150
