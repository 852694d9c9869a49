"""Statistics: var/std (``correction``, legacy ``unbiased``), var_mean/std_mean, and
linalg.vector_norm (the op behind ``torch.norm`` and ``Tensor.norm`` too)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _argparse, _dtype, _warn
from .._dtype import from_numpy_dtype, promote_types
from ..backends import cpu as _cpu
from ..autograd.graph import SavedTensor
from . import _layout, _libm
from .elementwise import _scale
from .reduce import _expand_back, _mean_all
from ._cascade_sum import ORDER_LIMIT, in_memory_order
from .._info import get_num_threads
from .reductions import MultiOutput, all_dims, constant, dims_of, unsqueeze_dims
from . import _batching_rules as batch
from ._float_kernels import magnitude
from .registry import Op, register
from ..tensor import _wrap
from ._masks import zero_mask
from . import _inference_writes as _writes
from .loss import DivScalar
from .linalg_norm import matrix_norm

# -- var / std ------------------------------------------------------------------------------------


_WELFORD_LIMIT = 256  # reduced elements per output (a step costs ~5 us): beyond, two passes


def _welford(a: np.ndarray, dim, correction, keepdim: bool):
    """torch's float64 var/std kernel over ``dim`` (ATen's WelfordOps through
    binary_kernel_reduce; one thread below GRAIN_SIZE elements), or None where it does not
    apply: each output's reduced elements in memory order, ``delta = x - mean;
    mean += delta / n; m2 += delta * (x - mean)`` (no fused multiply-add), then
    ``m2 / max(0, n - correction)``. NumPy's two-pass mean and sum gave
    another last bit on most elements (7 of 10 column variances of a (64, 10) tensor).
    Returns (variance, mean)."""
    if a.dtype != np.float64 or a.size == 0 or a.ndim == 0:
        return None
    dims = tuple(range(a.ndim)) if dim is None else tuple(sorted(d % a.ndim for d in dim))
    count = math.prod(a.shape[d] for d in dims)
    if count > _WELFORD_LIMIT or a.size > _GRAIN_SIZE:
        return None
    kept = [d for d in range(a.ndim) if d not in dims]
    # TensorIterator reads the reduced dims in memory order (sorted by stride, innermost
    # fastest): a transposed tensor's elements in its own order
    ordered = sorted(dims, key=lambda d: -a.strides[d])
    rows = np.transpose(a, kept + ordered).reshape(-1, count)
    mean = np.zeros(rows.shape[0])
    m2 = np.zeros(rows.shape[0])
    with np.errstate(all="ignore"):
        for k in range(count):
            x = rows[:, k]
            delta = x - mean
            mean = mean + delta / float(k + 1)
            m2 = m2 + delta * (x - mean)
        variance = m2 / max(0.0, count - correction)
    shape = tuple(1 if d in dims else n for d, n in enumerate(a.shape) if keepdim
                  or d not in dims)
    mean_shape = tuple(n for d, n in enumerate(a.shape) if d not in dims) if not keepdim \
        else shape
    return variance.reshape(shape), mean.reshape(mean_shape)


def _moments(a: np.ndarray, dim, correction, keepdim: bool, welford: bool = True) -> tuple:
    """(variance, mean) over ``dim`` (None: every dim), dividing by max(0, n - correction);
    float64 by torch's Welford updates where ``welford`` (float32's two passes in double
    already round to torch's values)."""
    found = _welford(a, dim, correction, keepdim) if welford else None
    if found is not None:
        return found
    count = a.size if dim is None else math.prod(a.shape[d] for d in dim)
    dof = max(0, count - correction)
    # complex input: the variance of |x - mean|, a real tensor (torch: float for cfloat)
    spread_dtype = a.real.dtype if a.dtype.kind == "c" else a.dtype
    result_dtype = a.dtype
    if a.dtype.kind == "f" and a.dtype.itemsize < 8:
        # torch's CPU kernels (WelfordOps, std_var_all_cpu) accumulate float16/float32 in
        # double and round once at the end: so do these moments (in float32 they matched
        # torch's var on 15-60% of elements; in double, every one tried)
        a = a.astype(np.float64)

    def squares(deviation):
        if deviation.dtype.kind == "c":
            return deviation.real * deviation.real + deviation.imag * deviation.imag
        return deviation * deviation

    if count and dof > 0:
        mean = a.mean(axis=dim, keepdims=True)
        deviation = a - mean
        variance = np.sum(squares(deviation), axis=dim, keepdims=keepdim) / dof
    else:  # 0 dof: inf (or nan for 0/0), silently, as torch
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.sum(a, axis=dim, keepdims=True) / count
            deviation = a - mean
            variance = np.sum(squares(deviation), axis=dim, keepdims=keepdim) / dof
        if not count:  # nothing to reduce: torch's Welford result is a positive NaN (0/0 on
            # x86 is the negative one NumPy gives)
            variance = np.full(np.shape(variance), np.nan, np.asarray(variance).dtype)
            mean = np.full(np.shape(mean), complex(np.nan, np.nan) if a.dtype.kind == "c"
                           else np.nan, np.asarray(mean).dtype)
    if not keepdim:
        mean = mean.reshape(()) if dim is None else mean.squeeze(dim)
    if result_dtype == np.float16:  # torch computes half's moments in float, then rounds
        variance, mean = (np.asarray(variance, dtype=np.float32),
                          np.asarray(mean, dtype=np.float32))
    return (_layout.contiguous(np.asarray(variance, dtype=spread_dtype)),
            _layout.contiguous(np.asarray(mean, dtype=result_dtype)))


_GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE


def _all_reduce_spread(a: np.ndarray, dim, correction, keepdim: bool, take_sqrt: bool):
    """torch's var/std when the result has one element (ATen's std_var_all_cpu), else None:
    the mean of the float32/float64 tensor in its own dtype (its mean kernel's bits), read as
    a double; the squared double deviations added one by one in memory order (at::
    parallel_reduce: a chunk per thread past GRAIN_SIZE elements, the chunks' sums then added
    in order); the quotient (and square root) in double, rounded once. The general kernel's
    double mean and pairwise sums differed in the last bit where the values are close
    together (a BatchNorm gain's std in makemore's part 3: 3 float32 ulps after log10)."""
    if a.dtype not in (np.float32, np.float64) or a.size == 0:
        return None
    kept = [n for i, n in enumerate(a.shape) if dim is not None and i not in dim]
    if math.prod(kept) != 1 or (a.size > ORDER_LIMIT and not _cpu.torch_bits):
        return None
    with np.errstate(all="ignore"):
        mean = float(_mean_all(a))
        flat = in_memory_order(a)
        if flat.ndim != 1:  # (not dense in any order: NumPy's row-major one)
            flat = flat.reshape(-1)
        squares = flat.astype(np.float64) - mean
        squares *= squares
        threads = min(get_num_threads(), -(-a.size // _GRAIN_SIZE))
        chunk = -(-a.size // threads)
        total = 0.0
        for start in range(0, a.size, chunk):
            total += float(np.add.accumulate(squares[start:start + chunk])[-1])
        spread = np.float64(total) / np.float64(max(0.0, a.size - correction))
        if take_sqrt:
            spread = np.sqrt(spread)
    if dim is None:
        shape = (1,) * a.ndim if keepdim else ()
    else:
        shape = tuple(1 if i in dim else n for i, n in enumerate(a.shape) if keepdim
                      or i not in dim)
    return np.full(shape, spread, dtype=a.dtype)


def _std_of(a: np.ndarray, dim, correction, keepdim: bool) -> tuple:
    """(std, mean): torch takes float16/float32's square root in double too (WelfordOps'
    take_sqrt) before rounding once."""
    if a.dtype.kind == "f" and a.dtype.itemsize < 8:
        variance, mean = _moments(a.astype(np.float64), dim, correction, keepdim, False)
        spread = np.asarray(np.sqrt(variance), dtype=np.float32)  # half: via float, as torch
        return (_layout.contiguous(spread.astype(a.dtype)),
                _layout.contiguous(np.asarray(mean, dtype=np.float32).astype(a.dtype)))
    variance, mean = _moments(a, dim, correction, keepdim)
    return np.sqrt(variance), mean


def _var_backward(grad, a, dim, correction, keepdim: bool, empty: bool = False):
    """torch's var_backward: 2 / (n - correction) * grad * (a - mean).

    ``empty``: dim=() or [] was given. torch's forward reduces every dim then, but its backward
    takes the list as given: n is the size of no dims, 1 (so 2 / (1 - 1) = inf by default),
    and the mean is a.mean((), keepdim=True)."""
    if empty and a.ndim:
        dof = 1 - correction
        factor = 2.0 / dof if dof != 0 else math.inf
        return _scale(grad, factor) * (a - a.mean((), keepdim=True))
    if a.ndim == 0 or dim is None:
        dof = a.numel() - correction
        if dof <= 0:
            # 2 / 0 is inf; times (a - mean) it is nan where a == mean, inf elsewhere.
            # (torch's where of two Python numbers is in the default dtype: times a 0-d
            # float64 grad that stays float32, and the engine casts it back, ToCopyBackward0)
            data = a._data
            spread = np.where(data == data.mean(), np.nan, np.inf)
            return grad * _wrap(spread.astype(_dtype.get_default_dtype().np))
        return _scale(grad, 2.0 / dof) * (a - a.mean())
    if not keepdim and a.ndim > 1:  # (torch unsqueezes only then; a 0-d grad broadcasts)
        grad = unsqueeze_dims(grad, dim)
    dof = math.prod(a.shape[d] for d in dim) - correction
    factor = 2.0 / dof if dof != 0 else math.inf
    # torch's C++ formula multiplies by a Scalar first (MulBackward1: generated-program seed
    # 38424, whose second derivative recorded MulBackward0 here)
    return _scale(grad, factor) * (a - a.mean(dim, keepdim=True))


def _std_grad_to_var_grad(grad, std):
    """d std = d var / (2 std); torch masks the 0/0 where std == 0 to 0."""
    return (grad / _scale(std, 2))._masked_zero(zero_mask(std))  # (C++: a Scalar product)


def _var_jvp(params: dict, a, tangent):
    """torch: var_backward(self_t, self_p, dim, correction, keepdim=True).sum(dim, keepdim)."""
    dim = params["dim"]
    spread = _var_backward(tangent, a, dim, params["correction"], True)
    return spread.sum(all_dims(dim, a.ndim), keepdim=params["keepdim"])


def _std_jvp(var_tangent, std):
    return (var_tangent / (std * 2))._masked_zero(zero_mask(std))


def _mean_backward(grad, shape: tuple, dim, keepdim: bool):
    dims = all_dims(dim, len(shape))
    count = math.prod(shape[d] for d in dims)

    # (no dims named, None or (): torch's sum_backward expands the gradient as it is)
    return DivScalar.apply(_expand_back(grad, shape, dims, keepdim, dim is None), other=count)


@register
class Var(Op):
    complex_ok = True  # a real spread of complex input, torch's var_backward
    node = "VarBackward0"
    inference_writes = staticmethod(_writes.over_every_dim)
    vmap = batch.dims("dim", all_dims=True)
    saves = {"self": ("self",)}
    torch_names = ("var",)

    @staticmethod
    def forward(ctx, a, dim, correction, keepdim=False, empty=False):
        spread = _all_reduce_spread(a, dim, correction, keepdim, False)
        return _moments(a, dim, correction, keepdim)[0] if spread is None else spread

    def backward(self, grad):
        p = self._params
        return _var_backward(grad, self.saved("self"), p["dim"], p["correction"], p["keepdim"],
                             p.get("empty", False))

    def jvp(self, tangents, primals, result):
        # torch: var_backward(self_t, self_p, dim, correction, keepdim=True).sum(dim, keepdim)
        return _var_jvp(self._params, primals[0], tangents[0])


@register
class Std(Op):
    complex_ok = True  # a real spread of complex input, torch's var_backward
    node = "StdBackward0"
    inference_writes = staticmethod(_writes.over_every_dim)
    vmap = batch.dims("dim", all_dims=True)
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("std",)

    @staticmethod
    def forward(ctx, a, dim, correction, keepdim=False, empty=False):
        spread = _all_reduce_spread(a, dim, correction, keepdim, True)
        return _std_of(a, dim, correction, keepdim)[0] if spread is None else spread

    def backward(self, grad):
        p = self._params
        grad_var = _std_grad_to_var_grad(grad, self.saved("result"))
        return _var_backward(grad_var, self.saved("self"), p["dim"], p["correction"],
                             p["keepdim"], p.get("empty", False))

    def jvp(self, tangents, primals, result):
        # torch: (var_jvp / (2 * result)).masked_fill_(result == 0, 0)
        return _std_jvp(_var_jvp(self._params, primals[0], tangents[0]), result)


class _Moments(MultiOutput):
    """var_mean / std_mean: two outputs from one node."""

    saves = {"self": ("self",)}
    with_std = False

    @staticmethod
    def forward(ctx, a, dim, correction, keepdim=False, empty=False):
        return _moments(a, dim, correction, keepdim)

    @classmethod
    def _wrap_outputs(cls, arrays, args, node):
        # Note: Op._record hands multi-output results back before it applies ``saves``, so
        # these ops save their input (and std_mean its std output) themselves.
        outputs = super()._wrap_outputs(arrays, args, node)
        if node._next_nodes[0] is not None:
            node._saved["self"] = SavedTensor(args[0])
            if cls.with_std:
                node._saved["result0"] = SavedTensor(outputs[0], True)
        return outputs

    def backward(self, grads):
        p = self._params
        grad_spread, grad_mean = grads[0], grads[1] if len(grads) > 1 else None
        result = None
        if grad_spread is not None:
            if self.with_std:
                grad_spread = _std_grad_to_var_grad(grad_spread, self.saved("result0"))
            result = _var_backward(grad_spread, self.saved("self"), p["dim"], p["correction"],
                                   p["keepdim"], p.get("empty", False))
        if grad_mean is not None:
            part = _mean_backward(grad_mean, self.input_shape(), p["dim"], p["keepdim"])
            result = part if result is None else result + part
        return result

    def jvp(self, tangents, primals, result):
        p = self._params
        spread = _var_jvp(p, primals[0], tangents[0])
        if self.with_std:
            spread = _std_jvp(spread, result[0])
        dims = all_dims(p["dim"], primals[0].ndim)
        return spread, tangents[0].mean(dims, keepdim=p["keepdim"])


@register
class VarMean(_Moments):
    complex_ok = True  # a real spread of complex input, torch's var_backward
    node = "VarMeanBackward0"
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("var_mean",)


@register
class StdMean(_Moments):
    complex_ok = True  # a real spread of complex input, torch's var_backward
    node = "StdMeanBackward0"
    vmap = batch.dims("dim", all_dims=True)
    torch_names = ("std_mean",)
    with_std = True

    @staticmethod
    def forward(ctx, a, dim, correction, keepdim=False, empty=False):
        return _std_of(a, dim, correction, keepdim)


_UNBIASED = _argparse.NOT_GIVEN  # (an explicit None is torch's error: ``bool unbiased``)


def _spread_args(name: str, tensor, dim, unbiased, keepdim, correction) -> dict:
    """Parse torch's var/std overloads: (dim, unbiased, keepdim), (unbiased), (dim, *,
    correction, keepdim); check the dtype; warn as torch when no degree of freedom is left."""
    if keepdim.__class__ is not bool:
        keepdim = _argparse.keepdim(name, keepdim)
    if isinstance(dim, bool):  # var(False): the legacy ``unbiased`` overload
        dim, unbiased = None, dim
    if unbiased is _argparse.NOT_GIVEN:
        unbiased = None
    elif unbiased.__class__ is not bool:  # (None too: torch's ``bool unbiased``; the public
        # functions and methods turn this error into torch's for the call as given, @parsed)
        _argparse.bool_arg(name, "unbiased", unbiased, overloads=((tensor,) + _argparse.given(
            dim), {"unbiased": unbiased}))
    if correction is not None and correction.__class__ is not int and \
            correction.__class__ is not float:  # (a Scalar: a double in the kernel)
        correction = _argparse.number(name, "correction", correction, overloads=(
            (tensor,) + _argparse.given(dim), {"correction": correction}))
        correction = _argparse.real_scalar(correction, _dtype.float64, _argparse.DOUBLE_T)
    if unbiased is not None and correction is not None:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got both 'unbiased' and "
            "'correction', but expected one of:"
        )
    data = tensor._data
    if data.dtype.kind not in "fc" and not _dtype.is_bfloat16_array(data):
        what = "std and var" if name in ("var", "std") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    # dim=() and dim=[] reduce every dim (torch's forward does; its backward then returns inf)
    dims = dims_of(dim, tensor.ndim) or None
    out_numel = 1 if dims is None else math.prod(
        size for d, size in enumerate(data.shape) if d not in dims
    )
    if data.size // max(out_numel, 1) - correction <= 0:
        # (complex input: torch reduces the real and imaginary parts apart, warning for each)
        for _ in range(2 if data.dtype.kind == "c" else 1):
            _warn.warn(
                f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                "than the reduction factor (input numel divided by output numel).")
    args = {"dim": dims, "correction": correction, "keepdim": keepdim}
    if dims is None and dim is not None and tensor.ndim:
        args["empty"] = True  # (dim=() or []: see _var_backward)
    return args


def var(tensor, dim=None, unbiased=_UNBIASED, keepdim=False, *, correction=None):
    return Var.apply(tensor, **_spread_args("var", tensor, dim, unbiased, keepdim, correction))


def std(tensor, dim=None, unbiased=_UNBIASED, keepdim=False, *, correction=None):
    return Std.apply(tensor, **_spread_args("std", tensor, dim, unbiased, keepdim, correction))


def var_mean(tensor, dim=None, unbiased=_UNBIASED, keepdim=False, *, correction=None):
    args = _spread_args("var_mean", tensor, dim, unbiased, keepdim, correction)
    return VarMean.apply(tensor, **args)


def std_mean(tensor, dim=None, unbiased=_UNBIASED, keepdim=False, *, correction=None):
    args = _spread_args("std_mean", tensor, dim, unbiased, keepdim, correction)
    return StdMean.apply(tensor, **args)


# -- norms ----------------------------------------------------------------------------------------


_VECTOR_BYTES = 32
_LANE_ORDER_LIMIT = 1 << 16  # elements; above it, torch's order only with backends.cpu.torch_bits


def _two_norm_lastdim(x: np.ndarray, dim, keepdim: bool):
    """torch's 2-norm over the last dims of a contiguous real float32/float64 tensor
    (ReduceOpsKernel's vectorised last-dim path, row by row): squares summed lane by lane over
    full 32-byte vectors, the lanes added in order, then the elements after the last full
    vector one by one. The compiled tail loop handles four float32 elements at a time as
    squares added in order and each element after those (and every float64 tail element) as a
    fused multiply-add, ``fma(v, v, acc)``, emulated in :func:`_fma_square`. Measured: torch's
    bits on every row of 400 random rows of each length 1 to 79 (float32), against 72 to 100%
    for NumPy's pairwise sum. None for other cases (NumPy's sum, in order over an outer dim as
    torch's generic reduction is): not the last dims, not contiguous, and more than
    ``_LANE_ORDER_LIMIT`` elements unless ``backends.cpu.torch_bits`` asks for torch's bits at
    any cost: NumPy adds eight-wide lanes in order at about 3 ns an element against 0.2 for its
    pairwise sum (clip_grad_norm_ of a 235k-parameter MLP took 3.4x as long)."""
    if x.dtype not in (np.float32, np.float64) or not x.size:
        return None
    if x.size > _LANE_ORDER_LIMIT and not _cpu.torch_bits:
        return None
    ndim = x.ndim
    dims = sorted({d % ndim for d in ((dim,) if isinstance(dim, int) else dim)}) \
        if dim is not None and ndim else list(range(ndim))
    # torch's is_reduce_lastdim: the reduced dims coalesce into one whose elements are
    # adjacent in memory (TensorIterator puts reduced dims innermost); the kept dims may have
    # any strides (a column-major matrix reduced over dim 0, rows of a column slice)
    if not _reduced_dims_adjacent(x, dims):
        return None
    n = math.prod(x.shape[d] for d in dims)
    kept = [d for d in range(ndim) if d not in dims]
    in_memory = sorted(dims, key=lambda d: -x.strides[d])
    rows = x.transpose(kept + in_memory).reshape(-1, n)
    lanes = _VECTOR_BYTES // x.dtype.itemsize
    body = n - n % lanes
    if body:
        # (NumPy reduces over a dim that is not the innermost strictly in order)
        head = rows[:, :body].reshape(len(rows), -1, lanes)
        lane_sums = np.add.reduce(head * head, axis=1)
        total = np.add.accumulate(lane_sums, axis=1)[:, -1]
    else:
        total = np.zeros(len(rows), x.dtype)
    unfused = body + (n - body) // 4 * 4 if x.dtype == np.float32 else body
    if unfused > body:
        squares = rows[:, body:unfused] * rows[:, body:unfused]
        total = np.add.accumulate(np.concatenate([total[:, None], squares], axis=1),
                                  axis=1)[:, -1]
    for column in range(unfused, n):
        total = _fma_square(rows[:, column], total)
    out = np.sqrt(total).reshape(tuple(x.shape[d] for d in kept))
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else size for d, size in enumerate(x.shape)))
    return out


