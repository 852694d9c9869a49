"""``nn.Module``: parameters, buffers and submodules registered by attribute assignment.

The behaviour is torch's: registration through ``__setattr__``, the ``named_*`` iterators in
registration order with shared tensors reported once, ``state_dict`` keys and ``_metadata``,
``load_state_dict`` results and messages, forward hooks, and torch's ``repr`` of module trees.
One deliberate difference: a ``load_state_dict`` that fails changes nothing (torch copies the
tensors that fit before it raises).

>>> class Net(leafgrad.nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.fc = leafgrad.nn.Linear(2, 1)
...     def forward(self, x):
...         return self.fc(x)
>>> [name for name, _ in Net().named_parameters()]
['fc.weight', 'fc.bias']
"""

from __future__ import annotations

import functools
import itertools
import threading
import warnings
import weakref
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

from ..._compile.state import state as _capture
from ..._hooks import RemovableHandle
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..parameter import Buffer, Parameter, is_lazy
from ... import _future_flags as _future
from ...utils._swap import swap_tensors
from ...tensor import _wrap
from ..._creation import empty_like

__all__ = ["Module"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _typename(value) -> str:
    """torch.typename: ``torch.FloatTensor`` for tensors, the qualified class name otherwise."""
    if isinstance(value, Tensor):
        return value.type()
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", None) else f"{module}.{cls.__qualname__}"


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * spaces + line for line in lines)


def _size_text(shape) -> str:
    return f"torch.Size({list(shape)})"


