"""float32 results with torch's last bits: exp, log, tanh, sin, cos, sigmoid, pow (issue 11, 13).

What torch 2.13's CPU kernels run for a float32 tensor (ATen's UnaryOpsKernel.cpp, vml.h,
vec512_float.h, Loops.h), and what this module does to give the same bits:

- **exp, log, tanh, sin, cos** (and sqrt) call Intel MKL's vector math library
  (``vmsExp``/``vmsLn``/``vmsTanh``/``vmsSin``/``vmsCos`` in high-accuracy mode) on every
  contiguous run of elements; a strided operand is copied into a buffer first, so every
  element goes through the same MKL code whatever the shape. With the optional ``mkl``
  package leafgrad calls the same functions (ops/_mkl.py) and every bit is torch's. Without
  it: MKL's high-accuracy float32 results are the correctly rounded ones except near a
  rounding midpoint, so computing the function in float64 and rounding once to float32
  reproduces torch's result on 99.0% (exp), 99.99% (log) and 99.6% (tanh) of a grid of
  100,000 inputs (``docs/float32-bits.md``), where NumPy's float32 kernels agree on 61%, 95%
  and 62%; for sin and cos 95% (MKL's errors there look random from one input to the next).
- **sigmoid** is torch's own kernel (``cpu_kernel_vec``): in 16-lane AVX-512 vectors it
  computes ``1 / ((exp(0 - x)) + 1)`` with SLEEF's ``expf`` (u10), replayed below operation
  by operation; the elements left over after the last full pair of vectors (``n % 32`` in a
  contiguous run, every element of a strided run) take the scalar path
  ``1 / (1 + std::exp(-x))``, whose ``expf`` is glibc's: float64's exp rounded once is
  glibc's result except on about 0.07% of inputs (glibc's expf is not quite correctly
  rounded; replaying it is not done). Rows that TensorIterator cannot merge (a slice
  ``x[:, :k]``) each have their own leftover.
- **silu** (``x / (1 + exp(-x))``) runs the same two paths as sigmoid.
- **pow** with a number exponent other than 0, 1, 2, 3, -2, 0.5, -0.5, -1 (those are
  products, square roots and quotients, ops/elementwise.py) is torch's ``cpu_kernel_vec``
  too: SLEEF's ``powf`` in the vectors (ops/_sleef_powf.py, exact) and ``std::pow`` in double
  for the leftover elements (float64's pow rounded once).

The SLEEF replays (sigmoid's and silu's vector path, pow's) cost 20-100x NumPy's own kernel
(about 20 NumPy passes per element), so they run only when a user asks for torch's exact bits
with ``leafgrad.backends.cpu.torch_bits = True``. By default sigmoid and silu use torch's
scalar formula on every element (float32 arithmetic around a once-rounded exp: 96% of
sigmoid's bits) and pow rounds float64's pow once (98% of the bits), each a few NumPy calls.

float64 tensors use MKL where it is installed and NumPy's result differs from torch's (sin,
cos, tanh, sqrt), NumPy's float64 kernels otherwise (within an ulp of torch's).

A float32 fused multiply-add ``a * b + c`` is replayed in float64: the product of two float32
values is exact there, the sum is rounded to float64 and then to float32. The two roundings
differ from the single one only when the float64 sum lands exactly on a float32 midpoint,
which the grids above never hit.
"""

from __future__ import annotations

import numpy as np

from ..backends import cpu as _cpu
from . import _blas, _mkl

_F32 = np.float32
_F64 = np.float64

# Below this many elements the float64 temporaries cost less than a buffered ufunc call.
_BUFFERED_FROM = 4096


def _rounded(ufunc, a: np.ndarray) -> np.ndarray:
    """``ufunc`` computed in float64 and rounded once to float32 (``a`` float32)."""
    if a.size < _BUFFERED_FROM:
        return ufunc(a, dtype=_F64).astype(_F32)
    return ufunc(a, out=np.empty_like(a), dtype=_F64, casting="same_kind")


def _vml_or_rounded(name: str, ufunc):
    """float32/float64: MKL's ``name`` where torch calls it and MKL is installed
    (ops/_mkl.py); otherwise float32 rounds float64's ``ufunc`` once and the other dtypes
    run ``ufunc``."""

    def compute(a: np.ndarray) -> np.ndarray:
        if _mkl._library is not False:  # not known to be missing
            result = _mkl.kernel(name, a)
            if result is not None:
                return result
        return _rounded(ufunc, a) if a.dtype == _F32 else ufunc(a)

    compute.__name__ = name
    return compute


