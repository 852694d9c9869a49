"""RMSprop, Adagrad, Adadelta, Adamax, NAdam and RAdam with torch's single-tensor updates.

Each update is the sequence of in-place tensor operations torch's (non-foreach) kernels run,
in the same order, on tensors of the parameter's dtype, with torch's state keys (a float32
``step`` tensor per parameter, ``square_avg``, ``exp_avg``, ...), so parameters and
``state_dict()`` agree with torch step for step.
"""

from __future__ import annotations

from .._creation import full_like, tensor, zeros_like
from .. import _dtype
from ..tensor import Tensor
from . import _fused
from .optimizer import Optimizer, check_fused

__all__ = ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"]


def _lr(value):
    return value.item() if isinstance(value, Tensor) else value


def _check(lr, eps=None, weight_decay=0.0, betas=None) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if betas is not None:
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def real_views(param: Tensor, grad: Tensor, state: dict, view_param: bool = True):
    """A complex parameter as torch's updates treat it (view_as_real of the parameter, its
    gradient and its complex state): every operation runs on the real and imaginary parts
    apart, so ``grad * grad`` squares each part instead of multiplying complex numbers. The
    state dict returned holds views of the same storage (its other entries the same objects),
    so the updates land in the optimizer's state."""
    from .. import view_as_real

    views = {key: view_as_real(value) if isinstance(value, Tensor) and value.is_complex()
             else value for key, value in state.items()}
    return (view_as_real(param) if view_param else param), view_as_real(grad), \
        _StateView(state, views)


class _StateView(dict):
    """The real views of a complex parameter's state; an entry set here (a new tensor) is set
    in the optimizer's state too (as a complex tensor when it is a real view's shape)."""

    def __init__(self, state: dict, views: dict):
        super().__init__(views)
        self._state = state

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        original = self._state.get(key)
        if isinstance(value, Tensor) and isinstance(original, Tensor) and original.is_complex():
            if value._data is not dict.get(self, key)._data:
                original.copy_(_as_complex(value))
        else:
            self._state[key] = value


def _as_complex(value: Tensor) -> Tensor:
    from .. import view_as_complex

    return view_as_complex(value.contiguous())


def _step_counter() -> Tensor:
    return tensor(0.0, dtype=_dtype.float32)


class _Adaptive(Optimizer):
    """The loop shared by these optimizers: skip parameters without grad, init state once."""

    _takes_sparse = False  # torch's sparse gradients: Adagrad only (the others refuse them)
    # where torch adds a complex gradient's weight decay: as complex numbers before viewing
    # the real parts (Adadelta, Adagrad, Adamax, RMSprop: complex add's rounding is not the
    # parts' fused one) or on the parts (ASGD, NAdam, RAdam)
    _decay_before_views = False
    _views_param = True  # (Adadelta keeps the complex parameter and views its step back)

    def step(self, closure=None):
        return self._run_step(self._update, closure)

    def _update(self) -> None:
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    self._init_state(state, param, group)
                grad = param.grad if not group["maximize"] else -param.grad
                if grad.is_sparse and not self._takes_sparse:
                    raise RuntimeError(f"{type(self).__name__} does not support sparse "
                                       "gradients")
                options = group
                if param.is_complex() and not grad.is_sparse and not group.get("fused"):
                    if (self._decay_before_views and group["weight_decay"] != 0
                            and not group["foreach"]):  # (foreach: the parts, as torch's)
                        # torch adds the decay as complex numbers, then views the parts
                        grad = grad.add(param, alpha=group["weight_decay"])
                        options = {**group, "weight_decay": 0}
                    param, grad, state = real_views(param, grad, state,
                                                    self._views_param or group["foreach"])
                self._update_one(param, grad, state, options)

    def _init_state(self, state: dict, param: Tensor, group: dict) -> None:
        raise NotImplementedError

    def _update_one(self, param, grad, state, group) -> None:
        raise NotImplementedError


