"""Layers against torch.nn: same seed -> same initial weights; same weights and input -> same
outputs, input gradients and parameter gradients (float32 and float64, train and eval); reprs;
running statistics; constructor and shape errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

# (constructor, input shape, input domain) ; constructors are written against the torch API
LAYERS = [
    ("Linear(5, 3)", (4, 5)),
    ("Linear(5, 3, bias=False)", (2, 3, 5)),
    ("Linear(5, 3)", (5,)),
    ("Bilinear(3, 3, 2)", None),
    ("Conv1d(2, 4, 3)", (2, 2, 9)),
    ("Conv1d(2, 4, 3, stride=2, padding=1, dilation=2, bias=False)", (3, 2, 11)),
    ("Conv1d(4, 4, 3, groups=2, padding='same')", (2, 4, 7)),
    ("Conv1d(2, 3, 3, padding=2, padding_mode='reflect')", (2, 2, 6)),
    ("Conv1d(2, 3, 3)", (2, 7)),
    ("Conv2d(1, 8, 3, padding=1)", (4, 1, 8, 8)),
    ("Conv2d(3, 6, (3, 2), stride=(2, 1), padding=(1, 0), groups=3)", (2, 3, 7, 6)),
    ("Conv2d(2, 4, 3, padding='same', dilation=2)", (2, 2, 9, 9)),
    ("Conv2d(2, 4, 3, padding='valid')", (2, 2, 5, 5)),
    ("Conv2d(2, 2, 3, padding=1, padding_mode='circular')", (1, 2, 5, 5)),
    ("Conv2d(2, 2, 3, padding=1, padding_mode='replicate')", (1, 2, 5, 5)),
    ("Conv2d(2, 4, 3)", (2, 6, 6)),
    ("ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)", (2, 2, 4, 4)),
    ("ConvTranspose2d(4, 2, 2, groups=2, bias=False)", (1, 4, 3, 3)),
    ("MaxPool2d(2)", (2, 3, 8, 8)),
    ("MaxPool2d(3, stride=2, padding=1, ceil_mode=True)", (2, 2, 7, 7)),
    ("MaxPool1d(2)", (2, 3, 8)),
    ("MaxPool1d(3, stride=1, padding=1)", (3, 9)),
    ("AvgPool2d(2)", (2, 3, 6, 6)),
    ("AvgPool2d(3, stride=2, padding=1, count_include_pad=False)", (1, 2, 7, 7)),
    ("AvgPool1d(3, stride=2)", (2, 3, 9)),
    ("AdaptiveAvgPool2d((2, 3))", (2, 3, 7, 8)),
    ("AdaptiveAvgPool2d(1)", (2, 3, 5, 5)),
    ("AdaptiveAvgPool1d(4)", (2, 3, 9)),
    ("BatchNorm1d(3)", (5, 3)),
    ("BatchNorm1d(3, momentum=None)", (4, 3, 6)),
    ("BatchNorm1d(3, affine=False)", (4, 3)),
    ("BatchNorm1d(3, bias=False)", (4, 3)),
    ("GroupNorm(2, 4, bias=False)", (3, 4, 5)),
    ("BatchNorm2d(4)", (3, 4, 5, 5)),
    ("BatchNorm2d(4, track_running_stats=False)", (3, 4, 2, 2)),
    ("LayerNorm(6)", (3, 6)),
    ("LayerNorm((2, 6), elementwise_affine=False)", (3, 2, 6)),
    ("LayerNorm(6, bias=False)", (2, 4, 6)),
    ("GroupNorm(2, 4)", (3, 4, 5)),
    ("GroupNorm(1, 4, affine=False)", (2, 4, 3, 3)),
    ("Flatten()", (2, 3, 4)),
    ("Flatten(0, 1)", (2, 3, 4)),
    ("Unflatten(1, (2, 3))", (4, 6)),
    ("Identity(54, unused=1)", (2, 3)),
    ("ReLU()", (3, 4)), ("Tanh()", (3, 4)), ("Sigmoid()", (3, 4)), ("GELU()", (3, 4)),
    ("GELU(approximate='tanh')", (3, 4)), ("SiLU()", (3, 4)), ("ELU(0.5)", (3, 4)),
    ("LeakyReLU(0.2)", (3, 4)), ("Softmax(dim=1)", (3, 4)), ("LogSoftmax(dim=-1)", (3, 4)),
    ("Softplus(beta=2.0)", (3, 4)), ("Hardtanh(-0.5, 0.5)", (3, 4)), ("ReLU6()", (3, 4)),
    ("SELU()", (3, 4)), ("CELU(2.0)", (3, 4)), ("Mish()", (3, 4)), ("Softmin(dim=0)", (3, 4)),
    ("ConvTranspose1d(2, 3, 3)", (2, 2, 5)),
    ("ConvTranspose1d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=2)",
     (2, 4, 6)),
    ("ConvTranspose1d(3, 2, (2,), stride=(3,), bias=False)", (3, 4)),
    ("ConvTranspose2d(2, 2, (3, 2), stride=(2, 1), dilation=(1, 2), output_padding=(1, 0))",
     (1, 2, 3, 4)),
    ("ConvTranspose2d(2, 3, 3)", (2, 4, 4)),
    ("AdaptiveMaxPool2d(2)", (2, 3, 4, 4)), ("AdaptiveMaxPool2d((3, 2))", (2, 2, 7, 5)),
    ("AdaptiveMaxPool2d((None, 3))", (3, 5, 7)), ("AdaptiveMaxPool2d(5)", (1, 2, 3, 3)),
    ("AdaptiveMaxPool1d(3)", (2, 3, 8)), ("AdaptiveMaxPool1d((4,))", (3, 7)),
    ("Bilinear(3, 4, 2, bias=False)", [(2, 5, 3), (2, 5, 4)]),
    ("Bilinear(2, 3, 4)", [(2,), (3,)]),
    ("RMSNorm(6)", (3, 6)), ("RMSNorm([2, 6], eps=1e-3)", (3, 2, 6)),
    ("RMSNorm((4,), elementwise_affine=False)", (2, 3, 4)),
    ("CosineSimilarity()", [(3, 4), (3, 4)]),
    ("CosineSimilarity(dim=0, eps=1e-3)", [(3, 4), (1, 4)]),
    ("BatchNorm3d(3)", (2, 3, 2, 2, 3)), ("BatchNorm3d(2, momentum=None)", (3, 2, 1, 2, 2)),
    ("InstanceNorm1d(3)", (2, 3, 5)), ("InstanceNorm1d(3, affine=True)", (3, 6)),
    ("InstanceNorm2d(3, affine=True)", (2, 3, 4, 4)),
    ("InstanceNorm2d(3, track_running_stats=True)", (2, 3, 3, 4)),
    ("InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3)", (3, 3, 4)),
    ("InstanceNorm3d(2, affine=True, track_running_stats=True, momentum=None)",
     (2, 2, 2, 3, 3)),
    ("PixelShuffle(2)", (2, 8, 3, 3)), ("PixelShuffle(3)", (9, 2, 2)),
    ("PixelUnshuffle(2)", (2, 3, 4, 6)), ("PixelUnshuffle(1)", (2, 3, 2)),
    ("Unfold(2)", (2, 3, 4, 4)), ("Unfold((2, 3), dilation=2, padding=1, stride=(1, 2))",
                                  (3, 5, 6)),
    ("Fold((4, 5), 2)", (2, 12, 12)), ("Fold(4, (2, 2), padding=1, stride=2)", (8, 9)),
    ("LPPool2d(2, 2)", (2, 3, 4, 4)), ("LPPool2d(3, (2, 3), stride=1)", (3, 4, 5)),
    ("LPPool1d(2, 3)", (2, 3, 7)), ("LPPool1d(float('inf'), 2, ceil_mode=True)", (2, 3, 7)),
    ("LPPool2d(-float('inf'), 2)", (1, 2, 4, 4)),
    ("ChannelShuffle(2)", (2, 6, 3, 3)), ("ChannelShuffle(3)", (2, 6, 4)),
    ("LocalResponseNorm(3)", (2, 5, 4)), ("LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0)",
                                          (2, 6, 3, 3)),
    ("LocalResponseNorm(4, alpha=0.2)", (2, 5, 2, 2, 3)),
    ("Conv2d(2, 3, 4, padding='same')", (2, 2, 5, 6)),
    ("Conv1d(2, 3, 2, padding='same', dilation=3)", (2, 2, 7)),
    ("Conv1d(2, 3, 4, padding='same')", (2, 7)),
    # dropout masks: the same draws as torch after the same seed (train); identity in eval
    ("Dropout(0.3)", (4, 5)),
    ("Dropout1d(0.3)", (4, 6, 3)), ("Dropout1d(p=0.5)", (6, 3)), ("Dropout1d(1.0)", (2, 3, 4)),
    ("Dropout2d(0.4)", (3, 5, 2, 2)), ("Dropout2d(0.0)", (3, 5, 2, 2)),
    ("Dropout3d(0.25)", (2, 6, 2, 2, 2)), ("Dropout3d()", (6, 2, 2, 2)),
    ("AlphaDropout(0.2)", (5, 6)), ("AlphaDropout(1.0)", (2, 3)),
    ("FeatureAlphaDropout(0.3)", (4, 6, 3)),
    # padding layers: every mode, int and tuple forms, unbatched input
    ("ZeroPad1d(2)", (2, 3, 4)), ("ZeroPad1d((1, 0))", (3, 4)),
    ("ZeroPad2d(1)", (2, 2, 3, 3)), ("ZeroPad2d((1, 2, 0, 1))", (2, 3, 3)),
    ("ZeroPad2d((-1, 1, 0, 2))", (1, 2, 4, 4)),
    ("ConstantPad1d(2, 3.5)", (2, 3, 4)), ("ConstantPad2d((1, 0, 2, 1), -1.0)", (1, 2, 3, 3)),
    ("ConstantPad3d(1, 0.5)", (1, 2, 2, 2, 2)), ("ZeroPad3d((1, 0, 0, 1, 1, 0))", (2, 2, 2, 2)),
    ("ReflectionPad1d(2)", (2, 3, 4)), ("ReflectionPad1d((0, 3))", (3, 5)),
    ("ReflectionPad2d(1)", (2, 2, 3, 3)), ("ReflectionPad2d((2, 0, 1, 1))", (2, 3, 4)),
    ("ReplicationPad1d(3)", (2, 3, 4)), ("ReplicationPad2d((1, 2, 0, 3))", (1, 2, 3, 3)),
    ("ReplicationPad2d(2)", (2, 3, 3)),
    ("CircularPad1d(2)", (2, 3, 4)), ("CircularPad2d((1, 0, 2, 1))", (1, 2, 3, 3)),
    ("CircularPad2d(1)", (2, 3, 3)),
]


def _build(lib, spec: str, dtype: str, seed: int):
    lib.manual_seed(seed)
    module = eval("lib.nn." + spec, {"lib": lib})  # noqa: S307 - specs are literals above
    return module.to(getattr(lib, dtype))


def _inputs(lib, spec, shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if shape is None:  # Bilinear
        arrays = [rng.normal(size=(4, 3)), rng.normal(size=(4, 3))]
    elif isinstance(shape, list):  # layers of two inputs: one shape each
        arrays = [rng.normal(size=s) for s in shape]
    else:
        arrays = [rng.normal(size=shape)]
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


def _run(lib, spec, shape, dtype, training):
    module = _build(lib, spec, dtype, seed=7)
    init = {k: v.clone().numpy() for k, v in module.state_dict().items()}
    module.train(training)
    xs = _inputs(lib, spec, shape, dtype, seed=11)
    out = module(*xs)
    out2 = module(*xs)  # a second call: running statistics move again
    weight = np.random.default_rng(5).normal(size=tuple(out.shape))
    loss = (out * lib.tensor(weight, dtype=out.dtype)).sum() + out2.sum()
    loss.backward()
    state = {k: v.clone().numpy() for k, v in module.state_dict().items()}
    grads = {n: p.grad.numpy() for n, p in module.named_parameters() if p.grad is not None}
    name = out.grad_fn.name() if out.grad_fn is not None else None  # Identity: the input
    return dict(init=init, out=out.detach().numpy(), xgrads=[x.grad.numpy() for x in xs],
                grads=grads, state=state, repr=repr(module), name=name)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("spec,shape", LAYERS, ids=[s for s, _ in LAYERS])
def test_layer_matches_torch(spec, shape, dtype, training):
    ours, theirs = _run(leafgrad, spec, shape, dtype, training), _run(torch, spec, shape, dtype,
                                                                       training)
    def close(actual, desired):
        # float32 sums in another order cancel differently: atol scales with the magnitudes
        scale = max(1.0, float(np.abs(desired).max(initial=0)))
        if dtype == "float32":
            np.testing.assert_allclose(actual, desired, rtol=2e-5, atol=2e-6 * scale)
        else:
            np.testing.assert_allclose(actual, desired, rtol=1e-10, atol=1e-12 * scale)

    assert ours["repr"] == theirs["repr"]
    assert ours["name"] == theirs["name"]
    assert list(ours["init"]) == list(theirs["init"])
    for key in ours["init"]:  # same seed -> the same initial numbers
        np.testing.assert_array_equal(ours["init"][key], theirs["init"][key])
    close(ours["out"], theirs["out"])
    for a, b in zip(ours["xgrads"], theirs["xgrads"]):
        close(a, b)
    assert list(ours["grads"]) == list(theirs["grads"])
    for key in ours["grads"]:
        close(ours["grads"][key], theirs["grads"][key])
    for key in ours["state"]:
        close(ours["state"][key], theirs["state"][key])


def test_dropout_masks_match_torch_and_eval_is_identity():
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.Dropout(0.3)
        x = lib.ones(4, 5, requires_grad=True)
        y = layer(x)
        y.sum().backward()
        layer.eval()
        return y.detach().numpy(), x.grad.numpy(), layer(x) is x, repr(layer)

    ours, theirs = run(leafgrad), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1])
    assert ours[2:] == theirs[2:]


def test_embedding_padding_pretrained_and_grads():
    def run(lib):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(6, 3, padding_idx=-2)
        idx = lib.tensor([[0, 4, 4], [5, 1, 0]])
        out = emb(idx)
        (out * out).sum().backward()
        pre = lib.nn.Embedding.from_pretrained(lib.arange(6.0).reshape(3, 2))
        pre2 = lib.nn.Embedding.from_pretrained(lib.arange(6.0).reshape(3, 2), freeze=False,
                                               padding_idx=0)
        return (emb.weight.detach().numpy(), out.detach().numpy(), emb.weight.grad.numpy(),
                repr(emb), pre.weight.requires_grad, pre2.weight.requires_grad, repr(pre2),
                pre(lib.tensor([2, 0])).tolist())

    ours, theirs = run(leafgrad), run(torch)
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert ours[3:] == theirs[3:]


def test_batchnorm_state_dict_version_and_old_checkpoints():
    def run(lib):
        bn = lib.nn.BatchNorm1d(2)
        state = bn.state_dict()
        old = {k: v for k, v in state.items() if k != "num_batches_tracked"}
        result = bn.load_state_dict(old)  # a version-1 checkpoint: no num_batches_tracked
        return list(state), dict(state._metadata), repr(result), str(state["num_batches_tracked"].dtype)

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:3] == theirs[:3]
    assert ours[3].split(".")[-1] == theirs[3].split(".")[-1]


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0].replace("leafgrad.", "torch.")
    return None


BAD = [
    "nn.Conv2d(3, 4, 3, groups=2)", "nn.Conv2d(4, 3, 3, groups=2)", "nn.Conv2d(2, 2, 3, groups=0)",
    "nn.Conv2d(2, 2, 3, padding='full')", "nn.Conv2d(2, 2, 3, stride=2, padding='same')",
"nn.Dropout(1.5)", "nn.GroupNorm(3, 4)",
    "nn.Hardtanh(1.0, 0.0)", "nn.Linear(3, 2)(lib.zeros(2, 4))",
    "nn.Linear(3, 2)(lib.zeros(4))", "nn.BatchNorm2d(3)(lib.zeros(2, 3))",
    "nn.BatchNorm1d(3)(lib.zeros(2, 3, 4, 5))", "nn.BatchNorm1d(3)(lib.zeros(1, 3))",
    "nn.Embedding(3, 2, padding_idx=5)", "nn.LayerNorm(4)(lib.zeros(2, 3))",
    "nn.Unflatten(1, 3)", "nn.ConvTranspose2d(2, 2, 3, padding_mode='reflect')",
    "nn.Sequential(nn.Linear(2, 2))[5]", "nn.Embedding.from_pretrained(lib.zeros(3))",
    "nn.Conv2d(3, 3, 3)(lib.zeros(5, 5))", "nn.Conv1d(3, 3, 3)(lib.zeros(1, 1, 5, 5))",
    "nn.Conv2d(3, 3, 3)(lib.zeros(1, 2, 5, 5))", "nn.ConvTranspose2d(3, 3, 3)(lib.zeros(5, 5))",
    "nn.Dropout1d(0.5)(lib.zeros(2, 3, 4, 5))", "nn.Dropout1d(0.5)(lib.zeros(4))",
    "nn.Dropout2d(-0.1)", "nn.AlphaDropout(2)", "nn.FeatureAlphaDropout(0.5)(lib.zeros(3))",
    "nn.CircularPad2d(1)(lib.zeros(2, 3))", "nn.CircularPad1d(1)(lib.zeros(1, 2, 3, 4))",
    "nn.ReflectionPad1d(5)(lib.zeros(1, 2, 3))", "nn.ZeroPad2d((1, 2, 3))(lib.zeros(1, 2, 3, 3))",
    "nn.ReplicationPad2d(1)(lib.zeros(3))",
    "nn.Bilinear(2, 3, 4)(lib.zeros(2, 2), lib.zeros(3, 3))",
    "nn.Bilinear(2, 3, 4)(lib.zeros(2, 2), lib.zeros(2, 4))",
    "nn.Bilinear(2, 3, 4)(lib.zeros(2, 2), lib.zeros(2, 2, 3))",
    "nn.RMSNorm(4)(lib.zeros(2, 3))", "nn.RMSNorm([2, 3])(lib.zeros(3))",
    "nn.RMSNorm([])(lib.zeros(2))",
    "nn.InstanceNorm1d(3)(lib.zeros(2, 3, 4, 5))", "nn.InstanceNorm1d(3)(lib.zeros(2, 3, 1))",
    "nn.InstanceNorm2d(3, affine=True)(lib.zeros(2, 4, 5, 5))",
    "nn.BatchNorm3d(3)(lib.zeros(2, 3))",
    "lib.nn.functional.instance_norm(lib.zeros(2, 3, 4), use_input_stats=False)",
    "nn.InstanceNorm1d(3).load_state_dict({'running_mean': lib.ones(3)})",
    "nn.PixelShuffle(2)(lib.zeros(2, 3, 4, 4))", "nn.PixelShuffle(2)(lib.zeros(4, 4))",
    "nn.PixelShuffle(0)(lib.zeros(2, 4, 4, 4))", "nn.PixelShuffle(1.5)(lib.zeros(2, 4, 4, 4))",
    "nn.PixelUnshuffle(2)(lib.zeros(2, 3, 5, 4))", "nn.PixelUnshuffle(2)(lib.zeros(2, 3, 4, 5))",
    "nn.PixelUnshuffle(-1)(lib.zeros(2, 3, 4, 4))",
    "nn.Unfold(2)(lib.zeros(4, 4))", "nn.Unfold(5)(lib.zeros(1, 2, 4, 4))",
    "nn.Unfold(2, stride=0)(lib.zeros(1, 2, 4, 4))", "nn.Unfold(2)(lib.zeros(1, 1, 2, 4, 4))",
    "nn.Fold(4, 2)(lib.zeros(1, 7, 9))", "nn.Fold(4, 2)(lib.zeros(1, 8, 10))",
    "nn.Fold(4, 2)(lib.zeros(2, 1, 8, 9))", "nn.Fold(4, 2, padding=-1)(lib.zeros(1, 8, 9))",
    "nn.ChannelShuffle(3)(lib.zeros(2, 4, 3))", "nn.ChannelShuffle(2)(lib.zeros(2, 4))",
    "nn.ChannelShuffle(0)(lib.zeros(2, 4, 3))", "nn.ChannelShuffle(1.5)(lib.zeros(2, 4, 3))",
    "nn.LocalResponseNorm(2)(lib.zeros(2, 3))",
    "nn.ConvTranspose1d(2, 4, 3, padding_mode='circular')",
    "nn.ConvTranspose1d(2, 4, 3)(lib.zeros(1, 2, 5, 5))",
    "nn.ConvTranspose1d(2, 4, 3)(lib.zeros(1, 3, 5))",
    "nn.ConvTranspose1d(2, 4, 3, output_padding=1)(lib.zeros(1, 2, 5))",
    "nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=(0, 2))(lib.zeros(1, 2, 5, 5))",
    "nn.AdaptiveMaxPool1d(3)(lib.zeros(2, 3, 4, 5))",
    "nn.AdaptiveMaxPool1d((3, 2))(lib.zeros(2, 3, 4))",
    "nn.AdaptiveMaxPool2d((3, 2, 2))(lib.zeros(2, 3, 4))",
    "nn.AdaptiveMaxPool2d(2)(lib.zeros(2))",
    "nn.AdaptiveMaxPool2d(2)(lib.zeros(2, 0, 4))", "nn.AdaptiveMaxPool2d(-1)(lib.zeros(2, 3, 4))",
]


@pytest.mark.parametrize("code", BAD)
def test_bad_input_matches_torch(code):
    def run(lib):
        return _error(lambda: eval(code, {"lib": lib, "nn": lib.nn}))  # noqa: S307

    expected = run(torch)
    assert expected is not None
    assert run(leafgrad) == expected


def test_bad_padding_mode_lists_the_same_modes_as_torch():
    # torch prints a set, whose order varies from process to process: compare the contents
    import re

    def run(lib):
        kind, message = _error(lambda: lib.nn.Conv2d(2, 2, 3, padding_mode="mirror"))
        listed = sorted(re.findall(r"'(\w+)'", message))
        return kind, re.sub(r"\{.*\}", "{...}", message), listed

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("spec,shape", [
    ("MaxPool2d(2, return_indices=True)", (2, 3, 4, 4)),
    ("MaxPool1d(3, stride=2, return_indices=True)", (2, 9)),
    ("AdaptiveMaxPool2d((2, 3), return_indices=True)", (2, 3, 5, 7)),
    ("AdaptiveMaxPool1d(3, True)", (2, 3, 8)),
])
def test_pooling_indices_match_torch(spec, shape):
    def run(lib):
        module = eval("lib.nn." + spec, {"lib": lib})  # noqa: S307 - literals above
        x = lib.tensor(np.random.default_rng(0).normal(size=shape), requires_grad=True)
        values, indices = module(x)
        values.sum().backward()
        return (values.detach().numpy(), indices.numpy(), str(indices.dtype).split(".")[1],
                x.grad.numpy(), values.grad_fn.name())

    ours, theirs = run(leafgrad), run(torch)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


def test_adaptive_max_pool_picks_torchs_maximum_among_ties_and_nans():
    row = [1.0, 3.0, 3.0, float("nan"), 2.0, float("nan"), 5.0, 5.0]

    def run(lib):
        x = lib.tensor([[row, row[::-1]]], requires_grad=True)
        values, indices = lib.nn.functional.adaptive_max_pool2d(x, (1, 3), return_indices=True)
        values.nan_to_num().sum().backward()
        return values.detach().numpy(), indices.numpy(), x.grad.numpy()

    for a, b in zip(run(leafgrad), run(torch)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("spec,shape,size", [
    ("ConvTranspose2d(2, 3, 3, stride=2)", (1, 2, 4, 4), [10, 9]),
    ("ConvTranspose2d(2, 3, 3, stride=2)", (2, 4, 4), [3, 9, 10]),
    ("ConvTranspose2d(2, 3, 3, stride=2)", (1, 2, 4, 4), [1, 3, 9, 10]),
    ("ConvTranspose1d(2, 3, 3, stride=3, padding=1)", (1, 2, 4), [12]),
    ("ConvTranspose1d(2, 3, 3, stride=3, padding=1)", (2, 4), (3, 10)),
    ("ConvTranspose2d(2, 3, 3, stride=2)", (1, 2, 4, 4), [12, 9]),
    ("ConvTranspose2d(2, 3, 3, stride=2)", (1, 2, 4, 4), [9, 9, 9]),
    ("ConvTranspose1d(2, 3, 3, stride=3)", (1, 2, 4), [8]),
])
def test_conv_transpose_output_size_matches_torch(spec, shape, size):
    def run(lib):
        lib.manual_seed(0)
        module = eval("lib.nn." + spec, {"lib": lib})  # noqa: S307 - literals above
        x = lib.tensor(np.random.default_rng(0).normal(size=shape), dtype=lib.float32)
        try:
            out = module(x, output_size=size)
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0]
        return out.detach().numpy()

    ours, theirs = run(leafgrad), run(torch)
    if isinstance(theirs, tuple):
        assert ours == theirs
    else:
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)


def test_instance_norm_warns_like_torch_when_channels_differ_without_affine():
    import warnings

    def run(lib):
        layer = lib.nn.InstanceNorm1d(3)
        x = lib.tensor(np.random.default_rng(0).normal(size=(2, 4, 5)), dtype=lib.float32)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = layer(x)
        return out.numpy(), [str(w.message) for w in caught]

    (ours, our_warnings), (theirs, their_warnings) = run(leafgrad), run(torch)
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)
    assert our_warnings == their_warnings and our_warnings


@pytest.mark.parametrize("spec,shape", LAYERS[::3], ids=[s for s, _ in LAYERS[::3]])
def test_layers_survive_deepcopy_and_pickle(spec, shape):
    import copy
    import pickle

    module = _build(leafgrad, spec, "float64", seed=3).eval()
    xs = _inputs(leafgrad, spec, shape, "float64", seed=4)
    expected = module(*xs)
    for clone in (copy.deepcopy(module), pickle.loads(pickle.dumps(module))):
        assert repr(clone) == repr(module)
        assert [type(p) for p in clone.parameters()] == [type(p) for p in module.parameters()]
        assert list(clone.state_dict()) == list(module.state_dict())
        out = clone(*xs)
        got = out[0] if isinstance(out, tuple) else out
        want = expected[0] if isinstance(expected, tuple) else expected
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", [dict(scale_grad_by_freq=True),
                                     dict(scale_grad_by_freq=True, padding_idx=1),
                                     dict(scale_grad_by_freq=True, max_norm=1.0)])
def test_embedding_scale_grad_by_freq_matches_torch(options, dtype):
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.Embedding(5, 3, **options).to(getattr(lib, dtype))
        idx = lib.tensor([[0, 2, 4, 1], [2, 2, 1, 0]])
        out = layer(idx)
        w = lib.tensor(np.random.default_rng(0).normal(size=(2, 4, 3)), dtype=out.dtype,
                       requires_grad=True)
        grad, = lib.autograd.grad((out * w).sum(), layer.weight, create_graph=True)
        (grad * grad).sum().backward()  # torch's double backward does not rescale: same here
        return (repr(layer), out.detach().numpy(), grad.detach().numpy(), w.grad.numpy(),
                grad.grad_fn.name())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[0] == theirs[0] and ours[4] == theirs[4]
    for a, b in zip(ours[1:4], theirs[1:4]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pool,unpool,shape,size", [
    ("MaxPool2d(2, return_indices=True)", "MaxUnpool2d(2)", (2, 3, 4, 6), None),
    ("MaxPool2d(3, stride=2, padding=1, return_indices=True)",
     "MaxUnpool2d(3, stride=2, padding=1)", (1, 2, 7, 7), [7, 7]),
    ("MaxPool2d((2, 3), return_indices=True)", "MaxUnpool2d((2, 3))", (3, 4, 6), [1, 3, 5, 7]),
    ("MaxPool1d(2, return_indices=True)", "MaxUnpool1d(2)", (2, 3, 8), None),
    ("MaxPool1d(3, stride=2, return_indices=True)", "MaxUnpool1d(3, stride=2)", (3, 9), [10]),
])
def test_max_unpool_matches_torch(pool, unpool, shape, size, dtype):
    def run(lib):
        x = lib.tensor(np.random.default_rng(0).normal(size=shape), dtype=getattr(lib, dtype),
                       requires_grad=True)
        values, indices = eval("lib.nn." + pool, {"lib": lib})(x)  # noqa: S307
        layer = eval("lib.nn." + unpool, {"lib": lib})  # noqa: S307
        out = layer(values, indices, output_size=size)
        weight = lib.tensor(np.random.default_rng(1).normal(size=tuple(out.shape)), dtype=out.dtype)
        (out * weight).sum().backward()
        return repr(layer), out.grad_fn.name(), out.detach().numpy(), x.grad.numpy()

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:2] == theirs[:2]
    np.testing.assert_array_equal(ours[2], theirs[2])
    np.testing.assert_array_equal(ours[3], theirs[3])


@pytest.mark.parametrize("code", [
    "F.max_unpool2d(v, i.int(), 2)", "F.max_unpool2d(v, i[..., :1], 2)",
    "F.max_unpool2d(v, i + 100, 2)", "F.max_unpool2d(v, i, 2, output_size=(7, 5))",
    "F.max_unpool2d(v, i, 2, output_size=(5,))", "F.max_unpool2d(v[0, 0], i[0, 0], 2)",
    "F.max_unpool2d(v, i, 2, stride=1)",
])
def test_max_unpool_errors_match_torch(code):
    def run(lib):
        x = lib.arange(32.0).reshape(1, 2, 4, 4)
        v, i = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
        try:
            eval(code, {"F": lib.nn.functional, "v": v, "i": i})  # noqa: S307
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0]
        return None

    expected = run(torch)
    assert expected is not None
    assert run(leafgrad) == expected
