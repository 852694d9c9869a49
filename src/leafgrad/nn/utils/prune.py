"""``nn.utils.prune``: masking parameters to zero (torch.nn.utils.prune).

Pruning ``module.<name>`` moves the parameter to ``<name>_orig``, keeps a buffer ``<name>_mask``
and a forward pre-hook (the pruning method) that recomputes ``<name> = mask * orig`` before each
forward. Pruning the same tensor again combines the masks in a ``PruningContainer``; ``remove``
makes the pruned values the parameter again. The methods draw and rank as torch's: random
unstructured pruning takes the ``topk`` of ``rand_like(t)``, L1 the smallest ``|t|``, random
structured pruning keeps the channels above the ``kthvalue`` of ``rand(channels)``, Ln
structured pruning the ``topk`` channel norms.

>>> layer = leafgrad.nn.Linear(4, 2)
>>> _ = l1_unstructured(layer, "weight", amount=3)
>>> int((layer.weight == 0).sum())
3
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _lib():
    import leafgrad

    return leafgrad


class BasePruningMethod(ABC):
    """A pruning method: ``compute_mask`` says what to keep; the object is also the forward
    pre-hook that reapplies the mask."""

    _tensor_name: str

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for ``t``, given the mask already applied (``default_mask``)."""

    def apply_mask(self, module):
        assert self._tensor_name is not None, f"Module {module} has to be pruned"
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` (combined with an earlier
        method on it); returns the method now hooked on the module."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            assert importance_scores.shape == orig.shape, (
                f"importance_scores should have the same shape as parameter {name} of {module}")
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):
            # the parameter moves to <name>_orig (registered last, as torch's)
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _lib().ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(
                memory_format=_lib().contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` with this method's mask applied (nothing is hooked on a module)."""
        if importance_scores is not None:
            assert importance_scores.shape == t.shape, (
                "importance_scores should have the same shape as tensor t")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else _lib().ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruned tensor ``module.<name>`` a plain parameter again."""
        assert self._tensor_name is not None, (
            f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module, name, *args, **kwargs):
    old_method = None
    found = 0
    hooks_to_remove = []
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old_method = hook
            hooks_to_remove.append(key)
            found += 1
    assert found <= 1, (
        f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
        "Use a PruningContainer.")
    for key in hooks_to_remove:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old_method is not None:
        if isinstance(old_method, PruningContainer):
            old_method.add_pruning_method(method)
            method = old_method
        else:
            container = PruningContainer(old_method)
            container.add_pruning_method(method)
            method = container
    return method


class PruningContainer(BasePruningMethod):
    """The pruning methods applied in turn to one tensor; each later one acts on what the
    earlier ones kept (all of it, the kept channels, or the whole tensor by PRUNING_TYPE)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, *args):
        self._pruning_methods: tuple = ()
        if not isinstance(args, Iterable):  # a single method
            self._tensor_name = args._tensor_name
            self.add_pruning_method(args)
        elif len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            where = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to '
                                     "have the attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor of size {n_dims}")
            # the channels the mask has not entirely zeroed
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            where = [slice(None)] * n_dims
            where[dim] = keep_channel
            where = tuple(where)
        elif method.PRUNING_TYPE == "global":
            where = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial_mask = method.compute_mask(t[where], default_mask=default_mask[where])
        new_mask[where] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` (a fraction, or a count) of the entries, chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        size = t.nelement()
        count = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(count, size)
        mask = default_mask.clone(memory_format=_lib().contiguous_format)
        if count != 0:
            chosen = _lib().topk(_lib().rand_like(t).view(-1), k=count)
            mask.view(-1)[chosen.indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes ``amount`` of the entries with the smallest absolute values."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        size = t.nelement()
        count = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(count, size)
        mask = default_mask.clone(memory_format=_lib().contiguous_format)
        if count != 0:
            smallest = _lib().topk(_lib().abs(t).view(-1), k=count, largest=False)
            mask.view(-1)[smallest.indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` of the channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        count = _compute_nparams_toprune(self.amount, channels)
        _validate_pruning_amount(count, channels)
        if count == 0:
            return default_mask
        lib = _lib()
        scores = lib.rand(channels)
        threshold = lib.kthvalue(scores, k=count).values
        mask = lib.zeros_like(t)
        where = [slice(None)] * len(t.shape)
        where[self.dim] = scores > threshold
        mask[tuple(where)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes ``amount`` of the channels along ``dim`` with the smallest ``n``-norms."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        count = _compute_nparams_toprune(self.amount, channels)
        _validate_pruning_amount(count, channels)
        largest = _lib().topk(_compute_norm(t, self.n, self.dim), k=channels - count,
                              largest=True)
        if count == 0:
            return default_mask
        mask = _lib().zeros_like(t)
        where = [slice(None)] * len(t.shape)
        where[self.dim] = largest.indices
        mask[tuple(where)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        assert default_mask.shape == self.mask.shape
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Hook pruning on ``module.<name>`` with an all-ones mask."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the ``(module, name)`` tensors together, as one vector, with ``pruning_method``."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    from .convert_parameters import parameters_to_vector

    lib = _lib()
    scores = parameters_to_vector([importance_scores.get((module, name), getattr(module, name))
                                   for module, name in parameters])
    default_mask = parameters_to_vector([
        getattr(module, name + "_mask", lib.ones_like(getattr(module, name)))
        for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        count = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + count].view_as(param))
        pointer += count


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make ``module.<name>``'s pruned values its parameter and drop the mask and hook."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module) -> bool:
    """Whether any submodule of ``module`` has a pruning hook."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


def _validate_pruning_amount_init(amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral)
            and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _validate_pruning_amount(amount, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={tensor_size}")


def _validate_structured_pruning(t) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size torch.Size({list(t.shape)})")


def _compute_norm(t, n, dim: int):
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return _lib().norm(t, p=n, dim=dims)
