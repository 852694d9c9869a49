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


def _overlap_outcomes(m):
    cases = {
        "w[:] -= x, (1, 2)": lambda a: a.reshape(1, 6)[:].__isub__(1) and None,
        "data[:] -= x, (1, 1, 1, 6)": lambda a: _isub_setitem(a.reshape(1, 1, 1, 6).data),
        "setitem (1, 6) from itself": lambda a: _isub_setitem(a.reshape(1, 6)),
        "setitem (3, 1, 2) from itself": lambda a: _isub_setitem(a.reshape(3, 1, 2)),
        "setitem (6,) from itself": lambda a: _isub_setitem(a),
        "a[1:] = a[:-1]": lambda a: a[1:].copy_(a[:-1]),
        "a[:3] = a[3:]": lambda a: a[:3].copy_(a[3:]),
        "a.T[:] = a.T": lambda a: a.reshape(2, 3).T.__setitem__(slice(None), a.reshape(2, 3).T),
        "row from itself": lambda a: a.reshape(2, 3).__setitem__(0, a.reshape(2, 3)[0]),
    }
    outcomes = []
    for name, case in cases.items():
        a = m.arange(6.0)
        try:
            case(a)
            outcomes.append((name, a.tolist()))
        except RuntimeError as error:
            outcomes.append((name, str(error).split("\n")[0]))
    return outcomes


def _isub_setitem(t):
    t[:] -= 0.5  # Python: v = t[:]; v -= 0.5; t[:] = v (a full overlap torch allows)


def test_setitem_from_a_view_of_itself_with_size_one_dims():
    # d2l: conv2d.weight.data[:] -= lr * conv2d.weight.grad on a (1, 1, 1, 2) weight raised
    # "unsupported operation: some elements of the input tensor and the written-to tensor
    # refer to a single memory location"; torch copies
    assert _overlap_outcomes(lg) == _overlap_outcomes(torch)


def _index_reduce_warning_places(m):
    # A GCN script's index_reduce_ warned from leafgrad/_numpy_aliases.py (a fixed stacklevel
    # counted frames the keyword-alias wrapper adds); torch's warning names the caller's line.
    import warnings

    base, index, source = m.zeros(3, 2), m.tensor([0, 2, 0]), m.ones(3, 2)
    calls = [
        lambda: base.clone().index_reduce_(0, index, source, "amax", include_self=False),
        lambda: base.index_reduce(0, index, source, "prod"),
        lambda: m.index_reduce(base, 0, index, source, "mean"),
        lambda: base.index_reduce(dim=0, index=index, source=source, reduce="amin"),
    ]
    places = []
    m.set_warn_always(True)
    try:
        for call in calls:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                call()
            places.append([(w.filename, w.lineno, str(w.message).split(" (Triggered")[0])
                           for w in caught])
    finally:
        m.set_warn_always(False)
    return places


def test_index_reduce_warning_points_at_the_callers_line():
    assert _index_reduce_warning_places(lg) == _index_reduce_warning_places(torch)
