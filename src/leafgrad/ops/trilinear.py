"""``_trilinear``: the product of three tensors broadcast over a common set of dims, summed
over some of them. ``bilinear`` is built on it, as in ATen, so that its graph and its
create_graph backward record torch's TrilinearBackward0 nodes (derivatives.yaml:
_trilinear_backward calls _trilinear again with the dim lists exchanged)."""

from __future__ import annotations

import string

import numpy as np

from . import _batching_rules as batch
from .registry import Op, register


def _trilinear_composite(i1, i2, i3, *, expand1, expand2, expand3, sumdim):
    """The same product with Tensor ops (vmap runs it on batched tensors)."""
    widened = []
    for tensor, expand in ((i1, expand1), (i2, expand2), (i3, expand3)):
        for dim in sorted(expand):
            tensor = tensor.unsqueeze(dim)
        widened.append(tensor)
    product = widened[0] * widened[1] * widened[2]
    return product.sum(dim=tuple(sumdim)) if sumdim else product


def _subscripts(ndim: int, expand: tuple) -> str:
    return "".join(string.ascii_letters[d] for d in range(ndim) if d not in expand)


@register
class Trilinear(Op):
    """``sum over sumdim of i1 * i2 * i3``, each first unsqueezed at its ``expand`` dims."""

    node = "TrilinearBackward0"
    inputs = ("i1", "i2", "i3")
    saves = {"i1": ("i2", "i3"), "i2": ("i1", "i3"), "i3": ("i1", "i2")}
    torch_names = ("_trilinear",)
    uint_kernel = "bmm"  # (torch's error for uint16/32/64: Note: wide unsigned support)
    vmap = batch.decompose(_trilinear_composite)

    @staticmethod
    def forward(ctx, i1, i2, i3, expand1, expand2, expand3, sumdim):
        ndim = i1.ndim + len(expand1)
        sizes = {}
        for array, expand in ((i1, expand1), (i2, expand2), (i3, expand3)):
            kept = [d for d in range(ndim) if d not in expand]
            sizes.update(zip(kept, array.shape))
        kept_out = [d for d in range(ndim) if d not in sumdim]
        output = "".join(string.ascii_letters[d] for d in kept_out if d in sizes)
        spec = ",".join(_subscripts(ndim, e) for e in (expand1, expand2, expand3))
        result = np.einsum(f"{spec}->{output}", i1, i2, i3)
        return np.ascontiguousarray(result).reshape([sizes.get(d, 1) for d in kept_out])

    def backward(self, grad):
        # torch's _trilinear_backward: each gradient is a _trilinear of the incoming gradient
        # and the other two inputs, with the gradient in the input's place
        p = self._params
        e1, e2, e3, s = p["expand1"], p["expand2"], p["expand3"], p["sumdim"]
        i1 = self.saved("i1") if self.needs_grad(1) or self.needs_grad(2) else None
        i2 = self.saved("i2") if self.needs_grad(0) or self.needs_grad(2) else None
        i3 = self.saved("i3") if self.needs_grad(0) or self.needs_grad(1) else None
        return (
            Trilinear.apply(grad, i2, i3, expand1=s, expand2=e2, expand3=e3, sumdim=e1)
            if self.needs_grad(0) else None,
            Trilinear.apply(i1, grad, i3, expand1=e1, expand2=s, expand3=e3, sumdim=e2)
            if self.needs_grad(1) else None,
            Trilinear.apply(i1, i2, grad, expand1=e1, expand2=e2, expand3=s, sumdim=e3)
            if self.needs_grad(2) else None,
        )

    def jvp(self, tangents, primals, result):
        # linear in each input: the sum of the products with one input replaced by its tangent
        total = None
        for k, tangent in enumerate(tangents):
            if tangent is not None:
                operands = list(primals)
                operands[k] = tangent
                term = Trilinear.apply(*operands, **self._params)
                total = term if total is None else total + term
        return total


def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """``torch._trilinear`` (unroll_dim only chooses torch's loop order)."""
    return Trilinear.apply(i1, i2, i3, expand1=tuple(expand1), expand2=tuple(expand2),
                           expand3=tuple(expand3), sumdim=tuple(sumdim))
