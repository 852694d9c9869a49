"""``skip_init``: build a module without running its initialisation."""

from __future__ import annotations

import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls`` with uninitialised parameters and buffers.

    torch builds on the meta device and then allocates; leafgrad (CPU only) builds normally
    with the default generator's state put back afterwards, so, as in torch, no random number
    is consumed and the values are whatever ``to_empty`` allocates.
    """
    from ... import _rng as _random

    if not issubclass(module_cls, Module):  # a non-class raises issubclass's TypeError, as torch
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    state = _random.get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        _random.set_rng_state(state)
    return module.to_empty(device=final_device)
