"""Training-mode batch norm (float32, float64) with the bits of torch 2.13's CPU kernels.

What ATen computes (Normalization.cpp, native/cpu/batch_norm_kernel.cpp; measured against torch
2.13 on an AVX-512 machine, tests/test_fuzz11_findings.py), and what this module replays with
NumPy over all channels at once. The kernels are registered with REGISTER_DISPATCH, so an AVX-512
machine runs their AVX2 build: 8 float32 or 4 float64 lanes. ``N`` is the count per channel.

- **Statistics** (``save_mean``, ``save_invstd``). An input contiguous row-major with more than
  one element per (sample, channel): per channel, a double sum of the elements in memory order,
  ``mean = (float)(sum / N)``; a double sum of the rounded ``(x - mean) * (x - mean)``, rounded
  to the dtype (``var_sum``). Channels-last, or one element per (sample, channel): the rows of C
  channels are split among torch's threads (at::parallel_for over N rows, grain 1: ceil(N / T)
  consecutive rows each) when there are more rows than threads, each thread adding its rows lane
  by lane into its own buffer of the dtype (``buffer + x``, then ``fma(x - mean, x - mean,
  buffer)``), the buffers then summed in double; with no more rows than threads, the double
  sums of the first case. Any other layout: ``at::mean`` (leafgrad's mean), then a double sum
  of ``(x - (double)mean)^2`` in memory order. ``invstd = 1 / sqrt(var_sum / N + eps)``, the
  quotient in the dtype, the rest in double.
- **Output**: every operand contiguous (row-major or channels-last): ``fma(x, alpha, beta)``
  with ``alpha = invstd * w`` and ``beta = fma(-mean, alpha, b)`` (the compiler contracts
  ``x * alpha + beta``): a zero weight gives +0. everywhere. Otherwise
  ``((x - mean) * invstd) * w + b`` (``w = 1``, ``b = 0`` when absent).
- **Backward**, input and gradient both contiguous row-major with more than one element per
  (sample, channel): per (sample, channel) row, ``vec::reduce_all`` of ``dy`` and
  ``vec::map2_reduce_all`` of ``(x - mean) * dy`` (lane accumulators, the products rounded in
  full vectors and fused into the lanes in the partial last one, the lanes folded as a tree for
  float32 and in order for float64; a row shorter than a vector summed in order), the rows'
  results added in double over the samples (``sum``, ``dotp``). ``k = (float)dotp * invstd *
  invstd / N``, ``grad_mean = (float)(sum / N)``, ``dx = fma(-(x - mean), k, dy - grad_mean) *
  invstd * w``, ``dw = dotp * invstd``, ``db = sum``. Both channels-last (or one element per
  sample and channel): per-thread buffers of the dtype, ``sum + dy`` and ``fma(x - mean, dy,
  dotp)`` row by row, summed in double over the buffers and rounded; then ``dx = (dy - sum / N
  - (x - mean) * k) * invstd * w`` unfused. Any other layout (a gradient that is an expanded
  scalar, as ``y.sum().backward()`` gives): ``sum = at::sum(dy)`` (leafgrad's sum), ``dotp``
  a double sum of the rounded ``(x - mean) * dy`` in memory order, ``dx = (dy - sum / N - (x -
  mean) * k) * invstd * w``.

Double sums of float32 values (and of their rounded products) are exact in any order unless
the values spread over 2 ** 29 in magnitude, so those take NumPy's order without copies. The
per-thread buffers take one NumPy call per row of a thread's share (the float32 products all
computed in double first); past ``_BUFFER_ROWS`` rows per thread (and without
``backends.cpu.torch_bits``) their sums are taken in double instead (other last bits, the same
formula: at a batch of 128, a third of BatchNorm1d's outputs). The exact buffers and the running
statistics from the same moments (nn/_functional_batchnorm.py) cost BatchNorm1d's training
step 2-3x at 128 rows per thread: (128, 64) forward and backward with the running update
257 -> 790 us on one thread, 257 -> 518 us on two; (32, 64) 333 -> 281 us. Not replayed: at::sum and at::mean of a strided tensor
(leafgrad's own sums: the last bits of a strided input's statistics, and of the gradient of an
expanded ``dy`` other than all ones), and a float64 ``var_sum`` one ulp off torch's for about
one input in ten (its order not found). Measured (BatchNorm1d/2d forward and backward, one
thread, float32): (64, 32) 320 -> 210 us, (32, 16, 16, 16) 1050 -> 790 us against the formula.
"""

