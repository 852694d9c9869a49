"""``autograd.functional`` against torch 2.13: the same calls under both libraries, compared.

For every function (vjp, jvp, jacobian, hessian, hvp, vhp) and every option (create_graph,
strict, vectorize, strategy / outer_jacobian_strategy), over Tensor and tuple inputs and
outputs, float32 and float64, inputs that require grad or not: the result's structure (tuple or
list nesting), each tensor's shape, dtype, requires_grad, grad_fn name and values, the gradient
that flows back to the inputs under ``create_graph=True``, and errors (type, first line).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


# -- observing a call ------------------------------------------------------------------------------


def _describe(value):
    """A comparable picture of a result: nesting, then per tensor its metadata and values."""
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [_describe(item) for item in value])
    if value is None:
        return None
    fn = value.grad_fn
    return (
        "tensor",
        tuple(value.shape),
        str(value.dtype).split(".")[-1],
        value.requires_grad,
        None if fn is None else type(fn).__name__,
        value.detach().numpy(force=True).copy(),
    )


def _raised(error):
    first = str(error).splitlines()[0] if str(error) else ""
    return ("raised", type(error).__name__, first.replace("torch.", "leafgrad."))


def _same(ours, theirs, path="result"):
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), path
        assert ours.dtype == theirs.dtype, path
        tol = 1e-5 if theirs.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol, err_msg=path)
        return
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), (path, ours, theirs)
        for index, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{path}[{index}]")
        return
    assert ours == theirs, (path, ours, theirs)


def _run(program, lib):
    """Observations of ``program(lib)``: what it returns (a list of values) or what it raises."""
    try:
        return [_describe(item) for item in program(lib)]
    except Exception as error:  # noqa: BLE001 - the exception is the observation
        return _raised(error)


def _check(program):
    ours = _run(program, leafgrad)
    theirs = _run(program, torch)
    if ours and theirs and (ours[0] == "raised" or theirs[0] == "raised"):
        assert ours == theirs
    _same(ours, theirs)
    return theirs


# -- functions and inputs --------------------------------------------------------------------------

DTYPES = ("float32", "float64")


def _inputs(lib, dtype, requires_grad):
    """Two inputs: a vector and a 2x2 matrix, with fixed values (no randomness to share)."""
    dtype = getattr(lib, dtype)
    a = lib.tensor([0.3, -1.2, 0.8], dtype=dtype, requires_grad=requires_grad[0])
    b = lib.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=dtype, requires_grad=requires_grad[1])
    return a, b


# Functions of one tensor; each returns a Tensor.
ONE_INPUT = {
    "scalar": lambda x: (x ** 3).sum() * x.sin().sum(),
    "vector": lambda x: x.exp() * x.tanh(),
    "linear": lambda x: x * 3.0,
    "constant": lambda x: x.detach() * 2.0,
}

# Functions of (vector, matrix).
TWO_INPUTS = {
    "tuple_out": lambda a, b: (a.sin() * 2.0, (b * a[:2]).exp()),
    "scalar": lambda a, b: ((a[:2] * b).sum() ** 2) * a.cos().sum(),
    "ignores_b": lambda a, b: (a * 2.0).sum() ** 2,
    "one_tuple_out": lambda a, b: ((a[:2] * b).tanh(),),
}


def _tuple_in(lib, dtype, requires_grad, as_tuple):
    a, b = _inputs(lib, dtype, requires_grad)
    return (a,) if as_tuple else a


# -- jacobian --------------------------------------------------------------------------------------

JACOBIAN_OPTIONS = list(itertools.product(
    (False, True),  # create_graph
    (False, True),  # strict
    (False, True),  # vectorize
    ("reverse-mode", "forward-mode"),
))


def _graph_grads(lib, result, inputs):
    """Under create_graph: differentiate the sum of every result tensor back to the inputs."""
    flat = []

    def walk(value):
        if isinstance(value, (tuple, list)):
            for item in value:
                walk(item)
        elif value is not None and value.requires_grad:
            flat.append(value)

    walk(result)
    wanted = [t for t in inputs if t.requires_grad]
    if not flat or not wanted:
        return []
    total = sum(t.sum() for t in flat)
    return list(lib.autograd.grad(total, wanted, allow_unused=True, materialize_grads=True))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(ONE_INPUT))
@pytest.mark.parametrize("options", JACOBIAN_OPTIONS, ids=str)
@pytest.mark.parametrize("requires_grad", (False, True))
@pytest.mark.parametrize("as_tuple", (False, True))
def test_jacobian_one_input(dtype, name, options, requires_grad, as_tuple):
    create_graph, strict, vectorize, strategy = options

    def program(lib):
        x = _inputs(lib, dtype, (requires_grad, False))[0]
        inputs = (x,) if as_tuple else x
        result = lib.autograd.functional.jacobian(
            ONE_INPUT[name], inputs, create_graph=create_graph, strict=strict,
            vectorize=vectorize, strategy=strategy,
        )
        return [result, x, *_graph_grads(lib, result, (x,))]

    _check(program)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(TWO_INPUTS))
@pytest.mark.parametrize("options", JACOBIAN_OPTIONS, ids=str)
@pytest.mark.parametrize("requires_grad", ((False, False), (True, False), (True, True)), ids=str)
def test_jacobian_two_inputs(dtype, name, options, requires_grad):
    create_graph, strict, vectorize, strategy = options

    def program(lib):
        a, b = _inputs(lib, dtype, requires_grad)
        result = lib.autograd.functional.jacobian(
            TWO_INPUTS[name], (a, b), create_graph=create_graph, strict=strict,
            vectorize=vectorize, strategy=strategy,
        )
        return [result, *_graph_grads(lib, result, (a, b))]

    _check(program)


def test_jacobian_0d_and_empty_shapes():
    def program(lib):
        x = lib.tensor(0.7, dtype=lib.float64)
        m = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64)
        F = lib.autograd.functional
        return [
            F.jacobian(lambda t: t.exp(), x),
            F.jacobian(lambda t: t.exp(), x, vectorize=True),
            F.jacobian(lambda t: t.exp(), x, vectorize=True, strategy="forward-mode"),
            F.jacobian(lambda t: t.t() * 2, m),  # non-contiguous output
            F.jacobian(lambda t: t.t() * 2, m.t()),  # non-contiguous input
            F.jacobian(lambda t: t.t() * 2, m.t(), vectorize=True),
            F.jacobian(lambda t: t.t() * 2, m.t(), vectorize=True, strategy="forward-mode"),
            F.jacobian(lambda t: (t * 2).sum(0), m),
        ]

    _check(program)


def test_jacobian_of_an_input_with_no_elements():
    def program(lib):
        F = lib.autograd.functional
        e = lib.ones(0, 2, dtype=lib.float64)
        x = lib.tensor([0.5, 2.0], dtype=lib.float64)
        return [
            F.jacobian(lambda t: t * 2, e, vectorize=True, strategy="forward-mode"),
            F.jacobian(lambda t, u: (t.sum() * u, u.exp()), (e, x), vectorize=True,
                       strategy="forward-mode"),
            F.jacobian(lambda t: (t * 2).sum(), e),
            F.jacobian(lambda t: (t * 2).sum(), e, vectorize=True),
            F.vjp(lambda t: (t * 2).sum(), e),
        ]

    _check(program)


def test_jacobian_of_an_output_with_no_elements():
    """Beyond torch: 2.13 fails on an output with no elements (stack of an empty list, or an
    IndexError when vectorized); leafgrad returns the empty Jacobian, shaped as always."""
    F = leafgrad.autograd.functional
    m = leafgrad.ones(2, 3, dtype=leafgrad.float64)
    for vectorize in (False, True):
        jac = F.jacobian(lambda t: (t[:0] * 2, t.sum()), m, vectorize=vectorize)
        assert jac[0].shape == (0, 3, 2, 3) and jac[0].dtype == leafgrad.float64
        np.testing.assert_array_equal(jac[1].numpy(), np.ones((2, 3)))
        with pytest.raises((RuntimeError, IndexError)):
            torch.autograd.functional.jacobian(
                lambda t: t[:0] * 2, torch.ones(2, 3, dtype=torch.float64), vectorize=vectorize)


# -- hessian ---------------------------------------------------------------------------------------

HESSIAN_OPTIONS = list(itertools.product(
    (False, True),  # create_graph
    (False, True),  # strict
    (False, True),  # vectorize
    ("reverse-mode", "forward-mode"),
))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", HESSIAN_OPTIONS, ids=str)
@pytest.mark.parametrize("requires_grad", (False, True))
@pytest.mark.parametrize("name", ("scalar", "vector", "linear", "constant"))
def test_hessian_one_input(dtype, options, requires_grad, name):
    create_graph, strict, vectorize, strategy = options
    func = ONE_INPUT[name]  # "vector" is not a scalar function: torch's error

    def program(lib):
        x = _inputs(lib, dtype, (requires_grad, False))[0]
        result = lib.autograd.functional.hessian(
            func, x, create_graph=create_graph, strict=strict, vectorize=vectorize,
            outer_jacobian_strategy=strategy,
        )
        return [result, x, *_graph_grads(lib, result, (x,))]

    _check(program)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", HESSIAN_OPTIONS, ids=str)
@pytest.mark.parametrize("requires_grad", ((False, False), (True, True)), ids=str)
@pytest.mark.parametrize("name", ("scalar", "ignores_b", "tuple_out"))
def test_hessian_two_inputs(dtype, options, requires_grad, name):
    create_graph, strict, vectorize, strategy = options

    def program(lib):
        a, b = _inputs(lib, dtype, requires_grad)
        result = lib.autograd.functional.hessian(
            TWO_INPUTS[name], (a, b), create_graph=create_graph, strict=strict,
            vectorize=vectorize, outer_jacobian_strategy=strategy,
        )
        return [result, *_graph_grads(lib, result, (a, b))]

    _check(program)


def test_hessian_single_input_tuple_and_0d():
    def program(lib):
        x = lib.tensor(0.4, dtype=lib.float64)
        v = lib.tensor([0.2, 0.9], dtype=lib.float64)
        F = lib.autograd.functional
        return [
            F.hessian(lambda t: t.exp() * t, x),
            F.hessian(lambda t: (t.exp() * t).sum(), (v,)),
            F.hessian(lambda t: (t.exp() * t).sum().reshape(1, 1), v),  # one element, 2-d
            F.hessian(lambda t: (t.exp() * t).sum(), (v,), vectorize=True,
                      outer_jacobian_strategy="forward-mode"),
        ]

    _check(program)


# -- vjp, jvp, hvp, vhp ----------------------------------------------------------------------------

PRODUCT_OPTIONS = list(itertools.product((False, True), (False, True)))  # create_graph, strict


def _v_like(lib, tensors, dtype):
    dtype = getattr(lib, dtype)
    return tuple(
        lib.linspace(-1.0, 1.5, t.numel(), dtype=dtype).reshape(t.shape) for t in tensors
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", PRODUCT_OPTIONS, ids=str)
@pytest.mark.parametrize("requires_grad", (False, True))
@pytest.mark.parametrize("name", sorted(ONE_INPUT))
@pytest.mark.parametrize("fn_name", ("vjp", "jvp", "hvp", "vhp"))
def test_products_one_input(dtype, options, requires_grad, name, fn_name):
    create_graph, strict = options

    def program(lib):
        x = _inputs(lib, dtype, (requires_grad, False))[0]
        func = ONE_INPUT[name]
        fn = getattr(lib.autograd.functional, fn_name)
        if fn_name == "vjp":
            with lib.no_grad():
                reference = func(x)
            (v,) = _v_like(lib, (reference,), dtype)
        else:
            (v,) = _v_like(lib, (x,), dtype)
        result = fn(func, x, v, create_graph=create_graph, strict=strict)
        return [result, x, *_graph_grads(lib, result, (x,))]

    _check(program)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", PRODUCT_OPTIONS, ids=str)
@pytest.mark.parametrize("requires_grad", ((False, False), (True, False), (True, True)), ids=str)
@pytest.mark.parametrize("name", sorted(TWO_INPUTS))
@pytest.mark.parametrize("fn_name", ("vjp", "jvp", "hvp", "vhp"))
def test_products_two_inputs(dtype, options, requires_grad, name, fn_name):
    create_graph, strict = options

    def program(lib):
        a, b = _inputs(lib, dtype, requires_grad)
        func = TWO_INPUTS[name]
        fn = getattr(lib.autograd.functional, fn_name)
        if fn_name == "vjp":
            with lib.no_grad():
                reference = func(a, b)
            reference = reference if isinstance(reference, tuple) else (reference,)
            v = _v_like(lib, reference, dtype)
            if not isinstance(func(a, b), tuple):
                v = v[0]
        else:
            v = _v_like(lib, (a, b), dtype)
        result = fn(func, (a, b), v, create_graph=create_graph, strict=strict)
        return [result, *_graph_grads(lib, result, (a, b))]

    _check(program)


def test_products_with_v_none_for_single_elements():
    def program(lib):
        F = lib.autograd.functional
        x = lib.tensor([0.6], dtype=lib.float64)
        s = lib.tensor(0.6, dtype=lib.float64)
        return [
            F.vjp(lambda t: (t ** 3).sum(), x),
            F.jvp(lambda t: t ** 3, s),
            F.jvp(lambda t: (t ** 3, t.exp()), x),
            F.hvp(lambda t: (t ** 3).sum(), s),
            F.vhp(lambda t: (t ** 3).sum(), (x,)),
        ]

    _check(program)


def test_products_under_no_grad():
    """create_graph turns grad mode on for the result; without it the mode is left alone."""
    for fn_name in ("vjp", "jvp", "hvp", "vhp"):
        for create_graph in (False, True):
            def program(lib):
                F = lib.autograd.functional
                x = lib.tensor([0.6, -0.2], dtype=lib.float64, requires_grad=True)
                v = lib.tensor([1.0, 2.0], dtype=lib.float64)
                with lib.no_grad():
                    result = getattr(F, fn_name)(
                        lambda t: (t ** 3).sum() if fn_name in ("hvp", "vhp") else t ** 3,
                        x, v if fn_name != "vjp" else v, create_graph=create_graph)
                return [result]

            _check(program)


def test_inputs_captured_by_the_closure_are_not_the_arguments():
    """The function gets new tensor objects: a closure over the given tensor is a constant."""
    def program(lib):
        F = lib.autograd.functional
        x = lib.tensor([0.6, -0.2], dtype=lib.float64, requires_grad=True)
        return [
            F.jacobian(lambda t: t * x, x),
            F.vjp(lambda t: t * x, x, lib.ones(2, dtype=lib.float64)),
            F.hessian(lambda t: (t * t * x).sum(), x),
            F.jacobian(lambda t: t * x, x, create_graph=True),
        ]

    _check(program)


# -- errors ----------------------------------------------------------------------------------------


def _error_programs():
    def calls(lib):
        F = lib.autograd.functional
        x = lib.tensor([0.6, -0.2], dtype=lib.float64)
        y = lib.tensor([[1.0, 2.0]], dtype=lib.float64)
        square = lambda t: t ** 2  # noqa: E731
        total = lambda t: (t ** 2).sum()  # noqa: E731
        return {
            "inputs_list": lambda: F.jacobian(square, [x]),
            "inputs_float": lambda: F.vjp(square, 1.0),
            "inputs_tuple_with_float": lambda: F.jvp(square, (x, 2.0)),
            "hessian_inputs_list": lambda: F.hessian(total, [x]),
            "outputs_float": lambda: F.vjp(lambda t: 1.0, x, x),
            "outputs_list": lambda: F.jacobian(lambda t: [t], x),
            "outputs_tuple_with_none": lambda: F.jacobian(lambda t: (t, None), x),
            "hessian_outputs_float": lambda: F.hessian(lambda t: 2.0, x),
            "vjp_v_none": lambda: F.vjp(square, x),
            "jvp_v_none": lambda: F.jvp(square, x),
            "hvp_v_none": lambda: F.hvp(total, x),
            "vhp_v_none": lambda: F.vhp(total, (x,)),
            "vjp_v_wrong_size": lambda: F.vjp(square, x, y),
            "vjp_v_wrong_count": lambda: F.vjp(lambda t: (t, t), x, (x,)),
            "vjp_v_tuple_for_tensor": lambda: F.vjp(square, x, (x, x)),
            "jvp_v_wrong_size_tuple": lambda: F.jvp(lambda a, b: a, (x, y), (x, x)),
            "jvp_v_wrong_type": lambda: F.jvp(square, x, [x]),
            "hvp_v_wrong_size": lambda: F.hvp(total, x, y),
            "vhp_tuple_output": lambda: F.vhp(lambda t: (t.sum(),), x, x),
            "hvp_many_elements": lambda: F.hvp(square, x, x),
            "hessian_tuple_output": lambda: F.hessian(lambda t: (t.sum(),), x),
            "hessian_many_elements": lambda: F.hessian(square, x),
            "strategy": lambda: F.jacobian(square, x, strategy="forward"),
            "hessian_strategy": lambda: F.hessian(total, x, outer_jacobian_strategy="x"),
            "forward_create_graph": lambda: F.jacobian(
                square, x, create_graph=True, strategy="forward-mode"),
            "forward_strict": lambda: F.jacobian(square, x, strict=True, vectorize=True,
                                                 strategy="forward-mode"),
            "forward_not_vectorized": lambda: F.jacobian(square, x, strategy="forward-mode"),
            "hessian_forward_not_vectorized": lambda: F.hessian(
                total, x, outer_jacobian_strategy="forward-mode"),
            "vectorize_strict": lambda: F.jacobian(square, x, strict=True, vectorize=True),
            "strict_output_constant": lambda: F.vjp(lambda t: t.detach(), x, x, strict=True),
            "strict_jvp_independent": lambda: F.jvp(lambda a, b: a * 2, (x, y), (x, y),
                                                     strict=True),
            "strict_hessian_linear": lambda: F.hessian(lambda t: (t * 2).sum(), x, strict=True),
            "strict_hvp_linear": lambda: F.hvp(lambda t: (t * 2).sum(), x, x, strict=True),
            "strict_vhp_independent": lambda: F.vhp(lambda a, b: (a ** 2).sum(), (x, y),
                                                     (x, y), strict=True),
            "int_input": lambda: F.jacobian(square, lib.tensor([1, 2])),
            "func_raises": lambda: F.jacobian(lambda t: t.reshape(3), x),
        }

    return calls


ERROR_CASES = sorted(_error_programs()(leafgrad))


@pytest.mark.parametrize("case", ERROR_CASES)
def test_errors_match_torch(case):
    observed = _check(lambda lib: [_error_programs()(lib)[case]()])
    assert observed[0] == "raised", observed  # each case is an error in torch


def test_a_failed_call_leaves_the_inputs_alone():
    x = leafgrad.tensor([0.6, -0.2], requires_grad=True)
    with pytest.raises(RuntimeError):
        leafgrad.autograd.functional.hessian(lambda t: t ** 2, x)
    assert x.grad is None and x._version == 0 and x.requires_grad and x.is_leaf


def test_namespace():
    names = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]
    assert sorted(leafgrad.autograd.functional.__all__) == sorted(names)
    assert sorted(torch.autograd.functional.__all__) == sorted(names)
    from leafgrad.autograd.functional import hessian  # noqa: F401 - the import form works


@pytest.mark.parametrize("create_graph", (False, True))
@pytest.mark.parametrize("fn_name", ("vjp", "jvp", "hvp", "vhp"))
def test_v_that_requires_grad(fn_name, create_graph):
    """Under create_graph the result also carries the graph back to v (v is linear in it)."""
    def program(lib):
        F = lib.autograd.functional
        x = lib.tensor([0.6, -0.2], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        func = (lambda t: (t ** 3).sum()) if fn_name in ("hvp", "vhp") else (lambda t: t ** 3)
        result = getattr(F, fn_name)(func, x, v, create_graph=create_graph)
        return [result, *_graph_grads(lib, result, (x, v))]

    _check(program)


@pytest.mark.parametrize("create_graph", (False, True))
@pytest.mark.parametrize("vectorize", (False, True))
def test_jacobian_and_hessian_under_no_grad(create_graph, vectorize):
    def program(lib):
        F = lib.autograd.functional
        x = lib.tensor([0.6, -0.2], dtype=lib.float64, requires_grad=True)
        with lib.no_grad():
            jac = F.jacobian(lambda t: t ** 3, x, create_graph=create_graph,
                             vectorize=vectorize)
            hess = F.hessian(lambda t: (t ** 3).sum(), x, create_graph=create_graph,
                             vectorize=vectorize)
        return [jac, hess, *_graph_grads(lib, (jac, hess), (x,))]

    _check(program)
