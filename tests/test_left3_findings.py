"""Differences from torch 2.13 found by the left3 helper, each with torch as the reference.

- The gradients of hardtanh/relu6, hardshrink/softshrink, hardswish and elu/selu/celu at a NaN
  input: torch's scalar and vectorised ops disagree there, so the value depends on where the
  element falls in TensorIterator's runs (float32 and float64, sizes 1..70, every layout).
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _F(lib):
    return lib.nn.functional


NAN_ACTIVATIONS = {
    "hardtanh": lambda lib, x: _F(lib).hardtanh(x),
    "hardtanh_bounds": lambda lib, x: _F(lib).hardtanh(x, -2.0, 3.0),
    "relu6": lambda lib, x: _F(lib).relu6(x),
    "hardshrink": lambda lib, x: _F(lib).hardshrink(x, 0.3),
    "softshrink": lambda lib, x: _F(lib).softshrink(x),
    "hardswish": lambda lib, x: _F(lib).hardswish(x),
    "elu": lambda lib, x: _F(lib).elu(x),
    "selu": lambda lib, x: _F(lib).selu(x),
    "celu": lambda lib, x: _F(lib).celu(x, 0.7),
    "hardtanh_method_clamp": lambda lib, x: _F(lib).hardtanh(x, -1.0, 1.0),
}


def _nan_grads(lib, name, dtype, n):
    """x.grad at the NaN for a NaN at the first, middle and last place of a size-n input."""
    values = []
    for place in sorted({0, n // 2, n - 1}):
        data = np.linspace(-4, 4, n)
        data[place] = np.nan
        x = lib.tensor(data, dtype=dtype, requires_grad=True)
        out = NAN_ACTIVATIONS[name](lib, x)
        out.backward(lib.ones_like(out))
        values.append(float(x.grad[place]))
    return values


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(NAN_ACTIVATIONS))
def test_nan_gradient_by_position_matches_torch(name, dtype):
    got = [v for n in range(1, 71) for v in _nan_grads(lg, name, getattr(lg, dtype), n)]
    want = [v for n in range(1, 71) for v in _nan_grads(torch, name, getattr(torch, dtype), n)]
    np.testing.assert_array_equal(np.array(got), np.array(want))


def _layout(lib, data, dtype, layout):
    if layout == "contiguous":
        return lib.tensor(data, dtype=dtype)
    if layout == "transposed":
        return lib.tensor(data.T.copy(), dtype=dtype).t()
    if layout == "strided":
        return lib.tensor(np.repeat(data, 2, 1), dtype=dtype)[:, ::2]
    if layout == "permuted":
        return lib.tensor(data.reshape(9, 7, 1).transpose(1, 0, 2).copy(),
                          dtype=dtype).permute(1, 0, 2).reshape(9, 7)
    if layout == "expanded_row":
        return lib.tensor(data[:1], dtype=dtype).expand(9, 7)
    raise AssertionError(layout)


def _layout_grads(lib, name, dtype, layout, incoming, create_graph=False):
    rng = np.random.default_rng(5)
    data = rng.standard_normal((9, 7)) * 3
    data[rng.random((9, 7)) < 0.3] = np.nan
    x = _layout(lib, data, dtype, layout).detach().requires_grad_(True)
    out = NAN_ACTIVATIONS[name](lib, x)
    if incoming == "sum":  # an expanded gradient (stride 0)
        grad = lib.ones((), dtype=dtype).expand(9, 7)
    elif incoming == "ones":
        grad = lib.ones_like(out)
    else:  # a transposed gradient
        grad = lib.ones(7, 9, dtype=dtype).t()
    if create_graph:
        grad = grad.detach().requires_grad_(True)
    result, = lib.autograd.grad(out, x, grad, create_graph=create_graph)
    return result.detach().numpy()


@pytest.mark.parametrize("incoming", ["sum", "ones", "transposed"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "permuted",
                                    "expanded_row"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["hardtanh", "hardshrink", "softshrink", "hardswish", "elu",
                                  "selu"])
def test_nan_gradient_by_layout_matches_torch(name, dtype, layout, incoming):
    got = _layout_grads(lg, name, getattr(lg, dtype), layout, incoming)
    want = _layout_grads(torch, name, getattr(torch, dtype), layout, incoming)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["hardtanh", "hardshrink", "hardswish", "elu"])
def test_nan_gradient_under_create_graph_matches_torch(name):
    got = _layout_grads(lg, name, lg.float32, "contiguous", "ones", create_graph=True)
    want = _layout_grads(torch, name, torch.float32, "contiguous", "ones", create_graph=True)
    np.testing.assert_array_equal(got, want)


# -- clamp, smooth_l1 / huber, leaky_relu on their faster paths: torch's bits ----------------------
# (clamp's forward is one np.clip with a fix-up of zeros' signs; the losses' backwards are torch's
# kernels on arrays, their forwards the same steps in place; leaky_relu's forward one maximum for a
# slope in (0, 1]. Each is compared bit for bit with torch, layouts and special values included.)

SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40, -1e-40, 0.5, -0.5, 1.0, -1.0, 2.0]


def _special_values(shape, seed=0):
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape) * 1.5
    flat = data.reshape(-1)
    flat[:min(flat.size, len(SPECIAL))] = SPECIAL[:flat.size]
    return data


def _same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), (got, want)


def _input(lib, data, dtype, layout):
    if layout == "transposed" and data.ndim == 2:
        return lib.tensor(data.T.copy(), dtype=dtype).t()
    if layout == "strided" and data.ndim == 2:
        return lib.tensor(np.repeat(data, 2, 1), dtype=dtype)[:, ::2]
    return lib.tensor(data, dtype=dtype)


CLAMP_BOUNDS = [None, 0.0, -0.0, 0.5, -0.5, 1.0, np.nan, np.inf, -np.inf]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("low", CLAMP_BOUNDS, ids=repr)
def test_clamp_bits_match_torch(low, dtype):
    data = np.concatenate([np.array(SPECIAL * 3), _special_values(40).ravel()])
    for high in CLAMP_BOUNDS:
        if low is None and high is None:
            continue
        results = []
        for lib in (lg, torch):
            x = lib.tensor(data, dtype=getattr(lib, dtype))
            results.append([x.clamp(low, high).numpy(), lib.clamp(x, min=low, max=high).numpy(),
                            x.clip(low, high).numpy()])
        for got, want in zip(*results):
            _same_bits(got, want)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("form", ["method", "inplace", "out", "min_only", "max_only"])
def test_clamp_forms_and_layouts_match_torch(form, layout):
    data = _special_values((9, 70), seed=4)
    results = []
    for lib in (lg, torch):
        x = _input(lib, data, lib.float32, layout)
        if form == "method":
            out = x.clamp(-0.5, 0.0)
        elif form == "inplace":
            out = x.clone().clamp_(-0.5, 0.0)
        elif form == "out":
            out = lib.empty(0)
            lib.clamp(x, -0.0, 0.5, out=out)
        elif form == "min_only":
            out = x.clamp(min=0.0)
        else:
            out = x.clamp(max=-0.0)
        results.append((out.numpy(), out.stride()))
    _same_bits(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


LOSSES = {
    "smooth_l1": lambda lib, x, t, reduction: _F(lib).smooth_l1_loss(x, t, reduction=reduction,
                                                                     beta=0.7),
    "smooth_l1_beta1": lambda lib, x, t, reduction: _F(lib).smooth_l1_loss(x, t,
                                                                           reduction=reduction),
    "huber": lambda lib, x, t, reduction: _F(lib).huber_loss(x, t, reduction=reduction,
                                                             delta=0.6),
    "huber_delta2": lambda lib, x, t, reduction: _F(lib).huber_loss(x, t, reduction=reduction,
                                                                    delta=2.0),
}


def _loss_run(lib, name, shape, dtype, reduction, layout, needs):
    data = _special_values(shape, seed=1)
    target = np.random.default_rng(2).standard_normal(shape)
    x = _input(lib, data, getattr(lib, dtype), layout).requires_grad_(needs[0])
    t = _input(lib, target, getattr(lib, dtype), "contiguous").requires_grad_(needs[1])
    loss = LOSSES[name](lib, x, t, reduction)
    grad = lib.tensor(np.random.default_rng(3).standard_normal(tuple(loss.shape)),
                      dtype=getattr(lib, dtype))
    wanted = [v for v, need in zip((x, t), needs) if need]
    grads = lib.autograd.grad(loss, wanted, grad)
    return [loss.detach().numpy()] + [g.numpy() for g in grads]


@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)],
                         ids=["both", "input", "target"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("shape", [(9, 70), (5,), (), (0, 3), (33, 2)], ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(LOSSES))
def test_pointwise_loss_bits_match_torch(name, dtype, reduction, shape, layout, needs):
    """Values and gradients bit for bit, an infinite difference's gradient (+-grad, was NaN)
    and the vectorised and scalar parts of torch's backward kernels included."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the mean of an empty loss)
        got = _loss_run(lg, name, shape, dtype, reduction, layout, needs)
        want = _loss_run(torch, name, shape, dtype, reduction, layout, needs)
    for g, w in zip(got, want):
        _same_bits(g, w)


