"""torch's window functions: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window``.

>>> import leafgrad as torch
>>> torch.hann_window(5)
tensor([0.0000, 0.3455, 0.9045, 0.9045, 0.3455])

Each is computed with torch's sequence of steps (an arange scaled, a cosine, ...) in the
window's dtype, as torch's in-place kernels compute it: float16 steps in float and round to
float16 after each step. A periodic window of length n is the first n entries of the symmetric
window of length n + 1 (torch returns that narrowed view: the result is contiguous).
"""

from __future__ import annotations

import math

import numpy as np

from . import _argparse, _dtype
from ._out import _C10
from .ops import _isa
from .ops._cephes_bessel import i0 as _i0
from .ops._softmax_bits import _fma64
from ._creation import _finish

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]

_KEYWORDS = frozenset(("dtype", "layout", "device", "pin_memory", "requires_grad"))


def _accepts(value, kind: str) -> bool:
    if kind == "bool":
        return isinstance(value, (bool, np.bool_))
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_))


def _parse(name: str, args: tuple, kwargs: dict, extra: tuple = ()) -> tuple:
    """torch's parsing of ``name(int window_length, bool periodic, float <extra>...)`` (one
    overload per count of trailing arguments; ``periodic`` may be a keyword, the floats not):
    the window length, the positional values after it, the keyword options; or its
    TypeError."""
    positional = list(args)
    options = dict(kwargs)
    if not positional and "window_length" in options:
        positional.append(options.pop("window_length"))
    if len(positional) == 1 and "periodic" in options:
        positional.append(options.pop("periodic"))
    kinds = ("bool",) + ("float",) * len(extra)
    rest = positional[1:]
    fits = (positional and len(rest) <= len(kinds) and all(k in _KEYWORDS for k in options)
            and all(_accepts(v, kind) for v, kind in zip(rest, kinds))
            and (options.get("dtype") is None or _argparse._is_dtype(options["dtype"]))
            and isinstance(options.get("requires_grad", False), (bool, np.bool_)))
    if not fits:
        raise _argparse.invalid_combination(name, tuple(args), kwargs)
    if not _argparse._is_int(positional[0]):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{_argparse.typename(positional[0])}")
    return int(positional[0]), rest, options


def _options_text(dtype: _dtype.dtype) -> str:
    return (f"TensorOptions(dtype={_C10.get(dtype.name, dtype.name)}, device=cpu, layout=Strided "
            "(default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))")


def _window(name: str, args: tuple, kwargs: dict, extra: tuple, defaults: tuple, formula):
    length, values, options = _parse(name, args, kwargs, extra)
    periodic = bool(values[0]) if values else True
    parameters = [float(v) for v in values[1:]] + list(defaults[len(values[1:]):])
    dtype = _argparse.dtype_arg(name, options.get("dtype"))
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    requires_grad = _argparse.bool_arg(name, "requires_grad",
                                       options.get("requires_grad", False))
    if not dtype.is_floating_point and not dtype.is_complex:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_options_text(dtype)}")
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={length}")
    if length <= 1:  # (torch's early returns: a complex window of 0 or 1 point too)
        data = np.ones(length, dtype=dtype.np)
    elif dtype.is_complex:  # (torch's arange has no complex kernel)
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype._legacy}'")
    else:
        size = length + 1 if periodic else length
        # torch computes in the dtype; float16 kernels compute each step in float
        compute = np.float64 if dtype is _dtype.float64 else np.float32
        data = formula(size, compute, dtype.np.type, *parameters)[:length].copy()
    return _finish(data.astype(dtype.np, copy=False), requires_grad, options.get("device"))


def _step(values, compute, store):
    """One of torch's in-place steps: computed in ``compute``, stored in ``store``."""
    return np.asarray(values, dtype=compute).astype(store).astype(compute)


