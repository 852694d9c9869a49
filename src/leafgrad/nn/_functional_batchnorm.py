"""batch_norm's work: the running statistics' update and the op (train or eval mode).

Note: the running statistics are array kernels. The batch statistic and the updated running
values are each computed by one function called through ``registry.array_kernel``, which
leafgrad.compile records as graph nodes (replayed from the new values), and written into the
running tensors with ``copy_`` under capture (an in-place op of the table; eagerly a plain
write, which keeps their version counters as torch's kernel does); the eval-mode statistics the
backward reads are copied by a kernel too. Eagerly these are the NumPy calls of the update
``running.mul_(1 - momentum).add_(stat, alpha=momentum)`` it replaces (same bits).
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from .._compile.state import state as _capture
from ..autograd.grad_mode import no_grad
from ..autograd.graph import INFERENCE_DETACHED, INFERENCE_VC

__all__ = ["batch_norm_impl"]


def batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum, eps,
                    batches=None):
    """``batch_norm``; ``batches`` (the module's ``num_batches_tracked``, with momentum None):
    the cumulative average's factor ``1 / batches`` is read from it by the update kernel, so
    that leafgrad.compile replays it (a Python float made from the tensor would be a guard
    on its value, which changes every step)."""
    from ..ops.registry import array_kernel
    from ..tensor import _wrap

    if training and input.ndim >= 2 and input.shape[0] * int(np.prod(input.shape[2:])) == 1:
        raise ValueError(  # torch's _verify_batch_size: size[0] * prod(size[2:]) == 1
            "Expected more than 1 value per channel when training, got input size "
            f"torch.Size({list(input.shape)})"
        )
    if input.numel() == 0:
        # torch's _batch_norm_impl_index for an empty input: a clone, scaled and shifted by
        # the first weight and bias (so the graph reaches them), the running statistics kept
        out = input.clone()
        if weight is not None:
            out = out * weight.select(0, 0)
        if bias is not None:
            out = out + bias.select(0, 0)
        return out
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
                for running, statistic in ((running_mean, _batch_mean),
                                           (running_var, _batch_var)):
                    if running is None:
                        continue
                    stat = array_kernel(statistic, data, dims=dims, count=count)
                    new = array_kernel(_running_update, running._data, stat, *counts,
                                       momentum=momentum)
                    _write_running(running, new)
        return _ops.BatchNorm.apply(input, weight, bias, eps=eps)
    if running_mean is None or running_var is None:
        missing = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{missing} must be defined in evaluation mode")
    # the backward reads the statistics of this call (copies: a later update must not change
    # them), copied by a kernel so a capture copies them again on every replay
    return _ops.BatchNormEval.apply(input, weight, bias,
                                    mean=array_kernel(np.copy, running_mean._data),
                                    var=array_kernel(np.copy, running_var._data), eps=eps)


def _write_running(running, new) -> None:
    """Store an updated running statistic. torch's kernel writes the running buffers without
    bumping their version counter (``bn.running_mean._version`` stays put over a training
    step), so eagerly this is a plain NumPy write; under leafgrad.compile it stays the table's
    ``copy_`` so that the capture records the write and replays it (without the bump)."""
    from ..tensor import _wrap

    if _capture.active or type(running._data) is not np.ndarray:
        running.copy_(_wrap(new))
        counter = running._vc
        if counter is not None and counter is not INFERENCE_VC and counter is not INFERENCE_DETACHED:
            counter[0] -= 1  # the copy's bump, taken back
        if _capture.active and _capture.tracer is not None:
            _capture.tracer.unversioned(running)
    else:
        np.copyto(running._data, new, casting="unsafe")


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