def _reduced_dims_adjacent(x: np.ndarray, dims) -> bool:
    """Whether the reduced ``dims`` (those of more than one element) are one dense block with
    unit stride: every element of a reduction next to the previous one in memory."""
    wide = sorted((d for d in dims if x.shape[d] != 1), key=lambda d: -x.strides[d])
    if not wide:  # (nothing to add: the generic path's square root of the square)
        return False
    step = x.itemsize
    for d in reversed(wide):
        if x.strides[d] != step:
            return False
        step *= x.shape[d]
    return True


def _fma_square(v: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """``v * v + acc`` rounded once (a fused multiply-add). float32: exact in float64, then
    rounded. float64: the square's rounding error found exactly (Dekker's split) and the sum's
    (Knuth's two-sum), added back before the one rounding that remains."""
    if v.dtype == np.float32:
        wide = v.astype(np.float64)
        return (wide * wide + acc).astype(np.float32)
    with np.errstate(all="ignore"):
        square = v * v
        split = v * 134217729.0  # 2**27 + 1
        high = split - (split - v)
        low = v - high
        square_error = ((high * high - square) + 2 * high * low) + low * low
        total = square + acc
        virtual = total - square
        sum_error = (square - (total - virtual)) + (acc - virtual)
        fused = total + (sum_error + square_error)
    # infinities and NaNs make the error terms NaN: the plain sum is the fused one there
    return np.where(np.isfinite(fused), fused, total)


def _in_memory_rows(x: np.ndarray, dims: tuple, kind) -> np.ndarray:
    """``x`` in the accumulation dtype ``kind`` with its reduced ``dims`` moved last and merged,
    in memory order (TensorIterator sorts dims by stride): (kept dims..., reduced count)."""
    kept = [d for d in range(x.ndim) if d not in dims]
    in_memory_order = sorted(dims, key=lambda d: -abs(x.strides[d]))
    count = math.prod(x.shape[d] for d in dims)
    return np.transpose(x.astype(kind, copy=False), kept + in_memory_order).reshape(
        tuple(x.shape[d] for d in kept) + (count,))


def _in_order_sum(x: np.ndarray, dim, keepdim: bool, square: bool) -> np.ndarray:
    """binary_kernel_reduce's sum for a norm: ``acc + v`` from 0, one element after another in
    memory order over the reduced dims, in opmath (float for float32 and below, double for
    float64), ``v`` being ``x`` or its rounded square; shaped as the norm's result. Above
    torch's grain size (32,768 elements into one result) with more threads torch splits the
    sum; that order is not reproduced."""
    kind = np.float64 if x.dtype == np.float64 else np.float32
    ndim = x.ndim
    dims = tuple(range(ndim)) if dim is None else tuple(sorted(d % ndim for d in dim))
    rows = _in_memory_rows(x, dims, kind)
    if square:
        rows = rows * rows
    if rows.shape[-1] == 0:
        total = np.zeros(rows.shape[:-1], kind)
    else:
        total = np.add.accumulate(rows, axis=-1)[..., -1] + kind(0)
    if keepdim:
        total = total.reshape(tuple(1 if d in dims else size for d, size in enumerate(x.shape)))
    return total


def _one_norm(x: np.ndarray, dim, keepdim: bool) -> np.ndarray:
    """torch's 1-norm (NormOneOps through binary_kernel_reduce): the in-order sum of ``|x|``
    (``x`` here). NumPy's pairwise sum was a last bit off on ~70% of float32 1-norms
    (``clip_grad_norm_(norm_type=1)`` then scaled every gradient by another factor)."""
    return _in_order_sum(x, dim, keepdim, square=False).astype(x.dtype, copy=False)


def _two_norm_in_order(x: np.ndarray, dim, keepdim: bool):
    """torch's generic 2-norm (NormTwoOps through binary_kernel_reduce: every case but the
    vectorised last-dim one of float32/float64, float16 always): the in-order sum of the
    rounded squares, then the square root. NumPy's pairwise sum over inner axes gave another
    last bit (a norm over dims (0, 2), a float16 row norm). None for a real dtype it does not
    cover."""
    if x.dtype.kind != "f" and not _dtype.is_bfloat16_array(x):
        return None
    return np.sqrt(_in_order_sum(x, dim, keepdim, square=True)).astype(x.dtype, copy=False)


def _p_norm(x: np.ndarray, ord: float, dim, keepdim: bool) -> np.ndarray:  # noqa: A002
    """torch's NormOps for an order other than 0, 1, 2 and +-inf (ReduceOpsKernel's
    binary_kernel_reduce): ``pow(|x|, p)`` in the accumulation type (float for float32 and
    below, double for float64), added one element after another in index order over the
    reduced dims, then ``pow(sum, 1 / p)`` with ``1 / p`` computed in that type too. NumPy's
    pairwise sum and a double ``1 / p`` differ in the last bits (the 3-norm of (0, 3, 0) was
    3.0000002). The in-order sum costs little next to the powers (see test_left2_findings).
    Above torch's grain size (32,768 elements into one result) torch splits the sum over its
    threads; that order is not reproduced. Over reduced dims of one element torch's result
    is ``|x|`` itself (the reduction is a copy)."""
    kind = np.float64 if x.dtype == np.float64 else np.float32
    order = kind(ord)
    ndim = x.ndim
    dims = tuple(range(ndim)) if dim is None else tuple(sorted(d % ndim for d in dim))
    count = math.prod(x.shape[d] for d in dims)
    if count == 1:
        out = x if keepdim else x.reshape(tuple(n for d, n in enumerate(x.shape) if d not in dims))
        return out.copy()
    powered = _libm.power(x.astype(kind, copy=False), order)  # glibc's pow/powf (ops/_libm.py)
    kept = [d for d in range(ndim) if d not in dims]
    # the reduced elements are visited in memory order (TensorIterator sorts dims by stride)
    in_memory_order = sorted(dims, key=lambda d: -abs(x.strides[d]))
    rows = np.transpose(powered, kept + in_memory_order).reshape(
        tuple(powered.shape[d] for d in kept) + (count,))
    if rows.shape[-1] == 0:
        total = np.zeros(rows.shape[:-1], kind)
    elif rows.shape[-1] == 1:
        total = rows[..., 0]
    else:
        total = np.add.accumulate(rows, axis=-1)[..., -1]
    out = _libm.power(total, kind(1) / order)
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else size for d, size in enumerate(x.shape)))
    return out.astype(x.dtype, copy=False)


