"""torch.func behaviours found by replaying functorch's test_eager_transforms.py and test_vmap.py
and the open items of earlier suite helpers (autograd calls inside transforms, a batched
tensor's autograd flags, aten.alias, copy_'s tangent, jacfwd's argnums) as programs run under
torch and leafgrad; each program's observations must be identical."""

from __future__ import annotations

from ..test_suite4_findings import _outcome, _same, _seen


def _flags(t):
    return (t.requires_grad, t.is_leaf, None if t.grad_fn is None else t.grad_fn.name())


def _inside(m, kind, body, x):
    """``body(a)`` run inside the transform ``kind`` on ``x``'s stand-in ``a``."""

    def f(a):
        body(a)
        return a.sum()

    if kind == "vmap":
        return lambda: m.vmap(f)(x)
    if kind == "grad":
        return lambda: m.func.grad(f)(x)
    if kind == "vjp":
        return lambda: m.func.vjp(f, x)[0]
    if kind == "jvp":
        return lambda: m.func.jvp(f, (x,), (x,))
    if kind == "vmap(grad)":
        return lambda: m.vmap(m.func.grad(f))(x)
    if kind == "grad(vmap)":
        return lambda: m.func.grad(lambda y: m.vmap(f)(y).sum())(x)
    return lambda: m.vmap(m.vmap(f))(x.unsqueeze(-1))


KINDS = ("vmap", "grad", "vjp", "jvp", "vmap(grad)", "grad(vmap)", "vmap(vmap)")


def test_autograd_calls_inside_transforms():
    """Inside any transform torch refuses requires_grad_() (any tensor, any flag, before its
    leaf check), retain_grad() of a tensor requiring grad and backward() (any tensor), with
    its functorch messages; a factory's requires_grad= is accepted. A tensor whose outermost
    wrapper is a BatchedTensor does not require grad: retain_grad and register_hook refuse it,
    autograd.grad of it refuses (outputs first), .grad is None, detach() and the attribute
    setter are accepted."""

    def program(m):
        seen = []
        for dtype in ("float32", "float64"):
            kind_ = getattr(m, dtype)
            x = m.arange(6, dtype=kind_).view(2, 3) / 4
            xr = x.clone().requires_grad_()
            bodies = [
                lambda a: m.ones(2).requires_grad_(),
                lambda a: m.ones(2).requires_grad_(False),
                lambda a: m.ones(2, dtype=m.int64).requires_grad_(),
                lambda a: m.ones(2).requires_grad_("x"),
                lambda a: a.requires_grad_(),
                lambda a: a.requires_grad_(False),
                lambda a: (a * 2).requires_grad_(False),
                lambda a: setattr(m.ones(2), "requires_grad", True),
                lambda a: m.ones(2, requires_grad=True) * 2,
                lambda a: m.zeros(3, dtype=kind_, requires_grad=True).sum(),
                lambda a: a.retain_grad(),
                lambda a: (a * 2).retain_grad(),
                lambda a: m.ones(2).retain_grad(),
                lambda a: a.register_hook(lambda g: g),
                lambda a: (a * 2).sum().backward(),
                lambda a: (xr * 2).sum().backward(),
                lambda a: m.autograd.backward((xr * 2).sum()),
                lambda a: m.ones(2).sum().backward(),
                lambda a: seen.append(_flags(a.detach())),
                lambda a: seen.append((a * 2).detach().requires_grad),
            ]
            for kind in KINDS:
                for body in bodies:
                    seen.append((kind, _outcome(_inside(m, kind, body, x))))
            # a batched tensor (outermost wrapper) seen by autograd; an unbatched one inside
            # vmap is the caller's (inside a grad level torch lifts it: not compared here)
            for body, closure in [
                (lambda a: seen.append(_flags(a)), False),
                (lambda a: seen.append(_flags(a * 2)), False),
                (lambda a: seen.append(_flags((a * xr[0]).sum())), False),
                (lambda a: seen.append(_flags(xr * 2)), True),
                (lambda a: seen.append(a.grad is None), False),
                (lambda a: m.autograd.grad((a * xr[0]).sum(), xr), False),
                (lambda a: m.autograd.grad((a * xr[0]).sum(), a), False),
                (lambda a: m.autograd.grad((xr * xr).sum(), a), True),
                (lambda a: seen.append(_seen(m.autograd.grad((xr * xr).sum(), xr))), True),
                (lambda a: setattr(a, "requires_grad", True), False),
                (lambda a: (a * 2).register_hook(lambda g: g), False),
            ]:
                for inputs in (x, xr):
                    seen.append(_outcome(_inside(m, "vmap", body, inputs)))
                    seen.append(_outcome(_inside(m, "vmap(vmap)", body, inputs)))
                    if not closure:
                        seen.append(_outcome(_inside(m, "grad(vmap)", body, inputs)))
        return seen

    _same(program)


