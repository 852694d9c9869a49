"""functional_call and stack_module_state (torch.func): a module run with given tensors in
place of its parameters and buffers, and an ensemble's state stacked for vmap.

>>> model = leafgrad.nn.Linear(2, 1)
>>> params = {name: leafgrad.zeros_like(p) for name, p in model.named_parameters()}
>>> leafgrad.func.functional_call(model, params, (leafgrad.ones(1, 2),))
tensor([[0.]])
"""

from __future__ import annotations

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """Call ``module(*args, **kwargs)`` with the given tensors (a dict, or a list or tuple of
    dicts with no key in two) as its parameters and buffers (nn.utils.stateless)."""
    from collections.abc import Sequence

    from ..nn.utils.stateless import _functional_call

    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict = {}
        for mapping in parameter_and_buffer_dicts:
            for key in mapping:
                counts[key] = counts.get(key, 0) + 1
        repeated = [key for key, count in counts.items() if count > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        parameters_and_buffers = {key: value for mapping in parameter_and_buffer_dicts
                                  for key, value in mapping.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)


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
