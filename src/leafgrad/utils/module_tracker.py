"""``torch.utils.module_tracker.ModuleTracker``: which modules are running, forward or backward.

While the tracker is entered, ``parents`` holds the fully qualified names of the modules whose
forward is running (``"Sequential"``, ``"Sequential.0"``, ...) and always ``"Global"``. In the
backward, a module's name is added when the gradients of all its outputs have been computed and
removed when those of all its inputs that require grad have (the same global module hooks and
multi-grad hooks torch's tracker uses); a module none of whose inputs requires grad stays in
``parents`` until that backward ends, when ``parents`` is reset to ``{"Global"}``.
"""

from __future__ import annotations

import logging
import weakref

from ..autograd import engine as _engine
from ..autograd.graph_hooks import register_multi_grad_hook
from ..nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from ..tensor import Tensor
from ._pytree import tree_flatten

__all__ = ["ModuleTracker"]

logger = logging.getLogger(__name__)


class ModuleTracker:
    """Track the module hierarchy while code runs: ``parents`` is the set of the modules (by
    name) running now, forward or backward; ``is_bw`` whether a backward is running."""

    parents: set

    def __init__(self) -> None:
        self.parents = {"Global"}
        self._known_modules: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._seen_modules: weakref.WeakSet = weakref.WeakSet()
        self._has_callback = False
        self._hooks: list = []

    @property
    def is_bw(self) -> bool:
        """Whether a backward pass is running in this thread."""
        return bool(getattr(_engine._running, "tasks", None))

    def _reset_after_backward(self) -> None:
        if self._has_callback:
            return

        def reset() -> None:
            self.parents = {"Global"}
            self._has_callback = False

        _engine.queue_callback(reset)
        self._has_callback = True

    def _get_mod_name(self, mod) -> str:
        """A module's name: its class name at the top, ``parent.child`` below (the first
        module seen names its whole tree)."""
        if mod not in self._known_modules:
            self._known_modules[mod] = type(mod).__name__
        name = self._known_modules[mod]
        if mod not in self._seen_modules:
            for child_name, child in mod.named_children():
                self._known_modules[child] = f"{name}.{child_name}"
                self._get_mod_name(child)
            self._seen_modules.add(mod)
        return name

    def _enter(self, name: str, backward: bool):
        def enter(*args) -> None:
            if backward:
                self._reset_after_backward()
            if name in self.parents:
                logger.info("The module hierarchy tracking seems to be broken as this Module was "
                            "already entered. %s during %s", name,
                            "backward" if backward else "forward")
            self.parents.add(name)

        return enter

    def _leave(self, name: str, backward: bool):
        def leave(*args) -> None:
            if name in self.parents:
                self.parents.remove(name)
            else:
                logger.info("The Module hierarchy tracking is confused as we're exiting a Module "
                            "that was never entered. %s during %s", name,
                            "backward" if backward else "forward")

        return leave

    @staticmethod
    def _needing_grad(values) -> list:
        flat, _ = tree_flatten(values)
        return [v for v in flat if isinstance(v, Tensor) and v.requires_grad]

    def _fw_pre_hook(self, mod, args) -> None:
        name = self._get_mod_name(mod)
        self._enter(name, False)()
        tensors = self._needing_grad(args)
        if tensors:
            self._hooks.append(register_multi_grad_hook(tensors, self._leave(name, True)))

    def _fw_post_hook(self, mod, args, output) -> None:
        name = self._get_mod_name(mod)
        self._leave(name, False)()
        tensors = self._needing_grad(output)
        if tensors:
            self._hooks.append(register_multi_grad_hook(tensors, self._enter(name, True)))

    def __enter__(self):
        self._fw_pre_handle = register_module_forward_pre_hook(self._fw_pre_hook)
        self._fw_post_handle = register_module_forward_hook(self._fw_post_hook)
        return self

    def __exit__(self, *args) -> None:
        self._fw_pre_handle.remove()
        self._fw_post_handle.remove()
        for hook in self._hooks:
            hook.remove()
        self._hooks.clear()
