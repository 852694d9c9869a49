"""3-d layers against torch: Conv3d, ConvTranspose3d, MaxPool3d (+ indices), AvgPool3d,
AdaptiveAvgPool3d, AdaptiveMaxPool3d, MaxUnpool3d, LPPool3d and their functional forms. Same
seed -> same initial weights; outputs and gradients (every input requiring grad) in float64
and float32, unbatched and non-contiguous input, reprs, state_dict keys and errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

MODULES = [
    ("Conv3d", (3, 4, 2), {}, (2, 3, 5, 4, 6)),
    ("Conv3d", (4, 6, (2, 3, 1)), dict(stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1),
                                       groups=2, bias=False), (2, 4, 5, 6, 5)),
    ("Conv3d", (3, 2, 3), dict(padding="same"), (3, 4, 4, 5)),
    ("Conv3d", (3, 2, 2), dict(padding=1, padding_mode="reflect"), (1, 3, 3, 4, 3)),
    ("Conv3d", (3, 2, 2), dict(padding=(1, 0, 1), padding_mode="circular"), (1, 3, 3, 4, 3)),
    ("ConvTranspose3d", (3, 4, 2), {}, (2, 3, 3, 4, 2)),
    ("ConvTranspose3d", (4, 6, (2, 3, 2)), dict(stride=(2, 1, 2), padding=(1, 0, 1),
                                                output_padding=(1, 0, 1), groups=2,
                                                dilation=(1, 2, 1)), (2, 4, 3, 4, 3)),
    ("ConvTranspose3d", (3, 2, 2), dict(bias=False), (3, 2, 3, 2)),
    ("MaxPool3d", (2,), {}, (2, 3, 4, 5, 6)),
    ("MaxPool3d", ((2, 3, 2),), dict(stride=(1, 2, 1), padding=(1, 1, 0), dilation=(1, 1, 2),
                                     ceil_mode=True), (2, 2, 5, 6, 7)),
    ("MaxPool3d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 5, 5, 4)),
    ("AvgPool3d", (2,), {}, (2, 3, 4, 5, 6)),
    ("AvgPool3d", ((3, 2, 2),), dict(stride=(2, 1, 2), padding=(1, 1, 0), ceil_mode=True,
                                     count_include_pad=False), (2, 2, 5, 6, 7)),
    ("AvgPool3d", (2,), dict(stride=1, padding=1, divisor_override=3), (2, 4, 3, 5)),
    ("AdaptiveAvgPool3d", ((2, 3, 2),), {}, (2, 3, 5, 7, 4)),
    ("AdaptiveAvgPool3d", ((None, 2, 3),), {}, (2, 4, 5, 7)),
    ("AdaptiveAvgPool3d", (1,), {}, (2, 3, 5, 7, 4)),
    ("AdaptiveMaxPool3d", ((2, 3, 2),), {}, (2, 3, 5, 7, 4)),
    ("AdaptiveMaxPool3d", ((3, 1, None),), dict(return_indices=True), (2, 5, 7, 4)),
    ("LPPool3d", (2, 2), {}, (2, 3, 4, 5, 6)),
    ("LPPool3d", (1.5, (2, 3, 2)), dict(stride=(1, 2, 1), ceil_mode=True), (2, 5, 6, 4)),
    ("LPPool3d", (float("inf"), 2), {}, (2, 3, 4, 5, 4)),
]


def _module_run(lib, name, args, kwargs, shape, dtype, contiguous=True):
    lib.manual_seed(0)
    module = getattr(lib.nn, name)(*args, **kwargs).to(getattr(lib, dtype))
    rng = np.random.default_rng(1)
    data = rng.normal(size=shape)
    if name.startswith("LPPool") and args[0] not in (1, float("inf")):
        data = np.abs(data) + 0.1  # x^p with a fractional p needs positive input
    if not contiguous:
        data = np.ascontiguousarray(np.swapaxes(data, -1, -2))
    x = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)
    if not contiguous:
        x = x.transpose(-1, -2)
    out = module(x)
    outs = out if isinstance(out, tuple) else (out,)
    weights = np.arange(outs[0].numel()).reshape(tuple(outs[0].shape)) % 7 - 3.0
    (outs[0] * lib.tensor(weights, dtype=outs[0].dtype)).sum().backward()
    leaf = x if contiguous else x  # grads land on the leaf (non-leaf view: use retain)
    return dict(outs=[o.detach().numpy() for o in outs],
                dtypes=[str(o.dtype).split(".")[1] for o in outs],
                node=outs[0].grad_fn.name(),
                grads=[p.grad.numpy() for p in module.parameters()],
                weights=[p.detach().numpy() for p in module.parameters()],
                keys=list(module.state_dict()), repr=repr(module))


def _leaf_grad_run(lib, name, args, kwargs, shape):
    lib.manual_seed(0)
    module = getattr(lib.nn, name)(*args, **kwargs).double()
    rng = np.random.default_rng(1)
    data = np.abs(rng.normal(size=shape)) + 0.1
    x = lib.tensor(data, requires_grad=True)
    out = module(x)
    out = out[0] if isinstance(out, tuple) else out
    (out * out).sum().backward()
    return x.grad.numpy()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,args,kwargs,shape", MODULES,
                         ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_module_matches_torch(name, args, kwargs, shape, dtype):
    ours = _module_run(leafgrad, name, args, kwargs, shape, dtype)
    theirs = _module_run(torch, name, args, kwargs, shape, dtype)
    assert ours["repr"] == theirs["repr"]
    assert ours["keys"] == theirs["keys"]
    assert ours["dtypes"] == theirs["dtypes"]
    assert ours["node"] == theirs["node"]
    for a, b in zip(ours["weights"], theirs["weights"]):
        np.testing.assert_array_equal(a, b)
    tol = dict(rtol=1e-10, atol=1e-11) if dtype == "float64" else dict(rtol=2e-4, atol=2e-5)
    for a, b in zip(ours["outs"], theirs["outs"]):
        np.testing.assert_allclose(a, b, **tol)
    for a, b in zip(ours["grads"], theirs["grads"]):
        np.testing.assert_allclose(a, b, **tol)
    np.testing.assert_allclose(_leaf_grad_run(leafgrad, name, args, kwargs, shape),
                               _leaf_grad_run(torch, name, args, kwargs, shape), rtol=1e-10,
                               atol=1e-11)


@pytest.mark.parametrize("name,args,kwargs,shape", MODULES[:3] + MODULES[5:6] + MODULES[8:9]
                         + MODULES[11:12] + MODULES[14:15] + MODULES[17:18])
def test_module_non_contiguous_input(name, args, kwargs, shape):
    ours = _module_run(leafgrad, name, args, kwargs, shape, "float64", contiguous=False)
    theirs = _module_run(torch, name, args, kwargs, shape, "float64", contiguous=False)
    for a, b in zip(ours["outs"] + ours["grads"], theirs["outs"] + theirs["grads"]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-11)


FUNCTIONAL = {
    "max_pool3d_with_indices": lambda lib, x: lib.nn.functional.max_pool3d_with_indices(
        x, (2, 2, 3), stride=1),
    "max_pool3d_return_indices": lambda lib, x: lib.nn.functional.max_pool3d(
        x, 2, return_indices=True, padding=1),
    "adaptive_max_pool3d_with_indices": lambda lib, x: lib.nn.functional
    .adaptive_max_pool3d_with_indices(x, (2, 3, 2)),
    "max_unpool3d": lambda lib, x: lib.nn.functional.max_unpool3d(
        *lib.nn.functional.max_pool3d(x[:, :, :4, :4], 2, return_indices=True), 2),
    "max_unpool3d_size": lambda lib, x: lib.nn.MaxUnpool3d(2)(
        *lib.nn.functional.max_pool3d(x, 2, return_indices=True), output_size=(5, 5, 6)),
    "max_unpool3d_unbatched": lambda lib, x: lib.nn.functional.max_unpool3d(
        *lib.nn.functional.max_pool3d(x[0], 2, stride=1, return_indices=True), 2, stride=1),
    "torch.conv3d": lambda lib, x: lib.conv3d(x, x[:2, :, :2, :2, :2] * 1, None, 1, 1, 1, 1),
    "torch.conv_transpose3d": lambda lib, x: lib.conv_transpose3d(x, x[:, :2, :2, :2, :2] * 1),
    "torch.max_pool3d": lambda lib, x: lib.max_pool3d(x, 2),
    "torch.max_pool3d_stride": lambda lib, x: lib.max_pool3d(x, [2, 2, 3], [1, 1, 2], 1),
    "max_pool3d_nan": lambda lib, x: lib.nn.functional.max_pool3d(
        x.masked_fill(x > 1.5, float("nan")), 2),
    "adaptive_max_pool3d_nan": lambda lib, x: lib.nn.functional.adaptive_max_pool3d(
        x.masked_fill(x > 1.5, float("nan")), 2),
    "avg_pool3d_empty_batch": lambda lib, x: lib.nn.functional.avg_pool3d(x[:0], 2),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_matches_torch(name):
    def run(lib):
        rng = np.random.default_rng(4)
        x = lib.tensor(rng.normal(size=(2, 2, 5, 5, 6)), requires_grad=True)
        out = FUNCTIONAL[name](lib, x)
        outs = out if isinstance(out, tuple) else (out,)
        floats = [o for o in outs if o.dtype.is_floating_point]
        if floats[0].numel():
            (floats[0].nan_to_num() * floats[0].nan_to_num()).sum().backward()
        return ([o.detach().numpy() for o in outs], [str(o.dtype) for o in outs],
                None if x.grad is None else x.grad.numpy(),
                [None if o.grad_fn is None else o.grad_fn.name() for o in outs])

    ours, theirs = run(leafgrad), run(torch)
    assert [d.split(".")[1] for d in ours[1]] == [d.split(".")[1] for d in theirs[1]]
    assert ours[3] == theirs[3]
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-11)
    if theirs[2] is None:
        assert ours[2] is None
    else:
        np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-10, atol=1e-11)


BAD = [
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(2, 3, 2, 2, 2, dtype=x.dtype)),
    lambda lib, x: lib.nn.functional.conv3d(x[0, 0], lib.ones(2, 2, 2, 2, 2, dtype=x.dtype)),
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(2, 2, 2, 2, dtype=x.dtype)),
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(2, 2, 9, 2, 2, dtype=x.dtype)),
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(2, 2, 2, 2, 2, dtype=x.dtype),
                                            stride=(1, 2)),
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(2, 2, 2, 2, 2, dtype=x.dtype),
                                            stride=0),
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(2, 2, 2, 2, 2, dtype=x.dtype),
                                            padding=-1),
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(2, 2, 2, 2, 2, dtype=x.dtype),
                                            padding="same", stride=2),
    lambda lib, x: lib.nn.functional.conv_transpose3d(x, lib.ones(2, 2, 2, 2, 2, dtype=x.dtype),
                                                      output_padding=1),
    lambda lib, x: lib.nn.functional.conv_transpose3d(x, lib.ones(3, 2, 2, 2, 2, dtype=x.dtype)),
    lambda lib, x: lib.nn.Conv3d(2, 3, 2, groups=2),
    lambda lib, x: lib.nn.Conv3d(2, 2, 2, padding="same", stride=2),
    lambda lib, x: lib.nn.ConvTranspose3d(2, 2, 2, padding_mode="reflect"),
    lambda lib, x: lib.nn.functional.conv2d(x[0], lib.ones(2, 2, 2, 2, dtype=x.dtype), stride=0),
    lambda lib, x: lib.nn.functional.conv2d(x[0], lib.ones(2, 5, 9, 2, dtype=x.dtype)),
    lambda lib, x: lib.nn.functional.conv2d(x[0], lib.ones(5, 5, 9, 2, dtype=x.dtype)),
    lambda lib, x: lib.nn.functional.max_pool3d(x, (2, 2)),
    lambda lib, x: lib.nn.functional.max_pool3d(x, 2, (1, 1)),
    lambda lib, x: lib.nn.functional.max_pool3d(x, 2, padding=(1, 1)),
    lambda lib, x: lib.nn.functional.max_pool3d(x, 2, dilation=(1, 1)),
    lambda lib, x: lib.nn.functional.max_pool3d(x, 2, padding=2),
    lambda lib, x: lib.nn.functional.max_pool3d(x[0, 0], 2),
    lambda lib, x: lib.nn.functional.max_pool3d(x, 9),
    lambda lib, x: lib.nn.functional.max_pool3d(x, 2, stride=0),
    lambda lib, x: lib.nn.functional.avg_pool3d(x, (2, 2)),
    lambda lib, x: lib.nn.functional.avg_pool3d(x, 2, (1, 1)),
    lambda lib, x: lib.nn.functional.avg_pool3d(x, 2, padding=(1, 1)),
    lambda lib, x: lib.nn.functional.avg_pool3d(x, 2, padding=2),
    lambda lib, x: lib.nn.functional.avg_pool3d(x[0, 0], 2),
    lambda lib, x: lib.nn.functional.avg_pool3d(x, 9),
    lambda lib, x: lib.nn.functional.avg_pool3d(x, 2, divisor_override=0),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x, (2, 2)),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x[0, 0], 2),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x, -1),
    lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x, (2, 2)),
    lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x[0, 0, 0], 2),
    lambda lib, x: lib.nn.functional.max_unpool3d(x, lib.zeros(x.shape, dtype=lib.int64), 2,
                                                  output_size=(3, 3)),
    lambda lib, x: lib.nn.functional.max_unpool3d(x, lib.zeros(x.shape, dtype=lib.int32), 2),
    lambda lib, x: lib.nn.functional.max_unpool3d(x, lib.zeros(1, 2, 4, 4, 3,
                                                               dtype=lib.int64), 2),
    lambda lib, x: lib.nn.functional.max_unpool3d(x, lib.full(x.shape, -1, dtype=lib.int64), 2),
    lambda lib, x: lib.nn.functional.max_unpool3d(x[0, 0], lib.zeros(4, 4, 4, dtype=lib.int64),
                                                  2),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_errors_match_torch(index):
    def run(lib):
        x = lib.ones(1, 2, 4, 4, 4)
        try:
            BAD[index](lib, x)
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0]
        return None

    theirs = run(torch)
    assert theirs is not None
    assert run(leafgrad) == theirs
