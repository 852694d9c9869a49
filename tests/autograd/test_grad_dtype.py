"""``Tensor.grad_dtype`` (torch 2.13) against torch: the default, setting it, its errors on
non-leaves and bad values, the engine's cast of arriving gradients (backward, autograd.grad,
hooks) and the ``.grad`` setter's check."""

from __future__ import annotations

import warnings

import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _show(value):
    if isinstance(value, (tuple, list)):
        return [_show(v) for v in value]
    return repr(value).replace("leafgrad", "torch")


def _outcome(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = _show(fn(lib))
        except Exception as exc:  # noqa: BLE001 - the type and first line are compared
            result = (type(exc).__name__, str(exc).splitlines()[0])
    # (distinct texts; torch warns about a discarded imaginary part once per process, so
    # whether it warns here depends on which test ran before in the same process: that
    # warning is left out of the comparison, tests/test_scalar_conversion_warning.py-style
    # fresh processes would be needed to compare it)
    texts = {str(w.message).split(" (Triggered")[0][:60] for w in caught}
    return result, sorted(t for t in texts if "discards the imaginary part" not in t)


def _leaf(lib, dtype="float32", grad_dtype="unset"):
    x = lib.tensor([1.0, -2.0, 0.5], dtype=getattr(lib, dtype), requires_grad=True)
    if grad_dtype != "unset":
        x.grad_dtype = None if grad_dtype is None else getattr(lib, grad_dtype)
    return x


GRAD_DTYPES = ["unset", None, "float16", "float32", "float64", "complex64"]


# (a real leaf with a complex grad_dtype is left out: the values agree, but torch warns once per
# process about discarding imaginary parts, leafgrad at each cast)
@pytest.mark.parametrize("dtype,grad_dtype", [
    (dtype, grad_dtype) for dtype in ["float32", "float64", "float16", "complex64"]
    for grad_dtype in GRAD_DTYPES if dtype == "complex64" or grad_dtype != "complex64"])
def test_backward_casts(dtype, grad_dtype):
    def fn(lib):
        x = _leaf(lib, dtype, grad_dtype)
        seen = []
        x.register_hook(lambda g: seen.append(str(g.dtype)) or None)
        (x * 3).sum().abs().backward()
        first = x.grad.clone()
        (x * x).sum().abs().backward()
        grads = lib.autograd.grad((x * 2).sum().abs(), x)
        return x.grad_dtype, first, x.grad, grads, seen

    assert _outcome(leafgrad, fn) == _outcome(torch, fn)


@pytest.mark.parametrize("grad_dtype", GRAD_DTYPES)
@pytest.mark.parametrize("assigned", ["float32", "float64", "float16"])
def test_grad_setter(grad_dtype, assigned):
    def fn(lib):
        x = _leaf(lib, "float32", grad_dtype)
        x.grad = lib.ones(3, dtype=getattr(lib, assigned))
        return x.grad

    assert _outcome(leafgrad, fn) == _outcome(torch, fn)


CASES = {
    "default": lambda lib: _leaf(lib).grad_dtype,
    "int_tensor": lambda lib: lib.tensor([1, 2]).grad_dtype,
    "no_grad_leaf": lambda lib: _leaf(lib).detach().grad_dtype,
    "set_on_plain": lambda lib: [lib.ones(2)._set_grad_dtype_for_test(lib)],
    "bad_value": lambda lib: setattr(_leaf(lib), "grad_dtype", "float64"),
    "bad_number": lambda lib: setattr(_leaf(lib), "grad_dtype", 3),
    "non_leaf_get": lambda lib: (_leaf(lib) * 2).grad_dtype,
    "non_leaf_set": lambda lib: setattr(_leaf(lib) * 2, "grad_dtype", lib.float16),
    "reset_none": lambda lib: _reset(lib),
}


def _reset(lib):
    x = _leaf(lib, "float32", "float64")
    x.grad_dtype = None
    return x.grad_dtype


def _set_plain(self, lib):
    self.grad_dtype = lib.float64
    return self.grad_dtype


@pytest.mark.parametrize("name", sorted(CASES))
def test_property(name, monkeypatch):
    monkeypatch.setattr(torch.Tensor, "_set_grad_dtype_for_test", _set_plain, raising=False)
    monkeypatch.setattr(leafgrad.Tensor, "_set_grad_dtype_for_test", _set_plain, raising=False)
    assert _outcome(leafgrad, CASES[name]) == _outcome(torch, CASES[name])
