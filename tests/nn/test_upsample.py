"""F.interpolate, the deprecated F.upsample* forms and nn.Upsample / UpsamplingNearest2d /
UpsamplingBilinear2d against torch: values, input gradients and node names for every mode and
number of spatial dims, up and down, by size and by scale factor (recomputed or not), with and
without align_corners, float32 and float64; non-contiguous, channels-last and empty-batch input;
uint8 nearest; reprs; warnings; torch's errors, in torch's order of checks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

MODES = [("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 1),
         ("nearest-exact", 2), ("nearest-exact", 3), ("linear", 1), ("bilinear", 2),
         ("bicubic", 2), ("trilinear", 3), ("area", 1), ("area", 2)]
RESIZES = [dict(size=1), dict(size=2), dict(size=5), dict(size=8), dict(scale_factor=2),
           dict(scale_factor=0.5), dict(scale_factor=1.7), dict(scale_factor=0.34),
           dict(scale_factor=3), dict(scale_factor=2.3, recompute_scale_factor=True)]


def _run(lib, array, dtype, grad_seed=1, **options):
    x = lib.tensor(array, dtype=getattr(lib, dtype), requires_grad=True)
    y = lib.nn.functional.interpolate(x, **options)
    grad = np.random.default_rng(grad_seed).normal(size=tuple(y.shape))
    y.backward(lib.tensor(grad, dtype=getattr(lib, dtype)))
    return y.detach().numpy(), x.grad.numpy(), y.grad_fn.name()


@pytest.mark.parametrize("mode,dims", MODES, ids=[f"{m}-{d}d" for m, d in MODES])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_interpolate_matches_torch(mode, dims, dtype):
    rng = np.random.default_rng(dims)
    corners = [None] if mode in ("nearest", "nearest-exact", "area") else [False, True]
    tol = 1e-5 if dtype == "float32" else 1e-12
    for in_size in ([1, 3, 4] if dims == 3 else [1, 3, 4, 7]):
        array = rng.normal(size=(2, 3) + (in_size,) * dims)
        for resize in RESIZES:
            if min(int(in_size * resize.get("scale_factor", 1)), resize.get("size", 1)) < 1:
                continue  # no output (an error case, below)
            for align_corners in corners:
                options = dict(mode=mode, align_corners=align_corners, **resize)
                ours = _run(leafgrad, array, dtype, **options)
                theirs = _run(torch, array, dtype, **options)
                assert ours[0].shape == theirs[0].shape, options
                np.testing.assert_allclose(ours[0], theirs[0], rtol=tol, atol=tol,
                                           err_msg=str(options))
                np.testing.assert_allclose(ours[1], theirs[1], rtol=tol, atol=tol,
                                           err_msg=str(options))
                assert ours[2] == theirs[2]


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_layouts_and_empty_batch(mode):
    def run(lib):
        base = lib.arange(2 * 3 * 4 * 5, dtype=lib.float64).reshape(2, 4, 5, 3)
        channels_last = base.permute(0, 3, 1, 2)  # (2, 3, 4, 5), channels innermost
        transposed = base.transpose(1, 2)  # neither layout
        results = []
        for x in (channels_last, transposed):
            y = lib.nn.functional.interpolate(x, scale_factor=1.5, mode=mode)
            results += [y.numpy(), y.stride(), y.is_contiguous()]
        empty = lib.nn.functional.interpolate(lib.zeros(0, 2, 3, 3), size=(4, 5), mode=mode)
        return results + [tuple(empty.shape)]

    ours, theirs = run(leafgrad), run(torch)
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        else:
            assert a == b


def test_uint8_nearest_and_sequences():
    def run(lib):
        x = lib.tensor(np.arange(24).reshape(1, 2, 3, 4), dtype=lib.uint8)
        a = lib.nn.functional.interpolate(x, size=(5, 7))
        b = lib.nn.functional.interpolate(x, scale_factor=(2, 0.5), mode="nearest-exact")
        c = lib.nn.functional.interpolate(x.double(), size=[2, 6], mode="bilinear",
                                          align_corners=True)
        return [a.numpy(), str(a.dtype).split(".")[-1], b.numpy(), c.numpy()]

    ours, theirs = run(leafgrad), run(torch)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1] == theirs[1]
    np.testing.assert_array_equal(ours[2], theirs[2])
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12)


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return None


BAD = [
    "F.interpolate(lib.zeros(1, 2, 3), size=4, mode='nearest', align_corners=True)",
    "F.interpolate(lib.zeros(1, 2, 3), size=4, scale_factor=2)",
    "F.interpolate(lib.zeros(1, 2, 3))",
    "F.interpolate(lib.zeros(1, 2, 3), size=(4, 4))",
    "F.interpolate(lib.zeros(1, 2, 3, 3), scale_factor=(2, 2, 2))",
    "F.interpolate(lib.zeros(1, 2, 3), size=(2.5,))",
    "F.interpolate(lib.zeros(1, 2, 3), size=4, recompute_scale_factor=True)",
    "F.interpolate(lib.zeros(1, 2, 3), size=0)",
    "F.interpolate(lib.zeros(1, 2, 3, 3), size=(0, 2))",
    "F.interpolate(lib.zeros(1, 2, 3, 3, 3), scale_factor=0.2, mode='trilinear')",
    "F.interpolate(lib.zeros(1, 2, 3), scale_factor=-1)",
    "F.interpolate(lib.zeros(1, 0, 3), scale_factor=2)",
    "F.interpolate(lib.zeros(1, 2, 0, 2), scale_factor=2, mode='bicubic')",
    "F.interpolate(lib.zeros(2, 3), scale_factor=2)",
    "F.interpolate(lib.zeros(1, 2, 3), scale_factor=2, mode='bilinear')",
    "F.interpolate(lib.zeros(1, 2, 3, 3), scale_factor=2, mode='linear')",
    "F.interpolate(lib.zeros(1, 2, 3, 3, 3), scale_factor=2, mode='bicubic')",
    "F.interpolate(lib.zeros(1, 2, 3), scale_factor=2, mode='cubic')",
    "F.interpolate(lib.zeros(1, 2, 3), scale_factor=2, mode='linear', antialias=True)",
    "F.interpolate(lib.zeros(1, 2, 3, 3), scale_factor=2, mode='lanczos')",
    "F.interpolate(lib.zeros(1, 2, 3, 3), scale_factor=2, mode='lanczos', antialias=True, "
    "align_corners=True)",
    "F.interpolate(lib.zeros(1, 2, 3, dtype=lib.int32), scale_factor=2)",
    "F.interpolate(lib.zeros(1, 2, 3, dtype=lib.uint8), scale_factor=2, mode='linear')",
    "F.interpolate(lib.zeros(1, 2, 3, 3, 3, dtype=lib.int64), scale_factor=2, "
    "mode='trilinear')",
    "F.interpolate(lib.zeros(1, 2, 3, 3, dtype=lib.bool), scale_factor=2, mode='bicubic')",
]


@pytest.mark.parametrize("code", BAD)
def test_errors_match_torch(code):
    ours = _error(lambda: eval(code, {"lib": leafgrad, "F": leafgrad.nn.functional}))
    theirs = _error(lambda: eval(code, {"lib": torch, "F": torch.nn.functional}))
    assert theirs is not None
    assert ours == theirs


def test_deprecated_forms_warn_as_torch():
    def run(lib):
        x = lib.arange(6, dtype=lib.float64).reshape(1, 1, 2, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = [lib.nn.functional.upsample(x, scale_factor=2, mode="bilinear").numpy(),
                   lib.nn.functional.upsample_nearest(x, size=(3, 4)).numpy(),
                   lib.nn.functional.upsample_bilinear(x, scale_factor=2).numpy()]
        return out, [(w.category, str(w.message)) for w in caught]

    ours, theirs = run(leafgrad), run(torch)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


MODULES = ["Upsample(scale_factor=2)", "Upsample(size=(3, 5), mode='bilinear')",
           "Upsample(scale_factor=(1.5, 2), mode='bicubic', align_corners=True)",
           "Upsample(size=7, mode='linear')", "Upsample(scale_factor=2, mode='nearest-exact')",
           "Upsample(scale_factor=1.5, mode='area', recompute_scale_factor=True)",
           "UpsamplingNearest2d(scale_factor=2)", "UpsamplingNearest2d(size=(3, 5))",
           "UpsamplingBilinear2d(scale_factor=2)", "UpsamplingBilinear2d(size=5)"]


@pytest.mark.parametrize("code", MODULES)
def test_modules_match_torch(code):
    dims = 1 if "mode='linear'" in code else 2

    def run(lib):
        module = eval("lib.nn." + code, {"lib": lib})
        x = lib.tensor(np.random.default_rng(0).normal(size=(2, 3) + (4,) * dims),
                       requires_grad=True)
        out = module(x)
        (out * out).sum().backward()
        return (repr(module), list(module.state_dict()), module.scale_factor, module.size,
                module.align_corners, out.detach().numpy(), x.grad.numpy(),
                out.grad_fn.name())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:5] == theirs[:5]
    np.testing.assert_allclose(ours[5], theirs[5], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[6], theirs[6], rtol=1e-5, atol=1e-5)
    assert ours[7] == theirs[7]
