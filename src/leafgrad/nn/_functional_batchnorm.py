"""batch_norm's work: the running statistics' update and the op (train or eval mode).

Note: the running statistics are array kernels. The batch statistic and the updated running
values are each computed by one function called through ``registry.array_kernel``, which
leafgrad.compile records as graph nodes (replayed from the new values), and written into the
running tensors with ``copy_`` under capture (an in-place op of the table; eagerly a plain
write, which keeps their version counters as torch's kernel does); under capture the eval-mode
statistics the backward reads are copied by a kernel too (eagerly it reads the running tensors
as they are when it runs, as torch's). Eagerly these are the NumPy calls of the update
``running.mul_(1 - momentum).add_(stat, alpha=momentum)`` it replaces (same bits).
"""

from __future__ import annotations

import numpy as np

from .. import _argparse
from .. import ops as _ops
from .._compile.state import state as _capture
from ..autograd.grad_mode import no_grad
from ..autograd.graph import INFERENCE_DETACHED, INFERENCE_VC
from ..ops.registry import array_kernel
from ..tensor import _wrap
from ..ops import _batch_norm_kernels
from ..ops._float_kernels import fma
from .._info import get_num_threads
from ..backends import cpu as _cpu
from ..autograd.graph import SavedTensor

__all__ = ["batch_norm_impl"]


_FLOATING = ("float32", "float64", "float16", "bfloat16")


def _check_arguments(input, running_mean, running_var, weight, bias, training) -> None:
    """ATen's checks before batch_norm computes (_batch_norm_impl_index, then batch_norm_cpu):
    each argument's size, the statistics in eval mode, the input's dtype, then the parameters'
    dtypes: all the input's, or (input float16/bfloat16 only) all float32 when the first one
    given differs from the input ("mixed dtype"); unmixed mismatches are reported in the order
    the kernel reads them (running statistics first when training, weight and bias first in
    eval)."""
    channels = input.shape[1] if input.ndim > 1 else 1
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var),
                         ("weight", weight), ("bias", bias)):
        if tensor is not None:
            if tensor.numel() != channels:
                raise RuntimeError(f"{name} should contain {channels} elements not "
                                   f"{tensor.numel()}")
        elif not training and name.startswith("running"):
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    if input.dtype.name not in _FLOATING:
        if input.dtype.is_complex:
            return  # (the op's complex message)
        raise NotImplementedError(f'"batch_norm" not implemented for \'{input.dtype._legacy}\'')
    given = [t for t in (weight, bias, running_mean, running_var) if t is not None]
    if given and given[0].dtype != input.dtype:
        if any(t.dtype.name != "float32" for t in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input.dtype.name not in ("float16", "bfloat16"):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    order = (running_mean, running_var, weight, bias) if training else (
        weight, bias, running_mean, running_var)
    for tensor in order:
        if tensor is not None and tensor.dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                               f"{tensor.dtype._legacy}")


def batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum, eps,
                    batches=None, python_checks=True):
    """``batch_norm``; ``batches`` (the module's ``num_batches_tracked``, with momentum None):
    the cumulative average's factor ``1 / batches`` is read from it by the update kernel, so
    that leafgrad.compile replays it (a Python float made from the tensor would be a guard
    on its value, which changes every step)."""
    if training and input.ndim >= 2 and input.shape[0] * int(np.prod(input.shape[2:])) == 1:
        raise ValueError(  # torch's _verify_batch_size: size[0] * prod(size[2:]) == 1
            "Expected more than 1 value per channel when training, got input size "
            f"torch.Size({list(input.shape)})"
        )
    if python_checks:  # F.batch_norm's own (torch.batch_norm, ATen's, has none)
        if training and eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
        if eps < 0.0:
            raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if training.__class__ is not bool or momentum.__class__ is not float or \
            eps.__class__ is not float:  # torch.batch_norm's parser
        training, momentum, eps = _argparse.doubles(
            "batch_norm", ("training", training, 6, "bool"), ("momentum", momentum, 7, "float"),
            ("eps", eps, 8, "float"))
    if input.numel() == 0:
        # torch's _batch_norm_impl_index for an empty input: a clone, scaled and shifted by
        # the first weight and bias (so the graph reaches them), the running statistics kept
        out = input.clone()
        if weight is not None:
            out = out * weight.select(0, 0)
        if bias is not None:
            out = out + bias.select(0, 0)
        return out
    _check_arguments(input, running_mean, running_var, weight, bias, training)
    if training:
        dims = (0,) + tuple(range(2, input.ndim))
        count = input.numel() // input.shape[1]
        if count <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"torch.Size({list(input.shape)})"
            )
        if running_mean is not None or running_var is not None:
            # Note: the running statistics are array kernels (module docstring)
            counts = () if batches is None else (batches._data,)
            with no_grad():
                data = input._data
                if _kernel_statistics(data, running_mean, running_var):
                    new_mean, new_var = array_kernel(
                        _running_kernel, data, running_mean._data, running_var._data, *counts,
                        momentum=momentum, threads=get_num_threads(),
                        torch_bits=_cpu.torch_bits)
                    _write_running(running_mean, new_mean)
                    _write_running(running_var, new_var)
                else:
                    for running, statistic in ((running_mean, _batch_mean),
                                               (running_var, _batch_var)):
                        if running is None:
                            continue
                        stat = array_kernel(statistic, data, dims=dims, count=count)
                        new = array_kernel(_running_update, running._data, stat, *counts,
                                           momentum=momentum)
                        _write_running(running, new)
        return _save_running(_ops.BatchNorm.apply(input, weight, bias, eps=eps), running_mean,
                             running_var)
    if running_mean is None or running_var is None:
        missing = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{missing} must be defined in evaluation mode")
    # the backward reads the statistics' values at the time it runs, as torch's (a write the
    # version check misses, through .data or a training-mode update, shows in the gradients);
    # under capture copies, made by a kernel so that a replay copies them again
    mean, var = running_mean._data, running_var._data
    if _capture.active:
        mean, var = array_kernel(np.copy, mean), array_kernel(np.copy, var)
    out = _ops.BatchNormEval.apply(input, weight, bias, mean=mean, var=var, eps=eps)
    return _save_running(out, running_mean, running_var)


