"""Small top-level names compared with torch: the accelerator error types, ``is_storage``,
``get_device_module`` and the deprecated per-device autocast getters and setters."""

from __future__ import annotations

import warnings

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _outcome(lib, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = call(lib)
        except Exception as error:  # noqa: BLE001 - the type and first line are compared
            value = (type(error).__name__, str(error).splitlines()[0])
    if type(value).__name__ == "module":
        value = value.__name__.replace("leafgrad", "torch")
    elif isinstance(value, lib.dtype):
        value = str(value).split(".")[-1]
    return value, [(w.category.__name__, str(w.message).split(" (Triggered")[0])
                   for w in caught]


def test_error_types():
    for lib in (torch, leafgrad):
        assert issubclass(lib.OutOfMemoryError, RuntimeError)
        assert issubclass(lib.AcceleratorError, RuntimeError)
        assert lib.cuda.OutOfMemoryError is lib.OutOfMemoryError


def test_is_storage_and_device_modules():
    calls = [lambda lib: lib.is_storage(lib.ones(2).untyped_storage()),
             lambda lib: lib.is_storage(lib.ones(2)), lambda lib: lib.is_storage(None),
             lambda lib: lib.is_storage(lib.ones(2).untyped_storage().untyped()),
             lambda lib: lib.get_device_module(), lambda lib: lib.get_device_module("cpu"),
             lambda lib: lib.get_device_module(lib.device("cpu")),
             lambda lib: lib.get_device_module("cuda:0"), lambda lib: lib.get_device_module("mps"),
             lambda lib: lib.get_device_module("meta"), lambda lib: lib.get_device_module("xyz"),
             lambda lib: lib.get_device_module(3)]
    for call in calls:
        assert _outcome(leafgrad, call) == _outcome(torch, call)


def test_deprecated_autocast_getters_and_setters():
    names = sorted(n for n in dir(torch) if "autocast_" in n and any(
        device in n for device in ("_cpu_", "_gpu_", "_xla_", "_ipu_")))
    assert sorted(n for n in dir(leafgrad) if n in names) == names
    calls = []
    for name in names:
        if name.startswith(("is_", "get_")):
            calls.append(lambda lib, name=name: getattr(lib, name)())
    for device in ("cpu", "gpu", "xla", "ipu"):
        for dtype in ("float16", "bfloat16"):
            setter = f"set_autocast_{device}_dtype"
            if setter in names:
                calls.append(lambda lib, s=setter, d=dtype: getattr(lib, s)(getattr(lib, d)))
                calls += [lambda lib, name=name: getattr(lib, name)() for name in names
                          if name.startswith(("is_", "get_"))]
        enabler = f"set_autocast_{device}_enabled"
        if enabler in names:
            for value in (True, 1, False):
                calls.append(lambda lib, s=enabler, v=value: getattr(lib, s)(v))
                calls.append(lambda lib, device=device: lib.is_autocast_enabled(
                    {"gpu": "cuda"}.get(device, device)))
    calls += [lambda lib, d=d: lib.get_autocast_dtype(d)
              for d in ("cpu", "cuda", "xla", "ipu", "xpu", "hpu", "mps", "mtia", "maia")]
    try:
        for call in calls:
            assert _outcome(leafgrad, call) == _outcome(torch, call)
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for lib in (torch, leafgrad):
                for device, dtype in (("cpu", "bfloat16"), ("cuda", "float16"),
                                      ("xla", "bfloat16"), ("ipu", "float16")):
                    lib.set_autocast_dtype(device, getattr(lib, dtype))
                    lib.set_autocast_enabled(device, False)


def test_module_load_and_its_use_by_load_state_dict():
    seen = []
    for lib in (torch, leafgrad):
        a, b = lib.ones(3), lib.arange(3.0)
        loaded = a.module_load(b)
        record = [loaded.tolist(), a.tolist(), loaded.requires_grad,
                  loaded.data_ptr() == a.data_ptr()]
        parameter = lib.nn.Parameter(lib.zeros(2))
        assigned = parameter.module_load(lib.ones(2), assign=True)
        record += [type(assigned).__name__, assigned.requires_grad, assigned.tolist()]

        class Doubling(lib.nn.Parameter):
            def module_load(self, other, assign=False):
                return super().module_load(other * 2, assign=assign)

        model = lib.nn.Linear(2, 2)
        model.weight = Doubling(model.weight.detach().clone())
        state = {key: lib.ones_like(value) for key, value in model.state_dict().items()}
        lib.__future__.set_swap_module_params_on_conversion(True)
        try:
            model.load_state_dict(state)
        finally:
            lib.__future__.set_swap_module_params_on_conversion(False)
        record += [model.weight.tolist(), model.bias.tolist(), type(model.bias).__name__]
        seen.append(record)
    assert seen[0] == seen[1]
