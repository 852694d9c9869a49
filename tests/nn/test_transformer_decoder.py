"""TransformerDecoderLayer, TransformerDecoder and Transformer against torch: same seed -> same
weights; outputs and every gradient for norm_first, activations given as strings or callables,
batch_first, unbatched input, causal masks (given, detected, or hinted with tgt_is_causal), key
padding masks, train (dropout 0 and dropout with the same stream) and eval; reprs, state_dict
keys, generate_square_subsequent_mask and errors. Where torch takes its eval-mode fast path
(fused encoder layer / nested tensors) the values are compared with a tolerance."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

E = 8

DECODER = [
    dict(d_model=E, nhead=2, dim_feedforward=16, dropout=0.0),
    dict(d_model=E, nhead=2, dim_feedforward=16, dropout=0.0, norm_first=True,
         activation="gelu", batch_first=True),
    dict(d_model=E, nhead=4, dim_feedforward=12, dropout=0.0, bias=False),
    dict(d_model=E, nhead=2, dim_feedforward=12, dropout=0.0, activation="tanh_callable"),
    dict(d_model=E, nhead=2, dim_feedforward=12, dropout=0.0, activation="relu_module"),
]


def _options(lib, options):
    options = dict(options)
    if options.get("activation") == "tanh_callable":
        options["activation"] = lib.tanh
    elif options.get("activation") == "relu_module":
        options["activation"] = lib.nn.ReLU()
    return options


def _inputs(lib, rng, batch_first, unbatched, T=4, S=5, N=3):
    def make(length):
        if unbatched:
            shape = (length, E)
        else:
            shape = (N, length, E) if batch_first else (length, N, E)
        return lib.tensor(rng.normal(size=shape), requires_grad=True)

    return make(T), make(S)


def _masks(lib, kind, T=4, S=5, N=3, unbatched=False):
    kwargs = {}
    if "causal" in kind:
        kwargs["tgt_mask"] = lib.nn.Transformer.generate_square_subsequent_mask(
            T, dtype=lib.float64)
    if "hint" in kind:
        kwargs["tgt_is_causal"] = True
    if "bool_causal" in kind:
        kwargs["tgt_mask"] = lib.tensor(np.triu(np.ones((T, T), bool), 1))
    if "padding" in kind:
        tgt_pad, mem_pad = np.zeros((N, T), bool), np.zeros((N, S), bool)
        tgt_pad[1, -1] = mem_pad[0, -2:] = True
        if unbatched:
            tgt_pad, mem_pad = tgt_pad[1], mem_pad[0]
        kwargs["tgt_key_padding_mask"] = lib.tensor(tgt_pad)
        kwargs["memory_key_padding_mask"] = lib.tensor(mem_pad)
    if "memory_mask" in kind:
        kwargs["memory_mask"] = lib.tensor(np.random.default_rng(9).normal(size=(T, S)))
    return kwargs


def _decoder_run(lib, options, kind, training, stack, unbatched=False):
    lib.manual_seed(0)
    layer = lib.nn.TransformerDecoderLayer(**_options(lib, options)).double()
    module = (lib.nn.TransformerDecoder(layer, num_layers=2, norm=lib.nn.LayerNorm(E).double())
              if stack else layer)
    module.train(training)
    rng = np.random.default_rng(1)
    tgt, memory = _inputs(lib, rng, options.get("batch_first", False), unbatched)
    out = module(tgt, memory, **_masks(lib, kind, unbatched=unbatched))
    (out * out).sum().backward()
    return dict(out=out.detach().numpy(), grads=[tgt.grad.numpy(), memory.grad.numpy()]
                + [p.grad.numpy() for p in module.parameters()],
                keys=list(module.state_dict()), repr=repr(module))


def _compare(ours, theirs, rtol=1e-9, atol=1e-10):
    assert ours["keys"] == theirs["keys"]
    assert ours["repr"] == theirs["repr"]
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=rtol, atol=atol)
    assert len(ours["grads"]) == len(theirs["grads"])
    for a, b in zip(ours["grads"], theirs["grads"]):
        np.testing.assert_allclose(a, b, rtol=rtol * 10, atol=atol)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("stack", [False, True], ids=["layer", "decoder"])
@pytest.mark.parametrize("kind", ["none", "causal", "causal+hint", "bool_causal",
                                  "padding+memory_mask", "causal+padding"])
@pytest.mark.parametrize("options", DECODER, ids=str)
def test_decoder_matches_torch(options, kind, stack, training):
    if kind == "causal+hint" and not stack:
        kind = "causal"
    _compare(_decoder_run(leafgrad, options, kind, training, stack),
             _decoder_run(torch, options, kind, training, stack))


@pytest.mark.parametrize("kind", ["none", "causal+padding"])
def test_decoder_unbatched_matches_torch(kind):
    options = DECODER[0]
    _compare(_decoder_run(leafgrad, options, kind, True, True, unbatched=True),
             _decoder_run(torch, options, kind, True, True, unbatched=True))


def test_decoder_dropout_consumes_the_stream_as_torch():
    options = dict(d_model=E, nhead=2, dim_feedforward=16, dropout=0.3)
    _compare(_decoder_run(leafgrad, options, "causal", True, True),
             _decoder_run(torch, options, "causal", True, True))


TRANSFORMER = [
    dict(d_model=E, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
         dropout=0.0),
    dict(d_model=E, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16,
         dropout=0.0, batch_first=True, norm_first=True, activation="gelu"),
    dict(d_model=E, nhead=4, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=12,
         dropout=0.0, batch_first=True, bias=False),
]


def _transformer_run(lib, options, kind, training, grad=True):
    lib.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = lib.nn.Transformer(**options).double()
    model.train(training)
    rng = np.random.default_rng(2)
    batch_first = options.get("batch_first", False)
    tgt, src = _inputs(lib, rng, batch_first, False)
    kwargs = _masks(lib, kind)
    if "padding" in kind:
        kwargs["src_key_padding_mask"] = kwargs["memory_key_padding_mask"]
    if "src_causal" in kind:
        kwargs["src_mask"] = model.generate_square_subsequent_mask(5, dtype=lib.float64)
    if grad:
        out = model(src, tgt, **kwargs)
        (out * out).sum().backward()
        grads = [src.grad.numpy(), tgt.grad.numpy()] + [p.grad.numpy()
                                                       for p in model.parameters()]
    else:
        with lib.no_grad():
            out = model(src, tgt, **kwargs)
        grads = []
    return dict(out=out.detach().numpy(), grads=grads, keys=list(model.state_dict()),
                repr=repr(model), warnings=[str(w.message) for w in caught],
                weights=[p.detach().numpy() for p in model.parameters()])


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("kind", ["none", "causal+padding", "src_causal+causal+hint"])
@pytest.mark.parametrize("options", TRANSFORMER, ids=str)
def test_transformer_matches_torch(options, kind, training):
    ours = _transformer_run(leafgrad, options, kind, training)
    theirs = _transformer_run(torch, options, kind, training)
    assert ours["warnings"] == theirs["warnings"]
    for a, b in zip(ours["weights"], theirs["weights"]):
        np.testing.assert_array_equal(a, b)
    _compare(ours, theirs)


@pytest.mark.parametrize("kind", ["none", "causal+padding"])
@pytest.mark.parametrize("options", TRANSFORMER, ids=str)
def test_transformer_fast_path_matches_torch_with_tolerance(options, kind):
    # eval + no_grad: torch runs its fused encoder layer (and nested tensors for padded
    # batch_first input); the numbers agree up to rounding, padded positions are zeros
    ours = _transformer_run(leafgrad, options, kind, False, grad=False)
    theirs = _transformer_run(torch, options, kind, False, grad=False)
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=1e-7, atol=1e-9)


def test_encoder_nested_tensor_padding_is_zero_like_torch():
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(E, 2, 16, dropout=0.0, batch_first=True)
        encoder = lib.nn.TransformerEncoder(layer, 2).double().eval()
        x = lib.tensor(np.random.default_rng(3).normal(size=(3, 5, E)))
        pad = np.zeros((3, 5), bool)
        pad[1, -2:] = pad[2, -1] = True
        with lib.no_grad():
            return encoder(x, src_key_padding_mask=lib.tensor(pad)).numpy()

    ours, theirs = run(leafgrad), run(torch)
    assert (theirs[1, -2:] == 0).all()
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("size", [0, 1, 4])
def test_generate_square_subsequent_mask_matches_torch(size):
    for dtype in (None, "float64"):
        ours = leafgrad.nn.Transformer.generate_square_subsequent_mask(
            size, dtype=dtype and getattr(leafgrad, dtype))
        theirs = torch.nn.Transformer.generate_square_subsequent_mask(
            size, dtype=dtype and getattr(torch, dtype))
        assert str(ours.dtype).split('.')[1] == str(theirs.dtype).split('.')[1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_transformer_errors_match_torch():
    def run(lib):
        out = []
        lib.manual_seed(0)
        model = lib.nn.Transformer(E, 2, 1, 1, 16, dropout=0.0)
        layer = lib.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0)
        cases = (
            lambda: model(lib.zeros(5, 3, E), lib.zeros(4, 2, E)),
            lambda: model(lib.zeros(5, 3, E), lib.zeros(4, 3, E + 1)),
            lambda: lib.nn.TransformerDecoderLayer(E, 2, activation="tanh"),
            lambda: layer(lib.zeros(4, 3, E), lib.zeros(5, 3, E), tgt_is_causal=True),
            lambda: layer(lib.zeros(4, 3, E), lib.zeros(5, 3, E),
                          tgt_key_padding_mask=lib.zeros(3, 4, dtype=lib.int64)),
            lambda: lib.nn.TransformerEncoderLayer(E, 2)(
                lib.zeros(4, 3, E), src_key_padding_mask=lib.zeros(3, 4, dtype=lib.int64)),
        )
        for bad in cases:
            try:
                bad()
                out.append(None)
            except Exception as error:  # noqa: BLE001
                out.append((type(error).__name__, str(error).splitlines()[0]))
        return out

    assert run(leafgrad) == run(torch)


def test_encoder_warnings_match_torch():
    def run(lib):
        messages = []
        for options in (dict(), dict(batch_first=True, norm_first=True),
                        dict(batch_first=True, activation=lib.tanh),
                        dict(batch_first=True, activation=lib.nn.GELU()),
                        dict(batch_first=True, bias=False), dict(batch_first=True)):
            layer = lib.nn.TransformerEncoderLayer(E, 2, 16, **options)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                encoder = lib.nn.TransformerEncoder(layer, 1)
            messages.append(([str(w.message) for w in caught], encoder.use_nested_tensor,
                             layer.activation_relu_or_gelu))
        return messages

    assert run(leafgrad) == run(torch)


def test_mismatched_mask_warnings_match_torch():
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(lib.zeros(4, 3, E), lib.zeros(5, 3, E),
                  tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(4),
                  tgt_key_padding_mask=lib.zeros(3, 4, dtype=lib.bool))
        return [str(w.message) for w in caught]

    assert run(leafgrad) == run(torch)
