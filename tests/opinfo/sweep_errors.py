"""Replay torch's OpInfo ``error_inputs`` and ModuleInfo ``module_error_inputs_func`` on leafgrad.

Every ErrorInput runs under torch and leafgrad through the function, method and in-place
variants (where the OpInfo has them and the sample's input is a tensor); what each raises
(type and first line of torch's actual message, not just the OpInfo's regex) is compared, and a
leafgrad call that raised must have changed nothing (tensor bits, version counters, .grad).

Run as ``PYTHONPATH=src python -m tests.opinfo.sweep_errors [ops|modules] [name ...]``: one line
per differing (op, variant, sample), grouped by op."""

from __future__ import annotations

import sys
import warnings

import numpy as np

import leafgrad
from tests.opinfo._harness import attempt, differences, op_db, resolve, to_leafgrad

VARIANTS = ("op", "method", "inplace")


def twin_copies(obj, torch):
    """(torch copy, leafgrad copy) of obj: every torch tensor replaced by an independent copy
    with the same dtype, shape, strides, storage offset and requires_grad, tensors that shared
    a storage sharing one again (an ErrorInput's ``out=`` may alias its input), so that each
    variant's call sees the sample as generated even after an earlier in-place call wrote."""
    import numpy as np_

    bases = {}  # (storage address, dtype) -> (torch base, leafgrad base)

    def base_of(tensor):
        storage = tensor.untyped_storage()
        key = (storage.data_ptr(), tensor.dtype)
        if key not in bases:
            count = storage.nbytes() // tensor.element_size()
            with torch.no_grad():
                flat = tensor.detach().as_strided((count,), (1,), 0).clone()
            # (from a clone: .numpy() makes a storage non-resizable, and out= may resize it)
            ours = leafgrad.from_numpy(np_.array(_harness_numpy(flat.clone()), copy=True))
            bases[key] = (flat, ours)
        return bases[key]

    def convert(item):
        if isinstance(item, torch.Tensor):
            if item.layout != torch.strided or item.device.type == "meta":
                return item, to_leafgrad(item, torch)
            shape, strides, offset = tuple(item.shape), tuple(item.stride()), item.storage_offset()
            theirs_base, ours_base = base_of(item)
            theirs = theirs_base.as_strided(shape, strides, offset).detach()
            ours = ours_base.as_strided(shape, strides, offset).detach()
            if item.requires_grad:
                theirs.requires_grad_(True)
                ours.requires_grad_(True)
            return theirs, ours
        if isinstance(item, tuple) and hasattr(item, "_fields"):
            pairs = [convert(x) for x in item]
            return type(item)(*(a for a, _ in pairs)), type(item)(*(b for _, b in pairs))
        if isinstance(item, (list, tuple)):
            pairs = [convert(x) for x in item]
            return type(item)(a for a, _ in pairs), type(item)(b for _, b in pairs)
        if isinstance(item, dict):
            pairs = {key: convert(value) for key, value in item.items()}
            return ({key: a for key, (a, _) in pairs.items()},
                    {key: b for key, (_, b) in pairs.items()})
        return item, to_leafgrad(item, torch)

    return convert(obj)


def _harness_numpy(tensor):
    from tests.opinfo._harness import _to_numpy

    return _to_numpy(tensor)


def _tensors(obj, found: list) -> list:
    if isinstance(obj, leafgrad.Tensor):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _tensors(item, found)
    elif isinstance(obj, dict):
        for item in obj.values():
            _tensors(item, found)
    return found


def _array(tensor) -> np.ndarray:
    if tensor.device.type == "meta":
        return np.zeros(tuple(tensor.shape), np.uint8)
    return np.array(tensor.detach().numpy(), copy=True)


def snapshot(obj) -> list:
    """Each leafgrad tensor in obj with its elements, version and .grad, to check later."""
    state = []
    for tensor in _tensors(obj, []):
        grad = tensor.grad if tensor.is_leaf else None
        state.append((tensor, _array(tensor), tensor._version, None if grad is None else _array(grad)))
    return state


def changed(state) -> list[str]:
    """What a call that raised changed in the tensors of a snapshot (empty when nothing)."""
    out = []
    for index, (tensor, data, version, grad) in enumerate(state):
        now = _array(tensor)
        if now.shape != data.shape or now.tobytes() != data.tobytes():
            out.append(f"arg tensor {index} written")
        if tensor._version != version:
            out.append(f"arg tensor {index} version {version} -> {tensor._version}")
        now_grad = tensor.grad if tensor.is_leaf else None
        if (now_grad is None) != (grad is None) or (
            grad is not None and _array(now_grad).tobytes() != grad.tobytes()
        ):
            out.append(f"arg tensor {index} .grad changed")
    return out


