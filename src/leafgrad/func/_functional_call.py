"""functional_call and stack_module_state (torch.func): a module run with given tensors in
place of its parameters and buffers, and an ensemble's state stacked for vmap.

>>> model = leafgrad.nn.Linear(2, 1)
>>> params = {name: leafgrad.zeros_like(p) for name, p in model.named_parameters()}
>>> leafgrad.func.functional_call(model, params, (leafgrad.ones(1, 2),))
tensor([[0.]])
"""

from __future__ import annotations

from ..tensor import Tensor

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]


def _owner(module, name: str):
    """The submodule holding ``name`` and the attribute's last part."""
    parts = name.split(".")
    for part in parts[:-1]:
        module = getattr(module, part)
    return module, parts[-1]


def _merge(parameter_and_buffer_dicts) -> dict:
    if isinstance(parameter_and_buffer_dicts, dict):
        return dict(parameter_and_buffer_dicts)
    merged: dict = {}
    repeated = []
    for mapping in parameter_and_buffer_dicts:
        for key, value in mapping.items():
            if key in merged and key not in repeated:
                repeated.append(key)
            merged[key] = value
    if repeated:
        raise ValueError(
            f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
            "ambiguous"
        )
    return merged


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """Call ``module(*args, **kwargs)`` with the given tensors as its parameters and buffers."""
    values = _merge(parameter_and_buffer_dicts)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(dict(module.named_buffers(remove_duplicate=False)))
    if strict:
        missing = sorted(name for name in named if name not in values)
        unexpected = sorted(name for name in values if name not in named)
        if missing or unexpected:
            lines = []
            if unexpected:
                lines.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected))
            if missing:
                lines.append("Missing key(s): " + ", ".join(repr(k) for k in missing))
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                + ".\n\t".join(lines) + "."
            )
    if tie_weights:
        # names sharing one tensor (tied weights) all take the value given for any of them
        by_tensor: dict = {}
        for name, tensor in named.items():
            by_tensor.setdefault(id(tensor), []).append(name)
        for names in by_tensor.values():
            given = [name for name in names if name in values]
            if len(given) > 1:
                first = values[given[0]]
                for other in given[1:]:
                    if values[other] is not first:
                        raise ValueError(
                            f"functional_call got multiple values for keys {given}, which are "
                            "tied. Consider using tie_weights=False"
                        )
            if given:
                for name in names:
                    values.setdefault(name, values[given[0]])
    saved = []
    try:
        for name, value in values.items():
            owner, attr = _owner(module, name)
            store = None
            for candidate in ("_parameters", "_buffers"):
                if attr in owner.__dict__.get(candidate, {}):
                    store = owner.__dict__[candidate]
                    break
            if store is not None:
                saved.append((store, attr, store[attr], True))
                store[attr] = value
            else:
                saved.append((owner.__dict__, attr, owner.__dict__.get(attr), attr in
                               owner.__dict__))
                owner.__dict__[attr] = value
        return module(*args, **kwargs)
    finally:
        for store, attr, old, existed in reversed(saved):
            if existed:
                store[attr] = old
            else:
                store.pop(attr, None)


def stack_module_state(models) -> tuple[dict, dict]:
    """The parameters and buffers of same-shaped models stacked along a new first dim, for
    ``vmap(functional_call)`` over an ensemble."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    first = models[0]
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode.")
    first_type = type(first)
    if not all(type(m) is first_type for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {name: _stacked_leaf([p[name] for p in all_params], name) for name in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {name: _stacked_leaf([b[name] for b in all_buffers], name)
               for name in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors: list, name: str):
    """torch's construct_stacked_leaf: one flag for all, a new leaf when they require grad."""
    from .. import stack

    flags = [t.requires_grad for t in tensors]
    if any(flags) and not all(flags):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    if all(flags):
        result = result.detach().requires_grad_()
    return result


def replace_all_batch_norm_modules_(root):
    """Stop every BatchNorm layer in ``root`` (``root`` included) from tracking running
    statistics, in place: their running mean, variance and batch count become None and they
    normalise with the batch's own statistics (what vmap over a batch of models needs).
    Returns ``root``."""
    from ..nn.modules.normalization import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
