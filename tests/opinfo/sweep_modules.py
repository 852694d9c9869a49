"""Replay torch's ModuleInfo ``module_inputs_func`` (the successful calls) on leafgrad.nn.

For each ModuleInfo, module input, dtype and mode (training, eval): the module is built under
``manual_seed(k)`` in both libraries and moved ``.to(dtype)`` (as torch's test_modules.py does);
its parameters and buffers are compared bitwise; the forward inputs are converted bit for bit;
the outputs are compared (values bitwise with NaN payloads ignored, dtype, shape, strides,
requires_grad, grad_fn name); a backward with grad_outputs drawn from torch's RNG follows, and
every input's and parameter's ``.grad`` and every buffer afterwards (running stats) are compared.

Run as ``PYTHONPATH=src python -m tests.opinfo.sweep_modules [name ...]``: one line per
differing (module, input index, dtype, training, what)."""

from __future__ import annotations

import sys
import warnings

import leafgrad
from tests.opinfo._harness import attempt, differences, tensors_in, to_leafgrad
from tests.opinfo.sweep_errors import _same_error, leafgrad_module_class, module_db

SEED = 0


def _grad_fn_names(theirs, ours, torch, path="out") -> list[str]:
    """Where the grad_fn names of torch's and leafgrad's outputs differ."""
    out = []
    if isinstance(theirs, torch.Tensor) and isinstance(ours, leafgrad.Tensor):
        name_t = None if theirs.grad_fn is None else theirs.grad_fn.name()
        name_l = None if ours.grad_fn is None else ours.grad_fn.name()
        if name_t != name_l:
            out.append(f"{path}.grad_fn {name_t} vs {name_l}")
    elif isinstance(theirs, (list, tuple)) and isinstance(ours, (list, tuple)):
        for index, (a, b) in enumerate(zip(theirs, ours)):
            out += _grad_fn_names(a, b, torch, f"{path}[{index}]")
    return out


def _named(module, what: str) -> list:
    import torch.nn.parameter

    # (a lazy module's parameters are compared once its first forward has made them)
    is_lazy = (leafgrad.nn.parameter.is_lazy if isinstance(module, leafgrad.nn.Module)
               else torch.nn.parameter.is_lazy)
    return [(name, value) for name, value in getattr(module, what)() if not is_lazy(value)]


def module_to_leafgrad(torch, module):
    """leafgrad's twin of a torch module instance (a constructor argument such as
    TransformerEncoder's encoder_layer): leafgrad's class of the same name holding the same
    parameters, buffers, submodules and settings (torch.nn.functional functions by name)."""
    cls = leafgrad_module_class(torch, type(module))
    if cls is None:  # (a helper class: MultiheadAttention's NonDynamicallyQuantizableLinear)
        import importlib

        path = type(module).__module__.replace("torch.", "leafgrad.", 1)
        cls = getattr(importlib.import_module(path), type(module).__name__)
    ours = cls.__new__(cls)
    leafgrad.nn.Module.__init__(ours)
    for name, param in module._parameters.items():
        ours.register_parameter(name, None if param is None else leafgrad.nn.Parameter(
            to_leafgrad(param.detach(), torch), requires_grad=param.requires_grad))
    for name, buffer in module._buffers.items():
        ours.register_buffer(name, None if buffer is None else to_leafgrad(buffer, torch),
                             persistent=name not in module._non_persistent_buffers_set)
    for name, child in module._modules.items():
        ours.add_module(name, None if child is None else module_to_leafgrad(torch, child))
    for key, value in vars(module).items():
        if key in vars(ours) and key.startswith("_"):
            continue  # (leafgrad's own bookkeeping: hook dicts, parameter tables)
        object.__setattr__(ours, key, _setting_to_leafgrad(torch, value))
    return ours


def _setting_to_leafgrad(torch, value):
    module = getattr(value, "__module__", None) or ""
    if callable(value) and module.startswith(("torch.nn.functional", "torch._C._nn")):
        return getattr(leafgrad.nn.functional, value.__name__)
    if isinstance(value, torch.nn.Module) and any(True for _ in value.parameters()):
        return module_to_leafgrad(torch, value)
    return to_leafgrad(value, torch)


