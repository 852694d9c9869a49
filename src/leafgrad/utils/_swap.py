"""``leafgrad.utils.swap_tensors``: exchange two tensor objects' contents in place."""

from __future__ import annotations

_POISONED = (
    "Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can happen "
    "when you try to run backward on a tensor that was swapped. For a module m with "
    "`torch.__future__.set_swap_module_params_on_conversion(True)` you should not change the "
    "device or dtype of the module (e.g. `m.cpu()` or `m.half()`) between running forward and "
    "backward. To resolve this, please only change the device/dtype before running forward "
    "(or after both forward and backward).")


def _poison_pre_hook(grad_outputs):
    raise RuntimeError(_POISONED)


def swap_tensors(t1, t2) -> None:
    """Swap the contents of ``t1`` and ``t2``: data, autograd state, type and Python attributes
    (torch.utils.swap_tensors), so every reference to either object sees the other's tensor.

    >>> a, b = leafgrad.zeros(2), leafgrad.ones(3)
    >>> leafgrad.utils.swap_tensors(a, b)
    >>> a
    tensor([1., 1., 1.])
    """
    from ..tensor import Tensor

    for t in (t1, t2):
        if not isinstance(t, Tensor):
            # torch reads t._use_count() first
            raise AttributeError(f"'{type(t).__name__}' object has no attribute '_use_count'")
    # a leaf's live AccumulateGrad node would add into the other tensor after the swap: torch
    # poisons it (a graph recorded before the swap cannot run backward)
    for t in (t1, t2):
        node = t._acc() if t._acc is not None else None
        if node is not None:
            node.register_prehook(_poison_pre_hook)
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    attributes1, attributes2 = dict(t1.__dict__), dict(t2.__dict__)
    t1.__dict__.clear()
    t1.__dict__.update(attributes2)
    t2.__dict__.clear()
    t2.__dict__.update(attributes1)
    for slot in Tensor.__slots__:
        if slot in ("__weakref__", "__dict__"):
            continue
        has1, has2 = hasattr(t1, slot), hasattr(t2, slot)
        value1 = getattr(t1, slot) if has1 else None
        value2 = getattr(t2, slot) if has2 else None
        if has2:
            setattr(t1, slot, value2)
        elif has1:
            delattr(t1, slot)
        if has1:
            setattr(t2, slot, value1)
        elif has2:
            delattr(t2, slot)
    # the accumulator nodes belong to the contents: they now live in the other object
    for t in (t1, t2):
        t._acc = None
