"""``leafgrad.viz``: pictures of the recorded graph, with values, gradients and a backward replay.

>>> w = leafgrad.tensor([1.], requires_grad=True)
>>> x = leafgrad.tensor([2.], requires_grad=True)
>>> y = (x + w) * (w + 1)
>>> y.backward()
>>> view = leafgrad.viz.draw(y)          # names w, x, y come from the caller's variables
>>> view.save("graph.html")              # one self-contained page: pan, zoom, click, search

``make_dot`` gives torchviz's DOT for people moving from torchviz; ``record_scopes`` groups
nodes by the ``nn.Module`` call that made them. Everything here reads the op table and the
live graph; nothing in the engine depends on it.
"""

from __future__ import annotations

import importlib

__all__ = ["draw", "GraphView", "make_dot", "Digraph", "record_scopes"]

# Loaded on first use: ``import leafgrad`` should not pay for the drawing code.
_HOME = {"draw": "_view", "GraphView": "_view", "make_dot": "_dot", "Digraph": "_dot",
         "record_scopes": "_scopes"}


def __getattr__(name: str):
    if name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(list(globals()) + list(_HOME))
