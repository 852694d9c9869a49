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


def sweep(torch, names=(), dtypes=None, limit=None, modes=(True, False), extras: bool = True):
    """{(module name, dtype, training): [(index, differences)]}, differing only. ``extras``:
    also, for the first dtype in training mode, the same inputs made non-contiguous and the
    module API checks (compare_module_api), reported under the dtypes 'noncontiguous' and
    'api'."""
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
                        if not extras or not training or dtype != dtypes[0]:
                            continue
                        for what, check in (
                                ("noncontiguous", lambda: compare_module_input(
                                    torch, info, _NonContiguous(torch, module_input), dtype,
                                    training)),
                                ("api", lambda: compare_module_api(
                                    torch, info, module_input, dtype))):
                            try:
                                found = check()
                            except Exception as error:  # noqa: BLE001
                                found = [f"sweep raised {type(error).__name__}: {error}"]
                            if found:
                                report.setdefault((name, what, training), []).append(
                                    (index, found))
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



# What else torch's test_modules.py checks, cheaply ---------------------------------------------


def _noncontiguous(torch, obj):
    """obj with every tensor of at least one dimension replaced by a non-contiguous copy of
    the same values (every other element of a doubled last dim), as torch's
    test_non_contiguous_tensors makes them; requires_grad kept (as a leaf)."""
    if isinstance(obj, torch.Tensor):
        with torch.no_grad():  # (a 0-d or empty tensor: a fresh copy, for its own .grad)
            copy = (obj.detach().clone() if obj.dim() == 0 or obj.numel() == 0
                    else obj.detach().repeat_interleave(2, dim=-1)[..., ::2])
        return copy.requires_grad_(obj.requires_grad) if obj.is_floating_point() else copy
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_noncontiguous(torch, item) for item in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_noncontiguous(torch, item) for item in obj)
    if isinstance(obj, dict):
        return {key: _noncontiguous(torch, value) for key, value in obj.items()}
    return obj


class _NonContiguous:
    """A ModuleInput whose forward tensors are made non-contiguous."""

    def __init__(self, torch, module_input):
        import types

        self.constructor_input = module_input.constructor_input
        args, kwargs = module_input.forward_input.args, module_input.forward_input.kwargs
        self.forward_input = types.SimpleNamespace(
            args=_noncontiguous(torch, as_leaves(torch, args)),
            kwargs=_noncontiguous(torch, as_leaves(torch, dict(kwargs))))


def _outcome(function):
    got = attempt(function)
    return got if got[0] == "raised" else ("ok",)


def _same_outcome(theirs, ours) -> bool:
    return theirs[0] == ours[0] and (theirs[0] == "ok" or _same_error(theirs, ours))