@pytest.mark.parametrize("name", ["smooth_l1", "huber"])
def test_pointwise_loss_create_graph_value_matches_torch(name):
    """The create_graph node's value is torch's kernel's too (an infinite difference: +-grad)."""
    results = []
    for lib in (lg, torch):
        x = lib.tensor(_special_values((4, 40)), dtype=lib.float32, requires_grad=True)
        t = lib.tensor(np.random.default_rng(2).standard_normal((4, 40)), dtype=lib.float32)
        g, = lib.autograd.grad(LOSSES[name](lib, x, t, "mean"), x, create_graph=True)
        results.append((g.detach().numpy(), g.grad_fn.name()))
    _same_bits(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("slope", [0.01, 0.1, 1.0, 0.0, 2.5, -0.3])
def test_leaky_relu_bits_match_torch(slope, dtype, layout):
    results = []
    for lib in (lg, torch):
        x = _input(lib, _special_values((9, 70), seed=6), getattr(lib, dtype),
                   layout).requires_grad_(True)
        out = _F(lib).leaky_relu(x, slope)
        grad = lib.tensor(np.random.default_rng(3).standard_normal((9, 70)),
                          dtype=getattr(lib, dtype))
        out.backward(grad)
        inplace = _F(lib).leaky_relu(x.detach().clone(), slope, inplace=True)
        results.append([out.detach().numpy(), x.grad.numpy(), inplace.numpy()])
    for got, want in zip(*results):
        _same_bits(got, want)


# -- edge inputs of activations and losses ---------------------------------------------------------


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_of_a_0d_tensor_matches_torch(dtype, approximate):
    """float32 gelu of a 0-d tensor raised TypeError ('underlying buffer is not writable': MKL
    was handed a NumPy scalar); its gradients too."""
    results = []
    for lib in (lg, torch):
        x = lib.tensor(0.7, dtype=getattr(lib, dtype), requires_grad=True)
        out = _F(lib).gelu(x, approximate=approximate)
        first, = lib.autograd.grad(out, x, create_graph=True)
        second, = lib.autograd.grad(first, x)
        results.append([t.detach().numpy() for t in (out, first, second)])
    for got, want in zip(*results):
        assert got.shape == want.shape == ()
        np.testing.assert_allclose(got, want, rtol=1e-6)


def _outcome(call):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = call()
            result = ("ok", tuple(out.shape), out.dtype.is_floating_point,
                      np.nan_to_num(out.detach().double().numpy(), nan=123.0).round(6).tolist())
        except Exception as error:  # noqa: BLE001 - the type and message are compared
            result = ("error", type(error).__name__, str(error).splitlines()[0])
    return result, sorted({w.category.__name__ for w in caught})


EDGE_CALLS = {
    **{f"{name}_mean_of_empty": (lambda lib, name=name: getattr(_F(lib), name)(
        lib.zeros(0, 3), lib.zeros(0, 3))) for name in
       ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss",
        "binary_cross_entropy", "binary_cross_entropy_with_logits")},
    **{f"{name}_{reduction}_delta_{delta}": (
        lambda lib, reduction=reduction, delta=delta: _F(lib).huber_loss(
            lib.tensor([1.0, 2.0]), lib.tensor([2.0, 1.0]), reduction=reduction, delta=delta))
       for name in ("huber",) for reduction in ("mean", "none") for delta in (0.0, -1.0)},
    **{f"{name}_{kind}": (lambda lib, name=name, kind=kind: getattr(_F(lib), name)(
        lib.tensor([1, 2, 3]) if kind == "int" else lib.tensor([True, False]),
        lib.tensor([1, 0, 2]) if kind == "int" else lib.tensor([True, True])))
       for name in ("mse_loss", "smooth_l1_loss", "huber_loss") for kind in ("int", "bool")},
    **{f"{name}_{kind}": (lambda lib, name=name, kind=kind: getattr(_F(lib), name)(
        lib.tensor([1, -2, 3]) if kind == "int" else lib.tensor([True, False])))
       for name in ("elu", "selu", "celu", "gelu", "silu", "mish", "softplus", "hardswish",
                    "hardsigmoid", "leaky_relu", "logsigmoid", "softshrink", "hardshrink",
                    "rrelu", "relu", "relu6", "hardtanh")
       for kind in ("int", "bool")},
    "threshold_bool": lambda lib: _F(lib).threshold(lib.tensor([True, False]), 0.5, 2.0),
    "threshold_int": lambda lib: _F(lib).threshold(lib.tensor([1, -2]), 0, 7),
    "relu_bool_method": lambda lib: lib.tensor([True, False]).relu(),
    "leaky_relu_inplace_int": lambda lib: _F(lib).leaky_relu(lib.tensor([1, -2]), inplace=True),
    "elu_inplace_int": lambda lib: _F(lib).elu(lib.tensor([1, -2]), inplace=True),
    "hardtanh_inplace_bool": lambda lib: _F(lib).hardtanh(lib.tensor([True]), inplace=True),
}


@pytest.mark.parametrize("name", list(EDGE_CALLS))
def test_activation_and_loss_edge_inputs_match_torch(name):
    """The mean of an empty loss is NaN without NumPy's warning; huber_loss refuses a
    non-positive delta; integer and bool inputs get torch's error where its kernels have no
    integer form (they were computed in float or as integers)."""
    assert _outcome(lambda: EDGE_CALLS[name](lg)) == _outcome(lambda: EDGE_CALLS[name](torch))
