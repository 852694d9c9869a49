"""Compiled loops for leafgrad.compile's replays (and, on request, eager ops), where numba is
installed (the ``numba`` extra): the float32/float64 kernels whose NumPy form is many passes
over small arrays, written once more as one loop per element, with the same operations in the
same order, so every bit is the NumPy kernel's (and therefore torch's).

Which kernels, and why these: a replayed MLP training step (benchmarks/bench_compile.py's
mlp32) spent a third of its time outside its matrix products in NumPy kernels that replay
torch's arithmetic step by step: SGD's fused multiply-add update on a processor whose MKL axpy
rounds twice (_float_kernels.scaled_update: the float64 casts cost 4x the float32 update),
log_softmax's SLEEF expf/logf replays with their lane-ordered sums (~30 ufunc calls on arrays of
a few hundred elements, for a (32, 10) batch 42 us where torch takes 4 us), nll_loss's partial
sums, sums over a dim in torch's order (bias gradients) and relu's sign-keeping passes; a CNN's
Adam update and its convolutions' bias gradients likewise. Each loop (ops/_numba_loops.py) is
its NumPy kernel's steps element by element:

- ``fma_update``: ``p = float32(float64(g) * float64(alpha) + float64(p))``, the product exact
  in float64 and the sum rounded there, then to float32 (scaled_update's float32 path).
- ``expf``: _softmax_bits.expf's steps for ``x <= 0`` or NaN (softmax's ``x - max``), its
  float64 rounders included, branch-free so that LLVM vectorises the loops around it: ``q``
  rounded by adding and subtracting 1.5 * 2**23 (np.rint's round-half-even on the |q| <= 151
  kept), ``2**(q + 64)`` read from a table where NumPy builds it from the bits of
  ``q + 2**23 + 191``, arguments below -104 selecting 0.
- ``log_model``: _softmax_bits._log_model (AVX-512's getexp/getmant form); a row whose log lies
  within its margin of a float32 midpoint is left to the caller, which replays SLEEF's logf as
  _softmax_bits.logf does.
- ``lane_sum``: _float_kernels.reduce_all_sum's lane accumulators (starting from +0, as NumPy's
  sum does) and halving folds.
- softmax, log_softmax and log_softmax's backward over the last dim: those pieces per row.

numba compiles a loop when it is first called (``cache=True``: later processes load the
machine code from numba's cache). The first capture in a fresh environment pays for it: the
mlp32 step's capture and first replay took 7.0 s of CPU time with an empty cache, 0.37 s with
the cache filled, 0.15 s with the loops off (numba's import is most of the difference).

By default eager ops keep the NumPy kernels and a replay switches to the loops while it runs
(``begin``/``end`` around its body set ``active``), so it equals its eager capture bit for bit
either way. ``leafgrad.backends.cpu.compiled_loops = False`` turns them off for functions
captured afterwards; ``"eager"`` switches them on for eager ops as well (``active`` stays
set): the mlp32 step run eagerly 1690 -> 1054 us, the digits CNN's Adam step 2854 -> 2267 us
(interleaved in one process, loaded machine). ``active`` is one flag for the process, not per
thread: an eager op on another thread while a replay runs may take a loop too, which changes
no bit. tests/compile/test_numba_kernels.py compares every loop with its NumPy kernel on every
class of float32 input, 20 replayed training steps with 20 eager ones (loops on and off), and
eager steps with the loops against torch.

Measured (benchmarks/bench_compile.py and the kernels alone, one thread, ``time.thread_time``,
min of 7): log_softmax of (32, 10) 41.9 -> 4.1 us, (512, 10) 84.7 -> 31.8 us; its backward 22.8
-> 2.5 us and 44.5 -> 21.8 us; SGD's update of a 256x784 weight 136 -> 18.7 us (NumPy's
two-rounding float32 update: 30 us).
"""

from __future__ import annotations

import numpy as np

from ..backends import cpu as _cpu
from . import _isa
from . import _blas

_F32 = np.float32
_F64 = np.float64

active = False  # True while a compiled replay runs (_compile/codegen.py's replay function)
_kernels = None  # the compiled functions' module, once imported; False: not available


def available() -> bool:
    """Whether replays use the loops: ``leafgrad.backends.cpu.compiled_loops`` on, numba
    importable, and this processor's kernels the ones they copy (AVX-512's logf form)."""
    if _kernels is None:
        _build()
    return bool(_kernels) and bool(_cpu.compiled_loops)


