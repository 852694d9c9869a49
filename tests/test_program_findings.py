"""Differences found by running people's torch programs with leafgrad as torch (d2l.ai,
pytorch/examples, nanoGPT, makemore): each test compares with torch."""

import pickle

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _types(m):
    t = m.ones(2, requires_grad=True)
    y = (t * 2).sum()
    objects = [t, m.ones(2), t.shape, t.dtype, t.device, m.finfo(m.float32), m.iinfo(m.int32),
               m.float32, m.strided, m.contiguous_format, y.grad_fn, y.grad_fn.next_functions[0][0]]
    return [str(type(o)).replace(m.__name__, "torch") for o in objects] + [
        m.Tensor.__module__.replace(m.__name__, "torch"), m.Size.__module__.replace(
            m.__name__, "torch")]


def test_public_classes_print_as_torchs():
    # d2l prints type(torch.from_numpy(a)): <class 'torch.Tensor'> (leafgrad printed
    # <class 'leafgrad.tensor.Tensor'>), and type(y.grad_fn): <class 'SumBackward0'>
    assert _types(lg) == _types(torch)


def test_public_classes_still_pickle():
    t = lg.tensor([1.0, 2.0])
    for value in (t.shape, t.dtype, t.device, lg.finfo(lg.float32), lg.strided,
                  lg.contiguous_format):
        assert pickle.loads(pickle.dumps(value)) == value
    assert pickle.loads(pickle.dumps(t)).tolist() == [1.0, 2.0]


def _optimizer_reprs(m):
    a, b = m.nn.Parameter(m.ones(2)), m.nn.Parameter(m.ones(1))
    optimizers = [m.optim.SGD([{"params": [a], "weight_decay": 3}, {"params": [b]}], lr=0.003),
                  m.optim.Adam([a], lr=0.1), m.optim.AdamW([a, b])]
    empty = m.optim.SGD([a], lr=0.1)
    empty.param_groups.clear()
    return [repr(o) for o in optimizers + [empty]]


def test_optimizer_repr_separates_groups_as_torch():
    # d2l's weight-decay section prints an SGD with two groups: torch puts a blank line
    # between them
    assert _optimizer_reprs(lg) == _optimizer_reprs(torch)
