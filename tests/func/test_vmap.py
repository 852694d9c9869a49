"""vmap's call forms, structures, nesting, chunking, randomness and errors against torch.func."""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
import pytest

import leafgrad

from ._compare import same, torch

RNG = np.random.default_rng(11)
X = RNG.normal(size=(3, 4))
Y = RNG.normal(size=(4, 3))
Z = RNG.normal(size=(3, 2, 4))
W45 = RNG.normal(size=(4, 5))
IMAGES = RNG.normal(size=(2, 3, 1, 6, 6))
KERNEL = RNG.normal(size=(4, 1, 3, 3))
LOGITS = RNG.normal(size=(3, 5, 4))


def t(lib, array, **kwargs):
    return lib.tensor(array, dtype=lib.float64, **kwargs)


@pytest.mark.parametrize("in_dims", [0, 1, -1, -2, (0,), (1,)])
def test_in_dims(in_dims):
    same(lambda lib: lib.vmap(lambda a: a.sin().sum(), in_dims=in_dims)(t(lib, X)))


@pytest.mark.parametrize("out_dims", [0, 1, -1, (0,), 2])
def test_out_dims(out_dims):
    same(lambda lib: lib.vmap(lambda a: a.reshape(2, 2) * 2, out_dims=out_dims)(t(lib, X)))


def test_pytree_inputs_and_outputs():
    def program(lib):
        def f(d, pair):
            return {"s": d["a"] + d["b"], "l": [pair[0] * 2, pair[1].sum()]}

        return lib.vmap(f, in_dims=({"a": 0, "b": None}, (1, 0)),
                        out_dims={"s": 0, "l": [1, 0]})(
            {"a": t(lib, X), "b": t(lib, X[0])}, (t(lib, Y), t(lib, X)))

    same(program)


def test_namedtuple_input():
    def program(lib):
        pair = namedtuple("pair", "x y")
        return lib.vmap(lambda p: p.x * p.y)(pair(t(lib, X), t(lib, X * 2)))

    same(program)


def test_kwargs_are_not_mapped():
    same(lambda lib: lib.vmap(lambda a, scale=1.0: a * scale)(t(lib, X), scale=t(lib, X[0])))


def test_non_tensor_output_with_out_dims_none():
    same(lambda lib: lib.vmap(lambda a: (a * 2, 3), out_dims=(0, None))(t(lib, X)))


def test_unbatched_output_is_expanded():
    same(lambda lib: lib.vmap(lambda a: t(lib, Y[0]), in_dims=0)(t(lib, X)))


def test_nested_vmap():
    same(lambda lib: lib.vmap(lib.vmap(lambda a, b: a * b + a.sum()), in_dims=(0, None))(
        t(lib, Z), t(lib, X[0])))


def test_nested_vmap_with_closure():
    def program(lib):
        def outer(x):
            return lib.vmap(lambda y: (x * y).sum())(t(lib, Y.T))

        return lib.vmap(outer)(t(lib, X))

    same(program)


def test_vmap_over_matmul_family():
    def program(lib):
        x, w = t(lib, Z), t(lib, W45)
        return (lib.vmap(lambda a: a @ w)(x), lib.vmap(lambda a: w.T @ a.T)(x),
                lib.vmap(lib.matmul)(x, x.transpose(1, 2)),
                lib.vmap(lib.dot)(t(lib, X), t(lib, X)),
                lib.vmap(lambda m, v: lib.mv(m, v))(x, t(lib, X)))

    same(program)


def test_vmap_nn_functions():
    def program(lib):
        functional = lib.nn.functional
        images = t(lib, IMAGES)
        weight = t(lib, KERNEL)
        logits = t(lib, LOGITS)
        targets = lib.tensor([[0, 1, 3, 2, 1], [3, 3, 0, 1, 2], [1, 1, 1, 0, 0]])
        return (lib.vmap(lambda x: functional.conv2d(x, weight, padding=1))(images),
                lib.vmap(lambda x: functional.max_pool2d(x, 2))(images),
                lib.vmap(lambda x: functional.softmax(x, -1))(logits),
                lib.vmap(functional.cross_entropy)(logits, targets),
                lib.vmap(lambda x: functional.layer_norm(x, (4,)))(logits))

    same(program)


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 10])
def test_chunk_size(chunk_size):
    same(lambda lib: lib.vmap(lambda a, b: (a * b, a.sum()), in_dims=(0, None),
                              chunk_size=chunk_size)(t(lib, X), t(lib, X[0])))


def test_zeros_like_and_inplace_inside():
    same(lambda lib: lib.vmap(lambda a: lib.zeros_like(a).add_(a).mul_(2))(t(lib, X)))


def test_inplace_on_batched_view():
    def program(lib):
        def f(a):
            b = a.clone()
            b[1:].mul_(3)
            b[0] = b[2]
            return b

        return lib.vmap(f)(t(lib, X))

    same(program)


