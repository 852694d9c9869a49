"""Which training steps replay: a small train step per activation of ``nn.functional``, per
layer of ``nn`` and per common loss is compiled; ``explain`` must report no graph break, and 5
compiled steps must equal 5 eager steps bitwise (losses, weights, gradients, buffers such as
BatchNorm's running statistics, optimizer state, the random generator's state).
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as torch
import leafgrad.nn as nn
import leafgrad.nn.functional as F


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _act(fn, width=8):
    return lambda: nn.Sequential(nn.Linear(6, width), Lambda(fn), nn.Linear(8, 3))


ACTIVATIONS = {
    "celu": _act(lambda x: F.celu(x, 0.7)),
    "elu": _act(F.elu),
    "elu_": _act(lambda x: F.elu_(x * 1.0)),
    "gelu": _act(F.gelu),
    "gelu-tanh": _act(lambda x: F.gelu(x, approximate="tanh")),
    "glu": _act(F.glu, 16),
    "hardshrink": _act(lambda x: F.hardshrink(x, 0.3)),
    "hardsigmoid": _act(lambda x: F.hardsigmoid(x * 4)),
    "hardswish": _act(lambda x: F.hardswish(x * 4)),
    "hardtanh": _act(lambda x: F.hardtanh(x, -0.5, 0.5)),
    "leaky_relu": _act(lambda x: F.leaky_relu(x, 0.2)),
    "leaky_relu_": _act(lambda x: F.leaky_relu_(x * 1.0, 0.2)),
    "logsigmoid": _act(F.logsigmoid),
    "log_softmax": _act(lambda x: F.log_softmax(x, 1)),
    "mish": _act(F.mish),
    "prelu": lambda: nn.Sequential(nn.Linear(6, 8), nn.PReLU(8), nn.Linear(8, 3)),
    "relu": _act(F.relu),
    "relu6": _act(lambda x: F.relu6(x * 8)),
    "rrelu-eval": _act(lambda x: F.rrelu(x, training=False)),
    "rrelu-train": _act(lambda x: F.rrelu(x, training=True)),
    "selu": _act(F.selu),
    "sigmoid": _act(F.sigmoid),
    "silu": _act(F.silu),
    "softmax": _act(lambda x: F.softmax(x, 1)),
    "softmin": _act(lambda x: F.softmin(x, 1)),
    "softplus": _act(lambda x: F.softplus(x, 2.0, 1.0)),
    "softshrink": _act(lambda x: F.softshrink(x, 0.3)),
    "softsign": _act(F.softsign),
    "tanh": _act(F.tanh),
    "tanhshrink": _act(F.tanhshrink),
    "threshold": _act(lambda x: F.threshold(x, 0.1, -2.0)),
    "threshold_": _act(lambda x: F.threshold_(x * 1.0, 0.1, -2.0)),
}


class _Recurrent(nn.Module):
    def __init__(self, kind, **kwargs):
        super().__init__()
        self.rnn = getattr(nn, kind)(6, 5, batch_first=True, **kwargs)
        width = 10 if kwargs.get("bidirectional") else 5
        self.fc = nn.Linear(width, 3)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.fc(out[:, -1])


class _Cell(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.cell = getattr(nn, kind)(6, 5)
        self.fc = nn.Linear(5, 3)

    def forward(self, x):
        state = None
        for t in range(x.shape[1]):
            state = self.cell(x[:, t], state)
        h = state[0] if isinstance(state, tuple) else state
        return self.fc(h)


class _Embedding(nn.Module):
    """Indices from the input's values (so they change every step) into an embedding."""

    def __init__(self, **kwargs):
        super().__init__()
        self.embedding = nn.Embedding(10, 4, **kwargs)
        self.fc = nn.Linear(24, 3)

    def forward(self, x):
        indices = (x.abs() * 3).long().clamp(max=9)
        return self.fc(self.embedding(indices).flatten(1))


