"""``leafgrad.cuda``: what a CPU-only build of torch answers (no GPU is ever available)."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "current_device", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "empty_cache", "synchronize", "is_initialized",
           "is_bf16_supported", "get_device_name"]

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


from . import amp  # noqa: E402 - torch.cuda.amp is there after `import torch`


def __getattr__(name):
    if name == "OutOfMemoryError":  # torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
        from .._api_extra import OutOfMemoryError

        return OutOfMemoryError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
