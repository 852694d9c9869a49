"""Rprop, ASGD and SparseAdam with torch's single-tensor updates and state keys.

As in ``adaptive.py``, each update is the sequence of tensor operations torch's (non-foreach)
kernel runs, in its order, so parameters and ``state_dict()`` agree with torch step for step.
"""

from __future__ import annotations

import math

from .._creation import full_like, tensor, zeros_like
from ..tensor import Tensor
from .adaptive import _Adaptive, _lr
from .optimizer import Optimizer
from .._dtype import get_default_dtype

__all__ = ["Rprop", "ASGD", "SparseAdam"]


def _scalar_dtype():
    """torch's _get_scalar_dtype(): the default dtype (float32 or float64)."""
    return get_default_dtype()


class Rprop(_Adaptive):
    """Resilient backpropagation: a step size per element, grown while the gradient keeps its
    sign and shrunk when it flips (the update skipped for that element)."""

    _capturable_xla = (True, True)  # (Note: capturable on the CPU)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _init_state(self, state, param, group):
        state["step"] = tensor(0.0, dtype=_scalar_dtype())
        state["prev"] = zeros_like(param)
        lr = _lr(group["lr"])
        # torch's: a complex parameter's step size is lr in both parts
        state["step_size"] = full_like(param.grad, complex(lr, lr) if param.is_complex() else lr)

    def _update_one(self, param, grad, state, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        prev, step_size = state["prev"], state["step_size"]
        state["step"] += 1
        sign = grad.mul(prev.clone() if group["differentiable"] else prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0  # the sign flipped: no step for that element
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)


class ASGD(_Adaptive):
    """Averaged SGD: SGD with a decaying step size ``eta`` and a running average ``ax`` of the
    iterates (started after ``t0`` steps)."""

    _capturable_what = "params, mus, etas, and state_steps"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _init_state(self, state, param, group):
        scalar = _scalar_dtype()
        state["step"] = tensor(0.0, dtype=scalar)
        state["eta"] = tensor(_lr(group["lr"]), dtype=scalar)
        state["mu"] = tensor(1.0, dtype=scalar)
        state["ax"] = zeros_like(param)

    def _update_one(self, param, grad, state, group):
        lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
        lr = _lr(group["lr"])
        mu, ax, eta = state["mu"], state["ax"], state["eta"]
        state["step"] += 1
        if group["foreach"]:
            self._foreach_update_one(param, grad, state, group, lr)
            return
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = state["step"].item()
        # torch.as_tensor(python float) is a default-dtype scalar, copied into the state's
        eta.copy_(tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(tensor(1 / max(1, step - t0)))

    @staticmethod
    def _foreach_update_one(param, grad, state, group, lr) -> None:
        """torch's _multi_tensor_asgd for one parameter: the decay and the step as one
        ``addcmul_`` with the eta tensor, and the average always by ``addcmul_``."""
        lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
        mu, ax, eta = state["mu"], state["ax"], state["eta"]
        if group["weight_decay"] != 0:
            intermediate = grad.add(param, alpha=group["weight_decay"])
            intermediate.add_(param, alpha=lambd)
        else:
            intermediate = grad.add(param, alpha=lambd)
        param.addcmul_(intermediate, eta, value=-1)
        ax.addcmul_(param.sub(ax), mu)
        # eta from the float32 step tensor itself (tensor arithmetic, rounded at each op)
        eta.copy_(lr / ((1 + lambd * lr * state["step"]) ** alpha))
        mu.copy_(tensor(1 / max(1, state["step"].item() - t0)))


class SparseAdam(Optimizer):
    """Adam for sparse gradients (nn.Embedding(sparse=True)'s): each step updates the moments
    and the parameter at the gradient's (coalesced) entries only, as torch's sparse_adam."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        # torch checks the groups once made (so a sparse or complex parameter passes the base
        # class's checks first), every offender's [group, index] in one message
        sparse, complex_ = [], []
        for index, group in enumerate(self.param_groups):
            for position, param in enumerate(group["params"]):
                if param.is_sparse:
                    sparse.append([index, position])
                if param.is_complex():
                    complex_.append([index, position])
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense "
                             "parameter tensors")
        if complex_:
            raise ValueError(f"Complex params at indices {complex_}: SparseAdam does not "
                             "support complex parameters")

    def step(self, closure=None):
        def update():
            from .. import zeros_like
            from ..sparse._tensor import make

            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    grad = param.grad
                    if not grad.is_sparse:
                        raise RuntimeError("SparseAdam does not support dense gradients, please "
                                           "consider Adam instead")
                    state = self.state[param]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = zeros_like(param)
                        state["exp_avg_sq"] = zeros_like(param)
                    state["step"] += 1
                    grad = (-grad if group["maximize"] else grad).coalesce()
                    indices, values = grad._sp_indices, grad._values()
                    if not values.numel():
                        continue

                    def sparse_of(update_values):
                        return make(indices, update_values._data, tuple(grad.shape), False)

                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    old_avg = exp_avg.sparse_mask(grad)._values()
                    avg_update = values.sub(old_avg).mul_(1 - beta1)
                    exp_avg.add_(sparse_of(avg_update))
                    old_sq = exp_avg_sq.sparse_mask(grad)._values()
                    sq_update = values.pow(2).sub_(old_sq).mul_(1 - beta2)
                    exp_avg_sq.add_(sparse_of(sq_update))
                    numer = avg_update.add_(old_avg)
                    denom = sq_update.add_(old_sq).sqrt_().add_(group["eps"])
                    step = state["step"]
                    bias_correction1 = 1 - beta1 ** step
                    bias_correction2 = 1 - beta2 ** step
                    step_size = group["lr"] * math.sqrt(bias_correction2) / bias_correction1
                    param.add_(sparse_of(-step_size * numer.div_(denom)))

        return self._run_step(update, closure)

