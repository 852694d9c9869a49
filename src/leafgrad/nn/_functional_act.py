"""More activations of ``nn.functional`` (ops in ops/activation_extra.py; softsign and
tanhshrink are the compositions torch records)."""

from __future__ import annotations

from .. import _argparse
from .. import _dtype as _dtype

from .. import ops as _ops
from ..ops.activation_extra import (Glu, Hardshrink, Hardsigmoid, Hardswish, LogSigmoid, Prelu,
                                    RreluWithNoise, Softshrink, Threshold,
                                    rrelu_noise)
from ..ops.activation_inplace import RreluWithNoiseInplace, ThresholdInplace
from ..amp._state import lower_inputs
from ..tensor import _wrap
from ._functional_nn import celu, elu, leaky_relu, selu
from ..ops import Hardtanh
from ..ops.registry import array_kernel

__all__ = ["hardshrink", "softshrink", "tanhshrink", "softsign", "hardsigmoid", "hardswish",
           "logsigmoid", "glu", "threshold", "threshold_", "prelu", "rrelu", "rrelu_",
           "relu_", "elu_", "celu_", "selu_", "hardtanh_", "leaky_relu_"]


@_argparse.parsed("hardshrink")  # (a C function in torch: its parser's errors)
def hardshrink(input, lambd: float = 0.5):
    if lambd.__class__ is not float and lambd.__class__ is not int:
        lambd = _argparse.number("hardshrink", "lambd", lambd, 2, into=input,
                                 names=_argparse.FLOAT_SCALAR_T)
    return Hardshrink.apply(input, lambd=lambd)


@_argparse.parsed("softshrink")  # (a C function in torch: its parser's errors)
def softshrink(input, lambd: float = 0.5):
    if lambd.__class__ is not float and lambd.__class__ is not int:
        lambd = _argparse.number("softshrink", "lambd", lambd, 2)
        # (torch reads lambd as a double first, then checks the input's dtype, then the range)
        lambd = _argparse.real_scalar(lambd, _dtype.float64, _argparse.DOUBLE_T)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"softshrink_check\" not implemented for '{input.dtype._legacy}'")
    if lambd < 0:
        import numpy as np

        top = _dtype.np_finfo(input._data.dtype).max if _dtype.kind(input._data) == "f" else 0
        name = {"float32": "Float", "float64": "Double", "float16": "Half"}.get(
            input._data.dtype.name, input._data.dtype.name)
        # C++'s %g of the value and the bound, as torch prints them
        raise RuntimeError(
            f"lambda must be in range [0, {float(top):g}] for input dtype {name}, but found "
            f"{lambd:g}")
    return Softshrink.apply(input, lambd=lambd)


def tanhshrink(input):
    return input - input.tanh()


def softsign(input):
    return input / (input.abs() + 1)


def hardsigmoid(input, inplace: bool = False):
    if inplace:
        return _ops.inplace(Hardsigmoid, input)
    return Hardsigmoid.apply(input)


def hardswish(input, inplace: bool = False):
    try:
        if inplace:
            return _ops.inplace(Hardswish, input)
        return Hardswish.apply(input)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("hardswish_" if inplace else "hardswish", input)
        raise


def logsigmoid(input):
    try:
        return LogSigmoid.apply(input)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("log_sigmoid", input)
        raise


def glu(input, dim: int = -1):
    if dim.__class__ is not int:  # (torch._C._nn.glu's parser)
        dim = _argparse.int_arg("glu", "dim", dim, 2)
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    ndim = input.dim()
    wrapped = dim + ndim if dim < 0 else dim
    size = input.shape[wrapped]
    if size % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {wrapped} is size {size}")
    return Glu.apply(input, dim=wrapped)


def threshold(input, threshold: float, value: float, inplace: bool = False):
    if threshold.__class__ is not float and threshold.__class__ is not int:
        threshold = _argparse.number("threshold_" if inplace else "threshold", "threshold",
                                     threshold, 2, into=input, names=_argparse.OPMATH_T)
    if value.__class__ is not float and value.__class__ is not int:
        value = _argparse.number("threshold_" if inplace else "threshold", "value", value, 3,
                                 into=input)
    if inplace:
        return _ops.inplace(ThresholdInplace, input, threshold=threshold, value=value)
    return Threshold.apply(input, threshold=threshold, value=value)


def threshold_(input, threshold: float, value: float):
    return _ops.inplace(ThresholdInplace, input, threshold=threshold, value=value)


def prelu(input, weight):
    input, weight = lower_inputs(input, weight)  # torch's CPU autocast list: cast first
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype._legacy} and "
                           f"{weight.dtype._legacy}")
    if weight.numel() != 1:  # ATen's prelu: the channel count, then the weight's dims
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {weight.numel()} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim "
                           f"= {weight.ndim}")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f'"prelu_cpu" not implemented for \'{input.dtype._legacy}\'')
    return Prelu.apply(input, weight)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False):
    """Leaky ReLU with random slopes in [lower, upper) in training, their mean otherwise."""
    if lower.__class__ is not float and lower.__class__ is not int:
        lower = _argparse.number("rrelu", "lower", lower, 2)
        # (torch reads the bounds as doubles, whatever the input's dtype)
        lower = _argparse.real_scalar(lower, _dtype.float64, _argparse.DOUBLE_T)
    if upper.__class__ is not float and upper.__class__ is not int:
        upper = _argparse.number("rrelu", "upper", upper, 3)
        upper = _argparse.real_scalar(upper, _dtype.float64, _argparse.DOUBLE_T)
    if lower > upper:  # (ATen's rrelu_with_noise, in training and eval)
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    noise = _vmapped_noise(input, lower, upper, training)
    if noise is None:
        # leafgrad.compile records the slopes as one node its replay computes (and, in
        # training, draws) again, so the generator advances on every call as in eager mode
        noise = array_kernel(rrelu_noise, input._data, lower=lower, upper=upper,
                             training=training)
    if inplace:
        return _ops.inplace(RreluWithNoiseInplace, input, noise=noise, lower=lower, upper=upper,
                            training=training)
    return RreluWithNoise.apply(input, noise=noise, lower=lower, upper=upper, training=training)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    return rrelu(input, lower, upper, training, inplace=True)


def _vmapped_noise(input, lower, upper, training):
    """Inside vmap: every example's slopes, from the physical tensor (a random draw refuses
    vmap's randomness='error' mode, as torch)."""
    from ..autograd._vmap_state import random_levels, state

    if not state.active or type(input).__name__ != "BatchedTensor":
        return None
    if training:
        random_levels()
    from ..ops._batching import wrap

    noise = rrelu_noise(input._value._data, lower, upper, training)
    return wrap(_wrap(noise), input._levels)._data


# the in-place forms torch's nn.functional exposes under their own names
def relu_(input):
    return input.relu_()


def elu_(input, alpha: float = 1.0):
    return elu(input, alpha, inplace=True)


def celu_(input, alpha: float = 1.0):
    return celu(input, alpha, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    # torch's hardtanh_ is the ATen function: no min_val <= max_val check (F.hardtanh's)

    return _ops.inplace(Hardtanh, input, min_val=min_val, max_val=max_val)


def leaky_relu_(input, negative_slope: float = 0.01):
    return leaky_relu(input, negative_slope, inplace=True)
