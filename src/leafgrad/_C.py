"""``torch._C``: here only what user code reaches for in it, ``Generator`` (whose repr names
this module, as torch's does) and the multithreaded-backward flag."""

from . import ops as _ops
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


class _FunctionNamespace:
    """torch._C._nn / _linalg / _fft / _special: the C functions behind torch's builtin
    namespaces, reached by name in the code torch.fx generates (``torch._C._nn.linear(x, w)``,
    ``torch._C._linalg.linalg_norm(x)``): leafgrad's functions of the namespace."""

    def __init__(self, name: str, namespace: str, prefix: str = "", renamed=None):
        self._name, self._namespace, self._prefix = name, namespace, prefix
        self._renamed = renamed or {}

    def __getattr__(self, name: str):
        import importlib

        inner = self._renamed.get(name, name)
        if self._prefix and inner.startswith(self._prefix):
            inner = inner[len(self._prefix):]
        try:
            return getattr(importlib.import_module(self._namespace), inner)
        except AttributeError:
            raise AttributeError(f"module 'torch._C.{self._name}' has no attribute "
                                 f"'{name}'") from None

    def __repr__(self) -> str:
        return f"<module 'torch._C.{self._name}'>"


_nn = _FunctionNamespace("_nn", "leafgrad.nn.functional", renamed={"log_sigmoid": "logsigmoid"})
_linalg = _FunctionNamespace("_linalg", "leafgrad.linalg", "linalg_")
_fft = _FunctionNamespace("_fft", "leafgrad.fft", "fft_")
_special = _FunctionNamespace("_special", "leafgrad.special", "special_")
_nn._parse_to = _ops.parse_to  # nn.Module.to's reading of its arguments (Tensor.to's parser)
