"""Nodes torch gives the other forms of existing ops.

``torch.fill(input, value)``, the out-of-place fill, records ``FillBackward0`` for a number and
``FillBackward1`` for a 0-d tensor value (the in-place ``fill_`` has ``FillBackward2``/``3``),
with the same formulas. ``conj_physical_`` records ``ConjPhysicalBackward1``, for real tensors
too (where it writes the values back unchanged and still bumps the version)."""

from __future__ import annotations

import numpy as np

from .complex import ConjPhysical
from .elementwise import Fill, FillTensor
from .registry import register


@register
class FillScalar(Fill):
    node = "FillBackward0"
    torch_names = ("fill",)


@register
class FillValue(FillTensor):
    """The 0-d tensor value gets the summed gradient."""

    node = "FillBackward1"
    torch_names = ("fill",)


@register
class ConjPhysicalInplace(ConjPhysical):
    node = "ConjPhysicalBackward1"
    uint_ok = True  # the identity on real tensors, any dtype
    torch_names = ("conj_physical_", "Tensor.conj_physical_")

    @staticmethod
    def forward(ctx, a):
        return np.conj(a) if a.dtype.kind == "c" else a.copy()

    def backward(self, grad):
        return ConjPhysical.apply(grad) if grad.is_complex() else grad
