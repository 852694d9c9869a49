"""Replay torch's OpInfo database (torch.testing._internal.common_methods_invocations.op_db) on
leafgrad: each sample input is converted bit for bit (dtype, shape, strides, requires_grad), the
op runs under both libraries, and what each returns or raises is compared."""

from __future__ import annotations

import functools
import math
import types

import numpy as np

import leafgrad


def op_db():
    """torch's OpInfo list (imports torch.testing._internal, a few seconds, once)."""
    from torch.testing._internal import common_utils
    from torch.testing._internal.common_methods_invocations import op_db as database
    from torch.testing._internal.opinfo import core

    # sample_inputs() looks for the running unittest method with inspect.stack() on every
    # call (sample tracking for torch's own test classes): under pytest's deep stacks that was
    # most of a sweep's time; no TestCase runs here, so it finds nothing either way
    common_utils.extract_test_fn = core.extract_test_fn = lambda: None
    allow_backend_flags()
    return database


def allow_backend_flags() -> None:
    """Undo torch.testing._internal's import-time torch.backends.disable_global_flags(), which
    would make later tests in the same process that set torch.backends.cudnn flags fail."""
    import torch.backends

    # (the flag lives in the functions' globals, not on the module object torch exposes)
    torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True


def resolve(torch, op, variant: str = "op"):
    """leafgrad's callable for an OpInfo's variant ('op', 'method', 'inplace'), or None.

    The function variant is found by the same dotted name under leafgrad (``nn.functional.pad``
    is ``leafgrad.nn.functional.pad``); the method and in-place variants by the method's name."""
    theirs = {"op": op.op, "method": op.method_variant, "inplace": op.inplace_variant}[variant]
    if theirs is None:
        return None
    if _is_testing_function(theirs):
        return rebind(theirs)
    if isinstance(theirs, functools.partial):  # (F.mish with inplace=True)
        stand_in = type("Op", (), {"op": theirs.func, "name": op.name, "method_variant": None,
                                      "inplace_variant": None})()
        ours = resolve(torch, stand_in, "op")
        return None if ours is None else functools.partial(ours, *theirs.args, **theirs.keywords)
    if variant == "op":
        qualified = getattr(theirs, "__qualname__", None) or getattr(theirs, "__name__", "")
        module = getattr(theirs, "__module__", None) or ""
        if module.startswith("torch") and "<lambda>" not in qualified and "." not in qualified:
            path = module.split(".")[1:] if module.split(".")[0] == "torch" else []
            if path and path[0] in ("_C", "_VariableFunctions", "functional") and path != ["nn", "functional"]:
                path = [] if path[0] != "functional" else ["functional"]
            target = leafgrad
            for part in [p for p in path if not p.startswith("_")] + [qualified]:
                target = getattr(target, part, None)
                if target is None:
                    break
            if target is not None:
                return target
        if "<lambda>" in qualified and module.startswith("torch.testing"):
            return _rebound(theirs)
        if qualified.startswith(("TensorBase.", "Tensor.")):  # Tensor.cfloat: a method
            return _method(qualified.split(".")[-1])
        target = leafgrad
        for part in op.name.split("."):
            target = getattr(target, part, None)
            if target is None:
                return None
        return target
    name = getattr(theirs, "__name__", None)
    if name == "<lambda>" and getattr(theirs, "__module__", "").startswith("torch.testing"):
        return _rebound(theirs)
    if name is None or name == "<lambda>":
        return None
    return _method(name)


def _method(name):
    return lambda self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


def _rebound(function):
    """One of OpInfo's lambdas (``lambda x, *args: x.long(*args)``) with ``torch`` in its
    globals replaced by leafgrad, so the same call form runs on leafgrad."""
    import types

    scope = dict(function.__globals__, torch=leafgrad)
    return types.FunctionType(function.__code__, scope, function.__name__, function.__defaults__,
                              function.__closure__)


def _from_numpy(array: np.ndarray):
    """A leafgrad tensor of array's elements (bfloat16, which from_numpy refuses as torch's
    does, through float32: exact both ways)."""
    if array.dtype.name == "bfloat16":
        return leafgrad.from_numpy(array.astype(np.float32)).to(leafgrad.bfloat16)
    return leafgrad.from_numpy(array)


def _is_testing_function(function) -> bool:
    """A lambda or helper written in torch.testing (``lambda x: x.view(...)``, ``torch.where``
    with reordered arguments): it runs on leafgrad when its globals are leafgrad's."""
    module = getattr(function, "__module__", None) or ""
    return isinstance(function, types.FunctionType) and (
        "<lambda>" in function.__qualname__ or module.startswith("torch.testing"))