def _cos(values, store):
    """torch's cos step: MKL's vector cosine for float32/float64 windows (ops/_mkl.py, where
    installed: torch's bits), the float computation rounded for float16 ones."""
    if store is np.float16:
        return np.cos(values)
    from .ops import _float_kernels

    return _float_kernels.cos(np.ascontiguousarray(values))


def _number(value: float, compute, store):
    """A Python number operand of a step: torch's float16 kernels round it to float16 first."""
    return compute(store(value))


def _hamming(size, compute, store, alpha=0.54, beta=0.46):
    window = _step(np.arange(size), compute, store)
    window = _step(window * _number(math.pi * 2.0 / (size - 1), compute, store), compute, store)
    window = _step(_cos(window, store), compute, store)
    window = _step(window * _number(-beta, compute, store), compute, store)
    return _step(window + _number(alpha, compute, store), compute, store)


def _bartlett(size, compute, store):
    window = _step(np.arange(size), compute, store)
    window = _step(window * _number(2.0 / (size - 1), compute, store), compute, store)
    first_half = ((size - 1) >> 1) + 1
    tail = _step(-window[first_half:], compute, store)
    window[first_half:] = _step(tail + _number(2, compute, store), compute, store)
    return window


def _blackman(size, compute, store):
    window = _step(np.arange(size), compute, store)
    window = _step(window * _number(math.pi / (size - 1), compute, store), compute, store)
    four = _step(_cos(_step(window * _number(4, compute, store), compute, store), store),
                 compute, store)
    four = _step(four * _number(0.08, compute, store), compute, store)
    two = _step(_cos(_step(window * _number(2, compute, store), compute, store), store),
                compute, store)
    two = _step(two * _number(0.5, compute, store), compute, store)
    return _step(_step(four - two, compute, store) + _number(0.42, compute, store), compute, store)


def _kaiser(size, compute, store, beta=12.0):
    # torch's kernel: i0(beta * sqrt(|1 - ((k - alpha) / alpha)^2|)) / i0(beta), alpha the
    # centre (size - 1) / 2, all in the compute type
    positions = _step(np.arange(size), compute, store)
    alpha = compute((size - 1) / 2.0)
    ratio = (positions - alpha) / alpha
    if _isa.CAPABILITY == "default":
        inner = compute(1) - ratio * ratio
    elif compute is np.float32:  # GCC makes pow(r, 2) r * r and contracts 1 - r * r into an
        inner = (1.0 - ratio.astype(np.float64) * ratio).astype(np.float32)  # FMA (exact
    else:  # product in float64, one rounding); float64: the emulated FMA
        inner = _fma64(-ratio, ratio, np.ones_like(ratio))
    argument = compute(beta) * np.sqrt(np.abs(inner))
    numerator = _i0(argument.astype(compute))  # calc_i0 in the compute type
    denominator = _i0(np.array([beta], dtype=compute))
    return _step(numerator / denominator, compute, store)


def hann_window(*args, **kwargs):
    """The Hann window, 0.5 - 0.5 cos(2 pi k / (N - 1)), periodic by default."""
    return _window("hann_window", args, kwargs, (), (),
                   lambda size, compute, store: _hamming(size, compute, store, 0.5, 0.5))


def hamming_window(*args, **kwargs):
    """The Hamming window, alpha - beta cos(2 pi k / (N - 1)) (alpha 0.54, beta 0.46)."""
    return _window("hamming_window", args, kwargs, ("alpha", "beta"), (0.54, 0.46), _hamming)


def blackman_window(*args, **kwargs):
    """The Blackman window, 0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))."""
    return _window("blackman_window", args, kwargs, (), (), _blackman)


def bartlett_window(*args, **kwargs):
    """The Bartlett (triangular) window, 1 - |2k / (N - 1) - 1|."""
    return _window("bartlett_window", args, kwargs, (), (), _bartlett)


def kaiser_window(*args, **kwargs):
    """The Kaiser window, I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta) (beta 12)."""
    return _window("kaiser_window", args, kwargs, ("beta",), (12.0,), _kaiser)