def compare_module_api(torch, info, module_input, dtype) -> list[str]:
    """repr, state_dict (keys and values), a load_state_dict round trip, deepcopy and pickle
    (the copy's forward equals the original's), forward hooks, zero_grad, requires_grad_ and
    train()/eval() on submodules: what differs between torch and leafgrad."""
    import copy
    import pickle

    made_t, made_l = build(torch, info, module_input, dtype)
    if made_t[0] != "ok" or made_l[0] != "ok":
        return []
    module_t, module_l = made_t[1], made_l[1]
    found = []
    f_args, f_kwargs = as_leaves(
        torch, (module_input.forward_input.args, dict(module_input.forward_input.kwargs)))
    f_args_l, f_kwargs_l = to_leafgrad((f_args, f_kwargs), torch)
    # forward hooks: called once per call, with the output the call returns
    seen_t, seen_l = [], []
    handle_t = module_t.register_forward_hook(lambda m, args, out: seen_t.append(out))
    handle_l = module_l.register_forward_hook(lambda m, args, out: seen_l.append(out))
    got_t = attempt(lambda: module_t(*f_args, **f_kwargs))
    got_l = attempt(lambda: module_l(*f_args_l, **f_kwargs_l))
    handle_t.remove()
    handle_l.remove()
    if got_t[0] != "ok" or got_l[0] != "ok":
        return []
    if len(seen_t) != len(seen_l) or (seen_l and seen_l[0] is not got_l[1]):
        found.append(f"forward hook: torch saw {len(seen_t)} calls, leafgrad {len(seen_l)}")
    # repr (leafgrad spells its dtypes leafgrad.float64 where torch says torch.float64)
    if repr(module_t) != repr(module_l).replace("leafgrad.", "torch."):
        found.append(f"repr {repr(module_t)!r} vs {repr(module_l)!r}"[:300])
    # state_dict: keys in order, then values
    state_t, state_l = module_t.state_dict(), module_l.state_dict()
    if list(state_t) != list(state_l):
        found.append(f"state_dict keys {list(state_t)} vs {list(state_l)}")
    else:
        for key in state_t:
            found += differences(state_t[key], state_l[key], torch, f"state_dict[{key}]",
                                 strides=False)
    # load_state_dict into a module built under another seed: the same parameters after
    fresh_t, fresh_l = build(torch, info, module_input, dtype)
    if fresh_t[0] == "ok" and fresh_l[0] == "ok":
        loaded_t = attempt(lambda: fresh_t[1].load_state_dict(state_t))
        loaded_l = attempt(lambda: fresh_l[1].load_state_dict(state_l))
        if loaded_t[0] != loaded_l[0]:
            found.append(f"load_state_dict: torch {loaded_t[:3]}, leafgrad {loaded_l[:3]}")
        elif loaded_t[0] == "ok":
            if (list(loaded_t[1].missing_keys), list(loaded_t[1].unexpected_keys)) != (
                    list(loaded_l[1].missing_keys), list(loaded_l[1].unexpected_keys)):
                found.append(f"load_state_dict result {loaded_t[1]} vs {loaded_l[1]}")
            found += compare_state(torch, module_t, fresh_l[1], "named_parameters", "loaded")
    # deepcopy and pickle: the copy's forward gives the original's output
    for name, clone in (("deepcopy", copy.deepcopy),
                        ("pickle", lambda m: pickle.loads(pickle.dumps(m)))):
        copied_t = attempt(lambda: clone(module_t))
        copied_l = attempt(lambda: clone(module_l))
        if copied_t[0] != copied_l[0]:
            found.append(f"{name}: torch {copied_t[:3] if copied_t[0] != 'ok' else 'ok'}, "
                         f"leafgrad {copied_l[:3] if copied_l[0] != 'ok' else 'ok'}")
            continue
        if copied_l[0] == "ok":
            again = attempt(lambda: copied_l[1](*f_args_l, **f_kwargs_l))
            if again[0] != "ok":
                found.append(f"{name}: the copy's forward raised {again[1:]}")
            elif not _same_values(got_l[1], again[1]):
                found.append(f"{name}: the copy's forward gave other values")
    # zero_grad after a backward: every .grad None (set_to_none), as torch
    roots_t = [t for t in tensors_in(got_t[1]) if t.requires_grad]
    roots_l = [t for t in tensors_in(got_l[1]) if t.requires_grad]
    if roots_t and len(roots_t) == len(roots_l):
        back_t = attempt(lambda: torch.autograd.backward([t.sum() for t in roots_t]))
        back_l = attempt(lambda: leafgrad.autograd.backward([t.sum() for t in roots_l]))
        if back_t[0] == back_l[0] == "ok":
            module_t.zero_grad()
            module_l.zero_grad()
            grads_t = [p.grad is None for p in module_t.parameters()]
            grads_l = [p.grad is None for p in module_l.parameters()]
            if grads_t != grads_l:
                found.append(f"zero_grad: grads None {grads_t} vs {grads_l}")
    # requires_grad_(False): the output requires grad only through the inputs
    module_t.requires_grad_(False)
    module_l.requires_grad_(False)
    flags_t = [p.requires_grad for p in module_t.parameters()]
    flags_l = [p.requires_grad for p in module_l.parameters()]
    if flags_t != flags_l:
        found.append(f"requires_grad_(False): {flags_t} vs {flags_l}")
    # train()/eval(): every submodule's flag
    for mode in (False, True):
        module_t.train(mode)
        module_l.train(mode)
        modes_t = [m.training for m in module_t.modules()]
        modes_l = [m.training for m in module_l.modules()]
        if modes_t != modes_l:
            found.append(f"train({mode}): {modes_t} vs {modes_l}")
    return found


def _same_values(first, second) -> bool:
    """Whether two leafgrad results hold the same tensors, bit for bit (NaN payloads aside)."""
    import numpy as np

    from tests.opinfo._harness import _bits

    a, b = tensors_in(first), tensors_in(second)
    return len(a) == len(b) and all(
        x.shape == y.shape and np.array_equal(_bits(np.asarray(x.detach().numpy())),
                                              _bits(np.asarray(y.detach().numpy())))
        for x, y in zip(a, b))


if __name__ == "__main__":
    main(sys.argv[1:])
