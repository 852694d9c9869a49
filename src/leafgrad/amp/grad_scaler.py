"""torch.amp.GradScaler: loss scaling with torch's state machine (scale, unscale_, step, update).

On CPU (``GradScaler("cpu")``) it works as torch's does; the default device, "cuda", is
disabled with torch's warning, and then every method passes through (scale returns its
input, step calls optimizer.step()).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from enum import Enum

import numpy as np

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) earlier "
               "in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self):
        from .. import _creation, _dtype

        self._scale = _creation.full((), self._init_scale, dtype=_dtype.float32)
        self._growth_tracker = _creation.full((), self._init_growth_tracker, dtype=_dtype.int32)

    def scale(self, outputs):
        from ..tensor import Tensor

        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker()
            return outputs * self._scale

        def apply_scale(value):
            if isinstance(value, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker()
                return value * self._scale
            if isinstance(value, (list, tuple)):
                return type(value)(map(apply_scale, value))
            if hasattr(value, "__iter__"):
                return map(apply_scale, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        from .. import _dtype
        from ..autograd.grad_mode import no_grad

        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype is _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    # torch._amp_foreach_non_finite_check_and_unscale_: flag, then scale
                    if not bool(np.isfinite(param.grad.numpy()).all()):
                        found_inf.fill_(1.0)
                    param.grad.mul_(inv_scale)
        return {"cpu": found_inf}

    def unscale_(self, optimizer) -> None:
        from .. import _creation, _dtype

        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _creation.full((), 0.0, dtype=_dtype.float32)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf,
                                                             False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        from ..tensor import Tensor

        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if (not isinstance(new_scale, Tensor) or new_scale.numel() != 1
                        or new_scale.requires_grad):
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [f for s in self._per_optimizer_states.values()
                          for f in s["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found = sum(f.item() for f in found_infs)
            # torch._amp_update_scale_: back off on inf/nan, grow after growth_interval
            # clean steps (a grown scale that overflows float32 is not taken)
            if found:
                scale.fill_(float(np.float32(scale.item()) * np.float32(self._backoff_factor)))
                growth_tracker.fill_(0)
            else:
                successful = growth_tracker.item() + 1
                if successful == self._growth_interval:
                    grown = np.float32(scale.item()) * np.float32(self._growth_factor)
                    if np.isfinite(grown):
                        scale.fill_(float(grown))
                    growth_tracker.fill_(0)
                else:
                    growth_tracker.fill_(successful)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self) -> float:
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            return (self._init_growth_tracker if self._growth_tracker is None
                    else self._growth_tracker.item())
        return 0

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        from .. import _creation, _dtype

        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer):
        from .. import _creation, _dtype

        self._check_scale_growth_tracker("_check_inf_per_device")
        dummy_inv_scale = _creation.full((), 1.0, dtype=_dtype.float32)
        found_inf = _creation.full((), 0.0, dtype=_dtype.float32)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = \
            self._unscale_grads_(optimizer, dummy_inv_scale, found_inf, True)
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