from __future__ import annotations

import numpy as np

from . import _float_kernels
from .reduce import _mean_dims, _sum_dims

_F32 = np.float32
_F64 = np.float64
_BUFFER_ROWS = 128


def _lanes(dtype) -> int:
    return 8 if dtype == _F32 else 4  # 32-byte vectors (the AVX2 build)


def supported(x: np.ndarray) -> bool:
    return x.dtype in (_F32, _F64) and x.ndim >= 2 and x.size > 0 and type(x) is np.ndarray


def _channels_last(a: np.ndarray) -> bool:
    return a.ndim in (4, 5) and not a.flags.c_contiguous and \
        np.moveaxis(a, 1, -1).flags.c_contiguous


def _dense(a: np.ndarray) -> bool:
    return a.flags.c_contiguous or _channels_last(a)


def _in_order(rows: np.ndarray) -> np.ndarray:
    """Sum a (count, C) array over its first axis one row at a time (NumPy's outer-axis sum
    is in order; a single column would be summed pairwise, so it accumulates)."""
    if rows.shape[1] > 1:
        return rows.sum(axis=0)
    return np.add.accumulate(rows, axis=0)[-1]


def _rows_by_channel(a: np.ndarray) -> np.ndarray:
    """(N, C): row i holds element i of every channel, in the order torch's contiguous kernel
    reads a channel (sample by sample, each sample's plane in memory order)."""
    batch, channels = a.shape[0], a.shape[1]
    return np.ascontiguousarray(a.reshape(batch, channels, -1).transpose(0, 2, 1)).reshape(
        -1, channels)


def _memory_rows(a: np.ndarray, order: list) -> np.ndarray:
    """(N, C): each channel's elements in the order a TensorIterator over ``a.select(1, c)``
    visits them (the dims of ``order``, outermost first)."""
    return np.ascontiguousarray(a.transpose(order + [1])).reshape(-1, a.shape[1])


def _stride_order(*arrays) -> list:
    """The non-channel dims, outermost first, as TensorIterator sorts them by stride (the
    first array's strides, ties broken by the next ones')."""
    rest = [d for d in range(arrays[0].ndim) if d != 1]
    return sorted(rest, key=lambda d: tuple(a.strides[d] for a in arrays) + (d,), reverse=True)


