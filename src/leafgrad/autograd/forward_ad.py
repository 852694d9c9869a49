"""Forward-mode AD: dual tensors that carry a tangent through every op (torch's forward_ad).

>>> import leafgrad.autograd.forward_ad as fwAD
>>> x = leafgrad.tensor([1., 2.])
>>> with fwAD.dual_level():
...     y = fwAD.make_dual(x, leafgrad.ones(2)).exp()
...     fwAD.unpack_dual(y).tangent
tensor([2.7183, 7.3891])

Inside a level, each op's ``jvp`` formula (declared in the op's class, beside its backward)
computes the tangent of its result from the tangents of its inputs; ``ops/_forward.py`` runs
them. Tangents live in the tensor's ``_fw_grad`` slot (unset for every tensor that never had
one) and are dropped, for every tensor of the level, when the level exits.

Note: one level at a time
torch 2.13 refuses a second level while one is active ("Nested forward mode AD is not
supported at the moment"); leafgrad does the same, so a level is always number 0. Levels are
process-wide, as torch's are.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from .grad_mode import _Switch

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]


class _State:
    """``active`` is the one flag the op hot path reads (Op.apply, in-place ops, Function).

    It is True inside a level, except while an op computes its primal result and its tangent
    formula (those inner ops work on plain values, see ``ops/_forward.py``) and while
    ``_set_fwd_grad_enabled(False)`` holds.
    """

    __slots__ = ("active", "level", "enabled", "functorch")

    def __init__(self) -> None:
        self.active = False
        self.level = None
        self.enabled = True
        # True while torch.func.jvp runs its function: torch's functorch layer lifts the
        # wrapped numbers of add/sub/mul/div into plain 0-d tensors there (ops/_forward.py,
        # Note: numbers under torch.func.jvp)
        self.functorch = False


state = _State()

# torch keeps the current level in this module global (-1: none); some user code reads it.
_current_level = -1


class _Level:
    """The tensors holding a tangent at this level, weakly, so that exit can clear them."""

    __slots__ = ("index", "duals")

    def __init__(self, index: int) -> None:
        self.index = index
        self.duals = weakref.WeakValueDictionary()  # id(tensor) -> tensor


def enter_dual_level() -> int:
    """Enter a forward-AD level and return its number (the default of the other functions)."""
    global _current_level
    if state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.level = _Level(_current_level + 1)
    _current_level = state.level.index
    state.active = state.enabled
    return _current_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Exit the current level: every tangent made in it is deleted."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    current = state.level
    state.active = False
    state.level = None
    _current_level = level - 1
    for tensor in list(current.duals.values()):
        tensor._fw_grad = None


class dual_level(_Switch):
    """Context manager (and decorator) for a forward-AD level.

    >>> with dual_level():
    ...     y = make_dual(x, v) * 2
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal (a view of the tensor) and its tangent."""

    primal: Any
    tangent: Any


def make_dual(tensor, tangent, *, level: int | None = None):
    """A new tensor aliasing ``tensor`` whose tangent is ``tangent`` (kept as is when it has
    ``tensor``'s layout, else copied into it). Differentiable in reverse mode too."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if level != _current_level:
        raise RuntimeError("Invalid level given to _make_dual")
    if get_tangent(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            f"same level {level} is not supported."
        )
    if get_tangent(tangent) is not None:
        raise RuntimeError(
            "Setting a forward grad that itself has a forward gradient at the same level"
            f"{level} is not supported."
        )
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor.shape)} while the given forward gradient is of size "
            f"{list(tangent.shape)}."
        )
    if type(tensor).__name__ == "BatchedTensor" or type(tangent).__name__ == "BatchedTensor":
        from ..ops._batching_autograd import batched_make_dual

        return batched_make_dual(make_dual, tensor, tangent, level)
    from ..ops import View

    active, state.active = state.active, False
    try:
        # torch's make_dual is an alias of the primal recorded as a view (ViewBackward0)
        dual = View.apply(tensor, shape=tensor._data.shape)
        set_tangent(dual, _same_layout(tangent, tensor))
    finally:
        state.active = active
    return dual


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)``: the primal is a view of ``tensor`` without the tangent, the
    tangent is the tensor's tangent as is (None when it has none)."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    from ..tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
            f"{type(tensor).__name__}"
        )
    if type(tensor).__name__ == "BatchedTensor":  # inside vmap: the physical tensor's
        from ..ops._batching import wrap

        unpacked = unpack_dual(tensor._value, level=level)
        tangent = unpacked.tangent
        return UnpackedDualTensor(wrap(unpacked.primal, tensor._levels),
                                  None if tangent is None else wrap(tangent, tensor._levels))
    from ..ops._forward import FwPrimal

    # as torch, the level is only checked against a tensor that has a tangent
    tangent = get_tangent(tensor) if state.level is not None else None
    if tangent is not None and level != _current_level:
        raise RuntimeError("Invalid level given to _fw_primal")
    active, state.active = state.active, False
    try:
        primal = FwPrimal.apply(tensor)
    finally:
        state.active = active
    return UnpackedDualTensor(primal, tangent if level == _current_level else None)


