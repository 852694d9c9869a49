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

from ._dot import Digraph, make_dot
from ._scopes import record_scopes
from ._view import GraphView, draw

__all__ = ["draw", "GraphView", "make_dot", "Digraph", "record_scopes"]