def test_transform_inputs_are_leaves_of_their_level():
    """A grad/vjp/jacrev input is a leaf of its level requiring grad, also when the caller's
    tensor requires grad (leafgrad showed the ViewBackward0 it records); under vmap(grad(f))
    the grad level's wrapper is outside, so it requires grad and ops on it have grad_fns."""

    def program(m):
        seen = []
        for dtype in ("float32", "float64"):
            for requires_grad in (False, True):
                x = (m.arange(6, dtype=getattr(m, dtype)) / 3).view(2, 3)
                x.requires_grad_(requires_grad)

                def f(a):
                    seen.append(_flags(a))
                    seen.append((a * 2).requires_grad)
                    seen.append((a * 2).is_leaf)
                    return (a * a).sum()

                seen.append(_outcome(lambda: m.func.grad(f)(x)))
                seen.append(_outcome(lambda: m.func.vjp(f, x)[0]))
                seen.append(_outcome(lambda: m.func.grad(m.func.grad(f))(x[0, 0])))
                seen.append(_outcome(lambda: m.vmap(m.func.grad(f))(x)))
                seen.append(_outcome(lambda: m.func.jacrev(f)(x)))
                seen.append(_outcome(lambda: m.func.grad_and_value(f)(x)))
        return seen

    _same(program)


def test_aten_alias():
    """torch.ops.aten.alias: a view of the whole tensor (AliasBackward0, shared memory and
    base), linear under forward AD, batched under vmap."""

    def program(m):
        seen = []
        alias = m.ops.aten.alias
        seen.append((alias.overloads(), str(alias.default), alias.default.name()))
        for dtype in ("float32", "float64", "int64", "bool", "complex64"):
            kind = getattr(m, dtype)
            for shape in ((), (0,), (3,), (2, 3)):
                x = m.ones(shape, dtype=kind)
                seen.append(_outcome(lambda: alias(x)))
                seen.append(_outcome(lambda: alias.default(x.t() if x.dim() == 2 else x)))
                y = alias(x)
                seen.append((y._base is x, y._is_view(), y.data_ptr() == x.data_ptr()))
                if dtype in ("float32", "float64", "complex64"):
                    xr = x.clone().requires_grad_()
                    z = alias(alias(xr))
                    seen.append((z.grad_fn.name(), z._base is xr,
                                 z.grad_fn.next_functions[0][0].name()))
                    seen.append(_outcome(lambda: m.autograd.grad(z.abs().sum(), xr)))
                    seen.append(_outcome(lambda: m.func.jvp(alias, (x,), (x * 2,))))
                if len(shape) == 2:
                    seen.append(_outcome(lambda: m.vmap(alias)(x)))
                    seen.append(_outcome(lambda: m.vmap(alias, in_dims=1)(x)))
        return seen

    _same(program)


