"""The open torch.func transforms, numbered as torch numbers them, and the repr torch gives a
tensor inside them.

Note: wrapper reprs inside transforms
torch.func wraps every tensor an op makes inside ``grad``/``vjp``/``jacrev``/``jvp`` in a
GradTrackingTensor of that transform's level, and inside ``vmap`` in a BatchedTensor; levels
count every open transform (``vmap(grad(f))``: vmap is level 1, grad level 2). Printing such a
tensor shows the wrappers, outermost level first, around the plain tensor as the caller's
autograd sees it. leafgrad runs grad transforms on ordinary autograd (func/_transforms.py, Note:
levels without level tensors) and keeps no wrapper, so the wrappers are worked out when a tensor
is printed (nothing is added to the op path): a transform's own input (``enter``) is wrapped at
its level and the levels around it; a tensor whose node was made after a level opened is wrapped
at that level; a leaf requiring grad is the caller's, not wrapped; any other tensor without a
history (a ``detach()``, a mask, a new tensor) is taken as made inside, hence wrapped at every
open level (a constant captured from outside prints wrapped too, where torch prints it plain).
What the innermost tensor shows of autograd is the caller's view: a ``grad_fn`` only when its
graph reaches a leaf of the caller's.
"""

from __future__ import annotations

import weakref

from ._vmap_state import state

__all__ = ["opened", "enter", "is_input", "wrapper_repr"]

# A transform's own inputs, by id: (weak ref to the input, its level, the caller's tensor it
# stands for or None when it was detached from it).
_INPUTS: dict[int, tuple] = {}


class opened:
    """A grad-family (``"grad"``) or forward (``"jvp"``) transform's level while it runs."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __enter__(self):
        from .graph import next_sequence_nr

        state.stack.append((self.kind, len(state.stack) + 1, next_sequence_nr()))

    def __exit__(self, *exc):
        state.stack.pop()


def enter(inner, source) -> None:
    """Record ``inner`` as the input of the transform about to open (``source``: the caller's
    tensor it aliases, or None)."""
    key = id(inner)
    level = len(state.stack) + 1
    _INPUTS[key] = (weakref.ref(inner, lambda _, key=key: _INPUTS.pop(key, None)), level, source)


def _input(tensor):
    entry = _INPUTS.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        return entry
    return None


def is_input(tensor) -> bool:
    return _input(tensor) is not None


def _grad_levels(tensor) -> list:
    """The open grad/jvp levels ``tensor`` is wrapped at (see Note: wrapper reprs inside
    transforms)."""
    levels = [(level, mark) for kind, level, mark in state.stack if kind != "vmap"]
    if not levels:
        return []
    entry = _input(tensor)
    if entry is not None:
        return [level for level, _ in levels if level <= entry[1]]
    node = tensor._node
    if node is not None:
        sequence = getattr(node, "_seq", None)
        if sequence is None:
            return []
        return [level for level, mark in levels if mark <= sequence]
    if tensor._requires_grad:
        return []
    return [level for level, _ in levels]


def _reaches_caller(node) -> bool:
    from .graph import AccumulateGrad

    seen, stack = set(), [node]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is AccumulateGrad:
            if _input(node.variable) is None:
                return True
            continue
        stack.extend(child for child, _ in node.next_functions)
    return False


def _caller_extras(tensor) -> list:
    """What the caller's autograd shows of ``tensor`` (the innermost value's suffixes)."""
    entry = _input(tensor)
    while entry is not None:  # a transform's input shows the tensor it stands for
        tensor = entry[2]
        if tensor is None:
            return []
        entry = _input(tensor)
    if tensor._node is not None:
        if _reaches_caller(tensor._node):
            return [f"grad_fn=<{type(tensor._node).__name__}>"]
        return []
    return ["requires_grad=True"] if tensor._requires_grad else []


def _caller_repr(tensor) -> str:
    from .._printing import tensor_repr

    return tensor_repr(tensor._data, tensor.dtype, _caller_extras(tensor))


def wrapper_repr(tensor, vmap_levels: tuple = ()) -> str | None:
    """torch's repr of ``tensor`` (a physical tensor, batched at ``vmap_levels``) inside the
    open transforms, or None when it is not wrapped at any grad/jvp level."""
    grad_levels = _grad_levels(tensor)
    if not grad_levels:
        return None
    text = _caller_repr(tensor)
    wrappers = sorted([(level, "grad") for level in grad_levels]
                      + [(level, "vmap") for level in vmap_levels])
    for level, kind in wrappers:
        inner = "\n".join("    " + line for line in text.splitlines())
        if kind == "grad":
            text = f"GradTrackingTensor(lvl={level}, value=\n{inner}\n)"
        else:
            text = f"BatchedTensor(lvl={level}, bdim=0, value=\n{inner}\n)"
    return text
