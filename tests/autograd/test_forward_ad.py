"""``autograd.forward_ad``: the same programs under torch and leafgrad, compared observation by
observation (values, reprs, tangent identities, exception types and first message lines).

The JVP of every op is checked by tests/ops/test_forward_ad_table.py; this file covers the API:
levels, make_dual/unpack_dual and their errors, printing, views and in-place ops on dual
tensors, tangents vanishing at exit, gradients inside a level, and Hessian-vector products.
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch
from ._differential import observe as _observe

torch = require_torch()


PROGRAMS = {}


def program(function):
    PROGRAMS[function.__name__] = function
    return function


def _values(tensor):
    return None if tensor is None else tensor.detach().numpy(force=True).tolist()


# -- levels ----------------------------------------------------------------------------------------


@program
def levels(lib, note):
    fw = lib.autograd.forward_ad
    note(lambda: fw._current_level)
    note(lambda: fw.exit_dual_level())
    note(lambda: fw.enter_dual_level())
    note(lambda: fw._current_level)
    note(lambda: fw.enter_dual_level())  # nested
    note(lambda: fw.exit_dual_level(level=1))
    note(lambda: fw.exit_dual_level(level=0))
    note(lambda: fw._current_level)
    with fw.dual_level() as level:
        note(lambda: level)
        note(lambda: fw._current_level)

        def nested():
            with fw.dual_level():
                pass

        note(nested)
    note(lambda: fw._current_level)
    note(lambda: fw.enter_dual_level())  # levels are numbered from 0 again
    fw.exit_dual_level()


@program
def dual_level_as_decorator(lib, note):
    fw = lib.autograd.forward_ad

    @fw.dual_level()
    def jvp_of_sin(x, v):
        return fw.unpack_dual(fw.make_dual(x, v).sin()).tangent

    note(lambda: repr(jvp_of_sin(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0]))))
    note(lambda: fw._current_level)


# -- make_dual / unpack_dual -----------------------------------------------------------------------


@program
def make_dual_errors(lib, note):
    fw = lib.autograd.forward_ad
    x, t = lib.tensor([1.0, 2.0]), lib.tensor([0.5, 0.25])
    note(lambda: fw.make_dual(x, t))  # no level
    with fw.dual_level():
        note(lambda: fw.make_dual(x, lib.ones(3)))
        note(lambda: fw.make_dual(x, lib.ones(3, 2)))
        note(lambda: fw.make_dual(lib.ones(1), lib.tensor(1.0)))
        note(lambda: fw.make_dual(lib.tensor([1, 2]), t))
        note(lambda: fw.make_dual(x, lib.tensor([1, 2])))
        note(lambda: fw.make_dual(lib.tensor([True]), lib.tensor([True])))
        note(lambda: fw.make_dual(x, t, level=1))
        note(lambda: fw.make_dual(x, t, level=-1))
        d = fw.make_dual(x, t)
        note(lambda: fw.make_dual(d, t))  # already dual
        note(lambda: fw.make_dual(lib.ones(2), d))  # the tangent is dual
        note(lambda: fw.make_dual([1.0], t))
        note(lambda: fw.make_dual(x, 1.0))
        note(lambda: repr(fw.make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2))))


@program
def make_dual_aliases_the_primal(lib, note):
    fw = lib.autograd.forward_ad
    x, t = lib.tensor([1.0, 2.0]), lib.tensor([0.5, 0.25])
    with fw.dual_level():
        d = fw.make_dual(x, t)
        note(lambda: (repr(d), str(d)))
        note(lambda: (d._base is x, d.grad_fn is None, d.requires_grad, d.is_leaf))
        note(lambda: d.data_ptr() == x.data_ptr())
        unpacked = fw.unpack_dual(d)
        note(lambda: (type(unpacked).__name__, unpacked._fields, repr(unpacked)))
        note(lambda: (unpacked.tangent is t, unpacked.primal is d, unpacked.primal._base is x))
        note(lambda: (unpacked[0] is unpacked.primal, unpacked[1] is unpacked.tangent))
        x.mul_(2)  # the dual shares the primal's memory
        note(lambda: repr(d))


@program
def make_dual_of_a_tensor_requiring_grad(lib, note):
    fw = lib.autograd.forward_ad
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(x, lib.tensor([3.0, 4.0]))
        note(lambda: (repr(d), d.grad_fn.name(), d.requires_grad, d._base is x))
        note(lambda: d.grad_fn.next_functions[0][0] is x.grad_fn)
        primal = fw.unpack_dual(d).primal
        note(lambda: (repr(primal), primal.grad_fn.name(), type(primal.grad_fn).__name__))
        note(lambda: primal.grad_fn.next_functions[0][0] is d.grad_fn)
        primal.sum().backward()
        note(lambda: repr(x.grad))
        (d * d).sum().backward()
        note(lambda: repr(x.grad))


@program
def tangent_requiring_grad(lib, note):
    fw = lib.autograd.forward_ad
    t = lib.tensor([0.5, 0.25], requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(lib.tensor([1.0, 2.0]), t)
        note(lambda: (repr(d), d.requires_grad))
        y = d.exp()
        note(lambda: repr(y))
        tangent = fw.unpack_dual(y).tangent
        note(lambda: (repr(tangent), tangent.grad_fn.name()))
        tangent.sum().backward()
        note(lambda: repr(t.grad))
        note(lambda: d.mul_(2))  # the tangent (a leaf requiring grad) is updated in place
        note(lambda: (repr(d), d._version))


@program
def tangent_layout(lib, note):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        primal = lib.zeros(3, 4)
        same = lib.arange(12.0).view(3, 4)
        d = fw.make_dual(primal, same)
        note(lambda: fw.unpack_dual(d).tangent is same)
        other = lib.ones(4, 3).t()
        e = fw.make_dual(lib.zeros(3, 4), other)
        tangent = fw.unpack_dual(e).tangent
        note(lambda: (tangent is other, tangent.stride(), tangent.is_contiguous()))
        transposed = lib.zeros(4, 3).t()
        f = fw.make_dual(transposed, lib.ones(3, 4))
        note(lambda: (fw.unpack_dual(f).tangent.stride(), _values(fw.unpack_dual(f).tangent)))


@program
def unpack_dual_outside_and_inside(lib, note):
    fw = lib.autograd.forward_ad
    x = lib.tensor([1.0, 2.0])
    outside = fw.unpack_dual(x)
    note(lambda: (outside.primal is x, outside.tangent))
    note(lambda: repr(fw.unpack_dual(x, level=0)))
    note(lambda: fw.unpack_dual(x, level=0).primal._base is x)
    with fw.dual_level():
        plain = fw.unpack_dual(x)
        note(lambda: (plain.primal is x, plain.primal._base is x, plain.tangent))
        note(lambda: repr(fw.unpack_dual(x, level=1)))
        note(lambda: fw.unpack_dual([1.0]))
        note(lambda: repr(fw.unpack_dual(x, level=0)))
        d = fw.make_dual(x, lib.ones(2))
        note(lambda: fw.unpack_dual(d, level=1))
        note(lambda: repr(fw.unpack_dual(d, level=-1)))
        primal = fw.unpack_dual(d).primal
        note(lambda: (repr(primal), repr(primal[0]), repr(primal.view(2, 1))))
        y = d * 3
        note(lambda: (repr(fw.unpack_dual(y).primal), repr(fw.unpack_dual(y).primal[1])))
        first, second = fw.unpack_dual(d), fw.unpack_dual(d)
        note(lambda: (first.primal is second.primal, first.tangent is second.tangent))
    note(lambda: repr(fw.unpack_dual(d)))


# -- printing --------------------------------------------------------------------------------------


@program
def printing(lib, note):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        note(lambda: repr(fw.make_dual(lib.tensor(2.0), lib.tensor(3.0))))
        note(lambda: repr(fw.make_dual(lib.tensor(2.0), lib.tensor(3.0)) * 4))
        note(lambda: repr(fw.make_dual(lib.ones(0), lib.ones(0))))
        note(lambda: repr(fw.make_dual(lib.ones(2, 3), lib.arange(6.0).view(2, 3))))
        note(lambda: repr(fw.make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2)) + 1))
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        note(lambda: repr(fw.make_dual(x, lib.ones(2)).exp()))
        note(lambda: repr(fw.make_dual(x, lib.ones(2)) * 2))
        note(lambda: str(fw.make_dual(lib.ones(40), lib.ones(40)) / 3))
        note(lambda: f"{fw.make_dual(lib.tensor(2.5), lib.tensor(1.0)):.2f}")
        d = fw.make_dual(lib.tensor([1.0, -1.0]), lib.tensor([1.0, 1.0]))
        note(lambda: (repr(d > 0), repr(d.long()), repr(d.argmax())))
        note(lambda: (repr(d.detach()), repr(d.data), d.tolist()))
    note(lambda: repr(d))


# -- what carries a tangent ------------------------------------------------------------------------


@program
def ops_on_dual_tensors(lib, note):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        a = fw.make_dual(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([0.1, 0.2, 0.3]))
        b = lib.tensor([4.0, 5.0, 6.0])
        for value in (a + b, b * a, a / b, a.pow(2), (a @ b), lib.stack([a, b]), a.exp().sum(),
                      a.clone(), a.float(), a.to(lib.float64), a.view(3, 1).expand(3, 2),
                      lib.where(a > 2, a, b), a.max(), a.sort(descending=True).values):
            note(lambda value=value: (repr(value), _values(fw.unpack_dual(value).tangent)))
        plain = lib.zeros(3) + b
        note(lambda: fw.unpack_dual(plain).tangent)
        note(lambda: (repr(lib.zeros_like(a)), repr(a.new_zeros(2)), repr(a.new_ones(2))))


@program
def mixed_dtypes(lib, note):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(lib.ones(2), lib.ones(2, dtype=lib.float64))
        note(lambda: repr(fw.unpack_dual(d).tangent))
        note(lambda: repr(fw.unpack_dual(d.exp()).tangent))
        note(lambda: repr(fw.unpack_dual(d.sum()).tangent))
        e = fw.make_dual(lib.ones(2), lib.ones(2))
        note(lambda: repr(e + lib.ones(2, dtype=lib.float64)))
        note(lambda: repr(e * lib.ones(2, dtype=lib.float64)))
        note(lambda: repr(e.double()))


# -- views and in-place ops ------------------------------------------------------------------------


@program
def views_share_the_tangent(lib, note):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        tangent = lib.arange(12.0).view(3, 4)
        d = fw.make_dual(lib.zeros(3, 4), tangent)
        row = d[1]
        row_tangent = fw.unpack_dual(row).tangent
        note(lambda: (repr(row), row_tangent._base is tangent))
        row_tangent.mul_(0)  # the view's tangent is a view of the base's
        note(lambda: repr(d))
        d.add_(fw.make_dual(lib.zeros(3, 4), lib.full((3, 4), 5.0)))
        note(lambda: repr(row))  # updated in place: the row's tangent sees it
        note(lambda: fw.unpack_dual(d).tangent is tangent)


@program
def inplace_on_dual_and_plain(lib, note):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        b = fw.make_dual(lib.ones(3), lib.ones(3))
        tangent = fw.unpack_dual(b).tangent
        b.mul_(3)
        note(lambda: (repr(b), fw.unpack_dual(b).tangent is tangent, b._version))
        c = lib.ones(3)
        c.add_(fw.make_dual(lib.ones(3), lib.full((3,), 2.0)))
        note(lambda: repr(c))
        broadcast = lib.zeros(2, 3)
        broadcast.add_(fw.make_dual(lib.ones(3), lib.full((3,), 2.0)))
        note(lambda: repr(broadcast))
        s = lib.zeros(3)
        s[1] = fw.make_dual(lib.tensor(5.0), lib.tensor(7.0))
        note(lambda: repr(s))
        s2 = fw.make_dual(lib.zeros(3), lib.ones(3))
        s2[0] = 4.0
        note(lambda: repr(s2))
        p = fw.make_dual(lib.zeros(3), lib.ones(3))
        p.copy_(lib.tensor([1.0, 2.0, 3.0]))
        note(lambda: repr(p))
        q = lib.zeros(3)
        source = fw.make_dual(lib.ones(3), lib.full((3,), 2.0))
        q.copy_(source)
        note(lambda: (repr(q), fw.unpack_dual(q).tangent is fw.unpack_dual(source).tangent))
        r = fw.make_dual(lib.ones(2), lib.ones(2))
        r.zero_()
        note(lambda: repr(r))
        lib.manual_seed(0)
        u = fw.make_dual(lib.ones(2), lib.ones(2))
        u.uniform_()
        note(lambda: repr(u))


@program
def inplace_on_a_view_of_a_plain_base(lib, note):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        base = lib.zeros(2, 3)
        base[0].copy_(fw.make_dual(lib.ones(3), lib.full((3,), 7.0)))
        note(lambda: repr(base))
        other = lib.zeros(2, 3)
        view = other[1]
        view.mul_(fw.make_dual(lib.full((3,), 2.0), lib.ones(3)))
        note(lambda: (repr(other), repr(view)))
        later = lib.zeros(4)
        early_view = later[:2]
        later.add_(fw.make_dual(lib.zeros(4), lib.arange(4.0)))
        note(lambda: repr(early_view))  # made before the base had a tangent


@program
def tangents_vanish_at_exit(lib, note):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]))
        y = x * x
        view = y[0]
    note(lambda: (repr(x), repr(y), repr(view)))
    note(lambda: (fw.unpack_dual(y).tangent, fw.unpack_dual(view).tangent))
    with fw.dual_level():
        note(lambda: (fw.unpack_dual(y).tangent, repr(y * 2)))


@program
def disabling_forward_grad(lib, note):
    fw = lib.autograd.forward_ad
    note(lambda: fw._is_fwd_grad_enabled())
    with fw.dual_level():
        d = fw.make_dual(lib.ones(2), lib.ones(2))
        with fw._set_fwd_grad_enabled(False):
            note(lambda: (repr(d * 2), fw._is_fwd_grad_enabled(), repr(d)))
            note(lambda: repr(fw.unpack_dual(d)))
        note(lambda: (repr(d * 2), fw._is_fwd_grad_enabled()))


# -- gradients and second order --------------------------------------------------------------------


@program
def gradients_inside_a_level(lib, note):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        x = lib.ones(2, requires_grad=True)
        dx = fw.make_dual(x, lib.ones(2) * 3)
        (dx * dx).sum().backward()
        note(lambda: repr(x.grad))
        (dx * dx).sum().backward()
        note(lambda: repr(x.grad))
        (g,) = lib.autograd.grad((dx * dx).sum(), x)
        note(lambda: repr(g))
        (g,) = lib.autograd.grad((dx * dx).sum(), dx)
        note(lambda: repr(g))
        (g,) = lib.autograd.grad(dx.exp().sum(), dx)
        note(lambda: repr(g))
        y = dx * 2
        y.retain_grad()
        (y * y).sum().backward()
        note(lambda: repr(y.grad))


def _loss(lib, x):
    a = lib.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], dtype=lib.float64)
    return (lib.tanh(a @ x) ** 2).sum() + x.sin().prod()


@program
def hessian_vector_products(lib, note):
    fw = lib.autograd.forward_ad
    x0 = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64)
    v = lib.tensor([1.0, 0.5, -2.0], dtype=lib.float64)
    # forward-over-reverse
    with fw.dual_level():
        x = fw.make_dual(x0.clone().requires_grad_(), v)
        (g,) = lib.autograd.grad(_loss(lib, x), x)
        note(lambda: np.round(_values(fw.unpack_dual(g).tangent), 10).tolist())
    # reverse-over-forward
    x = x0.clone().requires_grad_()
    with fw.dual_level():
        jvp = fw.unpack_dual(_loss(lib, fw.make_dual(x, v))).tangent
    (hvp,) = lib.autograd.grad(jvp, x)
    note(lambda: np.round(_values(hvp), 10).tolist())
    # reverse-over-reverse
    x = x0.clone().requires_grad_()
    (g,) = lib.autograd.grad(_loss(lib, x), x, create_graph=True)
    (hvp,) = lib.autograd.grad(g, x, v)
    note(lambda: np.round(_values(hvp), 10).tolist())


@program
def zero_tangent_terms_are_recorded(lib, note):
    """torch gives formulas zero tensors for inputs without a tangent; when something requires
    grad those terms are recorded, so the tangent shows torch's grad_fn (Note: zero tangents
    in ops/_forward.py)."""
    fw = lib.autograd.forward_ad
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    plain = lib.tensor([3.0, 4.0])
    with fw.dual_level():
        d = fw.make_dual(x, lib.tensor([0.5, 1.5]))
        for value in (d * 2, d + 1, d + plain, d * plain, plain * d, d / plain, plain / d,
                      d.pow(2), lib.where(d > 1.5, d, plain), lib.cat([d, plain]),
                      lib.stack([plain, d]).sum(0), d.clone()):
            note(lambda value=value: repr(value))
        e = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 1.5]))
        for value in (e * x, x * e, e + x, e * 2, e.exp()):
            note(lambda value=value: repr(value))
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        params = dict(model.named_parameters())
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fw.make_dual(p, lib.ones_like(p)))
        note(lambda: repr(fw.unpack_dual(model(lib.ones(4, 3))).tangent))


@program
def backward_through_a_tangent(lib, note):
    fw = lib.autograd.forward_ad
    x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
    t = lib.tensor([1.0, -1.0], dtype=lib.float64, requires_grad=True)
    with fw.dual_level():
        out = fw.make_dual(x, t).sigmoid() * x
        tangent = fw.unpack_dual(out).tangent
        note(lambda: repr(tangent))
        tangent.sum().backward()
    note(lambda: (repr(x.grad), repr(t.grad)))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matches_torch(name):
    ours = _observe(PROGRAMS[name], leafgrad)
    theirs = _observe(PROGRAMS[name], torch)
    assert ours == theirs


def test_no_level_leaves_the_hot_path_flag_off():
    fw = leafgrad.autograd.forward_ad
    assert not fw.state.active
    with fw.dual_level():
        assert fw.state.active
        x = fw.make_dual(leafgrad.ones(2), leafgrad.ones(2))
        assert fw.state.active  # restored after each op
        x.exp()
        assert fw.state.active
        with pytest.raises(RuntimeError):
            x.view(3)
        assert fw.state.active
    assert not fw.state.active and fw.state.level is None


def test_exit_frees_the_tangents():
    import gc
    import weakref

    fw = leafgrad.autograd.forward_ad
    x = leafgrad.ones(3)
    with fw.dual_level():
        tangent = leafgrad.ones(3)
        y = fw.make_dual(x, tangent).exp()
        ref = weakref.ref(fw.unpack_dual(y).tangent)
        del tangent
    gc.collect()
    assert ref() is None and fw.unpack_dual(y).tangent is None