class RMSprop(_Adaptive):
    """Divide by a running root mean square of the gradients (optionally centred, with
    momentum)."""

    _decay_before_views = True

    _capturable_xla = (True, True)  # (Note: capturable on the CPU)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check(lr, eps, weight_decay)
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))

    def _init_state(self, state, param, group):
        state["step"] = _step_counter()
        state["square_avg"] = zeros_like(param)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(param)
        if group["centered"]:
            state["grad_avg"] = zeros_like(param)

    def _update_one(self, param, grad, state, group):
        alpha, eps, lr = group["alpha"], group["eps"], _lr(group["lr"])
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps) if group["differentiable"] else avg.add_(eps)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(group["momentum"]).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)


class Adagrad(_Adaptive):
    """Divide by the root of the summed squared gradients (``lr`` decays with ``lr_decay``)."""

    _decay_before_views = True

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        _check(lr, None, weight_decay)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # torch creates the state of every parameter up front
        for group in self.param_groups:
            for param in group["params"]:
                self._init_state(self.state[param], param, group)

    def _init_state(self, state, param, group):
        state["step"] = _step_counter()
        value = self.defaults["initial_accumulator_value"]
        if param.is_complex():  # torch's: the value in both parts
            value = complex(value, value)
        state["sum"] = full_like(param, value)

    _takes_sparse = True

    def _update_one(self, param, grad, state, group):
        if group["fused"]:
            check_fused(param)
        if group["fused"] and (grad.is_sparse or param.is_complex()):
            raise RuntimeError("`fused` does not support sparse grad or complex param")
        state["step"] += 1
        step = state["step"].item()
        if group["fused"] and _fused.supports(param._data, state["sum"]._data):
            clr = _lr(group["lr"]) / (1.0 + (step - 1.0) * group["lr_decay"])
            _fused.adagrad(param._data, grad._data, state["sum"]._data, clr=clr,
                           weight_decay=group["weight_decay"], eps=group["eps"],
                           maximize=False)  # (grad is already negated under maximize)
            state["sum"]._bump_version()
            param._bump_version()
            return
        if group["weight_decay"] != 0:
            if grad.is_sparse:
                raise RuntimeError("weight_decay option is not compatible with sparse gradients")
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = _lr(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
        if grad.is_sparse:  # torch's: the coalesced entries only
            from ..sparse._tensor import make

            grad = grad.coalesce()
            indices, values = grad._sp_indices, grad._values()
            shape = tuple(grad.shape)
            state["sum"].add_(make(indices, values.pow(2)._data, shape, False))
            std = state["sum"].sparse_mask(grad)._values().sqrt_().add_(group["eps"])
            param.add_(make(indices, (values / std)._data, shape, False), alpha=-clr)
            return
        state["sum"].addcmul_(grad, grad, value=1)
        if group["differentiable"]:
            std = state["sum"].sqrt() + group["eps"]
        else:
            std = state["sum"].sqrt().add_(group["eps"])
        param.addcdiv_(grad, std, value=-clr)


class Adadelta(_Adaptive):
    """Steps scaled by the ratio of running RMS of updates to running RMS of gradients."""

    _decay_before_views = True
    _views_param = False

    _capturable_xla = (False, False)  # (Note: capturable on the CPU)

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check(lr, None, 0.0)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable, foreach=foreach,
                                      differentiable=differentiable))

    def _init_state(self, state, param, group):
        state["step"] = _step_counter()
        state["square_avg"] = zeros_like(param)
        state["acc_delta"] = zeros_like(param)

    def _update_one(self, param, grad, state, group):
        rho, eps = group["rho"], group["eps"]
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if group["differentiable"]:  # (sqrt_'s result is saved for its backward)
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        if param.is_complex():
            from .. import view_as_complex

            delta = view_as_complex(delta)
        param.add_(delta, alpha=-_lr(group["lr"]))


class Adamax(_Adaptive):
    """Adam with the infinity norm of past gradients in place of the second moment."""

    _decay_before_views = True

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check(lr, eps, weight_decay, betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _init_state(self, state, param, group):
        state["step"] = _step_counter()
        state["exp_avg"] = zeros_like(param)
        state["exp_inf"] = zeros_like(param)

    def _update_one(self, param, grad, state, group):
        from .. import maximum

        beta1, beta2 = group["betas"]
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        if group["differentiable"]:  # torch's: the maximum as an amax over a stack
            from .. import amax, cat

            stacked = cat([exp_inf.mul_(beta2).unsqueeze(0),
                           grad.abs().add_(group["eps"]).unsqueeze_(0)], 0)
            exp_inf.copy_(amax(stacked, 0, keepdim=False))
        else:
            exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))
        clr = _lr(group["lr"]) / (1 - beta1 ** state["step"].item())
        param.addcdiv_(exp_avg, exp_inf, value=-clr)


