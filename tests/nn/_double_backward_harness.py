"""The create_graph harness of test_double_backward_nodes2.py and ..._nodes3.py: a case is
``name: (call(lib, *tensors), ((shape, domain), ...), differentiable input indices)``; for a
subset of those inputs it records the first derivatives (values, requires_grad, grad_fn and
next_functions two levels down), the second derivatives of a random projection of them, and
the third of the seconds, for comparison with torch."""

from __future__ import annotations

import numpy as np

UNIT = "unit"  # inputs drawn in (0.1, 0.9); any other domain: standard normal


def names(fn, depth=2):
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), tuple(names(child, depth - 1) for child, _ in fn.next_functions))


def loss(out):
    return (out * out).sum() + out.sum()


def assert_close(got, want, rtol, atol):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


class Harness:
    def __init__(self, cases: dict):
        self.cases = cases

    def arrays(self, name):
        rng = np.random.default_rng(sum(map(ord, name)))
        return [rng.uniform(0.1, 0.9, shape) if domain == UNIT else rng.standard_normal(shape)
                for shape, domain in self.cases[name][1]]

    def cast(self, lib, dtype, name):
        return [lib.tensor(a, dtype=dtype) for a in self.arrays(name)]

    def first(self, lib, name, tensors, subset):
        out = self.cases[name][0](lib, *tensors)
        return lib.autograd.grad(loss(out), [tensors[i] for i in subset], create_graph=True)

    def run(self, lib, name, subset, dtype):
        tensors = [t.requires_grad_(i in subset)
                   for i, t in enumerate(self.cast(lib, dtype, name))]
        if name == "group_norm_module":  # the module's own float32 parameters
            tensors = [t.double() if dtype == lib.float64 else t for t in tensors]
        firsts = self.first(lib, name, tensors, subset)
        record = {"first": [g.detach().numpy() for g in firsts],
                  "requires_grad": [g.requires_grad for g in firsts],
                  "nodes": [names(g.grad_fn) for g in firsts]}
        rng = np.random.default_rng(7)
        total = None
        for g in firsts:
            if g.requires_grad:
                term = (g * lib.tensor(rng.standard_normal(tuple(g.shape)), dtype=dtype)).sum()
                total = term if total is None else total + term
        if total is None:
            return record
        try:
            seconds = lib.autograd.grad(total, [tensors[i] for i in subset], create_graph=True,
                                        allow_unused=True)
        except RuntimeError as error:  # torch has no derivative for some backward kernels
            record["error"] = str(error).splitlines()[0]
            return record
        record["second"] = [None if s is None else s.detach().numpy() for s in seconds]
        third_from = [s for s in seconds if s is not None and s.requires_grad]
        if third_from:
            third = lib.autograd.grad(sum((s * s).sum() for s in third_from),
                                      [tensors[i] for i in subset], allow_unused=True)
            record["third"] = [None if t is None else t.numpy() for t in third]
        return record
