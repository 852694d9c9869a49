"""torch's process-wide constants, numeric-type information and global settings.

``torch.pi``/``e``/``inf``/``nan``/``newaxis``, ``finfo``/``iinfo``, the thread-count and
determinism switches, matmul precision, warn-always, flush-denormal, ``typename``,
``is_complex``/``is_signed`` and the ``has_*`` build flags.

Note: settings leafgrad cannot act on
leafgrad runs single-threaded apart from the BLAS library NumPy calls, computes float32 matmul
in float32 and has no non-deterministic kernels. The switches below keep torch's state and
validation (so a script that sets and reads them behaves as with torch) and act where there is
something to act on: ``set_num_threads`` limits the BLAS thread pool when the optional
``threadpoolctl`` package is importable; ``set_flush_denormal`` only records the flag (NumPy
gives no control over the FPU's denormal mode) and returns True as torch does on x86.
"""

from __future__ import annotations

import builtins
import math
import os
import threading

import numpy as np

from . import _dtype

__all__ = [
    "pi", "e", "inf", "nan", "newaxis", "finfo", "iinfo",
    "get_num_threads", "set_num_threads", "get_num_interop_threads", "set_num_interop_threads",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
    "get_deterministic_debug_mode", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
    "set_flush_denormal", "typename", "is_complex", "is_signed", "has_lapack", "has_mkl",
    "has_openmp", "has_spectral",
]

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None

# leafgrad links no MKL and no OpenMP (as leafgrad.backends says); NumPy brings LAPACK.
# torch.fft is not (yet) in leafgrad, so has_spectral is False.
has_lapack = True
has_mkl = False
has_openmp = False
has_spectral = False


_MISSING = object()

# torch's dtype arguments accept Python's number types and read them as torch does
# everywhere: float is float64 (not the default dtype), int int64, complex complex128.
_PYTHON_TYPES = {builtins.float: "float64", builtins.int: "int64", builtins.bool: "bool",
                 builtins.complex: "complex128"}


def _as_dtype(function: str, value) -> _dtype.dtype:
    if isinstance(value, _dtype.dtype):
        return value
    if builtins.type(value) is builtins.type and value in _PYTHON_TYPES:
        return getattr(_dtype, _PYTHON_TYPES[value])
    raise TypeError(f"{function}(): argument 'type' (position 1) must be torch.dtype, not "
                    f"{builtins.type(value).__name__}")


def _g(value) -> str:
    """printf's %g: six significant digits, as torch's finfo/iinfo reprs print them."""
    return "%g" % value


