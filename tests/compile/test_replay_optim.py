"""A replayed SGD step runs as array code (_compile/replay_optim.py) and leaves what eager
``SGD.step`` leaves, bitwise (weights, momentum buffers, version counters); whatever the array
code does not cover after the capture (a new learning rate, momentum, weight decay, maximize
and Nesterov are covered; dampening, an int momentum, a tensor lr, step hooks, global hooks,
fused, another param group are not) gives eager's result through the method."""

import numpy as np
import pytest

import leafgrad as torch
import leafgrad.nn.functional as F
from leafgrad._compile import replay_optim


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 3))


def _batches(count):
    rng = np.random.default_rng(3)
    return [(torch.tensor(rng.standard_normal((4, 5)).astype(np.float32)),
             torch.tensor(rng.integers(0, 3, 4))) for _ in range(count)]


def _bits(array):
    return np.ascontiguousarray(array).tobytes()


def _change_lr(opt, model):
    opt.param_groups[0]["lr"] = 0.3


def _momentum(opt, model):
    opt.param_groups[0]["momentum"] = 0.9


def _weight_decay(opt, model):
    opt.param_groups[0]["weight_decay"] = 0.01


def _maximize(opt, model):
    opt.param_groups[0]["maximize"] = True


def _tensor_lr(opt, model):
    opt.param_groups[0]["lr"] = torch.tensor(0.05)


def _hook(opt, model):
    opt.register_step_post_hook(lambda o, args, kwargs: o.__dict__.setdefault("calls", [])
                                .append(1))


def _new_group(opt, model):
    opt.add_param_group({"params": [model.extra], "lr": 0.5})


_HANDLES = []


def _global_hooks(opt, model):
    from leafgrad.optim.optimizer import (register_optimizer_step_post_hook,
                                          register_optimizer_step_pre_hook)

    for register, mark in ((register_optimizer_step_pre_hook, "pre"),
                           (register_optimizer_step_post_hook, "post")):
        _HANDLES.append(register(lambda o, args, kwargs, mark=mark:
                                 o.__dict__.setdefault("calls", []).append(mark)))


def _fused(opt, model):
    opt.param_groups[0]["fused"] = True


def _nesterov(opt, model):
    opt.param_groups[0].update(momentum=0.9, nesterov=True)


def _everything(opt, model):
    opt.param_groups[0].update(momentum=0.8, nesterov=True, weight_decay=0.05, maximize=True)


def _momentum_decay(opt, model):
    opt.param_groups[0].update(momentum=0.5, weight_decay=0.1)


def _dampening(opt, model):
    opt.param_groups[0].update(momentum=0.9, dampening=0.25)


def _int_momentum(opt, model):
    opt.param_groups[0].update(momentum=1)


def _momentum_from_start(opt, model):
    pass  # (the optimizer is made with momentum: _run's ``start``)


def _run(compiled: bool, change, steps: int = 8, at: int = 4):
    model = _model()
    if change in (_momentum_from_start, _everything):
        model.double()
    start = dict(momentum=0.9) if change is _momentum_from_start else {}
    opt = torch.optim.SGD(model.parameters(), lr=0.1, **start)
    array_steps = []  # the replays' updates made by the array code
    original = replay_optim.sgd_step

    def counted(optimizer, params):
        done = original(optimizer, params)
        array_steps.append(done)
        return done

    replay_optim.sgd_step = counted  # (read when the replay's code is made)
    model.extra = torch.nn.Parameter(torch.ones(3))  # in the optimizer only after _new_group

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y) + (model.extra * model.extra).sum()
        loss.backward()
        opt.step()
        return loss

    run = torch.compile(step) if compiled else step
    losses, versions = [], []
    try:
        _steps(run, model, opt, change, steps, at, losses, versions)
    finally:
        replay_optim.sgd_step = original
    weights = [_bits(p._data) for p in model.parameters()]
    state = [(k, _bits(np.asarray(v._data)), v._version, v.dtype) for p in model.parameters()
             for k, v in sorted(opt.state.get(p, {}).items())]
    return losses, versions, weights, state, getattr(opt, "calls", None), run, array_steps


def _steps(run, model, opt, change, steps, at, losses, versions):
    for index, (x, y) in enumerate(_batches(steps)):
        if index == at and change is not None:
            change(opt, model)
        if change in (_momentum_from_start, _everything):
            x = x.double()
        losses.append(_bits(run(x, y).detach().numpy()))
        versions.append([p._version for p in model.parameters()])


CHANGES = [None, _change_lr, _momentum, _weight_decay, _maximize, _tensor_lr, _hook, _new_group,
           _global_hooks, _fused, _nesterov, _everything, _momentum_decay, _dampening,
           _int_momentum, _momentum_from_start]
# the changes after which the replay's array code still covers the step
COVERED = (None, _change_lr, _momentum, _weight_decay, _maximize, _nesterov, _everything,
           _momentum_decay, _momentum_from_start)


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: getattr(c, "__name__", "none"))
def test_replayed_sgd_step_matches_eager(change):
    try:
        eager = _run(False, change)
        for handle in _HANDLES:
            handle.remove()
        compiled = _run(True, change)
    finally:
        for handle in _HANDLES:
            handle.remove()
        _HANDLES.clear()
    assert compiled[:5] == eager[:5]
    assert compiled[5].replays >= 5
    if change in COVERED:  # every replay's update made by the array code
        assert compiled[6] and all(compiled[6]), compiled[6]
    else:  # from the change on, the method's
        assert not all(compiled[6]), compiled[6]


def test_a_differentiable_sgd_step_raises_as_eager_code_does():
    # the update of a leaf that requires grad, recorded: autograd's error, not a silent step
    outcomes = []
    for compiled in (False, True):
        def make_differentiable(opt, model):  # (what the step reads: the defaults, as torch)
            opt.defaults["differentiable"] = True

        try:
            _run(compiled, make_differentiable)
        except RuntimeError as error:
            outcomes.append(str(error).splitlines()[0])
        else:
            outcomes.append(None)
    assert outcomes[0] is not None and outcomes == [outcomes[0]] * 2
