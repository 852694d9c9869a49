"""The one flag the op hot path reads for vmap (``Op.apply``, in-place ops, random ops).

``active`` is True while any ``vmap`` level is open; ``apply``/``inplace`` are installed by
``ops/_batching.py`` (which knows the batched tensor type) and return ``NotImplemented`` when
no argument is batched, so the op then runs as usual. ``levels`` is the stack of open levels:
``(level, batch size, randomness)``.
"""

from __future__ import annotations

__all__ = ["state"]


class _State:
    __slots__ = ("active", "levels", "apply", "inplace", "batched_draw", "grad_depths", "stack")

    def __init__(self) -> None:
        self.active = False
        # how many vmap levels were open when each running grad-family transform (grad, vjp,
        # jacrev) began: see ``per_example``
        self.grad_depths = []
        self.batched_draw = False  # a draw that makes one value per example is under way
        self.levels = []
        # every open torch.func transform, innermost last: (kind, level, first node number);
        # kind is "vmap", "grad" (grad, vjp, jacrev) or "jvp" (autograd/_transform_levels.py)
        self.stack = []
        self.apply = None
        self.inplace = None


state = _State()


# Note: autograd calls inside transforms
# torch refuses these while any torch.func transform (grad, vjp, jacrev, jvp, vmap) is open,
# whatever tensor they are called on (its functorch TLS checks, and autograd.backward's
# _are_functorch_transforms_active): requires_grad_() (checked before anything but its argument
# parsing; the requires_grad= of a factory and the attribute setter are not), retain_grad() of
# a tensor requiring grad, backward(). leafgrad's own transforms set the flag through
# Tensor._set_requires_grad, which does not check.
INPLACE_REQUIRES_GRAD = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using "
    "torch.autograd.functional.* APIs) inside of a function being transformed by a functorch "
    "transform. This is unsupported, please attempt to use the functorch transforms (e.g. "
    "grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
    "transformed instead."
)
RETAIN_GRAD = (
    "You are attempting to call Tensor.retain_grad() inside of a function being transformed by "
    "a functorch transform. This is unsupported, please attempt to use the functorch transforms "
    "(e.g. grad, vjp, jacrev, jacfwd, hessian) or call retain_grad() outside of a function being "
    "transformed instead."
)
# torch's vmap has no rule for equal (a bool, not a tensor) and its fallback cannot run it
EQUAL_UNDER_VMAP = (
    "Batching rule not implemented for aten::equal. We could not generate a fallback."
)
BACKWARD = (
    "backward() called inside a functorch transform. This is not supported, please use "
    "functorch.grad or functorch.vjp instead or call backward() outside of functorch transforms."
)


def per_example() -> bool:
    """Whether the innermost transform is a grad-family one inside a vmap level (vmap(grad(f))).

    Note: per-example backward formulas
    torch records a graph inside vmap at the grad transform's level, above the batching: the
    backward runs each op's own formula per example (dot's ``grad * other``), batched after.
    leafgrad records the batched computation instead, whose backward is that of the physical
    ops (a batched dot's is a matrix product, which turns -0 products into +0). A batching rule
    whose physical backward differs from the per-example formula asks ``per_example()`` and then
    records the per-example formula (``_batching_rules.matmul_like``)."""
    depths = state.grad_depths
    return bool(depths) and depths[-1] == len(state.levels) and depths[-1] > 0

RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out of "
    "vmap"
)


DIFFERENT_UNSUPPORTED = (
    "vmap: randomness='different' draws one value per example only in rand, randn, rand_like, "
    "randn_like, the dropouts and rrelu in leafgrad; this random operation would give every example "
    "the same values. Use randomness='same', or draw outside vmap"
)


class batched_draw:
    """Marks a draw that gives each example its own values (``randomness='different'``)."""

    def __enter__(self):
        self.previous = state.batched_draw
        state.batched_draw = True

    def __exit__(self, *exc):
        state.batched_draw = self.previous


def check_draw() -> None:
    """Every draw inside vmap: torch's error in 'error' mode; in 'different' mode, draws that
    are not made per example raise rather than repeat one value for every example."""
    levels, _ = random_levels()
    if levels and not state.batched_draw:
        raise RuntimeError(DIFFERENT_UNSUPPORTED)


def random_levels() -> tuple:
    """Before a random draw inside vmap: torch's error in ``randomness='error'`` mode, else the
    ``(levels, sizes)`` of the levels whose examples draw different numbers."""
    levels, sizes = [], []
    for level, size, randomness in state.levels:
        if randomness == "error":
            raise RuntimeError(RANDOM_ERROR)
        if randomness == "different":
            levels.append(level)
            sizes.append(size)
    return tuple(levels), tuple(sizes)