class finfo:
    """Machine limits of a floating dtype: ``finfo(torch.float32).eps``.

    >>> finfo(float32).bits
    32
    """

    __module__ = "leafgrad"  # as torch shows it: <class 'torch.finfo'>

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=_MISSING):  # noqa: A002 - torch's parameter name
        if type is _MISSING:  # finfo() is the default dtype's; finfo(None) is refused
            type = _dtype.get_default_dtype()  # noqa: A001
        type = _as_dtype("finfo", type)  # noqa: A001
        if type.is_complex:  # a complex dtype's limits are its parts': complex64 -> float32
            type = type.to_real()  # noqa: A001
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        if type.name == "bfloat16":  # NumPy knows no bfloat16 (8 exponent, 7 fraction bits)
            self._bfloat16()
            return
        info = np.finfo(type.np)
        self.bits = builtins.int(info.bits)
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = builtins.float(info.smallest_normal)
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -builtins.int(info.precision)  # exactly 1e-N, as torch
        self.dtype = type.name

    def _bfloat16(self) -> None:
        self.bits = 16
        self.eps = 2.0 ** -7
        self.max = (2.0 - 2.0 ** -7) * 2.0 ** 127
        self.min = -self.max
        self.tiny = self.smallest_normal = 2.0 ** -126
        self.resolution = 0.01  # 10 ** -floor(7 * log10(2)), torch's digits10 = 2
        self.dtype = "bfloat16"

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self) -> builtins.int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, "
                f"max={_g(self.max)}, eps={_g(self.eps)}, "
                f"smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: ``iinfo(torch.int8).max == 127``.

    >>> iinfo(uint8).max
    255
    """

    __module__ = "leafgrad"  # as torch shows it: <class 'torch.iinfo'>

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type=_MISSING):  # noqa: A002 - torch's parameter name
        if type is _MISSING:
            raise TypeError('iinfo() missing 1 required positional arguments: "type"')
        type = _as_dtype("iinfo", type)  # noqa: A001
        if type is _dtype.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits = builtins.int(info.bits)
        self.max = builtins.int(info.max)
        self.min = builtins.int(info.min)
        self.dtype = type.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self) -> builtins.int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"


# -- threads ------------------------------------------------------------------------------------
def _default_threads() -> builtins.int:
    # torch's intra-op pool: OMP_NUM_THREADS when set, else the cores this process may use.
    value = os.environ.get("OMP_NUM_THREADS", "")
    if value.isdigit() and builtins.int(value) > 0:
        return builtins.int(value)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


_settings = {
    "threads": None, "interop_threads": None, "deterministic": False, "warn_only": False,
    "matmul_precision": "highest", "warn_always": False, "flush_denormal": False,
}
_lock = threading.Lock()
_blas_limiter = []  # the threadpoolctl limiter in force, kept alive


def _positive_int(function: str, value) -> builtins.int:
    if builtins.type(value) is not builtins.int and not isinstance(value, np.integer):
        raise RuntimeError(f"{function} expects an int, but got {builtins.type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{function} expects a positive integer")
    return builtins.int(value)


def get_num_threads() -> builtins.int:
    """The number of threads torch would use for intra-op work (see set_num_threads)."""
    threads = _settings["threads"]
    return _default_threads() if threads is None else threads


def set_num_threads(int) -> None:  # noqa: A002 - torch's parameter name
    """Record the intra-op thread count: MKL's pool follows it (Note: MKL's threads,
    ops/_mkl.py), and NumPy's BLAS pool is limited to it when threadpoolctl is installed
    (leafgrad's own code is single-threaded; BLAS is where threads matter)."""
    count = _positive_int("set_num_threads", int)
    with _lock:
        _settings["threads"] = count
        from .ops import _mkl  # MKL's own pool (Note: MKL's threads, ops/_mkl.py)

        _mkl.set_threads(count)
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            return
        _blas_limiter[:] = [threadpool_limits(limits=count, user_api="blas")]


def get_num_interop_threads() -> builtins.int:
    """The inter-op thread count torch reports (leafgrad runs no inter-op pool)."""
    threads = _settings["interop_threads"]
    return _default_threads() if threads is None else threads


def set_num_interop_threads(int) -> None:  # noqa: A002 - torch's parameter name
    """Record the inter-op thread count (leafgrad has no inter-op parallelism to size)."""
    _settings["interop_threads"] = _positive_int("set_num_interop_threads", int)


# -- determinism --------------------------------------------------------------------------------
def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    """Record torch's determinism switch; every leafgrad kernel is already deterministic."""
    if builtins.type(mode) is not builtins.bool:
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {builtins.type(mode).__name__}")
    if builtins.type(warn_only) is not builtins.bool:
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {builtins.type(warn_only).__name__}")
    _settings["deterministic"] = mode
    _settings["warn_only"] = mode and warn_only


def are_deterministic_algorithms_enabled() -> builtins.bool:
    return _settings["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> builtins.bool:
    return _settings["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """0/"default": off; 1/"warn": deterministic, warn only; 2/"error": deterministic."""
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = modes[debug_mode]
    elif builtins.type(debug_mode) is builtins.int:
        if debug_mode not in (0, 1, 2):
            raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got "
                               f"{debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {builtins.type(debug_mode)}")
    _settings["deterministic"] = debug_mode > 0
    _settings["warn_only"] = debug_mode == 1


def get_deterministic_debug_mode() -> builtins.int:
    if not _settings["deterministic"]:
        return 0
    return 1 if _settings["warn_only"] else 2


# -- precision and warnings ---------------------------------------------------------------------
def set_float32_matmul_precision(precision) -> None:
    """Record the precision ("highest", "high", "medium"); leafgrad always computes in float32,
    which is torch's "highest"."""
    if not isinstance(precision, str):
        raise RuntimeError("set_float32_matmul_precision expects a str, but got "
                           f"{builtins.type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        import warnings

        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _settings["matmul_precision"] = precision
    _settings["matmul_precision_set"] = True  # backends.cuda.matmul.fp32_precision reads it


def get_float32_matmul_precision() -> str:
    return _settings["matmul_precision"]


def set_warn_always(b) -> None:
    """Record torch's warn-always flag (leafgrad's warnings follow Python's filters)."""
    if builtins.type(b) is not builtins.bool:
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {builtins.type(b).__name__}")
    _settings["warn_always"] = b


def is_warn_always_enabled() -> builtins.bool:
    return _settings["warn_always"]


def set_flush_denormal(mode) -> builtins.bool:
    """Record the flag and return True, as torch does on a CPU that supports it (see the note
    at the top: NumPy's arithmetic is not changed)."""
    if builtins.type(mode) is not builtins.bool:
        raise RuntimeError(f"flush_denormal expects a bool, but got {builtins.type(mode).__name__}")
    _settings["flush_denormal"] = mode
    return True


# -- type questions -----------------------------------------------------------------------------
def typename(obj) -> str:
    """The name torch gives an object: ``torch.FloatTensor`` for a tensor, else its qualified
    class or function name."""
    from .tensor import Tensor

    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = builtins.type(obj).__module__ or ""
        qualname = builtins.type(obj).__qualname__
    if isinstance(obj, _dtype.dtype):
        return "torch.dtype"
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def _tensor_arg(function: str, input):
    from .tensor import Tensor

    if not isinstance(input, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 1) must be Tensor, not "
                        f"{builtins.type(input).__name__}")
    return input


def is_complex(input) -> builtins.bool:
    """True when the tensor's dtype is complex."""
    return _tensor_arg("is_complex", input).dtype.is_complex


def is_signed(input) -> builtins.bool:
    """True when the tensor's dtype holds negative values (not bool, not uint8)."""
    return _tensor_arg("is_signed", input).dtype.is_signed