def _build() -> None:
    global _kernels
    if _isa.CAPABILITY != "avx512":  # (the loops copy AVX-512's logf form)
        _kernels = False
        return
    try:
        from . import _numba_loops
    except ImportError:
        _kernels = False
        return
    _kernels = _numba_loops


if _cpu.compiled_loops == "eager":  # (LEAFGRAD_COMPILED_LOOPS=eager)
    active = available()


def _loops():
    """The compiled loops' module (built on first use)."""
    if _kernels is None:
        _build()
    return _kernels


def begin() -> bool:
    """Switch the loops on for a replay; returns the state to restore (``end``)."""
    global active
    was, active = active, available()
    return was


def end(was: bool) -> None:
    global active
    active = was


# -- the kernels' callers (each takes the NumPy kernel's arguments; None: not served) -------------


def fma_update(p: np.ndarray, g: np.ndarray, alpha) -> bool:
    """``p += alpha * g`` rounded once, in place (float32, C-contiguous, one shape)."""
    if not (p.dtype == _F32 and g.dtype == _F32 and p.shape == g.shape
            and p.flags.c_contiguous and g.flags.c_contiguous and p.flags.writeable):
        return False
    if g is not p and np.may_share_memory(p, g):  # (NumPy's steps read all of g first)
        return False
    _loops().fma_update(p.reshape(-1), g.reshape(-1), _F32(alpha))
    return True


def log_softmax_lastdim(a: np.ndarray):
    """_float_kernels.log_softmax_lastdim's result, exponentials and row sums (float32)."""
    size = a.shape[-1]
    rows = np.ascontiguousarray(a).reshape(-1, size)
    out = np.empty_like(rows)
    exps = np.empty_like(rows)
    totals = np.empty(rows.shape[0], _F32)
    near = np.empty(rows.shape[0], np.bool_)
    if _loops().log_softmax_rows(rows, out, exps, totals, near):
        from . import _softmax_bits  # rows near a float32 midpoint: SLEEF's logf replayed

        with np.errstate(all="ignore"):
            out[near] -= _softmax_bits.logf(totals[near], at_least_one=True)[:, None]
    keep = a.shape[:-1] + (1,)
    return out.reshape(a.shape), exps.reshape(a.shape), totals.reshape(keep)


def softmax_lastdim(a: np.ndarray) -> np.ndarray:
    """_float_kernels.softmax_lastdim (float32)."""
    size = a.shape[-1]
    rows = np.ascontiguousarray(a).reshape(-1, size)
    out = np.empty_like(rows)
    _loops().softmax_rows(rows, out)
    return out.reshape(a.shape)


def log_softmax_backward_lastdim(grad: np.ndarray, result: np.ndarray) -> np.ndarray:
    """_float_kernels.log_softmax_backward_lastdim (float32)."""
    size = result.shape[-1]
    g = np.ascontiguousarray(grad, dtype=_F32).reshape(-1, size)
    out = np.empty_like(g)
    _loops().log_softmax_backward_rows(g, np.ascontiguousarray(result).reshape(-1, size), out)
    return out.reshape(result.shape)


def expf(x: np.ndarray) -> np.ndarray:
    """_softmax_bits.expf(x, nonpositive=True) (float32, ``x <= 0`` or NaN)."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    _loops().expf(flat, out)
    return out.reshape(x.shape)


def reduce_all_sum(rows: np.ndarray) -> np.ndarray:
    """_float_kernels.reduce_all_sum of a float32 matrix's rows."""
    out = np.empty(rows.shape[0], _F32)
    _loops().reduce_all_sum(np.ascontiguousarray(rows), out)
    return out


