"""``torch._C``: here only what user code reaches for in it, ``Generator`` (whose repr names
this module, as torch's does) and the multithreaded-backward flag."""

from ._rng import Generator
from .overrides import (DisableTorchFunction, DisableTorchFunctionSubclass,
                        _disabled_torch_function_impl)

__all__ = ["Generator", "DisableTorchFunction", "DisableTorchFunctionSubclass"]


def _is_multithreading_enabled() -> bool:
    from .autograd.grad_mode import state

    return state.multithreading


def _set_multithreading_enabled(mode: bool) -> None:
    from .autograd.grad_mode import state

    state.multithreading = bool(mode)
