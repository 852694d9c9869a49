"""``autograd.Function`` under vmap: the class's own ``vmap`` staticmethod, or the rule torch
generates with ``generate_vmap_rule = True`` (forward, setup_context and backward run on
batched tensors, so their ops go through the batching rules)."""

from __future__ import annotations

from typing import NamedTuple

from ..autograd._vmap_state import state
from ..tensor import Tensor
from ..func._pytree import broadcast_prefix, flatten, unflatten
from ._batching import BatchedTensor, align, all_levels, level_sizes, levels_of, physical, wrap

__all__ = ["function_apply"]

_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


class VmapInfo(NamedTuple):
    """What a Function's ``vmap`` staticmethod gets first (torch's VmapInfo)."""

    batch_size: int
    randomness: str


def function_apply(cls, args: tuple, uses_setup_context: bool, kwargs: dict):
    """``cls.apply(*args)`` with some argument batched."""
    from ..autograd.function import Function

    if cls.__module__.startswith("leafgrad."):
        # leafgrad's own Functions (matrix_exp, lu_factor, the gamma family...) stand for
        # ATen kernels that torch batches: run per example of the innermost level
        return _per_example(cls, args, kwargs)
    if not uses_setup_context:
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod. " + _DOCS
        )
    check_vmap_support(cls)
    if getattr(cls, "vmap", None) is not getattr(Function, "vmap", None):
        return _own_rule(cls, args, kwargs)
    return _generated_rule(cls, args)


def _per_example(cls, args: tuple, kwargs: dict):
    from ._batching import select_example, stack_level

    leaves = flatten(list(args))[0]
    level = max(all_levels(leaves, {}))
    size = level_sizes(leaves, {}, (level,))[0]
    rows = [cls.apply(*[select_example(a, level, i) for a in args], **kwargs)
            for i in range(size)]
    if isinstance(rows[0], tuple):
        return tuple(stack_level([row[k] for row in rows], level, size)
                     for k in range(len(rows[0])))
    return stack_level(rows, level, size)


def check_vmap_support(cls) -> None:
    """torch's errors for a Function under vmap with no vmap rule, or two."""
    from ..autograd.function import Function

    if getattr(cls, "vmap", None) is not getattr(Function, "vmap", None):
        if getattr(cls, "generate_vmap_rule", False):
            raise RuntimeError(
                f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True "
                "and an overridden vmap staticmethod. Please set generate_vmap_rule=False or "
                "delete the overridden vmap staticmethod to avoid ambiguity. " + _DOCS)
        return
    if getattr(cls, "generate_vmap_rule", False):
        return
    raise RuntimeError(
        f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
        "override and implement the vmap staticmethod or set generate_vmap_rule=True. " + _DOCS
    )


