"""Optimizer calls a replay runs as array code instead of the eager method (the rest are
replayed by calling the method on the live optimizer, see capture.py).

``sgd_step``: the plain SGD update (no momentum, weight decay or maximize, one float learning
rate, not fused or differentiable, no step hooks of its own or global ones, no profiler), ``p += g * -lr`` on the arrays: the same fused multiply-add eager
``param.add_(grad, alpha=-lr)`` makes (ops/inplace.py ``_ufunc_inplace``,
ops/_float_kernels.scaled_update), without the Tensor method, the in-place op's checks and the
per-parameter Python of ``SGD.step``. Whatever it does not cover it leaves to the method: it
returns False before touching anything and the replay calls ``SGD.step``.
"""

from __future__ import annotations

import functools

import numpy as np

from ..ops._float_kernels import scaled_update

__all__ = ["fast_call", "param_ids"]


def param_ids(optimizer) -> tuple:
    """The identities of the optimizer's parameters, group by group (a replay's guard)."""
    return tuple([id(p) for group in optimizer.param_groups for p in group["params"]])


def _plain_sgd(optimizer, params: tuple) -> bool:
    """Whether ``optimizer.step()`` is now exactly ``p += g * -lr`` for each of ``params``
    (the parameters it held at capture, in order)."""
    from .. import _profiling
    from ..optim import optimizer as _optimizer

    groups = optimizer.param_groups
    if len(groups) != 1 or optimizer._optimizer_step_pre_hooks or \
            optimizer._optimizer_step_post_hooks or _optimizer._global_optimizer_pre_hooks or \
            _optimizer._global_optimizer_post_hooks or _profiling.active:
        return False  # (the method runs the hooks, and labels the step for the profiler)
    group = groups[0]
    if (group["momentum"] != 0 or group["weight_decay"] != 0 or group["maximize"]
            or type(group["lr"]) is not float or group.get("fused")
            or optimizer.defaults.get("differentiable")):
        return False  # (differentiable: the method's recorded update, or its error)
    held = group["params"]
    if len(held) != len(params):
        return False
    for param, expected in zip(held, params):
        if param is not expected:
            return False
        grad = param._grad_value
        if grad is not None:
            data, values = param._data, grad._data
            if (values.dtype is not data.dtype and values.dtype != data.dtype) or \
                    data.dtype.kind != "f" or values.shape != data.shape:
                return False
    return True


def sgd_step(optimizer, params: tuple) -> bool:
    if not _plain_sgd(optimizer, params):
        return False
    alpha = -optimizer.param_groups[0]["lr"]
    for param in params:
        grad = param._grad_value
        if grad is None:
            continue
        data = param._data
        scaled_update(np.add, data, grad._data, alpha, out=data)  # one fused multiply-add
        param._bump_version()
    return True


def fast_call(method, optimizer, name: str, kwargs: dict):
    """The array-code replacement for a captured optimizer call, as ``(function, args)`` for
    ``function(*args) -> bool`` (False: call the method instead), or None."""
    from ..optim.sgd import SGD

    if not isinstance(method, functools.partial) or kwargs or name != "step":
        return None
    if type(optimizer) is not SGD or method.func is not getattr(SGD.step, "__wrapped__", None):
        return None
    params = tuple(p for g in optimizer.param_groups for p in g["params"])
    return sgd_step, (optimizer, params)