class _set_fwd_grad_enabled(_Switch):
    """Turn the propagation of tangents off (or on) while it holds (torch's private switch,
    used by function transforms): ops inside a level then act as outside one."""

    def __init__(self, mode: bool) -> None:
        self.prev = state.enabled
        self.mode = bool(mode)
        _set_enabled(self.mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set_enabled(self.prev)

    def clone(self):
        return type(self)(self.mode)


def _set_enabled(mode: bool) -> None:
    state.enabled = mode
    state.active = mode and state.level is not None


def _is_fwd_grad_enabled() -> bool:
    return state.enabled


# -- tangent storage (used by ops/_forward.py and the Tensor's repr) -------------------------------


def get_tangent(tensor):
    """The tensor's tangent at the current level, or None.

    A view without a tangent of its own gets a view of its base's tangent (made on first
    access and kept, as torch does), so in-place updates of either are seen by both.
    """
    if not state.enabled:
        return None  # _set_fwd_grad_enabled(False) hides every tangent
    tangent = getattr(tensor, "_fw_grad", None)
    if tangent is not None or state.level is None:
        return tangent
    base = tensor._base
    if base is None or _hides_tangent(tensor._view_steps):
        return None
    base_tangent = getattr(base, "_fw_grad", None)
    if base_tangent is None:
        return None
    from ..ops.shape import replay

    active, state.active = state.active, False
    try:
        tangent = replay(base_tangent, tensor._view_steps)
    finally:
        state.active = active
    set_tangent(tensor, tangent)
    return tangent


def _hides_tangent(steps: tuple) -> bool:
    """Whether a view was made through unpack_dual's primal (torch's _fw_primal view is not
    forward-differentiable: it never shows its base's tangent)."""
    for op, _ in steps:
        if op.op_name == "FwPrimal":
            return True
    return False


def set_tangent(tensor, tangent) -> None:
    tensor._fw_grad = tangent
    state.level.duals[id(tensor)] = tensor


def _same_layout(tangent, tensor):
    """``tangent`` itself when its layout is ``tensor``'s, else a copy with that layout (torch
    stores a tangent as is only when both have the same storage size, storage offset and
    strides, and the same conjugate and negative bits; sizes are equal here; an empty
    tensor's layout and a size-1 dim's stride do not count)."""
    if tangent.numel() == 0 and tensor.numel() == 0:
        return tangent
    if tangent.is_conj() == tensor.is_conj() and tangent.is_neg() == tensor.is_neg() and all(
            size < 2 or mine == theirs
            for size, mine, theirs in zip(tensor.shape, tensor.stride(), tangent.stride())) \
            and tangent.storage_offset() == tensor.storage_offset() \
            and tangent.untyped_storage().nbytes() // tangent.element_size() \
            == tensor.untyped_storage().nbytes() // tensor.element_size():
        return tangent
    from ..ops._forward import empty_strided_like
    from ..ops.inplace import OVERLAP_ERROR, has_internal_overlap

    from ._vmap_state import state as vmap_state

    if has_internal_overlap(tensor._data) and not vmap_state.active:
        # torch copies the tangent into new_empty_strided(primal's sizes and strides): an
        # expanded primal's copy_ refuses to write (so torch.func.jvp at an expanded point;
        # inside vmap a physical primal is expanded over the batch, torch's is not)
        raise RuntimeError(OVERLAP_ERROR)
    return empty_strided_like(tensor, tangent.dtype).copy_(tangent)
