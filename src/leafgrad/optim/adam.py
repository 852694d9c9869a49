"""Adam and AdamW with torch's single-tensor update, step for step.

The update runs on the parameters' arrays in place (a few NumPy calls per term, no graph),
in the order and precision torch's CPU kernels use, so parameters and state are torch's bit
for bit: ``exp_avg.lerp_(grad, 1 - beta1)`` and ``exp_avg_sq.mul_(beta2).addcmul_(grad, grad,
1 - beta2)`` each end in one fused multiply-add (ATen's ``vec::fmadd``), ``sqrt`` is MKL's
where torch calls it, and ``param.addcdiv_(exp_avg, exp_avg_sq.sqrt() / sqrt(bc2) + eps,
value=-lr / bc1)`` divides ``value * exp_avg`` by the denominator; the bias corrections are
Python floats from the float32 ``step`` counter.
"""

from __future__ import annotations

import numpy as np

from .._creation import tensor, zeros_like
from .. import _dtype
from ..ops import _blas, _float_kernels as _fk, _numba_kernels
from ..tensor import Tensor
from . import _fused
from .adaptive import real_views
from .optimizer import Optimizer, check_fused
from ..autograd.grad_mode import no_grad

__all__ = ["Adam", "AdamW"]


def _scalar(value) -> float:
    return value.item() if isinstance(value, Tensor) else value


