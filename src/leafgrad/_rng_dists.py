"""torch's other CPU distributions on the generator of ``_rng``, draw for draw.

Each fills element by element (torch's ``cpu_serial_kernel``) from 53-bit float64 uniforms
(``at::uniform_real_distribution<double>``, one 64-bit draw each), computes in double and
rounds to the tensor's dtype at the end, as torch 2.13's kernels do:

- ``exponential_(lambd)``: ``-1 / lambd * log1p(-u)``;
- ``geometric_(p)``: ``ceil(log(u) / log1p(-p))``;
- ``cauchy_(median, sigma)``: ``median + sigma * tan(pi * (u - 0.5))``;
- ``log_normal_(mean, std)``: ``exp`` of ``at::normal_distribution<double>`` (the scalar
  Box-Muller of ``_rng._normal_scalar``, whose cached second value it shares with normal_);
- ``poisson(rates)``: Knuth's product of uniforms below 10, Hoermann's transformed rejection
  (PTRS) from 10 on, with torch's constants;
- ``binomial(count, prob)``: inversion by geometric waiting times while count * min(p, 1 - p)
  < 10, else BTRS (Hoermann's transformed rejection with Stirling tails), with torch's
  constants; float32 inputs keep torch's float arithmetic where its template computes in the
  input type.

Checked against torch 2.13 value for value in tests/test_random_dists.py.
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtype
from ._rng import _fma64, _FUSED_UNIFORM, _format, _generator, _is_bfloat16, _libm_map, \
    _normal_scalar, _not_implemented, _uniform53

_CPP_LONG = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
             "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char",
             "uint16": "short unsigned int", "uint32": "unsigned int",
             "uint64": "long unsigned int", "bool": "bool"}


# The C library's functions (NumPy's own log1p/log/exp differ from it in the last bit at times),
# extended to the arguments where ``math`` raises instead of returning inf.
def _log1p(x: float) -> float:
    return math.log1p(x) if x > -1.0 else -math.inf


def _log(x: float) -> float:
    return math.log(x) if x > 0.0 else -math.inf


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _count(shape) -> int:
    return math.prod(shape)


def _finish(values: np.ndarray, shape, dtype: np.dtype) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype == np.float16 or _is_bfloat16(dtype):  # c10::Half and c10::BFloat16
            # convert from double through float
            values = values.astype(np.float32)
        return values.astype(dtype).reshape(shape)


def exponential(shape, dtype, lambd, generator=None) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind != "f" and not _is_bfloat16(dtype):
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_dtype.from_numpy_dtype(dtype)._legacy}")
    lambd = float(lambd)
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_format(lambd)}")
    gen = _generator(generator)
    with gen._lock:
        u = _uniform53(gen, _count(shape))
    return _finish(-1.0 / lambd * _libm_map(_log1p, -u), shape, dtype)


def geometric(shape, dtype, p, generator=None) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b" or dtype.kind == "u" and dtype.itemsize > 1:  # bool, uint16/32/64
        raise _not_implemented("geometric_cpu", dtype)
    p = float(p)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_format(p)}")
    gen = _generator(generator)
    with gen._lock:
        u = _uniform53(gen, _count(shape))
    return _finish(np.ceil(_libm_map(_log, u) / math.log1p(-p)), shape, dtype)


def cauchy(shape, dtype, median, sigma, generator=None) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind != "f" and not _is_bfloat16(dtype):
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype "
                           f"must be a floating point but you specified "
                           f"{_CPP_LONG.get(dtype.name, dtype.name)}")
    median, sigma = float(median), float(sigma)
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_format(sigma)}")
    gen = _generator(generator)
    with gen._lock:
        u = _uniform53(gen, _count(shape))
    tangent = _libm_map(math.tan, math.pi * (u - 0.5))
    # the compiled ``median + sigma * tan(...)`` is fused where uniform_'s is (see _rng)
    values = _fma64(tangent, sigma, median) if _FUSED_UNIFORM else median + sigma * tangent
    return _finish(values, shape, dtype)


def log_normal(shape, dtype, mean, std, generator=None) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind != "f" and not _is_bfloat16(dtype):
        raise _not_implemented("log_normal_cpu", dtype)
    mean, std = float(mean), float(std)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_format(std)}")
    gen = _generator(generator)
    with gen._lock:
        normal = _normal_scalar(gen, _count(shape), mean, std)
    return _finish(_libm_map(_exp, normal), shape, dtype)


# -- poisson --------------------------------------------------------------------------------------
def _poisson_one(gen, rate: float, uniform) -> int:
    if not rate >= 0:
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if rate >= 10:
        slam = math.sqrt(rate)
        loglam = math.log(rate)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + rate + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= \
                    (-rate + k * loglam - math.lgamma(k + 1.0)):
                return k
    if rate == 0:
        return 0
    enlam = math.exp(-rate)
    count, product = 0, 1.0
    while True:
        product *= uniform()
        if product > enlam:
            count += 1
        else:
            return count


def _uniform_source(gen):
    """One 53-bit uniform per call, drawn in blocks (the stream is the same either way)."""
    buffer: list = []

    def draw() -> float:
        if not buffer:
            buffer.extend(reversed(_uniform53(gen, 1).tolist()))
        return buffer.pop()

    return draw


def poisson(rates: np.ndarray, generator=None) -> np.ndarray:
    if rates.dtype.kind == "V" and rates.dtype.name == "bfloat16":  # counts: exact either way
        return poisson(rates.astype(np.float32), generator).astype(rates.dtype)
    if rates.dtype.kind != "f":
        raise _not_implemented("poisson_cpu", rates.dtype)
    gen = _generator(generator)
    out = np.zeros(rates.shape, rates.dtype)
    flat = out.reshape(-1)
    with gen._lock:
        uniform = _uniform_source(gen)
        for index, rate in enumerate(rates.reshape(-1).tolist()):
            flat[index] = _poisson_one(gen, float(rate), uniform)
    return out


# -- binomial -------------------------------------------------------------------------------------
_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _inversion(count, prob, uniform, t):
    """Number of geometric(prob) waiting times that fit in ``count`` trials."""
    geom_sum = 0.0
    num_geom = t(0)
    logprob = math.log1p(-float(prob))
    while True:
        geom = math.ceil(math.log(uniform()) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom = t(num_geom + t(1))


def _btrs(count, prob, uniform, t):
    """Hoermann's BTRS. ``t`` is the input's scalar type (np.float32 or float): torch computes
    expressions made only of count/prob/k in it and the rest in double."""
    one = t(1)
    stddev = math.sqrt(float(t(count * prob) * t(one - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5 if t is float else float(t(count * prob)) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / t(one - prob)) if t is not float else prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(math.floor(float(t(t(count + one) * prob))))
    count_f = float(count)
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        k = float(t(math.floor((2 * a / us + b) * u + c)))
        if k < 0 or k > count_f:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        upper = ((m + 0.5) * math.log((m + 1) / (r * (count_f - m + 1)))
                 + (count_f + 1) * math.log((count_f - m + 1) / (count_f - k + 1))
                 + (k + 0.5) * math.log(r * (count_f - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(count_f - m)
                 - _stirling_tail(k) - _stirling_tail(count_f - k))
        if v <= upper:
            return k


def _binomial_one(count, prob, uniform, t):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return float(count)
    if prob <= 0.5:
        if float(t(count * prob)) >= 10.0:
            return _btrs(count, prob, uniform, t)
        return float(_inversion(count, prob, uniform, t))
    if prob > 0.5:
        qprob = t(t(1) - prob)
        if float(t(count * qprob)) >= 10.0:
            return float(t(count - t(_btrs(count, qprob, uniform, t))))
        return float(t(count - t(_inversion(count, qprob, uniform, t))))
    return math.nan


def binomial(count: np.ndarray, prob: np.ndarray, generator=None) -> np.ndarray:
    """Draws of Binomial(count, prob), broadcast together, in count's dtype."""
    t = np.float32 if count.dtype == np.float32 else float
    if count.dtype == np.float16:
        t = np.float16
    count, prob = np.broadcast_arrays(count, prob)
    gen = _generator(generator)
    out = np.zeros(count.shape, count.dtype)
    flat = out.reshape(-1)
    scalar = count.dtype.type
    with gen._lock:
        uniform = _uniform_source(gen)
        for index, (n, p) in enumerate(zip(count.reshape(-1), prob.reshape(-1))):
            n, p = (scalar(n), scalar(p)) if t is not float else (float(n), float(p))
            with np.errstate(all="ignore"):
                flat[index] = _binomial_one(n, p, uniform, t)
    return out