@register
class LinalgVectorNorm(Op):
    node = "LinalgVectorNormBackward0"
    vmap = batch.dims("dim", all_dims=True)
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("linalg.vector_norm", "linalg.norm", "norm", "Tensor.norm")

    @staticmethod
    def forward(ctx, a, ord=2.0, dim=None, keepdim=False, dtype=None):  # noqa: A002
        if dtype is not None:
            a = a.astype(dtype.np)
        # |z| as Abs computes it (the backward compares with it); a real 2-norm squares the
        # values themselves (the same squares, one pass less)
        x = a if ord == 2 and a.dtype.kind == "f" else magnitude(a)
        if ord == math.inf:
            out = np.amax(x, axis=dim, keepdims=keepdim)
        elif ord == -math.inf:
            out = np.amin(x, axis=dim, keepdims=keepdim)
        elif ord == 0:
            out = np.sum(x != 0, axis=dim, keepdims=keepdim)
        elif ord == 1:
            out = _one_norm(x, dim, keepdim)
        elif ord == 2:
            # (with dtype= torch casts first: the same kernels on the cast values)
            out = _two_norm_lastdim(x, dim, keepdim)
            if out is None and (x.size <= _LANE_ORDER_LIMIT or _cpu.torch_bits):
                out = _two_norm_in_order(x, dim, keepdim)
            if out is None:
                out = np.sqrt(np.sum(x * x, axis=dim, keepdims=keepdim))
        else:
            out = _p_norm(x, ord, dim, keepdim)
        # the norm of complex entries is real, of their precision (dist, frobenius_norm)
        return _layout.contiguous(np.asarray(out, dtype=a.real.dtype))

    def backward(self, grad):
        p = self._params
        return _norm_backward(grad, self.saved("self"), p["ord"], self.saved("result"),
                              p["dim"], p["keepdim"])

    def jvp(self, tangents, primals, result):
        p = self._params
        return _norm_jvp(primals[0], tangents[0], p["ord"], result, p["dim"], p["keepdim"])


