"""torch.special's Bessel J0/J1/Y0/Y1, modified Bessel K0/K1 (and exp(x)-scaled) and airy_ai.

ATen evaluates these with Cephes' rational approximations; here the same functions are computed
from their integral representations (Gauss-Legendre quadrature, float64, vectorised NumPy):
    K_v(x)  = int_0^inf exp(-x cosh t) cosh(v t) dt
    J_v(x)  = 1/pi int_0^pi cos(v s - x sin s) ds - sin(v pi)/pi int_0^inf exp(-x sinh t - v t) dt
    Y_v(x)  = 1/pi int_0^pi sin(x sin s - v s) ds
              - 1/pi int_0^inf (exp(v t) + exp(-v t) cos(v pi)) exp(-x sinh t) dt
Hankel's asymptotic expansion for x > 25, the leading terms of the series for x < 1e-10, and
Ai(x) = sqrt(x/3)/pi K_{1/3}(z), Ai(-x) = sqrt(x)/3 (J_{1/3}(z) + J_{-1/3}(z)), z = 2/3 x^1.5.
Torch's special values are kept: J and Y give NaN at +-inf, Y and K NaN for x < 0 and -inf at
0 (K: +inf), airy_ai NaN at +-inf. As in torch, the results have no autograd history.
"""

from __future__ import annotations

import math

import functools

import numpy as np

from ._special_polynomials import _unary_input
from ._functions_math import _cast
from ._out import takes_out
from .tensor import _wrap

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]

_EULER = 0.57721566490153286061


@functools.cache
def _nodes():
    """The 240-point Gauss-Legendre rule, computed on first use (an eigenproblem of ~0.4 s of
    CPU that every ``import leafgrad`` paid before)."""
    return np.polynomial.legendre.leggauss(240)


def _gauss(f, upper):
    """int_0^upper f(t) dt for each element of the 1-d array upper (f sees a (n, nodes) t)."""
    nodes, weights = _nodes()
    t = upper[:, None] * (nodes[None, :] + 1.0) / 2.0
    return (f(t) * weights[None, :]).sum(axis=1) * upper / 2.0


def _chunked(kernel):
    """Apply a 1-d kernel in blocks, bounding the (block, nodes) quadrature arrays' memory."""
    def apply(x):
        if x.size <= _BLOCK:
            return kernel(x)
        return np.concatenate([kernel(x[i:i + _BLOCK]) for i in range(0, x.size, _BLOCK)])
    return apply


_BLOCK = 4096


def _scaled_k(nu: float, x: np.ndarray) -> np.ndarray:
    """exp(x) K_nu(x) for finite x >= 1e-10."""
    upper = np.arccosh(1.0 + 40.0 / x)
    col = x[:, None]
    return _gauss(lambda t: np.exp(-col * (np.cosh(t) - 1.0)) * np.cosh(nu * t), upper)


def _jy_integral(nu: float, x: np.ndarray):
    """(J_nu(x), Y_nu(x)) for 1e-10 <= x <= 25."""
    col = x[:, None]
    pi = np.full_like(x, np.pi)
    first_j = _gauss(lambda s: np.cos(nu * s - col * np.sin(s)), pi) / np.pi
    first_y = _gauss(lambda s: np.sin(col * np.sin(s) - nu * s), pi) / np.pi
    upper = np.arcsinh(40.0 / x) + abs(nu)
    j = first_j
    if math.sin(nu * math.pi) != 0.0:
        j = j - math.sin(nu * math.pi) / np.pi * _gauss(
            lambda t: np.exp(-col * np.sinh(t) - nu * t), upper)
    cos_pi = math.cos(nu * math.pi)
    second_y = _gauss(lambda t: (np.exp(nu * t) + np.exp(-nu * t) * cos_pi)
                      * np.exp(-col * np.sinh(t)), upper)
    return j, first_y - second_y / np.pi


def _jy_asymptotic(nu: float, x: np.ndarray):
    """Hankel's expansion (J_nu(x), Y_nu(x)) for x > 25."""
    mu = 4.0 * nu * nu
    p = np.ones_like(x)
    q = np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(1, 40):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if k % 2:
            q = q + (term if k % 4 == 1 else -term)
        else:
            p = p + (term if k % 4 == 0 else -term)
    omega = x - (nu / 2.0 + 0.25) * np.pi
    scale = np.sqrt(2.0 / (np.pi * x))
    return (scale * (p * np.cos(omega) - q * np.sin(omega)),
            scale * (p * np.sin(omega) + q * np.cos(omega)))