class _Attention(nn.Module):
    def __init__(self, transformer=False):
        super().__init__()
        self.attention = (nn.Transformer(6, 2, 1, 1, 12, dropout=0.1, batch_first=True)
                          if transformer else nn.MultiheadAttention(6, 2, batch_first=True))
        self.transformer = transformer
        self.fc = nn.Linear(18, 3)

    def forward(self, x):
        out = self.attention(x, x) if self.transformer else self.attention(x, x, x)[0]
        return self.fc(out.flatten(1))


class _Pair(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.linear = nn.Linear(6, 6)
        self.layer = layer

    def forward(self, x):
        y = self.linear(x)
        out = self.layer(x, y)
        return out if out.ndim == 2 else torch.stack([out, out * 2, -out], 1)


def _conv(norm, channels=4):
    return lambda: nn.Sequential(nn.Conv2d(1, channels, 3), norm(), nn.ReLU(), nn.Flatten(),
                                 nn.Linear(channels * 16, 3))


FLAT = (4, 6)
IMAGE = (4, 1, 6, 6)
SEQUENCE = (4, 3, 6)

LAYERS = {
    "BatchNorm1d": (lambda: nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(),
                                          nn.Linear(8, 3)), FLAT),
    "BatchNorm1d-momentum-None": (lambda: nn.Sequential(
        nn.Linear(6, 8), nn.BatchNorm1d(8, momentum=None), nn.Linear(8, 3)), FLAT),
    "BatchNorm1d-3d": (lambda: nn.Sequential(nn.Conv1d(6, 4, 1), nn.BatchNorm1d(4),
                                             nn.Flatten(), nn.Linear(12, 3)), (4, 6, 3)),
    "BatchNorm1d-no-stats": (lambda: nn.Sequential(
        nn.Linear(6, 8), nn.BatchNorm1d(8, track_running_stats=False), nn.Linear(8, 3)), FLAT),
    "BatchNorm2d": (_conv(lambda: nn.BatchNorm2d(4)), IMAGE),
    "BatchNorm2d-no-affine": (_conv(lambda: nn.BatchNorm2d(4, affine=False)), IMAGE),
    "BatchNorm3d": (lambda: nn.Sequential(nn.Conv3d(1, 2, 2), nn.BatchNorm3d(2), nn.Flatten(),
                                          nn.Linear(2 * 8, 3)), (4, 1, 3, 3, 3)),
    "LayerNorm": (lambda: nn.Sequential(nn.Linear(6, 8), nn.LayerNorm(8), nn.Linear(8, 3)), FLAT),
    "GroupNorm": (_conv(lambda: nn.GroupNorm(2, 4)), IMAGE),
    "InstanceNorm2d": (_conv(lambda: nn.InstanceNorm2d(4, affine=True)), IMAGE),
    "InstanceNorm2d-stats": (_conv(lambda: nn.InstanceNorm2d(4, track_running_stats=True)),
                             IMAGE),
    "RMSNorm": (lambda: nn.Sequential(nn.Linear(6, 8), nn.RMSNorm(8), nn.Linear(8, 3)), FLAT),
    "LocalResponseNorm": (_conv(lambda: nn.LocalResponseNorm(2)), IMAGE),
    "LSTM": (lambda: _Recurrent("LSTM"), SEQUENCE),
    "LSTM-2-layers-bidirectional": (lambda: _Recurrent("LSTM", num_layers=2,
                                                       bidirectional=True), SEQUENCE),
    "LSTM-dropout": (lambda: _Recurrent("LSTM", num_layers=2, dropout=0.3), SEQUENCE),
    "GRU": (lambda: _Recurrent("GRU"), SEQUENCE),
    "GRU-2-layers-bidirectional": (lambda: _Recurrent("GRU", num_layers=2, bidirectional=True),
                                   SEQUENCE),
    "RNN": (lambda: _Recurrent("RNN"), SEQUENCE),
    "RNN-relu": (lambda: _Recurrent("RNN", nonlinearity="relu"), SEQUENCE),
    "LSTMCell": (lambda: _Cell("LSTMCell"), SEQUENCE),
    "GRUCell": (lambda: _Cell("GRUCell"), SEQUENCE),
    "RNNCell": (lambda: _Cell("RNNCell"), SEQUENCE),
    "Conv1d": (lambda: nn.Sequential(nn.Conv1d(2, 3, 3), nn.Flatten(), nn.Linear(12, 3)),
               (4, 2, 6)),
    "ConvTranspose2d": (lambda: nn.Sequential(nn.ConvTranspose2d(1, 2, 2, stride=2),
                                              nn.Flatten(), nn.Linear(2 * 144, 3)), IMAGE),
    "MaxPool2d": (_conv(lambda: nn.MaxPool2d(2, 1)), (4, 1, 7, 7)),
    "AvgPool2d": (_conv(lambda: nn.AvgPool2d(3, 1, 1)), IMAGE),
    "AdaptiveAvgPool2d": (_conv(lambda: nn.AdaptiveAvgPool2d(4)), IMAGE),
    "Dropout": (lambda: nn.Sequential(nn.Linear(6, 8), nn.Dropout(0.3), nn.Linear(8, 3)), FLAT),
    "Dropout2d": (_conv(lambda: nn.Dropout2d(0.3)), IMAGE),
    "Embedding": (lambda: _Embedding(), FLAT),
    "Embedding-padding_idx": (lambda: _Embedding(padding_idx=0), FLAT),
    "Embedding-scale_grad_by_freq": (lambda: _Embedding(scale_grad_by_freq=True), FLAT),
    "MultiheadAttention": (lambda: _Attention(), SEQUENCE),
    "Transformer": (lambda: _Attention(transformer=True), SEQUENCE),
    "Bilinear": (lambda: _Pair(nn.Bilinear(6, 6, 3)), FLAT),
    "CosineSimilarity": (lambda: _Pair(nn.CosineSimilarity()), FLAT),
    "PairwiseDistance": (lambda: _Pair(nn.PairwiseDistance()), FLAT),
    "Upsample-nearest": (_conv(lambda: nn.Sequential(nn.Upsample(scale_factor=2),
                                                     nn.AvgPool2d(2))), IMAGE),
    "Upsample-bilinear": (_conv(lambda: nn.Sequential(nn.Upsample(scale_factor=2,
                                                                  mode="bilinear"),
                                                      nn.AvgPool2d(2))), IMAGE),
    "PixelShuffle": (lambda: nn.Sequential(nn.Conv2d(1, 4, 3), nn.PixelShuffle(2), nn.Flatten(),
                                           nn.Linear(64, 3)), IMAGE),
    "Unfold": (lambda: nn.Sequential(nn.Unfold(2), nn.Flatten(), nn.Linear(100, 3)), IMAGE),
    "ReflectionPad2d": (_conv(lambda: nn.Sequential(nn.ReflectionPad2d(1), nn.AvgPool2d(3, 1))),
                        IMAGE),
    "ReplicationPad2d": (_conv(lambda: nn.Sequential(nn.ReplicationPad2d(1),
                                                     nn.MaxPool2d(3, 1))), IMAGE),
    "AdaptiveMaxPool2d": (_conv(lambda: nn.AdaptiveMaxPool2d(4)), IMAGE),
    "LPPool2d": (_conv(lambda: nn.Sequential(nn.ZeroPad2d(1), nn.LPPool2d(2, 3, 1))), IMAGE),
    "FractionalMaxPool2d": (_conv(lambda: nn.Sequential(nn.ZeroPad2d(1),
                                                        nn.FractionalMaxPool2d(2, (4, 4)))),
                            IMAGE),
    "Conv3d": (lambda: nn.Sequential(nn.Conv3d(1, 2, 2), nn.Flatten(), nn.Linear(16, 3)),
               (4, 1, 3, 3, 3)),
    "ConvTranspose1d": (lambda: nn.Sequential(nn.ConvTranspose1d(2, 2, 2, stride=2),
                                              nn.Flatten(), nn.Linear(24, 3)), (4, 2, 6)),
    "Softmax2d": (_conv(lambda: nn.Softmax2d()), IMAGE),
    "AlphaDropout": (lambda: nn.Sequential(nn.Linear(6, 8), nn.AlphaDropout(0.2),
                                           nn.Linear(8, 3)), FLAT),
    "ChannelShuffle": (_conv(lambda: nn.ChannelShuffle(2)), IMAGE),
    "max-over-time": (lambda: nn.Sequential(nn.Conv1d(2, 3, 3), Lambda(lambda x: x.max(2)[0]),
                                            nn.Linear(3, 3)), (4, 2, 6)),
    "max-min-amax-ties": (lambda: nn.Sequential(
        nn.Linear(6, 8), Lambda(lambda x: (x * 2).round()),  # ties (and zero grads: round)
        Lambda(lambda x: x - x.amax(1, keepdim=True) + x.min() * x.amin((0, 1))
               + x.max(0).values), nn.Linear(8, 3)), FLAT),
    "TransformerEncoderLayer": (lambda: nn.Sequential(
        nn.TransformerEncoderLayer(6, 2, 12, dropout=0.1, batch_first=True), nn.Flatten(),
        nn.Linear(18, 3)), SEQUENCE),
}

