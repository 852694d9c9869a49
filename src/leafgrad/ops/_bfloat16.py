"""bfloat16: torch's CPU kernels compute in float32 and round the result once.

Note: opmath for bfloat16. torch computes a bfloat16 op in float32 ("opmath": elementwise
math, reductions accumulating in float32, matmul and convolution accumulating in float32) and
rounds the result to bfloat16 once, as it does for float16 (see Note: opmath for float16 in
math_binary.py). leafgrad's bfloat16 arrays are ml_dtypes' (Note: bfloat16 in _dtype.py),
whose NumPy kind is "V", not "f": the op forwards, written for NumPy's own dtypes, never see
one. Once the process makes a bfloat16 tensor, every op's forward that is not a view is
wrapped: bfloat16 operands are widened to float32 (exact), the forward runs, and its float32
results are rounded to bfloat16 (round to nearest even) unless the op asked for a dtype
(``x.float()``, ``sum(dtype=...)``) or another dimensioned floating operand made float32 the
result type (bfloat16 + float16 is float32, as in torch). View ops run on the bfloat16 array
itself (they only reshape it). Programs without bfloat16 pay nothing: the wrapping happens on
first use, as the uint16 check does (ops/_uint.py).
"""

from __future__ import annotations

import functools

import numpy as np

from .. import _dtype
from .registry import OPS

_F32 = np.dtype(np.float32)


def to_bfloat16(array, vector: bool = True):
    """``array`` rounded to bfloat16 (to nearest even), as torch's conversion: through float32
    (float64 -> bfloat16 gives the same bits either way), NaN as 0xFFFF where torch's
    vectorized kernel converts (``vector``, arrays of one or more dims), 0x7FC0 on its scalar
    path (0-d ones)."""
    bf16 = _dtype.bfloat16.np
    array = np.asarray(array)
    if array.dtype == bf16:
        return array.copy()
    if array.dtype.kind == "c":
        array = array.real
    with np.errstate(invalid="ignore", over="ignore"):
        work = array if array.dtype == _F32 else array.astype(np.float32)
        out = work.astype(bf16)
    if out.size:
        nan = np.isnan(work)
        if nan.any():
            out.view(np.uint16)[nan] = 0xFFFF if vector and out.ndim else 0x7FC0
    return out


def _widen(value, bf16):
    if value.__class__ is np.ndarray:
        if value.dtype == bf16:
            return value.astype(np.float32), True
        return value, False
    if value.__class__ in (tuple, list) and value:
        changed = False
        items = []
        for item in value:
            if item.__class__ is np.ndarray and item.dtype == bf16:
                item = item.astype(np.float32)
                changed = True
            items.append(item)
        if changed:
            return value.__class__(items), True
    return value, False


def _other_float_wins(arrays, params, bf16) -> bool:
    """Whether a floating operand that is not bfloat16 makes the result type float32 (or wider):
    a dimensioned one, or a 0-d one when every bfloat16 operand is 0-d too."""
    bf16_dims = False
    others = []
    for value in (*arrays, *params.values()):
        items = value if value.__class__ in (tuple, list) else (value,)
        for item in items:
            if item.__class__ is np.ndarray:
                if item.dtype == bf16:
                    bf16_dims = bf16_dims or item.ndim > 0
                elif item.dtype.kind in "fc":
                    others.append(item.ndim)
    return any(ndim > 0 for ndim in others) or (bool(others) and not bf16_dims)


def integer_kernel(kernel: str):
    """``Op.bfloat16_kernel`` for kernels with integer versions only (bitwise ops, shifts,
    gcd): where bfloat16 is the operands' common dtype, torch's dispatch names it; where a
    float32 operand wins, the widened forward's own 'Float' message is torch's."""

    def refuse(arrays, params):
        if not _other_float_wins(arrays, params, _dtype.bfloat16_numpy()):
            return NotImplementedError(f"\"{kernel}\" not implemented for 'BFloat16'")
        return None

    return staticmethod(refuse)


def _round(out):
    if out.__class__ is np.ndarray:
        return to_bfloat16(out, False) if out.dtype == _F32 else out
    if out.__class__ is np.float32:  # a 0-d result NumPy gave as a scalar
        return to_bfloat16(np.asarray(out), False)
    if out.__class__ is tuple:
        return tuple(_round(item) for item in out)
    if out.__class__ is list:
        return [_round(item) for item in out]
    return out


def legacy_name(array) -> str:
    """torch's name of an operand array's dtype in messages (BFloat16, Float, ...)."""
    return _dtype.from_numpy_dtype(array.dtype)._legacy


def _refuse(kernel, arrays, params) -> None:
    if callable(kernel):
        error = kernel(arrays, params)
        if error is not None:
            raise error
        return
    raise NotImplementedError(f"\"{kernel}\" not implemented for 'BFloat16'")


def _round_operand(value, bf16):
    """A Python number or a (0-d) floating or integer array of another dtype as torch's cast
    to bfloat16 of the operands leaves it, in float32."""
    if value.__class__ is float:
        return float(np.float32(value).astype(bf16))
    if value.__class__ is int:  # (one bfloat16 holds exactly stays an int)
        with np.errstate(over="ignore"):
            rounded = float(np.float32(value).astype(bf16))
        return value if rounded == value else rounded
    if value.__class__ is np.ndarray and value.ndim == 0 and value.dtype.kind in "iu":
        return value.astype(np.float32).astype(bf16).astype(np.float32)
    if value.__class__ is np.ndarray and value.dtype.kind == "f" and value.dtype != _F32:
        return value.astype(np.float32).astype(bf16).astype(np.float32)
    if value.__class__ is np.ndarray and value.dtype == _F32 and value.ndim == 0:
        return value.astype(bf16).astype(np.float32)
    return value


