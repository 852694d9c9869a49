"""More activations of ``nn.functional`` (ops in ops/activation_extra.py; softsign and
tanhshrink are the compositions torch records)."""

from __future__ import annotations

from .. import ops as _ops
from ..ops.activation_extra import (Glu, Hardshrink, Hardsigmoid, Hardswish, LogSigmoid, Prelu,
                                    Softshrink, Threshold)

__all__ = ["hardshrink", "softshrink", "tanhshrink", "softsign", "hardsigmoid", "hardswish",
           "logsigmoid", "glu", "threshold", "threshold_", "prelu"]


def hardshrink(input, lambd: float = 0.5):
    return Hardshrink.apply(input, lambd=lambd)


def softshrink(input, lambd: float = 0.5):
    if lambd < 0:
        raise RuntimeError(
            f"lambda must be greater or equal to 0, but found to be {lambd}.")
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
    if inplace:
        return _ops.inplace(Hardswish, input)
    return Hardswish.apply(input)


def logsigmoid(input):
    return LogSigmoid.apply(input)


def glu(input, dim: int = -1):
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
    if inplace:
        return _ops.inplace(Threshold, input, threshold=threshold, value=value)
    return Threshold.apply(input, threshold=threshold, value=value)


def threshold_(input, threshold: float, value: float):
    return _ops.inplace(Threshold, input, threshold=threshold, value=value)


def prelu(input, weight):
    return Prelu.apply(input, weight)