def _save_running(out, running_mean, running_var):
    """torch's NativeBatchNormBackward0 saves the running statistics (either mode) and
    unpacks them in its backward, so writing into them in place between the forward and the
    backward is its "modified by an inplace operation" error (the backward reads the copies
    taken at the forward, which are then their values); ``_saved_running_mean`` shows them
    (None when not given)."""
    node = out._node
    if node is not None and node._saved is not None and (
            type(node) is _ops.BatchNorm or type(node) is _ops.BatchNormEval):
        for name, running in (("running_mean", running_mean), ("running_var", running_var)):
            node._saved[name] = None if running is None else SavedTensor(running)
    return out


def _write_running(running, new) -> None:
    """Store an updated running statistic. torch's kernel writes the running buffers without
    bumping their version counter (``bn.running_mean._version`` stays put over a training
    step), so eagerly this is a plain NumPy write; under leafgrad.compile it stays the table's
    ``copy_`` so that the capture records the write and replays it (without the bump)."""
    if _capture.active or type(running._data) is not np.ndarray:
        running.copy_(_wrap(new))
        counter = running._vc
        if counter is not None and counter is not INFERENCE_VC and counter is not INFERENCE_DETACHED:
            counter[0] -= 1  # the copy's bump, taken back
        if _capture.active and _capture.tracer is not None:
            _capture.tracer.unversioned(running)
    else:
        np.copyto(running._data, new, casting="unsafe")


def _kernel_statistics(data, running_mean, running_var) -> bool:
    """Whether the running statistics take torch's kernel (``_running_kernel``): a dense
    float32/float64 input (row-major or channels-last) with both running buffers of its
    dtype."""
    return (type(data) is np.ndarray and data.dtype in (np.float32, np.float64)
            and running_mean is not None and running_var is not None
            and type(running_mean._data) is np.ndarray and type(running_var._data) is np.ndarray
            and running_mean._data.dtype == data.dtype == running_var._data.dtype
            and data.ndim >= 2 and _batch_norm_kernels._dense(data))


def _running_kernel(data, running_mean, running_var, *batches, momentum, threads, torch_bits):
    """The updated ``(running_mean, running_var)`` as torch's batch_norm_cpu_update_stats
    computes them: the batch's mean and sum of squared deviations from the training kernel
    (ops/_batch_norm_kernels.moments), the momentum cast to the dtype, ``m * mean + (1 - m) *
    running`` and, for the variance, ``var_sum / (n - 1)`` in the dtype, then ``m * unbiased
    + (1 - m) * running`` (the product with m fused in float32's compiled loop, measured; not
    in float64's). NumPy's mean and var, before, gave other last bits on most channels (eval
    mode then normalised with them)."""
    if batches:
        momentum = 1.0 / float(batches[0])
    kind = data.dtype.type
    mean, var_sum = _batch_norm_kernels.moments(data, threads, torch_bits)
    count = data.size // data.shape[1]
    m = kind(momentum)
    keep = kind(1) - m
    new_mean = m * mean + keep * running_mean
    unbiased = var_sum / kind(count - 1)
    if kind is np.float32:
        new_var = fma(m, unbiased, keep * running_var)
    else:
        new_var = m * unbiased + keep * running_var
    return np.asarray(new_mean, kind), np.asarray(new_var, kind)


def _batch_mean(data, dims, count):
    return data.mean(axis=dims)


def _batch_var(data, dims, count):
    return data.var(axis=dims) * count / (count - 1)


def _running_update(running, stat, *batches, momentum):
    """``running * (1 - momentum) + stat * momentum`` with the NumPy calls of the unrecorded
    ``running.mul_(1 - momentum).add_(stat, alpha=momentum)`` (ops/inplace.py's ufunc path:
    Python-float operands in the running tensor's dtype); momentum None: ``1 / batches``."""
    if batches:
        momentum = 1.0 / float(batches[0])
    stat = stat.astype(running.dtype)
    with np.errstate(all="ignore"):
        out = np.multiply(running, 1 - momentum)
        if momentum != 1:
            stat = stat * momentum
        np.add(out, stat, out=out, casting="unsafe")
    return out
