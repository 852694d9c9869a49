"""``functional_ref(F.softmax)``: a module's functional as a class attribute, read from
``nn.functional`` at each call.

A ``__torch_function__`` mode or tensor subclass replaces the namespace's functions with
dispatching wrappers while it is about (overrides.py); a class attribute holding the function
itself would keep calling the unwrapped one, so a mode saw nothing of ``nn.Softmax``,
``nn.Dropout`` or ``nn.SiLU`` where torch's modules call ``F.softmax``, ``F.dropout``,
``F.silu`` (tests/nn/test_module_torch_function.py)."""

from __future__ import annotations

from .. import functional as F

__all__ = ["functional_ref"]


class functional_ref:  # noqa: N801 - used as a decorator-like attribute maker
    __slots__ = ("name",)

    def __init__(self, function):
        self.name = function.__name__

    def __get__(self, instance, owner=None):
        return getattr(F, self.name)