def _convert(torch, obj):
    """to_leafgrad, with torch module instances among constructor arguments converted too."""
    if isinstance(obj, torch.nn.Module) and any(True for _ in obj.parameters()):
        return module_to_leafgrad(torch, obj)
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_convert(torch, item) for item in obj)
    if isinstance(obj, dict):
        return {key: _convert(torch, value) for key, value in obj.items()}
    return _setting_to_leafgrad(torch, obj)


def as_leaves(torch, obj):
    """obj with every tensor that requires grad but is not a leaf (a sample's
    ``make_input(...).log_softmax(2)``) replaced by a leaf copy, so its .grad can be compared."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().requires_grad_() if obj.requires_grad and not obj.is_leaf else obj
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(as_leaves(torch, item) for item in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(as_leaves(torch, item) for item in obj)
    if isinstance(obj, dict):
        return {key: as_leaves(torch, value) for key, value in obj.items()}
    return obj


def compare_state(torch, module_t, module_l, what: str, stage: str) -> list[str]:
    """Differences between the modules' named parameters or buffers (names, then bits)."""
    named_t, named_l = _named(module_t, what), _named(module_l, what)
    names_t, names_l = [n for n, _ in named_t], [n for n, _ in named_l]
    if names_t != names_l:
        return [f"{stage} {what} names {names_t} vs {names_l}"]
    out = []
    for (name, a), (_, b) in zip(named_t, named_l):
        if a is None or b is None:
            if (a is None) != (b is None):
                out.append(f"{stage} {name}: {a is None} None vs {b is None}")
            continue
        out += differences(a.detach(), b.detach(), torch, f"{stage} {name}", strides=False)
    return out


def build(torch, info, module_input, dtype):
    """(torch module, leafgrad module) built under the same seed and moved to dtype, or the
    ('raised', ...) outcomes when either constructor raised."""
    ours_cls = leafgrad_module_class(torch, info.module_cls)
    c_args, c_kwargs = module_input.constructor_input.args, module_input.constructor_input.kwargs
    c_args_l, c_kwargs_l = _convert(torch, (c_args, dict(c_kwargs)))
    torch.manual_seed(SEED)
    made_t = attempt(lambda: info.module_cls(*c_args, **c_kwargs).to(dtype))
    leafgrad.manual_seed(SEED)
    made_l = attempt(lambda: ours_cls(*c_args_l, **c_kwargs_l).to(to_leafgrad(dtype, torch)))
    return made_t, made_l


def _grad_outputs(torch, output):
    """torch's grad_outputs for output's differentiable tensors (drawn from torch's RNG) and
    the same tensors converted for leafgrad."""
    torch.manual_seed(SEED + 1)
    pairs = []
    for tensor in tensors_in(output):
        if tensor.requires_grad and tensor.grad_fn is not None:
            pairs.append((tensor, torch.randn_like(tensor)))
    return pairs


