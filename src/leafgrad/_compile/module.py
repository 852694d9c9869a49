"""``leafgrad.compile(module)``: torch's OptimizedModule, a module wrapping the original.

The wrapper's ``forward`` is the original module's call, compiled; its parameters, buffers and
state_dict keys are the original's under ``_orig_mod.`` (as torch's); other attributes are
looked up on the original module.
"""

from __future__ import annotations

from ..nn import Module
from .api import CompiledFunction

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    def __init__(self, mod: Module, fullgraph: bool = False, dynamic: bool = False) -> None:
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled_call",
                           CompiledFunction(mod, fullgraph=fullgraph, dynamic=dynamic, module=mod))

    def forward(self, *args, **kwargs):
        return self._compiled_call(*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)

    @property
    def graph(self):
        return self._compiled_call.graph

    @property
    def backward_graph(self):
        return self._compiled_call.backward_graph

    @property
    def code(self):
        return self._compiled_call.code
