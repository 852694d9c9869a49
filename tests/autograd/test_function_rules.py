"""Custom ``autograd.Function``, completed: the setup_context style, keyword arguments,
mark_dirty, mark_non_differentiable, set_materialize_grads, needs_input_grad, inputs returned
as they are, what backward may return, vjp, once_differentiable and jvp (forward mode).
Every program runs under torch and leafgrad; their observations must be equal."""

from __future__ import annotations

import pytest

import leafgrad

from .._torch import require_torch
from ._differential import observe

torch = require_torch()

PROGRAMS = {}


def program(function):
    PROGRAMS[function.__name__] = function
    return function


def _grads(tensors):
    return [None if t.grad is None else t.grad.tolist() for t in tensors]


# -- setup_context style and arguments -------------------------------------------------------------


def _scaled_product(lib):
    class ScaledProduct(lib.autograd.Function):
        @staticmethod
        def forward(x, y, scale=2.0):
            return x * y * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y, scale = inputs
            ctx.count = len(inputs)
            ctx.save_for_backward(x, y)
            ctx.save_for_forward(x, y)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            ctx.seen = ctx.needs_input_grad
            return grad * y * ctx.scale, grad * x * ctx.scale, None

        @staticmethod
        def jvp(ctx, x_t, y_t, scale_t):
            x, y = ctx.saved_tensors
            ctx.tangents = (x_t.tolist(), y_t.tolist(), scale_t)
            return (x_t * y + x * y_t) * ctx.scale

    return ScaledProduct


@program
def setup_context_style(lib, note):
    product = _scaled_product(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([3.0, 4.0])
    out = product.apply(x, y)
    note(lambda: (repr(out), out.grad_fn.name(), type(out.grad_fn).__name__, repr(out.grad_fn)))
    note(lambda: out.grad_fn.count)
    out.sum().backward()
    note(lambda: (_grads([x, y]), out.grad_fn.seen))
    note(lambda: repr(product.apply(x, y, scale=3.0)))
    note(lambda: repr(product.apply(x, y=y)))
    note(lambda: repr(product.apply(x, y, 0.5)))
    note(lambda: product.apply(x))
    note(lambda: product.apply(x, y, nope=1))


@program
def setup_context_needs_forward_without_ctx(lib, note):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    note(lambda: Wrong.apply(lib.ones(2, requires_grad=True)))


@program
def old_style_keyword_arguments(lib, note):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=1):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    note(lambda: repr(Scale.apply(x, k=3)))
    note(lambda: repr(Scale.apply(x)))
    out = Scale.apply(x, k=5)
    out.sum().backward()
    note(lambda: x.grad.tolist())


@program
def needs_input_grad(lib, note):
    class Seen(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, c, d):
            ctx.in_forward = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, grad):
            ctx.in_backward = ctx.needs_input_grad
            return grad, grad, None, None

    a = lib.ones(2, requires_grad=True)
    out = Seen.apply(a, lib.ones(2), 3, lib.ones(2, requires_grad=True))
    out.sum().backward()
    note(lambda: (out.grad_fn.in_forward, out.grad_fn.in_backward))
    with lib.no_grad():
        seen = Seen.apply(a, lib.ones(2), 3, lib.ones(2))
    note(lambda: (repr(seen), seen.requires_grad))


# -- in-place Functions ----------------------------------------------------------------------------


