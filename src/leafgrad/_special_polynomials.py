"""torch.special's orthogonal polynomials (Chebyshev T/U/V/W and their shifted forms,
Hermite H/He, Laguerre L, Legendre P), spherical_bessel_j0 and modified_bessel_i0/i1.

Each follows ATen's scalar kernel (Math.h): the special cases first (n < 0 gives 0, the
values at the interval's ends, trigonometric closed forms for large n inside the interval),
then the three-term recurrence, in the result's dtype (x and n promoted as torch's
TensorIterator does; integer inputs give the default float dtype; a floating n is truncated
to an integer). As in torch, the results have no autograd history (torch defines no
derivative for these functions: the output does not require grad).
"""

from __future__ import annotations

import numpy as np

from . import _argparse, _dtype
from .ops._float_kernels import fma
from .tensor import Tensor, _wrap

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p", "spherical_bessel_j0",
           "modified_bessel_i0", "modified_bessel_i1"]


def _operands(name: str, x, n):
    """(x array, integer n array, result numpy dtype), broadcast, as torch promotes them."""
    if not isinstance(x, Tensor) and not isinstance(n, Tensor) or not (
            isinstance(x, Tensor) or _argparse._is_number(x)) or not (
            isinstance(n, Tensor) or _argparse._is_number(n)):  # (None, a list, an array:
        # torch.special's wrapper restates this for the call as given)
        raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                        f"({type(x).__name__}, {type(n).__name__}), but expected one of:")
    from . import result_type

    dtype = result_type(x, n)
    if dtype.is_floating_point and dtype.itemsize == 2:  # (as _unary_input: float and double)
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dtype._legacy}\'')
    if not dtype.is_floating_point:
        if dtype.is_complex:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dtype._legacy}\'')
        dtype = _dtype.get_default_dtype()
    target = dtype.np
    xs = x._data if isinstance(x, Tensor) else np.asarray(x)
    ns = n._data if isinstance(n, Tensor) else np.asarray(n)
    if ns.dtype.kind == "c" or xs.dtype.kind == "c":
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'ComplexFloat\'')
    xs, ns = np.broadcast_arrays(np.asarray(xs, dtype=target), ns)
    with np.errstate(invalid="ignore"):
        counts = np.where(np.isfinite(ns), ns, 0).astype(np.int64) if ns.dtype.kind == "f" \
            else ns.astype(np.int64)
    return np.array(xs), counts, target


def _recurrence(x, n, first, second, step, start: int = 2):
    """p_0 = first, p_1 = second, p_k = step(k, p_{k-1}, p_{k-2}) up to each element's n."""
    out = np.where(n == 0, first, second).astype(x.dtype)
    top = int(n.max()) if n.size else 0
    p, q = np.array(first, dtype=x.dtype) * np.ones_like(x), np.array(second, dtype=x.dtype)
    q = q * np.ones_like(x)
    for k in range(start, top + 1):
        r = step(k, q, p)
        done = n == k
        if done.any():
            out[done] = r[done]
        p, q = q, r
    return out


def _finish(values: np.ndarray, target) -> Tensor:
    # np.array (not np.ascontiguousarray, which makes a 0-d array 1-d): torch keeps 0-d shapes
    return _wrap(np.array(values, dtype=target, order="C"))


