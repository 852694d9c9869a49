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


def _set_grad_enabled(mode: bool) -> None:
    """torch._C._set_grad_enabled: switch grad mode for this thread (as set_grad_enabled)."""
    from .autograd.grad_mode import state

    if not isinstance(mode, bool):
        raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    state.grad_enabled = mode


def _get_tracing_state():
    """torch._C._get_tracing_state: None outside torch.jit.trace (leafgrad's traces run the
    Python code, with no tracing state to report)."""
    return None


def _is_torch_function_enabled() -> bool:
    """False inside DisableTorchFunctionSubclass or DisableTorchFunction (torch's flag)."""
    from .overrides import _state

    return not (_state.subclass_disabled or _state.all_disabled)


def _is_torch_function_all_disabled() -> bool:
    """True inside DisableTorchFunction only."""
    from .overrides import _state

    return bool(_state.all_disabled)


def _make_nn():
    """torch._C._nn: here only _parse_to (nn.Module.to's reading of its arguments)."""
    import types

    from .ops import parse_to

    module = types.ModuleType(__name__ + "._nn")
    module._parse_to = parse_to
    return module


_nn = _make_nn()
