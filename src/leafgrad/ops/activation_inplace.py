"""The in-place activations' own nodes: torch records ``elu_``, ``celu_``, ``selu_``,
``leaky_relu_``, ``threshold_`` and ``rrelu_`` under ``...Backward1`` nodes, and the elu and
leaky-relu ones save the result instead of the input (their backward reads the output, so a
negative slope, which makes the output ambiguous, is refused when the backward runs, with
torch's message). The forward is the out-of-place op's; ``ops.inplace`` writes it into the
input."""

from __future__ import annotations

import numpy as np

from ._forward import auto_element_wise
from .activation import Elu, EluBackward, LeakyRelu, LeakyReluBackward
from .activation_extra import RreluWithNoise, Threshold
from .registry import register

_ELU_NEGATIVE = ("In-place elu backward calculation is triggered with a negative slope which is "
                 "not supported. This is caused by calling in-place forward function with a "
                 "negative slope, please call out-of-place version instead.")
_LEAKY_NEGATIVE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead. File an issue at "
    "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward "
    "calculation with negative slope")


@register
class EluInplace(Elu):
    """``elu_`` / ``selu_``: the backward from the result, ``r <= 0 ? grad * input_scale *
    (r + alpha * scale) : grad * scale`` (torch's elu_backward with is_result)."""

    node = "EluBackward1"
    uint_kernel = "elu_cpu"
    saves = {"result": ("self",)}
    torch_names = ("nn.functional.elu_", "nn.functional.selu_", "selu_")

    def backward(self, grad):
        p = self._params
        if p["alpha"] < 0:
            raise RuntimeError(_ELU_NEGATIVE)
        # torch: elu_backward(grad, alpha, scale, input_scale, is_result=true, result), its own
        # node under create_graph (EluBackwardBackward0, differentiable in the result)
        return EluBackward.apply(grad, self.saved("result"), **self._backward_params(p),
                                 is_result=True)

    @staticmethod
    def _backward_params(params):
        return params

    jvp = auto_element_wise


@register
class CeluInplace(EluInplace):
    node = "CeluBackward1"
    uint_kernel = "elu_cpu"
    complex_message = '"elu_cpu" not implemented for \'ComplexFloat\''
    torch_names = ("nn.functional.celu_", "celu_")

    @staticmethod
    def _backward_params(params):
        # torch: elu_backward(grad, alpha, 1, 1.0 / alpha.toFloat(), true, result), as Celu's
        return {**params, "input_scale": 1.0 / float(np.float32(params["alpha"]))}


@register
class LeakyReluInplace(LeakyRelu):
    """``leaky_relu_``: the backward from the result's sign."""

    node = "LeakyReluBackward1"
    uint_kernel = "leaky_relu_cpu"
    saves = {"result": ("self",)}
    torch_names = ("nn.functional.leaky_relu_",)

    def backward(self, grad):
        slope = self._params["negative_slope"]
        if slope < 0:
            raise RuntimeError(_LEAKY_NEGATIVE)
        # torch: leaky_relu_backward(grad, result, negative_slope, true) (LeakyReluBackward-
        # Backward0 under create_graph, with an edge to the result); the result's sign is the
        # input's for a slope >= 0
        return LeakyReluBackward.apply(grad, self.saved("result"), negative_slope=slope)

    jvp = auto_element_wise


@register
class ThresholdInplace(Threshold):
    node = "ThresholdBackward1"
    uint_kernel = "threshold_cpu"
    torch_names = ("nn.functional.threshold_", "threshold_")


@register
class RreluWithNoiseInplace(RreluWithNoise):
    node = "RreluWithNoiseBackward1"
    saves = {"result": ("self",)}  # its create_graph node's edge (see RreluWithNoise.backward)
    torch_names = ("nn.functional.rrelu_", "rrelu_")