exp = _vml_or_rounded("exp", np.exp)
log = _vml_or_rounded("log", np.log)
tanh = _vml_or_rounded("tanh", np.tanh)
sin = _vml_or_rounded("sin", np.sin)
cos = _vml_or_rounded("cos", np.cos)


def sqrt(a: np.ndarray) -> np.ndarray:
    """NumPy's correctly rounded square root, or MKL's where torch calls it (1 ulp below on
    about 0.6% of float32 and 0.7% of float64 inputs)."""
    result = _mkl.kernel("sqrt", a)
    return np.sqrt(a) if result is None else result


# -- SLEEF's expf (u10), as torch's Vectorized<float>::exp runs it with FMA ---------------------

_R_LN2 = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = float(_F32(0.693145751953125))
_L2L = float(_F32(1.428606765330187045e-06))
_EXP_POLY = tuple(float(_F32(c)) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271, 0.00833336077630519866943359,
    0.0416664853692054748535156, 0.166666671633720397949219, 0.5))


def _fma_into(a, b, c, wide: np.ndarray, narrow: np.ndarray) -> np.ndarray:
    """float32 ``a * b + c`` rounded once (see the module doc), from float64 operands: the
    result is left in ``narrow`` (float32) and, widened again, in ``wide`` (returned).
    ``wide`` may be ``a`` but not ``c``."""
    np.multiply(a, b, out=wide)
    wide += c
    narrow[...] = wide
    wide[...] = narrow
    return wide


_BLOCK = 8192  # elements per pass: the temporaries of one block stay in the CPU's cache


def sleef_expf(d: np.ndarray) -> np.ndarray:
    """SLEEF's ``expf`` u10 on a float32 array, operation by operation (run by an op's
    forward: NumPy's floating-point warnings are off, ops/registry.py)."""
    flat = d.reshape(-1)
    out = np.empty(flat.shape, _F32)
    size = min(flat.size, _BLOCK)
    q, s, u, ss = (np.empty(size, _F64) for _ in range(4))
    narrow = np.empty(size, _F32)
    for start in range(0, flat.size, _BLOCK):
        x = flat[start:start + _BLOCK]
        n = x.size
        qb, sb, ub, ssb, nb = q[:n], s[:n], u[:n], ss[:n], narrow[:n]
        np.multiply(x, _R_LN2, out=nb)  # a float32 product,
        np.rint(nb, out=nb)  # rounded to an integer (ties to even)
        qb[...] = nb
        _fma_into(qb, -_L2U, x, ssb, nb)
        _fma_into(qb, -_L2L, ssb, sb, nb)  # s: the reduced argument
        ub[...] = _EXP_POLY[0]
        for c in _EXP_POLY[1:]:
            _fma_into(ub, sb, c, ub, nb)
        np.multiply(sb, sb, out=ssb)  # a float32 product: exact in float64, rounded once
        nb[...] = ssb
        ssb[...] = nb
        _fma_into(ssb, ub, sb, ub, nb)
        nb += _F32(1)  # a float32 addition
        # SLEEF scales by 2**(q >> 1), then by 2**(q - (q >> 1)) (vldexp2); q is small
        # wherever the result is not replaced below
        qi = np.minimum(np.maximum(qb, -255), 255).astype(np.int32)
        half = qi >> 1
        qi -= half
        np.ldexp(nb, half, out=nb)
        np.ldexp(nb, qi, out=out[start:start + n])
    out[flat < -104] = 0
    out[flat > 100] = np.inf
    nan = np.isnan(flat)
    out[nan] = flat[nan]
    return out.reshape(d.shape)


# -- torch's vectorised loop: which elements take the scalar path ------------------------------

_PAIR = 32  # two 16-lane AVX-512 float32 vectors per step of Loops.h's vectorized_loop


def _scalar_part(a: np.ndarray):
    """The elements torch's vectorised loop leaves to the scalar op: None (none of them),
    ``...`` (all), or an index into ``a`` for the leftover of each contiguous run."""
    n = a.size
    if n < _PAIR:
        return ...
    item = a.itemsize
    if a.flags.c_contiguous or a.flags.f_contiguous:
        tail = n % _PAIR
        if not tail:
            return None
        flat = np.arange(n - tail, n)  # the last elements in memory order
        return np.unravel_index(flat, a.shape, order="C" if a.flags.c_contiguous else "F")
    if a.strides[-1] == item:  # rows TensorIterator runs one by one
        inner = a.shape[-1]
        tail = inner % _PAIR
        if inner < _PAIR:
            return ...
        return (Ellipsis, slice(inner - tail, inner)) if tail else None
    return ...


