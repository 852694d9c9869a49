"""``leafgrad.cuda``: what a CPU-only build of torch answers (no GPU is ever available)."""

from __future__ import annotations

import collections
import warnings

__all__ = ["is_available", "device_count", "current_device", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "empty_cache", "synchronize", "is_initialized",
           "is_bf16_supported", "get_device_name", "memory_allocated", "max_memory_allocated",
           "memory_reserved", "max_memory_reserved", "memory_cached", "max_memory_cached",
           "memory_stats", "memory_stats_as_nested_dict", "memory_summary", "memory_snapshot",
           "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached",
           "reset_accumulated_memory_stats", "host_memory_stats", "mem_get_info",
           "list_gpu_processes", "set_device", "current_stream", "default_stream",
           "get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
           "initial_seed", "init", "ipc_collect", "is_tf32_supported", "get_arch_list",
           "get_gencode_flags", "get_device_capability", "get_device_properties",
           "can_device_access_peer", "device", "device_of", "stream", "StreamContext", "Stream",
           "Event", "utilization", "temperature", "power_draw", "clock_rate", "memory_usage",
           "set_per_process_memory_fraction", "get_per_process_memory_fraction",
           "set_sync_debug_mode", "get_sync_debug_mode", "caching_allocator_alloc"]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def current_device() -> int:
    raise AssertionError(_NOT_COMPILED)


def get_device_name(device=None) -> str:
    raise AssertionError(_NOT_COMPILED)


def synchronize(device=None) -> None:
    raise AssertionError(_NOT_COMPILED)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed: int) -> None:
    """A no-op, as torch's is while CUDA is unavailable."""


def manual_seed_all(seed: int) -> None:
    """A no-op, as torch's is while CUDA is unavailable."""


def seed() -> None:
    """A no-op without CUDA."""


def seed_all() -> None:
    """A no-op without CUDA."""


def empty_cache() -> None:
    """Nothing to free: leafgrad keeps no device memory."""


# -- memory statistics: a CPU-only torch answers from an allocator that never started ---------

def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def memory_cached(device=None) -> int:
    """Deprecated alias of ``memory_reserved`` (torch's FutureWarning, every call)."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    """Deprecated alias of ``max_memory_reserved`` (torch's FutureWarning, every call)."""
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def memory_stats(device=None) -> collections.OrderedDict:
    return collections.OrderedDict()


def memory_stats_as_nested_dict(device=None) -> dict:
    return {}


def host_memory_stats() -> collections.OrderedDict:
    return collections.OrderedDict()


def memory_summary(device=None, abbreviated: bool = False) -> str:
    # torch formats the (empty) statistics and fails on its first key
    raise KeyError("allocated_bytes.all.current")


def _missing_binding(name: str):
    # torch's CPU-only build reaches for a binding its torch._C does not have
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'")


def reset_peak_memory_stats(device=None) -> None:
    _missing_binding("_cuda_resetPeakMemoryStats")


def reset_max_memory_allocated(device=None) -> None:
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None) -> None:
    warnings.warn("torch.cuda.reset_max_memory_cached now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None) -> None:
    _missing_binding("_cuda_resetAccumulatedMemoryStats")


def memory_snapshot(mempool_id=None):
    _missing_binding("_cuda_memorySnapshot")


def set_device(device) -> None:
    _missing_binding("_cuda_setDevice")


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


# what needs the (absent) CUDA runtime: torch's lazy initialisation refuses
mem_get_info = current_stream = default_stream = get_rng_state = initial_seed = init = \
    ipc_collect = get_device_capability = get_device_properties = can_device_access_peer = \
    set_per_process_memory_fraction = get_per_process_memory_fraction = \
    set_sync_debug_mode = get_sync_debug_mode = caching_allocator_alloc = _not_compiled


def get_rng_state_all() -> list:
    return []


def set_rng_state(new_state, device="cuda") -> None:
    """Queued until CUDA starts, as torch's (so, here, never applied)."""


def set_rng_state_all(new_states) -> None:
    """A no-op without devices."""


def is_tf32_supported() -> bool:
    return False


def get_arch_list() -> list:
    return []


def get_gencode_flags() -> str:
    return ""


has_half = True
has_magma = False
default_generators = ()


def list_gpu_processes(device=None) -> str:
    try:
        import pynvml  # noqa: F401
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    raise AssertionError(_NOT_COMPILED)


def _nvml(*args, **kwargs):
    raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed or it can't be "
                              "imported.")


utilization = temperature = power_draw = clock_rate = memory_usage = _nvml


# -- devices and streams as context managers ---------------------------------------------------

def _device_index(device, optional: bool = False) -> int:
    from .._device import device as _device_type

    if isinstance(device, str):
        device = _device_type(device)
    if isinstance(device, _device_type):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return -1 if device.index is None else device.index
    return device


class device:
    """``with torch.cuda.device(i)``: -1 (or a tensor's CPU device through ``device_of``)
    changes nothing; any other index needs CUDA."""

    def __init__(self, device):
        self.idx = _device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:  # (None: torch compares it with 0 and fails)
            return None
        raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, exc_type, exc_value, traceback):
        return False


class device_of(device):
    """The device of a tensor as a context manager: a CPU tensor's is -1 (no change)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class StreamContext:
    """``with torch.cuda.stream(None)``: nothing to select without CUDA."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is None:
            return None
        raise AssertionError(_NOT_COMPILED)

    def __exit__(self, exc_type, exc_value, traceback):
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)


class Stream:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


# -- the legacy CUDA tensor types: named, never constructed ---------------------------------

class _CudaLegacyType(type):
    def __call__(cls, *args, **kwargs):
        raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled "
                        "with CUDA enabled.")

    def __instancecheck__(cls, instance) -> bool:
        return False  # (no tensor is ever on a CUDA device here)


def _cuda_legacy_type(name: str, dtype):
    return _CudaLegacyType(name, (), {"dtype": dtype, "is_cuda": True, "is_sparse": False,
                                      "__module__": "leafgrad.cuda"})


def _legacy_types():
    from .. import _dtype

    names = {"FloatTensor": _dtype.float32, "DoubleTensor": _dtype.float64,
             "HalfTensor": _dtype.float16, "BFloat16Tensor": _dtype.bfloat16,
             "LongTensor": _dtype.int64, "IntTensor": _dtype.int32, "ShortTensor": _dtype.int16,
             "CharTensor": _dtype.int8, "ByteTensor": _dtype.uint8, "BoolTensor": _dtype.bool}
    return {name: _cuda_legacy_type(name, dtype) for name, dtype in names.items()}


globals().update(_legacy_types())

from . import amp, nvtx  # noqa: E402 - torch.cuda.amp is there after `import torch`


def __getattr__(name):
    if name == "OutOfMemoryError":  # torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
        from .._api_extra import OutOfMemoryError

        return OutOfMemoryError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