def _thread_rows(count: int, threads: int) -> tuple[int, int]:
    """at::parallel_for(0, count, 1): (rows per thread, threads that get rows)."""
    used = max(1, min(threads, count))
    share = -(-count // used)
    return share, -(-count // share)


def _thread_shares(rows: np.ndarray, share: int, used: int) -> np.ndarray:
    """(share, used, C): row k of every thread's share at [k] (zeros past the last row)."""
    padded = np.zeros((share * used, rows.shape[1]), rows.dtype)
    padded[:len(rows)] = rows
    return np.ascontiguousarray(padded.reshape(used, share, -1).transpose(1, 0, 2))


def _fma_buffers(p: np.ndarray, q: np.ndarray, share: int, used: int, count: int,
                 exact: bool) -> np.ndarray:
    """Each thread's buffer of ``fma(p, q, buffer)`` over its rows, (used, C)."""
    if not exact:  # one double sum instead (see the module doc)
        return np.multiply(p, q, dtype=_F64).sum(axis=0).astype(p.dtype)[None]
    ps, qs = _thread_shares(p, share, used), _thread_shares(q, share, used)
    buffers = np.zeros(ps.shape[1:], p.dtype)
    last = count - share * (used - 1)  # rows of the last thread's share
    if p.dtype == _F32:
        # the float32 fma: the products exact in double (all rows in one pass), then one
        # NumPy call per row: the sum in double, rounded into the buffer
        products = np.multiply(ps, qs, dtype=_F64)
        add = np.add
        for row in products[:last]:  # (rows every thread has)
            add(row, buffers, out=buffers, casting="same_kind")
        if last < share:  # the last thread's share is shorter
            head = buffers[:used - 1]
            for row in products[last:, :used - 1]:
                add(row, head, out=head, casting="same_kind")
        return buffers
    for k in range(share):
        live = slice(None) if k < last else slice(0, used - 1)
        buffers[live] = _float_kernels.fma(ps[k, live], qs[k, live], buffers[live])
    return buffers


def moments(x: np.ndarray, threads: int, torch_bits: bool):
    """``(mean, var_sum)`` of a dense (row-major or channels-last) float32/float64 input as
    torch's training kernels compute them, both in the dtype; None for any other layout."""
    dtype = x.dtype.type
    channels = x.shape[1]
    count = x.size // channels
    plane = count // x.shape[0]
    if x.flags.c_contiguous and plane > 1 or _dense(x) and count <= threads:
        if dtype == _F32:
            # float32 values (and their rounded squares) summed in double: exact in any order
            # short of a 2 ** 29 spread in magnitude, so NumPy's own order, without copies
            dims = (0,) + tuple(range(2, x.ndim))
            mean = (x.sum(axis=dims, dtype=_F64) / count).astype(dtype)
            centred = x - mean.reshape((1, channels) + (1,) * (x.ndim - 2))
            np.square(centred, out=centred)
            var_sum = centred.sum(axis=dims, dtype=_F64).astype(dtype)
        else:
            rows = _rows_by_channel(x) if x.flags.c_contiguous else \
                np.moveaxis(x, 1, -1).reshape(count, channels)
            mean = (_in_order(rows) / count).astype(dtype)
            centred = rows - mean
            var_sum = _in_order(centred * centred).astype(dtype)
        return mean, var_sum
    if _dense(x):
        rows = np.moveaxis(x, 1, -1).reshape(count, channels)
        share, used = _thread_rows(count, threads)
        sums = _thread_shares(rows, share, used)
        # each buffer: +0 then its rows in order (a buffer of one row: that row plus 0)
        partial = _in_order(sums.reshape(share, -1)).reshape(used, channels) + dtype(0)
        mean = (_in_order(partial.astype(_F64)) / count).astype(dtype)
        centred = rows - mean
        exact = share <= _BUFFER_ROWS or torch_bits
        buffers = _fma_buffers(centred, centred, share, used, count, exact)
        return mean, _in_order(buffers.astype(_F64)).astype(dtype)
    return None


def statistics(x: np.ndarray, eps: float, threads: int, torch_bits: bool):
    """(save_mean, save_invstd) of a float32 / float64 input, as torch's training forward."""
    dtype = x.dtype.type
    channels = x.shape[1]
    count = x.size // channels
    found = moments(x, threads, torch_bits)
    if found is None:
        dims = (0,) + tuple(range(2, x.ndim))
        mean = np.asarray(_mean_dims(x, dims, False, True, True)).astype(dtype).reshape(channels)
        centred = _memory_rows(x, _stride_order(x)).astype(_F64) - mean.astype(_F64)
        var_sum = _in_order(centred * centred)
        invstd = (1 / np.sqrt(var_sum / count + eps)).astype(dtype)
        return mean, invstd
    mean, var_sum = found
    with np.errstate(divide="ignore"):
        invstd = (1 / np.sqrt((var_sum / dtype(count)).astype(_F64) + eps)).astype(dtype)
    return mean, invstd


def forward(x: np.ndarray, weight, bias, eps: float, threads: int, torch_bits: bool):
    """The training-mode output (in x's layout; the caller allocates torch's)."""
    dtype = x.dtype.type
    channels = x.shape[1]
    mean, invstd = statistics(x, eps, threads, torch_bits)
    shape = (1, channels) + (1,) * (x.ndim - 2)
    dense = _dense(x) and all(p is None or p.flags.c_contiguous for p in (weight, bias))
    if dense:
        alpha = invstd if weight is None else invstd * weight.reshape(channels)
        b = np.zeros(channels, dtype) if bias is None else bias.reshape(channels)
        beta = _float_kernels.fma(-mean, alpha, b)
        if dtype == _F32:  # (the float32 fma: the product exact in double, the sum rounded)
            wide = x.astype(_F64)
            wide *= alpha.astype(_F64).reshape(shape)
            wide += beta.astype(_F64).reshape(shape)
            return wide.astype(_F32)
        return _float_kernels.fma(x, alpha.reshape(shape), beta.reshape(shape))
    out = x - mean.reshape(shape)
    out *= invstd.reshape(shape)
    out *= dtype(1) if weight is None else weight.reshape(shape)
    out += dtype(0) if bias is None else bias.reshape(shape)
    return out


def _row_reduce(p: np.ndarray, q, lanes: int) -> np.ndarray:
    """vec::reduce_all (``q`` None) or vec::map2_reduce_all of ``p * q`` of each row of
    (rows, n) arrays."""
    rows, length = p.shape
    products = p if q is None else p * q
    if length < lanes:
        total = products[:, 0].copy()
        for k in range(1, length):
            total += products[:, k]
        return total
    full = length // lanes * lanes
    acc = _in_order(products[:, :full].reshape(rows, full // lanes, lanes).transpose(
        1, 0, 2).reshape(full // lanes, rows * lanes)).reshape(rows, lanes)
    rest = length - full
    if rest:
        if q is None:
            acc[:, :rest] += p[:, full:]
        else:
            acc[:, :rest] = _float_kernels.fma(p[:, full:], q[:, full:], acc[:, :rest])
    if p.dtype == _F64:  # (no shuffle tree for double: the lanes in order)
        total = acc[:, 0].copy()
        for k in range(1, lanes):
            total += acc[:, k]
        return total
    while acc.shape[1] > 1:
        half = acc.shape[1] // 2
        acc = acc[:, :half] + acc[:, half:]
    return acc[:, 0]


def _scaled(shifted: np.ndarray, term: np.ndarray, invstd, w, shape) -> np.ndarray:
    """``(shifted - term) * invstd * w`` (per channel), each step rounded, in place."""
    shifted -= term
    shifted *= invstd.reshape(shape)
    shifted *= w.reshape(shape)
    return shifted


def backward(dy: np.ndarray, x: np.ndarray, weight, eps: float, mask, threads: int,
             torch_bits: bool, stats=None):
    """(grad_input, grad_weight, grad_bias), None where not in ``mask``. ``stats``: the
    (mean, invstd) to use in place of the batch's (eval mode's running statistics: the same
    sums, ``dw = dotp * invstd`` and ``db = sum``; its grad_input is not computed here)."""
    dtype = x.dtype.type
    channels = x.shape[1]
    count = x.size // channels
    batch = x.shape[0]
    plane = count // batch
    if stats is None:
        mean, invstd = statistics(x, eps, threads, torch_bits)
    else:
        mean, invstd = stats
        assert not mask[0]
    w = np.ones(channels, dtype) if weight is None else weight.reshape(channels).astype(dtype)
    shape = (1, channels) + (1,) * (x.ndim - 2)
    dx = None
    if x.flags.c_contiguous and dy.flags.c_contiguous and plane > 1:
        lanes = _lanes(dtype)
        xs = x.reshape(batch * channels, plane)
        dys = dy.reshape(batch * channels, plane)
        means = np.tile(mean, batch)[:, None]
        total = _in_order(_row_reduce(dys, None, lanes).reshape(batch, channels).astype(_F64))
        dotp = _in_order(_row_reduce(xs - means, dys, lanes).reshape(batch, channels).astype(
            _F64))
        if mask[0]:
            k = dotp.astype(dtype) * invstd * invstd / dtype(count)
            grad_mean = (total / count).astype(dtype)
            centred = x - mean.reshape(shape)
            np.negative(centred, out=centred)
            dx = _float_kernels.fma(centred, k.reshape(shape), dy - grad_mean.reshape(shape))
            dx *= invstd.reshape(shape)
            dx *= w.reshape(shape)
        grad_w = (dotp * invstd).astype(dtype)
        grad_b = total.astype(dtype)
    elif _dense(x) and _dense(dy) and _channels_last(x) == _channels_last(dy):
        rows = np.moveaxis(x, 1, -1).reshape(count, channels)
        grads = np.moveaxis(dy, 1, -1).reshape(count, channels)
        share, used = _thread_rows(count, threads)
        partial = _in_order(_thread_shares(grads, share, used).reshape(share, -1)).reshape(
            used, channels) + dtype(0)
        exact = share <= _BUFFER_ROWS or torch_bits
        products = _fma_buffers(rows - mean, grads, share, used, count, exact)
        total = _in_order(partial.astype(_F64)).astype(dtype)
        dotp = _in_order(products.astype(_F64)).astype(dtype)
        if mask[0]:
            k = dotp * invstd * invstd / dtype(count)
            grad_mean = total / dtype(count)
            centred = x - mean.reshape(shape)
            centred *= k.reshape(shape)
            dx = _scaled(dy - grad_mean.reshape(shape), centred, invstd, w, shape)
            full = channels - channels % _lanes(dtype)
            if full:
                # the kernel's loop over whole vectors of channels is compiled with the
                # subtraction of (x - mean) * k fused (the partial last vector's is not)
                head = (slice(None), slice(0, full))
                rows_dx = np.moveaxis(dx, 1, -1).reshape(count, channels)
                shifted = rows[head] - mean[:full]
                np.negative(shifted, out=shifted)
                fused = _float_kernels.fma(shifted, k[:full], grads[head] - grad_mean[:full])
                fused *= invstd[:full]
                fused *= w[:full]
                rows_dx[head] = fused
                if not np.shares_memory(rows_dx, dx):  # (dx laid out otherwise: a copy)
                    dx = np.moveaxis(rows_dx.reshape(np.moveaxis(dx, 1, -1).shape), -1, 1)
        grad_w = dotp * invstd
        grad_b = total
    else:
        dims = (0,) + tuple(range(2, x.ndim))
        total = np.asarray(_sum_dims(dy, dims, False, None)).astype(dtype).reshape(channels)
        centred = x - mean.reshape(shape)
        if dtype == _F32:  # (a double sum of float32 products: any order, as above)
            dotp = np.multiply(centred, dy).sum(axis=dims, dtype=_F64)
        else:
            order = _stride_order(x, dy)
            dotp = _in_order((_memory_rows(x, order) - mean) * _memory_rows(dy, order))
        if mask[0]:
            k = dotp.astype(dtype) * invstd * invstd / dtype(count)
            grad_mean = total / dtype(count)
            centred *= k.reshape(shape)
            dx = _scaled(dy - grad_mean.reshape(shape), centred, invstd, w, shape)
        grad_w = (dotp * invstd).astype(dtype)
        grad_b = total
    return (dx if mask[0] else None, grad_w if mask[1] else None,
            grad_b if mask[2] else None)
