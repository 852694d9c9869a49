"""Small top-level names torch code uses: the accelerator error types, ``is_storage`` and
``get_device_module``, and torch's deprecated per-device autocast getters and setters."""

from __future__ import annotations

import sys

from .amp.autocast_mode import LEGACY as _LEGACY

__all__ = ["OutOfMemoryError", "AcceleratorError", "is_storage", "get_device_module",
           *_LEGACY]

globals().update(_LEGACY)


class OutOfMemoryError(RuntimeError):
    """An accelerator ran out of memory (``torch.cuda.OutOfMemoryError``). leafgrad runs on
    the CPU, where running out of memory is torch's RuntimeError, so nothing raises this; it
    exists for ``except torch.OutOfMemoryError`` clauses."""


class AcceleratorError(RuntimeError):
    """An accelerator's own error (none on the CPU; for ``except`` clauses)."""


def is_storage(obj) -> bool:
    """Whether ``obj`` is a storage (typed or untyped)."""
    from .storage import TypedStorage, UntypedStorage

    return isinstance(obj, (TypedStorage, UntypedStorage))


def get_device_module(device=None):
    """The module of a device type: ``leafgrad.cpu`` for "cpu" (and by default: leafgrad has
    no accelerator), ``leafgrad.cuda`` for "cuda", and so on."""
    from ._device import device as _device

    if device is None:
        name = "cpu"
    elif isinstance(device, _device):
        name = device.type
    elif isinstance(device, str):
        name = _device(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           "None")
    module = getattr(sys.modules["leafgrad"], name, None)
    if module is None or type(module) is not type(sys):
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered "
                           f"as 'torch.{name}'.")
    return module
