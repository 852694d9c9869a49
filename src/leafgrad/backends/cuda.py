"""``torch.backends.cuda``: cuBLAS's and the attention kernels' switches. No CUDA runs here;
the switches are recorded and checked as torch checks them. ``matmul.allow_tf32`` is the
float32 matmul precision (``torch.set_float32_matmul_precision``) seen from the cuBLAS side,
and the ``*_sdp`` switches are the backends ``torch.nn.attention.sdpa_kernel`` chooses."""

from __future__ import annotations

import contextlib
import enum
import warnings

from . import _module

__all__ = ["is_built", "matmul", "SDPBackend", "flash_sdp_enabled", "enable_flash_sdp",
           "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp", "math_sdp_enabled",
           "enable_math_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp", "sdp_kernel",
           "preferred_linalg_library", "preferred_blas_library", "is_flash_attention_available"]


def is_built() -> bool:
    return False


class _Matmul:
    """``torch.backends.cuda.matmul`` (torch's cuBLASModule)."""

    _NAMES = ("allow_tf32", "allow_fp16_reduced_precision_reduction",
              "allow_bf16_reduced_precision_reduction", "fp32_precision")

    def __init__(self):
        self.__dict__["_reduced"] = {"allow_fp16_reduced_precision_reduction": True,
                                     "allow_bf16_reduced_precision_reduction": True}
        self.__dict__["_precision"] = None  # set through fp32_precision itself

    def __getattr__(self, name):
        if name == "allow_tf32":
            from .._info import get_float32_matmul_precision

            return get_float32_matmul_precision() != "highest"
        if name in self._reduced:
            return self._reduced[name]
        if name == "fp32_precision":
            if self._precision is not None:
                return self._precision
            from .._info import _settings

            if not _settings.get("matmul_precision_set"):
                return "none"  # nothing has chosen yet
            return "ieee" if _settings["matmul_precision"] == "highest" else "tf32"
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _module.check_bool("set_allow_tf32_cublas", value)
            from .._info import set_float32_matmul_precision

            set_float32_matmul_precision("high" if value else "highest")
        elif name in self._reduced:
            self._reduced[name] = _reduced_precision(name, value)
        elif name == "fp32_precision":
            _module.check_precision("cuda", "matmul", value)
            self.__dict__["_precision"] = value
        else:
            raise AttributeError(f"Unknown attribute {name}")


def _reduced_precision(name: str, value) -> bool:
    """torch's check of a reduced-precision-reduction setting: a bool, or one or two bools (the
    second, allowing split-K, has no counterpart on a CPU)."""
    if isinstance(value, (tuple, list)):
        if not value:
            raise TypeError(f"{name} expects at least one boolean argument")
        if len(value) > 2:
            raise TypeError(f"{name} expects at most two boolean arguments")
        for item in value:
            if type(item) is not bool:
                raise TypeError(f"{name} expects a bool for allow_reduced_precision, but got "
                                f"{type(item)}")
        if len(value) == 2 and value[0] and not value[1]:
            raise RuntimeError("allow_splitk=False is not supported when reduced precision "
                               "reductions are enabled")
        return value[0]
    if type(value) is not bool:
        raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
    return value


matmul = _Matmul()


# -- scaled dot-product attention backends (shared with torch.nn.attention.sdpa_kernel) ----------
# (nn imports the ops, which import this package: nn.attention is imported when first used)
def __getattr__(name):
    if name == "SDPBackend":
        from ..nn.attention import SDPBackend

        return SDPBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _enabled(name: str) -> bool:
    from ..nn import attention

    return getattr(attention.SDPBackend, name) in attention._enabled


def _enable(setter: str, name: str, enabled) -> None:
    from ..nn import attention

    _module.check_bool(setter, enabled)
    backend = getattr(attention.SDPBackend, name)
    if enabled and backend not in attention._enabled:
        attention._enabled.append(backend)
    elif not enabled and backend in attention._enabled:
        attention._enabled.remove(backend)


def flash_sdp_enabled() -> bool:
    return _enabled("FLASH_ATTENTION")