_TARGETS = np.random.default_rng(3)
_REAL = _TARGETS.standard_normal((4, 3)).astype(np.float32)
_BITS = _TARGETS.integers(0, 2, (4, 3)).astype(np.float32)

LOSSES = {
    "cross_entropy": F.cross_entropy,
    "cross_entropy-label-smoothing": lambda o, y: F.cross_entropy(o, y, label_smoothing=0.1),
    "cross_entropy-label-smoothing-weight": lambda o, y: F.cross_entropy(
        o, y, weight=torch.tensor([0.5, 1.0, 2.0]), label_smoothing=0.2),
    "gaussian_nll_loss": lambda o, y: F.gaussian_nll_loss(o, torch.tensor(_REAL),
                                                          torch.ones(4, 3)),
    "nll_loss": lambda o, y: F.nll_loss(F.log_softmax(o, 1), y),
    "mse_loss": lambda o, y: F.mse_loss(o, torch.tensor(_REAL)),
    "l1_loss": lambda o, y: F.l1_loss(o, torch.tensor(_REAL)),
    "smooth_l1_loss": lambda o, y: F.smooth_l1_loss(o, torch.tensor(_REAL), beta=0.5),
    "huber_loss": lambda o, y: F.huber_loss(o, torch.tensor(_REAL), delta=0.5),
    "binary_cross_entropy": lambda o, y: F.binary_cross_entropy(torch.sigmoid(o),
                                                                torch.tensor(_BITS)),
    "binary_cross_entropy_with_logits": lambda o, y: F.binary_cross_entropy_with_logits(
        o, torch.tensor(_BITS)),
    "kl_div": lambda o, y: F.kl_div(F.log_softmax(o, 1), F.softmax(torch.tensor(_REAL), 1),
                                    reduction="batchmean"),
    "kl_div-zeros": lambda o, y: F.kl_div(F.log_softmax(o, 1), torch.tensor(_BITS / 2),
                                          reduction="batchmean"),
    "soft_margin_loss": lambda o, y: F.soft_margin_loss(o, torch.tensor(_BITS * 2 - 1)),
    "multilabel_soft_margin_loss": lambda o, y: F.multilabel_soft_margin_loss(
        o, torch.tensor(_BITS)),
    "poisson_nll_loss": lambda o, y: F.poisson_nll_loss(o, torch.tensor(np.abs(_REAL))),
    "hinge_embedding_loss": lambda o, y: F.hinge_embedding_loss(o, torch.tensor(_BITS * 2 - 1)),
    "cosine_embedding_loss": lambda o, y: F.cosine_embedding_loss(
        o, torch.tensor(_REAL), torch.tensor([1, -1, 1, -1])),
    "margin_ranking_loss": lambda o, y: F.margin_ranking_loss(o[:, 0], o[:, 1],
                                                              torch.tensor([1., -1, 1, -1])),
    "multi_margin_loss": F.multi_margin_loss,
    "multi_margin_loss-p2-weight": lambda o, y: F.multi_margin_loss(
        o, y, p=2, weight=torch.tensor([0.5, 1.0, 2.0])),
    "multilabel_margin_loss": lambda o, y: F.multilabel_margin_loss(
        o, torch.tensor([[0, 2, -1], [1, -1, 0], [2, 1, 0], [0, -1, 1]])),
    "triplet_margin_loss": lambda o, y: F.triplet_margin_loss(o, torch.tensor(_REAL),
                                                              torch.tensor(_REAL[::-1].copy())),
}