class Adam(Optimizer):
    """Adaptive moment estimation (Kingma & Ba), with torch's options."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError(
                    "lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for index, beta in enumerate(betas):
            if isinstance(beta, Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{index}] as a Tensor is not supported for "
                                     "capturable=False and foreach=True")
                if beta.numel() != 1:
                    raise ValueError(f"Tensor betas[{index}] must be 1-element")
        # torch's _to_scalar: tensor betas stay tensors (0-d) in the groups; read at each step
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b
                      for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)

    def step(self, closure=None):
        return self._run_step(self._update, closure)

    def _update(self) -> None:
        for group in self.param_groups:
            beta1, beta2 = (_scalar(beta) for beta in group["betas"])
            lr = _scalar(group["lr"])
            weight_decay, eps = group["weight_decay"], group["eps"]
            amsgrad, maximize = group["amsgrad"], group["maximize"]
            decoupled = group["decoupled_weight_decay"]
            for param in group["params"]:
                grad_t = param._grad_value
                if grad_t is None:
                    continue
                if grad_t.is_sparse:
                    raise RuntimeError("Adam does not support sparse gradients, please "
                                       "consider SparseAdam instead")  # (AdamW's too)
                if group["fused"]:
                    check_fused(param)
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = tensor(0.0, dtype=_dtype.float32)
                    state["exp_avg"] = zeros_like(param)
                    state["exp_avg_sq"] = zeros_like(param)
                    if amsgrad:
                        state["max_exp_avg_sq"] = zeros_like(param)
                data = param._data
                if param.is_complex():  # torch's view_as_real: the parts updated apart
                    view_group = group
                    if weight_decay != 0 and not group["foreach"]:
                        # (torch's for-loop decays the complex numbers, its foreach the parts)
                        if group["maximize"]:
                            grad_t = -grad_t
                            view_group = {**view_group, "maximize": False}
                        if decoupled:
                            param.mul_(1 - lr * weight_decay)
                        else:
                            grad_t = grad_t.add(param, alpha=weight_decay)
                        view_group = {**view_group, "weight_decay": 0}
                    param_view, grad_view, state_view = real_views(param, grad_t, state)
                    if group["differentiable"]:
                        _differentiable_update(param_view, grad_view, state_view, view_group,
                                               lr)
                    else:
                        _tensor_update(param_view, grad_view, state_view, view_group, lr)
                    continue
                if group["differentiable"]:  # recorded: torch's tensor ops (step under grad)
                    _differentiable_update(param, grad_t, state, group, lr)
                    continue
                if group["fused"] and _fused.supports(data, *(state[name]._data for name in (
                        "exp_avg", "exp_avg_sq", "max_exp_avg_sq") if name in state)):
                    step_t = state["step"]
                    step_t._data += np.float32(1)
                    step_t._bump_version()
                    _fused.adam(data, grad_t._data, state["exp_avg"]._data,
                                state["exp_avg_sq"]._data,
                                state["max_exp_avg_sq"]._data if amsgrad else None,
                                float(step_t._data), lr=lr, beta1=beta1, beta2=beta2,
                                weight_decay=weight_decay, eps=eps, amsgrad=amsgrad,
                                maximize=maximize, decoupled=decoupled)
                    for name in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
                        if name in state:
                            state[name]._bump_version()
                    param._bump_version()
                    continue
                if data.dtype.kind == "V":  # bfloat16: torch's tensor ops, each rounded once
                    _tensor_update(param, grad_t, state, group, lr)
                    continue
                kind = data.dtype.type
                grad = np.negative(grad_t._data) if maximize else grad_t._data
                step_t = state["step"]
                step_t._data += np.float32(1)
                step_t._bump_version()
                exp_avg = state["exp_avg"]._data
                exp_avg_sq = state["exp_avg_sq"]._data
                with np.errstate(all="ignore"):  # torch's kernels compute silently
                    if weight_decay != 0:
                        if decoupled:
                            data *= kind(1 - lr * weight_decay)
                        else:  # grad.add(param, alpha=weight_decay): one fused multiply-add
                            grad = _fk.fma_into(kind(weight_decay), data, grad,
                                                np.empty_like(data))
                    # exp_avg.lerp_(grad, 1 - beta1): fmadd(w, grad - exp_avg, exp_avg), or
                    # fmadd(w - 1, grad - exp_avg, grad) for w >= 0.5 (ATen's lerp_vec)
                    weight = kind(1 - beta1)
                    # in a compiled replay, the moments' NumPy steps below as one loop (the
                    # same bits: ops/_numba_kernels.py)
                    looped = _numba_kernels.active and _numba_kernels.adam_moments(
                        grad, exp_avg, exp_avg_sq, weight, beta2, 1 - beta2)
                    diff = None if looped else np.subtract(grad, exp_avg)  # (scratch below)
                    if looped:
                        pass
                    elif abs(weight) < 0.5:
                        # exp_avg += weight * diff, fused: MKL's axpy where it is installed
                        if not (diff.ndim and _blas.axpy(weight, diff, exp_avg)):
                            _fk.fma_into(weight, diff, exp_avg, exp_avg)
                    else:
                        _fk.fma_into(weight - 1, diff, grad, exp_avg)
                    # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2):
                    # fmadd((1 - beta2) * grad, grad, exp_avg_sq)
                    if not looped:
                        exp_avg_sq *= kind(beta2)
                        scaled = np.multiply(grad, kind(1 - beta2),
                                             out=diff if diff.ndim else None)
                        _fk.fma_into(scaled, grad, exp_avg_sq, exp_avg_sq)
                    step = float(step_t._data)
                    bias_correction1 = 1 - beta1**step
                    bias_correction2_sqrt = (1 - beta2**step) ** 0.5
                    step_size = lr / bias_correction1
                    if amsgrad:
                        maximum = state["max_exp_avg_sq"]._data
                        np.maximum(maximum, exp_avg_sq, out=maximum)
                        denom = _fk.sqrt(maximum)  # MKL's where torch calls it
                    else:
                        denom = _fk.sqrt(exp_avg_sq)
                    if not (looped and _numba_kernels.adam_apply(
                            data, exp_avg, denom, bias_correction2_sqrt, eps, -step_size)):
                        denom /= kind(bias_correction2_sqrt)
                        denom += kind(eps)
                        # param.addcdiv_(exp_avg, denom, value=-step_size): (value * exp_avg)
                        # / denom, added (ATen's addcdiv kernel)
                        update = np.multiply(exp_avg, kind(-step_size),
                                             out=diff if diff is not None and diff.ndim
                                             else None)
                        update /= denom
                        data += update
                # one bump per in-place op of torch's _single_tensor_adam: exp_avg_sq's
                # mul_ and addcmul_, the param's mul_ (decoupled weight decay) and addcdiv_
                # (generated programs' optimizer stage, seed 22)
                for name in ("exp_avg", "exp_avg_sq", "exp_avg_sq", "max_exp_avg_sq"):
                    if name in state:
                        state[name]._bump_version()
                if weight_decay != 0 and decoupled:
                    param._bump_version()
                param._bump_version()


def _tensor_update(param, grad, state, group, lr) -> None:
    """torch's _single_tensor_adam written with its tensor ops: for bfloat16, whose ops compute
    in float32 and round each result (Note: opmath for bfloat16, ops/_bfloat16.py; NumPy calls
    on the arrays would round after every operation inside those ops), and for the real views
    of a complex parameter."""
    beta1, beta2 = (_scalar(beta) for beta in group["betas"])
    weight_decay, eps = group["weight_decay"], group["eps"]
    with no_grad():
        if group["maximize"]:
            grad = -grad
        step_t = state["step"]
        step_t += 1
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        bias_correction1 = 1 - beta1**step
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        step_size = lr / bias_correction1
        if group["amsgrad"]:
            maximum = state["max_exp_avg_sq"]
            maximum.copy_(maximum.maximum(exp_avg_sq))
            denom = (maximum.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


def _differentiable_update(param, grad, state, group, lr) -> None:
    """torch's _single_tensor_adam with differentiable=True, which runs with grad enabled
    (Optimizer._run_step): its tensor branch, the bias corrections as float32 tensors from the
    step counter, the step size folded into the denominator, and the moments cloned where
    they are read after being written (an in-place update of a leaf parameter that requires
    grad raises autograd's error there, as torch's)."""
    beta1, beta2 = (_scalar(beta) for beta in group["betas"])
    weight_decay, eps = group["weight_decay"], group["eps"]
    if group["maximize"]:
        grad = -grad
    step_t = state["step"]
    step_t += 1
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias_correction1 = 1 - beta1**step_t
    bias_correction2 = 1 - beta2**step_t
    step_size_neg = (lr / bias_correction1).neg()
    bias_correction2_sqrt = bias_correction2.sqrt()
    source = exp_avg_sq
    if group["amsgrad"]:
        maximum_sq = state["max_exp_avg_sq"]
        maximum_sq.copy_(maximum_sq.clone().maximum(exp_avg_sq))
        source = maximum_sq
    denom = (source.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
    param.addcdiv_(exp_avg.clone(), denom)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter); weight_decay defaults to 1e-2."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