def enable_flash_sdp(enabled: bool) -> None:
    _enable("set_sdp_use_flash", "FLASH_ATTENTION", enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _enabled("EFFICIENT_ATTENTION")


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _enable("set_sdp_use_mem_efficient", "EFFICIENT_ATTENTION", enabled)


def math_sdp_enabled() -> bool:
    return _enabled("MATH")


def enable_math_sdp(enabled: bool) -> None:
    _enable("set_sdp_use_math", "MATH", enabled)


def cudnn_sdp_enabled() -> bool:
    return _enabled("CUDNN_ATTENTION")


def enable_cudnn_sdp(enabled: bool) -> None:
    _enable("set_sdp_use_cudnn", "CUDNN_ATTENTION", enabled)


def is_flash_attention_available() -> bool:
    return False


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True,
               enable_mem_efficient: bool = True, enable_cudnn: bool = True):
    """Deprecated form of ``torch.nn.attention.sdpa_kernel``: within the block, the backends
    whose flag is True."""
    from ..nn import attention

    SDPBackend = attention.SDPBackend  # noqa: N806
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this "
                  "context manager will be removed. Please see `torch.nn.attention.sdpa_kernel()`"
                  " for the new context manager, with updated signature.", FutureWarning,
                  stacklevel=3)
    chosen = [backend for backend, on in ((SDPBackend.FLASH_ATTENTION, enable_flash),
                                          (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                                          (SDPBackend.MATH, enable_math),
                                          (SDPBackend.CUDNN_ATTENTION, enable_cudnn)) if on]
    previous = list(attention._enabled)
    attention._enabled[:] = chosen
    try:
        yield {}
    finally:
        attention._enabled[:] = previous


# -- library choices (recorded; leafgrad's linear algebra is NumPy's LAPACK either way) ----------
class _LinalgBackend(enum.Enum):
    Default = 0
    Cusolver = 1
    Magma = 2


class _BlasBackend(enum.Enum):
    Default = 0
    Cublas = 1
    Cublaslt = 2
    Ck = 3


_linalg_choice = [_LinalgBackend.Default]
_blas_choice = [_BlasBackend.Cublas]


def preferred_linalg_library(backend=None):
    """The preferred CUDA linear-algebra library. Only the default can be chosen here: torch's
    CPU build has neither cuSOLVER nor MAGMA."""
    if backend is None:
        return _linalg_choice[0]
    if isinstance(backend, str):
        named = {"default": _LinalgBackend.Default, "cusolver": _LinalgBackend.Cusolver,
                 "magma": _LinalgBackend.Magma}.get(backend)
        if named is None:
            raise RuntimeError("Unknown input value. Choose from: default, cusolver, magma.")
        backend = named
    elif not isinstance(backend, _LinalgBackend):
        raise RuntimeError("Unknown input value type.")
    if backend is not _LinalgBackend.Default:
        library = {"Cusolver": "cuSOLVER", "Magma": "MAGMA"}[backend.name]
        raise RuntimeError(f"Cannot set preferred backend to {library} if PyTorch has not been "
                           f"compiled with {library}.")
    _linalg_choice[0] = backend
    return backend


def preferred_blas_library(backend=None):
    """The preferred CUDA BLAS library (recorded; cuBLASLt is refused as in torch's CPU
    build)."""
    if backend is None:
        return _blas_choice[0]
    if isinstance(backend, str):
        named = {"default": _BlasBackend.Cublas, "cublas": _BlasBackend.Cublas,
                 "hipblas": _BlasBackend.Cublas, "cublaslt": _BlasBackend.Cublaslt,
                 "hipblaslt": _BlasBackend.Cublaslt, "ck": _BlasBackend.Ck}.get(backend)
        if named is None:
            raise RuntimeError("Unknown input value. Choose from: default, cublas, hipblas, "
                               "cublaslt, hipblaslt, ck.")
        backend = named
    elif not isinstance(backend, _BlasBackend):
        raise RuntimeError("Unknown input value type.")
    if backend is _BlasBackend.Cublaslt:
        raise RuntimeError("Cannot set preferred backend to cuBLASLt if PyTorch has not been "
                           "compiled with cuBLASLt.")
    _blas_choice[0] = backend
    return backend