_REBOUND: dict = {}


def rebind(function):
    """function with the torch modules among its globals replaced by leafgrad's (torch ->
    leafgrad, torch.nn.functional -> leafgrad.nn.functional, ...), cached."""
    import torch

    if function in _REBOUND:
        return _REBOUND[function]
    names = {}
    for key, value in function.__globals__.items():
        if isinstance(value, types.ModuleType) and (
                value is torch or value.__name__.startswith("torch.")):
            target = leafgrad
            for part in value.__name__.split(".")[1:]:
                target = getattr(target, part, None)
                if target is None:
                    break
            if target is not None:
                names[key] = target
    namespace = {**function.__globals__, **names}
    rebound = types.FunctionType(function.__code__, namespace, function.__name__,
                                 function.__defaults__, function.__closure__)
    rebound.__kwdefaults__ = function.__kwdefaults__
    _REBOUND[function] = rebound
    return rebound


def _to_numpy(tensor) -> np.ndarray:
    """A torch tensor's elements as NumPy (bfloat16 through ml_dtypes), same shape, contiguous."""
    import torch

    t = tensor.detach()
    if t._is_zerotensor():  # (a gradient torch knows to be zero: sgn's of a real tensor)
        t = torch.zeros(t.shape, dtype=t.dtype)
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    return t.numpy()


def _from_numpy(array: np.ndarray):
    """leafgrad.from_numpy, which refuses ml_dtypes' bfloat16 as torch does: through int16."""
    if array.dtype.name == "bfloat16":
        return leafgrad.from_numpy(array.view(np.int16)).view(leafgrad.bfloat16)
    return leafgrad.from_numpy(array)


def to_leafgrad(obj, torch):
    """obj with every torch object replaced by leafgrad's: tensors keep their dtype, shape,
    strides and requires_grad (as leaves); dtypes, devices, sizes, memory formats by name."""
    if isinstance(obj, torch.Tensor):
        shape, strides = tuple(obj.shape), tuple(obj.stride())
        if obj.device.type == "meta":
            dtype = getattr(leafgrad, str(obj.dtype).split(".")[1])
            out = leafgrad.empty_strided(shape, strides, dtype=dtype, device="meta")
            return out.requires_grad_(True) if obj.requires_grad else out
        if (obj.is_contiguous() and obj.storage_offset() == 0) or obj.numel() == 0:
            out = _from_numpy(np.array(_to_numpy(obj), copy=True))
            if obj.numel() == 0 or len(shape) == 0:
                out = out.as_strided(shape, strides).detach() if obj.numel() == 0 else out
        else:
            # the storage up to the end of the span the view reads, copied, then viewed with
            # torch's strides and offset (so expanded and overlapping samples stay expanded,
            # and as_strided's storage offsets mean the same)
            offset = obj.storage_offset()
            span = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides))
            flat = obj.detach().as_strided((span,), (1,), 0)
            base = _from_numpy(np.array(_to_numpy(flat), copy=True))
            out = base.as_strided(shape, strides, offset).detach()
        if obj.requires_grad:
            out.requires_grad_(True)
        return out
    if isinstance(obj, torch.dtype):
        return getattr(leafgrad, str(obj).split(".")[1])
    if isinstance(obj, torch.device):
        return leafgrad.device(str(obj))
    if isinstance(obj, torch.Size):
        return leafgrad.Size(tuple(obj))
    if isinstance(obj, torch.memory_format):
        return getattr(leafgrad, str(obj).split(".")[1])
    if isinstance(obj, torch.layout):
        return getattr(leafgrad, str(obj).split(".")[1])
    if isinstance(obj, torch.nn.Module) and not any(True for _ in obj.parameters()):
        # a parameterless module argument (distance_function=PairwiseDistance()): leafgrad's
        # class of that name with the same public settings
        module = getattr(leafgrad.nn, type(obj).__name__)()
        for key, value in vars(obj).items():
            if not key.startswith("_"):
                setattr(module, key, to_leafgrad(value, torch))
        return module
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(to_leafgrad(item, torch) for item in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_leafgrad(item, torch) for item in obj)
    if isinstance(obj, dict):
        return {key: to_leafgrad(value, torch) for key, value in obj.items()}
    return obj


def tensors_in(obj) -> list:
    """Every torch or leafgrad tensor in a nested structure (lists, tuples, dicts), in order."""
    import torch

    if isinstance(obj, (torch.Tensor, leafgrad.Tensor)):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in tensors_in(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in tensors_in(item)]
    return []


