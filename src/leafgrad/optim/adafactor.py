"""Adafactor (Shazeer & Stern, 2018) with torch 2.13's single-tensor update: factored second
moments (a row and a column variance) for parameters of 2 or more dims, a full one for vectors,
a relative step size ``min(lr, 1/sqrt(t))`` scaled by the parameter's RMS, and update
clipping by ``d``."""

from __future__ import annotations

from .._creation import tensor, zeros_like
from .. import _dtype
from .._info import finfo
from ..tensor import Tensor
from .adaptive import _Adaptive

__all__ = ["Adafactor"]


class Adafactor(_Adaptive):
    """Memory-light adaptive optimizer: O(rows + cols) state per matrix instead of O(rows * cols).

    >>> import leafgrad as torch
    >>> w = torch.nn.Parameter(torch.ones(2, 3))
    >>> opt = torch.optim.Adafactor([w])
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    def _init_state(self, state, param, group):
        if param.dtype.is_complex:
            raise RuntimeError("Adafactor does not support complex parameters")
        grad = param.grad
        state["step"] = tensor(0.0, dtype=_dtype.float32)
        if grad.dim() > 1:
            row_shape = list(grad.shape)
            row_shape[-1] = 1
            state["row_var"] = grad.new_zeros(row_shape)
            col_shape = list(grad.shape)
            col_shape[-2] = 1
            state["col_var"] = grad.new_zeros(col_shape)
        else:
            state["variance"] = zeros_like(grad)

    def _update_one(self, param, grad, state, group):
        lr = group["lr"].item() if isinstance(group["lr"], Tensor) else group["lr"]
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = finfo(param.dtype).eps
        state["step"] += 1
        step = state["step"].item()
        one_minus_beta2 = step ** group["beta2_decay"]
        rho = min(lr, 1 / (step ** 0.5))
        alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho
        if group["weight_decay"] != 0:
            param.mul_(1 - lr * group["weight_decay"])
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_mean = grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1))
            row_var.lerp_(row_mean, one_minus_beta2)
            col_mean = grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2))
            col_var.lerp_(col_mean, one_minus_beta2)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance = state["variance"]
            variance.lerp_(grad * grad, one_minus_beta2)
            var_estimate = variance.clone()  # the update must not write into the state
        # eps1 is squared because the square root follows
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
        if group["foreach"]:  # torch's _multi_tensor_adafactor: scaled, then added (two
            param.add_(update.mul_(-alpha / denom))  # roundings where add's alpha fuses)
        else:
            param.add_(update, alpha=-alpha / denom)