def _own_rule(cls, args: tuple, kwargs: dict):
    """The class's ``vmap(info, in_dims, *args)`` for the innermost level: a batched argument
    comes with that level's dim as its dim 0 (``in_dims`` 0; outer levels stay batched)."""
    leaves = flatten(list(args))[0]  # (batched tensors may be inside list arguments)
    level = max(all_levels(leaves, {}))
    size = level_sizes(leaves, {}, (level,))[0]
    randomness = next(r for lvl, _, r in state.levels if lvl == level) \
        if any(lvl == level for lvl, _, _ in state.levels) else "error"

    def peel(arg):
        """``(value, in_dim)``: a batched tensor with the level's dim as its dim 0; lists and
        tuples element by element (torch's in_dims follow the arguments' pytree)."""
        if type(arg) is BatchedTensor and level in arg._levels:
            bdim = arg.__dict__.get("_bdim")
            if bdim is not None:  # a vmap input kept at its dim, as torch's (_vmap._run)
                return arg._value.movedim(0, bdim), bdim
            position = arg._levels.index(level)
            rest = arg._levels[:position] + arg._levels[position + 1:]
            return wrap(arg._value.movedim(position, len(rest)), rest), 0
        if type(arg) in (list, tuple):
            pairs = [peel(item) for item in arg]
            return (type(arg)(value for value, _ in pairs),
                    type(arg)(dim for _, dim in pairs))
        return arg, None

    pairs = [peel(arg) for arg in args]
    peeled = [value for value, _ in pairs]
    in_dims = [dim for _, dim in pairs]
    # the rule runs below the level it implements, as torch's: ops on the tensors it was
    # given are not batched at that level again
    saved = state.levels[:], state.stack[:], state.active
    state.levels[:] = [entry for entry in state.levels if entry[0] != level]
    state.stack[:] = [entry for entry in state.stack if entry[1] != level]
    state.active = bool(state.levels)
    try:
        returned = cls.vmap(VmapInfo(size, randomness), tuple(in_dims), *peeled, **kwargs)
    finally:
        state.levels[:], state.stack[:], state.active = saved
    if not isinstance(returned, tuple) or len(returned) != 2:
        got = (f"{len(returned)} returns" if isinstance(returned, tuple)
               else f"a {type(returned)}").replace("leafgrad.", "torch.")
        raise RuntimeError(
            "Expected the vmap staticmethod to have two returns, an output and out_dims with "
            f"pytree structure compatible with the output. Got {got} instead")
    outputs, out_dims = returned
    leaves, spec = flatten(outputs)
    dims = broadcast_prefix(out_dims, spec)
    if dims is None:
        raise RuntimeError(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the structure "
            f"of `output`. out_dims has structure {flatten(out_dims)[1]} but output has "
            f"structure {spec}. " + _DOCS)
    results = []
    for output, dim in zip(leaves, dims):
        if dim is None or not isinstance(output, Tensor):
            results.append(output)
            continue
        own = levels_of(output)
        dim %= output.ndim
        levels = tuple(sorted(own + (level,)))
        value = physical(output).movedim(len(own) + dim, levels.index(level))
        results.append(wrap(value, levels))
    return unflatten(results, spec)


def _generated_rule(cls, args: tuple):
    """torch's generated rule: the Function applied once to the physical tensors, its
    forward, setup_context and backward seeing batched tensors."""
    levels = all_levels(args, {})
    sizes = level_sizes(args, {}, levels)
    physical_args = [align(a, levels, sizes) if isinstance(a, Tensor) else a for a in args]
    outputs = _physical_function(cls, levels, sizes).apply(*physical_args)
    if isinstance(outputs, tuple):
        return tuple(wrap(o, levels) if isinstance(o, Tensor) else o for o in outputs)
    return wrap(outputs, levels)


def _batched(values, levels):
    return tuple(wrap(v, levels) if isinstance(v, Tensor) else v for v in values)


def _unbatched(values, levels, sizes):
    return tuple(align(v, levels, sizes) if isinstance(v, Tensor) else v for v in values)


class _Levels:
    """Re-opens vmap's dispatch while a generated rule's backward runs after vmap returned."""

    def __enter__(self):
        self.active = state.active
        state.active = True

    def __exit__(self, *exc):
        state.active = self.active


def _physical_function(cls, levels: tuple, sizes: tuple):
    from ..autograd.function import Function

    def forward(*values):
        with _Levels():
            outputs = cls.forward(*_batched(values, levels))
        if isinstance(outputs, tuple):
            return _unbatched(outputs, levels, sizes)
        return align(outputs, levels, sizes)

    def setup_context(ctx, inputs, output):
        outputs = output if isinstance(output, tuple) else (output,)
        batched_out = _batched(outputs, levels)
        with _Levels():
            cls.setup_context(ctx, _batched(inputs, levels),
                              batched_out if isinstance(output, tuple) else batched_out[0])
        saved = getattr(ctx, "to_save", None)
        if saved:
            ctx._vmap_saved = tuple(levels_of(t) if isinstance(t, Tensor) else None
                                    for t in saved)
            ctx.to_save = tuple(physical(t) if isinstance(t, Tensor) else t for t in saved)

    def backward(ctx, *grads):
        with _Levels():
            results = cls.backward(ctx, *_batched(grads, levels))
        if not isinstance(results, tuple):
            results = (results,)
        return _unbatched(results, levels, sizes)

    return type(cls.__name__, (Function,), {
        "forward": staticmethod(forward),
        "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward),
    })
