"""scaled_dot_product_attention: a query whose every score is masked (-inf) gets output 0 and
gradient 0, as torch's _safe_softmax / flash kernel give, not NaN; for float and boolean
masks broadcast in every way, 3-d and 4-d inputs, every subset of q, k, v requiring grad, and
through MultiheadAttention. Differential against torch 2.13."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

NINF = float("-inf")


def _mask(kind, shape, dead_row=1):
    rng = np.random.default_rng(3)
    allowed = rng.random(shape) < 0.6
    allowed[..., dead_row, :] = False  # one query sees nothing
    allowed[..., 0, 0] = True
    if kind == "bool":
        return allowed
    return np.where(allowed, rng.standard_normal(shape) * 0.1, NINF).astype(np.float32)


CASES = {  # q shape, mask shape
    "3d_LS": ((2, 4, 5), (4, 3)),
    "4d_LS": ((2, 3, 4, 5), (4, 3)),
    "4d_B1LS": ((2, 3, 4, 5), (2, 1, 4, 3)),
    "4d_BHLS": ((2, 3, 4, 5), (2, 3, 4, 3)),
}


@pytest.mark.parametrize("needs", list(itertools.product([True, False], repeat=3))[:-1],
                         ids=lambda n: "".join("qkv"[i] for i in range(3) if n[i]))
@pytest.mark.parametrize("kind", ["float", "bool"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_fully_masked_queries_give_zeros(case, kind, needs):
    torch = require_torch()
    q_shape, mask_shape = CASES[case]
    rng = np.random.default_rng(len(case))
    kv_shape = q_shape[:-2] + (3, q_shape[-1])
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (q_shape, kv_shape, kv_shape)]
    mask = _mask(kind, mask_shape)
    results = []
    for lib in (leafgrad, torch):
        q, k, v = (lib.tensor(a, requires_grad=n) for a, n in zip(arrays, needs))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=lib.tensor(mask))
        weights = lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape))
                             .astype(np.float32))
        (out * weights).sum().backward()
        grads = [t.grad.numpy() for t in (q, k, v) if t.requires_grad]
        results.append((out.detach().numpy(), grads))
    (out, grads), (t_out, t_grads) = results
    assert not np.isnan(out).any() and not any(np.isnan(g).any() for g in grads)
    np.testing.assert_allclose(out, t_out, rtol=1e-5, atol=1e-6)
    for g, t in zip(grads, t_grads):
        np.testing.assert_allclose(g, t, rtol=1e-4, atol=1e-5)


def test_multihead_attention_with_a_fully_padded_sequence():
    torch = require_torch()
    outs = []
    for lib in (leafgrad, torch):
        lib.manual_seed(0)
        mha = lib.nn.MultiheadAttention(4, 2, batch_first=True)
        x = lib.tensor(np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32),
                       requires_grad=True)
        padding = lib.tensor([[True, True, True], [False, False, True]])
        out, _ = mha(x, x, x, key_padding_mask=padding, need_weights=False)
        out.sum().backward()
        outs.append((out.detach().numpy(), x.grad.numpy(), mha.in_proj_weight.grad.numpy()))
    for mine, theirs in zip(*outs):
        assert not np.isnan(mine).any()
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5)
