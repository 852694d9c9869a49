"""torch.autocast for leafgrad: CPU regions whose matrix products run in bfloat16 or float16.

``autocast("cpu")`` runs torch's lower-precision ops in bfloat16, torch's CPU default, and
``autocast("cpu", dtype=leafgrad.float16)`` in float16, casting as torch does. bfloat16 tensors
need the optional ml_dtypes package (Note: bfloat16 in _dtype.py): without it a bfloat16 region
warns with torch's "target dtype is not supported" message plus how to get it, and runs in
float32 (the region is disabled). "cuda" regions are disabled with torch's warning (there is
no CUDA).
"""

from __future__ import annotations

import functools
import warnings

from .. import _dtype
from ._state import state

__all__ = ["autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")
_SUPPORTED = {"cpu": (_dtype.bfloat16, _dtype.float16)}


def _check_device(device_type: str) -> str:
    base = device_type.split(":")[0]
    if base not in _DEVICE_TYPES:
        raise RuntimeError("Expected one of " + ", ".join(_DEVICE_TYPES) + " device type at "
                           f"start of device string: {device_type}")
    return base


def is_autocast_available(device_type: str) -> bool:
    return _check_device(device_type) in ("cpu", "cuda")


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Without an argument: the CUDA state (torch's legacy meaning), always False here."""
    if device_type is None:
        return state.enabled["cuda"]
    return state.enabled.get(_check_device(device_type), False)


def set_autocast_enabled(device_type, enabled=None) -> None:
    if enabled is None:  # torch.set_autocast_enabled(bool): the CUDA state
        device_type, enabled = "cuda", device_type
    device_type = _check_device(device_type)
    state.enabled[device_type] = bool(enabled)  # other devices: a flag, as torch keeps it
    state.active = state.enabled["cpu"] and state.dtype["cpu"] is not None


# devices whose autocast dtype is bfloat16 unless set (float16 for the others), as in torch
_BFLOAT16_DEVICES = ("cpu", "xla", "hpu", "maia")


def get_autocast_dtype(device_type: str):
    """The autocast dtype: bfloat16 for CPU, XLA, HPU and MAIA unless set, float16 for the
    other devices."""
    device_type = _check_device(device_type)
    if device_type == "cuda" and state.dtype["cuda"] is None:
        return _dtype.float16
    default = _dtype.bfloat16 if device_type in _BFLOAT16_DEVICES else _dtype.float16
    return state.dtype.get(device_type, default)


def set_autocast_dtype(device_type: str, dtype) -> None:
    state.dtype[_check_device(device_type)] = dtype
    state.active = state.enabled["cpu"] and state.dtype["cpu"] is not None


def is_autocast_cache_enabled() -> bool:
    return state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    state.cache.clear()


def autocast_increment_nesting() -> int:
    state.nesting += 1
    return state.nesting


def autocast_decrement_nesting() -> int:
    state.nesting -= 1
    return state.nesting


class autocast:
    """``with autocast("cpu", dtype=leafgrad.float16):`` or ``@autocast("cpu", ...)``."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _check_device(device_type)
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = (is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        if enabled and self.device != "cpu" and self.device != "cuda":
            pass  # mps, xpu, ...: torch keeps the flag; leafgrad's tensors are on the CPU
        elif enabled and self.device == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          stacklevel=2)
            enabled = False
        elif enabled and (self.fast_dtype not in _SUPPORTED["cpu"] or (
                self.fast_dtype is _dtype.bfloat16 and _dtype.bfloat16_numpy() is None)):
            note = ("" if self.fast_dtype is not _dtype.bfloat16 else
                    " (" + _dtype._BFLOAT16_MISSING + ", or pass dtype=leafgrad.float16)")
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtypes of "
                          + ", ".join(map(str, _SUPPORTED["cpu"])) + " currently." + note,
                          stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = state.dtype.get(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        decorate_autocast.__script_unsupported = (
            "@autocast() decorator is not supported in script mode")
        return decorate_autocast


def _cast(value, device_type: str, dtype):
    from ..tensor import Tensor

    if isinstance(value, Tensor):
        if value.dtype.is_floating_point and value.dtype is not _dtype.float64:
            return value.to(dtype)
        return value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorate an ``autograd.Function.forward``: remember (or override) the autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorate an ``autograd.Function.backward``: run it under forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a region that was off stays off, quietly
            region = autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                              dtype=ctx._dtype)
        with region:
            return bwd(*args, **kwargs)

    return decorate_bwd


# -- torch's deprecated per-device spellings (torch.is_autocast_cpu_enabled(), ...) -------------
def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def _legacy(device_type: str, name: str):
    """The deprecated getters and setters of one device, named ``name`` (cpu, gpu, xla, ipu)."""

    def is_enabled() -> bool:
        _deprecated(f"is_autocast_{name}_enabled()", f"is_autocast_enabled('{device_type}')")
        return is_autocast_enabled(device_type)

    def set_enabled(enabled) -> None:
        if type(enabled) is not bool:  # (checked before the warning, as torch's binding does)
            raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
        _deprecated(f"set_autocast_{name}_enabled(enabled)",
                    f"set_autocast_enabled('{device_type}', enabled)")
        set_autocast_enabled(device_type, enabled)

    def get_dtype():
        _deprecated(f"get_autocast_{name}_dtype()", f"get_autocast_dtype('{device_type}')")
        return get_autocast_dtype(device_type)

    def set_dtype(dtype) -> None:
        _deprecated(f"set_autocast_{name}_dtype(dtype)",
                    f"set_autocast_dtype('{device_type}', dtype)")
        set_autocast_dtype(device_type, dtype)

    functions = {f"get_autocast_{name}_dtype": get_dtype, f"set_autocast_{name}_dtype": set_dtype}
    if name != "gpu":  # torch dropped is_/set_autocast_gpu_enabled
        functions.update({f"is_autocast_{name}_enabled": is_enabled,
                          f"set_autocast_{name}_enabled": set_enabled})
    for qualified, function in functions.items():
        function.__name__ = function.__qualname__ = qualified
    return functions


LEGACY = {}
for _device_type, _name in (("cpu", "cpu"), ("cuda", "gpu"), ("xla", "xla"), ("ipu", "ipu")):
    LEGACY.update(_legacy(_device_type, _name))
del _device_type, _name

