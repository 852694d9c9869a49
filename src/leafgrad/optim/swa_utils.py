"""Stochastic weight averaging and EMA of a model's weights (torch.optim.swa_utils):
``AveragedModel``, the averaging functions, ``SWALR`` and ``update_bn``, with torch's numbers
(its CPU path: one ``avg_fn`` per parameter, copied into the averaged one)."""

from __future__ import annotations

import itertools
import math
from copy import deepcopy

from .. import _dtype
from .._creation import tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..tensor import Tensor
from .lr_scheduler import LRScheduler

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def get_ema_multi_avg_fn(decay=0.999):
    """In-place exponential moving average over lists: ``ema += (1 - decay) * (p - ema)``."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] "
                         "range.")

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].is_floating_point():
            for ema, current in zip(ema_param_list, current_param_list):
                ema.lerp_(current, 1 - decay)
        else:
            for ema, current in zip(ema_param_list, current_param_list):
                ema.copy_(ema * decay + current * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """In-place running mean over lists: ``avg += (p - avg) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].is_floating_point():
            weight = 1 / (num_averaged + 1)
            for averaged, current in zip(averaged_param_list, current_param_list):
                averaged.lerp_(current, weight)
        else:
            for averaged, current in zip(averaged_param_list, current_param_list):
                difference = current - averaged
                if isinstance(num_averaged, Tensor):
                    averaged.addcdiv_(difference, num_averaged + 1)
                else:
                    averaged.add_(difference, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``decay * ema + (1 - decay) * p`` for one parameter."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] "
                         "range.")

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """``avg + (p - avg) / (n + 1)`` for one parameter."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and buffers with ``use_buffers``) are the running
    average (or ``avg_fn``/``multi_avg_fn``) of the model's over ``update_parameters`` calls."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        assert avg_fn is None or multi_avg_fn is None, \
            "Only one of avg_fn and multi_avg_fn should be provided"
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_dtype.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model) -> None:
        if self.use_buffers:
            averaged = itertools.chain(self.module.parameters(), self.module.buffers())
            current = itertools.chain(model.parameters(), model.buffers())
        else:
            averaged, current = self.parameters(), model.parameters()
        averaged_detached, current_detached = [], []
        copy = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(averaged, current):
            p_model = p_model.detach()
            averaged_detached.append(p_averaged.detach())
            current_detached.append(p_model)
            if copy:
                p_averaged.detach().copy_(p_model)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                # torch groups by dtype; on the CPU (no foreach kernels) the default is the
                # per-parameter swa average
                for params, models in _group_by_dtype(averaged_detached, current_detached):
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(params, models, self.n_averaged)
                    else:
                        average = get_swa_avg_fn()
                        for p_averaged, p_model in zip(params, models):
                            p_averaged.copy_(average(p_averaged, p_model, self.n_averaged))
            else:
                for p_averaged, p_model in zip(averaged_detached, current_detached):
                    p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model,
                                                          self.n_averaged))
        if not self.use_buffers:
            # buffers are not averaged: keep them equal to the source model's
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach())
        self.n_averaged += 1


def _group_by_dtype(averaged: list, current: list) -> list:
    groups: dict = {}
    for p_averaged, p_model in zip(averaged, current):
        pair = groups.setdefault(p_averaged.dtype, ([], []))
        pair[0].append(p_averaged)
        pair[1].append(p_model)
    return list(groups.values())


@no_grad()
def update_bn(loader, model, device=None) -> None:
    """Recompute the BatchNorm running statistics of ``model`` with one pass over ``loader``
    (a cumulative average: momentum None), as after averaging weights."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:  # noqa: A001 - torch's name
        if isinstance(input, (list, tuple)):
            input = input[0]  # noqa: A001
        if device is not None:
            input = input.to(device)  # noqa: A001
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


def _format_param(name: str, optimizer, param) -> list:
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


class SWALR(LRScheduler):
    """Anneal each group's lr to ``swa_lr`` over ``anneal_epochs`` steps (cosine or linear),
    then hold it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else \
            self._linear_anneal

    def state_dict(self) -> dict:
        """Every attribute but the optimizer and ``anneal_func`` (the strategy's name says it:
        a state dict holds no function)."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)

    def get_lr(self) -> list:
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]
