"""Reading and swapping a module's tensors by dotted name (torch's NamedMemberAccessor), as
``functional_call`` swaps in the given tensors and back, with torch's errors."""

from __future__ import annotations

from ...tensor import Tensor

_MISSING = object()  # a name the module does not have (allow_missing)


def swap_tensor(module, name: str, tensor, allow_missing: bool = False):
    """Put ``tensor`` (or ``_MISSING``: remove it) as ``module``'s parameter, buffer or
    attribute ``name``; returns what was there (``_MISSING`` if nothing was)."""
    from ..modules.module import Module

    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not _MISSING and not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for store in (module._parameters, module._buffers):
        if name in store:
            original = store[name]
            if tensor is not _MISSING:
                store[name] = tensor
            else:
                del store[name]
            return original
    if hasattr(module, name):
        original = getattr(module, name)
    else:
        if not allow_missing:
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        original = _MISSING
    if original is not _MISSING and not isinstance(original, Tensor) and original is not None:
        raise TypeError(f"attribute `{name}`: {original} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return original


class NamedMemberAccessor:
    """A module's submodules and tensors by dotted name, submodule lookups cached."""

    def __init__(self, module) -> None:
        self.module = module
        self.memo: dict = {}

    def get_submodule(self, name: str):
        from ..modules.module import Module

        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition(".")
        module = self.get_submodule(prefix) if dot else self.module
        try:
            submodule = getattr(module, attr)
        except AttributeError as error:
            raise AttributeError(f"{module._get_name()} has no attribute `{attr}`") from error
        if not isinstance(submodule, Module):
            raise TypeError(f"submodule `{name}`: {submodule} is not an instance of "
                            "torch.nn.Module")
        self.memo[name] = submodule
        return submodule

    def swap_tensor(self, name: str, value, allow_missing: bool = False):
        prefix, _, attr = name.rpartition(".")
        return swap_tensor(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def swap_tensors_dict(self, named_tensors: dict, allow_missing: bool = False):
        """Swap every ``name: tensor``; on any error put back what was swapped. Returns the
        originals and the names that were missing."""
        originals: dict = {}
        missing = []
        try:
            for name, tensor in named_tensors.items():
                original = self.swap_tensor(name, tensor, allow_missing=True)
                if original is _MISSING:
                    missing.append(name)
                originals[name] = original
        except Exception:
            for name, original in originals.items():
                self.swap_tensor(name, original, allow_missing=True)
            raise
        if missing and not allow_missing:
            for name, original in originals.items():
                self.swap_tensor(name, original, allow_missing=True)
            raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing))}.")
        return originals, missing

    def named_tensors(self, remove_duplicate: bool = True):
        yield from self.module.named_parameters(remove_duplicate=remove_duplicate)
        yield from self.module.named_buffers(remove_duplicate=remove_duplicate)

    def check_keys(self, keys) -> tuple[list, list]:
        """(missing, unexpected) names, each sorted."""
        keys = set(keys)
        valid = {name for name, _ in self.named_tensors(remove_duplicate=False)}
        return sorted(valid - keys), sorted(keys - valid)
