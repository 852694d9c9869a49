"""``grad_fn._sequence_nr()`` as torch numbers nodes: one counter that moves only when a node
is made (not when a leaf's accumulator is made, nor when backward or autograd.grad runs, nor
when a create_graph backward records index ops), an accumulator's number UINT64_MAX. The
engine runs ready nodes by this number, so hooks fire in torch's order."""

from __future__ import annotations

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _numbers(lib):
    a = lib.ones(3, requires_grad=True)
    b = lib.ones(3, requires_grad=True)
    x = a * 2
    first = x.grad_fn._sequence_nr()
    seen = [x.grad_fn]
    y = b * 2  # b's accumulator is made here
    z = (x * y).sum()
    seen += [y.grad_fn, z.grad_fn]
    z.backward(retain_graph=True)
    w = a.exp()
    seen.append(w.grad_fn)
    lib.autograd.grad(w.sum(), a)
    idx = lib.tensor([0, 2, 1])
    g = a.gather(0, idx)  # an index op: its create_graph backward records nodes too
    (gg,) = lib.autograd.grad(g.pow(2).sum(), a, create_graph=True)
    seen.append(gg.grad_fn)
    v = a * 3
    seen.append(v.grad_fn)
    accumulator = x.grad_fn.next_functions[0][0]
    return [n._sequence_nr() - first for n in seen], accumulator._sequence_nr()


def test_sequence_numbers_match_torch():
    assert _numbers(leafgrad) == _numbers(torch)


def test_accumulator_number_is_uint64_max():
    a = leafgrad.ones(2, requires_grad=True)
    assert (a * 2).grad_fn.next_functions[0][0]._sequence_nr() == 2**64 - 1