def _double_in_place(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

        @staticmethod
        def jvp(ctx, tangent):
            return tangent.mul_(2)

    return Double


@program
def mark_dirty(lib, note):
    double = _double_in_place(lib)
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    out = double.apply(b)
    note(lambda: (out is b, repr(out), b._version, out.grad_fn.name()))
    note(lambda: [None if n is None else n.name() for n, _ in out.grad_fn.next_functions])
    out.sum().backward()
    note(lambda: a.grad.tolist())
    plain = lib.tensor([1.0, 2.0])
    out = double.apply(plain)
    note(lambda: (out is plain, repr(out), plain._version))
    note(lambda: double.apply(a))  # a leaf that requires grad
    note(lambda: (repr(a), a._version))
    with lib.no_grad():
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        note(lambda: repr(double.apply(leaf)))


@program
def mark_dirty_on_views(lib, note):
    double = _double_in_place(lib)
    v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    note(lambda: double.apply(v[:2]))  # a view of a leaf that requires grad
    note(lambda: (repr(v), v._version))
    w = v * 1
    view = w[:2]
    out = double.apply(view)
    note(lambda: (out is view, repr(out), repr(w), w.grad_fn.name(), view.grad_fn.name()))
    (w * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
    note(lambda: v.grad.tolist())


@program
def mark_dirty_rules(lib, note):
    class NotReturned(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return grad

    class NotAnInput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_dirty(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            return grad

    class AddInto(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            x.add_(y)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad, grad * 3

    c = lib.tensor([1.0, 2.0], requires_grad=True) * 1
    note(lambda: NotReturned.apply(c))
    note(lambda: repr(NotAnInput.apply(c)))
    a, b = lib.zeros(2), lib.ones(2, requires_grad=True)
    out = AddInto.apply(a, b)
    note(lambda: (out is a, repr(out), a.is_leaf, a._version))
    note(lambda: [None if n is None else n.name() for n, _ in out.grad_fn.next_functions])
    out.sum().backward()
    note(lambda: b.grad.tolist())


# -- outputs ---------------------------------------------------------------------------------------


@program
def non_differentiable_outputs(lib, note):
    class Three(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            z = x * 3
            ctx.mark_non_differentiable(z)
            return x * 2, z, x.argmax()

        @staticmethod
        def backward(ctx, grad_y, grad_z, grad_index):
            ctx.grads = [None if g is None else g.tolist() for g in
                         (grad_y, grad_z, grad_index)]
            return grad_y * 2

    class Lazy(Three):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return Three.forward(ctx, x)

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    for cls in (Three, Lazy):
        y, z, index = cls.apply(x)
        note(lambda: (repr(y), repr(z), repr(index), z.requires_grad, index.requires_grad))
        y.sum().backward()
        note(lambda: (y.grad_fn.grads, x.grad.tolist()))
        note(lambda: z.sum().backward())


@program
def inputs_returned_as_they_are(lib, note):
    class Same(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 3

    class SameNonDifferentiable(Same):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(x)
            return x

    for cls in (Same, SameNonDifferentiable):
        for grad_mode in (True, False):
            for requires_grad in (True, False):
                x = lib.tensor([1.0, 2.0], requires_grad=requires_grad)
                with lib.set_grad_enabled(grad_mode):
                    out = cls.apply(x)
                note(lambda: (out is x, out._base is x, out.requires_grad, repr(out),
                              out.data_ptr() == x.data_ptr()))
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    note(lambda: lib.autograd.grad(Same.apply(x).sum(), x)[0].tolist())
    ints = lib.tensor([1, 2])
    note(lambda: (Same.apply(ints) is ints, Same.apply(ints)._base is ints))


@program
def mixed_outputs(lib, note):
    class Pair(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return 5, x * 2, None

        @staticmethod
        def backward(ctx, a, b, c):
            ctx.seen = (a, None if b is None else b.tolist(), c)
            return b

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    number, doubled, nothing = Pair.apply(x)
    note(lambda: (number, repr(doubled), nothing, doubled.grad_fn.name()))
    doubled.sum().backward()
    note(lambda: (doubled.grad_fn.seen, x.grad.tolist()))


@program
def saved_tensors(lib, note):
    class SaveInt(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad

    class SaveNone(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(x, None, y)
            return y

        @staticmethod
        def backward(ctx, grad):
            x, nothing, y = ctx.saved_tensors
            ctx.seen = (nothing, y.grad_fn is ctx, x.grad_fn)
            return grad * y

    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    note(lambda: SaveInt.apply(x))
    out = SaveNone.apply(x)
    out.sum().backward()
    note(lambda: (out.grad_fn.seen, x.grad.tolist()))
    note(lambda: out.grad_fn.saved_tensors)


# -- what backward returns -------------------------------------------------------------------------


@program
def backward_results(lib, note):
    def make(result):
        class Made(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, grad):
                return result(grad)

        return Made

    x = lib.ones(2, requires_grad=True)
    for result in (lambda g: (g, None), lambda g: (g, None, None), lambda g: (g,),
                   lambda g: g, lambda g: (g, g), lambda g: (5, None), lambda g: (),
                   lambda g: (g.double(), None), lambda g: (g.sum(), None),
                   lambda g: (lib.ones(3), None), lambda g: (None, None)):
        function = make(result)
        note(lambda function=function: [
            repr(grad) for grad in lib.autograd.grad(function.apply(x, 2.0).sum(), x,
                                                     allow_unused=True)])


@program
def vjp_and_missing_backward(lib, note):
    class ByVjp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, grad):
            return grad * 5

    class Both(ByVjp):
        @staticmethod
        def backward(ctx, grad):
            return grad

    class Neither(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    x = lib.ones(2, requires_grad=True)
    note(lambda: lib.autograd.grad(ByVjp.apply(x).sum(), x)[0].tolist())
    note(lambda: lib.autograd.grad(Both.apply(x).sum(), x))
    note(lambda: Neither.apply(x).sum().backward())
    note(lambda: ByVjp()(x))


@program
def once_differentiable(lib, note):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            ctx.mode = lib.is_grad_enabled()
            return 2 * x * grad

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    note(lambda: (repr(g), g.requires_grad))
    y = Square.apply(x)
    (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    node = g.grad_fn
    note(lambda: (repr(g), node.name(), type(node).__name__, y.grad_fn.mode))
    note(lambda: [None if n is None else n.name() for n, _ in node.next_functions])
    note(lambda: lib.autograd.grad(g.sum(), x))
    note(lambda: g.sum().backward())
    (g,) = lib.autograd.grad(Square.apply(x).sum(), x)
    note(lambda: repr(g))
    note(lambda: Square.backward.__name__)


# -- forward mode ----------------------------------------------------------------------------------


@program
def jvp_setup_context_style(lib, note):
    fw = lib.autograd.forward_ad
    product = _scaled_product(lib)
    y = lib.tensor([3.0, 4.0])
    with fw.dual_level():
        d = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 1.0]))
        out = product.apply(d, y)
        note(lambda: (repr(out), out.grad_fn))
        both = product.apply(d, fw.make_dual(y, lib.ones(2)))
        note(lambda: repr(both))
        note(lambda: repr(product.apply(lib.ones(2), y)))


@program
def jvp_old_style(lib, note):
    fw = lib.autograd.forward_ad
    seen = []

    class SinCos(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, a, b):
            return a

        @staticmethod
        def jvp(ctx, tangent):
            (x,) = ctx.saved_tensors
            seen.append(("grad mode", lib.is_grad_enabled()))
            return tangent * x.cos(), -tangent * x.sin()

    class SavedForBackwardOnly(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad

        @staticmethod
        def jvp(ctx, tangent):
            seen.append(("saved", ctx.saved_tensors))
            return tangent * 2

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    with fw.dual_level():
        d = fw.make_dual(lib.tensor([0.5]), lib.tensor([2.0]))
        a, b = SinCos.apply(d)
        note(lambda: (repr(a), repr(b)))
        out = SavedForBackwardOnly.apply(d)
        note(lambda: repr(out))
        note(lambda: NoJvp.apply(d))
        note(lambda: repr(NoJvp.apply(lib.ones(1))))
        tangent = lib.tensor([2.0], requires_grad=True)
        e = fw.make_dual(lib.tensor([0.5]), tangent)
        note(lambda: repr(SavedForBackwardOnly.apply(e)))
        note(lambda: seen)


@program
def jvp_errors(lib, note):
    fw = lib.autograd.forward_ad

    def make(result):
        class Made(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x.argmax()

            @staticmethod
            def backward(ctx, a, b):
                return a

            @staticmethod
            def jvp(ctx, tangent):
                return result(tangent)

        return Made

    with fw.dual_level():
        for result in (lambda t: t, lambda t: (t * 2, None), lambda t: (t, t),
                       lambda t: (lib.ones(3), None), lambda t: (t, None, None)):
            d = fw.make_dual(lib.tensor([0.5, 1.0]), lib.tensor([2.0, 3.0]))
            note(lambda result=result, d=d: [repr(v) for v in make(result).apply(d)])


@program
def jvp_in_place(lib, note):
    fw = lib.autograd.forward_ad
    double = _double_in_place(lib)

    class OutOfPlaceJvp(double):
        @staticmethod
        def jvp(ctx, tangent):
            return tangent * 2

    with fw.dual_level():
        tangent = lib.tensor([2.0])
        d = fw.make_dual(lib.tensor([0.5]), tangent)
        out = double.apply(d)
        note(lambda: (out is d, repr(out), fw.unpack_dual(out).tangent is tangent,
                      tangent.tolist()))
        e = fw.make_dual(lib.tensor([0.5]), lib.tensor([2.0]))
        note(lambda: OutOfPlaceJvp.apply(e))
        note(lambda: repr(e))


@program
def forward_over_reverse_through_a_function(lib, note):
    fw = lib.autograd.forward_ad

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

        @staticmethod
        def jvp(ctx, tangent):
            return tangent * ctx.saved_tensors[0] if ctx.saved_tensors else None

    class ExpForward(Exp):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            ctx.save_for_forward(y)
            return y

    x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(x, lib.tensor([1.0, 2.0], dtype=lib.float64))
        out = ExpForward.apply(d)
        note(lambda: repr(out))
        (g,) = lib.autograd.grad((out * out).sum(), d)
        note(lambda: repr(g))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matches_torch(name):
    assert observe(PROGRAMS[name], leafgrad) == observe(PROGRAMS[name], torch)