class NAdam(_Adaptive):
    """Adam with Nesterov momentum (momentum decaying by ``momentum_decay``)."""

    _capturable_what = ("params, mu_products and state_steps",
                        "params, mu_products, and state_steps")  # (torch's two wordings)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check(lr, eps, weight_decay, betas)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable))

    def _init_state(self, state, param, group):
        state["step"] = _step_counter()
        state["mu_product"] = tensor(1.0, dtype=_dtype.float32)
        state["exp_avg"] = zeros_like(param)
        state["exp_avg_sq"] = zeros_like(param)

    def _update_one(self, param, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, eps, decay = _lr(group["lr"]), group["eps"], group["momentum_decay"]
        state["step"] += 1
        step = state["step"].item()
        bias_correction2 = 1 - beta2**step
        if group["weight_decay"] != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * group["weight_decay"])
            else:
                grad = grad.add(param, alpha=group["weight_decay"])
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
        mu_product = state["mu_product"]
        mu_product *= mu  # a float32 tensor, as torch keeps it
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        if group["foreach"]:  # torch's _multi_tensor_nadam: the root first, then divided
            denom = exp_avg_sq.sqrt().div_(bias_correction2**0.5)
        else:
            denom = exp_avg_sq.div(bias_correction2).sqrt()
        if group["differentiable"]:  # torch's tensor branch: the step sizes from the
            denom = denom.add(eps)  # float32 mu_product tensor, out of place
            product_next = mu_product * mu_next
            grad = grad * (-lr * (1.0 - mu) / (1.0 - mu_product))
            exp_avg = exp_avg * (-lr * mu_next / (1.0 - product_next))
            param.addcdiv_(grad, denom)
            param.addcdiv_(exp_avg, denom)
            return
        product = mu_product.item()
        product_next = product * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - product)))
        param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - product_next))


class RAdam(_Adaptive):
    """Rectified Adam: plain momentum steps until the variance estimate is reliable."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check(lr, eps, weight_decay, betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _init_state(self, state, param, group):
        state["step"] = _step_counter()
        state["exp_avg"] = zeros_like(param)
        state["exp_avg_sq"] = zeros_like(param)

    def _update_one(self, param, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, eps = _lr(group["lr"]), group["eps"]
        state["step"] += 1
        step = state["step"].item()
        if group["weight_decay"] != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * group["weight_decay"])
            else:
                grad = grad.add(param, alpha=group["weight_decay"])
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if group["foreach"]:
            _radam_foreach_step(param, exp_avg, exp_avg_sq, lr, eps, rho_inf, rho_t,
                                bias_correction1, bias_correction2)
            return
        corrected = exp_avg / bias_correction1
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            root = exp_avg_sq.sqrt()
            root = root.add(eps) if group["differentiable"] else root.add_(eps)
            adaptive = (bias_correction2**0.5) / root
            param.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            param.add_(corrected * lr, alpha=-1.0)


def _radam_foreach_step(param, exp_avg, exp_avg_sq, lr, eps, rho_inf, rho_t,
                        bias_correction1, bias_correction2) -> None:
    """torch's _multi_tensor_radam's update of one parameter: both branches as one
    ``param += exp_avg * (1 / ((sqrt(v) + eps) / scale) + unrectified step)``, the scale a
    negative zero (so the first term -0) where the variance is not yet rectified."""
    if rho_t > 5:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
    else:
        rect = 0
    unrectified = 0 if rect > 0 else 1.0
    unrect_step_size = (lr * unrectified / bias_correction1) * -1
    scale = (bias_correction2**0.5) * (lr * rect / bias_correction1) * -1
    buffer = exp_avg_sq.sqrt().add_(eps).div_(scale).reciprocal_().add_(unrect_step_size)
    param.addcmul_(exp_avg, buffer)
