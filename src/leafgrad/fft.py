"""``torch.fft``: discrete Fourier transforms, built as torch builds them from three primitives
(ops/fft.py: ``_fft_r2c``, ``_fft_c2r``, ``_fft_c2c``) plus the slicing, zero-padding,
promotion and conjugation torch records around them, so the graphs have torch's nodes.

>>> import leafgrad as torch
>>> torch.fft.fft(torch.tensor([1., 2., 3., 4.]))
tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])

Note: fft of empty batches. torch's MKL backend raises "MKL FFT error: ... Inconsistent
configuration parameters" for a tensor with a zero-size dim that is not transformed
(``fft(zeros(0, 3))``); leafgrad returns the empty result instead (NumPy's answer), since the
call is valid and torch's error is its backend's accident. A transformed dim of size 0 is
refused with torch's "Invalid number of data points (0) specified".
"""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np

from . import _argparse, _dtype
from ._out import _store, check_internal_overlap
from .amp._state import state as _autocast_state
from .autograd.grad_mode import state as _grad_state
from .ops.complex import ConjPhysical
from .ops.fft import FftC2C, FftC2R, FftR2C
from .ops.norm import ConstantPadNd
from .tensor import Tensor, _wrap, check_inplace_allowed

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
    "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

def _parsed(fn):
    """Check a call against torch's signature ``fft_<name>(...)`` (_argparse.SIGNATURES, its
    TypeErrors) first; inside autocast, cast a float16 input to float32."""
    key = f"fft_{fn.__name__}"

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        args, kwargs = _int_lists(key, args, kwargs)
        _argparse.check(key, args, kwargs)
        if _autocast_state.active and fn.__name__ not in ("fftshift", "ifftshift"):
            args, kwargs = _autocast_input(args, kwargs)
        return fn(*args, **kwargs)

    return checked