def first_line(error: BaseException) -> str:
    text = str(error)
    return text.splitlines()[0] if text else ""


def attempt(function):
    """('ok', result) or ('raised', TypeName, first line)."""
    try:
        return ("ok", function())
    except Exception as error:  # noqa: BLE001 - type and first line are what is compared
        return ("raised", type(error).__name__, first_line(error))


def _bits(array: np.ndarray) -> np.ndarray:
    """Elements as comparable unsigned integers; every NaN the same, -0.0 kept distinct."""
    array = np.ascontiguousarray(array)
    if array.dtype.kind == "c":
        return np.stack([_bits(array.real), _bits(array.imag)])
    if array.dtype.kind == "f" or array.dtype.name == "bfloat16":
        width = array.dtype.itemsize
        view = array.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[width]).copy()
        nan = np.isnan(array.astype(np.float64))
        view[nan] = 0
        return view
    return array


def differences(theirs, ours, torch, path: str = "out", strides: bool = True) -> list[str]:
    """What differs between torch's result and leafgrad's (empty when they agree): tensors by
    type, dtype, shape, strides (when asked), requires_grad and every bit (NaN payloads aside);
    sequences item by item; other values by ==, NaN equal to NaN."""
    out: list[str] = []
    if isinstance(theirs, torch.Tensor):
        if not isinstance(ours, leafgrad.Tensor):
            return [f"{path}: torch gave a Tensor, leafgrad {type(ours).__name__}"]
        if str(theirs.dtype) != str(ours.dtype).replace("leafgrad", "torch"):
            return [f"{path}: dtype {theirs.dtype} vs {ours.dtype}"]
        if tuple(theirs.shape) != tuple(ours.shape):
            return [f"{path}: shape {tuple(theirs.shape)} vs {tuple(ours.shape)}"]
        if strides and theirs.layout == torch.strided and tuple(theirs.stride()) != tuple(ours.stride()):
            out.append(f"{path}: strides {tuple(theirs.stride())} vs {tuple(ours.stride())}")
        if theirs.requires_grad != ours.requires_grad:
            out.append(f"{path}: requires_grad {theirs.requires_grad} vs {ours.requires_grad}")
        a = _to_numpy(theirs)
        b = np.asarray(ours.detach().resolve_conj().resolve_neg()._data)
        if a.shape == b.shape and not np.array_equal(_bits(a), _bits(b)):
            bad = int((_bits(a) != _bits(b)).sum()) if a.dtype.kind != "c" else -1
            out.append(f"{path}: {bad} of {a.size} elements differ (torch {a.ravel()[:4]}, leafgrad {b.ravel()[:4]})")
        return out
    if isinstance(theirs, (list, tuple)):
        if not isinstance(ours, (list, tuple)) or len(ours) != len(theirs):
            return [f"{path}: {type(theirs).__name__} of {len(theirs)} vs {type(ours).__name__}"]
        for index, (a, b) in enumerate(zip(theirs, ours)):
            out += differences(a, b, torch, f"{path}[{index}]", strides)
        return out
    if isinstance(theirs, (torch.dtype, torch.device, torch.Size)):
        return [] if str(theirs) == str(ours).replace("leafgrad", "torch") else [f"{path}: {theirs} vs {ours}"]
    if isinstance(theirs, float) and isinstance(ours, float) and math.isnan(theirs) and math.isnan(ours):
        return []
    try:
        same = bool(theirs == ours) and type(theirs) is type(ours)
    except Exception:  # noqa: BLE001
        same = False
    return [] if same else [f"{path}: {theirs!r} vs {ours!r}"]


def compare_call(torch, theirs_fn, ours_fn, sample, *, strides: bool = True) -> list[str]:
    """Run one SampleInput through torch's and leafgrad's callables; the differences."""
    args_t = (sample.input, *sample.args)
    args_l = to_leafgrad(args_t, torch)
    kwargs_l = to_leafgrad(dict(sample.kwargs), torch)
    got_t = attempt(lambda: theirs_fn(*args_t, **sample.kwargs))
    got_l = attempt(lambda: ours_fn(*args_l, **kwargs_l))
    if got_t[0] != got_l[0] or (got_t[0] == "raised" and got_t[1:] != got_l[1:]):
        return [f"torch {got_t if got_t[0] == 'raised' else 'returned'}, leafgrad "
                f"{got_l if got_l[0] == 'raised' else 'returned'}"]
    if got_t[0] == "raised":
        return []
    return differences(got_t[1], got_l[1], torch, strides=strides)
