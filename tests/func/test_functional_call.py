"""functional_call, stack_module_state and autograd.Function under vmap, against torch.func."""

from __future__ import annotations

import numpy as np
import pytest

from ._compare import same

RNG = np.random.default_rng(13)
X = RNG.normal(size=(5, 3))
W = RNG.normal(size=(2, 3))


def t(lib, array, **kwargs):
    return lib.tensor(array, dtype=lib.float64, **kwargs)


def model(lib, seed=0):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Tanh(),
                             lib.nn.Linear(4, 2)).double().eval()


def test_functional_call_replaces_and_restores():
    def program(lib):
        net = model(lib)
        params = {"0.weight": t(lib, np.ones((4, 3))), "3.bias": t(lib, [1.0, -1.0])}
        out = lib.func.functional_call(net, params, (t(lib, X),))
        return out, net(t(lib, X)), net[0].weight

    same(program, requires_grad=False)


def test_functional_call_buffers_kwargs_and_tuple_of_dicts():
    def program(lib):
        net = model(lib)
        buffers = {"1.running_mean": t(lib, [0.5, 0.0, -0.5, 1.0])}
        params = {"3.weight": t(lib, W.T[:, :2].T.repeat(1, 1)[:2, :].reshape(2, 2)
                                 .repeat(1, 2))}
        return lib.func.functional_call(net, (params, buffers), args=(),
                                        kwargs={"input": t(lib, X)})

    same(program, requires_grad=False)


def test_functional_call_grad_with_respect_to_parameters():
    def program(lib):
        net = model(lib)
        params = {name: p.detach() for name, p in net.named_parameters()}

        def loss(p, x):
            return lib.func.functional_call(net, p, (x,)).pow(2).sum()

        return lib.func.grad(loss)(params, t(lib, X))

    same(program)


def test_functional_call_strict_and_duplicates():
    def strict(lib):
        net = model(lib)
        return lib.func.functional_call(net, {"0.weight": t(lib, np.ones((4, 3)))},
                                        (t(lib, X),), strict=True)

    def duplicate(lib):
        net = model(lib)
        return lib.func.functional_call(net, ({"0.bias": t(lib, np.ones(4))},
                                              {"0.bias": t(lib, np.ones(4))}), (t(lib, X),))

    same(strict)
    same(duplicate)


def test_functional_call_tied_weights():
    def program(lib):
        lib.manual_seed(0)
        first, second = lib.nn.Linear(3, 3).double(), lib.nn.Linear(3, 3).double()
        second.weight = first.weight
        net = lib.nn.Sequential(first, second)
        given = {"0.weight": t(lib, np.eye(3) * 2)}
        return (lib.func.functional_call(net, given, (t(lib, X),)),
                lib.func.functional_call(net, given, (t(lib, X),), tie_weights=False))

    same(program, requires_grad=False)


def test_ensemble_with_stack_module_state():
    def program(lib):
        models = [model(lib, seed) for seed in range(3)]
        params, buffers = lib.func.stack_module_state(models)
        base = model(lib, 9)

        def run(p, b, x):
            return lib.func.functional_call(base, (p, b), (x,))

        out = lib.func.vmap(run, in_dims=(0, 0, None))(params, buffers, t(lib, X))
        return out, sorted(params), [v.shape for v in params.values()], \
            [v.requires_grad for v in params.values()], sorted(buffers)

    same(program)


def _functions(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.saved_tensors[0]

    class Generated(Exp):
        generate_vmap_rule = True

    class OwnRule(Exp):
        @staticmethod
        def vmap(info, in_dims, x):
            return Exp.apply(x) * info.batch_size, in_dims[0]

    class OldStyle(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return Exp, Generated, OwnRule, OldStyle


@pytest.mark.parametrize("case", ["generated", "own", "grad_of_vmap", "vmap_of_grad",
                                  "no_rule", "old_style", "own_in_dims"])
def test_function_under_vmap(case):
    def program(lib):
        exp, generated, own, old = _functions(lib)
        x = t(lib, X)
        vmap, grad = lib.func.vmap, lib.func.grad
        if case == "generated":
            return vmap(generated.apply)(x)
        if case == "own":
            return vmap(own.apply)(x)
        if case == "own_in_dims":
            return vmap(own.apply, in_dims=1)(x)
        if case == "grad_of_vmap":
            return grad(lambda a: vmap(generated.apply)(a).sum())(x), \
                grad(lambda a: vmap(own.apply)(a).sum())(x)
        if case == "vmap_of_grad":
            return vmap(grad(lambda a: generated.apply(a).sum()))(x)
        if case == "no_rule":
            return vmap(exp.apply)(x)
        return vmap(old.apply)(x)

    same(program)
