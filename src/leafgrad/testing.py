"""torch.testing: ``assert_close``, ``make_tensor`` and the deprecated ``assert_allclose``.

The comparison follows torch's rules: inputs are paired up (nested sequences and mappings are
walked item by item), each pair is compared as None, bool, number or tensor-like, and the
first failing pair raises with torch's message ("Tensor-likes are not close!", the mismatch
count, the greatest absolute and relative differences with their index and the tolerances).
"""

from __future__ import annotations

import collections.abc
import cmath
import math
import warnings

import numpy as np

from . import _dtype
from .ops._float_kernels import magnitude
from .ops.math_logic import isclose_array
from .tensor import Tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

# torch's default (rtol, atol) per dtype; every other dtype compares exactly
_DTYPE_PRECISIONS = {
    _dtype.float16: (0.001, 1e-5),
    _dtype.bfloat16: (0.016, 1e-5),
    _dtype.float32: (1.3e-6, 1e-5),
    _dtype.float64: (1e-7, 1e-7),
    _dtype.complex32: (0.001, 1e-5),
    _dtype.complex64: (1.3e-6, 1e-5),
    _dtype.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: _dtype.int64, float: _dtype.float64, complex: _dtype.complex128}


class _Failure(Exception):
    """One failed pair: the exception type to raise, its message and where it happened."""

    def __init__(self, kind, msg: str, where=()):
        super().__init__(msg)
        self.kind, self.msg, self.where = kind, msg, where

    def to_error(self, msg=None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.msg
        if self.where:
            text += "\n\nThe failure occurred for item " + "".join(str([i]) for i in self.where)
        return self.kind(msg(text) if callable(msg) else text)


class _Setup(_Failure):
    """A failure while pairing inputs up (tolerances): raised at once, before any comparison."""


class _Unsupported(Exception):
    """This kind of pair cannot hold these inputs: try the next kind."""


def _tolerances(dtypes, rtol, atol, where):
    if (rtol is None) != (atol is None):
        raise _Setup(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                       f"but got no {'rtol' if rtol is None else 'atol'}.", where)
    if rtol is not None:
        return rtol, atol
    pairs = [_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch_msg(identifier, default, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def line(kind, diff, idx, tol):
        text = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += extra.strip() + "\n"
    msg += line("absolute", abs_diff, abs_idx, atol)
    msg += line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(None, "Scalars", f"Expected {expected} but got {actual}.",
                         abs_diff, None, atol, rel_diff, None, rtol)


def _unravel(flat: int, shape) -> tuple:
    index = []
    for size in reversed(shape):
        flat, mod = divmod(flat, size)
        index.append(mod)
    return tuple(reversed(index))


def _tensor_msg(a: np.ndarray, b: np.ndarray, matches: np.ndarray, rtol, atol):
    total = matches.size
    bad = total - int(matches.sum())
    extra = f"Mismatched elements: {bad} / {total} ({bad / total:.1%})"
    a, b, m = a.reshape(-1), b.reshape(-1), matches.reshape(-1)
    if _dtype.kind(a) not in "fc":
        a, b = a.astype(np.int64), b.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = magnitude(a - b)
        abs_diff[m] = 0
        # torch divides integers in the default float dtype
        denominator = magnitude(b)
        if _dtype.kind(a) not in "fc":
            abs_for_rel = abs_diff.astype(_dtype.get_default_dtype().np)
            denominator = denominator.astype(abs_for_rel.dtype)
        else:
            abs_for_rel = abs_diff
        rel_diff = abs_for_rel / denominator
    rel_diff[m] = 0
    abs_idx, rel_idx = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    return _mismatch_msg(None, "Tensor-likes", extra, abs_diff[abs_idx].item(),
                         _unravel(abs_idx, matches.shape), atol, rel_diff[rel_idx].item(),
                         _unravel(rel_idx, matches.shape), rtol)


def _none_pair(actual, expected, where, options):
    if not (actual is None or expected is None):
        raise _Unsupported
    if not (actual is None and expected is None):
        raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", where)


def _bool_pair(actual, expected, where, options):
    if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)
    if actual is not expected:
        raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", where)


def _number_pair(actual, expected, where, options):
    kinds = (int, float, complex, np.number)
    if not all(isinstance(x, kinds) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(x)] for x in (actual, expected)],
                             options["rtol"], options["atol"], where)
    if options["check_dtype"] and type(actual) is not type(expected):
        raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != "
                       f"{type(expected)}.", where)
    if actual == expected:
        return
    if options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    raise _Failure(AssertionError, _scalar_msg(actual, expected, rtol, atol), where)


