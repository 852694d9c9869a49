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