def test_copy_tangent_of_a_target_without_one():
    """copy_ of a dual source into a tensor without a tangent (not a view): torch's
    set_fw_grad keeps a copy of the source's tangent in the source's dtype when its sizes and
    strides are the target's, else a tensor of the target's sizes, strides and dtype; a view
    target, or a target with a tangent, keep the target's dtype. Later in-place ops keep the
    tangent's dtype. jvp through copy_ gives the same tangents."""

    def program(m):
        fw = m.autograd.forward_ad
        seen = []

        def tangent(t):
            tg = fw.unpack_dual(t).tangent
            return None if tg is None else (str(tg.dtype).split(".")[-1], tuple(tg.shape),
                                            tg.stride(), _seen(tg))

        pairs = [("float64", "float32"), ("float32", "float32"), ("float32", "float64"),
                 ("float32", "float16"), ("float32", "bfloat16"), ("float64", "complex64"),
                 ("complex64", "complex128")]
        for source_dtype, target_dtype in pairs:
            source_kind, target_kind = getattr(m, source_dtype), getattr(m, target_dtype)
            with fw.dual_level():
                t = ((m.arange(6.0).view(2, 3) + 1) / 8).to(source_kind)
                s = fw.make_dual(m.arange(6.0).view(2, 3).to(source_kind), t)
                row = fw.make_dual(m.ones(3, dtype=source_kind), t[1])
                targets = [
                    lambda: m.zeros(2, 3, dtype=target_kind),
                    lambda: m.zeros(3, 2, dtype=target_kind).t(),
                    lambda: m.zeros(2, 3, dtype=target_kind)[:, :],
                    lambda: fw.make_dual(m.zeros(2, 3, dtype=target_kind),
                                         m.ones(2, 3, dtype=target_kind)),
                    lambda: m.zeros(2, 3, 2, dtype=target_kind)[..., 0],
                ]
                sources = [s, s.t().contiguous().t(), row, row.expand(2, 3)]
                for make in targets:
                    for source in sources:
                        d = make()
                        d.copy_(source)
                        seen.append(tangent(d))
                        base = d._base
                        seen.append(None if base is None else tangent(base))
                        d.mul_(2)
                        seen.append(tangent(d))
            seen.append(_outcome(lambda: m.func.jvp(
                lambda a: m.zeros(2, 3, dtype=target_kind).copy_(a), (s,), (t,))))
        return seen

    _same(program)


def test_jacfwd_argnums_none_and_positional_inputs():
    """jacfwd(argnums=None) differentiates every positional input (a tuple of Jacobians, aux
    and pytree inputs too; no inputs is torch's basis assertion); jacfwd, jacrev and hessian
    take positional inputs only (a keyword argument is the wrapper's TypeError, named after
    the function). The argnums checks of grad, jacrev, jacfwd and hessian agree (jacfwd's and
    hessian's negative argnums are left out: torch's _replace_args never matches them and
    returns zero Jacobians, which leafgrad does not copy)."""

    def program(m):
        f = m.func
        x = m.tensor([1.0, 2.0, 3.0])
        y = m.tensor([0.5, -1.0])
        seen = []
        seen.append(_outcome(lambda: f.jacfwd(lambda a: a.sin(), argnums=None)(x)))
        seen.append(_outcome(lambda: f.jacfwd(lambda a, b: a.sin() * b.sum(), argnums=None)(
            x, y)))
        seen.append(_outcome(lambda: f.jacfwd(lambda: x.sin(), argnums=None)()))
        seen.append(_outcome(lambda: f.jacfwd(lambda a, b: a.sin() * b, argnums=None)(x, 2.0)))
        seen.append(_outcome(lambda: f.jacfwd(lambda a, b: (a.sin() * b.sum(), a),
                                              argnums=None, has_aux=True)(x, y)))
        seen.append(_outcome(lambda: f.jacfwd(lambda a, b: a[0].sin() * b.sum() + a[1],
                                              argnums=None)((x, x), y)))
        for transform in (f.jacfwd, f.jacrev, f.hessian):
            seen.append(_outcome(lambda: transform(lambda a, b: a.sin().sum() * b.sum())(
                x, b=y)))
            seen.append(_outcome(lambda: transform(lambda a, b: a.sin().sum() * b.sum(),
                                                   argnums=None)(x, y)))

        def g(a, b):
            return (a.sin() * a).sum() * b.sum()

        for name in ("jacfwd", "jacrev", "hessian", "grad"):
            transform = getattr(f, name)
            for argnums in (0, 1, (0,), (1, 0), (0, 1), [0], (), (0, 0), 2, 0.0, (0.0,),
                            ((0, 1),), True, (True,), "0"):
                seen.append(_outcome(lambda: transform(g, argnums=argnums)(x, y)))
            if name not in ("jacfwd", "hessian"):  # (hessian is jacfwd(jacrev))
                for argnums in (-1, -2, -3, (0, -1), (-1, 1)):
                    seen.append(_outcome(lambda: transform(g, argnums=argnums)(x, y)))
        return seen

    _same(program)
