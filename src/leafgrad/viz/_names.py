"""Names for tensors, taken from the variables of the code that asked for the picture."""

from __future__ import annotations

import sys

__all__ = ["names_in", "caller_frame"]

_PACKAGE = __name__.rsplit(".", 2)[0]  # "leafgrad"


def caller_frame(depth: int = 1):
    """The first frame outside leafgrad above the caller (the user's code)."""
    frame = sys._getframe(depth + 1)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == _PACKAGE:
        frame = frame.f_back
    return frame


def names_in(namespaces) -> dict:
    """``{id(tensor): (name, tensor)}`` for tensors bound to names, and for the parameters of
    modules bound to names (``model.0.weight``; the bare ``0.weight`` when there is one model)."""
    from ..nn import Module
    from ..tensor import Tensor

    found: dict = {}
    modules = []
    for namespace in namespaces:
        if not namespace:
            continue
        for name, value in list(namespace.items()):
            if name.startswith("_"):
                continue
            if isinstance(value, Tensor):
                found.setdefault(id(value), (name, value))
            elif isinstance(value, Module):
                if all(value is not other for _, other in modules):
                    modules.append((name, value))
    for module_name, module in modules:
        prefix = "" if len(modules) == 1 else module_name + "."
        try:
            parameters = list(module.named_parameters())
        except Exception:
            continue
        for name, parameter in parameters:
            # a parameter also bound to a plain variable keeps its parameter name
            found[id(parameter)] = (prefix + name, parameter)
    return found
