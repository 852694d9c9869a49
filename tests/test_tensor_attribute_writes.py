"""Tensor attribute writes stay on CPython's specialised path (Note: no __delattr__ on Tensor,
tensor.py), and the private attributes torch exposes behave as torch's."""

import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def test_no_class_in_tensors_mro_overrides_attribute_writes():
    # a __setattr__ or __delattr__ anywhere in the MRO makes every ``t._x = v`` of the engine
    # take the generic slot-calling path (~7x slower per write, measured)
    for cls in (leafgrad.Tensor, leafgrad.nn.Parameter):
        for base in cls.__mro__[:-1]:
            assert "__setattr__" not in vars(base), base
            assert "__delattr__" not in vars(base), base


def _program(lib):
    out = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    out.append(type(y._grad_fn).__name__)
    out.append(y._grad_fn is y.grad_fn)
    y.sum().backward(retain_graph=True)
    out.append(x._grad.tolist())
    x._grad = lib.tensor([5.0, 6.0])
    out.append(x.grad.tolist())
    del x._grad
    out.append(x.grad)
    z = x * 2
    z._grad_fn = None
    out.append((z.grad_fn, z.requires_grad, z.is_leaf))
    leaf = lib.ones(2, requires_grad=True)
    leaf._grad_fn = None
    out.append((leaf.requires_grad, leaf.is_leaf))
    view = (x * 1)[0:1]
    for value in (x.grad_fn, (x * 4).grad_fn, None):
        try:
            (view if value is None else x * 5)._grad_fn = value
            out.append("set")
        except Exception as error:  # noqa: BLE001 - the type and first line are compared
            out.append((type(error).__name__, str(error).splitlines()[0]))
    out.append((view.requires_grad, type(view.grad_fn).__name__))
    for name in ("_grad_fn", "_backward_hooks"):
        try:
            delattr(y, name)
            out.append("deleted")
        except Exception as error:  # noqa: BLE001 - the type and message are compared
            out.append((type(error).__name__, str(error)))
    y._backward_hooks = None
    out.append(y._backward_hooks)
    return out


def test_private_attributes_as_torch():
    assert _program(leafgrad) == _program(torch)


@pytest.mark.parametrize("name", ["_grad_fn", "_grad"])
def test_parameter_private_attributes(name):
    mine = leafgrad.nn.Parameter(leafgrad.ones(2))
    theirs = torch.nn.Parameter(torch.ones(2))
    assert (getattr(mine, name) is None) == (getattr(theirs, name) is None)
