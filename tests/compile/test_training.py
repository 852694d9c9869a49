"""20 compiled training steps leave the same weights, optimizer state and losses as 20 eager
steps (bitwise: the replay runs the same NumPy calls)."""

import numpy as np
import pytest

import leafgrad as torch
import leafgrad.nn.functional as F


def _mlp(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(12, 16), torch.nn.Tanh(), torch.nn.Linear(16, 8),
                               torch.nn.ReLU(), torch.nn.Linear(8, 3))


def _cnn(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                               torch.nn.Linear(4 * 4 * 4, 10))


OPTIMIZERS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.05),
    "sgd-momentum": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-3),
    "sgd-nesterov": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    "adam": lambda p: torch.optim.Adam(p, lr=1e-2),
    "adamw-amsgrad": lambda p: torch.optim.AdamW(p, lr=1e-2, amsgrad=True),
}


def _batches(shape, classes, count, seed):
    rng = np.random.default_rng(seed)
    return [(torch.tensor(rng.standard_normal(shape).astype(np.float32)),
             torch.tensor(rng.integers(0, classes, shape[0]))) for _ in range(count)]


def _run(make_model, optimizer_name, shape, compiled, zero_grad_first=True):
    model = make_model(0)
    optimizer = OPTIMIZERS[optimizer_name](model.parameters())

    def step(x, y):
        if zero_grad_first:
            optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if not zero_grad_first:
            optimizer.zero_grad()
        return loss

    run = torch.compile(step) if compiled else step
    losses = [run(x, y).detach().numpy().copy() for x, y in _batches(shape, 3, 20, 1)]
    return model, optimizer, losses, run


def _state(optimizer):
    out = []
    for group in optimizer.param_groups:
        for p in group["params"]:
            for key, value in sorted(optimizer.state.get(p, {}).items()):
                out.append((key, np.asarray(value._data if hasattr(value, "_data") else value)))
    return out


@pytest.mark.parametrize("optimizer_name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("zero_grad_first", [True, False])
def test_mlp_steps_match_eager(optimizer_name, zero_grad_first):
    eager = _run(_mlp, optimizer_name, (6, 12), False, zero_grad_first)
    compiled = _run(_mlp, optimizer_name, (6, 12), True, zero_grad_first)
    run = compiled[3]
    assert run.replays >= 18  # captured once or twice, replayed after
    for a, b in zip(eager[2], compiled[2]):
        np.testing.assert_array_equal(a, b)
    for pa, pb in zip(eager[0].parameters(), compiled[0].parameters()):
        np.testing.assert_array_equal(pa._data, pb._data)
        assert (pa.grad is None) == (pb.grad is None)
        if pa.grad is not None:
            np.testing.assert_array_equal(pa.grad._data, pb.grad._data)
    for (ka, va), (kb, vb) in zip(_state(eager[1]), _state(compiled[1])):
        assert ka == kb
        np.testing.assert_array_equal(va, vb)


@pytest.mark.parametrize("optimizer_name", ["sgd-momentum", "adam"])
def test_cnn_steps_match_eager(optimizer_name):
    eager = _run(_cnn, optimizer_name, (5, 1, 8, 8), False)
    compiled = _run(_cnn, optimizer_name, (5, 1, 8, 8), True)
    assert compiled[3].replays == 19
    for a, b in zip(eager[2], compiled[2]):
        np.testing.assert_array_equal(a, b)
    for pa, pb in zip(eager[0].parameters(), compiled[0].parameters()):
        np.testing.assert_array_equal(pa._data, pb._data)
        np.testing.assert_array_equal(pa.grad._data, pb.grad._data)
