"""``type(x)`` prints as in torch: ``<class 'torch.Tensor'>``, ``<class 'MulBackward0'>``, ...

Tutorials print the types of what they build; torch's public classes name the module users
reach them by (``torch.Tensor``, not the file it is written in) and its autograd nodes are C++
classes without a module.
"""

import pickle

import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _objects(m):
    x = m.ones(2, requires_grad=True)
    y = x * 2
    z = x.clone()
    z[0] = 3.0
    return {
        "tensor": x,
        "tensor class": m.Tensor,
        "parameter": m.nn.Parameter(m.ones(1)),
        "dtype": m.float32,
        "complex dtype": m.complex64,
        "wide unsigned dtype": m.uint16,
        "size": x.shape,
        "size class": m.Size,
        "device": x.device,
        "generator": m.Generator(),
        "default generator": m.default_generator,
        "node": y.grad_fn,
        "accumulator": y.grad_fn.next_functions[0][0],
        "copy slices": z.grad_fn,
        "sum node": y.sum().grad_fn,
        "finfo": m.finfo(m.float32),
        "iinfo": m.iinfo(m.int32),
        "layout": m.strided,
        "memory format": m.contiguous_format,
        "untyped storage": x.untyped_storage(),
        "function metaclass": type(m.autograd.Function),
        "variable metaclass": type(m.autograd.Variable),
    }


NAMES = list(_objects(lg))


def _shown(value) -> str:
    cls = value if isinstance(value, type) else type(value)
    return repr(cls).replace("leafgrad", "torch")


@pytest.mark.parametrize("name", NAMES)
def test_type_prints_as_torch(name):
    assert _shown(_objects(lg)[name]) == _shown(_objects(torch)[name])


def test_set_grad_enabled_repr_and_generator_repr():
    try:
        got = repr(lg.set_grad_enabled(False))
        want = repr(torch.set_grad_enabled(False))
    finally:
        lg.set_grad_enabled(True)
        torch.set_grad_enabled(True)
    assert got.replace("leafgrad", "torch") == want
    assert repr(lg.Generator()).split(" at ")[0].replace("leafgrad", "torch") == \
        repr(torch.Generator()).split(" at ")[0]


def test_renamed_homes_still_pickle_and_import():
    x = lg.arange(6.0).reshape(2, 3)
    for value in (x, x.shape, lg.float32, lg.complex64, lg.uint16, lg.device("cpu"),
                  lg.Tensor, lg.Size, lg.dtype, lg.finfo, lg.storage.UntypedStorage):
        back = pickle.loads(pickle.dumps(value))
        if isinstance(value, lg.Tensor):
            assert lg.equal(back, value)
        else:
            assert back == value
    g = lg.Generator().manual_seed(7)
    h = pickle.loads(pickle.dumps(g))
    assert lg.equal(lg.rand(3, generator=h), lg.rand(3, generator=g))
    import leafgrad._C
    import leafgrad.storage

    assert leafgrad._C.Generator is lg.Generator
    assert leafgrad.storage.TypedStorage is lg.TypedStorage