def _method_name(function) -> str | None:
    """The Tensor method an OpInfo's function variant is (torch.Tensor.__radd__ and the like)."""
    qualified = getattr(function, "__qualname__", "") or ""
    owner, _, name = qualified.rpartition(".")
    return name if owner in ("Tensor", "TensorBase", "_TensorBase") else None


def _wrapper_set_seed(op, *args, **kwargs):
    """leafgrad's twin of torch's wrapper_set_seed (seed 42, the global RNG state restored)."""
    state = leafgrad.get_rng_state()
    try:
        leafgrad.manual_seed(42)
        return op(*args, **kwargs)
    finally:
        leafgrad.set_rng_state(state)


def _rebound_lambda(function):
    """An OpInfo's lambda (``lambda x, shape: x.view(shape)``, ``wrapper_set_seed(torch.Tensor.
    item, ...)``) with ``torch`` meaning leafgrad: the same code under other globals."""
    import types

    names = dict(function.__globals__, torch=leafgrad, wrapper_set_seed=_wrapper_set_seed)
    return types.FunctionType(
        function.__code__, names, function.__name__, function.__defaults__, function.__closure__
    )


def leafgrad_callable(torch, op, variant: str):
    """leafgrad's callable for an OpInfo's variant: the harness's resolve, else the OpInfo's own
    lambda rebound to leafgrad, else (a Tensor method used as the function variant, as for
    ``__radd__``) leafgrad's Tensor attribute of that name, unbound like torch's."""
    theirs = {"op": op.op, "method": op.method_variant, "inplace": op.inplace_variant}[variant]
    if getattr(theirs, "__name__", None) == "<lambda>" and not theirs.__code__.co_freevars:
        return _rebound_lambda(theirs)
    ours = resolve(torch, op, variant)
    if ours is None and variant == "op":
        name = _method_name(op.op)
        if name is not None:
            return getattr(leafgrad.Tensor, name, None)
    return ours


def _same_error(theirs, ours) -> bool:
    """Same exception type and first line; leafgrad names its dtypes and layouts
    ``leafgrad.int64`` where torch says ``torch.int64``, the one spelling difference allowed."""
    return theirs[1] == ours[1] and theirs[2] == ours[2].replace("leafgrad.", "torch.")


