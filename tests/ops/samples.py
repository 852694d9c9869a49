"""Sample inputs for every op in ``leafgrad.ops.OPS``.

Each sample is a function ``call(lib, *tensors)`` written against the torch API (so it runs with
``lib=torch`` and ``lib=leafgrad``) plus the inputs it takes, described as ``(shape, domain)``.
The table test checks that the op's node occurs in the sample's graph and that the output's
grad_fn name equals torch's (unless ``check_node`` is False).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Sample:
    call: Callable
    shapes: tuple  # one (shape, domain) per tensor input; domain: "any", "pos", "away0", "unit"
    node: str | None = None
    check_node: bool = True
    second_order: bool = True
    finite_differences: bool = True  # False only where torch defines a non-derivative gradient
    note: str = ""
    # gradcheck options for samples that leave float64 (a cast to float32 loses precision)
    check_options: dict = field(default_factory=dict)


def values(shape: tuple, domain: str, rng: np.random.Generator) -> np.ndarray:
    """Float64 values in a domain where the op is smooth (finite differences are reliable)."""
    if domain == "pos":
        return rng.uniform(0.5, 2.0, shape)
    if domain == "away0":  # |x| in [0.3, 1.5] with random sign: no kink of abs/relu/sign nearby
        return rng.uniform(0.3, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    if domain == "unit":
        return rng.uniform(-0.9, 0.9, shape)
    return rng.normal(size=shape)


A = "any"
S23, S3, S0, S13, S31, S1 = (2, 3), (3,), (), (1, 3), (3, 1), (1,)

def _regenerated_view(lib, a):
    x = a * 1
    view = x[1:]
    x.mul_(2)  # rewrites x's history: view's grad_fn is regenerated (AsStridedBackward0)
    return view * 1


def _copy_slices_grad(lib, a):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.mark_dirty(t)
            return t.mul_(2)

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

        @staticmethod
        def jvp(ctx, tangent):
            return tangent.mul_(2)

    x = a * a
    # a custom Function's in-place op on a view: its CopySlices' backward under create_graph
    # records AsStridedScatter (an op's CopySlices takes torch's copy_ steps instead)
    Double.apply(x[0:2])
    return lib.autograd.grad((x * x).sum(), a, create_graph=True)[0]


def _index_put(lib, a, b):
    x = a * 1
    x[[0, 2]] = b
    return x


SAMPLES: dict[str, list[Sample]] = {
    "Add": [
        Sample(lambda lib, a, b: a + b, ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: a + b, ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: lib.add(a, b, alpha=2.5), ((S31, A), (S13, A))),
        Sample(lambda lib, a, b: a + b, ((S0, A), (S23, A))),
        Sample(lambda lib, a: a + 2, ((S3, A),)),
        Sample(lambda lib, a: 1.5 + a, ((S0, A),)),
    ],
    "Sub": [
        Sample(lambda lib, a, b: a - b, ((S23, A), (S13, A))),
        Sample(lambda lib, a, b: lib.sub(a, b, alpha=3), ((S0, A), (S3, A))),
        Sample(lambda lib, a: a - 1, ((S23, A),)),
    ],
    "Rsub": [Sample(lambda lib, a: 1 - a, ((S23, A),)), Sample(lambda lib, a: 2.0 - a, ((S0, A),))],
    "RsubTensor": [
        Sample(lambda lib, a, b: lib.rsub(a, b), ((S23, A), (S13, A))),
        Sample(lambda lib, a, b: lib.rsub(a, b, alpha=2.5), ((S0, A), (S3, A))),
        Sample(lambda lib, a, b: a.__rsub__(b), ((S31, A), (S13, A))),
    ],
    "Mul": [
        Sample(lambda lib, a, b: a * b, ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: a * b, ((S31, A), (S13, A))),
        Sample(lambda lib, a, b: lib.mul(a, b), ((S0, A), (S3, A))),
        Sample(lambda lib, a: a * 3, ((S23, A),)),
        Sample(lambda lib, a: a * a, ((S3, A),)),
    ],
    "Div": [
        Sample(lambda lib, a, b: a / b, ((S23, A), (S23, "away0"))),
        Sample(lambda lib, a, b: a / b, ((S3, A), (S31, "pos"))),
        Sample(lambda lib, a, b: lib.div(a, b), ((S0, A), (S23, "pos"))),
        Sample(lambda lib, a: a / 4, ((S23, A),)),
    ],
    "Neg": [Sample(lambda lib, a: -a, ((S23, A),)), Sample(lambda lib, a: lib.neg(a), ((S0, A),))],
    "Reciprocal": [Sample(lambda lib, a: a.reciprocal(), ((S23, "away0"),))],
    "PowScalar": [
        Sample(lambda lib, a: a ** 2, ((S23, A),)),
        Sample(lambda lib, a: a ** 0.5, ((S3, "pos"),)),
        Sample(lambda lib, a: a.pow(-1.5), ((S0, "pos"),)),
        Sample(lambda lib, a: a ** 3, ((S0, A),)),
        Sample(lambda lib, a: a ** 0, ((S3, A),), second_order=True),
    ],
    "PowTensor": [
        Sample(lambda lib, a, b: a ** b, ((S23, "pos"), (S23, A))),
        Sample(lambda lib, a, b: lib.pow(a, b), ((S31, "pos"), (S13, A))),
        Sample(lambda lib, a, b: a ** b, ((S0, "pos"), (S3, A))),
    ],
    "PowScalarBase": [
        Sample(lambda lib, a: 2 ** a, ((S23, A),)),
        Sample(lambda lib, a: 0.5 ** a, ((S0, A),)),
    ],
    "Exp": [Sample(lambda lib, a: a.exp(), ((S23, A),)), Sample(lambda lib, a: lib.exp(a), ((S0, A),))],
    "Log": [Sample(lambda lib, a: a.log(), ((S23, "pos"),)), Sample(lambda lib, a: lib.log(a), ((S0, "pos"),))],
    "Sqrt": [Sample(lambda lib, a: a.sqrt(), ((S23, "pos"),)), Sample(lambda lib, a: lib.sqrt(a), ((S0, "pos"),))],
    "Sin": [Sample(lambda lib, a: a.sin(), ((S23, A),)), Sample(lambda lib, a: lib.sin(a), ((S0, A),))],
    "Cos": [Sample(lambda lib, a: a.cos(), ((S23, A),)), Sample(lambda lib, a: lib.cos(a), ((S0, A),))],
    "Tanh": [Sample(lambda lib, a: a.tanh(), ((S23, A),)), Sample(lambda lib, a: lib.tanh(a), ((S0, A),))],
    "Sigmoid": [
        Sample(lambda lib, a: a.sigmoid(), ((S23, A),)),
        Sample(lambda lib, a: lib.sigmoid(a), ((S0, A),)),
    ],
    "Abs": [Sample(lambda lib, a: a.abs(), ((S23, "away0"),)), Sample(lambda lib, a: abs(a), ((S0, "away0"),))],
    "Sign": [Sample(lambda lib, a: a.sign(), ((S23, "away0"),))],
    "Relu": [Sample(lambda lib, a: a.relu(), ((S23, "away0"),)), Sample(lambda lib, a: lib.relu(a), ((S0, "away0"),))],
    "Clamp": [
        Sample(lambda lib, a: a.clamp(-0.5, 0.5), ((S23, "away0"),)),
        Sample(lambda lib, a: a.clamp(min=0.1), ((S3, "away0"),)),
        Sample(lambda lib, a: lib.clamp(a, max=0.2), ((S0, "away0"),)),
    ],
    "MaskedZero": [
        # Internal: backward formulas use it to zero a gradient under a mask (masked_fill's).
        Sample(lambda lib, a: lib.autograd.grad((a.masked_fill(a > 0, 0.5) ** 2).sum(), a,
                                                create_graph=True)[0],
               ((S23, "away0"),), check_node=False,
               note="torch records masked_fill's backward with different internal nodes"),
    ],
    "MulScalar": [
        Sample(lambda lib, a: lib.autograd.grad((a ** 3).sum(), a, create_graph=True)[0],
               ((S23, A),), note="the number-times-tensor product of torch's C++ formulas"),
    ],
    "SubScalar": [
        Sample(lambda lib, a, b: lib.autograd.grad((a ** b).sum(), a, create_graph=True)[0],
               ((S23, "pos"), (S23, A)), check_node=False,
               note="pow's exponent - 1 in torch's C++ formula (under a where)"),
    ],
    "TanhBackward": [
        Sample(lambda lib, a: lib.autograd.grad((a.tanh() ** 2).sum(), a, create_graph=True)[0],
               ((S23, A),)),
    ],
    "SigmoidBackward": [
        Sample(lambda lib, a: lib.autograd.grad(a.sigmoid().sum(), a, create_graph=True)[0],
               ((S3, A),)),
    ],
    "ThresholdBackward": [
        Sample(lambda lib, a: lib.autograd.grad((a.relu() ** 2).sum(), a, create_graph=True)[0],
               ((S23, "away0"),)),
        Sample(lambda lib, a: lib.autograd.grad(
            (lib.nn.functional.threshold(a, 0.1, 2.0) ** 2).sum(), a, create_graph=True)[0],
               ((S23, "away0"),)),
    ],
    # the backward ops of activations with flat slopes, reached under create_graph
    "HardtanhBackward": [
        Sample(lambda lib, a: lib.autograd.grad((lib.nn.functional.hardtanh(a, -0.5, 0.5) ** 2)
                                                .sum(), a, create_graph=True)[0],
               ((S23, "away0"),)),
        Sample(lambda lib, a: lib.autograd.grad((lib.nn.functional.relu6(a * 4) ** 2).sum(), a,
                                                create_graph=True)[0], ((S23, "away0"),)),
    ],
    "LeakyReluBackward": [
        Sample(lambda lib, a: lib.autograd.grad((lib.nn.functional.leaky_relu(a, 0.2) ** 2)
                                                .sum(), a, create_graph=True)[0],
               ((S23, "away0"),)),
    ],
    "ShrinkBackward": [
        Sample(lambda lib, a: lib.autograd.grad((lib.nn.functional.hardshrink(a, 0.3) ** 2)
                                                .sum(), a, create_graph=True)[0],
               ((S23, "away0"),)),
    ],
    "SoftshrinkBackward": [
        Sample(lambda lib, a: lib.autograd.grad((lib.nn.functional.softshrink(a, 0.3) ** 2)
                                                .sum(), a, create_graph=True)[0],
               ((S23, "away0"),)),
    ],
    "EluBackward": [
        Sample(lambda lib, a: lib.autograd.grad((lib.nn.functional.elu(a) ** 2).sum(), a,
                                                create_graph=True)[0], ((S23, "away0"),)),
        Sample(lambda lib, a: lib.autograd.grad((lib.nn.functional.selu(a) ** 2).sum(), a,
                                                create_graph=True)[0], ((S3, "away0"),)),
        Sample(lambda lib, a: lib.autograd.grad((lib.nn.functional.celu(a, 0.5) ** 2).sum(), a,
                                                create_graph=True)[0], ((S0, "away0"),)),
    ],
    "Eq": [Sample(lambda lib, a, b: a == b, ((S23, A), (S3, A)), node=None)],
    "Ne": [Sample(lambda lib, a, b: a != b, ((S23, A), (S3, A)), node=None)],
    "Lt": [Sample(lambda lib, a, b: a < b, ((S23, A), (S3, A)), node=None)],
    "Le": [Sample(lambda lib, a: a <= 0.1, ((S23, A),), node=None)],
    "Gt": [Sample(lambda lib, a: a > 0, ((S0, A),), node=None)],
    "Ge": [Sample(lambda lib, a, b: a >= b, ((S3, A), (S3, A)), node=None)],
    "BitwiseAnd": [Sample(lambda lib, a, b: (a > 0) & (b > 0), ((S3, A), (S3, A)))],
    "BitwiseOr": [Sample(lambda lib, a, b: (a > 0) | (b > 0), ((S3, A), (S3, A)))],
    "BitwiseXor": [Sample(lambda lib, a, b: (a > 0) ^ (b > 0), ((S23, A), (S3, A)))],
    "BitwiseNot": [Sample(lambda lib, a: ~(a > 0), ((S23, A),))],
    "LeftShift": [Sample(lambda lib, a, b: (a * 10).long() << (b * 4).long().abs(), ((S23, A), (S3, A)))],
    "RightShift": [Sample(lambda lib, a, b: (a * 1000).int() >> (b * 4).long(), ((S23, A), (S3, A)))],
    "Clone": [Sample(lambda lib, a: a.clone(), ((S23, A),)), Sample(lambda lib, a: a.t().contiguous(), ((S23, A),))],
    "ToCopy": [
        Sample(lambda lib, a: a.float(), ((S23, A),),
               check_options={"eps": 1e-2, "atol": 1e-3, "rtol": 1e-3}),
        Sample(lambda lib, a: a.to(lib.float16).double(), ((S3, A),),
               check_options={"eps": 1e-1, "atol": 1e-2, "rtol": 1e-2}),
    ],
    "Copy": [
        Sample(lambda lib, a, b: (a * 1).copy_(b), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: (a * 1).copy_(b), ((S3, A), (S0, A))),
    ],
    "Zero": [Sample(lambda lib, a: (a * 2).zero_(), ((S23, A),))],
    "Fill": [Sample(lambda lib, a: (a * 2).fill_(1.5), ((S23, A),))],
    "FillTensor": [Sample(lambda lib, a, v: (a * 2).fill_(v), ((S23, A), (S0, A)))],
    "Sum": [Sample(lambda lib, a: a.sum(), ((S23, A),)), Sample(lambda lib, a: lib.sum(a), ((S0, A),))],
    "SumDim": [
        Sample(lambda lib, a: a.sum(0), ((S23, A),)),
        Sample(lambda lib, a: a.sum(-1, keepdim=True), ((S23, A),)),
        Sample(lambda lib, a: a.sum((0, 2)), (((2, 3, 4), A),)),
        Sample(lambda lib, a: a.sum(0), ((S0, A),)),
    ],
    "Mean": [Sample(lambda lib, a: a.mean(), ((S23, A),)), Sample(lambda lib, a: a.mean(), ((S0, A),))],
    "MeanDim": [
        Sample(lambda lib, a: a.mean(1), ((S23, A),)),
        Sample(lambda lib, a: a.mean([-1, 0], keepdim=True), (((2, 3, 4), A),)),
    ],
    "View": [
        Sample(lambda lib, a: a.view(3, 2), ((S23, A),)),
        Sample(lambda lib, a: a.view(-1), ((S0, A),)),
        Sample(lambda lib, a: a.reshape(6), ((S23, A),)),
    ],
    "ReshapeAlias": [Sample(lambda lib, a: a[::2].reshape(-1), (((4, 1), A),),
                            note="a non-contiguous tensor whose strides allow a view")],
    "UnsafeView": [Sample(lambda lib, a: a.t().reshape(6), ((S23, A),))],
    "T": [Sample(lambda lib, a: a.t(), ((S23, A),)), Sample(lambda lib, a: a.t(), ((S3, A),))],
    "Transpose": [Sample(lambda lib, a: a.transpose(0, -1), (((2, 3, 4), A),))],
    "Permute": [Sample(lambda lib, a: a.permute(2, 0, 1), (((2, 3, 4), A),))],
    "Unsqueeze": [
        Sample(lambda lib, a: a.unsqueeze(1), ((S23, A),)),
        Sample(lambda lib, a: a.unsqueeze(-1), ((S0, A),)),
    ],
    "SqueezeAll": [Sample(lambda lib, a: a.squeeze(), (((1, 3, 1), A),))],
    "SqueezeDim": [
        Sample(lambda lib, a: a.squeeze(0), (((1, 3), A),)),
        Sample(lambda lib, a: a.squeeze(1), ((S23, A),)),
    ],
    "SqueezeDims": [Sample(lambda lib, a: a.squeeze((0, 2)), (((1, 3, 1), A),))],
    "SqueezeLast": [
        Sample(lambda lib, a, b: a @ b, ((S3, A), ((3, 2), A))),
        Sample(lambda lib, a: (a * 1).squeeze_(1), (((2, 1, 3), A),)),
        Sample(lambda lib, a: (a * 1).squeeze_(-3), (((2, 1, 3), A),)),  # size 2: kept
        Sample(lambda lib, a: (a * 1).squeeze_(0), ((S0, A),)),
    ],
    "UnsqueezeInplace": [
        Sample(lambda lib, a: (a * 1).unsqueeze_(1), ((S23, A),)),
        Sample(lambda lib, a: (a * 1).unsqueeze_(-1), ((S0, A),)),
    ],
    "SqueezeAllInplace": [Sample(lambda lib, a: (a * 1).squeeze_(), (((2, 1, 3, 1), A),))],
    "SqueezeDimsInplace": [Sample(lambda lib, a: (a * 1).squeeze_((1, 2)), (((2, 1, 3), A),))],
    "TInplace": [
        Sample(lambda lib, a: (a * 1).t_(), ((S23, A),)),
        Sample(lambda lib, a: (a * 1)[0].t_(), ((S23, A),)),
    ],
    "TransposeInplace": [
        Sample(lambda lib, a: (a * 1).transpose_(0, 2), (((2, 1, 3), A),)),
        Sample(lambda lib, a: (a * 1).swapaxes_(-1, 0), ((S23, A),)),
    ],
    "AsStridedInplace": [Sample(lambda lib, a: (a * 1).as_strided_((2, 2), (1, 2), 1),
                                ((S23, A),))],
    "Expand": [
        Sample(lambda lib, a: a.expand(2, 3), ((S13, A),)),
        Sample(lambda lib, a: a.expand(4, 2, 3), ((S23, A),)),
        Sample(lambda lib, a: a.expand(3), ((S0, A),)),
    ],
    "Slice": [Sample(lambda lib, a: a.narrow(1, 1, 2), ((S23, A),))],
    "SliceBackward": [
        Sample(lambda lib, a: lib.autograd.grad((a.narrow(0, 1, 1) ** 2).sum(), a, create_graph=True)[0],
               ((S23, A),), node=None, note="double backward of narrow"),
    ],
    "Select": [Sample(lambda lib, a: a.select(1, 2), ((S23, A),)), Sample(lambda lib, a: a[1], ((S23, A),))],
    "Unbind": [
        Sample(lambda lib, a: a.unbind(0)[1], ((S23, A),)),
        Sample(lambda lib, a: lib.stack(lib.unbind(a, -1)[::-1]) * 2, ((S23, A),)),
    ],
    "SelectBackward": [
        Sample(lambda lib, a: lib.autograd.grad((a.select(0, 1) ** 2).sum(), a, create_graph=True)[0],
               ((S23, A),), node=None, note="double backward of select"),
    ],
    "Alias": [Sample(lambda lib, a: a[...], ((S23, A),))],
    "Index": [
        Sample(lambda lib, a: a[[0, 1, 1]], ((S23, A),)),
        Sample(lambda lib, a: a[:, lib.tensor([2, 0])], ((S23, A),)),
        Sample(lambda lib, a: a[a > 0], ((S23, A),)),
        Sample(lambda lib, a: a[1:, [0, 0, 2]], (((3, 3), A),)),
    ],
    "IndexBackward": [
        Sample(lambda lib, a: lib.autograd.grad((a[[0, 0, 1]] ** 2).sum(), a, create_graph=True)[0],
               ((S23, A),), note="double backward of advanced indexing"),
    ],
    "AsStrided": [Sample(_regenerated_view, ((S3, A),))],
    "ViewScatter": [Sample(_copy_slices_grad, ((S3, A),), check_node=False,
                           note="torch's double backward of CopySlices names nodes differently")],
    "IndexPut": [Sample(_index_put, ((S3, A), ((2,), A))), Sample(_index_put, ((S3, A), (S0, A)))],
    "Cat": [
        Sample(lambda lib, a, b: lib.cat([a, b]), ((S23, A), (S13, A))),
        Sample(lambda lib, a, b: lib.cat((a, b), dim=-1), ((S23, A), ((2, 1), A))),
    ],
    "Stack": [
        Sample(lambda lib, a, b: lib.stack([a, b]), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: lib.stack([a, b], dim=-1), ((S0, A), (S0, A))),
    ],
    "Mm": [Sample(lambda lib, a, b: a @ b, ((S23, A), ((3, 4), A))), Sample(lambda lib, a, b: a.mm(b), (((1, 1), A), ((1, 2), A)))],
    "Mv": [Sample(lambda lib, a, b: a @ b, ((S23, A), (S3, A)))],
    "Dot": [Sample(lambda lib, a, b: a @ b, ((S3, A), (S3, A))), Sample(lambda lib, a, b: lib.dot(a, b), ((S1, A), (S1, A)))],
    "Bmm": [
        Sample(lambda lib, a, b: a.bmm(b), (((2, 2, 3), A), ((2, 3, 2), A))),
        Sample(lambda lib, a, b: a @ b, (((2, 1, 2, 3), A), ((3, 3, 2), A)), node="UnsafeViewBackward0"),
        Sample(lambda lib, a, b: a @ b, (((2, 2, 3), A), ((2, 3, 2), A))),
    ],
}


def _merge_topic_samples() -> None:
    """Samples for ops in other topic files live in ``samples_<topic>.py`` next to this one."""
    import importlib
    import pkgutil
    from pathlib import Path

    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name.startswith("samples_"):
            module = importlib.import_module(f"{__package__}.{info.name}")
            overlap = set(SAMPLES) & set(module.SAMPLES)
            if overlap:
                raise ValueError(f"{info.name} redefines samples for {sorted(overlap)}")
            SAMPLES.update(module.SAMPLES)


_merge_topic_samples()
