"""out= (issue 11 item 1): every function that takes it honours torch's rules, compared with
torch 2.13 function by function (tests/out_cases.py): the result is written into out and out is
returned; an empty out is resized silently, a non-empty out of another shape with torch's
warning; out dtypes are checked (or cast) as torch's kernel does, with its message; a function
that is differentiable refuses out= while an input requires grad; a call that raises leaves out
as it was. Functions torch gives no out= do not accept it either."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch
from .out_cases import (NO_OUT, OUT_CASES, OUT_JOINS_GRAPH_IN_TORCH, OWN_OUT_TESTS,
                        WARNING_SHAPES_DIFFER)

torch = require_torch()

DTYPES = ("bool", "uint8", "int32", "int64", "float32", "float64")


def _inputs(lib, requires_grad=False):
    x = lib.tensor([[0.1, 0.5, 0.7], [0.3, 0.9, 0.2]], requires_grad=requires_grad)
    y = lib.tensor([[0.4, 0.6, 0.2], [0.8, 0.1, 0.5]])
    m = lib.tensor([[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.1, 0.4, 3.0]])
    v = lib.tensor([0.5, 0.2, 0.7], requires_grad=requires_grad)
    with lib.no_grad():
        b = lib.stack([m, m * 2])
    return {"lib": lib, "x": x, "y": y, "m": m, "v": v, "b": b,
            "i": lib.tensor([[1, 2, 3], [4, 5, 6]])}


def _outs(lib, code, dtypes, shape=(0,), requires_grad=False):
    count = 3 if "OUT3" in code else 2 if "OUT2" in code else 1
    outs = tuple(lib.full(shape, 7, dtype=getattr(lib, d)) for d in dtypes[:count])
    if requires_grad:
        outs[0].requires_grad_(True)
    return outs, {"OUT": outs[0], "OUT2": outs[:2], "OUT3": outs}


def _state(tensor):
    return (str(tensor.dtype).split(".")[-1], tuple(tensor.shape), tensor._version,
            tensor.detach().numpy().copy())


def _run(lib, code, dtypes=("float32", "int64", "float32"), shape=(0,), grad=(False, False),
         grad_mode=True):
    """(outcome, warnings, states of the outs); outcome is the error or what came back."""
    lib.manual_seed(0)
    namespace = _inputs(lib, requires_grad=grad[0])
    outs, names = _outs(lib, code, dtypes, shape, requires_grad=grad[1])
    namespace.update(names)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with lib.set_grad_enabled(grad_mode):
                value = eval(code, namespace)  # noqa: S307 - the table's calls
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            outcome = (type(error).__name__, str(error).splitlines()[0])
        else:
            returned = value if isinstance(value, tuple) else () if value is None else (value,)
            outcome = ("returned", len(returned), all(r is o for r, o in zip(returned, outs)),
                       type(value).__name__, [r.requires_grad for r in returned])
    # deprecation and beta notices are warned once per process (which call sees them depends
    # on the tests run before), so they are left out
    messages = [str(w.message).split(" (Triggered internally")[0] for w in caught
                if ("deprecated" not in str(w.message) or "resized" in str(w.message))
                and "is in beta" not in str(w.message)]
    return outcome, messages, [_state(o) for o in outs]


def _same_states(ours, theirs, exact_version=True):
    assert len(ours) == len(theirs)
    for (dtype, shape, version, values), (t_dtype, t_shape, t_version, t_values) in zip(ours,
                                                                                         theirs):
        assert (dtype, shape) == (t_dtype, t_shape)
        np.testing.assert_allclose(values.astype(np.complex128), t_values.astype(np.complex128),
                                   rtol=1e-5, atol=1e-6)


def _compare(code, **options):
    ours, theirs = _run(leafgrad, code, **options), _run(torch, code, **options)
    assert ours[0] == theirs[0]
    if ours[0][0] == "returned":
        # the same warning texts (torch repeats some: its kernels resize twice)
        if code.split("(")[0] in WARNING_SHAPES_DIFFER:
            assert bool(ours[1]) == bool(theirs[1])
        else:
            assert sorted(set(ours[1])) == sorted(set(theirs[1]))
        _same_states(ours[2], theirs[2])
    else:  # a call that raised left the outs as they were (torch sometimes resizes first)
        outs, _ = _outs(leafgrad, code, options.get("dtypes", ("float32", "int64", "float32")),
                        options.get("shape", (0,)))
        before = [_state(o) for o in outs]
        _same_states(ours[2], before)
        assert [state[2] for state in ours[2]] == [state[2] for state in before]
    return ours


def _natural_dtypes(code):
    """The dtypes torch's own result has (without out=)."""
    torch.manual_seed(0)
    namespace = _inputs(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = eval(code.replace("out=OUT2", "").replace("out=OUT3", "").replace("out=OUT", ""),  # noqa: S307
                     namespace)
    values = value if isinstance(value, tuple) else (value,)
    return tuple(str(v.dtype).split(".")[-1] for v in values)


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_result_written_into_out_and_returned(name):
    code = OUT_CASES[name]
    outcome, _, states = _compare(code, dtypes=_natural_dtypes(code))
    assert outcome[0] == "returned" and outcome[2], outcome
    assert all(state[2] >= 1 for state in states)  # written: the version moved


@pytest.mark.parametrize("name", sorted(OUT_CASES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_out_dtype_checked_or_cast_like_torch(name, dtype):
    code = OUT_CASES[name]
    _compare(code, dtypes=(dtype, "int64", dtype))
    if "OUT2" in code:  # the second output's dtype (indices) on its own
        ours = _run(leafgrad, code, dtypes=("float32", dtype))
        assert ours[0] == _run(torch, code, dtypes=("float32", dtype))[0]


@pytest.mark.parametrize("name", sorted(OUT_CASES))
@pytest.mark.parametrize("shape", [(7,), (2, 3), (3, 3, 3)])
def test_resize_and_its_warning(name, shape):
    _compare(OUT_CASES[name], shape=shape)


def _requires_grad_cases():
    for name in sorted(OUT_CASES):
        for grad, label in (((True, False), "input"), ((False, True), "out")):
            marks = ()
            if label == "input" and name in OUT_JOINS_GRAPH_IN_TORCH:
                marks = pytest.mark.xfail(strict=True, reason=OUT_JOINS_GRAPH_IN_TORCH[name])
            yield pytest.param(name, grad, id=f"{label}-{name}", marks=marks)


@pytest.mark.parametrize(("name", "grad"), _requires_grad_cases())
def test_requires_grad(name, grad):
    _compare(OUT_CASES[name], grad=grad)
    _compare(OUT_CASES[name], grad=grad, grad_mode=False)


@pytest.mark.parametrize("code", NO_OUT)
def test_functions_without_out(code):
    for lib in (leafgrad, torch):
        with pytest.raises(TypeError):
            eval(code, {**_inputs(lib), "OUT": lib.empty(0), "OUT2": (lib.empty(0),) * 2})  # noqa: S307


def _public_functions():
    for prefix, module in (("", leafgrad), ("linalg.", leafgrad.linalg),
                           ("F.", leafgrad.nn.functional)):
        for name in dir(module):
            value = getattr(module, name)
            if name.startswith("_") or not callable(value) or isinstance(value, type):
                continue
            try:
                parameters = inspect.signature(value).parameters
            except (TypeError, ValueError):
                continue
            if "out" in parameters:
                yield prefix + name


def test_every_function_with_out_is_in_the_table():
    covered = {name.split(".dim")[0].split(".other")[0] for name in OUT_CASES}
    missing = sorted(set(_public_functions()) - covered - OWN_OUT_TESTS)
    assert not missing, f"out= taken but not tested: {missing}"


def test_overlapping_out_is_refused_like_torch():
    for code in ("lib.add(x, x, out=x[0])", "lib.add(x, 1, out=x.t())", "lib.mul(x, 2, out=x)",
                 "lib.sub(x[1], x[0], out=x[0])", "lib.neg(x[:, 1:], out=x[:, :2])"):
        def run(lib):
            x = lib.arange(6.0).reshape(2, 3)
            try:
                eval(code, {"lib": lib, "x": x})  # noqa: S307
            except RuntimeError as error:
                return str(error), x.tolist()
            return None, x.tolist()

        assert run(leafgrad) == run(torch), code


def test_out_keeps_its_memory_when_the_shape_fits():
    x = leafgrad.ones(2, 3)
    out = leafgrad.empty(2, 3)
    alias = out.view(6)
    leafgrad.add(x, x, out=out)
    assert alias.tolist() == [2.0] * 6
    assert out._version == alias._version == 1