def _norm_backward(grad, a, ord: float, norm, dim, keepdim: bool):  # noqa: A002
    """torch's norm_backward, case by case (each masks the 0/0 its formula would make)."""
    if not keepdim and a.ndim != 0 and dim is not None:
        grad, norm = unsqueeze_dims(grad, dim), unsqueeze_dims(norm, dim)
    sign = a.sgn  # torch's norm_backward takes self.sgn() (SgnBackward0), real input too
    if ord == 0:
        return None  # torch returns no gradient: the count of non-zeros is piecewise constant
    if ord == 1:
        return sign() * grad
    zero_norm = zero_mask(norm)
    if ord == 2:
        return grad * (a / norm)._masked_zero(zero_norm)
    if math.isinf(ord):
        modulus = magnitude(a._data)
        mask = (modulus == norm._data) | np.isnan(modulus)
        count = mask.sum(axis=dim, keepdims=True)
        return sign() * ((grad / constant(count, grad)) * constant(mask, grad))
    if ord < 1:
        scaled = sign() * a.abs().pow(ord - 1)._masked_zero(zero_mask(a))
        return scaled * grad * norm.pow(1 - ord)
    if ord < 2:
        scaled = sign() * a.abs().pow(ord - 1)
    else:
        scaled = a * a.abs().pow(ord - 2)
    return scaled * (grad / norm.pow(ord - 1))._masked_zero(zero_norm)


