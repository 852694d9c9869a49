"""Dropout replays: the captured step draws its masks again on every call, so the default
generator advances exactly as eager (same masks, same state after); draws outside dropout
still break the graph, and a drop whose result is unused still draws."""

import numpy as np
import pytest

import leafgrad as torch
import leafgrad.nn.functional as F


def _bits(t):
    return np.ascontiguousarray(t.detach().numpy()).tobytes()


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Dropout(0.3),
                               torch.nn.Linear(8, 3), torch.nn.Dropout(0.5))


def _train(compiled: bool, eval_at=None):
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(0)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    run = torch.compile(step) if compiled else step
    torch.manual_seed(5)
    losses = []
    for index in range(8):
        if index == eval_at:
            model.eval()
        x = torch.tensor(rng.standard_normal((4, 6)).astype(np.float32))
        y = torch.tensor(rng.integers(0, 3, 4))
        losses.append(_bits(run(x, y)))
    weights = [_bits(p) for p in model.parameters()]
    return losses, weights, torch.random.get_rng_state().numpy().tobytes(), run


@pytest.mark.parametrize("eval_at", [None, 5])
def test_dropout_training_steps_match_eager(eval_at):
    eager = _train(False, eval_at)
    compiled = _train(True, eval_at)
    assert compiled[:3] == eager[:3]
    assert compiled[3].replays >= 5


@pytest.mark.parametrize("p", [0.0, 0.25, 1.0])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_dropout_function_replays(p, dtype):
    def f(x):
        return F.dropout(x * 2.0, p, training=True) + F.dropout(x, p)

    compiled = torch.compile(f)
    results = {}
    for name, fn in (("eager", f), ("compiled", compiled)):
        torch.manual_seed(1)
        x = torch.ones(3, 5, dtype=dtype)
        results[name] = [_bits(fn(x)) for _ in range(4)], torch.random.get_rng_state().numpy()
    assert results["compiled"][0] == results["eager"][0]
    np.testing.assert_array_equal(results["compiled"][1], results["eager"][1])
    assert compiled.replays == 3


def test_unused_dropout_still_draws():
    def f(x):
        F.dropout(x, 0.5)  # result unused: eager still advances the generator
        return x * 3.0

    compiled = torch.compile(f)
    states = {}
    for name, fn in (("eager", f), ("compiled", compiled)):
        torch.manual_seed(2)
        x = torch.ones(4)
        for _ in range(3):
            fn(x)
        states[name] = torch.random.get_rng_state().numpy()
    np.testing.assert_array_equal(states["compiled"], states["eager"])
    assert compiled.replays == 2


def test_a_draw_between_dropouts_replays():
    # torch.randn between two dropouts is recorded too (test_replay_random_draws.py): the
    # replay makes the three draws in eager's order
    def f(x):
        a = F.dropout(x, 0.5)
        noise = torch.randn(x.shape)
        return F.dropout(a + noise, 0.5)

    compiled = torch.compile(f)
    torch.manual_seed(3)
    x = torch.ones(6)
    first = [_bits(compiled(x)) for _ in range(3)]
    torch.manual_seed(3)
    assert first == [_bits(f(x)) for _ in range(3)]
    assert compiled.replays == 2

    def fill(x):  # an in-place fill the capture does not see: breaks the graph
        a = F.dropout(x, 0.5)
        return F.dropout(a + torch.empty(x.shape).uniform_(), 0.5)

    assert any("random" in b.reason for b in torch.compile.explain(fill, x).break_reasons)
