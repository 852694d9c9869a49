"""vmap over every op-table sample: a random batch equals stacking per-example results.

For each sample of ``tests/ops/samples*.py``: B examples (B random in 2..4) of every input are
stacked along a random dim; ``vmap(sample)`` over them must equal ``stack([sample(example_i)])``
and its gradients (of a random projection of the output) must equal the loop's. The same runs
with only the first input batched (the others shared by every example). Ops that fall back to
the per-example loop are recorded in ``FALLBACK_OPS`` below: the test fails if that set
changes, so a new rule (or a lost one) shows up.
"""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import OPS

from ..ops.samples import SAMPLES, values

CASES = [
    pytest.param(name, i, id=f"{name}-{i}")
    for name in sorted(OPS)
    for i in range(len(SAMPLES.get(name, [])))
]

# Samples whose sample itself cannot run under vmap, with the reason (torch refuses them too).
NOT_VMAPPABLE = {
    "_copy_slices_grad": "calls autograd.grad on a graph built inside the sample",
    "_regenerated_view": "in-place on a view whose base history is rewritten",
    "_source_grad": "requires_grad_() on a leaf made inside the sample (torch's functorch error)",
}


# Samples that vmap refuses, with the start of the error, as torch refuses them.
MASK_INDEX = "vmap: We do not support batching operators that can support dynamic shape."
MASK_SELECT = "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask)"
RANDOM = "vmap: called random operation while in randomness error mode."
REFUSED = {
    ("Index", 2): MASK_INDEX,  # a[a > 0]
    ("MaskedSelect", 0): MASK_SELECT,
    ("MaskedSelect", 1): MASK_SELECT,
    ("RreluWithNoise", 1): RANDOM,
    ("RreluWithNoiseInplace", 1): RANDOM,
    ("NativeDropout", 1): RANDOM,
    ("Poisson", 0): RANDOM,
    ("Poisson", 1): RANDOM,
    ("NormalFloatTensor", 0): RANDOM,
    ("NormalTensorFloat", 0): RANDOM,
    ("NormalTensorTensor", 0): RANDOM,
    # repeat_interleave with a tensor of repeats reads the repeats' values
    ("IndexSelect", 3): "only one element tensors can be converted to Python scalars",
}


# Ops without a batching rule: vmap loops over the examples (see test_ops_without_batching_rules).
LOOP_FALLBACK = {
    "Addbmm", "Addr", "BlockDiag", "MaskedScatter", "ConvTbc",
    "NormalFloatTensor", "NormalTensorFloat", "NormalTensorTensor",
    "AdaptiveAvgPoolBackward", "AdaptiveMaxPoolBackward", "AdaptiveAvgPool3dBackward",
    "AdaptiveMaxPool3dBackward", "AvgPool3dBackward", "MaxPool3dBackward",
    "AffineGridGenerator", "GridSampler2d", "FractionalMaxPool2d",
    "FractionalMaxPool2dBackward", "FractionalMaxPool3d", "FractionalMaxPool3dBackward",
    "AsStrided",
    "AsStridedInplace",
    "AsStridedPublic", "AsStridedScatterAdd", "AvgPoolBackward", "BatchNorm",
    "EmbeddingBackward", "IndexBackward", "LSTMLayer", "PackPaddedSequence",
    "MaskedSelect", "MaxPoolBackward", "MultiMarginLoss", "NllLoss2d", "NllLossBackward",
    "Prelu", "Take", "ViewScatter", "WeightNormInterface",
    # sdpa's fused CPU node (torch's flash-attention kernel for 4-d inputs): per example
    "ScaledDotProductFlashAttentionForCpu",
    # create_graph's nodes for a convolution's and nll_loss2d's backward (vmap records the
    # convolution's separate ops instead)
    "ConvolutionBackward", "NllLoss2dBackward", "MseLossBackward", "SmoothL1LossBackward",
    "HuberLossBackward", "BinaryCrossEntropyBackward", "BatchNormBackward",
    "SoftMarginLossBackward",
    "BatchNormEvalBackward", "LayerNormBackward", "SoftplusBackward", "HardswishBackward",
    "LogSigmoidBackward", "GluBackward", "PreluBackward", "RreluWithNoiseBackward",
    "GridSampler2dBackward",
    # added with the training-stack gaps (issue 8), no rule yet: the upsampling adjoints (their
    # input_size holds N), CTC, multilabel margin and embedding-bag losses
    "CtcLoss", "EmbeddingBag", "MultilabelMarginLoss",
    # added with the bad-input work (issue 11): index_fill, index_copy, put
    "IndexCopy", "IndexFill", "IndexFillTensor", "Put",
    "UpsampleBicubic2DBackward", "UpsampleBilinear2DBackward", "UpsampleLinear1DBackward",
    "UpsampleNearest1DBackward", "UpsampleNearest2DBackward", "UpsampleNearest3DBackward",
    "UpsampleNearestExact1DBackward", "UpsampleNearestExact2DBackward",
    "UpsampleNearestExact3DBackward", "UpsampleTrilinear3DBackward",
    "UpsampleBilinear2DAaBackward", "UpsampleBicubic2DAaBackward",  # antialias (as the others)
    # added with the torch-namespace functions: as_strided over each example's own memory,
    # native_dropout's mask (drawn outside the op), native_group_norm's statistics outputs
    "AsStridedPublicCopy", "AsStridedScatter", "NativeDropout", "NativeGroupNorm",
    # masked_scatter's source gradient node (under vmap the formula runs its composite ops)
    "MaskedScatterBackward",
}
# Ops whose rule covers most calls and defers the rest to the loop (a batched index array,
# a batched weight of a transposed conv, eval batch norm or an embedding, roll without dims).
PARTIAL_RULES = {"BatchNormEval", "ConvTranspose", "Embedding", "Roll", "Unfold"}