def _norm_jvp(a, tangent, ord: float, norm, dim, keepdim: bool):  # noqa: A002
    """torch's linalg_vector_norm_jvp (norm_jvp), case by case."""
    dims = all_dims(dim, a.ndim)
    zero_norm = zero_mask(norm)
    if ord == 0:
        return norm * 0
    if ord == 1:
        return (a.sign() * tangent).sum(dims, keepdim=keepdim)
    if ord == 2:
        return ((a * tangent).sum(dims, keepdim=keepdim) / norm)._masked_zero(zero_norm)
    if math.isinf(ord):
        full = norm if keepdim or a.ndim == 0 else unsqueeze_dims(norm, dims)
        mask = (magnitude(a._data) == full._data) | (np.isnan(a._data) & np.isnan(full._data))
        count = mask.sum(axis=dims, keepdims=True)
        share = constant(mask, tangent) / constant(count, tangent)
        return (a.sign() * tangent * share).sum(dims, keepdim=keepdim)
    if ord < 1:
        scaled = a.abs().pow(ord - 1)._masked_zero(zero_mask(a)) * a.sign() * tangent
        return scaled.sum(dims, keepdim=keepdim) * norm.pow(1 - ord)
    if ord < 2:
        scaled = a.abs().pow(ord - 1) * a.sign() * tangent
    else:
        scaled = a.abs().pow(ord - 2) * a * tangent
    return (scaled.sum(dims, keepdim=keepdim) / norm.pow(ord - 1))._masked_zero(zero_norm)


