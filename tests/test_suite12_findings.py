"""Behaviours found by replaying PyTorch's own tests not covered before (test/autograd/
test_functional.py's TestAutogradFunctional, the custom Function, hook, anomaly, saved-tensor
hook and inference-mode parts of test/autograd/test_autograd.py and test_inference_mode.py,
test_shape_ops.py, ...) as programs run under torch and leafgrad in one process; each program's
observations (values bit for bit, dtype, shape, strides, grad_fn names, errors' type and first
line, warnings) must be identical."""

from __future__ import annotations

import math
import re
import warnings

import leafgrad

from ._torch import require_torch

torch = require_torch()

# torch's first forward-mode Jacobian imports modules that warn once per process (torch.jit.script
# deprecation): done here, so no program sees those import-time warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    torch.autograd.functional.jacobian(torch.sin, torch.ones(1), vectorize=True,
                                       strategy="forward-mode")


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


def _values(lib, *shape, dtype=None, requires_grad=False):
    """Deterministic values of ``shape`` (sines of a ramp), in ``dtype`` (float32 by default)."""
    count = math.prod(shape)
    values = (lib.arange(count, dtype=lib.float64) * 0.37 + 0.1).sin().reshape(shape)
    return values.to(dtype or lib.float32).requires_grad_(requires_grad)


# --- autograd.functional (test/autograd/test_functional.py) -----------------------------------

def test_forward_mode_jacobian_of_an_output_without_tangent_is_expanded_zeros():
    # jacobian(strategy="forward-mode") and hessian(outer_jacobian_strategy="forward-mode") of
    # an output the inputs do not reach (a constant, a detached value, a linear function's
    # gradient): torch's vmap returns the unbatched zeros_like(primal) expanded over the batch,
    # so the Jacobian has stride 0 along the input's dimensions; leafgrad stacked one block of
    # zeros per column (strides (1, 3) where torch's are (1, 0)).
    def program(lib, see):
        F = lib.autograd.functional
        for dtype in (lib.float32, lib.float64):
            functions = [
                (lambda x: lib.zeros(3, dtype=dtype), _values(lib, 4, dtype=dtype)),
                (lambda x: x.detach() * 2, _values(lib, 2, 3, dtype=dtype)),
                (lambda x: (x.sin(), lib.ones(2, 2)), _values(lib, 3, dtype=dtype)),
                (lambda x, y: (x * 2, y.detach()), (_values(lib, 2, dtype=dtype),
                                                    _values(lib, 3, 2, dtype=dtype))),
                (lambda x: x.new_ones(()), _values(lib, 5, dtype=dtype)),
            ]
            for function, inputs in functions:
                see(lambda: F.jacobian(function, inputs, vectorize=True, strategy="forward-mode"))
            for function, inputs in [(lambda x: x.sum() * 2, _values(lib, 3, dtype=dtype)),
                                     (lambda x, y: (x * 3).sum() + y.sum(),
                                      (_values(lib, 2, 2, dtype=dtype), _values(lib, 3, dtype=dtype))),
                                     (lambda x: (x.detach() ** 2).sum() + x.sum(),
                                      _values(lib, 4, dtype=dtype))]:
                see(lambda: F.hessian(function, inputs, vectorize=True,
                                      outer_jacobian_strategy="forward-mode"))

    _same(program)


def test_construct_standard_basis_for_as_torch_tests_call_it():
    # torch's test_construct_standard_basis_for calls autograd.functional's private helper;
    # leafgrad had no such name (AttributeError).
    def program(lib, see):
        F = lib.autograd.functional
        cases = [(_values(lib, 2, 3),), (_values(lib, 1),), (_values(lib),),
                 (_values(lib, 1), _values(lib), _values(lib)),
                 (_values(lib, 2), _values(lib, 3), _values(lib)),
                 (_values(lib, 2, 3), _values(lib, 3), _values(lib, 3, 4, 2)),
                 (_values(lib, 2, dtype=lib.float64), _values(lib, 3)),
                 (_values(lib, 0), _values(lib, 2, dtype=lib.float64))]
        for case in cases:
            see(lambda: F._construct_standard_basis_for(case, tuple(t.numel() for t in case)))

    _same(program)
