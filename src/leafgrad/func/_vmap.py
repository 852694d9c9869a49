"""``vmap``: run a function written for one example over a batch, with batching rules.

>>> x = leafgrad.arange(6.).view(2, 3)
>>> leafgrad.vmap(leafgrad.dot)(x, x)
tensor([ 5., 50.])

Each call opens a level (see Note: batched tensors in ops/_batching.py): the mapped inputs
become batched tensors whose batch dim for the level sits in front of the physical tensor, the
function runs once, and the outputs get the level's dim back at ``out_dims``.
"""

from __future__ import annotations

import functools

from ..autograd._vmap_state import state
from ..ops._batching import levels_of, physical, wrap
from ..tensor import Tensor
from ._pytree import broadcast_prefix, flatten, unflatten

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """Vectorize ``func`` over dim ``in_dims`` of its inputs (torch.func.vmap)."""
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. Got "
            f"{randomness}"
        )
    if not (chunk_size is None or chunk_size > 0):  # (torch's check: a float passes it)
        raise ValueError(
            f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})"
        )

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_out_dims(func, out_dims) -> None:
    """torch checks out_dims before the inputs: an int (a bool counts) or a pytree of ints and
    Nones."""
    if isinstance(out_dims, int):
        return
    for leaf in flatten(out_dims)[0]:
        if leaf is not None and not isinstance(leaf, int):
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, "
                "None or a python collection of ints representing where in the outputs the "
                "vmapped dimension should appear."
            )


def _flat_in_dims(func, in_dims, args):
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):  # (a bool is an int, for torch too)
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
            "(potentially nested) tuple matching the structure of inputs, got: "
            f"{type(in_dims)}."
        )
    if not args:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
            "trying to vmap over a function with no inputs. The latter is unsupported."
        )
    leaves, spec = flatten(args)
    dims = broadcast_prefix(in_dims, spec)
    if dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
            f"the structure of `inputs`. in_dims has structure {flatten(in_dims)[1]} but "
            f"inputs has structure {spec}."
        )
    size = None
    sizes = []
    for leaf, dim in zip(leaves, dims):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input "
                "but in_dim must be either an integer dimension or None."
            )
        if not isinstance(leaf, Tensor):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input "
                f"but the input is of type {type(leaf)}. We cannot vmap over non-Tensor "
                "arguments, please use None as the respective in_dim"
            )
        rank = leaf.ndim
        if not -rank <= dim < rank:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for some "
                f"input, but that input is a Tensor of dimensionality {rank} so expected in_dim "
                f"to satisfy -{rank} <= in_dim < {rank}."
            )
        if isinstance(dim, bool):  # torch's size(in_dim) refuses it
            raise TypeError("size(): argument 'dim' (position 1) must be int, not bool")
        sizes.append(leaf.shape[dim])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    size = sizes[0]
    if any(s != size for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return leaves, spec, dims, size


def _call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    _check_out_dims(func, out_dims)
    leaves, spec, dims, size = _flat_in_dims(func, in_dims, args)
    if chunk_size is not None:
        return _chunked(func, leaves, spec, dims, size, out_dims, randomness, chunk_size, kwargs)
    return _run(func, leaves, spec, dims, size, out_dims, randomness, kwargs)


def _run(func, leaves, spec, dims, size, out_dims, randomness, kwargs):
    level = len(state.stack) + 1  # torch's levels: the nesting depth of all transforms
    batched = []
    for leaf, dim in zip(leaves, dims):
        if dim is None:
            batched.append(leaf)
            continue
        own = levels_of(leaf)
        tensor = physical(leaf)
        source = len(own) + dim % leaf.ndim
        if source != len(own):
            tensor = tensor.movedim(source, len(own))
        tensor = wrap(tensor, own + (level,))
        if source != len(own) and not own:
            # where torch's batched input keeps its batch dim (its repr's bdim, the in_dims a
            # Function's vmap rule gets); leafgrad's is in front (Note: batched tensors)
            tensor.__dict__["_bdim"] = dim % leaf.ndim
        batched.append(tensor)
    state.levels.append((level, size, randomness))
    state.stack.append(("vmap", level, None))
    state.active = True
    try:
        outputs = func(*unflatten(batched, spec), **kwargs)
    finally:
        state.stack.pop()
        state.levels.pop()
        state.active = bool(state.levels)
    return _unbatch_outputs(func, outputs, out_dims, level, size)


def _unbatch_outputs(func, outputs, out_dims, level, size):
    name = _name(func)
    leaves, spec = flatten(outputs)
    if isinstance(out_dims, tuple) and len(out_dims) == 1 and spec.is_leaf:
        out_dims = out_dims[0]  # torch accepts (d,) for a single output
    for leaf, dim in zip(leaves, broadcast_prefix(out_dims, spec) or [0] * len(leaves)):
        if not isinstance(leaf, Tensor) and dim is not None:
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(leaf)}. "
                "Did you mean to set out_dims= to None for output?"
            )
    dims = broadcast_prefix(out_dims, spec)
    if dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
            f"the structure of `outputs`. out_dims has structure {flatten(out_dims)[1]} but "
            f"outputs has structure {spec}."
        )
    results = []
    for leaf, dim in zip(leaves, dims):
        if not isinstance(leaf, Tensor):
            results.append(leaf)
            continue
        own = levels_of(leaf)
        if dim is None:
            if level in own:
                raise ValueError(
                    f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is "
                    "None"
                )
            results.append(leaf)
            continue
        results.append(_move_out(leaf, own, level, size, dim))
    return unflatten(results, spec)


def _move_out(leaf: Tensor, own: tuple, level: int, size: int, dim: int) -> Tensor:
    rank = leaf.ndim + 1
    if not -rank <= dim < rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got "
            f"{dim})"
        )
    dim %= rank
    if level not in own:
        # an output that does not depend on the mapped inputs is repeated over the batch: as
        # torch's _remove_batch_dim, by expanding it to its shape with the batch size inserted
        # at out_dim (no unsqueeze: for out_dim > 0 the dims line up from the right, so torch
        # raises unless the sizes happen to broadcast)
        shape = list(leaf.shape)
        shape.insert(dim, size)
        return leaf.expand(shape)
    position = own.index(level)
    rest = own[:position] + own[position + 1:]
    tensor = leaf._value
    target = len(rest) + dim
    if target != position:
        tensor = tensor.movedim(position, target)
    return wrap(tensor, rest)


def _chunked(func, leaves, spec, dims, size, out_dims, randomness, chunk_size, kwargs):
    """torch's chunked vmap, also when one chunk holds the whole batch: the inputs split with
    tensor_split, empty chunks skipped, the RNG state restored before each chunk under
    randomness='same', every output leaf concatenated with cat at its out_dim (a copy; a
    non-tensor or an out_dim of None is cat's error)."""
    from .. import cat, get_rng_state, set_rng_state

    count = size // chunk_size  # (a float chunk_size fails below as torch's list product)
    sizes = [chunk_size] * count
    if size % chunk_size:
        sizes.append(size % chunk_size)
    state_before = get_rng_state() if randomness == "same" else None
    pieces = []
    start = 0
    for length in sizes:
        chunk_leaves = [
            leaf if dim is None else leaf.narrow(dim, start, length)
            for leaf, dim in zip(leaves, dims)
        ]
        start += length
        if state_before is not None:
            set_rng_state(state_before)
        pieces.append(_run(func, chunk_leaves, spec, dims, length, out_dims, randomness, kwargs))
    if not pieces:
        raise AssertionError("arg_spec must not be None")
    flat = [flatten(piece)[0] for piece in pieces]
    out_spec = flatten(pieces[0])[1]
    out = broadcast_prefix(out_dims, out_spec)
    results = []
    for index, dim in enumerate(out):
        results.append(cat([leaves_[index] for leaves_ in flat], dim=dim))  # (torch: by keyword)
    return unflatten(results, out_spec)
