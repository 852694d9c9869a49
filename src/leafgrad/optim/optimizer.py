"""The Optimizer base: parameter groups, per-parameter state, ``zero_grad``, hooks and state
dicts in torch's structure (``{"state": {index: {...}}, "param_groups": [{..., "params":
[indices]}]}``), so a saved optimizer state looks and loads like torch's."""

from __future__ import annotations

import copy
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

import functools

from .. import _profiling
from .._compile.state import state as _capture
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import RemovableHandle, _typename
from ..tensor import Tensor
from ..autograd.grad_mode import enable_grad, set_grad_enabled
from ..autograd.profiler import record_function

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]

# Hooks every optimizer's step runs (torch.optim.optimizer's globals).
_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` before every optimizer's step."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` after every optimizer's step."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _hook_step(step):
    """``step`` running the step hooks around it, as torch patches every optimizer class's step
    (a subclass's own step included): pre-hooks see ``(optimizer, args, kwargs)`` with ``args``
    starting with the optimizer, and may return new ``(args, kwargs)``."""

    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        if _profiling.active:  # torch's profiler shows each step as a labelled block

            with record_function(f"Optimizer.step#{type(args[0]).__name__}.step"):
                return hooked(*args, **kwargs)
        return hooked(*args, **kwargs)

    def hooked(*args, **kwargs):
        self = args[0]
        for hook in chain(list(_global_optimizer_pre_hooks.values()),
                          list(self._optimizer_step_pre_hooks.values())):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        out = step(*args, **kwargs)
        for hook in chain(list(self._optimizer_step_post_hooks.values()),
                          list(_global_optimizer_post_hooks.values())):
            hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class _RequiredParameter:
    """Marks a default that every parameter group must give (e.g. SGD's old required lr)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _captured(method):
    """``step``/``zero_grad`` under leafgrad.compile: recorded as a call, replayed as the same
    call on the live optimizer (see _compile/capture.py, Note: what a capture records)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if _capture.active:
            return _capture.tracer.call(functools.partial(method, self), self, method.__name__,
                                        args, kwargs)
        return method(self, *args, **kwargs)

    wrapper._captured = True
    return wrapper


class Optimizer:
    """Holds parameter groups (lists of leaf tensors plus their options) and per-parameter state."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("step", "zero_grad"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_captured", False):
                if name == "step" and not getattr(method, "hooked", False):
                    # inside the capture wrapper, so that a replayed step runs the hooks too
                    method = _hook_step(method)
                setattr(cls, name, _captured(method))

    def __init__(self, params, defaults: dict):
        if _capture.active:  # made inside a leafgrad.compile capture: its calls are not replayed
            _capture.tracer.made_optimizer(self)
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)}"
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (missing ones from the defaults).

        Every check runs before the group is changed or added, so a rejected group leaves the
        optimizer and the dict as they were."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead."
            )
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        tensors = [p[1] if isinstance(p, tuple) else p for p in params]
        if names and len(names) != len(tensors):
            raise ValueError(
                "all optimizer params should be with/without names. Some param names are missing"
            )
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization parameter "
                    + name
                )
        existing = set()
        for group in self.param_groups:
            existing.update(id(p) for p in group["params"])
            if ("param_names" in group) != bool(names):
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add param "
                    "group " + ("with" if names else "without") + " names to the optimizer"
                )
        if not existing.isdisjoint(id(p) for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        # checks passed: now change the group dict (torch keeps the caller's dict object)
        param_group["params"] = tensors
        if names:
            param_group["param_names"] = names
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        self.param_groups.append(param_group)

    @_captured
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: set ``.grad`` to None (default) or zero it in place."""
        if _profiling.active:  # torch's profiler shows it as a labelled block

            with record_function(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
                return self._zero_grad(set_to_none)
        return self._zero_grad(set_to_none)

    def _zero_grad(self, set_to_none: bool) -> None:
        for group in self.param_groups:
            for param in group["params"]:
                if param._grad_value is None:
                    continue
                if set_to_none:
                    param._grad_value = None
                else:
                    grad = param._grad_value
                    if grad._node is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def _run_step(self, update, closure):
        """The closure under enable_grad, then ``update()``, recorded only when the optimizer is
        ``differentiable`` (torch's _use_grad_for_differentiable: its in-place update of a leaf
        that requires grad then raises autograd's error). The step hooks run around ``step``
        itself: _hook_step."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._refuse_capturable()
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            update()
        return loss

    # Note: capturable on the CPU
    # capturable=True keeps the step on the device for CUDA graphs; torch's update functions
    # assert the parameters are on a device that supports it, and the CPU is not one: every
    # step with a gradient raises AssertionError. The device list is _get_capturable_supported
    # _devices(), with "xla" where the update asks for it: (single-tensor, foreach) below.
    _capturable_what = "params and state_steps"
    _capturable_xla = (True, False)

    def _refuse_capturable(self) -> None:
        for group in self.param_groups:
            if (not group.get("capturable") or group.get("fused")  # (fused: no such check)
                    or all(p.grad is None for p in group["params"])):
                continue
            foreach = bool(group.get("foreach"))
            what = self._capturable_what
            if isinstance(what, tuple):  # (single-tensor wording, foreach wording)
                what = what[foreach]
            devices = ["cuda", "xpu", "hpu", "privateuseone"]
            if self._capturable_xla[foreach]:
                devices.append("xla")
            raise AssertionError(
                f"If capturable=True, {what} must be on supported devices: {devices}.")

    # -- hooks ----------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook) -> RemovableHandle:
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook) -> RemovableHandle:
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return _add(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return _add(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return _add(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return _add(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state dicts ----------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {param index: state}, "param_groups": [options + param indices]}``;
        the state values are the live tensors, as in torch."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        mapping: dict = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for index, param in enumerate(group["params"], start):
                mapping.setdefault(id(param), index)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        result = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            returned = hook(self, result)
            if returned is not None:
                result = returned
        return result

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state from ``state_dict()``. As in torch, the state's tensors are taken as
        they are (shared with ``state_dict``, so later steps update them in place there too)
        except floating state cast to a parameter's other dtype; the groups are deep-copied.
        Nothing changes if the groups do not match."""
        state_dict = dict(state_dict)
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            returned = hook(self, state_dict)
            if returned is not None:
                state_dict = returned
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                if key == "step":
                    return value
                if param.is_floating_point() and value.is_floating_point():
                    return value.to(param.dtype)  # the same tensor when the dtype agrees
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = cast(param, value)
            else:
                state[key] = value
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def __repr__(self) -> str:
        # torch's layout: each group opens with a newline and every line ends with one, so
        # groups are separated by a blank line and no groups give "SGD ()"
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def check_fused(param: Tensor) -> None:
    """torch's _device_dtype_check_for_fused, run at a fused step for a parameter with a grad."""
    if not param.is_floating_point():
        devices = ["mps", "cuda", "xpu", "hpu", "cpu", "mtia", "privateuseone"]
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors "
                           f"of supported devices: {devices} but {param.dtype} and cpu")


def _add(hooks: OrderedDict, hook, prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle
