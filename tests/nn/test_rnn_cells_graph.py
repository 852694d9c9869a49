"""nn.LSTMCell / GRUCell / RNNCell, torch.lstm_cell / gru_cell and nn.GRU record the ops
torch's CPU cells run (RNN.cpp): the same grad_fn names and edge order, the same values and
gradients (to rounding: float64 sigmoid is not torch's SLEEF kernel bit for bit)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _graph(node, depth=4):
    if node is None or depth == 0:
        return None
    return (node.name(), tuple(_graph(n, depth - 1) for n, _ in node.next_functions))


def _build(m, kind, dtype, bias, batched, with_state, seed):
    rng = np.random.default_rng(seed)
    size, hidden = 3, 4
    cell = {"lstm": m.nn.LSTMCell, "gru": m.nn.GRUCell, "rnn": m.nn.RNNCell,
            "rnn_relu": lambda *a, **k: m.nn.RNNCell(*a, nonlinearity="relu", **k)}[kind](
        size, hidden, bias=bias).to(getattr(m, dtype))
    with m.no_grad():
        for p in cell.parameters():
            p.copy_(m.tensor(rng.standard_normal(tuple(p.shape)), dtype=getattr(m, dtype)))
    shape = (2, size) if batched else (size,)
    x = m.tensor(rng.standard_normal(shape), dtype=getattr(m, dtype), requires_grad=True)
    state_shape = (2, hidden) if batched else (hidden,)
    h = m.tensor(rng.standard_normal(state_shape), dtype=getattr(m, dtype), requires_grad=True)
    c = m.tensor(rng.standard_normal(state_shape), dtype=getattr(m, dtype), requires_grad=True)
    if not with_state:
        out = cell(x)
    elif kind == "lstm":
        out = cell(x, (h, c))
    else:
        out = cell(x, h)
    outs = out if isinstance(out, tuple) else (out,)
    seeds = [m.tensor(rng.standard_normal(tuple(o.shape)), dtype=getattr(m, dtype))
             for o in outs]
    m.autograd.backward(outs, seeds)
    grads = [t.grad for t in [x, h, c] + list(cell.parameters())]
    return outs, grads


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn", "rnn_relu"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_cells_match_torch(kind, dtype, bias, batched, with_state):
    want_outs, want_grads = _build(torch, kind, dtype, bias, batched, with_state, 7)
    got_outs, got_grads = _build(lg, kind, dtype, bias, batched, with_state, 7)
    for a, b in zip(got_outs, want_outs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6,
                                   atol=1e-7)
        assert _graph(a.grad_fn) == _graph(b.grad_fn)
    for a, b in zip(got_grads, want_grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", ["lstm_cell", "gru_cell"])
def test_functional_cells(fn):
    results = []
    for m in (torch, lg):
        rng = np.random.default_rng(3)
        gates = 4 if fn == "lstm_cell" else 3
        x, h, c = (m.tensor(rng.standard_normal((2, 3)), requires_grad=True) for _ in range(3))
        w_ih = m.tensor(rng.standard_normal((3 * gates, 3)), requires_grad=True)
        w_hh = m.tensor(rng.standard_normal((3 * gates, 3)), requires_grad=True)
        out = getattr(m, fn)(x, (h, c) if fn == "lstm_cell" else h, w_ih, w_hh)
        outs = out if isinstance(out, tuple) else (out,)
        sum(o.sum() for o in outs).backward()
        results.append(([o.detach().numpy() for o in outs], [_graph(o.grad_fn) for o in outs],
                        [t.grad.numpy() for t in (x, h, w_ih, w_hh)]))
    (vals_t, graphs_t, grads_t), (vals_l, graphs_l, grads_l) = results
    assert graphs_t == graphs_l
    for a, b in zip(vals_l, vals_t):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    for a, b in zip(grads_l, grads_t):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("kind", ["GRU", "RNN"])
def test_layer_graph(kind):
    outs = []
    for m in (torch, lg):
        m.manual_seed(0)
        layer = getattr(m.nn, kind)(3, 4, 2)
        out, h = layer(m.randn(5, 2, 3))
        outs.append((_graph(out.grad_fn, 5), _graph(h.grad_fn, 5)))
    assert outs[0] == outs[1]


def test_lstm_with_projection_matches():
    results = []
    for m in (torch, lg):
        m.manual_seed(0)
        lstm = m.nn.LSTM(3, 4, proj_size=2)
        x = m.randn(5, 2, 3, requires_grad=True)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch: "not supported with oneDNN"
            out, (h, c) = lstm(x)
        (out.sum() + c.sum()).backward()
        results.append((out.detach().numpy(), c.detach().numpy(), x.grad.numpy(),
                        _graph(out.grad_fn, 3)))
    for a, b in zip(results[0][:3], results[1][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert results[0][3] == results[1][3]
