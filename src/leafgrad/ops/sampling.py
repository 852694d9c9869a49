"""Random sampling ops with a gradient node: ``poisson`` (``PoissonBackward0``) and
``normal`` with tensor parameters (``NormalBackward1/2/3``), zero gradients, as torch's
derivatives.yaml defines them.

The draw happens before the op, as for ``rrelu``'s noise, so the op itself is deterministic
(its forward returns the drawn values): capture, forward mode and the backward see the same
numbers.
"""

from __future__ import annotations

from ._forward import auto_element_wise
from .registry import Op, register
from ._masks import zeros_tensor


@register
class Poisson(Op):
    node = "PoissonBackward0"
    torch_names = ("poisson",)

    @staticmethod
    def forward(ctx, rates, samples):
        return samples

    def backward(self, grad):
        return zeros_tensor(grad._data.shape, grad._data.dtype)

    jvp = auto_element_wise


class _Normal(Op):
    """``normal`` with a tensor mean and/or std: the draws (made before the op, scaled and
    shifted as torch does) come back as they are; the gradient of each tensor argument is
    zeros of its shape (derivatives.yaml's normal.Tensor_float, float_Tensor and
    Tensor_Tensor: a sample does not depend on its parameters through the graph)."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, *args, samples):
        return samples

    def backward(self, grad):
        zeros = tuple(zeros_tensor(tuple(self.input_shape(i)), grad._data.dtype)
                      if self.needs_grad(i) else None for i in range(len(self.inputs)))
        return zeros if len(zeros) > 1 else zeros[0]

    def jvp(self, tangents, primals, result):
        return zeros_tensor(result._data.shape, result._data.dtype)


@register
class NormalTensorFloat(_Normal):
    node = "NormalBackward1"
    inputs = ("mean",)
    torch_names = ("normal",)


@register
class NormalFloatTensor(_Normal):
    node = "NormalBackward2"
    inputs = ("std",)
    torch_names = ("normal",)


@register
class NormalTensorTensor(_Normal):
    node = "NormalBackward3"
    inputs = ("mean", "std")
    torch_names = ("normal",)
