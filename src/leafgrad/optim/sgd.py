"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay (torch.optim.SGD)."""

from __future__ import annotations

from .._creation import zeros_like
from ..tensor import Tensor
from . import _fused
from .optimizer import Optimizer, check_fused

__all__ = ["SGD"]


class SGD(Optimizer):
    """``p -= lr * g`` with torch's momentum buffer rule (``buf = momentum * buf + (1 - dampening) * g``)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def step(self, closure=None):
        return self._run_step(self._update, closure)

    def _update(self) -> None:
        for group in self.param_groups:
            lr, momentum = group["lr"], group["momentum"]
            dampening, weight_decay = group["dampening"], group["weight_decay"]
            if group["fused"]:
                self._fused_update(group)
                continue
            for param in group["params"]:
                if param.grad is None:
                    continue
                grad = param.grad if not group["maximize"] else -param.grad
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                if momentum != 0:
                    state = self.state.setdefault(param, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = grad.clone().detach()
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
                _add_step(param, grad, lr)

    def _fused_update(self, group: dict) -> None:
        """torch's fused=True path: one kernel per parameter (optim/_fused.py), the first
        step's buffers taking the gradient when no parameter of the group has one yet."""
        params = [p for p in group["params"] if p.grad is not None]
        for param in params:
            check_fused(param)
        if any(p.grad.is_sparse for p in params):
            raise RuntimeError("`_fused_sgd` does not support sparse gradients")
        momentum = group["momentum"]
        first_step = momentum != 0 and all(
            self.state.get(p, {}).get("momentum_buffer") is None for p in params)
        lr = group["lr"].item() if isinstance(group["lr"], Tensor) else group["lr"]
        for param in params:
            buf = None
            if momentum != 0:
                state = self.state.setdefault(param, {})
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = zeros_like(param.grad)
            arrays = (param._data,) if buf is None else (param._data, buf._data)
            if not _fused.supports(*arrays):  # (float16, bfloat16: the for-loop's update)
                self._single_update(param, group, buf, first_step)
                continue
            _fused.sgd(param._data, param.grad._data, None if buf is None else buf._data,
                       weight_decay=group["weight_decay"], momentum=momentum, lr=lr,
                       dampening=group["dampening"], nesterov=group["nesterov"],
                       maximize=group["maximize"], first_step=first_step)
            param._bump_version()
            if buf is not None:
                buf._bump_version()

    def _single_update(self, param, group, buf, first_step) -> None:
        grad = param.grad if not group["maximize"] else -param.grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        if buf is not None:
            if first_step:
                buf.copy_(grad)
            else:
                buf.mul_(group["momentum"]).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=group["momentum"]) if group["nesterov"] else buf
        _add_step(param, grad, group["lr"])


def _add_step(param, grad, lr) -> None:
    """``param -= lr * grad``; a tensor lr as torch's (_to_scalar: one element, any shape): a
    number unless it requires grad, then ``addcmul_`` so the step is recorded."""
    if isinstance(lr, Tensor):
        if lr.requires_grad:
            param.addcmul_(grad, lr.reshape(()), value=-1)
            return
        lr = lr.item()
    param.add_(grad, alpha=-lr)
