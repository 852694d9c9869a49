"""Behaviours found by replaying PyTorch's nn test files not covered before (test/nn/
test_pruning.py, test_lazy_modules.py, test_dropout.py, test_init.py, test_swa_utils.py, ...) as
programs run under torch and leafgrad in one process; each program's observations (values bit
for bit, dtype, shape, strides, grad_fn names, errors' type and first line, warnings) must be
identical."""

from __future__ import annotations

import importlib
import math
import re
import warnings

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _normal(text: str) -> str:
    return re.sub(r" at 0x[0-9a-f]+", " at 0x", text.replace("leafgrad", "torch"))


def _seen(value):
    """A comparable picture of ``value``: tensors by class, dtype, shape, strides, bytes (through
    float64 for floating dtypes) and autograd state."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        data = value.detach()
        if data.is_floating_point():
            data = data.double()
        node = value.grad_fn
        return ("tensor", type(value).__name__, str(value.dtype).split(".")[-1],
                tuple(value.shape), tuple(value.stride()), data.numpy().tobytes(),
                value.requires_grad, type(node).__name__ if node is not None else None)
    if isinstance(value, (tuple, list)):
        return type(value).__name__, tuple(_seen(v) for v in value)
    if isinstance(value, dict):
        return "dict", tuple((_seen(k), _seen(v)) for k, v in value.items())
    if isinstance(value, (torch.dtype, leafgrad.dtype)):
        return str(value).split(".")[-1]
    if isinstance(value, str):
        return _normal(value)
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _outcome(fn):
    try:
        return "ok", _seen(fn())
    except Exception as error:  # noqa: BLE001 - the exception is the observation
        return type(error).__name__, _normal(str(error).split("\n")[0])


def _observe(program, lib):
    """Everything ``program(lib, see)`` shows through ``see``, then its warnings."""
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seen.append(_outcome(lambda: program(lib, lambda fn: seen.append(_outcome(fn)))))
    return seen, [(w.category.__name__, _normal(str(w.message).split("\n")[0])) for w in caught]


def _same(program):
    got, expected = _observe(program, leafgrad), _observe(program, torch)
    assert got == expected
    return expected


def _parameter_module(lib):
    return importlib.import_module(lib.__name__ + ".nn.parameter")


# --- lazy modules (test_lazy_modules.py) ------------------------------------------------------

def test_uninitialized_materialize_reads_its_shape_as_empty_does():
    # materialize(10) (the test's call) was "'int' object is not iterable": the shape was read
    # with tuple(); torch passes it to torch.empty (an int, a list, a Size, its errors)
    def program(lib, see):
        P = _parameter_module(lib)
        shapes = [10, (2, 3), [2, 3], lib.Size([4]), (), (0, 3), -1, (2, -1), 2.5, None, "3"]
        for shape in shapes:
            for kind, dtype in [("UninitializedParameter", None),
                                ("UninitializedBuffer", lib.float64)]:
                def materialized(kind=kind, shape=shape, dtype=dtype):
                    made = getattr(P, kind)(requires_grad=True)
                    made.materialize(shape, dtype=dtype)
                    return (type(made).__name__, made.shape, made.dtype, made.requires_grad,
                            made.is_leaf)
                see(materialized)

        class Lazy(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            pass

        # module.bfloat16() converted the lazy parameter; torch refuses the conversions off its
        # allowed list (and requires_grad_), naming the method
        for kind in ["UninitializedParameter", "UninitializedBuffer"]:
            for method in ["bfloat16", "bool", "byte", "cfloat", "cdouble", "chalf", "half",
                           "float", "double", "int", "long", "cpu", "requires_grad_"]:
                made = getattr(P, kind)()
                see(lambda made=made, method=method: type(getattr(made, method)()).__name__)
                see(lambda made=made: (made.requires_grad, made.dtype))
        for convert in ["half", "double", "bfloat16", "float"]:
            module = Lazy()
            module.register_parameter("test_param", P.UninitializedParameter())
            getattr(module, convert)()
            module.test_param.materialize(3)
            see(lambda: (module.test_param.dtype, module.test_param.shape,
                         type(module.test_param).__name__))

    _same(program)


def test_norm_reparametrizations_refuse_uninitialized_parameters():
    # weight_norm gave the generic "Attempted to use an uninitialized parameter in
    # weight_norm"; spectral_norm the same from its shape query; spectral_norm on a None
    # parameter an AttributeError; torch checks each first with its own ValueError
    def program(lib, see):
        builds = [lambda: lib.nn.LazyLinear(7), lambda: lib.nn.LazyConv2d(3, 2),
                  lambda: lib.nn.LazyConvTranspose1d(3, 2), lambda: lib.nn.LazyBatchNorm1d()]
        for apply in ["weight_norm", "spectral_norm"]:
            for build in builds:
                module = build()

                def applied(module=module, apply=apply):
                    getattr(lib.nn.utils, apply)(module)

                see(applied)
                see(lambda module=module: (sorted(module._parameters),
                                           len(module._forward_pre_hooks)))
            module = lib.nn.Linear(2, 2, bias=False)
            see(lambda module=module, apply=apply: getattr(lib.nn.utils, apply)(module, "bias"))

    _same(program)


def test_script_refuses_modules_with_uninitialized_parameters_or_buffers():
    # torch.jit.script scripted a lazy module that no forward had materialized; torch checks
    # each module (outermost first) and names the first uninitialized parameter, then buffer
    def program(lib, see):
        P = _parameter_module(lib)

        class Lazy(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            pass

        def with_parameter():
            module = Lazy()
            module.register_parameter("p", P.UninitializedParameter())
            module.register_buffer("b", P.UninitializedBuffer())
            return module

        def with_buffer():
            module = Lazy()
            module.register_buffer("b", P.UninitializedBuffer())
            return module

        def nested():
            outer = Lazy()
            outer.register_buffer("outer_b", P.UninitializedBuffer())
            outer.inner = with_parameter()
            return lib.nn.Sequential(lib.nn.Linear(2, 2), outer)

        def materialized():
            module = lib.nn.Sequential(lib.nn.LazyLinear(2))
            module(lib.ones(1, 3))
            return module

        for build in [with_parameter, with_buffer, nested, materialized]:
            see(lambda build=build: type(lib.jit.script(build())).__name__)

    _same(program)