def check_norm_dtype(name: str, data, dtype) -> None:
    """torch's checks of a norm's ``dtype=`` against its (floating or complex) input."""
    if dtype is None:
        return
    if data.dtype.kind == "c":
        if not dtype.is_complex:
            raise RuntimeError(f"{name}: dtype should be complex for complex inputs, but got "
                               f"{dtype._legacy}")
        return
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{dtype._legacy}")
    if dtype.is_complex:
        raise RuntimeError(f"{name}: dtype should be real for real inputs, but got "
                           f"{dtype._legacy}")
    given = _dtype.from_numpy_dtype(data.dtype)
    if _dtype.promote_types(given, dtype) is not dtype:
        raise RuntimeError(
            f"{name}: the dtype of the input ({given._legacy}) should be convertible without "
            f"narrowing to the specified dtype ({dtype._legacy})"
        )


def vector_norm(tensor, ord=2, dim=None, keepdim=False, dtype=None):  # noqa: A002
    """``torch.linalg.vector_norm``: the ord-norm of the entries over ``dim`` (all if None).

    >>> import leafgrad as torch
    >>> torch.linalg.vector_norm(torch.tensor([3., -4.]), 1)
    tensor(7.)
    """
    if ord.__class__ is not float and ord.__class__ is not int:
        ord = _argparse.number("linalg_vector_norm", "ord", ord, 2)  # noqa: A001
        if ord.__class__ is complex:
            raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order "
                               "of norm.")
        ord = int(ord) if ord.__class__ is bool else ord  # noqa: A001
    if dtype is not None:
        dtype = _argparse.dtype_arg("linalg_vector_norm", dtype)
    data = tensor._data
    if data.dtype.kind == "c":
        # the norm of the moduli, in the real dtype: abs's gradient sgn(z) carries torch's
        # complex convention
        check_norm_dtype("linalg.vector_norm", data, dtype)
        real_dtype = None if dtype is None else dtype.to_real()
        return vector_norm(tensor.abs(), ord, dim, keepdim, real_dtype)
    if data.dtype.kind != "f" and not _dtype.is_bfloat16_array(data):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{from_numpy_dtype(data.dtype)._legacy}"
        )
    check_norm_dtype("linalg.vector_norm", data, dtype)
    if isinstance(dim, bool):
        raise TypeError(
            "linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, but found "
            "element of type bool at pos 0"
        )
    dims = dims_of(dim, tensor.ndim) or None
    ord = float(ord)  # noqa: A001
    if (ord < 0 or math.isinf(ord)) and data.size == 0:  # min and max have no identity
        if dims is None:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because "
                "the operation does not have an identity"
            )
        given = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        for shown in given:  # (dims_of checked them; torch names one as it was given: -1)
            if data.shape[shown] == 0:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {ord:g} norm on the dimension {shown}"
                    "because this dimension is empty and the operation does not have an identity"
                )
    return LinalgVectorNorm.apply(tensor, ord=ord, dim=dims, keepdim=keepdim, dtype=dtype)


