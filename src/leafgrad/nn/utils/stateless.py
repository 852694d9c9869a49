"""``nn.utils.stateless``: a module run with given tensors in place of its parameters and
buffers (``_reparametrize_module``), as ``torch.func.functional_call`` uses it; the public
``functional_call`` here is torch's deprecated alias (a FutureWarning; one dict only)."""

from __future__ import annotations

import contextlib
import warnings

from ._named_member_accessor import NamedMemberAccessor

__all__ = ["functional_call"]


def _untie_named_tensors_map(module, parameters_and_buffers: dict) -> dict:
    """A copy of ``parameters_and_buffers`` in which a value given for one of several names
    of one tensor (tied weights) is given for all of them; different values for tied names
    are an error."""
    all_named = dict(module.named_parameters(remove_duplicate=False))
    all_named.update(module.named_buffers(remove_duplicate=False))
    names_of_tensor: dict = {}
    for name, tensor in all_named.items():
        names_of_tensor.setdefault(tensor, set()).add(name)
    tied_names_of: dict = {}
    for names in names_of_tensor.values():
        if len(names) > 1:
            for name in names:
                tied_names_of[name] = names
    given = set(parameters_and_buffers.keys())
    given_tied = {name for name in given if name in tied_names_of}
    for name in given_tied:
        tied = tied_names_of[name]
        # (torch reads every tied name's value here: one not given is a KeyError)
        if len(tied & given_tied) > 1 and len(
                {parameters_and_buffers[other] for other in tied}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = parameters_and_buffers.copy()
    for name in given_tied:
        for other in tied_names_of[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers: dict, tie_weights: bool = False,
                          strict: bool = False, stack_weights: bool = False):
    """Swap the given tensors into ``module`` for the duration; then swap the originals back
    and write the module's final tensors (a forward may reassign them) into the given dict."""
    untied = _untie_named_tensors_map(module, parameters_and_buffers) if tie_weights \
        else parameters_and_buffers
    accessor = NamedMemberAccessor(module)
    if strict:
        missing, unexpected = accessor.check_keys(untied)
        messages = []
        if unexpected:
            messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if messages:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(messages)))
    originals: dict = {}
    try:
        originals, _ = accessor.swap_tensors_dict(untied, allow_missing=True)
        yield
    finally:
        if stack_weights:
            originals = dict(reversed(originals.items()))
        final, _ = accessor.swap_tensors_dict(originals, allow_missing=True)
        parameters_and_buffers.update(
            {name: final[name] for name in parameters_and_buffers if name in final})


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """Deprecated: ``torch.func.functional_call`` with one dict."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
        "removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                     tie_weights: bool = True, strict: bool = False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)