def test_randomness_same_and_different():
    def counts(lib, randomness):
        lib.manual_seed(0)
        out = lib.vmap(lambda a: a * 0 + lib.rand(()), randomness=randomness)(t(lib, X))
        return len(set(np.round(out[:, 0].numpy(), 12)))

    for lib in (leafgrad, torch):
        assert counts(lib, "same") == 1
        assert counts(lib, "different") == 3
    with pytest.raises(RuntimeError, match="randomness error mode"):
        leafgrad.vmap(lambda a: a * leafgrad.rand(4))(leafgrad.ones(3, 4))


def test_dropout_randomness():
    for lib in (leafgrad, torch):
        out = lib.vmap(lambda a: lib.nn.functional.dropout(a, 0.5), randomness="different")(
            lib.ones(64, 32))
        assert out.shape == (64, 32)
        rows = {tuple(row) for row in out.numpy().tolist()}
        assert len(rows) > 1


@pytest.mark.parametrize("case", [
    "sizes", "in_dim_range", "in_dims_structure", "in_dims_type", "in_dim_float", "no_inputs",
    "no_tensor", "non_tensor_mapped", "zero_dim", "returns_int", "out_dims_structure",
    "out_dims_type", "out_dim_none_batched", "out_dim_range", "randomness", "chunk_size",
    "item", "bool", "inplace_arith", "inplace_copy", "rand_error", "tolist",
])
def test_errors(case):
    def program(lib):
        x = t(lib, X)
        vmap = lib.vmap
        if case == "sizes":
            return vmap(lib.add)(x, t(lib, Y))
        if case == "in_dim_range":
            return vmap(lib.sin, in_dims=2)(x)
        if case == "in_dims_structure":
            return vmap(lib.sin, in_dims=(0, 0))(x)
        if case == "in_dims_type":
            return vmap(lib.sin, in_dims="a")(x)
        if case == "in_dim_float":
            return vmap(lambda a: a, in_dims=(1.5,))(x)
        if case == "no_inputs":
            return vmap(lib.sin)()
        if case == "no_tensor":
            return vmap(lambda a: a, in_dims=(None,))(x)
        if case == "non_tensor_mapped":
            return vmap(lib.sin)(1.0)
        if case == "zero_dim":
            return vmap(lib.sin)(t(lib, 1.0))
        if case == "returns_int":
            return vmap(lambda a: 1)(x)
        if case == "out_dims_structure":
            return vmap(lib.sin, out_dims=(0, 1))(x)
        if case == "out_dims_type":
            return vmap(lambda a: a, out_dims=1.5)(x)
        if case == "out_dim_none_batched":
            return vmap(lambda a: a, out_dims=None)(x)
        if case == "out_dim_range":
            return vmap(lib.sin, out_dims=3)(x)
        if case == "randomness":
            return vmap(lambda a: a, randomness="bad")
        if case == "chunk_size":
            return vmap(lib.sin, chunk_size=0)(x)
        if case == "item":
            return vmap(lambda a: a.sum().item())(x)
        if case == "bool":
            return vmap(lambda a: a * 2 if a.sum() > 0 else a)(x)
        if case == "inplace_arith":
            return vmap(lambda a: t(lib, X[0]).add_(a))(x)
        if case == "inplace_copy":
            return vmap(lambda a: t(lib, X[0]).copy_(a))(x)
        if case == "rand_error":
            return vmap(lambda a: a + lib.rand(4, dtype=lib.float64))(x)
        if case == "tolist":
            return vmap(lambda a: a.tolist())(x)
        raise AssertionError(case)

    same(program)