def compare_module_input(torch, info, module_input, dtype, training: bool) -> list[str]:
    """The differences between torch and leafgrad on one ModuleInput."""
    if leafgrad_module_class(torch, info.module_cls) is None:
        return [f"leafgrad has no {info.module_cls.__name__}"]
    made_t, made_l = build(torch, info, module_input, dtype)
    if made_t[0] != made_l[0] or (made_t[0] == "raised" and not _same_error(made_t, made_l)):
        return [f"constructor: torch {made_t if made_t[0] == 'raised' else 'returned'}, "
                f"leafgrad {made_l if made_l[0] == 'raised' else 'returned'}"]
    if made_t[0] == "raised":
        return []
    module_t, module_l = made_t[1].train(training), made_l[1].train(training)
    found = compare_state(torch, module_t, module_l, "named_parameters", "init")
    found += compare_state(torch, module_t, module_l, "named_buffers", "init")
    if found:
        # (copy torch's parameters in so that the forward is still compared)
        with torch.no_grad():
            for (_, p_t), (_, p_l) in zip(module_t.named_parameters(), module_l.named_parameters()):
                if not torch.nn.parameter.is_lazy(p_t) and p_t.shape == p_l.shape:
                    p_l.data = to_leafgrad(p_t.detach(), torch)
    f_args, f_kwargs = as_leaves(
        torch, (module_input.forward_input.args, dict(module_input.forward_input.kwargs)))
    f_args_l, f_kwargs_l = to_leafgrad((f_args, f_kwargs), torch)
    got_t = attempt(lambda: module_t(*f_args, **f_kwargs))
    got_l = attempt(lambda: module_l(*f_args_l, **f_kwargs_l))
    if got_t[0] != got_l[0] or (got_t[0] == "raised" and not _same_error(got_t, got_l)):
        return found + [f"forward: torch {got_t if got_t[0] == 'raised' else 'returned'}, "
                        f"leafgrad {got_l if got_l[0] == 'raised' else 'returned'}"]
    if got_t[0] == "raised":
        return found
    out_t, out_l = got_t[1], got_l[1]
    found += differences(out_t, out_l, torch)
    found += _grad_fn_names(out_t, out_l, torch)
    found += compare_state(torch, module_t, module_l, "named_parameters", "forward")
    found += compare_state(torch, module_t, module_l, "named_buffers", "forward")
    if found:
        return found
    pairs = _grad_outputs(torch, out_t)
    if not pairs:
        return found
    outs_l = [t for t in tensors_in(out_l)]
    index_of = {id(t): i for i, t in enumerate(tensors_in(out_t))}
    roots_l = [outs_l[index_of[id(t)]] for t, _ in pairs]
    grads_l = [to_leafgrad(g, torch) for _, g in pairs]
    back_t = attempt(lambda: torch.autograd.backward([t for t, _ in pairs], [g for _, g in pairs]))
    back_l = attempt(lambda: leafgrad.autograd.backward(roots_l, grads_l))
    if back_t[0] != back_l[0] or (back_t[0] == "raised" and not _same_error(back_t, back_l)):
        return [f"backward: torch {back_t if back_t[0] == 'raised' else 'returned'}, "
                f"leafgrad {back_l if back_l[0] == 'raised' else 'returned'}"]
    for index, (a, b) in enumerate(zip(tensors_in((f_args, f_kwargs)), tensors_in((f_args_l, f_kwargs_l)))):
        if a.requires_grad:
            found += _compare_grad(torch, a.grad, b.grad, f"input {index} .grad")
    for (name, a), (_, b) in zip(module_t.named_parameters(), module_l.named_parameters()):
        found += _compare_grad(torch, a.grad, b.grad, f"{name}.grad")
    return found


def _compare_grad(torch, theirs, ours, path) -> list[str]:
    if theirs is None or ours is None:
        return [] if (theirs is None) == (ours is None) else [f"{path}: {theirs is None} None vs {ours is None}"]
    return differences(theirs, ours, torch, path, strides=False)


def module_inputs(info, dtype, training: bool, requires_grad: bool = True) -> list:
    import torch

    torch.manual_seed(SEED)
    return list(info.module_inputs_func(info, device="cpu", dtype=dtype,
                                        requires_grad=requires_grad, training=training))


def sweep(torch, names=(), dtypes=None, limit=None, modes=(True, False)):
    """{(module name, dtype, training): [(index, differences)]}, differing only."""
    report = {}
    dtypes = dtypes or (torch.float64, torch.float32)
    for info in module_db():
        name = info.module_cls.__name__
        if names and name not in names:
            continue
        for dtype in dtypes:
            if dtype not in info.dtypes:
                continue
            for training in modes:
                if not training and not info.train_and_eval_differ and True in modes:
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    inputs = module_inputs(info, dtype, training)
                    for index, module_input in enumerate(inputs[:limit]):
                        try:
                            found = compare_module_input(torch, info, module_input, dtype, training)
                        except Exception as error:  # noqa: BLE001 - a harness failure is a row
                            found = [f"sweep raised {type(error).__name__}: {error}"]
                        if found:
                            key = (name, str(dtype).split(".")[1], training)
                            report.setdefault(key, []).append((index, found))
    return report


def main(argv) -> None:
    import torch

    report = sweep(torch, tuple(argv))
    count = 0
    for (name, dtype, training), rows in report.items():
        for index, found in rows:
            count += 1
            print(f"{name} [{index}] {dtype} training={training}: {'; '.join(found)}"[:400])
    print(f"{count} module inputs differ in {len(report)} configurations")


if __name__ == "__main__":
    main(sys.argv[1:])