class Module:
    """Base class of every layer and model: subclass it, assign layers in ``__init__``,
    write ``forward``, call the instance."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs) -> None:
        if not self.call_super_init and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if not self.call_super_init and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks_always_called", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())
        setattr_(self, "_modules", {})

    forward: Callable[..., Any]

    def forward(self, *input):  # noqa: F811 - the documented placeholder torch has too
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # -- calling ------------------------------------------------------------------------------
    _compiled_call_impl = None  # what Module.compile() made, as in torch

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_pre_hooks
                or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks or self._compiled_call_impl is not None):
            if _capture.active:  # leafgrad.compile guards on .training
                _capture.tracer.module_called(self, True)
            return self.forward(*args, **kwargs)
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    def compile(self, *args, **kwargs) -> None:
        """Compile this module's call in place (``leafgrad.compile`` of ``_call_impl``, with
        the arguments as given): calling the module runs the compiled call; its parameters,
        state_dict keys and repr are unchanged, as torch's."""
        from ..._compile.api import CompiledFunction, compile as _compile

        compiled = _compile(self._call_impl, *args, **kwargs)
        if isinstance(compiled, CompiledFunction):
            compiled.module = self  # its captures are keyed on the modules' training flags
        self._compiled_call_impl = compiled

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)  # a copy or a pickle is not compiled (torch)
        return state

    def _call_impl(self, *args, **kwargs):
        """The module's call without the compiled path: hooks, then forward."""
        plain = not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                     or self._backward_pre_hooks or _global_forward_pre_hooks
                     or _global_forward_hooks or _global_backward_hooks
                     or _global_backward_pre_hooks)
        if _capture.active:  # leafgrad.compile guards on .training and cannot replay hooks
            _capture.tracer.module_called(self, plain)
        if plain:
            return self.forward(*args, **kwargs)
        # what the call reached, for the always-called hooks if it fails: the arguments after
        # the pre-hooks, the output so far, and the always-called hooks that already ran
        state = {"args": args, "kwargs": kwargs, "result": None, "called": set()}
        try:
            return self._call_with_hooks(args, kwargs, state)
        except Exception:
            args, kwargs, result, called = (state["args"], state["kwargs"], state["result"],
                                            state["called"])
            # torch: forward hooks registered with always_call=True still run (once), their
            # own errors silenced with a warning, then the original error propagates
            for hooks, always, with_kwargs, kind in (
                    (_global_forward_hooks, _global_forward_hooks_always_called,
                     _global_forward_hooks_with_kwargs, "global module"),
                    (self._forward_hooks, self._forward_hooks_always_called,
                     self._forward_hooks_with_kwargs, "module")):
                for hook_id, hook in list(hooks.items()):
                    if hook_id not in always or hook_id in called:
                        continue
                    try:
                        if hook_id in with_kwargs:
                            hook_result = hook(self, args, kwargs, result)
                        else:
                            hook_result = hook(self, args, result)
                        if hook_result is not None:
                            result = hook_result
                    except Exception as error:  # noqa: BLE001 - silenced, as torch does
                        warnings.warn(
                            f"{kind} forward hook with ``always_call=True`` raised an "
                            "exception that was silenced as another error was raised in "
                            f"forward: {error}", stacklevel=2)
            raise

    def _call_with_hooks(self, args: tuple, kwargs: dict, state: dict):
        pre_hooks = [*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()]
        for hook_id, hook in pre_hooks:
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {result}."
                        )
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
            state["args"], state["kwargs"] = args, kwargs
        backward_hook = None
        # global hooks first, then the module's own (torch's _get_backward_hooks); a module's
        # hooks are full ones unless registered with the deprecated register_backward_hook
        full_hooks, node_hooks = [], []
        if _global_backward_hooks:
            (node_hooks if _global_is_full_backward_hook is False else full_hooks).extend(
                _global_backward_hooks.values())
        if self._backward_hooks:
            (node_hooks if self._is_full_backward_hook is False else full_hooks).extend(
                self._backward_hooks.values())
        pre_hooks = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        if full_hooks or pre_hooks:
            from ._backward_hooks import BackwardHook

            backward_hook = BackwardHook(self, full_hooks, pre_hooks)
            args = state["args"] = backward_hook.setup_input_hook(args)
        result = state["result"] = self.forward(*args, **kwargs)
        post_hooks = [*_global_forward_hooks.items(), *self._forward_hooks.items()]
        for hook_id, hook in post_hooks:
            if hook_id in self._forward_hooks_always_called or \
                    hook_id in _global_forward_hooks_always_called:
                state["called"].add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs or \
                    hook_id in _global_forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = state["result"] = hook_result
        if backward_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}")
            result = backward_hook.setup_output_hook(result)
        if node_hooks:
            from ._backward_hooks import attach_node_hooks

            attach_node_hooks(self, node_hooks, args, result)
        return result

    # -- registration ---------------------------------------------------------------------------
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter", allow_existing_in=self._parameters)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        else:
            for hook in _global_parameter_registration_hooks.values():
                output = hook(self, name, param)
                if output is not None:
                    param = output
            self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", allow_existing_in=self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (torch Tensor or "
                "None required)"
            )
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: "Module | None") -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _registered_module(self, name, module)

    register_module = add_module

    def _check_name(self, name, kind: str, allow_existing_in: dict) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in allow_existing_in:
            raise KeyError(f"attribute '{name}' already exists")

    def __getattr__(self, name: str):
        # Only reached when normal lookup fails: parameters, buffers and submodules.
        d = self.__dict__
        params = d.get("_parameters")
        if params is not None:  # the usual lookup first, one dict probe (a layer's weight)
            value = params.get(name, _MISSING)
            if value is not _MISSING:
                return value
        for store in ("_buffers", "_modules"):
            values = d.get(store)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, d, d["_buffers"], d["_modules"], d["_non_persistent_buffers_set"])
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                _remove_from(name, d, d["_parameters"], d["_buffers"],
                             d["_non_persistent_buffers_set"])
                modules[name] = _registered_module(self, name, value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{_typename(value)}' as child module '{name}' "
                        "(torch.nn.Module or None expected)"
                    )
                modules[name] = _registered_module(self, name, value)
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{_typename(value)}' as buffer '{name}' "
                            "(torch.nn.Buffer, torch.Tensor or None expected)"
                        )
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in d["_non_persistent_buffers_set"]
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del d["_parameters"][name]
        elif name in d.get("_buffers", ()):
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        elif name in d.get("_modules", ()):
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        attrs = list(object.__dir__(self))
        keys = attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(key for key in set(keys) if not key[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in ("_forward_pre_hooks_with_kwargs", "_forward_hooks_with_kwargs",
                     "_forward_hooks_always_called", "_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks", "_backward_pre_hooks"):
            self.__dict__.setdefault(name, OrderedDict())

    def get_submodule(self, target: str) -> "Module":
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the submodule at the dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def _owner_and_name(self, target: str) -> tuple["Module", str]:
        module_path, _, name = target.rpartition(".")
        return self.get_submodule(module_path), name

    def get_parameter(self, target: str) -> Parameter:
        module, name = self._owner_and_name(target)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        module, name = self._owner_and_name(target)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(module, name)

    # -- iteration ------------------------------------------------------------------------------
    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        # Iterative pre-order walk (a deep Sequential must not hit the recursion limit).
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if module in memo:
                    continue
                memo.add(module)
            yield name, module
            children = [(name + ("." if name else "") + child_name, child)
                        for child_name, child in module._modules.items() if child is not None]
            stack.extend(reversed(children))

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, get_members, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True):
        memo = set()
        if recurse:
            modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            modules = [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or id(value) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    # -- modes and bulk changes -------------------------------------------------------------------
    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                grad = param.grad
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> "Module":
        """Replace every parameter's and buffer's data by ``fn(data)``, keeping the objects."""

        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for key, param in self._parameters.items():
                if param is None:
                    continue
                if is_lazy(param):  # only its dtype can change (through the conversions torch
                    param._converted(fn(param).dtype)  # allows; the others raise its error)
                    continue
                new = fn(param)
                if _future.get_swap_module_params_on_conversion():
                    # torch.__future__: the Parameter object stays, its contents are swapped
                    # with the converted ones, its grad's too
                    grad = param._grad_value
                    swap_tensors(param, Parameter(new, requires_grad=param.requires_grad))
                    if grad is not None:
                        new_grad = fn(grad)
                        if new_grad is grad:
                            new_grad = grad.detach()
                        new_grad.requires_grad_(grad.requires_grad)
                        swap_tensors(grad, _plain(new_grad))
                        param._grad_value = grad
                    continue
                if _future.get_overwrite_module_params_on_conversion():
                    # a new Parameter object replaces the old one, which keeps its data
                    grad = param._grad_value
                    replaced = Parameter(new, requires_grad=param.requires_grad)
                    self._parameters[key] = replaced
                    if grad is not None:
                        replaced._grad_value = _plain(fn(grad))
                    continue
                if new is not param:
                    param._data = new._data
                if param._grad_value is not None:
                    new_grad = fn(param._grad_value)
                    if new_grad is not param._grad_value:
                        param._grad_value = _plain(new_grad)
            for key, buffer in self._buffers.items():
                if buffer is not None and is_lazy(buffer):
                    buffer._converted(fn(buffer).dtype)
                elif buffer is not None:
                    self._buffers[key] = fn(buffer)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """Cast floating-point and complex parameters and buffers, or move them; the call is
        read as Tensor.to's (torch._C._nn._parse_to) and each tensor converted with it."""
        from ...ops import parse_to

        device, dtype, non_blocking, memory_format = parse_to(*args, **kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError(
                    "nn.Module.to only accepts floating point or complex dtypes, but got "
                    f"desired dtype={dtype}")
            if dtype.is_complex:
                warnings.warn(
                    "Complex modules are a new feature under active development whose design "
                    "may change, and some modules might not work as expected when using "
                    "complex tensors as parameters or buffers. Please file an issue at "
                    "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml if "
                    "a complex module does not work as expected.", stacklevel=2)

        def convert(t):
            cast = dtype if t.is_floating_point() or t.is_complex() else None
            try:
                if memory_format is not None and t.dim() in (4, 5):
                    return t.to(device, cast, non_blocking, memory_format=memory_format)
                return t.to(device, cast, non_blocking)
            except NotImplementedError as error:  # Note: meta tensors (_meta.py)
                if str(error) == "Cannot copy out of meta tensor; no data!":
                    raise NotImplementedError(
                        f"{error} Please use torch.nn.Module.to_empty() instead of "
                        "torch.nn.Module.to() when moving module from meta to a different "
                        "device.") from None
                raise

        return self._apply(convert)

    def float(self) -> "Module":
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> "Module":
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> "Module":
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> "Module":
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type) -> "Module":
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self) -> "Module":
        return self

    def cuda(self, device=None) -> "Module":
        from ..._device import use

        use("cuda" if device is None else device)
        return self

    def to_empty(self, *, device, recurse: bool = True) -> "Module":
        """Give parameters and buffers new uninitialised memory (on the CPU: the only device)."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def xpu(self, device=None) -> "Module":
        return self._apply(_no_backend("AssertionError", "Torch not compiled with XPU enabled"))

    def ipu(self, device=None) -> "Module":
        return self._apply(_no_backend(
            "RuntimeError", "PyTorch is not linked with support for ipu devices"))

    def mtia(self, device=None) -> "Module":
        return self._apply(_no_backend(
            "AssertionError", "Torch not compiled with MTIA enabled. Ensure you have `import "
            "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
            "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!"))

    def share_memory(self) -> "Module":
        # torch: _apply(lambda t: t.share_memory_()), parameters, gradients and buffers
        # (leafgrad's memory is the process's: each tensor only records it, for is_shared())
        for tensor in list(self.parameters()) + list(self.buffers()):
            if is_lazy(tensor):
                tensor.share_memory_()  # torch's error for an uninitialized one
        return self._apply(lambda t: t.share_memory_())

    # -- state dicts ----------------------------------------------------------------------------
    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        # uninitialized (lazy) entries go in as they are, as torch's LazyModuleMixin does
        for name, param in self._parameters.items():
            if param is not None:
                keep = keep_vars or is_lazy(param)
                destination[prefix + name] = param if keep else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                keep = keep_vars or is_lazy(buffer)
                destination[prefix + name] = buffer if keep else buffer.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def get_extra_state(self) -> Any:
        """Override (with ``set_extra_state``) to keep a non-tensor value in the state dict,
        under ``<prefix>_extra_state``."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug."
        )

    def set_extra_state(self, state: Any) -> None:
        """Override to restore what ``get_extra_state`` returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug."
        )

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters and persistent buffers by dotted name (an OrderedDict with torch's
        ``_metadata``)."""
        if args:
            # torch's deprecated positional form state_dict(destination, prefix, keep_vars)
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = {"version": self._version}
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, {"version": self._version})
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:  # _register_state_dict_hook's may replace the dict
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """Check this module's own entries of ``state_dict``; queue the copies (see
        ``load_state_dict``: nothing is written until every check has passed)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                         persistent.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        pending = getattr(_LOADING, "pending", None)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if is_lazy(param):
                # torch materialises a lazy entry to the loaded shape (its lazy load hook);
                # here that waits, with the copies, until every check has passed
                if not is_lazy(value):
                    _queue(pending, functools.partial(_materialize_entry, self, name, param,
                                                      value, assign))
                continue
            if is_lazy(value):
                value.shape  # noqa: B018 - raises torch's RuntimeError (before any copy)
            if param.ndim == 0 and value.ndim == 1:
                value = value[0]  # torch's 0.3 compatibility rule
            if value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{_size_text(value.shape)} from checkpoint, the shape in current model is "
                    f"{_size_text(param.shape)}."
                )
                continue
            if param.is_meta and not value.is_meta and not assign:
                import warnings

                warnings.warn(
                    f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
                    "parameter in the current model, which is a no-op. (Did you mean to pass "
                    "`assign=True` to assign items in the state dictionary to their "
                    "corresponding key in the module instead of copying them in place?)",
                    UserWarning, stacklevel=3)
            _queue(pending, functools.partial(_copy_entry, self, name, param, value, assign))
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                _queue(pending, functools.partial(self.set_extra_state, state_dict[extra_key]))
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != prefix + "_extra_state":
                    parts = key[len(prefix):].split(".", 1)
                    if len(parts) > 1:
                        if parts[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif parts[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy ``state_dict`` into the parameters and buffers; returns the missing and
        unexpected keys. On any error nothing is changed."""
        from collections.abc import Mapping

        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        pending: list = []
        stack = [(self, state_dict, "")]
        visited = []  # (module, number of its children): to run post hooks children first
        while stack:
            module, local, prefix = stack.pop()
            local_metadata = dict({} if metadata is None else metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            # (the queue of writes travels beside local_metadata, which hooks see as torch's)
            outer, _LOADING.pending = getattr(_LOADING, "pending", None), pending
            try:
                module._load_from_state_dict(local, prefix, local_metadata, True, missing,
                                             unexpected, errors)
            finally:
                _LOADING.pending = outer
            children = []
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_local = {k: v for k, v in local.items() if k.startswith(child_prefix)}
                    children.append((child, child_local, child_prefix))
            visited.append((module, len(children)))
            stack.extend(reversed(children))
        post_order = _post_order(visited)
        has_post_hooks = any(module._load_state_dict_post_hooks for module in post_order)

        def check(strict_keys: bool) -> None:
            messages = list(errors)
            if strict_keys:
                if unexpected:
                    messages.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected)))
                if missing:
                    messages.insert(0, "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing)))
            if messages:
                raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(messages)))

        # Nothing is written when an entry cannot be loaded, nor (without post hooks) when keys
        # are missing or unexpected under strict. torch runs the post hooks before its strict
        # check, and a hook may edit the key lists (clearing them lets a strict load pass), so
        # with post hooks the writes and the hooks come first, then the key check, as torch.
        check(strict and not has_post_hooks)
        for action in pending:
            action()
        result = _IncompatibleKeys(missing, unexpected)
        for module in post_order:
            for hook in module._load_state_dict_post_hooks.values():
                hook(module, result)
        check(strict)
        return result

    # -- hooks ----------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._forward_hooks, extra_dict=[
            self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Deprecated (torch too): ``hook(module, grad_input, grad_output)`` on the node that
        made the output, so it sees that node's gradients only."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        hook._from_public_api = True  # (torch's flag: such a hook must return None)
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        """torch's older (private, widely used) post-hook: it may return a new state dict."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False
                                           ) -> RemovableHandle:
        """torch's older load pre-hook: ``hook(state_dict, prefix, local_metadata, strict,
        missing_keys, unexpected_keys, error_msgs)``, the module first ``with_module``."""
        if with_module:
            return self.register_load_state_dict_pre_hook(hook)
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _ModuleHook(hook, self)
        return handle

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # -- printing -------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            "(" + key + "): " + _addindent(repr(module), 2)
            for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def _plain(tensor: Tensor) -> Tensor:
    """A plain Tensor sharing ``tensor``'s memory, version counter and flags."""
    plain = _wrap(tensor._data, tensor._requires_grad, tensor._node)
    plain._vc = tensor._version_counter()
    return plain


