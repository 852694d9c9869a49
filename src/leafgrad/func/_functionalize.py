"""``torch.func.functionalize`` and ``debug_unwrap``.

leafgrad has no functional-tensor layer: a functionalized function runs as written, which gives
what torch's eager functionalize gives the caller (the same outputs and the same mutations of
its inputs, written back at the end in torch), and ``remove="mutations_and_views"`` returns
outputs that are views as copies, as torch's ``*_copy`` ops do. The graph inside differs in
node names where torch's out-of-place replacements differ from the in-place ops."""

from __future__ import annotations

import functools

_INVALID = (
    "functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
    "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
    "removed from the program, and replaced with their out-of-place equivalents.\n     "
    "remove='mutations_and_views': In addition to the above, all aliasing operators {{view}} "
    "will be replaced with their non-aliasing counterparts, {{view}}_copy.\n")


def functionalize(func, *, remove: str = "mutations"):
    """``func`` as torch's functionalize transform returns it (see the module's note)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_INVALID.format(remove=remove))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        out = func(*args, **kwargs)
        if remove == "mutations_and_views":
            from ..utils._pytree import tree_map
            from ..tensor import Tensor

            out = tree_map(lambda t: t.clone() if isinstance(t, Tensor) and t._base is not None
                           else t, out)
        return out

    return wrapped


def debug_unwrap(tensor, *, recurse: bool = True):
    """The tensor under torch.func's wrappers; leafgrad's transforms do not wrap tensors."""
    return tensor