def _wrap_forward(cls, forward):
    def run(ctx, *arrays, **params):
        bf16 = _dtype._bfloat16_np
        widened = []
        found = False
        for value in arrays:
            value, changed = _widen(value, bf16)
            found = found or changed
            widened.append(value)
        new_params = params
        for name, value in params.items():
            value, changed = _widen(value, bf16)
            if changed:
                if new_params is params:
                    new_params = dict(params)
                new_params[name] = value
                found = True
        if not found or cls.bfloat16_native == "always" or (
                cls.bfloat16_native and new_params is params and all(
                    value.__class__ is not np.ndarray or value.dtype == bf16
                    for value in arrays)):
            return forward(ctx, *arrays, **params)
        kernel = cls.bfloat16_kernel
        if kernel is not None and (callable(kernel) or (
                arrays and arrays[0].__class__ is np.ndarray and arrays[0].dtype == bf16)):
            _refuse(kernel, arrays, params)  # a name: torch dispatches on the first tensor
        if params.get("dtype") is not None:
            return forward(ctx, *widened, **new_params)
        if _other_float_wins(arrays, params, bf16):
            out = forward(ctx, *widened, **new_params)
            follows = cls.bfloat16_follows_self
            if follows is not False:  # (True: operand 0; an int: that operand)
                index = 0 if follows is True else follows
                follows = (len(arrays) > index and arrays[index].__class__ is np.ndarray
                           and arrays[index].dtype == bf16)
            return _round(out) if follows else out
        # torch's TensorIterator casts scalar operands to bfloat16 first, but mul/div/lerp
        # (opmath_scalars) read a second-operand scalar at its own value in float32
        widened = [value if cls.opmath_scalars and index == 1 else _round_operand(value, bf16)
                   for index, value in enumerate(widened)]
        if not cls.opmath_scalars:
            for name in (*cls.uint_params, "alpha"):  # add's alpha is cast too
                if name in new_params:
                    if new_params is params:
                        new_params = dict(params)
                    new_params[name] = _round_operand(new_params[name], bf16)
        out = _round(forward(ctx, *widened, **new_params))
        if cls.bfloat16_finish is not None:
            out = cls.bfloat16_finish(out, widened, new_params)
        return out

    functools.update_wrapper(run, forward)  # signature, name and __wrapped__ for introspection
    run.bfloat16_wrapped = forward
    return run


def _wrap_class_forward(cls, func):
    """The same for a forward written as a classmethod (its ``__func__`` takes the class)."""

    def call(klass):
        return lambda ctx, *arrays, **params: func(klass, ctx, *arrays, **params)

    def run(klass, ctx, *arrays, **params):
        return _wrap_forward(cls, call(klass))(ctx, *arrays, **params)

    functools.update_wrapper(run, func)
    run.bfloat16_wrapped = func
    return run


def alpha_tail(ufunc):
    """``bfloat16_finish`` of add/sub with an alpha: torch's vectorized loop computes
    ``self + alpha * other`` in float (alpha rounded to bfloat16 first) and rounds once, but the
    elements after the last 32 (two 16-lane vectors) of a contiguous run take its scalar path,
    c10::BFloat16 arithmetic rounding ``alpha * other`` before the sum. Applied where the run
    is the whole tensor: same-shape contiguous operands."""

    def finish(out, operands, params):
        alpha = params.get("alpha", 1)
        if alpha == 1 or len(operands) != 2 or out.__class__ is not np.ndarray:
            return out
        a, b = operands
        tail = out.size % 32
        if (not tail or a.__class__ is not np.ndarray or b.__class__ is not np.ndarray
                or a.shape != b.shape or not (a.flags.c_contiguous and b.flags.c_contiguous
                                              and out.flags.c_contiguous)):
            return out
        bf16 = out.dtype
        scale = np.float32(np.float32(alpha).astype(bf16))
        head = a.reshape(-1)[-tail:]
        product = (b.reshape(-1)[-tail:] * scale).astype(bf16).astype(np.float32)
        out.reshape(-1)[-tail:] = ufunc(head, product).astype(bf16)
        return out

    return finish


def pow_steps(out, operands, params):
    """``bfloat16_finish`` of ``x ** n``: torch's kernel computes the exponents 3 and -2 in
    c10::BFloat16 arithmetic, rounding ``x * x`` before the last step (``x * x * x``,
    ``1 / (x * x)``); other exponents are one rounding of ``pow`` in float."""
    exponent = params.get("exponent")
    if exponent not in (3, -2) or isinstance(exponent, bool) or out.__class__ is not np.ndarray \
            or not operands or operands[0].__class__ is not np.ndarray:
        return out
    bf16 = out.dtype
    x = operands[0].astype(np.float32)
    square = (x * x).astype(bf16).astype(np.float32)
    with np.errstate(all="ignore"):
        last = square * x if exponent == 3 else np.float32(1) / square
    return last.astype(bf16)


_installed = []


def install_bfloat16() -> None:
    """Wrap every non-view op's forward (see Note: opmath for bfloat16)."""
    if _installed:
        return
    _installed.append(True)
    for cls in OPS.values():
        if cls.is_view:
            continue
        raw = next(klass.__dict__["forward"] for klass in cls.__mro__ if "forward" in
                   klass.__dict__)
        func = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
        if getattr(func, "bfloat16_wrapped", None) is not None:
            continue
        if isinstance(raw, classmethod):
            cls.forward = classmethod(_wrap_class_forward(cls, func))
        else:
            cls.forward = staticmethod(_wrap_forward(cls, func))


_dtype.on_first_bfloat16(install_bfloat16)