class _ModuleHook:
    """``hook(module, *args)`` holding the module weakly (a module's hook must not keep it
    alive, as torch's _WrappedHook), and picklable with the module it belongs to."""

    def __init__(self, hook, module):
        self.hook = hook
        self.module = weakref.ref(module)

    def __call__(self, *args):
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)

    def __getstate__(self):
        return {"hook": self.hook, "module": self.module()}

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.module = weakref.ref(state["module"])


def _post_order(visited: list) -> list:
    """The modules of a pre-order walk ``[(module, number of children), ...]``, each after
    its children (the order torch's recursive load runs the load_state_dict post hooks).
    Iterative, and without a self-referring closure (torch's load makes no reference cycle)."""
    order: list = []
    open_nodes: list = []  # [module, children still to come]
    for module, n_children in visited:
        open_nodes.append([module, n_children])
        while open_nodes and open_nodes[-1][1] == 0:
            done = open_nodes.pop()[0]
            order.append(done)
            if open_nodes:
                open_nodes[-1][1] -= 1
    return order


def _remove_from(name: str, *stores) -> None:
    for store in stores:
        if name in store:
            if isinstance(store, dict):
                del store[name]
            else:
                store.discard(name)


# -- global hooks: every module's calls (torch.nn.modules.module.register_module_*) -------------
_MISSING = object()  # Module.__getattr__: a parameter registered as None is a value