def test_fallback_warns_once_and_matches():
    # trace has no batching rule: the per-example loop runs, with torch-style wording
    leafgrad.ops._batching._WARNED.discard("Trace")
    x = leafgrad.tensor(Z[:, :2, :2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from leafgrad.ops import OPS

        rule = OPS["Trace"].vmap
        try:
            type.__setattr__(OPS["Trace"], "vmap", None)
            out = leafgrad.vmap(leafgrad.trace)(x)
            leafgrad.vmap(leafgrad.trace)(x)
        finally:
            type.__setattr__(OPS["Trace"], "vmap", rule)
    messages = [str(w.message) for w in caught if "performance drop" in str(w.message)]
    assert messages == ["There is a performance drop because we have not yet implemented the "
                        "batching rule for Trace. Please file us an issue on GitHub so that we "
                        "can prioritize its implementation."]
    np.testing.assert_allclose(out.numpy(), [np.trace(m) for m in Z[:, :2, :2]])


def test_gradients_flow_through_vmap():
    def program(lib):
        x = t(lib, X, requires_grad=True)
        w = t(lib, Y, requires_grad=True)
        out = lib.vmap(lambda a: (a @ w).tanh().sum())(x)
        return lib.autograd.grad((out * t(lib, [1.0, 2.0, 3.0])).sum(), (x, w))

    same(program)


def test_is_grads_batched():
    def program(lib):
        x = t(lib, X, requires_grad=True)
        w = t(lib, X[0], requires_grad=True)
        out = (x.sin() * w).sum(1)
        return lib.autograd.grad(out, (x, w), lib.eye(3, dtype=lib.float64),
                                 is_grads_batched=True)

    same(program)


def test_is_grads_batched_unused_and_errors():
    def program(lib):
        x = t(lib, X[0], requires_grad=True)
        y = t(lib, X[1], requires_grad=True)
        out = x.exp()
        grads = lib.autograd.grad(out, (x, y), lib.eye(4, dtype=lib.float64),
                                  is_grads_batched=True, allow_unused=True, retain_graph=True)
        materialized = lib.autograd.grad(out, (x, y), lib.eye(4, dtype=lib.float64),
                                         is_grads_batched=True, materialize_grads=True,
                                         retain_graph=True)
        return grads[0], grads[1] is None, materialized

    same(program)
    same(lambda lib: lib.autograd.grad(t(lib, X[0], requires_grad=True).exp(),
                                       t(lib, X[0]), lib.ones(3), is_grads_batched=True))


def test_mlp_per_example_gradients_match_a_loop():
    """vmap(grad(loss)) over a batch equals a loop of grad calls, and torch.func's result."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(8, 12))
    y = rng.integers(0, 3, 8)
    params = [rng.normal(size=(6, 12)) / 4, rng.normal(size=6) / 4, rng.normal(size=(3, 6)) / 4,
              rng.normal(size=3) / 4]

    def run(lib):
        functional = lib.nn.functional

        def loss(p, a, b):
            hidden = functional.linear(a, p[0], p[1]).tanh()
            return functional.cross_entropy(functional.linear(hidden, p[2], p[3]).unsqueeze(0),
                                            b.unsqueeze(0))

        ps = tuple(t(lib, p) for p in params)
        xs, ys = t(lib, x), lib.tensor(y)
        batched = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(ps, xs, ys)
        looped = [lib.func.grad(loss)(ps, xs[i], ys[i]) for i in range(len(y))]
        return batched, looped

    ours, ours_loop = run(leafgrad)
    theirs, _ = run(torch)
    for k in range(4):
        stacked = np.stack([row[k].numpy() for row in ours_loop])
        np.testing.assert_allclose(ours[k].numpy(), stacked, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-10, atol=1e-12)


def test_randomness_different_unsupported_draw_raises():
    """leafgrad draws per example only in rand/randn/dropout/rrelu; any other draw in
    randomness='different' raises instead of repeating one value for every example."""
    x = leafgrad.ones(3, 4)
    with pytest.raises(RuntimeError, match="randomness='different' draws one value"):
        leafgrad.vmap(lambda a: a + leafgrad.randint(0, 5, (4,)), randomness="different")(x)
    out = leafgrad.vmap(lambda a: a + leafgrad.randint(0, 5, (4,)), randomness="same")(x)
    assert (out == out[0]).all()


def test_batched_tensor_repr_inside_vmap():
    def program(lib):
        seen = []

        def record(x):
            seen.append(repr(x).replace("leafgrad", "torch"))
            seen.append(str(x).replace("leafgrad", "torch"))
            return x

        lib.vmap(lib.vmap(record))(lib.arange(4.0).view(2, 2))
        lib.vmap(record)(lib.arange(4.0).view(2, 2))
        return seen

    assert program(leafgrad) == program(torch)


def test_cnn_per_example_gradients():
    """vmap(grad) through conv2d with per-example weights (one grouped convolution)."""
    rng = np.random.default_rng(17)
    images = rng.normal(size=(4, 1, 6, 6))
    labels = np.array([0, 2, 1, 2])
    kernel, bias = rng.normal(size=(3, 1, 3, 3)) / 3, rng.normal(size=3) / 3
    head = rng.normal(size=(3, 3 * 6 * 6)) / 10

    def program(lib):
        functional = lib.nn.functional

        def loss(params, image, label):
            hidden = functional.conv2d(image.unsqueeze(0), params[0], params[1], padding=1)
            logits = functional.linear(hidden.relu().flatten(1), params[2])
            return functional.cross_entropy(logits, label.unsqueeze(0))

        params = (t(lib, kernel), t(lib, bias), t(lib, head))
        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(
            params, t(lib, images), lib.tensor(labels))

    same(program)


def test_layer_and_group_norm_per_example_gradients():
    rng = np.random.default_rng(19)
    x = rng.normal(size=(3, 4, 6))
    weight, bias = rng.normal(size=6), rng.normal(size=6)
    gweight, gbias = rng.normal(size=4), rng.normal(size=4)

    def program(lib):
        functional = lib.nn.functional

        def loss(params, a):
            out = functional.layer_norm(a, (6,), params[0], params[1])
            out = functional.group_norm(out.unsqueeze(0), 2, params[2], params[3])
            return (out.tanh() ** 2).sum()

        params = tuple(t(lib, p) for p in (weight, bias, gweight, gbias))
        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(params, t(lib, x))

    same(program)


def test_embedding_per_example_gradients():
    rng = np.random.default_rng(23)
    table = rng.normal(size=(6, 3))
    tokens = np.array([[0, 2, 2], [5, 1, 0]])

    def program(lib):
        def loss(weight, ids):
            return (lib.nn.functional.embedding(ids, weight).sin() ** 2).sum()

        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(t(lib, table),
                                                                      lib.tensor(tokens))

    same(program)
