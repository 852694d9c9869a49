"""``lr_scheduler.CyclicLR``: the learning rate (and momentum, the other way) cycles between two
bounds with a triangular, halving triangular or exponentially shrinking amplitude, or a scale
function of your own; torch's formulas and state dict."""

from __future__ import annotations

import math
import types
from functools import partial

from .optimizer import Optimizer

__all__ = ["CyclicLR"]


def _cyclic_base():
    from .lr_scheduler import LRScheduler

    return LRScheduler


class CyclicLR(_cyclic_base()):
    """Cyclical learning rates (Smith, 2017), stepped once per batch.

    >>> scheduler = lr_scheduler.CyclicLR(optimizer, base_lr=0.01, max_lr=0.1)
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn=None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum=0.8, max_momentum=0.9,
                 last_epoch: int = -1) -> None:
        from .lr_scheduler import _per_group, _set

        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set(group, "lr", lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in self.optimizer.defaults
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(self.max_momentums, self.base_momentums,
                                            optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (high, *group["betas"][1:])
                    else:
                        group["momentum"] = high
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x) -> float:
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma ** x

    def get_lr(self) -> list:
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        where = cycle if self.scale_mode == "cycle" else self.last_epoch
        # torch's grouping: base + (height * scale_factor) * scale_fn
        rates = [base + (high - base) * scale_factor * self.scale_fn(where)
                 for base, high in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):
                momentum = high - (high - low) * scale_factor * self.scale_fn(where)
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return rates

    def state_dict(self) -> dict:
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)  # a bound method or partial: not picklable as data
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()  # a callable object's attributes
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()