_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_is_full_backward_hook: bool | None = None  # set by the first global backward hook


_global_buffer_registration_hooks: dict = OrderedDict()
_global_module_registration_hooks: dict = OrderedDict()
_global_parameter_registration_hooks: dict = OrderedDict()


def _registered_module(parent, name: str, module):
    """``module`` after the global module registration hooks (a hook may replace it)."""
    for hook in _global_module_registration_hooks.values():
        output = hook(parent, name, module)
        if output is not None:
            module = output
    return module


def register_module_buffer_registration_hook(hook) -> RemovableHandle:
    """Run ``hook(module, name, buffer)`` whenever any module registers a buffer; a returned
    value replaces the buffer."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook) -> RemovableHandle:
    """Run ``hook(module, name, submodule)`` whenever any module registers a submodule."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook) -> RemovableHandle:
    """Run ``hook(module, name, param)`` whenever any module registers a parameter."""
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """Run ``hook(module, args)`` before every module's forward (before its own pre-hooks)."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Run ``hook(module, args, output)`` after every module's forward (before its own)."""
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """Run ``hook(module, grad_output)`` in every module's backward (before its own)."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_backward_hook(hook) -> RemovableHandle:
    """Deprecated (torch too): a global ``register_backward_hook``, on the node that made
    each module's output. Global hooks are all full or all not, for good (as torch)."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global Module "
            "hook. Please use only one of them.")
    _global_is_full_backward_hook = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """Run ``hook(module, grad_input, grad_output)`` in every module's backward."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global Module "
            "hook. Please use only one of them.")
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def _queue(pending: list | None, action: Callable[[], None]) -> None:
    """Defer a state-dict write until every check passed (run it now outside load_state_dict,
    when a subclass calls ``_load_from_state_dict`` itself)."""
    if pending is not None:
        pending.append(action)
    else:
        action()


def _no_backend(kind: str, message: str) -> Callable[[Tensor], Tensor]:
    """The move function of a device this build has no backend for: torch's error on the
    first tensor (a module without tensors moves without complaint, as in torch)."""
    error = {"AssertionError": AssertionError, "RuntimeError": RuntimeError}[kind]

    def move(tensor: Tensor) -> Tensor:
        raise error(message)

    return move


# The writes load_state_dict queues while it checks (see load_state_dict), per thread.
_LOADING = threading.local()


def _materialize_entry(module: Module, name: str, param: Tensor, value: Tensor,
                       assign: bool) -> None:
    param.materialize(value.shape)
    _copy_entry(module, name, param, value, assign)


def _copy_entry(module: Module, name: str, param: Tensor, value: Tensor, assign: bool) -> None:
    with no_grad():
        if _future.get_swap_module_params_on_conversion():
            # torch's module_load: the loaded tensor detached (assign), or the parameter after
            # copying into it, detached; then the parameter's contents are swapped with it, so
            # the module keeps its Parameter objects in both forms
            loaded = param.module_load(value, assign=assign)
            if isinstance(param, Parameter):
                loaded = Parameter(loaded, requires_grad=param.requires_grad)
            swap_tensors(param, loaded)
        elif assign:
            if isinstance(param, Parameter):
                if not isinstance(value, Parameter):
                    value = Parameter(value, requires_grad=param.requires_grad)
                else:
                    value.requires_grad_(param.requires_grad)
            setattr(module, name, value)
        else:
            param.copy_(value)