def _polynomial(name: str, kernel):
    def function(input, n, *, out=None):  # noqa: A002 - torch's names
        x, counts, target = _operands(name, input, n)
        if out is not None:  # (a TensorIterator kernel: Note: expanded outs in _out.py)
            from ._out import check_internal_overlap

            check_internal_overlap(out)
        with np.errstate(all="ignore"):
            values = kernel(x, counts)
        result = _finish(values, target)
        if out is not None:
            out.resize_(result.shape) if out.shape != result.shape else None
            out._data[...] = result._data
            out._bump_version()
            return out
        return result

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.special.{name}(input, n)`` (ATen's scalar kernel)."
    return function


# Note: contracted recurrences. ATen's scalar kernels for these polynomials are compiled with
# floating-point contraction: each step ``a * q - b * p`` is fma(a, q, -(b * p)), one rounding
# for the first product and the difference (measured against torch on random x and n).


def _one(x):
    return np.ones_like(x)


def _libm_map(name: str, values: np.ndarray) -> np.ndarray:
    """The C library's one-argument ``name`` (float64) or ``name + 'f'`` (float32), element by
    element, as ATen's scalar kernels call it; NumPy's loop beyond _libm.EXACT_MAX elements."""
    import ctypes
    import math

    from .ops import _libm

    values = np.asarray(values)
    ufunc = {"acos": np.arccos, "cos": np.cos, "sin": np.sin}[name]
    if values.size > _libm.EXACT_MAX or values.dtype not in (np.float32, np.float64):
        return ufunc(values)
    if values.dtype == np.float64:
        function = getattr(math, name)
    else:
        function = _libm._float32_function(name + "f", 1)
        if function is None:
            return ufunc(values)
    out = []
    for value in values.ravel().tolist():
        try:
            out.append(function(value))
        except ValueError:  # math refuses where C returns NaN
            out.append(math.nan)
    return np.array(out, dtype=values.dtype).reshape(values.shape)


def _closed_form(kind: str, y: np.ndarray, n: np.ndarray) -> np.ndarray:
    """ATen's trigonometric forms for |y| < 1 and large n, in the dtype of y (n converted to
    it as C converts int64 operands)."""
    dtype = y.dtype.type
    angle = _libm_map("acos", y)
    if kind == "t":
        return _libm_map("cos", n.astype(y.dtype) * angle)
    if kind == "u":
        sine = _libm_map("sin", angle)
        n1 = (n + 1).astype(y.dtype)
        safe = np.where(sine != 0, sine, dtype(1))
        return np.where(sine != 0, _libm_map("sin", n1 * angle) / safe,
                        n1 * _libm_map("cos", n1 * angle) / y)
    half = angle / dtype(2)
    turns = n.astype(y.dtype) + dtype(0.5)
    odd = np.where(n % 2 == 0, n + n + 1, -(n + n + 1)).astype(y.dtype)
    if kind == "v":
        singular = _libm_map("sin", half) == 1
        return np.where(singular, odd,
                        _libm_map("cos", turns * angle) / _libm_map("cos", half))
    singular = _libm_map("cos", half) == 1
    return np.where(singular, np.nan, _libm_map("sin", turns * angle) / _libm_map("sin", half))


def _with_closed_form(kind: str, values, y, n, threshold: int):
    """values with ATen's closed form where n > threshold and |y| < 1."""
    closed = (n > threshold) & (np.abs(y) < 1)
    if closed.any():
        values = np.array(values, copy=True)
        values[closed] = _closed_form(kind, y[closed], n[closed])
    return values


def _chebyshev_t(x, n, threshold=6):
    one = x.dtype.type(1)
    values = _recurrence(x, n, one, x, lambda k, q, p: fma(x + x, q, -p))
    values = _with_closed_form("t", values, x, n, threshold)
    ends = np.abs(x) == 1
    values = np.where(ends, np.where((x > 0) | (n % 2 == 0), one, -one), values)
    return np.where(n < 0, 0, values)


def _chebyshev_u(x, n, threshold=8):
    one = x.dtype.type(1)
    values = _recurrence(x, n, one, x + x, lambda k, q, p: fma(x + x, q, -p))
    values = _with_closed_form("u", values, x, n, threshold)
    ends = np.abs(x) == 1
    values = np.where(ends, np.where((x > 0) | (n % 2 == 0), n + 1, -(n + 1)), values)
    return np.where(n < 0, 0, values)


def _chebyshev_v(x, n, threshold=8):
    one = x.dtype.type(1)
    values = _recurrence(x, n, one, x + x - one, lambda k, q, p: fma(x + x, q, -p))
    values = _with_closed_form("v", values, x, n, threshold)
    ends = np.abs(x) == 1
    values = np.where(ends, np.where(x > 0, one, np.where(n % 2 == 0, n + n + 1, -(n + n + 1))),
                      values)
    return np.where(n < 0, 0, values)


def _chebyshev_w(x, n, threshold=8, shifted=False):
    one = x.dtype.type(1)
    values = _recurrence(x, n, one, x + x + one, lambda k, q, p: fma(x + x, q, -p))
    closed = (n > threshold) & (np.abs(x) < 1)
    values = _with_closed_form("w", values, x, n, threshold)
    # cos(acos(x) / 2) == 1: 2n + 1 for x > 0 (the shifted kernel skips that case), else +-1
    parity = np.where(n % 2 == 0, one, -one)
    fallback = parity if shifted else np.where(x > 0, n + n + 1, parity)
    values = np.where(closed & np.isnan(values) & ~np.isnan(x), fallback, values)
    ends = np.abs(x) == 1
    values = np.where(ends, np.where(x > 0, n + n + 1, np.where(n % 2 == 0, one, -one)), values)
    return np.where(n < 0, 0, values)


def _shifted(kernel, threshold: int, **options):
    """The shifted kernel: the kernel at 2x - 1 with ATen's own closed-form threshold."""
    def shifted(x, n):
        return kernel(x + x - x.dtype.type(1), n, threshold, **options)

    return shifted


def _hermite_h(x, n):
    one = x.dtype.type(1)
    values = _recurrence(x, n, one, x + x, lambda k, q, p: fma(x + x, q, -((k + k - 2) * p)))
    return np.where(n < 0, 0, values)


def _hermite_he(x, n):
    one = x.dtype.type(1)
    values = _recurrence(x, n, one, x, lambda k, q, p: fma(x, q, -((k - 1) * p)))
    return np.where(n < 0, 0, values)


def _laguerre_l(x, n):
    one = x.dtype.type(1)
    values = _recurrence(x, n, one, one - x,
                         lambda k, q, p: fma((k - 1) + (k - 1) + (one - x), q, -((k - 1) * p)) / k)
    values = np.where(np.abs(x) == 0, one, values)
    return np.where(n < 0, 0, values)


def _legendre_p(x, n):
    one = x.dtype.type(1)
    values = _recurrence(x, n, one, x,
                         lambda k, q, p: fma(((k - 1) + (k - 1) + 1) * x, q, -((k - 1) * p)) / k)
    ends = np.abs(x) == 1
    values = np.where(ends, np.where((x > 0) | (n == 0), one, np.where(n % 2 == 0, one, -one)),
                      values)
    return np.where(n < 0, 0, values)


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _chebyshev_t)
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _chebyshev_u)
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _chebyshev_v)
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _chebyshev_w)
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t",
                                             _shifted(_chebyshev_t, 6))
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u",
                                             _shifted(_chebyshev_u, 6))
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v",
                                             _shifted(_chebyshev_v, 6))
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w",
                                             _shifted(_chebyshev_w, 4, shifted=True))
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _hermite_h)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _hermite_he)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _laguerre_l)
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _legendre_p)