def _sigmoid_scalar(a: np.ndarray) -> np.ndarray:
    e = np.exp(np.negative(a, dtype=_F64)).astype(_F32)  # glibc's expf: rounded once
    return _F32(1) / (_F32(1) + e)


def _sigmoid_vector(a: np.ndarray) -> np.ndarray:
    return _F32(1) / (sleef_expf(_F32(0) - a) + _F32(1))


def _silu_scalar(a: np.ndarray) -> np.ndarray:
    return a / (_F32(1) + np.exp(np.negative(a, dtype=_F64)).astype(_F32))


def silu(a: np.ndarray) -> np.ndarray:
    """torch's ``silu`` of a float32 array: ``x / (1 + exp(-x))``, with SLEEF's expf in the
    vectorised loop and glibc's expf in the scalar one, as sigmoid."""
    part = _scalar_part(a) if _cpu.torch_bits else ...
    if part is Ellipsis:
        return np.asarray(_silu_scalar(a), dtype=_F32)
    out = a / (_F32(1) + sleef_expf(np.negative(a)))
    if part is not None:
        out[part] = _silu_scalar(a[part])
    return out


def sigmoid(a: np.ndarray) -> np.ndarray:
    """torch's ``sigmoid`` of a float32 array (float64: ``1 / (1 + exp(-a))`` in float64)."""
    if a.dtype != _F32:
        return (1 / (1 + np.exp(-a))).astype(a.dtype, copy=False)
    if not _cpu.torch_bits:  # torch's scalar formula everywhere: cheap, ~96% of the bits
        return np.asarray(_sigmoid_scalar(a), dtype=_F32)
    part = _scalar_part(a)
    if part is Ellipsis:
        return np.asarray(_sigmoid_scalar(a), dtype=_F32)
    out = _sigmoid_vector(a)
    if part is not None:
        out[part] = _sigmoid_scalar(a[part])
    return out


def _into(ufunc, a: np.ndarray, out, name: str | None = None) -> np.ndarray:
    """``ufunc(a)`` as ``exp``/``log``/``tanh`` above compute it, written into ``out``
    (leafgrad.compile's capture kernels; ``out`` None: a fresh array)."""
    if name is not None and _mkl._library is not False:
        result = _mkl.kernel(name, a, out)
        if result is not None:
            return result
    if a.dtype != _F32:
        return ufunc(a, out=out)
    if out is None:
        return _rounded(ufunc, a)
    return ufunc(a, out=out, dtype=_F64, casting="same_kind")


def exp_into(a, out):
    return _into(np.exp, a, out, "exp")


def log_into(a, out):
    return _into(np.log, a, out, "log")


def tanh_into(a, out):
    return _into(np.tanh, a, out, "tanh")


def sin_into(a, out):
    return _into(np.sin, a, out, "sin")


def cos_into(a, out):
    return _into(np.cos, a, out, "cos")


def sqrt_into(a, out):
    result = _mkl.kernel("sqrt", a, out)
    return np.sqrt(a, out=out) if result is None else result


# -- pow with a number exponent: SLEEF's powf in the vector loop, double pow in the scalar one --


def pow_scalar(a: np.ndarray, exponent: float) -> np.ndarray:
    """torch's ``a ** exponent`` for a float32 array and a real exponent other than those its
    pow kernel computes otherwise (0, 1, 2, 3, -2, 0.5, -0.5, -1): ``Vectorized<float>::pow``
    (SLEEF's powf with the exponent rounded to float32, ops/_sleef_powf.py) in the vectorised
    loop, ``std::pow(double(x), exponent)`` rounded to float32 in the scalar one."""
    from ._sleef_powf import powf

    part = _scalar_part(a) if _cpu.torch_bits else ...
    exponent = float(exponent)
    if part is Ellipsis:
        return np.asarray(np.power(a, exponent, dtype=_F64).astype(_F32))
    out = powf(a, exponent)
    if part is not None:
        out[part] = np.power(a[part], exponent, dtype=_F64)
    return out


