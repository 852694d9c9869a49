"""The deprecated Module.register_backward_hook against torch: the hook sees the gradients of
the node that made the output (torch's documented caveat), may replace them, cannot be mixed
with full backward hooks, and warns as torch does."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _grads(values):
    return [None if v is None else np.round(v.numpy(), 5).tolist() for v in values]


@pytest.mark.parametrize("layer,shape,replace", [
    ("Linear(3, 2)", (4, 3), False), ("Linear(3, 2)", (4, 3), True),
    ("Linear(3, 2, bias=False)", (4, 3), False), ("Tanh()", (2, 3), True),
    ("Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())", (4, 3), False),
])
def test_backward_hook_sees_the_output_nodes_gradients(layer, shape, replace):
    def run(lib):
        lib.manual_seed(0)
        module = eval("lib.nn." + layer, {"lib": lib})  # noqa: S307 - literals above
        log = []

        def hook(m, grad_input, grad_output):
            log.append((type(m).__name__, _grads(grad_input), _grads(grad_output)))
            if replace:
                return tuple(None if g is None else g * 2 for g in grad_input)
            return None

        module.register_backward_hook(hook)
        x = lib.tensor(np.random.default_rng(0).normal(size=shape), dtype=lib.float32,
                       requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = module(x)
        out.sum().backward()
        return log, _grads([x.grad]), [str(w.message) for w in caught]

    assert run(leafgrad) == run(torch)


def test_backward_hooks_cannot_be_mixed_with_full_ones():
    def run(lib):
        results = []
        for first, second in (("register_backward_hook", "register_full_backward_hook"),
                              ("register_full_backward_hook", "register_backward_hook")):
            module = lib.nn.Linear(2, 2)
            getattr(module, first)(lambda *a: None)
            try:
                getattr(module, second)(lambda *a: None)
            except RuntimeError as error:
                results.append(str(error))
        return results

    assert run(leafgrad) == run(torch) and len(run(torch)) == 2
