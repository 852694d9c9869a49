"""One LSTM time step as one op (the recurrent layers' hot loop).

Written as ~13 small ops a step, an LSTM spends its time in per-op bookkeeping; as one op it
does one matrix product and a few in-place NumPy passes forward, and one pass back.

Note: two backwards. When no graph is being recorded (an ordinary ``backward()``), the
gradients are computed on arrays from the gates kept by the forward. Under ``create_graph``
the step is recomputed from its saved inputs with differentiable Tensor ops and differentiated
with ``autograd.grad``, so derivatives of every order stay exact.
"""

from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import state as _grad_state
from .registry import Op, register

_ALL = ("projected", "hx", "cx", "weight_hh", "bias_hh")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out = np.negative(x)
    np.exp(out, out=out)
    out += 1
    np.reciprocal(out, out=out)
    return out


def lstm_step_reference(projected, h, c, weight_hh, bias_hh):
    """The step with differentiable Tensor ops (used under create_graph)."""
    from ..nn import functional as F

    gates = projected + F.linear(h, weight_hh, bias_hh)
    size = weight_hh.shape[0] // 4
    ifo = gates.sigmoid()
    i, f, o = ifo[..., :size], ifo[..., size:2 * size], ifo[..., 3 * size:]
    g = gates[..., 2 * size:3 * size].tanh()
    c_next = f * c + i * g
    return o * c_next.tanh(), c_next


@register
class LSTMStep(Op):
    """``(h', c')`` from the input projection of one step, the state and the recurrent
    weights: gates (i, f, g, o) as torch orders them."""

    node = "LstmStepBackward0"
    inputs = _ALL
    saves = {name: _ALL for name in _ALL} | {"arrays": _ALL}
    multi_output = True
    torch_names = ("lstm_cell",)

    @staticmethod
    def forward(ctx, projected, h, c, weight_hh, bias_hh):
        gates = h @ weight_hh.T
        gates += projected
        if bias_hh is not None:
            gates += bias_hh
        size = weight_hh.shape[0] // 4
        sig = _sigmoid(gates)
        i, f, o = sig[..., :size], sig[..., size:2 * size], sig[..., 3 * size:]
        g = np.tanh(gates[..., 2 * size:3 * size])
        c_next = f * c
        c_next += i * g
        tanh_c = np.tanh(c_next)
        h_next = o * tanh_c
        if ctx is not None:
            ctx.keep("arrays", (i, f, g, o, tanh_c))
        return h_next.astype(h.dtype, copy=False), c_next.astype(c.dtype, copy=False)

    def backward(self, grads):
        grads = list(grads) + [None] * (2 - len(grads))
        if _grad_state.grad_enabled:
            return self._backward_recorded(grads)
        from ..tensor import _wrap

        grad_h, grad_c = grads
        i, f, g, o, tanh_c = self.saved("arrays")
        c_prev = self.saved("cx")._data
        if grad_h is not None:
            gh = grad_h._data
            grad_o = gh * tanh_c
            dc = gh * o * (1 - tanh_c * tanh_c)
            if grad_c is not None:
                dc += grad_c._data
        else:
            grad_o = np.zeros_like(o)
            dc = grad_c._data.copy()
        gates = np.concatenate(
            [dc * g * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - g * g),
             grad_o * o * (1 - o)], axis=-1)
        results = [None] * 5
        if self.needs_grad(0):
            results[0] = _wrap(gates)
        if self.needs_grad(1):
            results[1] = _wrap(gates @ self.saved("weight_hh")._data)
        if self.needs_grad(2):
            results[2] = _wrap(dc * f)
        if self.needs_grad(3):
            h = self.saved("hx")._data
            results[3] = _wrap(gates.reshape(-1, gates.shape[-1]).T @ h.reshape(-1, h.shape[-1]))
        if self.needs_grad(4):
            results[4] = _wrap(gates.reshape(-1, gates.shape[-1]).sum(0))
        return tuple(results)

    def _backward_recorded(self, grads):
        from ..autograd import grad as autograd_grad

        inputs = [self.saved(name) for name in _ALL]
        outputs = lstm_step_reference(*inputs)
        wanted = [k for k in range(5) if self.needs_grad(k)]
        pairs = [(out, g) for out, g in zip(outputs, grads) if g is not None]
        found = autograd_grad([out for out, _ in pairs], [inputs[k] for k in wanted],
                              [g for _, g in pairs], create_graph=True, allow_unused=True)
        results = [None] * 5
        for k, value in zip(wanted, found):
            results[k] = value
        return tuple(results)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.lstm_cell: one LSTM step, ``(h', c')``."""
    from ..nn import functional as F

    h, c = hx
    return LSTMStep.apply(F.linear(input, w_ih, b_ih), h, c, w_hh, b_hh)
