"""The handle every hook registration returns (``torch.utils.hooks.RemovableHandle``): module,
optimizer and tensor hooks alike (autograd/graph.py's tensor-hook handle is a lighter subclass).
Kept free of imports so that every part of leafgrad can use it."""

from __future__ import annotations

import itertools
import weakref

__all__ = ["RemovableHandle"]


class _Dead(dict):
    """A hooks dict that died before pickling (a weakly referable dict)."""


class RemovableHandle:
    """Removes a hook from its dict (and from the extra dicts that flag it) on ``remove()``."""

    _ids = itertools.count()

    def __init__(self, hooks: dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks)
        self.id = next(RemovableHandle._ids)
        # (an empty dict is falsy, and the kwargs flags dict is empty until a hook needs it)
        extras = (extra_dict if isinstance(extra_dict, list)
                  else [] if extra_dict is None else [extra_dict])
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self) -> None:
        hooks = self.hooks_dict_ref()
        if hooks is not None:
            hooks.pop(self.id, None)
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None:
                extra.pop(self.id, None)

    def __getstate__(self):  # (weak references do not pickle: the dicts themselves, as torch)
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        self.hooks_dict_ref = weakref.ref(_Dead() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle._ids = itertools.count(max(next(RemovableHandle._ids), self.id + 1))
        self.extra_dict_ref = tuple(weakref.ref(d) for d in state[2]) if len(state) > 2 else ()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


RemovableHandle.__module__ = "leafgrad.utils.hooks"  # where torch users look for it