def _bits(t):
    return np.ascontiguousarray(t._data if hasattr(t, "_data") else t).tobytes()


def _train(make_model, shape, loss_fn, compiled, dtype, steps=5, eval_from=None):
    torch.manual_seed(0)
    model = make_model().to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(1)

    def step(x, y):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    run = torch.compile(step) if compiled else step
    torch.manual_seed(7)
    losses = []
    for index in range(steps):
        if index == eval_from:
            model.eval()
        x = torch.tensor(rng.standard_normal(shape), dtype=dtype)
        y = torch.tensor(rng.integers(0, 3, shape[0]))
        losses.append(_bits(run(x, y)))
    state = [_bits(p) for p in model.parameters()]
    state += [_bits(p.grad) for p in model.parameters() if p.grad is not None]
    state += [_bits(b) for b in model.buffers()]
    state += [_bits(v) for s in optimizer.state.values() for v in s.values()
              if hasattr(v, "_data")]
    return losses, state, _bits(torch.random.get_rng_state()), run


def _explain(make_model, shape, loss_fn, dtype):
    torch.manual_seed(0)
    model = make_model().to(dtype)
    x = torch.randn(*shape, dtype=dtype)
    y = torch.tensor(np.arange(shape[0]) % 3)
    return torch.compile.explain(lambda x, y: loss_fn(model(x), y).backward(), x, y)


