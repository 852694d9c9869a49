"""``nn.utils.parametrize``: a parameter or buffer computed from stored ``original`` tensors by
a chain of modules, as torch does it.

Registering moves the tensor into ``module.parametrizations[name].original`` (through the
chain's ``right_inverse`` when it has one), swaps the module's class for a generated subclass
``Parametrized<Class>`` that carries a property ``name`` (reading it runs the chain; assigning
it runs ``right_inverse`` and overwrites ``original``), and checks that the chain keeps the
dtype and shape unless ``unsafe``. Removing the last parametrization restores the class.
Inside ``cached()`` each parametrized tensor is computed once.
"""

from __future__ import annotations

import collections.abc
from contextlib import contextmanager
from copy import deepcopy

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Compute each parametrized tensor once inside the block (shared by every use)."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set(dest: Tensor, src: Tensor) -> None:
    """torch's ``dest.set_(src)``: dest takes src's array (and shape), keeping its identity."""
    dest.data = src


class ParametrizationList(ModuleList):
    """The chain of parametrizations of one tensor, with its ``original`` (or ``original0``,
    ``original1``, ... when the first right_inverse returns several tensors)."""

    def __init__(self, modules, original, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {_dt(original.dtype)}\n"
                    f"right_inverse(original).dtype: {_dt(new.dtype)}")
            if original.device != new.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\n"
                    f"right_inverse(original).device: {new.device}")
            with no_grad():
                _set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                        f"tuple...). Got element {i} of the sequence with type "
                        f"{type(part).__name__}.")
                if isinstance(original, Parameter):
                    part = Parameter(part, original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", part)
        if not self.unsafe:
            value = self()
            if not isinstance(value, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(value).__name__}.")
            if value.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {_dt(original_dtype)}\n"
                    f"parametrized dtype: {_dt(value.dtype)}")
            if value.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {_sz(original_shape)}\n"
                    f"parametrized shape: {_sz(value.shape)}")

    def right_inverse(self, value: Tensor) -> None:
        """Set ``original`` so that the chain returns ``value`` (through each right_inverse,
        last module first)."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {_dt(value.dtype)} "
                        f"while `original` has dtype {_dt(self.original.dtype)}")
                _set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                     f"{type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors of length "
                        f"{self.ntensors}. Got a sequence of length {len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(
                            f"Tensor {i} returned by `right_inverse` has dtype "
                            f"{_dt(tensor.dtype)} while `original{i}` has dtype "
                            f"{_dt(original_i.dtype)}")
                    _set(original_i, tensor)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        index = 1
        while hasattr(self, str(index)):
            x = self[index](x)
            index += 1
        return x


def _dt(dtype) -> str:
    return str(dtype).replace("leafgrad.", "torch.")


def _sz(shape) -> str:
    return f"torch.Size({list(shape)})"


def _inject_new_class(module: Module) -> None:
    """Give ``module`` a class of its own, ``Parametrized<Class>``, to hold the properties."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        replica = memo.get(id(self))
        if replica is not None:
            return replica
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = deepcopy(self.__dict__, memo)
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). "
            "See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    namespace = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        return parametrization()

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Parametrize ``module.<tensor_name>`` by ``parametrization`` (appended to the chain when
    the tensor is parametrized already)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            new = parametrization(current)
            if not isinstance(new, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(new).__name__}.")
            if new.dtype != current.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.dtype: {_dt(current.dtype)}\n"
                    f"parametrization(module.{tensor_name}).dtype: {_dt(new.dtype)}")
            if new.shape != current.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.shape: {_sz(current.shape)}\n"
                    f"parametrization(module.{tensor_name}).shape: {_sz(new.shape)}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    back = parametrization.right_inverse(new)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(back, Tensor):
                        raise ValueError("parametrization.right_inverse must return a tensor. "
                                         f"Got: {type(back).__name__}")
                    if back.dtype != current.dtype:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have the "
                            f"same dtype as module.{tensor_name}, unless the `unsafe` flag is "
                            f"enabled.\nmodule.{tensor_name}.dtype: {_dt(current.dtype)}\n"
                            f"returned dtype: {_dt(back.dtype)}")
                    if back.shape != current.shape:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have the "
                            f"same shape as module.{tensor_name}, unless the `unsafe` flag is "
                            f"enabled.\nmodule.{tensor_name}.shape: {_sz(current.shape)}\n"
                            f"returned shape: {_sz(back.shape)}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo the parametrization of ``tensor_name``: it becomes a plain parameter (or buffer)
    holding the parametrized value (``leave_parametrized``) or ``original``."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _set(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Register ``from_module``'s parametrizations (all, or ``tensor_name``'s) on
    ``to_module``, sharing their originals."""
    if is_parametrized(from_module):
        names = from_module.parametrizations if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            for function in from_module.parametrizations[name]:
                register_parametrization(to_module, name, function)
            source = from_module.parametrizations[name]
            if hasattr(source, "original"):
                to_module.parametrizations[name].original = source.original
            else:
                index = 0
                while hasattr(source, f"original{index}"):
                    setattr(to_module.parametrizations[name], f"original{index}",
                            getattr(source, f"original{index}"))
                    index += 1
    return to_module
