"""``F.linear_cross_entropy`` / ``nn.LinearCrossEntropyLoss`` (torch 2.13) against torch:
1-d and 2-d inputs, 2-d and K-dimensional weights, with and without bias, class-index and
probability targets, class weights, every reduction, ignore_index, label smoothing, every
subset of (input, weight, bias) requiring grad, float32/float64, the argument errors, and the
chunked ``options`` (warnings exactly; values to rounding: torch sums its chunks in another
order)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _case(lib, dtype, batched, out_features, bias, probabilities, grads, seed=0):
    rng = np.random.default_rng(seed)
    classes, features = 4, 3
    shape = (5, features) if batched else (features,)
    x = lib.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad="x" in grads)
    w = lib.tensor(rng.standard_normal((classes, *out_features, features)), dtype=dtype,
                   requires_grad="w" in grads)
    b = (lib.tensor(rng.standard_normal((classes, *out_features)), dtype=dtype,
                    requires_grad="b" in grads) if bias else None)
    target_shape = ((5,) if batched else ()) + out_features
    if probabilities:
        logits_shape = ((5,) if batched else ()) + (classes,) + out_features
        raw = rng.random(logits_shape)
        target = lib.tensor(raw / raw.sum(axis=len(target_shape) - len(out_features)
                                         if batched else 0, keepdims=True), dtype=dtype)
    else:
        target = lib.tensor(rng.integers(0, classes, target_shape))
    return x, w, b, target


def _outcome(lib, dtype_name, batched, out_features, bias, probabilities, grads, kwargs):
    dtype = getattr(lib, dtype_name)
    x, w, b, target = _case(lib, dtype, batched, out_features, bias, probabilities, grads)
    kwargs = dict(kwargs)
    if "weight" in kwargs:
        kwargs["weight"] = lib.tensor(kwargs["weight"], dtype=dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            loss = lib.nn.functional.linear_cross_entropy(x, w, target, linear_bias=b, **kwargs)
        except Exception as error:  # noqa: BLE001 - the type and first line are compared
            return ("error", type(error).__name__, str(error).splitlines()[0]), None
    warned = [str(w.message).replace("leafgrad.", "torch.") for w in caught]
    result = [warned, tuple(loss.shape), loss.requires_grad,
              loss.grad_fn.name() if loss.grad_fn is not None else None]
    values = [loss.detach().numpy()]
    if loss.requires_grad:
        loss.sum().backward()
        values += [t.grad.numpy() if t is not None and t.requires_grad else None
                   for t in (x, w, b)]
    return result, values


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batched,out_features", [(True, ()), (False, ()), (True, (2,))])
def test_matches_torch(dtype, batched, out_features):
    options = [{}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 1},
               {"label_smoothing": 0.2}, {"weight": [0.5, 1.0, 2.0, 0.25]}]
    for bias, probabilities in itertools.product((False, True), (False, True)):
        for grads in ("", "x", "w", "b", "xw", "xb", "wb", "xwb"):
            for kwargs in options:
                ours = _outcome(leafgrad, dtype, batched, out_features, bias, probabilities,
                                grads, kwargs)
                theirs = _outcome(torch, dtype, batched, out_features, bias, probabilities,
                                  grads, kwargs)
                assert ours[0] == theirs[0], (bias, probabilities, grads, kwargs)
                if theirs[1] is not None:
                    for mine, reference in zip(ours[1], theirs[1]):
                        if reference is None:
                            assert mine is None
                        else:
                            np.testing.assert_allclose(mine, reference, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("options", [None, "chunked"])
def test_options_warn_as_torch(options):
    for kwargs in ({}, {"label_smoothing": 0.1}, {"reduction": "none"}):
        for out_features in ((), (2,)):
            seen = []
            for lib in (torch, leafgrad):
                call = dict(kwargs)
                if options:
                    call["options"] = lib.nn.LinearCrossEntropyOptions()
                seen.append(_outcome(lib, "float32", True, out_features, True, False, "xwb",
                                     call))
            # (torch's chunked path records its custom op's node,
            # GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_...; leafgrad
            # computes the reference path: the node's name is the one thing not compared)
            chunked = options and not seen[0][0][0]
            assert seen[0][0][:3 if chunked else 4] == seen[1][0][:3 if chunked else 4]
            for mine, reference in zip(seen[1][1], seen[0][1]):
                np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6)


def _error(lib, build):
    try:
        build(lib)
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]
    return None


def test_errors():
    F = "lib.nn.functional.linear_cross_entropy"
    cases = [
        F + "(lib.ones(2, 3, 4), lib.ones(5, 4), lib.zeros(2, dtype=lib.long))",
        F + "(lib.ones(()), lib.ones(5, 4), lib.zeros((), dtype=lib.long))",
        F + "(lib.ones(2, 4), lib.ones(4), lib.zeros(2, dtype=lib.long))",
        F + "(lib.ones(2, 3), lib.ones(5, 4), lib.zeros(2, dtype=lib.long))",
        F + "(lib.ones(2, 4), lib.ones(5, 4), lib.zeros(2, dtype=lib.long),"
            " linear_bias=lib.ones(4))",
        F + "(lib.ones(4), lib.ones(5, 2, 4), lib.zeros(2, dtype=lib.long))",
        F + "(lib.ones(2, 4), lib.ones(5, 4), lib.ones(2, 5), ignore_index=1)",
        F + "(lib.ones(2, 4), lib.ones(5, 4), lib.zeros(2, dtype=lib.long), reduction='x')",
        "lib.nn.LinearCrossEntropyLoss(4, 3, weight=lib.ones(4))",
        "lib.nn.LinearCrossEntropyLoss(4, 3, label_smoothing=1.5)",
    ]
    for code in cases:
        ours = _error(leafgrad, lambda lib, code=code: eval(code, {"lib": lib}))  # noqa: S307
        theirs = _error(torch, lambda lib, code=code: eval(code, {"lib": lib}))  # noqa: S307
        assert ours == theirs and theirs is not None, code


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("out_features", [(), (2, 3)])
def test_module(bias, out_features):
    seen = []
    for lib in (torch, leafgrad):
        lib.manual_seed(3)
        module = lib.nn.LinearCrossEntropyLoss(4, 5, out_features=out_features, bias=bias,
                                               label_smoothing=0.1, ignore_index=2)
        x = lib.randn(6, 4, requires_grad=True)
        target = lib.randint(0, 5, (6, *out_features))
        loss = module(x, target)
        loss.backward()
        seen.append((repr(module).replace("leafgrad", "torch"),
                     [(name, tuple(p.shape)) for name, p in module.named_parameters()],
                     sorted(module.state_dict()), loss.grad_fn.name(), loss.item(),
                     x.grad.numpy().round(6).tolist(),
                     module.linear.weight.grad.numpy().round(6).tolist()))
    assert seen[0][:4] == seen[1][:4]
    np.testing.assert_allclose(seen[1][4], seen[0][4], rtol=1e-6)
    np.testing.assert_allclose(seen[1][5], seen[0][5], atol=2e-6)
    np.testing.assert_allclose(seen[1][6], seen[0][6], atol=2e-6)