def _check_replays(make_model, shape, loss_fn, dtype=torch.float32, eval_from=None):
    explained = _explain(make_model, shape, loss_fn, dtype)
    assert explained.graph_break_count == 0, str(explained)
    eager = _train(make_model, shape, loss_fn, False, dtype, eval_from=eval_from)
    compiled = _train(make_model, shape, loss_fn, True, dtype, eval_from=eval_from)
    run = compiled[3]
    assert run.eager_calls == 0
    assert run.replays == 5 - len(run.captures)
    assert compiled[0] == eager[0]  # losses
    assert compiled[1] == eager[1]  # weights, grads, buffers, optimizer state
    assert compiled[2] == eager[2]  # the generator advanced as in eager mode


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_step_replays(name):
    _check_replays(ACTIVATIONS[name], FLAT, F.cross_entropy)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_step_replays(name):
    make, shape = LAYERS[name]
    _check_replays(make, shape, F.cross_entropy)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_step_replays(name):
    _check_replays(ACTIVATIONS["tanh"], FLAT, LOSSES[name])


@pytest.mark.parametrize("name", ["elu", "hardswish", "softplus", "leaky_relu", "prelu"])
def test_activation_step_replays_float64(name):
    _check_replays(ACTIVATIONS[name], FLAT, F.cross_entropy, torch.float64)


@pytest.mark.parametrize("name", ["BatchNorm1d", "BatchNorm2d", "LSTM", "LSTMCell"])
def test_layer_step_replays_float64(name):
    make, shape = LAYERS[name]
    _check_replays(make, shape, F.cross_entropy, torch.float64)


@pytest.mark.parametrize("name", ["BatchNorm1d", "BatchNorm1d-momentum-None", "BatchNorm2d",
                                  "InstanceNorm2d-stats", "Dropout"])
def test_train_then_eval_replays(name):
    """Switching to eval mode between steps: a second capture (the module's training flag is
    guarded), the running statistics used as eager uses them."""
    make, shape = LAYERS[name]
    eager = _train(make, shape, F.cross_entropy, False, torch.float32, steps=6, eval_from=3)
    compiled = _train(make, shape, F.cross_entropy, True, torch.float32, steps=6, eval_from=3)
    assert len(compiled[3].captures) == 2 and compiled[3].replays == 4
    assert compiled[:3] == eager[:3]


