"""RNN/LSTM/GRU and their cells against torch.nn: same seed -> same initial weights (names,
order, values); same input -> same outputs, final states, input/state/parameter gradients, for
batched/unbatched, batch_first, layers, bidirectional, proj_size, given or default states,
float32/float64; dropout between layers in training mode; reprs; shape errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CONFIGS = [
    ("LSTM", dict(input_size=3, hidden_size=4)),
    ("LSTM", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True)),
    ("LSTM", dict(input_size=3, hidden_size=5, batch_first=True, proj_size=2)),
    ("LSTM", dict(input_size=3, hidden_size=4, bias=False, num_layers=2)),
    ("GRU", dict(input_size=3, hidden_size=4)),
    ("GRU", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True,
                 batch_first=True)),
    ("RNN", dict(input_size=3, hidden_size=4)),
    ("RNN", dict(input_size=3, hidden_size=4, nonlinearity="relu", num_layers=2)),
    ("RNN", dict(input_size=3, hidden_size=4, bidirectional=True, bias=False)),
]


def _run(lib, kind, options, dtype, batched, with_state):
    lib.manual_seed(3)
    module = getattr(lib.nn, kind)(**options).to(getattr(lib, dtype))
    names = [n for n, _ in module.named_parameters()]
    init = [p.detach().numpy().copy() for p in module.parameters()]
    rng = np.random.default_rng(0)
    steps, batch = 5, 2
    shape = (steps, batch, options["input_size"]) if batched else (steps, options["input_size"])
    if batched and options.get("batch_first"):
        shape = (batch, steps, options["input_size"])
    x = lib.tensor(rng.normal(size=shape), dtype=getattr(lib, dtype), requires_grad=True)
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    hidden = options.get("proj_size") or options["hidden_size"]
    state_shape = (layers, batch) if batched else (layers,)
    states = []
    args = [x]
    if with_state:
        h0 = lib.tensor(rng.normal(size=state_shape + (hidden,)), dtype=getattr(lib, dtype),
                        requires_grad=True)
        states.append(h0)
        if kind == "LSTM":
            c0 = lib.tensor(rng.normal(size=state_shape + (options["hidden_size"],)),
                            dtype=getattr(lib, dtype), requires_grad=True)
            states.append(c0)
            args.append((h0, c0))
        else:
            args.append(h0)
    output, final = module(*args)
    finals = list(final) if kind == "LSTM" else [final]
    loss = (output * output).sum() + sum((f * 1.5).sum() for f in finals)
    loss.backward()
    return dict(names=names, init=init, output=output.detach().numpy(),
                finals=[f.detach().numpy() for f in finals], x=x.grad.numpy(),
                states=[s.grad.numpy() for s in states],
                grads=[p.grad.numpy() for p in module.parameters()], repr=repr(module))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batched,with_state", [(True, False), (True, True), (False, True)])
@pytest.mark.parametrize("kind,options", CONFIGS, ids=[f"{k}-{o}" for k, o in CONFIGS])
def test_recurrent_layer_matches_torch(kind, options, dtype, batched, with_state):
    ours = _run(leafgrad, kind, options, dtype, batched, with_state)
    theirs = _run(torch, kind, options, dtype, batched, with_state)
    assert ours["names"] == theirs["names"] and ours["repr"] == theirs["repr"]
    for a, b in zip(ours["init"], theirs["init"]):
        np.testing.assert_array_equal(a, b)
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    for key in ("output", "x"):
        np.testing.assert_allclose(ours[key], theirs[key], **tol)
    for key in ("finals", "states", "grads"):
        assert len(ours[key]) == len(theirs[key])
        for a, b in zip(ours[key], theirs[key]):
            np.testing.assert_allclose(a, b, **tol)


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(kind, batched):
    def run(lib):
        lib.manual_seed(1)
        cell = getattr(lib.nn, kind)(3, 4).double()
        rng = np.random.default_rng(2)
        x = lib.tensor(rng.normal(size=(2, 3) if batched else (3,)), requires_grad=True)
        h = lib.tensor(rng.normal(size=(2, 4) if batched else (4,)), requires_grad=True)
        out = cell(x, (h, h * 0.5) if kind == "LSTMCell" else h)
        outs = list(out) if kind == "LSTMCell" else [out]
        sum(o.sum() for o in outs).backward()
        default = cell(x)
        default = default[0] if kind == "LSTMCell" else default
        return ([o.detach().numpy() for o in outs] + [x.grad.numpy(), h.grad.numpy(),
                default.detach().numpy()] + [p.grad.numpy() for p in cell.parameters()],
                repr(cell))

    ours, theirs = run(leafgrad), run(torch)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_dropout_between_layers_is_torchs_stream():
    def run(lib):
        lib.manual_seed(0)
        lstm = lib.nn.LSTM(3, 4, num_layers=3, dropout=0.4)
        x = lib.ones(5, 2, 3)
        out, _ = lstm(x)
        lstm.eval()
        return out.detach().numpy(), lstm(x)[0].detach().numpy()

    ours, theirs = run(leafgrad), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return None


BAD = [
    "nn.LSTM(3, 4)(lib.zeros(5, 2, 2))", "nn.LSTM(3, 4)(lib.zeros(5, 2, 3, 1))",
    "nn.LSTM(3, 4)(lib.zeros(5, 2, 3), (lib.zeros(1, 2, 5), lib.zeros(1, 2, 4)))",
    "nn.LSTM(3, 4)(lib.zeros(5, 2, 3), (lib.zeros(1, 2, 4), lib.zeros(1, 3, 4)))",
    "nn.GRU(3, 4)(lib.zeros(5, 2, 3), lib.zeros(2, 2, 4))",
    "nn.RNN(3, 4)(lib.zeros(5, 3), lib.zeros(1, 1, 4))",
    "nn.RNN(3, 4, nonlinearity='sigmoid')", "nn.LSTM(3, 4, proj_size=4)",
    "nn.LSTM(3, 0)", "nn.GRU(3, 4, num_layers=0)", "nn.LSTM(3, 4, dropout=1.5)",
    "nn.GRU(3, 4, proj_size=2)", "nn.LSTMCell(3, 4)(lib.zeros(2, 2, 3))",
]


@pytest.mark.parametrize("code", BAD)
def test_errors_match_torch(code):
    def run(lib):
        return _error(lambda: eval(code, {"lib": lib, "nn": lib.nn}))  # noqa: S307

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_outputs_own_their_memory(bidirectional):
    """The fused layer keeps its own copies of the states: modifying the output or h_n/c_n in
    place changes neither the other results nor the gradients of what was computed."""
    def run(lib):
        lib.manual_seed(3)
        lstm = lib.nn.LSTM(3, 4, bidirectional=bidirectional).double()
        x = lib.randn(5, 2, 3, dtype=lib.float64, requires_grad=True)
        out, (h, c) = lstm(x)
        before = out.detach().clone()
        h.add_(1)
        c.mul_(3)
        changed = (out.detach() - before).abs().max()
        loss = (out * 3).sum() + (h * c).sum()
        out.mul_(2)
        loss = loss + out.sum()
        loss.backward()
        return [changed.numpy(), x.grad.numpy()] + [p.grad.numpy() for p in lstm.parameters()]

    for a, b in zip(run(leafgrad), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
