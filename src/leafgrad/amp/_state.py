"""Autocast's state, read by ``Op.apply`` before anything else (one attribute when off).

An op class declares its CPU autocast policy in its ``autocast`` attribute, as torch's
autocast op lists do: ``"lower_precision_fp"`` ops (matrix products, convolutions) run in the
autocast dtype, ``"fp32"`` ops (losses) in float32. Casting only touches floating tensors
other than float64 ("eligible" in torch's words); casts of leaf tensors that require grad (a
model's weights) are cached until the outermost autocast region exits, as in torch.
"""

from __future__ import annotations


class _AutocastState:
    __slots__ = ("active", "enabled", "dtype", "cache_enabled", "nesting", "cache")

    def __init__(self):
        self.active = False  # CPU autocast on (what Op.apply checks)
        self.enabled = {"cpu": False, "cuda": False}
        from .._dtype import bfloat16

        self.dtype = {"cpu": bfloat16, "cuda": None}  # cuda None: float16
        self.cache_enabled = True
        self.nesting = 0
        self.cache: dict = {}

    def cast_args(self, policy: str, args: tuple) -> tuple:
        from .. import _dtype
        from ..tensor import Tensor

        if policy == "promote":  # cat: every floating input in the widest floating dtype
            floats = [a.dtype for a in args if isinstance(a, Tensor) and a.dtype.is_floating_point]
            if len(set(floats)) < 2:
                return args
            widest = floats[0]
            for d in floats[1:]:
                widest = _dtype.promote_types(widest, d)
            return tuple(a.to(widest) if isinstance(a, Tensor) and a.dtype.is_floating_point
                         and a.dtype is not widest else a for a in args)
        target = _dtype.float32 if policy == "fp32" else self.dtype["cpu"]
        out = []
        for arg in args:
            if (isinstance(arg, Tensor) and arg.dtype.is_floating_point
                    and arg.dtype is not _dtype.float64 and arg.dtype is not target):
                arg = self._cast(arg, target)
            out.append(arg)
        return tuple(out)

    def _cast(self, tensor, target):
        cacheable = (self.cache_enabled and target is not None and tensor.is_leaf
                     and tensor.requires_grad and policy_is_lower(target))
        if cacheable:
            hit = self.cache.get(id(tensor))
            if hit is not None and hit[0] is tensor:
                return hit[1]
        result = tensor.to(target)
        if cacheable:
            self.cache[id(tensor)] = (tensor, result)
        return result


def policy_is_lower(target) -> bool:
    from .. import _dtype

    return target is not _dtype.float32


state = _AutocastState()


def lower_inputs(*tensors):
    """For a composite lower-precision function (matmul, linear, prelu): cast at its entry,
    before its own views and transposes, as torch's autocast does."""
    if not state.active:
        return tensors
    return state.cast_args("lower_precision_fp", tensors)


def fp32_inputs(*tensors):
    """For a composite fp32-policy function (cross_entropy, l1_loss): its inputs in float32."""
    if not state.active:
        return tensors
    return state.cast_args("fp32", tensors)
