"""Optimizer calls a replay runs as array code instead of the eager method (the rest are
replayed by calling the method on the live optimizer, see capture.py).

``sgd_step``: the SGD update (one float learning rate; momentum, weight decay, maximize and
Nesterov too; not fused or differentiable, no step hooks of its own or global ones, no
profiler): ``p += g * -lr`` on the arrays, the same fused multiply-add eager
``param.add_(grad, alpha=-lr)`` makes (ops/inplace.py ``_ufunc_inplace``,
ops/_float_kernels.scaled_update), and the momentum buffer's NumPy calls, without the Tensor
methods, the in-place ops' checks and the per-parameter Python of ``SGD.step``. Whatever it does not cover it leaves to the method: it
returns False before touching anything and the replay calls ``SGD.step``.
"""

from __future__ import annotations

import functools

import numpy as np

from ..ops._float_kernels import scaled_update
from ..ops.registry import _loud, _quiet

__all__ = ["fast_call", "param_ids"]


def param_ids(optimizer) -> tuple:
    """The identities of the optimizer's parameters, group by group (a replay's guard)."""
    return tuple([id(p) for group in optimizer.param_groups for p in group["params"]])


def _covered(optimizer, params: tuple) -> bool:
    """Whether ``optimizer.step()`` is now exactly what ``sgd_step`` does for ``params`` (the
    parameters it held at capture, in order): one group, float lr (momentum and weight decay,
    when on, floats; dampening an int 0), no hooks of its own or global ones, no profiler,
    not fused or differentiable, float parameters and gradients of one dtype and shape, C-contiguous,
    momentum buffers likewise."""
    from .. import _profiling
    from ..optim import optimizer as _optimizer

    groups = optimizer.param_groups
    if len(groups) != 1 or optimizer._optimizer_step_pre_hooks or \
            optimizer._optimizer_step_post_hooks or _optimizer._global_optimizer_pre_hooks or \
            _optimizer._global_optimizer_post_hooks or _profiling.active:
        return False  # (the method runs the hooks, and labels the step for the profiler)
    group = groups[0]
    momentum, decay = group["momentum"], group["weight_decay"]
    if (type(group["lr"]) is not float or group.get("fused")
            or optimizer.defaults.get("differentiable")
            or (momentum != 0 and type(momentum) is not float)
            or (decay != 0 and type(decay) is not float)
            or group["dampening"] != 0 or type(group["dampening"]) is not int
            or type(group["maximize"]) is not bool or type(group["nesterov"]) is not bool):
        return False  # (differentiable: the method's recorded update, or its error)
    held = group["params"]
    if len(held) != len(params):
        return False
    state = optimizer.state
    for param, expected in zip(held, params):
        if param is not expected:
            return False
        grad = param._grad_value
        if grad is not None:
            data, values = param._data, grad._data
            if (type(data) is not np.ndarray or type(values) is not np.ndarray
                    or values.dtype is not data.dtype and values.dtype != data.dtype
                    or data.dtype.char not in "fd" or values.shape != data.shape
                    or not (data.flags.c_contiguous and values.flags.c_contiguous)):
                return False
            if momentum != 0:
                buf = state[param].get("momentum_buffer") if param in state else None
                if buf is not None and (type(buf._data) is not np.ndarray
                                        or buf._data.dtype != data.dtype
                                        or buf._data.shape != data.shape
                                        or not buf._data.flags.c_contiguous
                                        or not buf._data.flags.writeable):
                    return False
    return True


def sgd_step(optimizer, params: tuple) -> bool:
    """SGD.step's update on the arrays, each step the NumPy call the eager step makes
    (optim/sgd.py; ops/inplace.py ``_ufunc_inplace`` for the in-place ones, Add.forward's fused
    multiply-add for ``grad.add(x, alpha=a)``): ``-grad`` for maximize, ``grad + wd * param``,
    the momentum buffer (a copy of the gradient the first time, then ``buf *= momentum``,
    ``buf += grad``), ``grad + momentum * buf`` for Nesterov, then ``param += -lr * step``,
    with the version bumps of the in-place ones. False (nothing touched): the method runs."""
    from ..tensor import _wrap

    if not _covered(optimizer, params):
        return False
    group = optimizer.param_groups[0]
    alpha = -group["lr"]
    momentum, decay = group["momentum"], group["weight_decay"]
    maximize, nesterov = group["maximize"], group["nesterov"]
    state = optimizer.state
    token = _quiet()
    try:
        for param in params:
            grad = param._grad_value
            if grad is None:
                continue
            data = param._data
            step = grad._data
            if maximize:
                step = np.negative(step)
            if decay != 0:
                step = scaled_update(np.add, step, data, decay)
            if momentum != 0:
                entry = state.setdefault(param, {})
                buf = entry.get("momentum_buffer")
                if buf is None:
                    buf = entry["momentum_buffer"] = _wrap(step.copy())
                else:
                    values = buf._data
                    np.multiply(values, momentum, out=values, casting="unsafe")
                    buf._bump_version()
                    np.add(values, step, out=values)
                    buf._bump_version()
                step = scaled_update(np.add, step, buf._data, momentum) if nesterov \
                    else buf._data
            scaled_update(np.add, data, step, alpha, out=data)  # one fused multiply-add
            param._bump_version()
    finally:
        _loud(token)
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
