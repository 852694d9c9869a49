"""The activation modules added with ops/activation_extra.py, through test_layers' harness:
same seed -> same state; outputs and gradients as torch's, train and eval; reprs; errors."""

from __future__ import annotations

import pytest

import leafgrad

from .._torch import require_torch
from .test_layers import _error, test_layer_matches_torch as _compare

torch = require_torch()

LAYERS = [
    ("Hardshrink()", (3, 4)), ("Softshrink(0.3)", (3, 4)), ("Tanhshrink()", (3, 4)),
    ("Softsign()", (3, 4)), ("Hardsigmoid()", (3, 4)), ("Hardswish()", (3, 4)),
    ("LogSigmoid()", (3, 4)), ("Threshold(0.1, 20.0)", (3, 4)), ("GLU()", (3, 4)),
    ("GLU(dim=0)", (4, 3)), ("PReLU()", (3, 4)), ("PReLU(4, init=0.1)", (3, 4, 2)),
    ("Softmax2d()", (2, 3, 2, 2)), ("RReLU()", (3, 4)), ("RReLU(0.2, 0.4)", (2, 5)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("spec,shape", LAYERS, ids=[s for s, _ in LAYERS])
def test_activation_module_matches_torch(spec, shape, dtype, training):
    _compare(spec, shape, dtype, training)


BAD = ["nn.GLU()(lib.zeros(2, 3))", "nn.PReLU(3)(lib.zeros(2, 4))",
       "nn.Softmax2d()(lib.zeros(2, 3))", "nn.functional.softshrink(lib.zeros(2), -1.0)"]


@pytest.mark.parametrize("code", BAD)
def test_bad_input_matches_torch(code):
    def run(lib):
        return _error(lambda: eval(code, {"lib": lib, "nn": lib.nn}))  # noqa: S307

    assert run(leafgrad) == run(torch)
