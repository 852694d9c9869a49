"""torch.func's transforms against torch.func: values, structures, requires_grad and errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._compare import same, torch

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4))
V = RNG.normal(size=4)
W = RNG.normal(size=(5, 4))


def t(lib, array, **kwargs):
    return lib.tensor(array, dtype=lib.float64, **kwargs)


def f_scalar(lib):
    return lambda x: (x.sin() * x).sum()


def f_vector(lib):
    w = t(lib, W)
    return lambda x: (x.tanh() @ w.T) * x.sum()


# -- grad / grad_and_value ----------------------------------------------------------------------


@pytest.mark.parametrize("requires_grad", [False, True])
def test_grad(requires_grad):
    same(lambda lib: lib.func.grad(f_scalar(lib))(t(lib, X, requires_grad=requires_grad)))


def test_grad_and_value():
    same(lambda lib: lib.func.grad_and_value(f_scalar(lib))(t(lib, X)))


@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1,), (1, 0)])
def test_grad_argnums(argnums):
    def program(lib):
        return lib.func.grad(lambda a, b: (a * b.exp()).sum(), argnums=argnums)(
            t(lib, X), t(lib, X * 2))

    same(program)


def test_grad_pytree_inputs():
    def program(lib):
        def loss(params, x):
            return (params["w"] @ x + params["b"][0]).pow(2).sum()

        params = {"w": t(lib, W), "b": [t(lib, V[:1]), t(lib, V[1:2])]}
        return lib.func.grad(loss)(params, t(lib, V))

    same(program)


def test_grad_has_aux():
    def program(lib):
        def f(x):
            y = x.sin()
            return y.sum(), {"y": y, "n": [y.cos()]}

        return lib.func.grad(f, has_aux=True)(t(lib, X))

    same(program)


def test_grad_and_value_has_aux():
    same(lambda lib: lib.func.grad_and_value(lambda x: (x.exp().sum(), x * 2), has_aux=True)(
        t(lib, V)))


def test_grad_unrelated_output_gives_zeros():
    same(lambda lib: lib.func.grad(lambda x, y: (y * 3).sum())(t(lib, V), t(lib, V)))


def test_grad_of_grad():
    same(lambda lib: lib.func.grad(lambda x: lib.func.grad(lambda y: (y ** 3).sum().sin())(x)
                                   .sum())(t(lib, V)))


def test_grad_result_keeps_outer_graph():
    def program(lib):
        x = t(lib, V, requires_grad=True)
        g = lib.func.grad(lambda y: (y ** 3).sum())(x)
        return g, lib.autograd.grad(g.sum(), x)[0]

    same(program)


def test_grad_with_closure_parameter_keeps_graph():
    def program(lib):
        w = t(lib, W, requires_grad=True)
        g = lib.func.grad(lambda x: ((w @ x).tanh() ** 2).sum())(t(lib, V))
        out, fn = lib.func.vjp(lambda x: (w @ x).sin(), t(lib, V))
        return g, lib.autograd.grad(g.sum(), w)[0], out, fn(t(lib, np.ones(5)))

    same(program)


def test_grad_perturbation_confusion():
    # d/dx [ d/dy (x * y) at y = x ] = 1, not 2
    same(lambda lib: lib.func.grad(lambda x: lib.func.grad(lambda y: (x * y).sum())(x).sum())(
        t(lib, V)))


@pytest.mark.parametrize("case", [
    "not_scalar", "not_tensor", "aux_not_tuple", "argnum_range", "argnums_empty",
    "argnums_type", "int_input", "non_tensor_arg", "argnums_duplicate",
])
def test_grad_errors(case):
    def program(lib):
        x = t(lib, X)
        if case == "not_scalar":
            return lib.func.grad(lambda a: a * 2)(x)
        if case == "not_tensor":
            return lib.func.grad(lambda a: 3.0)(x)
        if case == "aux_not_tuple":
            return lib.func.grad(lambda a: a.sum(), has_aux=True)(x)
        if case == "argnum_range":
            return lib.func.grad(lambda a: a.sum(), argnums=2)(x)
        if case == "argnums_empty":
            return lib.func.grad(lambda a: a.sum(), argnums=())(x)
        if case == "argnums_type":
            return lib.func.grad(lambda a: a.sum(), argnums=[0])(x)
        if case == "int_input":
            return lib.func.grad(lambda a: a.sum())(lib.tensor([1, 2]))
        if case == "non_tensor_arg":
            return lib.func.grad(lambda a, b: a.sum(), argnums=(0, 1))(x, 2)
        if case == "argnums_duplicate":
            return lib.func.grad(lambda a, b: a.sum(), argnums=(0, 0))(x, x)
        raise AssertionError(case)

    same(program)


# -- vjp / jvp / linearize -----------------------------------------------------------------------


def test_vjp():
    def program(lib):
        out, fn = lib.func.vjp(f_vector(lib), t(lib, V))
        return out, fn(t(lib, np.arange(5.0)))

    same(program)


def test_vjp_several_primals_and_outputs():
    def program(lib):
        out, fn = lib.func.vjp(lambda a, b: (a * b, (a - b).exp()), t(lib, V), t(lib, -V))
        return out, fn((t(lib, np.ones(4)), t(lib, np.arange(4.0))))

    same(program)


def test_vjp_has_aux():
    def program(lib):
        out, fn, aux = lib.func.vjp(lambda a: (a.sin(), a.cos()), t(lib, V), has_aux=True)
        return out, fn(t(lib, np.ones(4))), aux

    same(program)


def test_jvp():
    same(lambda lib: lib.func.jvp(f_vector(lib), (t(lib, V),), (t(lib, np.ones(4)),)))


def test_jvp_several_and_aux():
    same(lambda lib: lib.func.jvp(lambda a, b: ((a * b).sum(), a.exp()), (t(lib, V), t(lib, V)),
                                  (t(lib, np.ones(4)), t(lib, np.arange(4.0))), has_aux=True))


def test_jvp_output_independent_of_input():
    same(lambda lib: lib.func.jvp(lambda a: t(lib, W), (t(lib, V),), (t(lib, V),)))


@pytest.mark.parametrize("case", ["primals_not_tuple", "structure", "shape"])
def test_jvp_errors(case):
    def program(lib):
        if case == "primals_not_tuple":
            return lib.func.jvp(lambda a: a, t(lib, V), (t(lib, V),))
        if case == "structure":
            return lib.func.jvp(lambda a: a, (t(lib, V),), (t(lib, V), t(lib, V)))
        return lib.func.jvp(lambda a: a, (t(lib, V),), (t(lib, X),))

    same(program)


def test_linearize():
    def program(lib):
        out, fn = lib.func.linearize(f_vector(lib), t(lib, V))
        return out, fn(t(lib, np.ones(4))), fn(t(lib, np.arange(4.0)))

    same(program)


# -- Jacobians ----------------------------------------------------------------------------------


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobian(transform):
    same(lambda lib: getattr(lib.func, transform)(f_vector(lib))(t(lib, V)))


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_jacobian_argnums_and_outputs(transform, argnums):
    def program(lib):
        def f(a, b):
            return {"p": a * b.sum(), "q": (a.exp() @ b.reshape(4, 1)).reshape(1)}

        return getattr(lib.func, transform)(f, argnums=argnums)(t(lib, V), t(lib, X[0]))

    same(program)


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobian_has_aux(transform):
    same(lambda lib: getattr(lib.func, transform)(lambda a: (a.sin(), a.sum()), has_aux=True)(
        t(lib, V)))


@pytest.mark.parametrize("chunk_size", [None, 1, 3, 100])
def test_jacrev_chunk_size(chunk_size):
    same(lambda lib: lib.func.jacrev(f_vector(lib), chunk_size=chunk_size)(t(lib, V)))


def test_jacfwd_randomness_error():
    same(lambda lib: lib.func.jacfwd(lambda a: a * lib.rand(4, dtype=lib.float64))(t(lib, V)))


def test_jacfwd_randomness_same():
    def program(lib):
        lib.manual_seed(0)
        jac = lib.func.jacfwd(lambda a: a * lib.rand(4, dtype=lib.float64),
                              randomness="same")(t(lib, V))
        return jac

    same(program)


@pytest.mark.parametrize("outer", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("inner", ["jacrev", "jacfwd"])
def test_nested_jacobians(outer, inner):
    same(lambda lib: getattr(lib.func, outer)(getattr(lib.func, inner)(
        lambda x: x.sin() * x.sum()))(t(lib, V)))


def test_hessian():
    same(lambda lib: lib.func.hessian(lambda x: (x.tanh() ** 2).sum())(t(lib, V)))


def test_hessian_argnums():
    same(lambda lib: lib.func.hessian(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(
        t(lib, V), t(lib, V / 2)))


def test_hessian_of_64_input_function_matches_autograd():
    """The issue's Hessian case: f(x) = sum(tanh(A x) ** 2), 64 inputs."""
    rng = np.random.default_rng(3)
    a, x = rng.normal(size=(64, 64)) / 8, rng.normal(size=64)
    same(lambda lib: lib.func.hessian(lambda v: (lib.tanh(t(lib, a) @ v) ** 2).sum())(
        t(lib, x)), rtol=1e-9, atol=1e-11)


def test_per_example_gradient_composition():
    def program(lib):
        w = t(lib, W)

        def loss(weight, x):
            return ((weight @ x).tanh() ** 2).sum()

        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(w, t(lib, X))

    same(program)


def test_grad_of_vmap():
    same(lambda lib: lib.func.grad(lambda x: lib.func.vmap(f_scalar(lib))(x).sum())(t(lib, X)))


def test_vmap_of_jacrev_and_hessian():
    same(lambda lib: (lib.func.vmap(lib.func.jacrev(lambda x: x.sin() * x.sum()))(t(lib, X)),
                      lib.func.vmap(lib.func.hessian(lambda x: (x.tanh() ** 2).sum()))(
                          t(lib, X))))


def test_transforms_reachable():
    assert leafgrad.vmap is leafgrad.func.vmap
    for name in ("grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
                 "linearize", "functional_call", "stack_module_state", "vmap"):
        assert hasattr(leafgrad.func, name) and hasattr(torch.func, name)
