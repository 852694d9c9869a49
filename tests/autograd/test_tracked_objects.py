"""Note: interned meta (ops/registry.py). What a recorded op leaves for the cyclic garbage
collector to walk, counted on the issue-10 chain: its node, the node's children tuple, the
saved values and their dict; not one tuple per input's (shape, dtype)."""

import collections
import gc

import leafgrad as torch


def _tracked_by_type(steps):
    w = torch.tensor([0.5], requires_grad=True)
    b = torch.tensor([0.1], requires_grad=True)
    y = torch.tensor([1.0])

    def cycle(y):
        y = y * w
        y = y + b
        y = torch.tanh(y)
        return y * 1.7

    for _ in range(4):
        y = cycle(y)
    gc.collect()
    before = collections.Counter(type(o).__name__ for o in gc.get_objects())
    for _ in range(steps):
        y = cycle(y)
    gc.collect()
    after = collections.Counter(type(o).__name__ for o in gc.get_objects())
    return after - before, y


def test_a_recorded_op_leaves_under_four_tracked_objects():
    steps = 200
    grown, y = _tracked_by_type(steps)
    per_op = sum(grown.values()) / (4 * steps)
    # node 1, children tuple 1, SavedTensor 0.75, saved dict 0.5, version list 0.25,
    # kept input 0.25 (before interning: 1.5 (shape, dtype) pairs and 1 meta tuple more)
    assert per_op < 4.0, grown
    assert grown["tuple"] <= 4 * steps + 8, grown  # one children tuple per node
    y.sum().backward()  # the graph still runs


def test_equal_metas_are_shared_and_backward_checks_still_see_them():
    a = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(2, 3, requires_grad=True)
    x = a * b
    y = b * a
    assert x.grad_fn._input_meta is y.grad_fn._input_meta
    assert x.grad_fn._input_meta[0][0] == (2, 3)
    # broadcasting still reduces to each input's own shape
    c = torch.ones(3, dtype=torch.float64, requires_grad=True)
    (a.double() * c).sum().backward()
    assert c.grad.shape == (3,) and c.grad.dtype == torch.float64
    assert c.grad.tolist() == [2.0, 2.0, 2.0]
