"""Random draws other than dropout replay: ``rand``/``randn``/``randint``/``randperm``/
``normal`` (default generator or ``generator=``), feature and alpha dropout and rrelu's
training slopes are recorded as kernels that the replay draws again, so values and the
generators' states after each call equal eager's, call after call."""

import numpy as np
import pytest

import leafgrad as torch
import leafgrad.nn.functional as F


def _bits(t):
    return np.ascontiguousarray(t.detach().numpy()).tobytes()


def _user_generator():
    g = torch.Generator()
    g.manual_seed(11)
    return g


PROGRAMS = {
    "randn": lambda x, g: x * torch.randn(3, 4) + torch.randn_like(x),
    "rand": lambda x, g: x + torch.rand(3, 4, dtype=torch.float64).float() * torch.rand_like(x),
    "randint": lambda x, g: x + torch.randint(0, 5, (3, 4)),
    "randperm": lambda x, g: x[torch.randperm(3)],
    "normal-size": lambda x, g: x + torch.normal(0.5, 2.0, size=(3, 4)),
    "normal-tensors": lambda x, g: x + torch.normal(x.detach(), x.detach().abs() + 0.1),
    "randn-generator": lambda x, g: x * torch.randn(3, 4, generator=g),
    "rand-generator": lambda x, g: x * torch.rand(3, 4, generator=g) + torch.rand(3, 4),
    "dropout2d": lambda x, g: F.dropout2d(x.reshape(1, 3, 2, 2), 0.4),
    "dropout1d": lambda x, g: F.dropout1d(x, 0.5),
    "alpha_dropout": lambda x, g: F.alpha_dropout(x, 0.3, training=True),
    "feature_alpha_dropout": lambda x, g: F.feature_alpha_dropout(x.reshape(3, 4, 1), 0.3,
                                                                  training=True),
    "dropout2d-p1": lambda x, g: F.dropout2d(x.reshape(1, 3, 2, 2), 1.0),
    "rrelu-train": lambda x, g: F.rrelu(x, training=True),
}


def _run(name, compiled):
    torch.manual_seed(3)
    g = _user_generator()
    fn = PROGRAMS[name]

    def step(x):
        y = fn(x, g)
        loss = (y * y).sum()
        loss.backward()
        return y.detach()

    run = torch.compile(step) if compiled else step
    rng = np.random.default_rng(0)
    out = []
    for _ in range(4):
        x = torch.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
        out.append(_bits(run(x)))
        out.append(_bits(x.grad))
    out.append(torch.random.get_rng_state().numpy().tobytes())
    out.append(np.asarray(getattr(g.get_state(), "_data", g.get_state())).tobytes())
    return out, run


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_random_draws_replay(name):
    torch.manual_seed(3)
    x = torch.ones(3, 4, requires_grad=True)
    g = _user_generator()
    explained = torch.compile.explain(lambda x: (PROGRAMS[name](x, g) ** 2).sum().backward(), x)
    assert explained.graph_break_count == 0, str(explained)
    eager, _ = _run(name, False)
    compiled, run = _run(name, True)
    assert run.replays == 3
    assert compiled == eager


def test_draw_between_recorded_draws_still_breaks():
    """A draw the capture cannot see (an in-place fill) between recorded draws: the
    generator would not be where the recorded draw left it, so the call runs eagerly."""
    def f(x):
        noise = torch.randn(3)
        x.detach().clone().normal_()
        return x * noise

    explained = torch.compile.explain(f, torch.ones(3))
    assert explained.graph_break_count >= 1


@pytest.mark.parametrize("case", ["seed", "set_state", "poisson-generator", "poisson-reseeded"])
def test_generator_changes_outside_recorded_draws_break(case):
    """A generator seeded or set inside the function, or drawn from outside a recorded draw
    (torch.poisson), even a user generator or when re-seeding makes the default generator
    end where it started: named by explain and run eagerly, never replayed stale."""
    g = _user_generator()
    state = torch.random.get_rng_state()

    def f(x):
        if case == "seed":
            torch.manual_seed(0)
            return x * torch.randn(3)
        if case == "set_state":
            torch.random.set_rng_state(state)
            return x * torch.randn(3)
        if case == "poisson-generator":
            return torch.poisson(x, generator=g)
        torch.manual_seed(0)
        return torch.poisson(x)

    explained = torch.compile.explain(f, torch.ones(3))
    assert explained.graph_break_count >= 1
    g.manual_seed(11)  # explain ran f once
    compiled = torch.compile(f)
    torch.manual_seed(0)
    out = [_bits(compiled(torch.full((3,), 4.0))) for _ in range(3)]
    assert compiled.replays == 0
    if case == "poisson-generator":
        g2 = _user_generator()
        assert out == [_bits(torch.poisson(torch.full((3,), 4.0), generator=g2))
                       for _ in range(3)]
