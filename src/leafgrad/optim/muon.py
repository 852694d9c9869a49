"""Muon: momentum whose update is orthogonalised by a Newton-Schulz iteration, for the 2-d weight
matrices of hidden layers (torch 2.13's ``torch.optim.Muon``, single-tensor form).

Each step, per matrix parameter ``p`` with gradient ``g``:

- the momentum buffer moves toward the gradient, ``B <- B + (1 - mu)(g - B)``; the update is
  ``g + mu (B - g)`` with Nesterov momentum, else ``B``;
- the update is orthogonalised in bfloat16: scaled to a Frobenius norm of at most 1, then
  ``ns_steps`` rounds of ``X <- a X + (b G + c G @ G) @ X`` with ``G = X @ X^T`` (on the wide
  side: a tall matrix is transposed first and back after);
- decoupled weight decay ``p <- p (1 - lr * weight_decay)``, then ``p <- p - lr' O`` with ``lr'``
  the learning rate scaled for the matrix's shape (``adjust_lr_fn``).
"""

from __future__ import annotations

import math

from .._creation import zeros_like
from .._functions_linalg import addmm
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Muon"]

# the quintic iteration's coefficients and defaults, as torch 2.13 sets them
_DEFAULT_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
_DEFAULT_EPS = 1e-7
_DEFAULT_STEPS = 5
_ADJUSTMENTS = ("original", "match_rms_adamw")


def _orthogonalise(update: Tensor, coefficients, steps: int, eps: float) -> Tensor:
    """The Newton-Schulz iteration's approximate ``U V^T`` of ``update`` (bfloat16)."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(update.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = update.size(0) > update.size(1)
    x = update.bfloat16()
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))  # spectral norm at most 1 (the Frobenius norm bounds it)
    for _ in range(steps):
        gram = x @ x.T
        x = addmm(x, addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def _scaled_lr(lr, adjust_lr_fn, shape):
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Orthogonalised momentum for 2-d parameters (optimise biases, norms and embeddings with
    another optimizer, e.g. AdamW).

    >>> import leafgrad as torch
    >>> w = torch.nn.Parameter(torch.ones(3, 2))
    >>> opt = torch.optim.Muon([w], lr=0.02)
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=_DEFAULT_COEFFICIENTS, eps=_DEFAULT_EPS,
                 ns_steps=_DEFAULT_STEPS, adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in _ADJUSTMENTS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum,
                                      nesterov=nesterov, ns_coefficients=ns_coefficients,
                                      eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for param in group["params"]:
                if param.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: torch.Size({list(param.shape)})")

    def step(self, closure=None):
        return self._run_step(self._update, closure)

    def _update(self) -> None:
        for group in self.param_groups:
            # torch checks a group's parameters (and makes their buffers) before updating any
            chosen = []
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if param.dtype.is_complex:
                    raise RuntimeError("Muon does not support complex parameters")
                chosen.append(param)
                state = self.state[param]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = zeros_like(grad)
            lr = group["lr"]
            if isinstance(lr, Tensor) and lr.dim() != 0:
                lr = lr.squeeze()
            momentum, decay = group["momentum"], group["weight_decay"]
            for param in chosen:
                grad = param.grad
                if grad.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                buffer = self.state[param]["momentum_buffer"]
                buffer.lerp_(grad, 1 - momentum)
                update = grad.lerp(buffer, momentum) if group["nesterov"] else buffer
                update = _orthogonalise(update, group["ns_coefficients"], group["ns_steps"],
                                        group["eps"])
                param.mul_(1 - lr * decay)
                param.add_(update, alpha=-_scaled_lr(lr, group["adjust_lr_fn"], param.shape))

