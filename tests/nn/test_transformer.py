"""MultiheadAttention, TransformerEncoderLayer/Encoder and F.scaled_dot_product_attention
against torch: same seed -> same weights; outputs, attention weights and every gradient, for
masks (bool/float, causal, key padding), batch_first, unbatched input, kdim/vdim, bias_kv,
zero attention, need_weights on/off, norm_first, gelu; train (dropout 0) and eval."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

MHA = [
    (dict(embed_dim=8, num_heads=2), {}),
    (dict(embed_dim=8, num_heads=4, batch_first=True), {}),
    (dict(embed_dim=8, num_heads=2, bias=False), {"need_weights": False}),
    (dict(embed_dim=8, num_heads=2, kdim=5, vdim=3), {"cross": True}),
    (dict(embed_dim=8, num_heads=2, add_bias_kv=True, add_zero_attn=True), {}),
    (dict(embed_dim=8, num_heads=2), {"attn_mask": "causal_bool"}),
    (dict(embed_dim=8, num_heads=2), {"attn_mask": "float", "average_attn_weights": False}),
    (dict(embed_dim=8, num_heads=2), {"key_padding_mask": True}),
    (dict(embed_dim=8, num_heads=2), {"key_padding_mask": True, "need_weights": False}),
    (dict(embed_dim=8, num_heads=2), {"unbatched": True}),
]


def _mha_run(lib, options, call, training):
    lib.manual_seed(0)
    m = lib.nn.MultiheadAttention(**options).double()
    m.train(training)
    rng = np.random.default_rng(1)
    batch_first = options.get("batch_first", False)
    L, S, N, E = 4, 5, 3, options["embed_dim"]
    unbatched = call.get("unbatched")

    def make(length, dim):
        shape = (length, dim) if unbatched else ((N, length, dim) if batch_first
                                                 else (length, N, dim))
        return lib.tensor(rng.normal(size=shape), requires_grad=True)

    q = make(L, E)
    if call.get("cross"):
        k, v = make(S, options["kdim"]), make(S, options["vdim"])
    else:
        k = v = q
        S = L
    kwargs = {}
    if call.get("attn_mask") == "causal_bool":
        kwargs["attn_mask"] = lib.tensor(np.triu(np.ones((L, S), bool), 1))
    elif call.get("attn_mask") == "float":
        kwargs["attn_mask"] = lib.tensor(rng.normal(size=(L, S)))
    if call.get("key_padding_mask"):
        mask = np.zeros((N, S), bool)
        mask[0, -1] = mask[2, -2:] = True
        kwargs["key_padding_mask"] = lib.tensor(mask)
    for key in ("need_weights", "average_attn_weights"):
        if key in call:
            kwargs[key] = call[key]
    out, weights = m(q, k, v, **kwargs)
    loss = (out * out).sum() + (weights.sum() if weights is not None else 0)
    loss.backward()
    inputs = [q] if k is q else [q, k, v]
    return dict(out=out.detach().numpy(),
                weights=None if weights is None else weights.detach().numpy(),
                grads=[t.grad.numpy() for t in inputs] + [p.grad.numpy() for p in m.parameters()],
                names=[n for n, _ in m.named_parameters()], repr=repr(m))


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("options,call", MHA, ids=[f"{o}-{c}" for o, c in MHA])
def test_multihead_attention_matches_torch(options, call, training):
    ours, theirs = _mha_run(leafgrad, options, call, training), _mha_run(torch, options, call,
                                                                        training)
    assert ours["names"] == theirs["names"] and ours["repr"] == theirs["repr"]
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=1e-9, atol=1e-11)
    if theirs["weights"] is None:
        assert ours["weights"] is None
    else:
        np.testing.assert_allclose(ours["weights"], theirs["weights"], rtol=1e-9, atol=1e-11)
    for a, b in zip(ours["grads"], theirs["grads"]):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


LAYERS = [
    dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0),
    dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, norm_first=True,
         activation="gelu", batch_first=True),
    dict(d_model=8, nhead=4, dim_feedforward=12, dropout=0.0, bias=False),
]


@pytest.mark.parametrize("mask", [False, True])
@pytest.mark.parametrize("options", LAYERS, ids=str)
def test_transformer_encoder_matches_torch(options, mask):
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(**options).double()
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            encoder = lib.nn.TransformerEncoder(layer, num_layers=2,
                                                norm=lib.nn.LayerNorm(8).double())
        rng = np.random.default_rng(2)
        shape = (3, 5, 8) if options.get("batch_first") else (5, 3, 8)
        x = lib.tensor(rng.normal(size=shape), requires_grad=True)
        kwargs = {}
        if mask:
            padding = np.zeros((3, 5), bool)
            padding[1, -2:] = True
            kwargs["src_key_padding_mask"] = lib.tensor(padding)
        out = encoder(x, **kwargs)
        (out * out).sum().backward()
        return (out.detach().numpy(), x.grad.numpy(),
                [p.grad.numpy() for p in encoder.parameters()],
                [n for n, _ in encoder.named_parameters()], repr(layer))

    ours, theirs = run(leafgrad), run(torch)
    assert ours[3:] == theirs[3:]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-8, atol=1e-10)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("kind", ["plain", "causal", "bool_mask", "float_mask", "scale"])
def test_scaled_dot_product_attention_matches_torch(kind):
    def run(lib):
        rng = np.random.default_rng(3)
        q, k, v = (lib.tensor(rng.normal(size=(2, 3, 4, 5)), requires_grad=True)
                   for _ in range(3))
        kwargs = {}
        if kind == "causal":
            kwargs["is_causal"] = True
        elif kind == "bool_mask":
            kwargs["attn_mask"] = lib.tensor(rng.random((4, 4)) > 0.3) | lib.eye(4,
                                                                                 dtype=lib.bool)
        elif kind == "float_mask":
            kwargs["attn_mask"] = lib.tensor(rng.normal(size=(4, 4)))
        elif kind == "scale":
            kwargs["scale"] = 0.3
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)
        (out * out).sum().backward()
        return [out.detach().numpy()] + [t.grad.numpy() for t in (q, k, v)]

    for a, b in zip(run(leafgrad), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_errors_match_torch():
    def run(lib):
        out = []
        for bad in (lambda: lib.nn.MultiheadAttention(0, 2),
                    lambda: lib.nn.MultiheadAttention(8, 3),
                    lambda: lib.nn.TransformerEncoderLayer(8, 2, activation="tanh")):
            try:
                bad()
                out.append(None)
            except Exception as error:  # noqa: BLE001
                out.append((type(error).__name__, str(error).splitlines()[0]))
        return out

    assert run(leafgrad) == run(torch)