def _examples(name, index, batch, rng):
    sample = SAMPLES[name][index]
    stacks = []
    for shape, domain in sample.shapes:
        stacks.append(np.stack([values(shape, domain, rng) for _ in range(batch)]))
    return sample, stacks


def _flat(out):
    return out if isinstance(out, (tuple, list)) else (out,)


def _under_grad_level(call):
    """For a sample that calls autograd.grad (the double-backward samples' ``_grad_of``): the
    sample run inside a grad transform opened inside vmap: torch's autograd.grad refuses
    a tensor whose outermost wrapper is the vmap's (it does not require grad), and accepts the
    grad level's tensors; the sample's outputs come back as the transform's aux."""

    def run(*xs):
        def inner(*ys):
            return leafgrad.zeros((), dtype=leafgrad.float64), call(leafgrad, *ys)

        return leafgrad.func.grad(inner, argnums=tuple(range(len(xs))), has_aux=True)(*xs)[1]

    return run


def _run_case(name, index, share_rest: bool):
    rng = np.random.default_rng(zlib.crc32(f"vmap-{name}-{index}-{share_rest}".encode()))
    batch = int(rng.integers(2, 5))
    sample, stacks = _examples(name, index, batch, rng)
    if getattr(sample.call, "__name__", "") in NOT_VMAPPABLE:
        pytest.skip(NOT_VMAPPABLE[sample.call.__name__])
    in_dims = []
    inputs = []
    for position, array in enumerate(stacks):
        if share_rest and position > 0:
            array = array[0]
            in_dims.append(None)
        else:
            dim = int(rng.integers(0, array.ndim))
            array = np.moveaxis(array, 0, dim)
            in_dims.append(dim)
        inputs.append(leafgrad.tensor(array, dtype=leafgrad.float64, requires_grad=True))

    def example(i):
        return [t.select(d, i) if d is not None else t for t, d in zip(inputs, in_dims)]

    expected = []
    for i in range(batch):
        expected.append(_flat(sample.call(leafgrad, *example(i))))
    mapped = leafgrad.vmap(lambda *xs: sample.call(leafgrad, *xs), in_dims=tuple(in_dims))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mapped(*inputs)
    except RuntimeError as error:
        if str(error).startswith("element 0 of tensors does not require grad"):
            mapped = leafgrad.vmap(_under_grad_level(sample.call), in_dims=tuple(in_dims))
    except ValueError:
        pass
    if (name, index) in REFUSED and (not share_rest or REFUSED[name, index] == RANDOM):
        # (a random op refuses whichever inputs are batched)
        with pytest.raises((RuntimeError, ValueError)) as error:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mapped(*inputs)
        assert str(error.value).startswith(REFUSED[name, index])
        return set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = mapped(*inputs)
    fallback = {str(w.message).split("rule for ")[1].split(".")[0] for w in caught
                if "performance drop" in str(w.message)}
    got = _flat(got)
    assert len(got) == len(expected[0])
    for position, out in enumerate(got):
        want = leafgrad.stack([row[position] for row in expected])
        assert tuple(out.shape) == tuple(want.shape)
        assert out.dtype == want.dtype
        np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    differentiable = [(g, w) for g, w in zip(got, expected[0]) if g.requires_grad]
    if differentiable:
        projections = [leafgrad.tensor(rng.normal(size=tuple(g.shape))) for g, _ in
                       differentiable]
        total = sum((g * p).sum() for (g, _), p in zip(differentiable, projections))
        grads = leafgrad.autograd.grad(total, inputs, allow_unused=True)
        loop_total = 0
        for i in range(batch):
            for (position, p) in zip(
                    [k for k, g in enumerate(got) if g.requires_grad], projections):
                loop_total = loop_total + (expected[i][position] * p[i]).sum()
        want_grads = leafgrad.autograd.grad(loop_total, inputs, allow_unused=True)
        for g, w in zip(grads, want_grads):
            if w is None:
                assert g is None or not np.any(g.numpy())
                continue
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-9, atol=1e-11)
    return fallback


@pytest.mark.parametrize("name,index", CASES)
def test_vmap_matches_loop(name, index):
    _check_fallback(name, index, _run_case(name, index, share_rest=False))


MULTI = [pytest.param(name, i, id=f"{name}-{i}") for name in sorted(OPS)
         for i, s in enumerate(SAMPLES.get(name, [])) if len(s.shapes) > 1]


@pytest.mark.parametrize("name,index", MULTI)
def test_vmap_with_shared_inputs(name, index):
    _check_fallback(name, index, _run_case(name, index, share_rest=True))


def _check_fallback(name, index, used: set) -> None:
    import os

    if os.environ.get("LEAFGRAD_PRINT_FALLBACK"):
        print("FALLBACK", name, index, sorted(used))
    unexpected = used - LOOP_FALLBACK - PARTIAL_RULES
    assert not unexpected, f"ops that fell back to the per-example loop: {unexpected}"


def test_ops_without_batching_rules():
    """The ops that run as a per-example loop under vmap (each warns once), kept explicit so
    that a lost or new rule shows up here."""
    from leafgrad.ops._batching import rule_for

    assert {name for name, cls in OPS.items() if rule_for(cls) is None} == LOOP_FALLBACK
