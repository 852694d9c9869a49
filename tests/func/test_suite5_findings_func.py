"""torch.func behaviours found by replaying functorch's test_eager_transforms.py (from the
autograd.Function vmap API on) and test_vmap.py as programs run under torch and leafgrad; each
program's observations must be identical."""

from __future__ import annotations

from ..test_suite4_findings import _outcome, _same, _seen


def _functions(m):
    """An old-style Function (forward(ctx, x)) and a new-style one (setup_context)."""

    class Old(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class New(m.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 2

    return Old, New


def test_functions_in_transforms_need_setup_context_and_run_as_generated():
    """Inside grad/vjp/jacrev/jvp/vmap torch refuses a Function without setup_context, and runs
    one with it as a generated Function whose node is <Name>GeneratedBackward."""

    def program(m):
        f = m.func
        seen = []
        for dtype in ("float32", "float64"):
            x = m.linspace(-1, 1, 3, dtype=getattr(m, dtype))
            Old, New = _functions(m)
            for cls in (Old, New):
                names = []

                def fn(x):
                    y = cls.apply(x)
                    names.append(None if y.grad_fn is None else (
                        y.grad_fn.name(), type(y.grad_fn).__name__,
                        type(y.grad_fn)._forward_cls.__name__))
                    return y

                calls = [lambda: f.grad(lambda x: fn(x).sum())(x),
                         lambda: f.vjp(fn, x)[1](x),
                         lambda: f.jacrev(fn)(x),
                         lambda: f.jvp(fn, (x,), (x,)),
                         lambda: f.grad(f.grad(lambda x: fn(x).sum()))(x[0]),
                         lambda: f.vmap(lambda x: cls.apply(m.tensor(1.0)) + x)(x),
                         lambda: cls.apply(x.clone().requires_grad_()).grad_fn.name()]
                for call in calls:
                    names.clear()
                    seen.append((_outcome(call), list(names)))
        return seen

    _same(program)


def _rule(m, returns):
    class Rule(m.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def vmap(info, in_dims, x):
            return returns(x, in_dims)

    return Rule


def test_function_vmap_rule_with_several_outputs():
    """A Function's vmap rule may return several outputs (tuple or list) with out_dims a
    matching pytree or a single dim or None for all; a structure that does not match is
    refused with torch's error. A vmap input at in_dims=1 reaches the rule at dim 1."""

    def program(m):
        seen = []
        for dtype in ("float32", "float64"):
            kind = getattr(m, dtype)
            x = m.linspace(-1, 1, 6, dtype=kind).view(2, 3)
            cases = [
                lambda a, d: ((a * 2, a + 1), (0, 0)),
                lambda a, d: ((a * 2, a + 1), 0),
                lambda a, d: ((a * 2, a[0]), (0, None)),
                lambda a, d: ((m.zeros(3, dtype=kind), m.ones(3, dtype=kind)), None),
                lambda a, d: ([a * 2, a - 1], [0, 0]),
                lambda a, d: ([a * 2, a - 1], 0),
                lambda a, d: ((a.t(), a), (1, 0)),
                lambda a, d: ((a, a.sum(1)), (0, 0)),
                lambda a, d: ((a * 2, a), (0,)),
                lambda a, d: (a * 2, (None,)),
                lambda a, d: ([a * 2], (None,)),
                lambda a, d: ((a, [a * 2, a[0] + 1]), (0, [0, None])),
                lambda a, d: (a * 3, d[0]),
            ]
            for returns in cases:
                cls = _rule(m, returns)
                seen.append(_outcome(lambda: m.func.vmap(cls.apply)(x)))
                seen.append(_outcome(lambda: m.func.vmap(cls.apply, out_dims=1)(x)))
            for returns in [lambda a, d: (a * 3, d[0]), lambda a, d: ((a, d), (d[0], None)),
                            lambda a, d: ((a.sum(1 - d[0]), a * 2), (0, d[0]))]:
                cls = _rule(m, returns)  # rules that follow in_dims
                for in_dims, value in ((0, x), (1, x.t()), (-1, x.t()), (0, x.t())):
                    seen.append(_outcome(lambda: m.func.vmap(cls.apply, in_dims)(value)))

            class Pair(m.autograd.Function):
                @staticmethod
                def forward(x, y):
                    return x + y[0]

                @staticmethod
                def setup_context(ctx, inputs, output):
                    pass

                @staticmethod
                def vmap(info, in_dims, x, y):
                    seen.append((in_dims, type(in_dims).__name__, type(in_dims[1]).__name__,
                                 info.batch_size))
                    return (x, y), in_dims

            y = x[0]
            seen.append(_outcome(lambda: m.func.vmap(Pair.apply)(y, [y, y])))
            seen.append(_outcome(lambda: m.func.vmap(Pair.apply, in_dims=(0, [None, 0]))(
                y, [x[1], y * 2])))
            seen.append(_outcome(lambda: m.func.vmap(Pair.apply, in_dims=(None, [None, 0]))(
                y, [x[1], y * 2])))

            class Keyword(m.autograd.Function):
                @staticmethod
                def forward(x, *, y):
                    return x + y

                @staticmethod
                def setup_context(ctx, inputs, output):
                    pass

                @staticmethod
                def vmap(info, in_dims, x, *, y):
                    return x + y, 0

            seen.append(_outcome(lambda: m.func.vmap(Keyword.apply)(x, y=x[0])))
            seen.append(_outcome(lambda: m.func.vmap(Keyword.apply)(x, y=2.0)))
        return seen

    _same(program)


def test_tensor_reprs_inside_transforms():
    """Printed inside grad/vjp/jvp/vmap and their nestings, a tensor shows torch's wrappers
    (GradTrackingTensor, BatchedTensor with torch's level numbers), around the tensor as the
    caller's autograd sees it."""

    def program(m):
        f = m.func
        seen = []

        def show(x):
            y = x.sin() * 2
            seen.extend([repr(x), str(y), "%s" % (y,), repr(x.detach()), repr(x > 0),
                         repr(m.zeros(2)), repr([y])])
            return y.sum()

        for dtype in ("float32", "float64"):
            kind = getattr(m, dtype)
            x = m.linspace(-1, 1, 3, dtype=kind)
            xr = x.clone().requires_grad_()
            xn = (x * 1.5).requires_grad_()
            w = xn * 2  # a non-leaf requiring grad
            xs = m.linspace(-1, 1, 6, dtype=kind).view(2, 3)
            f.grad(show)(x)
            f.grad(show)(xr)
            f.grad(show)(w)
            f.vjp(show, x)
            f.vjp(show, xr)
            f.jvp(show, (x,), (x,))
            f.grad(f.grad(show))(x[0])
            f.grad(f.grad(show))(xr[0])
            f.vmap(show)(xs)
            f.vmap(f.grad(show))(xs)
            f.grad(lambda x: f.vmap(show)(x).sum())(x)
            f.vmap(f.vmap(show))(xs)
            f.vmap(f.grad(f.grad(show)))(x)
            f.vmap(lambda x: seen.append(repr(x)) or x, in_dims=1)(xs)
            f.vmap(lambda x: seen.append(repr(x)) or x, in_dims=-1)(xs)
            f.jacrev(show)(x)
            for source in (x, x.double()):  # a transform's input is a leaf of its level
                def leaf(x):
                    y = x * 2
                    seen.append((x.requires_grad, x.grad_fn, x.is_leaf, y.requires_grad,
                                 y.is_leaf, y.grad_fn.name()))
                    return y.sum()

                f.grad(leaf)(source)
                f.vjp(leaf, source)
                # (left out: nested grad, whose inner input leafgrad makes as a view of the
                # outer one, so it shows ViewBackward0 as its grad_fn where torch shows None)
        seen.append(repr(x))  # outside again
        return [s.replace("leafgrad.", "torch.") if isinstance(s, str) else s for s in seen]

    _same(program)


def test_jacobian_outputs_and_argnums_checked_as_torch():
    """jvp/jacfwd refuse an empty output (torch's "non-empty output" error) and name non-tensor
    outputs in torch's words; argnums tuples name the bad element; a bool argnum is an int;
    jacfwd of a Python number fails on its numel, as torch's."""

    def program(m):
        f = m.func
        seen = []
        for dtype in ("float32", "float64"):
            x = m.linspace(-1, 1, 3, dtype=getattr(m, dtype))
            for output in [None, (), [], {}, 1, True, 12.2, "abc", (x, 1), [x, None], [x],
                           (x, [x * 2])]:
                seen.append(_outcome(lambda: f.jvp(lambda _: output, (x,), (x,))))
                seen.append(_outcome(lambda: f.jacfwd(lambda _: output)(x)))
                seen.append(_outcome(lambda: f.jacrev(lambda _: output)(x)))
                seen.append(_outcome(lambda: f.jvp(lambda x: (output, x), (x,), (x,),
                                                   has_aux=True)))
            for argnums in [(1.0,), (0, 1.0), (0, True), (True,), True, [0], (0, (1,)), (),
                            (0, 0), (0, -2), 2, -3, 1.0]:
                for api in (f.grad, f.grad_and_value, f.jacrev, f.jacfwd):
                    seen.append(_outcome(lambda: api(lambda a, b: (a * b).sum(),
                                                     argnums=argnums)(x, x)))
            seen.append(_outcome(lambda: f.jacfwd(lambda x: x)(1.0)))
            seen.append(_outcome(lambda: f.jacrev(lambda x: x)(1.0)))
        return seen

    _same(program)
