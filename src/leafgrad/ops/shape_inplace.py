"""The in-place shape methods (``unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``,
``as_strided_``): the tensor itself takes the new shape, and torch records them under their own
node names (``UnsqueezeBackward1``, ``SqueezeBackward3/4/5``, ``TBackward1``,
``TransposeBackward1``, ``AsStridedBackward1``). Each is the out-of-place view op's class under
the in-place node; ``squeeze_(dim)`` is SqueezeLast (ops/shape.py), which matmul also records.
"""

from __future__ import annotations

from .registry import register
from .shape import SqueezeAll, SqueezeDims, T, Transpose, Unsqueeze
from .shape_ext import AsStridedPublic


@register
class UnsqueezeInplace(Unsqueeze):
    node = "UnsqueezeBackward1"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    torch_names = ("Tensor.unsqueeze_",)


@register
class SqueezeAllInplace(SqueezeAll):
    node = "SqueezeBackward3"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    torch_names = ("Tensor.squeeze_",)


@register
class SqueezeDimsInplace(SqueezeDims):
    node = "SqueezeBackward5"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    torch_names = ("Tensor.squeeze_",)


@register
class TInplace(T):
    node = "TBackward1"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    torch_names = ("Tensor.t_",)


@register
class TransposeInplace(Transpose):
    node = "TransposeBackward1"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    torch_names = ("Tensor.transpose_", "Tensor.swapaxes_", "Tensor.swapdims_")


@register
class AsStridedInplace(AsStridedPublic):
    node = "AsStridedBackward1"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    torch_names = ("Tensor.as_strided_",)