def _unary_input(name: str, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    data = input._data
    if data.dtype.kind == "c" or input.dtype.itemsize == 2 and input.dtype.is_floating_point:
        # (ATen dispatches these kernels for float and double only: no Half, no BFloat16)
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{input.dtype._legacy}\'')
    if data.dtype.kind != "f":
        data = data.astype(_dtype.get_default_dtype().np)
    return data


def spherical_bessel_j0(input):  # noqa: A002 - torch's name
    """sin(x) / x (1 - x^2/6 + x^4/120 - ... near 0, as ATen's kernel), no autograd history."""
    x = _unary_input("spherical_bessel_j0", input)
    wide = x.astype(np.float64)
    with np.errstate(all="ignore"):
        small = np.abs(wide) < 0.5
        x2 = wide * wide
        series = 1.0 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 + x2 * (
            1.0 / 362880 + x2 * (-1.0 / 39916800 + x2 / 6227020800.0)))))
        values = np.where(small, series, np.sin(wide) / wide)
        values = np.where(np.isinf(wide), 0.0, values)
    return _finish(values, x.dtype)


def _bessel_i(name: str, op_name: str):
    def function(input):  # noqa: A002 - torch's name
        x = _unary_input(name, input)
        from .ops import special_fns

        result = getattr(special_fns, op_name).apply(_wrap(x))
        return _finish(result._data, x.dtype)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.special.{name}(input)``: no autograd history, as torch's."
    return function


modified_bessel_i0 = _bessel_i("modified_bessel_i0", "I0")
modified_bessel_i1 = _bessel_i("modified_bessel_i1", "SpecialI1")
