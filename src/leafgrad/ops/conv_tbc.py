"""``torch.conv_tbc``: a 1-d convolution of a (time, batch, channel) input (fairseq's layout).

ATen's algorithm: the output starts as the bias, then for each kernel offset ``k`` the rows
of the zero-padded input ``k`` steps on are multiplied by ``weight[k]`` and added (one matrix
product per offset, in order). The backward is written with the table's ops, so that
``create_graph=True`` records it: the input's gradient is the output gradient convolved with
the kernel reversed and transposed (then cut to the input's length), the weight's is one
product per offset.
"""

from __future__ import annotations

import numpy as np

from .. import _argparse
from .registry import Op, register
from ._forward import jvp_sum
from .shape import Cat, Stack

__all__ = ["conv_tbc"]


@register
class ConvTbc(Op):
    node = "ConvTbcBackward0"
    uint_kernel = "addmm_impl_cpu_"
    inputs = ("self", "weight", "bias")
    saves = {"self": ("self", "weight"), "weight": ("self", "weight")}  # shapes of both
    torch_names = ("conv_tbc", "nn.functional.conv_tbc")

    @staticmethod
    def forward(ctx, x, weight, bias, pad=0):
        steps, batch, channels = x.shape
        width, _, outputs = weight.shape
        padded = np.zeros((steps + 2 * pad, batch, channels), x.dtype)
        padded[pad:pad + steps] = x
        length = steps + 2 * pad - width + 1
        out = np.empty((length, batch, outputs), np.result_type(x, weight, bias))
        out[...] = bias
        rows = out.reshape(length * batch, outputs)
        wide = out.dtype.itemsize < 4  # float16/bfloat16: each addmm in float32, rounded
        for k in range(width):
            block = padded[k:k + length].reshape(length * batch, channels)
            if wide:
                product = block.astype(np.float32) @ weight[k].astype(np.float32)
                rows[...] = (rows.astype(np.float32) + product).astype(out.dtype)
            else:
                rows += block @ weight[k]
        return out

    def backward(self, grad):
        grad_x = grad_weight = grad_bias = None
        if self.needs_grad(2):
            grad_bias = grad.sum((0, 1))
        if not (self.needs_grad(0) or self.needs_grad(1)):
            return grad_x, grad_weight, grad_bias
        x, weight = self.saved("self"), self.saved("weight")
        pad = self._params.get("pad", 0)
        steps, batch, channels = x.shape
        width = weight.shape[0]
        length = grad.shape[0]
        if self.needs_grad(0):
            flipped = weight.flip(0).transpose(1, 2)
            zeros = grad.new_zeros(channels)
            full = ConvTbc.apply(grad, flipped, zeros, pad=width - 1)
            grad_x = full.narrow(0, pad, steps)
        if self.needs_grad(1):
            padded = x
            if pad:
                edge = x.new_zeros(pad, batch, channels)
                padded = Cat.apply(edge, x, edge, dim=0)
            flat_grad = grad.reshape(length * batch, -1)
            per_offset = [padded.narrow(0, k, length).reshape(length * batch, channels).t()
                          .mm(flat_grad) for k in range(width)]

            grad_weight = Stack.apply(*per_offset, dim=0)
        return grad_x, grad_weight, grad_bias

    def jvp(self, tangents, primals, result):
        x, weight, _ = primals
        pad = self._params.get("pad", 0)
        zeros = weight.new_zeros(weight.shape[2])
        return jvp_sum(tangents, lambda t: ConvTbc.apply(t, weight, zeros, pad=pad),
                       lambda t: ConvTbc.apply(x, t, zeros, pad=pad),
                       lambda t: t.expand(result.shape))


@_argparse.parsed("conv_tbc")
def conv_tbc(input, weight, bias, pad=0):  # noqa: A002 - torch's argument name
    """``torch.conv_tbc(input (T, B, C), weight (K, C, O), bias (O), pad)`` -> (T', B, O).

    >>> import leafgrad as torch
    >>> torch.conv_tbc(torch.ones(3, 1, 1), torch.ones(2, 1, 1), torch.zeros(1)).shape
    torch.Size([2, 1, 1])
    """
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if pad.__class__ is not int:
        _argparse.check("conv_tbc", (input, weight, bias, pad), {})
    if weight.dim() != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    length = input.shape[0] + 2 * pad - weight.shape[0] + 1
    if length < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {length}: "
                           f"[{length}, {input.shape[1]}, {weight.shape[2]}]")
    if pad == 0 and length > 0:
        # torch's kernel views each offset's rows of the input itself when nothing pads it
        # (a copy otherwise): an input those rows cannot be viewed from raises view()'s error
        input.detach().narrow(0, 0, length).view(length * input.shape[1], input.shape[2])
    return ConvTbc.apply(input, weight, bias, pad=pad)