def _scalar_part_of(shape: tuple, operands: tuple):
    """``_scalar_part`` for a result of ``shape`` computed from broadcast operands: one run
    when every operand is C-contiguous of that shape or a single element, runs along the
    last dimension when each operand steps by one element (or stays) along it, else none.
    (TensorIterator also merges other dimensions it can; such leftovers are not followed.)"""
    first = operands[0]
    if all(op.shape == shape and op.strides == first.strides for op in operands):
        return _scalar_part(first)
    n = int(np.prod(shape))
    if n < _PAIR:
        return ...
    if all(op.size == 1 or (op.shape == shape and op.flags.c_contiguous) for op in operands):
        tail = n % _PAIR
        return np.unravel_index(np.arange(n - tail, n), shape) if tail else None
    views = [np.broadcast_to(op, shape) for op in operands]
    if shape and all(v.strides[-1] in (0, v.itemsize) for v in views):
        inner = shape[-1]
        if inner < _PAIR:
            return ...
        tail = inner % _PAIR
        return (Ellipsis, slice(inner - tail, inner)) if tail else None
    return ...


def pow_tensor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's ``a ** b`` for two float32 arrays (broadcast together): SLEEF's powf in the
    vectorised loop, ``std::pow`` of the two floats (glibc's powf: float64's pow rounded
    once) in the scalar one."""
    from ._sleef_powf import powf

    shape = np.broadcast_shapes(a.shape, b.shape)
    part = _scalar_part_of(shape, (a, b)) if _cpu.torch_bits else ...
    av, bv = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    if part is Ellipsis:
        return np.asarray(np.power(av, bv, dtype=_F64).astype(_F32))
    out = powf(np.ascontiguousarray(av), np.ascontiguousarray(bv))
    if part is not None:
        out[part] = np.power(av[part], bv[part], dtype=_F64)
    return out


# -- tanh's backward: grad * (1 - y * y) with the bracket fused, as torch's kernel ---------------

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64 into two 26-bit halves


def tanh_backward(grad: np.ndarray, y: np.ndarray, out=None) -> np.ndarray:
    """torch's ``tanh_backward(grad, y)`` for real arrays of one dtype: ATen's vectorised
    kernel computes ``grad * (1 - y * y)`` with the bracket as one fused multiply-add, so
    ``1 - y * y`` is rounded once (where ``y`` is near +-1 the unfused form loses most of its
    bits: on tanh of [-7, 7] it is torch's result on 18% of float32 inputs, the fused one on
    100%). float32: ``y * y`` is exact in float64 and the difference is rounded there and
    then to float32 (two roundings agree but on exact float32 midpoints); float64: the
    product split into a head and an exact tail (Veltkamp/Dekker), the difference summed in
    double-double and rounded once. ``out``: where to write (may be ``grad``)."""
    dtype = y.dtype
    if dtype == _F32:
        t = np.multiply(y, y, dtype=_F64)
        t = np.subtract(1.0, t, out=t if type(t) is np.ndarray else None)  # 0-d: a scalar
        return np.multiply(grad, t, out=out, dtype=_F32, casting="same_kind")
    if dtype == _F64:
        p = y * y
        scaled = y * _SPLIT
        high = scaled - (scaled - y)
        low = y - high
        tail = high * high - p  # p + tail + 2 high low + low low == y * y exactly
        tail += 2 * high * low
        tail += low * low
        head = 1.0 - p
        tail = ((1.0 - head) - p) - tail  # 1 - p - head exactly, minus the product's tail
        head += tail
        return np.multiply(grad, head, out=out)
    return np.multiply(grad, 1 - y * y, out=out)


# -- add/sub with alpha: one fused multiply-add, as torch's kernel --------------------------------


def scaled_update(ufunc, a: np.ndarray, b: np.ndarray, alpha, out=None):
    """torch's ``add(a, b, alpha=alpha)`` (``ufunc`` np.add) or ``sub`` (np.subtract) of real
    arrays. ATen's add kernel computes ``a + alpha * b`` as one fused multiply-add,
    ``fmadd(b, alpha, a)`` with ``alpha`` in the operands' dtype (sub: ``-alpha``); MKL's
    ``?axpy`` is the same arithmetic, every bit (ops/_blas.axpy), so where the ``mkl``
    package is installed the update runs there: one pass, in place when ``out`` is ``a``
    (SGD's ``p.add_(g, alpha=-lr)``; rounding the product first gave torch's bits on 99.6%
    of 1,000 float32 parameters). Without MKL: the scaled operand, then the add (NumPy has
    no fused multiply-add, and replaying one in float64 tripled the cost of an SGD step).
    ``out``: where to write (may be ``a``); None: a new array of the broadcast shape."""
    if type(b) is not np.ndarray:  # a wrapped number: the tensor's dtype, as torch's kernel
        b = np.asarray(b, dtype=a.dtype if a.dtype.kind == "f" else None)
    if (not _blas.off() and a.dtype.char in "fd" and b.dtype == a.dtype
            and type(alpha) is not complex and _mkl.available()):
        shape = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
        target = out if (out is a and a.flags.c_contiguous and a.shape == shape) else None
        if target is None:
            target = np.array(np.broadcast_to(a, shape), order="C")
        source = b if (b.shape == shape and b.flags.c_contiguous) else np.ascontiguousarray(
            np.broadcast_to(b, shape))
        scale = -alpha if ufunc is np.subtract else alpha
        if _blas.axpy(scale, source, target):
            if out is not None and target is not out:
                np.copyto(out, target, casting="unsafe")
                return out
            return target
    scaled = b * alpha
    if out is None:
        return ufunc(a, scaled)
    return ufunc(a, scaled, out=out, casting="unsafe")


# -- softmax and log_softmax over the last dim, as ATen's vectorised kernels -----------------------

_LANES = 16  # float32 lanes of torch's AVX-512 Vectorized<float>
_TREE = [np.array([i ^ step for i in range(_LANES)]) for step in (8, 4, 2, 1)]


def reduce_all_sum(rows: np.ndarray) -> np.ndarray:
    """torch's ``vec::reduce_all`` (and ``map_reduce_all``) sum of each row of a float32
    matrix: 16 lane accumulators fed vector by vector, the last partial vector added to its
    first lanes only, then the lanes folded in halves (8, 4, 2, 1 apart: the AVX-512
    shuffles); a row shorter than a vector is summed in order."""
    count, size = rows.shape
    if size < _LANES:
        total = rows[:, 0].copy()
        for j in range(1, size):
            total += rows[:, j]
        return total
    full = size - size % _LANES
    lanes = rows[:, :_LANES].copy()
    for start in range(_LANES, full, _LANES):
        lanes += rows[:, start:start + _LANES]
    rest = size - full
    if rest:
        lanes[:, :rest] += rows[:, full:]
    for index in _TREE:
        lanes = lanes + lanes[:, index]
    return lanes[:, 0]


def exact_softmax(a: np.ndarray) -> bool:
    """Whether softmax/log_softmax of ``a`` over its last dim replays torch's kernel: with
    ``backends.cpu.torch_bits`` (the SLEEF replay costs about 25x NumPy's exp: on by default
    it made a compiled MNIST-MLP step 8% slower, 0.86x -> 0.93x torch eager)."""
    return _cpu.torch_bits and a.dtype == _F32 and a.ndim >= 1 and a.shape[-1] > 0


def softmax_lastdim(a: np.ndarray) -> np.ndarray:
    """torch's float32 softmax over the last dim of a C-contiguous array (ATen's
    _vec_softmax_lastdim): the row maximum, SLEEF's expf of x - max, the lane-ordered sum,
    and the products with its reciprocal (not quotients)."""
    size = a.shape[-1]
    rows = a.reshape(-1, size)
    exps = sleef_expf(rows - rows.max(axis=1, keepdims=True))
    scale = _F32(1) / reduce_all_sum(exps)
    exps *= scale[:, None]
    return exps.reshape(a.shape)


def log_softmax_lastdim(a: np.ndarray):
    """torch's float32 log_softmax over the last dim (ATen's serial_vec_log_softmax_lastdim
    _range): ``(x - max) - log(sum(exp(x - max)))`` with SLEEF's expf, the lane-ordered sum
    and the log (SLEEF's logf, taken as float64's log rounded once). Returns the result, the
    exponentials and the row sums (shaped to broadcast against the result)."""
    size = a.shape[-1]
    rows = a.reshape(-1, size)
    shifted = rows - rows.max(axis=1, keepdims=True)
    exps = sleef_expf(shifted)
    total = reduce_all_sum(exps)
    shifted -= np.log(total, dtype=_F64).astype(_F32)[:, None]
    keep = a.shape[:-1] + (1,)
    return shifted.reshape(a.shape), exps.reshape(a.shape), total.reshape(keep)
