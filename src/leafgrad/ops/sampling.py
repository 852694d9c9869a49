"""Random sampling ops with a gradient node: ``poisson`` (``PoissonBackward0``, a zero
gradient, as torch's derivatives.yaml defines it).

The draw happens before the op, as for ``rrelu``'s noise, so the op itself is deterministic
(its forward returns the drawn values): capture, forward mode and the backward see the same
numbers.
"""

from __future__ import annotations

from ._forward import auto_element_wise
from .registry import Op, register


@register
class Poisson(Op):
    node = "PoissonBackward0"
    torch_names = ("poisson",)

    @staticmethod
    def forward(ctx, rates, samples):
        return samples

    def backward(self, grad):
        from ._masks import zeros_tensor

        return zeros_tensor(grad._data.shape, grad._data.dtype)

    jvp = auto_element_wise