def cascade_outer(block: np.ndarray) -> np.ndarray:
    """_cascade_sum._outer (float32/float64, C-contiguous (reduced, lead, kept))."""
    return _loops().outer(block, 32 // block.dtype.itemsize)


def cascade_inner(rows: np.ndarray) -> np.ndarray:
    """_cascade_sum._inner (float32/float64, C-contiguous rows)."""
    return _loops().inner(rows, 32 // rows.dtype.itemsize)


def _flat_operands(*arrays) -> bool:
    """Whether the arrays are float32/float64 of one dtype and shape, C-contiguous."""
    first = arrays[0]
    return first.dtype.char in "fd" and all(
        type(x) is np.ndarray and x.dtype == first.dtype and x.shape == first.shape
        and x.flags.c_contiguous for x in arrays)


def relu(a: np.ndarray, out):
    """Relu.capture_kernel's result, or None (not served: its NumPy steps run)."""
    if out is None:
        if not _flat_operands(a):
            return None
        out = np.empty_like(a)
    elif not _flat_operands(a, out) or np.shares_memory(a, out):
        return None
    _loops().relu(a.reshape(-1), out.reshape(-1))
    return out


def threshold_grad(grad: np.ndarray, a: np.ndarray, threshold, out):
    """_threshold_grad's result for a number ``threshold``, or None (not served)."""
    if type(threshold) not in (int, float) or type(grad) is not np.ndarray:
        return None
    if out is None:
        if not _flat_operands(grad, a):
            return None
        out = np.empty_like(grad)
    elif not _flat_operands(grad, a, out) or np.shares_memory(out, a):
        return None
    _loops().threshold_grad(grad.reshape(-1), a.reshape(-1), grad.dtype.type(threshold),
                            out.reshape(-1))
    return out


def adam_moments(grad, exp_avg, exp_avg_sq, weight, beta2, one_minus_beta2) -> bool:
    """optim/adam.py's first and second moment updates in place (float32, one shape,
    C-contiguous, at least 1-d), or False (not served: its NumPy steps run). Where MKL's axpy
    fuses, adam.py's small-weight lerp is that call: not served either."""
    if not (grad.ndim and _flat_operands(grad, exp_avg, exp_avg_sq) and grad.dtype == _F32
            and exp_avg.flags.writeable and exp_avg_sq.flags.writeable):
        return False
    small = bool(abs(weight) < 0.5)
    if small and _blas.axpy_serves(grad.dtype):
        return False
    _loops().adam_moments(grad.reshape(-1), exp_avg.reshape(-1), exp_avg_sq.reshape(-1),
                          _F32(weight), small, _F32(beta2), _F32(one_minus_beta2))
    return True


def adam_apply(param, exp_avg, denom, bias_correction2_sqrt, eps, negative_step_size) -> bool:
    """optim/adam.py's ``addcdiv_`` step in place, or False (not served)."""
    if not (param.ndim and _flat_operands(param, exp_avg, denom) and param.dtype == _F32
            and param.flags.writeable):
        return False
    _loops().adam_apply(param.reshape(-1), exp_avg.reshape(-1), denom.reshape(-1),
                        _F32(bias_correction2_sqrt), _F32(eps), _F32(negative_step_size))
    return True


def channel_sums(grad: np.ndarray):
    """conv.py's _sequential_channel_sums (float32/float64, C-contiguous, N and the elements
    per channel not 0), or None (not served)."""
    if not (grad.ndim >= 2 and grad.dtype.char in "fd" and grad.flags.c_contiguous
            and grad.shape[0] and grad.size):
        return None
    out = np.empty(grad.shape[1], grad.dtype)
    _loops().channel_sums(grad.reshape(grad.shape[0], grad.shape[1], -1), out)
    return out


def nll_loss(a: np.ndarray, target: np.ndarray, reduction: str, ignore_index):
    """NllLoss.forward's 0-d result for an (N, C) float32/float64 input without weights, every
    target kept and in range; None otherwise (not served)."""
    if not (reduction != "none" and a.ndim == 2 and a.shape[0] and a.dtype.char in "fd"
            and type(target) is np.ndarray and target.dtype == np.int64 and target.ndim == 1
            and target.size == a.shape[0] and type(ignore_index) is int):
        return None
    result = _loops().nll_loss(np.ascontiguousarray(a), np.ascontiguousarray(target),
                               ignore_index, reduction == "mean")
    return result.reshape(()) if result.size else None


def nll_loss_backward(grad: np.ndarray, input_sizes, target: np.ndarray, reduction: str,
                      ignore_index):
    """NllLossBackward.forward's (N, C) gradient without weights, every target kept and in
    range; None otherwise (not served)."""
    if not (reduction != "none" and len(input_sizes) == 2 and input_sizes[0]
            and type(grad) is np.ndarray and grad.ndim == 0 and grad.dtype.char in "fd"
            and type(target) is np.ndarray and target.dtype == np.int64 and target.ndim == 1
            and target.size == input_sizes[0] and type(ignore_index) is int):
        return None
    with np.errstate(all="ignore"):  # (NllLossBackward's own steps for the value)
        value = -(grad / grad.dtype.type(input_sizes[0])) if reduction == "mean" else -grad
    out = np.empty(tuple(input_sizes), grad.dtype)
    if not _loops().nll_loss_backward(value.reshape(1)[0], np.ascontiguousarray(target),
                                      input_sizes[1], ignore_index, out):
        return None
    return out