def test_gaussian_nll_check_raises_on_replay_as_eager():
    """gaussian_nll_loss's check of var < 0 is replayed: a later call with a negative var raises
    eager's ValueError at the same point (before backward and the optimizer step)."""
    def run(compiled):
        torch.manual_seed(0)
        model = ACTIVATIONS["tanh"]()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

        def step(x, var):
            optimizer.zero_grad()
            loss = F.gaussian_nll_loss(model(x), torch.tensor(_REAL), var)
            loss.backward()
            optimizer.step()
            return loss

        fn = torch.compile(step) if compiled else step
        rng = np.random.default_rng(2)
        out = []
        for sign in (1, 1, -1, 1):
            x = torch.tensor(rng.standard_normal(FLAT).astype(np.float32))
            var = torch.tensor(np.abs(rng.standard_normal((4, 3))).astype(np.float32) * sign)
            try:
                out.append(_bits(fn(x, var)))
            except ValueError as error:
                out.append(str(error))
        return out, [_bits(p) for p in model.parameters()], fn

    eager, compiled = run(False), run(True)
    assert eager[0][2] == "var has negative entry/entries"
    assert compiled[2].replays == 2 and len(compiled[2].captures) == 1
    assert compiled[:2] == eager[:2]


def test_batch_norm_running_statistics_replayed_in_place():
    """The replay writes the running statistics into the same tensors (a reference taken
    before stays live), counts the batches, and keeps their versions as eager (and torch) does."""
    torch.manual_seed(0)
    bn = nn.BatchNorm1d(3, momentum=None, affine=False)  # the result needs no history
    mean, var, batches = bn.running_mean, bn.running_var, bn.num_batches_tracked
    eager_bn = nn.BatchNorm1d(3, momentum=None, affine=False)
    step = torch.compile(lambda x: bn(x).sum())
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = rng.standard_normal((5, 3)).astype(np.float32)
        step(torch.tensor(x))
        eager_bn(torch.tensor(x))
    assert step.replays == 3
    assert bn.running_mean is mean and bn.running_var is var
    assert int(batches) == 4
    assert _bits(mean) == _bits(eager_bn.running_mean)
    assert _bits(var) == _bits(eager_bn.running_var)
    assert mean._version == eager_bn.running_mean._version
    assert batches._version == eager_bn.num_batches_tracked._version


@pytest.mark.parametrize("weighted", [False, True])
def test_label_smoothing_replays_when_ignored_targets_come_and_go(weighted):
    """The smoothing term's mask and divisor depend on which targets are ignored: recomputed
    on every replay, so batches with and without ignored targets (all ignored too) give
    eager's losses and weights."""
    targets = [[0, 1, 2, 1], [0, -100, 2, -100], [1, 1, 0, 2], [-100] * 4, [2, -100, 0, 1]]

    def run(compiled):
        torch.manual_seed(0)
        model = ACTIVATIONS["tanh"]()
        weight = torch.tensor([0.5, 1.0, 2.0]) if weighted else None
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

        def step(x, y):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y, weight=weight, label_smoothing=0.3)
            loss.backward()
            optimizer.step()
            return loss

        fn = torch.compile(step) if compiled else step
        rng = np.random.default_rng(2)
        losses = [_bits(fn(torch.tensor(rng.standard_normal(FLAT).astype(np.float32)),
                           torch.tensor(t))) for t in targets]
        return losses, [_bits(p) for p in model.parameters()], fn

    eager, compiled = run(False), run(True)
    assert compiled[2].replays == 4
    assert compiled[:2] == eager[:2]


def test_embedding_index_check_replays():
    """The embedding's bounds check is part of the replay: an index out of range on a later
    call raises eager's IndexError, not NumPy's (nor wraps a negative index around)."""
    weight = torch.randn(5, 3, requires_grad=True)
    step = torch.compile(lambda i: F.embedding(i, weight).sum().backward())
    for good in ([0, 4, 2], [1, 1, 3], [2, 0, 4]):  # the 2nd captures again: .grad is set
        step(torch.tensor(good))
    assert step.replays == 1
    before = weight.grad.numpy().copy()
    for bad in ([0, 5, 1], [0, -1, 2]):
        with pytest.raises(IndexError, match="index out of range in self"):
            step(torch.tensor(bad))
    assert step.replays == 1 and len(step.captures) == 2
    np.testing.assert_array_equal(weight.grad.numpy(), before)  # the failed calls changed nothing


