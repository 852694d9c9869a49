"""nn.utils batch-norm fusion and skip_init against torch: fused weights and outputs, the
returned types and flags, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _trained_bn(lib, bn):
    """Move the running statistics and affine parameters away from their defaults."""
    bn.train()
    shape = (6, bn.num_features) + (3,) * (2 if isinstance(bn, lib.nn.BatchNorm2d) else 0)
    bn(lib.tensor(np.random.default_rng(1).normal(2.0, 3.0, size=shape), dtype=lib.float32))
    if bn.affine:
        with lib.no_grad():
            bn.weight.mul_(1.5)
            bn.bias.add_(0.25)
    return bn.eval()


CASES = [
    ("Conv2d(2, 3, 3)", "BatchNorm2d(3)", False, (2, 2, 5, 5)),
    ("Conv2d(2, 3, 3, bias=False)", "BatchNorm2d(3, affine=False)", False, (2, 2, 5, 5)),
    ("ConvTranspose2d(2, 3, 3)", "BatchNorm2d(3)", True, (2, 2, 4, 4)),
    ("Conv1d(2, 3, 2, dtype=lib.float64)", "BatchNorm1d(3)", False, (2, 2, 5)),
    ("Linear(4, 3)", "BatchNorm1d(3)", None, (5, 4)),
    ("Linear(4, 3, bias=False)", "BatchNorm1d(1)", None, (5, 1, 4)),
]


@pytest.mark.parametrize("layer,norm,transpose,shape", CASES, ids=[c[0] for c in CASES])
def test_fusion_matches_torch(layer, norm, transpose, shape):
    def run(lib):
        lib.manual_seed(0)
        first = eval("lib.nn." + layer, {"lib": lib}).eval()  # noqa: S307 - literals above
        bn = _trained_bn(lib, eval("lib.nn." + norm, {"lib": lib}))  # noqa: S307
        if transpose is None:
            fused = lib.nn.utils.fuse_linear_bn_eval(first, bn)
        else:
            fused = lib.nn.utils.fuse_conv_bn_eval(first, bn, transpose=transpose)
        x = lib.tensor(np.random.default_rng(2).normal(size=shape), dtype=first.weight.dtype)
        return (fused is not first, type(fused.weight).__name__, type(fused.bias).__name__,
                fused.weight.requires_grad, fused.bias.requires_grad,
                str(fused.weight.dtype).split(".")[-1], str(fused.bias.dtype).split(".")[-1],
                fused.weight.detach().numpy(), fused.bias.detach().numpy(),
                fused(x).detach().numpy(), first.weight.detach().numpy())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:7] == theirs[:7]
    for a, b in zip(ours[7:], theirs[7:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("code", [
    "U.fuse_conv_bn_eval(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3).eval())",
    "U.fuse_conv_bn_eval(nn.Conv2d(2, 3, 3).eval(), nn.BatchNorm2d(3, "
    "track_running_stats=False).eval())",
    "U.fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(4).eval())",
    "U.fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(3))",
    "U.skip_init(3)", "U.skip_init(nn.ReLU)",
])
def test_fusion_errors_match_torch(code):
    def run(lib):
        try:
            eval(code, {"nn": lib.nn, "U": lib.nn.utils})  # noqa: S307 - literals above
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0].replace("leafgrad", "torch")
        return None

    expected = run(torch)
    assert expected is not None
    assert run(leafgrad) == expected


@pytest.mark.parametrize("layer,args", [("Linear", (4, 3)), ("Conv2d", (2, 3, 3)),
                                        ("BatchNorm1d", (3,)), ("Embedding", (5, 2))])
def test_skip_init_consumes_no_random_numbers(layer, args):
    def run(lib):
        lib.manual_seed(0)
        module = lib.nn.utils.skip_init(getattr(lib.nn, layer), *args, dtype=lib.float64)
        shapes = [(n, tuple(t.shape), str(t.dtype).split(".")[-1], type(t).__name__,
                   t.requires_grad) for n, t in module.state_dict(keep_vars=True).items()]
        return type(module).__name__, repr(module), shapes, lib.rand(3).numpy()

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:3] == theirs[:3]
    np.testing.assert_array_equal(ours[3], theirs[3])
