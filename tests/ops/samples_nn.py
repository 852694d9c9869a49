"""Samples for nn.functional ops (ops/activation.py, ops/loss.py, ops/norm.py, Addmm)."""

from __future__ import annotations

from .samples import Sample

A, AWAY, POS, UNIT = "any", "away0", "pos", "unit"


def F(lib):
    return lib.nn.functional


def _second(lib, fn, *inputs):
    """The first derivative, recorded, so the table differentiates it again (double backward)."""
    out = fn(*inputs)
    return lib.autograd.grad((out * out).sum(), inputs[0], create_graph=True)[0]


def _second_all(lib, fn, *inputs):
    """Every input's first derivative, recorded and flattened into one tensor."""
    out = fn(*inputs)
    grads = lib.autograd.grad((out * out).sum(), inputs, create_graph=True)
    return lib.cat([g.flatten() for g in grads])


def _targets(lib):
    return lib.tensor([1, 0, 3], dtype=lib.int64)


def _probabilities(lib):
    return lib.tensor([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1], [0.25, 0.25, 0.25, 0.25]],
                      dtype=lib.float64)


def _constant(lib, values):
    return lib.tensor(values, dtype=lib.float64)


SAMPLES = {
    "Addmm": [
        Sample(lambda lib, b, x, w: F(lib).linear(x, w, b), (((4,), A), ((3, 5), A), ((4, 5), A))),
        Sample(lambda lib, b, x, w: F(lib).linear(x, w, b), (((4,), A), ((2, 3, 5), A), ((4, 5), A)),
               note="batched input: addmm on the flattened rows, then view"),
    ],
    "LeakyRelu": [Sample(lambda lib, x: F(lib).leaky_relu(x, 0.2), (((2, 3), AWAY),))],
    "Elu": [
        Sample(lambda lib, x: F(lib).elu(x, 0.7), (((2, 3), AWAY),)),
        Sample(lambda lib, x: F(lib).selu(x), (((4,), AWAY),)),
    ],
    "Celu": [Sample(lambda lib, x: F(lib).celu(x, 1.5), (((), AWAY),))],
    "Gelu": [
        Sample(lambda lib, x: F(lib).gelu(x), (((2, 3), A),)),
        Sample(lambda lib, x: F(lib).gelu(x, approximate="tanh"), (((5,), A),)),
    ],
    "GeluBackward": [
        Sample(lambda lib, x: _second(lib, F(lib).gelu, x), (((2, 3), A),), check_node=False,
               note="torch's GeluBackward0 backward records different internal nodes"),
        Sample(lambda lib, x: _second(lib, lambda t: F(lib).gelu(t, approximate="tanh"), x),
               (((4,), A),), check_node=False),
    ],
    "Silu": [Sample(lambda lib, x: F(lib).silu(x), (((2, 3), A),))],
    "SoftplusBackward": [
        Sample(lambda lib, x: _second_all(lib, lambda t: F(lib).softplus(t, 2.0, 1.0), x),
               (((3, 4), A),)),
    ],
    "Softplus": [
        Sample(lambda lib, x: F(lib).softplus(x), (((2, 3), A),)),
        Sample(lambda lib, x: F(lib).softplus(x * 10, beta=2, threshold=5), (((6,), AWAY),)),
    ],
    "Mish": [Sample(lambda lib, x: F(lib).mish(x), (((2, 3), A),))],
    "Hardtanh": [
        Sample(lambda lib, x: F(lib).hardtanh(x * 2), (((2, 3), AWAY),)),
        Sample(lambda lib, x: F(lib).relu6(x * 8), (((5,), AWAY),)),
    ],
    "Softmax": [
        Sample(lambda lib, x: F(lib).softmax(x, 1), (((2, 3), A),)),
        Sample(lambda lib, x: x.softmax(-1) if hasattr(x, "softmax") else F(lib).softmax(x, -1),
               (((2, 2, 3), A),)),
        Sample(lambda lib, x: F(lib).softmax(x.t(), 0), (((3, 2), A),), note="non-contiguous"),
    ],
    "Trilinear": [  # torch's _trilinear, reached through bilinear
        Sample(lambda lib, a, b, w, bias: F(lib).bilinear(a, b, w, bias),
               (((3, 2), A), ((3, 4), A), ((5, 2, 4), A), ((5,), A))),
        Sample(lambda lib, a, b, w: F(lib).bilinear(a, b, w),
               (((2, 1, 2), A), ((2, 1, 3), A), ((2, 2, 3), A))),
    ],
    "SafeSoftmax": [  # torch's _safe_softmax, reached through scaled_dot_product_attention
        Sample(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(
            q, k, v, attn_mask=lib.tensor([[True, False, True], [False, False, False]])),
            (((2, 2, 4), A), ((2, 3, 4), A), ((2, 3, 2), A)), note="a fully masked query"),
        Sample(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, is_causal=True),
               (((1, 2, 3, 2), A), ((1, 2, 3, 2), A), ((1, 2, 3, 1), A))),
    ],
    "LogSoftmax": [
        Sample(lambda lib, x: F(lib).log_softmax(x, 1), (((2, 3), A),)),
        Sample(lambda lib, x: F(lib).log_softmax(x, 0), (((4,), A),)),
    ],
    "SoftmaxBackwardData": [
        Sample(lambda lib, x, w, dim=dim: lib.autograd.grad(F(lib).softmax(x, dim), x, w,
                                                   create_graph=True)[0],
               (((2, 3), A), ((2, 3), A)), note=f"double backward of softmax (dim {dim})")
        for dim in (1, 0)
    ],
    "LogSoftmaxBackwardData": [
        Sample(lambda lib, x, w, dim=dim: lib.autograd.grad(F(lib).log_softmax(x, dim), x, w,
                                                   create_graph=True)[0],
               (((2, 3), A), ((2, 3), A)), note=f"double backward of log_softmax (dim {dim})")
        for dim in (-1, 0)
    ],
    "ScaledDotProductFlashAttentionForCpu": [
        Sample(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v),
               (((1, 2, 3, 4), A), ((1, 2, 5, 4), A), ((1, 2, 5, 4), A))),
        Sample(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                          scale=0.7),
               (((2, 1, 4, 3), A), ((2, 1, 4, 3), A), ((2, 1, 4, 3), A)), note="causal, scale"),
    ],
    "DivScalar": [
        Sample(lambda lib, x: F(lib).cross_entropy(x, _probabilities(lib)), (((3, 4), A),)),
    ],
    "MseLoss": [
        Sample(lambda lib, x, y: F(lib).mse_loss(x, y), (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, x, y: F(lib).mse_loss(x, y, reduction="none"), (((3,), A), ((3,), A))),
        Sample(lambda lib, x, y: F(lib).mse_loss(x, y, reduction="sum"), (((), A), ((), A))),
    ],
    "SmoothL1Loss": [
        Sample(lambda lib, x, y: F(lib).smooth_l1_loss(x * 3, y), (((2, 4), A), ((2, 4), A))),
        Sample(lambda lib, x, y: F(lib).smooth_l1_loss(x, y, reduction="none", beta=0.5),
               (((5,), A), ((5,), A))),
    ],
    "HuberLoss": [
        Sample(lambda lib, x, y: F(lib).huber_loss(x * 3, y, delta=0.8), (((2, 4), A), ((2, 4), A))),
        Sample(lambda lib, x, y: F(lib).huber_loss(x, y, reduction="sum"), (((5,), A), ((5,), A))),
    ],
    # create_graph's nodes for the losses' backwards (MseLossBackwardBackward0...)
    "MseLossBackward": [
        Sample(lambda lib, x, y: _second_all(lib, F(lib).mse_loss, x, y),
               (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, x, y: _second_all(
            lib, lambda a, b: F(lib).mse_loss(a, b, reduction="none"), x, y),
            (((3,), A), ((3,), A))),
    ],
    "SmoothL1LossBackward": [
        Sample(lambda lib, x, y: _second_all(
            lib, lambda a, b: F(lib).smooth_l1_loss(a * 3, b, reduction="sum"), x, y),
            (((2, 4), A), ((2, 4), A))),
    ],
    "HuberLossBackward": [
        Sample(lambda lib, x, y: _second_all(
            lib, lambda a, b: F(lib).huber_loss(a * 3, b, delta=0.8), x, y),
            (((2, 4), A), ((2, 4), A))),
    ],
    "BinaryCrossEntropyBackward": [
        Sample(lambda lib, x, y: _second_all(
            lib, lambda a, b: F(lib).binary_cross_entropy(a.sigmoid(), b.sigmoid()), x, y),
            (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, x: _second(lib, lambda a: F(lib).binary_cross_entropy(
            a.sigmoid(), _constant(lib, [0.0, 0.3, 1.0, 0.5]),
            weight=_constant(lib, [1.0, 0.5, 2.0, 0.1]), reduction="none"), x),
            (((4,), A),)),
    ],
    "NllLoss": [
        Sample(lambda lib, x: F(lib).nll_loss(x, _targets(lib)), (((3, 4), A),)),
        Sample(lambda lib, x: F(lib).cross_entropy(x, _targets(lib)), (((3, 4), A),)),
        Sample(lambda lib, x: F(lib).cross_entropy(x, _targets(lib),
                                                   weight=_constant(lib, [0.5, 1.0, 2.0, 0.3])),
               (((3, 4), A),)),
        Sample(lambda lib, x: F(lib).cross_entropy(x, lib.tensor([1, -100, 3]), reduction="sum"),
               (((3, 4), A),)),
        Sample(lambda lib, x: F(lib).cross_entropy(x, _targets(lib), label_smoothing=0.2),
               (((3, 4), A),)),
    ],
    "NllLoss2d": [
        Sample(lambda lib, x: F(lib).nll_loss(x, lib.tensor([[0, 2], [1, 1]]), reduction="none"),
               (((2, 3, 2), A),), note="spatial targets, viewed through the 2-d kernel"),
        Sample(lambda lib, x: F(lib).cross_entropy(x, lib.tensor([[[0], [2]], [[1], [1]]])),
               (((2, 3, 2, 1), A),)),
    ],
    "NllLossBackward": [
        Sample(lambda lib, x: _second(lib, lambda t: F(lib).cross_entropy(t, _targets(lib)), x),
               (((3, 4), A),), check_node=False),
    ],
    "NllLoss2dBackward": [
        Sample(lambda lib, x: _second(lib, lambda t: F(lib).cross_entropy(
            t, lib.tensor([[[0], [2]], [[1], [1]]])), x), (((2, 3, 2, 1), A),)),
    ],
    "BinaryCrossEntropy": [
        Sample(lambda lib, x, y: F(lib).binary_cross_entropy(x.sigmoid(), y.sigmoid()),
               (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, x: F(lib).binary_cross_entropy(
            x.sigmoid(), _constant(lib, [0.0, 0.3, 1.0, 0.5]),
            weight=_constant(lib, [1.0, 0.5, 2.0, 0.1]), reduction="none"),
            (((4,), A),), note="weight is not differentiable (torch's rule)"),
    ],
    "BinaryCrossEntropyWithLogits": [
        Sample(lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(x, y.sigmoid()),
               (((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(
            x, y.sigmoid(), pos_weight=_constant(lib, [0.5, 1.0, 2.0, 3.0]), reduction="sum"),
            (((4,), A), ((4,), A))),
    ],
    "LayerNorm": [
        Sample(lambda lib, x: F(lib).layer_norm(x, (4,)), (((3, 4), A),)),
        Sample(lambda lib, x, w, b: F(lib).layer_norm(x, (2, 3), w, b), (((2, 2, 3), A), ((2, 3), A), ((2, 3), A))),
    ],
    "BatchNorm": [
        Sample(lambda lib, x, w, b: F(lib).batch_norm(x, None, None, w, b, training=True),
               (((4, 3), A), ((3,), A), ((3,), A))),
        Sample(lambda lib, x: F(lib).batch_norm(x, None, None, training=True), (((2, 2, 3, 2), A),)),
    ],
    "BatchNormEval": [
        Sample(lambda lib, x, w, b: F(lib).batch_norm(x, lib.tensor([0.1, -0.2, 0.3], dtype=x.dtype),
                                                      lib.tensor([1.0, 2.0, 0.5], dtype=x.dtype), w, b),
               (((4, 3, 2), A), ((3,), A), ((3,), A))),
    ],
    # create_graph's nodes for the normalisations' backwards (Native*NormBackwardBackward0)
    "LayerNormBackward": [
        Sample(lambda lib, x, w, b: _second_all(
            lib, lambda *t: F(lib).layer_norm(t[0], (2, 3), t[1], t[2]), x, w, b),
            (((2, 2, 3), A), ((2, 3), A), ((2, 3), A))),
        Sample(lambda lib, x: _second(lib, lambda t: F(lib).layer_norm(t, (4,)), x),
               (((3, 4), A),)),
    ],
    "BatchNormBackward": [
        Sample(lambda lib, x, w, b: _second_all(
            lib, lambda *t: F(lib).batch_norm(t[0], None, None, t[1], t[2], training=True),
            x, w, b), (((4, 3), A), ((3,), A), ((3,), A))),
        Sample(lambda lib, x: _second(
            lib, lambda t: F(lib).batch_norm(t, None, None, training=True), x),
            (((2, 2, 3, 2), A),)),
    ],
    "BatchNormEvalBackward": [
        Sample(lambda lib, x, w, b: _second_all(lib, lambda *t: F(lib).batch_norm(
            t[0], lib.tensor([0.1, -0.2, 0.3], dtype=x.dtype),
            lib.tensor([1.0, 2.0, 0.5], dtype=x.dtype), t[1], t[2]), x, w, b),
            (((4, 3, 2), A), ((3,), A), ((3,), A))),
    ],
    "GroupNorm": [
        Sample(lambda lib, x, w, b: F(lib).group_norm(x, 2, w, b), (((2, 4, 3), A), ((4,), A), ((4,), A))),
    ],
    "Embedding": [
        Sample(lambda lib, w: F(lib).embedding(lib.tensor([[0, 2], [4, 0]]), w), (((5, 3), A),)),
        Sample(lambda lib, w: F(lib).embedding(lib.tensor([1, 1, 3]), w, padding_idx=1), (((5, 3), A),),
               finite_differences=False,
               note="the padding row gets no gradient by definition, so finite differences "
                    "disagree there; its gradient is compared with torch's instead"),
    ],
    "EmbeddingBackward": [
        Sample(lambda lib, w: _second(lib, lambda t: F(lib).embedding(lib.tensor([0, 2, 2]), t), w),
               (((4, 3), A),)),
    ],
    "ConstantPadNd": [
        Sample(lambda lib, x: F(lib).pad(x, (1, 2)), (((2, 3), A),)),
        Sample(lambda lib, x: F(lib).pad(x, (0, 1, -1, 1), value=0.5), (((2, 3), A),)),
    ],
}

for _mode, _title in (("reflect", "Reflection"), ("replicate", "Replication")):
    for _dims, _shape in ((1, (2, 3, 4)), (2, (1, 2, 3, 4)), (3, (1, 1, 3, 3, 3))):
        _pad = (1, 2, 2, 1, 1, 1)[: 2 * _dims]
        SAMPLES[f"{_title}Pad{_dims}d"] = [
            Sample(lambda lib, x, p=_pad, m=_mode: F(lib).pad(x, p, mode=m), ((_shape, A),)),
        ]
        SAMPLES[f"{_title}Pad{_dims}dBackward"] = [
            Sample(lambda lib, x, p=_pad, m=_mode: _second(lib, lambda t: F(lib).pad(t, p, mode=m), x),
                   ((_shape, A),)),
        ]