def test_embedding_max_norm_breaks_the_graph():
    """max_norm renormalises the weight in NumPy outside the op table: named, run eagerly."""
    embedding = nn.Embedding(5, 3, max_norm=1.0)
    explained = torch.compile.explain(lambda i: embedding(i).sum().backward(),
                                      torch.tensor([0, 1]))
    assert any("max_norm" in record.reason for record in explained.break_reasons)


BAG_CASES = {
    "sum-2d": dict(mode="sum"),
    "mean-2d": dict(mode="mean"),
    "max-2d": dict(mode="max"),
    "mean-offsets": dict(mode="mean", offsets=True),
    "sum-offsets-last-padding": dict(mode="sum", offsets=True, include_last_offset=True,
                                     padding_idx=0),
    "sum-per-sample-weights": dict(mode="sum", offsets=True, per_sample=True),
    "max-offsets": dict(mode="max", offsets=True),
}


@pytest.mark.parametrize("name", sorted(BAG_CASES))
def test_embedding_bag_step_replays(name):
    """EmbeddingBag: the bags come from each call's offsets (which change between calls, empty
    bags included) and the indices are checked on every replay."""
    case = dict(BAG_CASES[name])
    use_offsets = case.pop("offsets", False)
    per_sample = case.pop("per_sample", False)
    calls = [([1, 2, 3, 4, 5, 6], [0, 2, 5]), ([0, 7, 7, 9, 2, 1], [0, 0, 3]),
             ([3, 3, 3, 8, 0, 1], [0, 4, 6]), ([9, 8, 7, 6, 5, 4], [0, 1, 2])]

    def run(compiled):
        torch.manual_seed(0)
        bag = nn.EmbeddingBag(10, 4, **case)
        fc = nn.Linear(4, 3)
        optimizer = torch.optim.SGD(list(bag.parameters()) + list(fc.parameters()), lr=0.1)
        weights = torch.tensor(np.linspace(0.5, 1.5, 6).astype(np.float32))

        def step(indices, offsets, y):
            optimizer.zero_grad()
            kwargs = {"per_sample_weights": weights} if per_sample else {}
            out = bag(indices, offsets, **kwargs) if use_offsets else bag(indices.reshape(2, 3))
            loss = F.cross_entropy(fc(out), y[:out.shape[0]])
            loss.backward()
            optimizer.step()
            return loss

        fn = torch.compile(step) if compiled else step
        losses = [_bits(fn(torch.tensor(i), torch.tensor(o), torch.tensor([0, 2, 1])))
                  for i, o in calls]
        return losses, [_bits(p) for p in bag.parameters()], fn

    eager, compiled = run(False), run(True)
    assert compiled[2].replays == len(calls) - len(compiled[2].captures)
    assert compiled[2].replays >= 2
    assert compiled[:2] == eager[:2]


def test_index_select_check_replays():
    x = torch.randn(5, 3, requires_grad=True)
    step = torch.compile(lambda i: x.index_select(0, i).sum().backward())
    for good in ([0, 4], [1, 1], [2, 3]):
        step(torch.tensor(good))
    assert step.replays == 1
    for bad in ([0, 5], [-1, 2]):  # torch's dim-0 message (dim 1 has the other one)
        with pytest.raises(IndexError, match="index out of range in self"):
            step(torch.tensor(bad))
    assert step.replays == 1
    columns = torch.compile(lambda i: x.index_select(1, i).sum().backward())
    for good in ([0, 2], [1, 1]):
        columns(torch.tensor(good))
    with pytest.raises(RuntimeError, match="INDICES element is out of DATA bounds"):
        columns(torch.tensor([0, 3]))
    assert columns.replays == 1