def _int_lists(key: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """torch's reading of the int-list arguments ``s`` and ``dim``: a one-element integer
    tensor stands for its int; a list whose first item is an int but a later one is not fails
    "to unpack" (a list not starting with an int is refused as a whole, by the signature)."""
    names = ("s", "dim") if key != "fft_fftshift" and key != "fft_ifftshift" else ("dim",)
    positions = (1, 2) if len(names) == 2 else (1,)

    def read(name, value):
        if (isinstance(value, Tensor) and value.numel() == 1
                and value.dtype.name.startswith(("int", "uint"))):
            return int(value.item())
        if isinstance(value, (tuple, list)) and value and _argparse._is_int(value[0]):
            for index, item in enumerate(value):
                if not _argparse._is_int(item):
                    raise TypeError(
                        f"{key}(): argument '{name}' failed to unpack the object at pos "
                        f"{index + 1} with error \"type must be tuple of ints,but got "
                        f"{_argparse.typename(item)}\"")
        return value

    args = tuple(read(names[positions.index(i)], a) if i in positions else a
                 for i, a in enumerate(args))
    return args, {k: read(k, v) if k in names else v for k, v in kwargs.items()}


def _autocast_input(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Inside ``autocast("cpu")`` the transforms are on torch's float32 list: a float16 input
    is cast to float32 first (a recorded ToCopy)."""
    if args:
        return _autocast_state.cast_args("fp32", args[:1]) + args[1:], kwargs
    if "input" in kwargs:
        kwargs = dict(kwargs, input=_autocast_state.cast_args("fp32", (kwargs["input"],))[0])
    return args, kwargs


def _keywords(name: str):
    """torch's error naming ``name`` for an unknown keyword argument."""

    def decorate(fn):
        known = set(inspect.signature(fn).parameters)

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            for key in kwargs:
                if key not in known:
                    raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
            return fn(*args, **kwargs)

        return checked

    return decorate


# -- the steps torch takes around each transform ---------------------------------------------


def _norm(norm, forward: bool) -> int:
    """torch's norm_from_string: 0 no scaling, 1 by 1/sqrt(n), 2 by 1/n."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x: Tensor, require_complex: bool = False) -> Tensor:
    """torch's promote_tensor_fft: integers to the default float, then float32/float64 only
    (on the CPU), then to complex if required."""
    kind = x.dtype
    if kind.is_complex:
        return x
    if not kind.is_floating_point:
        kind = _dtype.get_default_dtype()
    if kind is not _dtype.float32 and kind is not _dtype.float64:
        raise RuntimeError(f"Unsupported dtype {kind._legacy}")
    if require_complex:
        kind = kind.to_complex()
    return x if kind is x.dtype else x.to(kind)


def _wrap_dim(dim: int, ndim: int) -> int:
    """maybe_wrap_dim with wrap_scalar=false: a 0-d tensor has no dim to transform."""
    dim = int(dim)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    return dim % ndim


def _check_points(n: int) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x: Tensor, dims, sizes) -> Tensor:
    """torch's resize_fft_input: slice the dims that are too long, then one zero pad for the
    dims that are too short."""
    pad = [0] * (2 * x.ndim)
    padded = False
    for dim, size in zip(dims, sizes):
        current = x.shape[dim]
        if current < size:
            pad[len(pad) - 2 * dim - 1] = size - current
            padded = True
        elif current > size:
            x = x[(slice(None),) * dim + (slice(0, size),)]  # torch: a slice
    return ConstantPadNd.apply(x, pad=tuple(pad), value=0) if padded else x


def _as_list(value) -> list | None:
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return [int(v) for v in value]
    return [int(value)]


def _shape_and_dims(x: Tensor, s, dim) -> tuple[list, list]:
    """torch's canonicalize_fft_shape_and_dim_args: wrapped unique dims, sizes with -1 read
    from the input; dims default to the last len(s) dims, or to all dims."""
    ndim = x.ndim
    s, dim = _as_list(s), _as_list(dim)
    dims = None
    if dim is not None:
        dims = [_wrap_dim(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x.shape[d] if n == -1 else n for n, d in zip(s, dims)]
    elif dims is None:
        dims = list(range(ndim))
        shape = list(x.shape)
    else:
        shape = [x.shape[d] for d in dims]
    for n in shape:
        _check_points(n)
    return shape, dims


def _c2r_shape_and_dims(name: str, x: Tensor, s, dim) -> tuple[list, list, int]:
    """The shapes of a c2r transform: the last dim's output size, and the input sizes."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    given = _as_list(s)
    if given is None or given[-1] == -1:
        last_dim_size = 2 * (x.shape[dims[-1]] - 1)
    else:
        last_dim_size = shape[-1]
    _check_points(last_dim_size)
    shape[-1] = last_dim_size // 2 + 1
    return shape, dims, last_dim_size


def _check_out(name: str, out, want_complex: bool) -> None:
    if out is None:
        return
    if want_complex and not out.dtype.is_complex:
        raise RuntimeError(f"{name} expects a complex output tensor, but got {out.dtype._legacy}")
    if not want_complex and not out.dtype.is_floating_point:
        raise RuntimeError(f"{name} expects a floating point output tensor, but got "
                           f"{out.dtype._legacy}")


def _store_checked(out: Tensor, value: np.ndarray) -> None:
    """torch resizes out, then copies the result in (copy_ refuses an expanded out: Note:
    expanded outs in _out.py; a resized out is contiguous)."""
    if tuple(out.shape) == value.shape:
        check_internal_overlap(out)
    _store(out, value, warn=True)


def _run(op, aten: str, out, x: Tensor, **params) -> Tensor:
    """``op(x)``, or with ``out=``: torch's refusal when autograd would be needed, then the
    values written into out (resized with torch's warning)."""
    if out is None:
        return op.apply(x, **params)
    check_inplace_allowed(out)
    if _grad_state.grad_enabled and (x._may_require_grad() or out._may_require_grad()):
        raise RuntimeError(f"{aten}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    result = op.apply(x, **params)
    _store_checked(out, result._data)
    return out


def _conj_out(out, result: Tensor, x: Tensor) -> Tensor:
    """The conjugate of an inverse r2c transform: a conj view, or written into ``out``."""
    if out is None:
        return result.conj()
    # torch writes with conj_physical_out after computing with autograd, which leaves out
    # with an unusable grad_fn; leafgrad refuses as for any out= call needing autograd.
    check_inplace_allowed(out)
    if _grad_state.grad_enabled and (x._may_require_grad() or out._may_require_grad()):
        raise RuntimeError("conj_physical(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    _store_checked(out, np.conj(result._data))
    return out


# -- one-dimensional transforms ---------------------------------------------------------------


def _r2c(name, out, x, n, dim, norm, forward, onesided):
    if x.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype._legacy}")
    _check_out(name, out, True)
    x = _promote(x)
    dim = _wrap_dim(dim, x.ndim)
    size = x.shape[dim] if n is None else int(n)
    _check_points(size)
    if n is not None:
        x = _resize(x, (dim,), (size,))
    mode = _norm(norm, forward)
    if forward:
        return _run(FftR2C, "_fft_r2c", out, x, dim=(dim,), normalization=mode,
                    onesided=onesided)
    result = FftR2C.apply(x, dim=(dim,), normalization=mode, onesided=onesided)
    return _conj_out(out, result, x)


def _c2c(name, out, x, n, dim, norm, forward):
    dim = _wrap_dim(dim, x.ndim)
    size = x.shape[dim] if n is None else int(n)
    _check_points(size)
    if n is not None:
        x = _resize(x, (dim,), (size,))
    mode = _norm(norm, forward)
    _check_out(name, out, True)
    return _run(FftC2C, "_fft_c2c", out, x, dim=(dim,), normalization=mode, forward=forward)


def _c2r(name, out, x, n, dim, norm, forward):
    x = _promote(x, require_complex=True)
    dim = _wrap_dim(dim, x.ndim)
    size = 2 * (x.shape[dim] - 1) if n is None else int(n)
    _check_points(size)
    if n is not None:
        x = _resize(x, (dim,), (size // 2 + 1,))
    mode = _norm(norm, forward)
    if forward:
        x = x.conj()
    _check_out(name, out, False)
    return _run(FftC2R, "_fft_c2r", out, x, dim=(dim,), normalization=mode,
                last_dim_size=size)


@_parsed
def fft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002 - torch's names
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim``."""
    if input.dtype.is_complex:
        return _c2c("fft", out, input, n, dim, norm, True)
    return _r2c("fft", out, input, n, dim, norm, True, False)


@_parsed
def ifft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    """The one-dimensional inverse discrete Fourier transform."""
    if input.dtype.is_complex:
        return _c2c("ifft", out, input, n, dim, norm, False)
    return _r2c("ifft", out, input, n, dim, norm, False, False)


@_parsed
def rfft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    """The one-sided Fourier transform of a real signal (n // 2 + 1 bins)."""
    return _r2c("rfft", out, input, n, dim, norm, True, True)


@_parsed
def irfft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    """The inverse of rfft: a real signal of length n (default 2 * (bins - 1))."""
    return _c2r("irfft", out, input, n, dim, norm, False)


@_parsed
def hfft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    """The Fourier transform of a Hermitian-symmetric signal given by its first half."""
    return _c2r("hfft", out, input, n, dim, norm, True)


@_parsed
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    """The inverse of hfft: the first half of a real signal's inverse transform."""
    return _r2c("ihfft", out, input, n, dim, norm, False, True)


# -- n-dimensional transforms -------------------------------------------------------------------


def _fftn(out, x, s, dim, norm, forward):
    shape, dims = _shape_and_dims(x, s, dim)
    x = _promote(x, require_complex=True)
    x = _resize(x, dims, shape)
    mode = _norm(norm, forward)
    _check_out("fftn", out, True)
    return _run(FftC2C, "_fft_c2c", out, x, dim=tuple(dims), normalization=mode,
                forward=forward)


def _rfftn(out, x, s, dim, norm):
    if x.dtype.is_complex:
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {x.dtype._legacy}")
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(x), dims, shape)
    mode = _norm(norm, True)
    _check_out("rfftn", out, True)
    return _run(FftR2C, "_fft_r2c", out, x, dim=tuple(dims), normalization=mode, onesided=True)


def _irfftn(out, x, s, dim, norm):
    shape, dims, last_dim_size = _c2r_shape_and_dims("irfftn", x, s, dim)
    x = _resize(_promote(x, require_complex=True), dims, shape)
    mode = _norm(norm, False)
    _check_out("irfftn", out, False)
    return _run(FftC2R, "_fft_c2r", out, x, dim=tuple(dims), normalization=mode,
                last_dim_size=last_dim_size)


def _hfftn(out, x, s, dim, norm):
    shape, dims, last_dim_size = _c2r_shape_and_dims("hfftn", x, s, dim)
    x = _resize(_promote(x, require_complex=True), dims, shape)
    mode = _norm(norm, True)
    if len(dims) > 1:
        x = FftC2C.apply(x, dim=tuple(dims[:-1]), normalization=mode, forward=True)
    x = x.conj()
    _check_out("hfftn", out, False)
    return _run(FftC2R, "_fft_c2r", out, x, dim=(dims[-1],), normalization=mode,
                last_dim_size=last_dim_size)


def _ihfftn(out, x, s, dim, norm):
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resize(_promote(x), dims, shape)
    mode = _norm(norm, False)
    if x.dtype.is_complex:  # torch's _fft_r2c's own check
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {x.dtype._legacy}")
    if len(dims) == 1:
        _check_out("ihfftn", out, True)
        result = FftR2C.apply(x, dim=(dims[-1],), normalization=mode, onesided=True)
        return _conj_out(out, result, x)
    x = FftR2C.apply(x, dim=(dims[-1],), normalization=mode, onesided=True)
    x = ConjPhysical.apply(x)
    _check_out("ihfftn", out, True)
    return _run(FftC2C, "_fft_c2c", out, x, dim=tuple(dims[:-1]), normalization=mode,
                forward=False)


@_parsed
def fftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    """The n-dimensional discrete Fourier transform over ``dim`` (default: all dims)."""
    return _fftn(out, input, s, dim, norm, True)


@_parsed
def ifftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    """The n-dimensional inverse discrete Fourier transform."""
    return _fftn(out, input, s, dim, norm, False)


@_parsed
def rfftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    """The n-dimensional Fourier transform of a real signal, one-sided in the last dim."""
    return _rfftn(out, input, s, dim, norm)


@_parsed
def irfftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    """The inverse of rfftn."""
    return _irfftn(out, input, s, dim, norm)


@_parsed
def hfftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    """The n-dimensional transform of a Hermitian-symmetric signal given by a half."""
    return _hfftn(out, input, s, dim, norm)


@_parsed
def ihfftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    """The inverse of hfftn."""
    return _ihfftn(out, input, s, dim, norm)


@_parsed
def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    """The two-dimensional discrete Fourier transform (fftn over the last two dims)."""
    return _fftn(out, input, s, dim, norm, True)


@_parsed
def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    """The two-dimensional inverse discrete Fourier transform."""
    return _fftn(out, input, s, dim, norm, False)


@_parsed
def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    """rfftn over the last two dims."""
    return _rfftn(out, input, s, dim, norm)


@_parsed
def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    """irfftn over the last two dims."""
    return _irfftn(out, input, s, dim, norm)


@_parsed
def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    """hfftn over the last two dims."""
    return _hfftn(out, input, s, dim, norm)


@_parsed
def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    """ihfftn over the last two dims."""
    return _ihfftn(out, input, s, dim, norm)


# -- shifts and frequencies -------------------------------------------------------------------


def _shift(input, dim, rounding: int):
    if dim is None:
        dims = list(range(input.ndim))
    else:
        dims = [_wrap_dim(d, input.ndim) for d in _as_list(dim)]
    if not dims:
        raise RuntimeError("`shifts` required")
    shifts = tuple((input.shape[d] + rounding) // 2 for d in dims)
    return input.roll(shifts, tuple(dims))


@_parsed
def fftshift(input, dim=None):  # noqa: A002
    """Move the zero-frequency bin to the centre (a roll by n // 2 along each dim)."""
    return _shift(input, dim, 0)


@_parsed
def ifftshift(input, dim=None):  # noqa: A002
    """The inverse of fftshift (a roll by (n + 1) // 2)."""
    return _shift(input, dim, 1)


def _frequencies(name: str, n, d, dtype, requires_grad, out, right: bool):
    if type(n) is not int and not _argparse._is_int(n):
        raise TypeError(f"fft_{name}(): argument 'n' (position 1) must be int, not "
                        f"{_argparse.typename(n)}")
    if not isinstance(d, (int, float, np.integer, np.floating)) and not (
            isinstance(d, Tensor) and d.ndim == 0):
        raise TypeError(f"fft_{name}(): argument 'd' (position 2) must be float, not "
                        f"{_argparse.typename(d)}")
    n, d = int(n), float(d)
    count = n if right else _c_div(n, 2) + 1
    requires_grad = _argparse.bool_arg(f"fft_{name}", "requires_grad", requires_grad)
    dtype = _argparse.dtype_arg(f"fft_{name}", dtype)
    if out is not None:
        check_inplace_allowed(out)
        if _grad_state.grad_enabled and out._may_require_grad():
            raise RuntimeError(f"aten::fft_{name}(): functions with out=... arguments don't "
                               "support automatic differentiation, but one of the arguments "
                               "requires grad.")
        if dtype is not None and dtype is not out.dtype:
            raise RuntimeError(f"dtype {dtype._legacy} does not match dtype of out parameter "
                               f"({out.dtype._legacy})")
        dtype = out.dtype
    elif dtype is None:
        dtype = _dtype.get_default_dtype()
    if count < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {count}: [{count}]")
    if dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype._legacy}'")
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    steps = np.arange(count, dtype=np.int64)
    if right:  # fftfreq: the second half counts up from -(n // 2)
        steps[(n + 1) // 2:] -= n
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.float64(1.0) / np.float64(n * d)
        # torch multiplies in the tensor's compute type (float for float32, float16 and
        # bfloat16) by the scale rounded to the tensor's dtype first
        compute = np.float64 if dtype is _dtype.float64 else np.float32
        scale = compute(np.asarray(scale).astype(dtype.np))
        values = (steps.astype(compute) * scale).astype(dtype.np)
    if out is not None:
        if out._data.shape != values.shape and out._data.size:
            import warnings

            warnings.warn(
                f"The number of elements in the out tensor of shape {list(out.shape)} is "
                f"{out._data.size} which does not match the computed number of elements "
                f"{values.size}. Note that this may occur as a result of rounding error. The "
                f"out tensor will be resized to a tensor of shape ({values.size},).",
                UserWarning, stacklevel=3)
        _store(out, values, warn=False)
        out._set_requires_grad(requires_grad)
        return out
    return _wrap(values, requires_grad)


@_keywords("fft_fftfreq")
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point fft: [0, 1, ..., -(n // 2), ..., -1] / (d * n)."""
    return _frequencies("fftfreq", n, d, dtype, requires_grad, out, True)


@_keywords("fft_rfftfreq")
def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point rfft: [0, 1, ..., n // 2] / (d * n)."""
    return _frequencies("rfftfreq", n, d, dtype, requires_grad, out, False)


def _c_div(a: int, b: int) -> int:
    """C++'s integer division (rounds toward zero)."""
    return int(math.copysign(abs(int(a)) // b, a))