def _jy(nu: float, x: np.ndarray):
    """(J_nu, Y_nu) for finite x >= 1e-10 (1-d)."""
    j, y = np.empty_like(x), np.empty_like(x)
    big = x > 25.0
    if big.any():
        j[big], y[big] = _jy_asymptotic(nu, x[big])
    if (~big).any():
        j[~big], y[~big] = _jy_integral(nu, x[~big])
    return j, y


def _elementwise(name: str, kernel, argument: str = "input"):
    def compute(tensor):
        try:
            data = _unary_input(name, tensor)
        except TypeError as error:
            raise TypeError(str(error).replace("'input'", f"'{argument}'")) from None
        wide = data.astype(np.float64).reshape(-1)
        with np.errstate(all="ignore"):
            values = _chunked(kernel)(wide)
        return _wrap(np.array(values.reshape(data.shape), dtype=data.dtype))

    if argument == "x":
        def function(x):
            return compute(x)
    else:
        def function(input):  # noqa: A002 - torch's name
            return compute(input)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.special.{name}({argument})``: no autograd history, as torch's."
    return takes_out(_cast(f"special_{name}"))(function)


def _bessel_j(order: int):
    def kernel(x):
        out = np.full_like(x, np.nan)
        a = np.abs(x)
        tiny = a < 1e-10
        out[tiny] = 1.0 if order == 0 else x[tiny] / 2.0
        mid = ~tiny & np.isfinite(a)
        if mid.any():
            values = _jy(float(order), a[mid])[0]
            out[mid] = values if order == 0 else np.sign(x[mid]) * values
        return out
    return kernel


def _bessel_y(order: int):
    def kernel(x):
        out = np.full_like(x, np.nan)
        out[x == 0] = -np.inf
        tiny = (x > 0) & (x < 1e-10)
        xt = x[tiny]
        out[tiny] = (2 / np.pi * (np.log(xt / 2) + _EULER)) if order == 0 else -2 / (np.pi * xt)
        mid = (x >= 1e-10) & np.isfinite(x)
        if mid.any():
            out[mid] = _jy(float(order), x[mid])[1]
        return out
    return kernel


def _bessel_k(order: int, scaled: bool):
    def kernel(x):
        out = np.full_like(x, np.nan)
        out[x == 0] = np.inf
        out[x == np.inf] = 0.0
        tiny = (x > 0) & (x < 1e-10)
        xt = x[tiny]
        values = (-np.log(xt / 2) - _EULER) if order == 0 else 1.0 / xt
        out[tiny] = values * np.exp(xt) if scaled else values
        mid = (x >= 1e-10) & np.isfinite(x)
        if mid.any():
            values = _scaled_k(float(order), x[mid])
            out[mid] = values if scaled else values * np.exp(-x[mid])
        return out
    return kernel


_AI0 = 1.0 / (3.0 ** (2.0 / 3.0) * math.gamma(2.0 / 3.0))
_AIP0 = 1.0 / (3.0 ** (1.0 / 3.0) * math.gamma(1.0 / 3.0))


def _airy_ai(x):
    out = np.full_like(x, np.nan)
    small = np.abs(x) < 1e-3
    xs = x[small]
    cube = xs ** 3
    out[small] = (_AI0 * (1 + cube / 6 + cube * cube / 180)
                  - _AIP0 * xs * (1 + cube / 12 + cube * cube / 504))
    pos = (x >= 1e-3) & np.isfinite(x)
    if pos.any():
        xp = x[pos]
        zeta = 2.0 / 3.0 * xp ** 1.5
        out[pos] = np.sqrt(xp / 3) / np.pi * _scaled_k(1.0 / 3.0, zeta) * np.exp(-zeta)
    neg = (x <= -1e-3) & np.isfinite(x)
    if neg.any():
        xn = -x[neg]
        zeta = 2.0 / 3.0 * xn ** 1.5
        out[neg] = np.sqrt(xn) / 3 * (_jy(1.0 / 3.0, zeta)[0] + _jy(-1.0 / 3.0, zeta)[0])
    return out


airy_ai = _elementwise("airy_ai", _airy_ai, "x")
bessel_j0 = _elementwise("bessel_j0", _bessel_j(0))
bessel_j1 = _elementwise("bessel_j1", _bessel_j(1))
bessel_y0 = _elementwise("bessel_y0", _bessel_y(0))
bessel_y1 = _elementwise("bessel_y1", _bessel_y(1))
modified_bessel_k0 = _elementwise("modified_bessel_k0", _bessel_k(0, False))
modified_bessel_k1 = _elementwise("modified_bessel_k1", _bessel_k(1, False))
scaled_modified_bessel_k0 = _elementwise("scaled_modified_bessel_k0", _bessel_k(0, True), "x")
scaled_modified_bessel_k1 = _elementwise("scaled_modified_bessel_k1", _bessel_k(1, True), "x")