def _tensor_pair(actual, expected, where, options):
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not options["allow_subclasses"] and type(actual) is not type(expected):
        raise _Unsupported
    from ._creation import as_tensor

    try:
        actual, expected = (x if isinstance(x, Tensor) else as_tensor(x)
                            for x in (actual, expected))
    except Exception:
        raise _Unsupported from None
    rtol, atol = _tolerances([actual.dtype, expected.dtype], options["rtol"], options["atol"],
                             where)

    def differ(name, a, b):
        raise _Failure(AssertionError,
                       f"The values for attribute '{name}' do not match: {a} != {b}.", where)

    if actual.shape != expected.shape:
        differ("shape", actual.shape, expected.shape)
    if options["check_stride"] and actual.stride() != expected.stride():
        differ("stride()", actual.stride(), expected.stride())
    if options["check_dtype"] and actual.dtype != expected.dtype:
        differ("dtype", actual.dtype, expected.dtype)
    a, b = actual.detach()._data, expected.detach()._data  # (numpy() refuses bfloat16)
    if a.dtype != b.dtype:
        common = _dtype.promote_types(actual.dtype, expected.dtype).np
        a, b = a.astype(common), b.astype(common)
    matches = np.asarray(isclose_array(a, b, rtol, atol, options["equal_nan"]))
    if matches.all():
        return
    if a.shape == ():
        msg = _scalar_msg(a.item(), b.item(), rtol, atol)
    else:
        msg = _tensor_msg(a, b, matches, rtol, atol)
    raise _Failure(AssertionError, msg, where)


_PAIRS = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _is_sequence(x) -> bool:
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _compare(actual, expected, where, options, checks):
    """Walk nested sequences/mappings; append one comparison callable per leaf pair."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, "The length of the sequences mismatch: "
                           f"{len(actual)} != {len(expected)}", where)
        for i in range(len(actual)):
            _compare(actual[i], expected[i], (*where, i), options, checks)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected,
                                                                  collections.abc.Mapping):
        a_keys, e_keys = set(actual.keys()), set(expected.keys())
        if a_keys != e_keys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {sorted(e_keys - a_keys)}\n"
                           "Additional keys in the actual mapping: "
                           f"{sorted(a_keys - e_keys)}", where)
        keys = a_keys
        try:
            keys = sorted(keys)
        except Exception:
            pass
        for key in keys:
            _compare(actual[key], expected[key], (*where, key), options, checks)
        return
    for pair in _PAIRS:
        try:
            pair(actual, expected, where, options)
        except _Unsupported:
            continue
        except _Setup:
            raise
        except _Failure as failure:
            checks.append(failure)
        return
    raise _Failure(TypeError, "No comparison pair was able to handle inputs of type "
                   f"{type(actual)} and {type(expected)}.", where)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` are close (torch's rules)."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_dtype=check_dtype, check_stride=check_stride)
    failures: list = []
    try:
        _compare(actual, expected, (), options, failures)
    except _Failure as failure:
        # a structural failure (lengths, keys, types, tolerances) ignores msg, as in torch
        raise failure.to_error() from None
    if failures:
        raise failures[0].to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since torch 1.12: ``assert_close`` with the old default tolerances."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    from ._creation import tensor

    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        old = {_dtype.float16: (1e-3, 1e-3), _dtype.float32: (1e-4, 1e-5),
               _dtype.float64: (1e-5, 1e-8)}
        pairs = [old.get(d, (0.0, 0.0)) for d in (actual.dtype, expected.dtype)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)


_INTEGRAL = (_dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64, _dtype.uint16,
             _dtype.uint32, _dtype.uint64)
_FLOATING = (_dtype.float16, _dtype.float32, _dtype.float64)


def _low_high(dtype, low, high, lowest, highest, default_low, default_high):
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. "
                      "Use `torch.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype not in _FLOATING:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None) -> Tensor:
    """A tensor of ``shape`` drawn uniformly from [low, high): torch's draws for the same seed."""
    from ._creation import empty, randint

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    if requires_grad and dtype not in _FLOATING:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _dtype.bool:
        low, high = _low_high(dtype, low, high, 0, 2, 0, 2)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = np.iinfo(dtype.np)
        low, high = _low_high(dtype, low, high, int(info.min),
                              int(info.max) + (dtype is not _dtype.int64), -9, 10)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING:
        info = np.finfo(dtype.np)
        low, high = _low_high(dtype, low, high, float(info.min), float(info.max), -9, 9)
        result = empty(shape, device=device, dtype=dtype)
        if high - low >= float(info.max):
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        # masked_fill_ rather than result[result == 0] = ...: leafgrad's indexing refuses a
        # 0-d boolean mask that torch accepts
        result.masked_fill_(result == 0, 1 if dtype not in _FLOATING
                            else float(np.finfo(dtype.np).tiny))
    if dtype in _FLOATING:
        result.requires_grad = requires_grad
    return result
