"""Lazy modules and uninitialized parameters against torch: same seed -> the same weights after
the first forward as torch's (torch's initialisation order), reprs before and after, the class
each becomes, outputs, gradients, state_dict keys and the random stream left behind; dtype and
conversions before initialisation; optimizers built before the first forward; load_state_dict
materialising (and, failing, changing nothing); torch's errors on use."""

from __future__ import annotations

import copy
import re
import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

MODULES = [
    ("LazyLinear(3)", (2, 5)), ("LazyLinear(3, bias=False)", (4, 2, 5)),
    ("LazyConv1d(4, 3)", (2, 3, 8)), ("LazyConv1d(4, 3, 2, 1, 1, 1, False)", (3, 8)),
    ("LazyConv2d(4, 3, padding=1, groups=2)", (2, 4, 5, 5)),
    ("LazyConvTranspose1d(4, 3, stride=2)", (2, 3, 5)),
    ("LazyConvTranspose2d(6, 2, groups=3, bias=False)", (1, 3, 4, 4)),
    ("LazyConv3d(4, 2, padding=1, groups=2)", (2, 4, 3, 4, 3)),
    ("LazyConvTranspose3d(4, (2, 1, 2), stride=2)", (3, 2, 3, 2)),
    ("LazyBatchNorm1d()", (4, 3)), ("LazyBatchNorm2d(affine=False)", (2, 3, 4, 4)),
    ("LazyBatchNorm3d(momentum=None)", (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d(affine=True)", (2, 3, 6)),
    ("LazyInstanceNorm2d(track_running_stats=True)", (2, 3, 4, 4)),
    ("LazyInstanceNorm3d()", (2, 3, 2, 2, 2)),
]


@pytest.mark.parametrize("code,shape", MODULES, ids=[code for code, _ in MODULES])
def test_lazy_module_matches_torch(code, shape):
    def run(lib):
        lib.manual_seed(0)
        module = eval("lib.nn." + code, {"lib": lib})
        before = (repr(module), [repr(p) for p in module.parameters()],
                  list(module.state_dict()), type(module).__name__)
        x = lib.randn(*shape, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = module(x)
        (out * out).sum().backward()
        return (before, repr(module), type(module).__name__, list(module.state_dict()),
                [p.detach().numpy() for p in module.parameters()],
                [b.numpy() for b in module.buffers()], out.detach().numpy(), x.grad.numpy(),
                [p.grad.numpy() for p in module.parameters()], lib.rand(3).numpy())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:4] == theirs[:4]
    for a, b in zip(ours[4:], theirs[4:]):
        for u, v in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
            np.testing.assert_allclose(u, v, rtol=1e-4, atol=1e-5)


def test_uninitialized_parameter_rules():
    def run(lib):
        p = lib.nn.UninitializedParameter()
        b = lib.nn.UninitializedBuffer(dtype=lib.float64)
        found = [repr(p), repr(b), str(p.dtype).split(".")[-1], str(b.dtype).split(".")[-1],
                 p.requires_grad, b.requires_grad, tuple(p.size()),
                 isinstance(p, lib.nn.Parameter), type(copy.deepcopy(p)).__name__]
        for action in (lambda: p + 1, lambda: p.sum(), lambda: lib.exp(p), lambda: p.shape,
                       lambda: b * 2):
            try:
                action()
            except Exception as error:  # noqa: BLE001
                # torch names its intercepted callable (with an address) after "in"; the rest
                # of the message is the same
                found.append((type(error).__name__,
                              re.sub(r" in .*?\. This", " in <f>. This", str(error))))
        p.materialize((2, 3))
        b.materialize((4,), dtype=lib.float32)
        found += [type(p).__name__, tuple(p.shape), p.requires_grad, type(b).__name__,
                  tuple(b.shape), str(b.dtype).split(".")[-1]]
        return found

    assert run(leafgrad) == run(torch)


def test_dtype_and_conversions_before_initialisation():
    def run(lib):
        lib.manual_seed(1)
        a = lib.nn.LazyLinear(2, dtype=lib.float64)
        b = lib.nn.LazyConv1d(2, 2).double()
        c = lib.nn.LazyBatchNorm1d().to(lib.float64)
        outs = [a(lib.ones(1, 3, dtype=lib.float64)), b(lib.ones(1, 2, 4, dtype=lib.float64)),
                c(lib.ones(2, 3, dtype=lib.float64))]
        return ([str(o.dtype).split(".")[-1] for o in outs]
                + [o.detach().numpy() for o in outs])

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:3] == theirs[:3]
    for a, b in zip(ours[3:], theirs[3:]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_optimizer_built_before_the_first_forward():
    def run(lib):
        lib.manual_seed(2)
        model = lib.nn.Sequential(lib.nn.LazyLinear(4), lib.nn.ReLU(), lib.nn.LazyLinear(1))
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.randn(8, 3)
        for _ in range(3):
            optimizer.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            optimizer.step()
        return repr(model), [p.detach().numpy() for p in model.parameters()]

    ours, theirs = run(leafgrad), run(torch)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_load_state_dict_materialises():
    def run(lib):
        lib.manual_seed(3)
        source = lib.nn.Linear(5, 3)
        lazy = lib.nn.LazyLinear(3)
        result = lazy.load_state_dict(source.state_dict())
        found = [repr(result), type(lazy).__name__, type(lazy.weight).__name__,
                 tuple(lazy.weight.shape), lazy.weight.detach().numpy()]
        out = lazy(lib.ones(2, 5))  # the first forward only finishes the initialisation
        found += [type(lazy).__name__, repr(lazy), out.detach().numpy()]
        return found

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:4] == theirs[:4] and ours[5:7] == theirs[5:7]
    np.testing.assert_allclose(ours[4], theirs[4])
    np.testing.assert_allclose(ours[7], theirs[7], rtol=1e-6)


def test_failing_load_state_dict_leaves_lazy_module_untouched():
    lazy = leafgrad.nn.LazyLinear(3)
    state = leafgrad.nn.Linear(5, 3).state_dict()
    state["extra"] = leafgrad.zeros(1)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        lazy.load_state_dict(state)
    assert repr(lazy.weight) == "<UninitializedParameter>"  # torch has materialised it here
    lazy(leafgrad.ones(1, 4))
    assert tuple(lazy.weight.shape) == (3, 4)


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return None


BAD = ["nn.LazyConv2d(4, 3)(lib.ones(2, 3))", "nn.LazyConv1d(4, 3, groups=2)(lib.ones(1, 3, 5))",
       "nn.LazyBatchNorm2d()(lib.ones(2, 3))", "nn.LazyLinear(3).weight.shape",
       "nn.Linear(2, 3).load_state_dict(nn.LazyLinear(3).state_dict())",
       "nn.LazyLinear(3).initialize_parameters()"]


@pytest.mark.parametrize("code", BAD)
def test_errors_match_torch(code):
    def run(lib):
        return _error(lambda: eval(code, {"lib": lib, "nn": lib.nn}))

    assert run(torch) is not None
    assert run(leafgrad) == run(torch)