# -- torch.norm -----------------------------------------------------------------------------------


def tensor_norm(tensor, p="fro", dim=None, keepdim=False, dtype=None):
    """``torch.norm`` / ``Tensor.norm``: torch sends vector norms (and 'fro' over at most two
    dims) to linalg.vector_norm, and the other string norms to linalg.matrix_norm."""
    if dim.__class__ is int:
        dim = (dim,)
    elif dim is not None and dim.__class__ is not tuple:  # torch's Python norm passes it to
        # linalg_vector_norm (or matrix_norm) positionally: that parser's error
        name = "linalg_vector_norm" if not isinstance(p, str) or p == "fro" else \
            "linalg_matrix_norm"
        if p == "fro" and not isinstance(dim, int):
            len(dim)  # (torch's Python asks the length first: its TypeError for a number)
        if dim.__class__ is bool:
            raise TypeError(f"{name}(): argument 'dim' (position 3) must be tuple of ints, but "
                            "found element of type bool at pos 0")
        if _argparse._is_tensor(dim) and dim.numel() != 1:
            raise TypeError(f"{name}(): argument 'dim' (position 3) must be tuple of ints, not "
                            "Tensor")
        dim = _argparse.int_list(name, "dim", dim, 3)
    matrix = isinstance(p, str) and not (p == "fro" and (dim is None or len(dim) <= 2))
    if keepdim.__class__ is not bool:  # (torch's Python norm passes it positionally to linalg)
        if matrix:  # (two overloads: the call listed, its dims a list when not given)
            raise _argparse.invalid_combination("linalg_matrix_norm", (
                tensor, p, list(range(tensor.ndim)) if dim is None else dim, keepdim),
                {"dtype": dtype})
        _argparse.bool_arg("linalg_vector_norm", "keepdim", keepdim, 4)
    if isinstance(p, str):
        if not matrix:
            return vector_norm(tensor, 2, dim, keepdim, dtype=dtype)
        dims = tuple(range(tensor.ndim)) if dim is None else dim

        return matrix_norm(tensor, p, dims, keepdim, dtype=dtype)
    return vector_norm(tensor, 2.0 if p is None else p, dim, keepdim, dtype=dtype)