def compare_error_input(torch, op, error_input, variant: str) -> list[str]:
    """The differences between torch and leafgrad on one ErrorInput through one variant."""
    theirs = {"op": op.op, "method": op.method_variant, "inplace": op.inplace_variant}[variant]
    sample = error_input.sample_input
    try:
        (args_t, kwargs_t), (args_l, kwargs_l) = twin_copies(
            ((sample.input, *sample.args), dict(sample.kwargs)), torch)
    except Exception as error:  # noqa: BLE001 - e.g. more dimensions than NumPy's 64
        return [f"sample not convertible: {type(error).__name__}: {error}"]
    ours = leafgrad_callable(torch, op, variant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got_t = attempt(lambda: theirs(*args_t, **kwargs_t))
        if ours is None:
            return [f"leafgrad has no {variant} variant (torch {got_t[:3] if got_t[0] == 'raised' else 'returned'})"]
        state = snapshot((args_l, kwargs_l))
        got_l = attempt(lambda: ours(*args_l, **kwargs_l))
    if got_t[0] != got_l[0] or (got_t[0] == "raised" and not _same_error(got_t, got_l)):
        return [
            f"torch {got_t if got_t[0] == 'raised' else 'returned'}, leafgrad "
            f"{got_l if got_l[0] == 'raised' else 'returned'}"
        ]
    if got_t[0] == "raised":
        return changed(state)
    return differences(got_t[1], got_l[1], torch)


def variants_of(op, sample) -> list[str]:
    """The variants an ErrorInput runs through: the function always; the method and in-place
    ones when the OpInfo has them and the sample's input is a tensor."""
    import torch

    out = ["op"]
    if isinstance(sample.input, torch.Tensor):
        out += [v for v in ("method", "inplace") if getattr(op, f"{v}_variant") is not None]
    return out


def error_ops(names=()):
    """The OpInfos with error_inputs (jiterator ops aside: CUDA only), optionally by name."""
    chosen = []
    for op in op_db():
        if op.error_inputs_func is None or op.name.startswith("jiterator"):
            continue
        if names and op.name not in names and f"{op.name}.{op.variant_test_name}" not in names:
            continue
        chosen.append(op)
    return chosen


def sweep_ops(torch, names=(), limit=None):
    """{(op name, variant test name): [(sample index, variant, differences)]}, differing only."""
    report = {}
    for op in error_ops(names):
        torch.manual_seed(0)
        key = (op.name, op.variant_test_name)
        try:
            # (the generator itself: op.error_inputs wraps it in torch's TrackedInputIter,
            # whose inspect.stack() per item costs 20 ms)
            inputs = list(op.error_inputs_func(op, "cpu"))
        except Exception as error:  # noqa: BLE001
            report.setdefault(key, []).append((-1, "-", [f"error_inputs failed: {error!r}"]))
            continue
        for index, error_input in enumerate(inputs[:limit]):
            for variant in variants_of(op, error_input.sample_input):
                found = compare_error_input(torch, op, error_input, variant)
                if found:
                    report.setdefault(key, []).append((index, variant, found))
    return report


# ModuleInfo error inputs --------------------------------------------------------------------


def module_db():
    from torch.testing._internal.common_modules import module_db as database

    from tests.opinfo._harness import allow_backend_flags

    allow_backend_flags()
    return database


def leafgrad_module_class(torch, module_cls):
    """leafgrad's class for a torch.nn module class (by its path under torch), or None."""
    target = leafgrad
    for part in module_cls.__module__.split(".")[1:2] + [module_cls.__name__]:
        target = getattr(target, part, None)
        if target is None:
            return None
    return target


def compare_module_error(torch, module_info, error_input, training: bool = True) -> list[str]:
    from torch.testing._internal.common_modules import ModuleErrorEnum

    module_input = error_input.module_error_input
    c_args, c_kwargs = module_input.constructor_input.args, module_input.constructor_input.kwargs
    ours_cls = leafgrad_module_class(torch, module_info.module_cls)
    if ours_cls is None:
        return [f"leafgrad has no {module_info.module_cls.__name__}"]
    c_args_l, c_kwargs_l = to_leafgrad((c_args, c_kwargs), torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        made_t = attempt(lambda: module_info.module_cls(*c_args, **c_kwargs))
        leafgrad.manual_seed(0)
        made_l = attempt(lambda: ours_cls(*c_args_l, **c_kwargs_l))
        if made_t[0] != made_l[0] or (made_t[0] == "raised" and not _same_error(made_t, made_l)):
            return [
                f"constructor: torch {made_t if made_t[0] == 'raised' else 'returned'}, leafgrad "
                f"{made_l if made_l[0] == 'raised' else 'returned'}"
            ]
        if made_t[0] == "raised" or error_input.error_on == ModuleErrorEnum.CONSTRUCTION_ERROR:
            return []
        module_t, module_l = made_t[1].train(training), made_l[1].train(training)
        for (name, p_t), (_, p_l) in zip(module_t.named_parameters(), module_l.named_parameters()):
            with torch.no_grad():
                p_l.data.copy_(to_leafgrad(p_t.detach(), torch))
        (f_args, f_kwargs), (f_args_l, f_kwargs_l) = twin_copies(
            (module_input.forward_input.args, dict(module_input.forward_input.kwargs)), torch)
        got_t = attempt(lambda: module_t(*f_args, **f_kwargs))
        state = snapshot((f_args_l, f_kwargs_l, list(module_l.parameters())))
        got_l = attempt(lambda: module_l(*f_args_l, **f_kwargs_l))
    if got_t[0] != got_l[0] or (got_t[0] == "raised" and not _same_error(got_t, got_l)):
        return [
            f"forward: torch {got_t if got_t[0] == 'raised' else 'returned'}, leafgrad "
            f"{got_l if got_l[0] == 'raised' else 'returned'}"
        ]
    if got_t[0] == "raised":
        return changed(state)
    return differences(got_t[1], got_l[1], torch)


def sweep_modules(torch, names=(), dtypes=None, limit=None):
    """{(module name, dtype, training): [(index, differences)]}, differing only."""
    report = {}
    dtypes = dtypes or (torch.float64, torch.float32)
    for info in module_db():
        if info.module_error_inputs_func is None:
            continue
        if names and info.module_cls.__name__ not in names:
            continue
        for dtype in dtypes:
            for training in (True, False):
                torch.manual_seed(0)
                inputs = list(
                    info.module_error_inputs_func(
                        info, device="cpu", dtype=dtype, requires_grad=False, training=training
                    )
                )
                for index, error_input in enumerate(inputs[:limit]):
                    found = compare_module_error(torch, info, error_input, training)
                    if found:
                        key = (info.module_cls.__name__, str(dtype).split(".")[1], training)
                        report.setdefault(key, []).append((index, found))
    return report


def main(argv) -> None:
    import torch

    what = argv[0] if argv else "ops"
    names = tuple(argv[1:])
    if what == "ops":
        report = sweep_ops(torch, names)
        for (name, test_name), rows in report.items():
            print(f"== {name}{'.' + test_name if test_name else ''}")
            for index, variant, found in rows:
                print(f"  [{index}] {variant}: {'; '.join(found)}")
        print(f"{len(report)} ops differ")
    else:
        report = sweep_modules(torch, names)
        for (name, dtype, training), rows in report.items():
            print(f"== {name} {dtype} training={training}")
            for index, found in rows:
                print(f"  [{index}] {'; '.join(found)}")
        print(f"{len(report)} module configurations differ")


if __name__ == "__main__":
    main(sys.argv[1:])
