"""torch.func behaviours found by replaying functorch's test_eager_transforms.py and test_vmap.py
and the open items of earlier suite helpers (autograd calls inside transforms, a batched
tensor's autograd flags, aten.alias, copy_'s tangent, jacfwd's argnums) as programs run under
torch and leafgrad; each program's observations must be identical."""

from __future__ import annotations

import collections
import functools

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


def test_vmap_api_as_torch():
    """torch's TestVmapAPI (test_vmap.py) as one program: no inputs or tensors, constant and
    list outputs, nesting with the same and different map dims, out= ops and torch.equal
    refused with torch's batching-rule errors, out_dims forms (negative, tuples, pytrees,
    dicts, None, a bool counts as an int; a non-int leaf refused before the inputs are read)
    and their errors, in_dims forms (nested tuples, dicts, lists, None, negative) and their
    errors (a bool in_dim is size()'s TypeError), item/control flow, kwargs, chunk_size
    (chunked whenever given, torch's float and empty-batch failures, cat's errors for
    non-tensor or out_dims=None outputs), functools.partial's name, empty batches (a full
    reduction of an empty batch), int and bool inputs. Views share memory as torch's do."""

    def program(m):
        vmap = m.vmap

        def rec(label, fn):
            seen.append((label, _outcome(fn)))

        seen = []
        def rec(label, fn):
            seen.append((label, _outcome(fn)))
        g = m.Generator().manual_seed(0)
        def rn(*s): return m.randn(*s, generator=g)
        x = rn(2, 3); y = rn(2, 3)
        rec("no inputs", lambda: vmap(lambda: m.ones(3))())
        rec("no inputs bar", lambda: vmap(lambda a: m.ones(3))())
        rec("no tensors", lambda: vmap(lambda a: m.ones(3), (None,))(1))
        rec("constant", lambda: vmap(lambda a: m.tensor(3.14))(m.ones(3)))
        rec("multiple outputs list1", lambda: vmap(lambda a: [a])(x))
        rec("nested same", lambda: vmap(vmap(m.mul))(rn(2, 3, 5), rn(2, 3, 5)))
        rec("nested diag_embed", lambda: vmap(vmap(m.diag_embed))(rn(3, 3, 5)))
        rec("nested different", lambda: vmap(lambda a: vmap(lambda b: a * b)(rn(5, 3)))(x))
        rec("noop inner", lambda: vmap(lambda a: vmap(lambda b: a)(rn(5)))(rn(3)))
        rec("out= op", lambda: vmap(lambda a, b: m.abs(a, out=b))(x, y))
        rec("equal", lambda: vmap(m.equal)(x, y))
        t = rn(2, 3)
        r = vmap(lambda a: a, out_dims=1)(t)
        seen.append(("outdims1 ptr", r.data_ptr() == t.data_ptr(), tuple(r.stride())))
        t4 = rn(2, 3, 5, 7)
        for od in (2, -1, 3, -4, 4, -5, (1,), (0, 1), None, "lol", ("lol",), 1.0, [1], True):
            rec(f"out_dims={od!r}", lambda: vmap(lambda a: a, out_dims=od)(t4))
        r = vmap(lambda a: a, out_dims=2)(t4)
        seen.append(("od2 ptr", r.data_ptr() == t4.data_ptr(), r.stride()))
        ndims = 64
        rec("64 dims", lambda: tuple(vmap(lambda a: a, out_dims=2)(
            rn(*([2] + [1] * (ndims - 1)))).shape))
        rec("multi out dims", lambda: vmap(lambda a, b: (a, a, a, a * b),
                                           out_dims=(-1, 0, 1, 2))(rn(2, 3, 5), rn(2, 3, 5)))
        rec("nested out dims", lambda: vmap(lambda b: vmap(lambda a: a, out_dims=1)(b),
                                            out_dims=1)(t4))
        rec("nested out dims neg", lambda: vmap(lambda b: vmap(lambda a: a, out_dims=-1)(b),
                                                out_dims=-1)(t4))
        rec("out none tuple", lambda: vmap(lambda a: (a, "hello"), out_dims=(0, None))(x))
        def f_add(a):
            a.add_(1)
            return None, "hello"
        rec("out none none", lambda: vmap(f_add, out_dims=(None, None))(x.clone()))
        rec("out none batched", lambda: vmap(lambda a: a, out_dims=None)(x))
        def f_add2(a):
            a.add_(1); return "hello"
        rec("out none str", lambda: vmap(f_add2, out_dims=None)(x.clone()))
        rec("arange", lambda: vmap(lambda a: m.arange(3))(x))
        rec("arange none", lambda: vmap(lambda a: m.arange(3), out_dims=None)(x))
        rec("pytree returns", lambda: vmap(
            lambda a: (a.sin(), (a.sin(), a.sin()), [a.sin(), (a, a)]))(x))
        def odict(a):
            return collections.OrderedDict([("sin", a.sin()), ("cos", a.cos())])

        rec("odict", lambda: type(vmap(odict)(x)).__name__)
        rec("odict vals", lambda: list(vmap(odict)(x).values()))
        rec("dict out", lambda: list(vmap(lambda a: {"b": a.sin(), "a": a.cos()})(x).items()))
        rec("dict out dims", lambda: list(vmap(lambda a: {"b": a.sin(), "a": a.cos()},
                                               out_dims={"b": 0, "a": 1})(x).items()))
        def nested(a):
            return a.sin(), (a.sin(), a.sin())

        rec("pytree outdims", lambda: vmap(nested, out_dims=(0, (0, 1)))(x))
        rec("pytree outdims bc", lambda: vmap(nested, out_dims=(0, 1))(x))
        rec("too many out", lambda: vmap(lambda a: a, out_dims=(0, 0))(x))
        rec("too many out3", lambda: vmap(lambda a: (a, a, a), out_dims=(0, 0, 0, 0))(x))
        rec("too few out", lambda: vmap(lambda a: (a, a), out_dims=(0,))(x))
        t3 = rn(2, 3, 5)
        r = vmap(lambda a: a, (1,))(t3)
        seen.append(("in1 ptr", r.data_ptr() == t3.data_ptr(), r.stride()))
        rec("mul 0 1", lambda: vmap(m.mul, (0, 1))(x, rn(3, 2)))
        rec("none in_dims", lambda: vmap(m.mul, (0, None))(x, y))
        rec("none in_dims number", lambda: vmap(m.mul, (0, None))(x, 2))
        rec("nested nondefault", lambda: vmap(vmap(vmap(m.mul), (1, 0)), (1, 2))(
            m.rand(5, 2, 3, generator=g), m.rand(3, 5, 2, generator=g)))
        rec("neg in dims", lambda: vmap(m.mul, (-1, -1))(x, y))
        r = vmap(lambda a: a, in_dims=2, out_dims=1)(t3)
        seen.append(("in2out1", r.data_ptr() == t3.data_ptr(), r.stride(), tuple(r.shape)))
        rec("vmap vmap foo 1 1", lambda: vmap(vmap(lambda a: a * 2, 1, 1), 1, 1)(t3))
        rec("item", lambda: vmap(lambda a: a.item())(rn(3)))
        rec("control flow", lambda: vmap(lambda a: a if a else 0)(rn(3)))
        rec("nested inputs", lambda: vmap(lambda z: z[0] + z[1])((x, y)))
        rec("nested inputs2", lambda: vmap(lambda z: z[0] + z[1], in_dims=(0,))((x, y)))
        rec("nested inputs3", lambda: vmap(lambda z: z[0] + z[1], in_dims=((0, 0),))((x, y)))
        rec("nested dict", lambda: vmap(lambda z: z["x"] + z["y"])({"x": x, "y": y}))
        rec("nested dict dims", lambda: vmap(lambda z: z["x"] + z["y"], in_dims=(
            {"x": 0, "y": 1},))({"x": x, "y": y.t()}))
        rec("nested list", lambda: vmap(lambda z: z[0] + z[1][0])([x, [y]]))
        rec("in_dims list", lambda: vmap(lambda a, b: a + b, in_dims=[0, 0])(x, y))
        rec("in_dims bad type", lambda: vmap(lambda a: a, in_dims="a")(x))
        rec("in_dims float", lambda: vmap(lambda a: a, in_dims=(0.0,))(x))
        rec("in_dims non tensor", lambda: vmap(lambda a: a, in_dims=(0,))(1.0))
        rec("in_dims out of range", lambda: vmap(lambda a: a, in_dims=2)(x))
        rec("in_dims neg range", lambda: vmap(lambda a: a, in_dims=-3)(x))
        rec("in_dims struct", lambda: vmap(lambda a, b: a, in_dims=(0, 0, 0))(x, y))
        rec("in_dims struct2", lambda: vmap(lambda z: z[0], in_dims=((0, 0, 0),))((x, y)))
        rec("size mismatch", lambda: vmap(m.mul)(x, rn(3, 3)))
        rec("scalar tensor", lambda: vmap(lambda a: a)(m.tensor(1.0)))
        rec("kwargs", lambda: vmap(lambda a, scale=1: a * scale)(x, scale=m.ones(3)))
        rec("kwargs tensor", lambda: vmap(lambda a, b: a * b)(x, b=y))
        rec("in_dims dict input", lambda: vmap(lambda d: d["a"] * 2, in_dims=({"a": 1},))({"a": x}))
        rec("randomness bad", lambda: vmap(lambda a: a, randomness="foo")(x))
        rec("chunk 0", lambda: vmap(lambda a: a, chunk_size=0)(x))
        rec("chunk -1", lambda: vmap(lambda a: a, chunk_size=-1)(x))
        rec("chunk 1.5", lambda: vmap(lambda a: a, chunk_size=1.5)(x))
        rec("chunk 1", lambda: vmap(lambda a: a.sum(), chunk_size=1)(rn(5, 3)))
        rec("chunk 2 outdims", lambda: vmap(lambda a: (a, a.sum()), chunk_size=2,
                                            out_dims=(1, 0))(rn(5, 3)))
        rec("chunk None out", lambda: vmap(lambda a: (a, "s"), chunk_size=2,
                                           out_dims=(0, None))(rn(5, 3)))
        rec("chunk whole", lambda: vmap(lambda a: a, chunk_size=7)(x).data_ptr() == x.data_ptr())
        rec("chunk empty batch", lambda: vmap(lambda a: a.sum(), chunk_size=2)(m.ones(0, 3)))
        rec("chunk unbatched None", lambda: vmap(lambda a: m.ones(2), chunk_size=2,
                                                 out_dims=None)(x))
        m.manual_seed(0)
        rec("chunk same", lambda: vmap(lambda a: a + m.rand(1), chunk_size=1,
                                       randomness="same")(x))
        rec("chunk different", lambda: vmap(lambda a: a + m.rand(1), chunk_size=1,
                                            randomness="different")(x))
        rec("non tensor output", lambda: vmap(lambda a: 1)(x))
        rec("non tensor output2", lambda: vmap(lambda a: (a, 1))(x))
        rec("None output", lambda: vmap(lambda a: None)(x))
        rec("func repr name", lambda: vmap(lambda a: a, in_dims=(0, 0))(x))
        rec("partial name", lambda: vmap(functools.partial(m.mul, other=2), in_dims=(0, 0))(x))
        rec("torch.sin name", lambda: vmap(m.sin, in_dims=(0, 0))(x))
        rec("vmap over empty batch", lambda: vmap(lambda a: a * 2)(m.ones(0, 3)))
        rec("vmap over empty batch sum", lambda: vmap(lambda a: a.sum())(m.ones(0, 3)))
        rec("empty inner", lambda: vmap(lambda a: a.sum())(m.ones(2, 0)))
        rec("int tensor", lambda: vmap(lambda a: a + 1)(m.arange(6).view(2, 3)))
        rec("bool tensor", lambda: vmap(lambda a: a.any())(m.ones(2, 3, dtype=m.bool)))
        return seen

    _same(program)


def test_saved_tensor_hooks_and_autograd_functional_inside_transforms():
    """grad, grad_and_value, vjp, jacrev and hessian refuse saved tensor hooks in effect around
    them or entered inside (torch's doesnt_support_saved_tensors_hooks); jvp, jacfwd and vmap
    accept them. torch.autograd.functional inside vmap or grad is refused through its
    requires_grad_() (leafgrad ran it)."""

    def program(m):
        f = m.func
        seen = []
        x5 = m.ones(5, 3) / 3
        x0 = m.tensor(0.5)
        x3 = m.ones(3) / 4

        def sin_sum(a):
            return m.sin(a).sum()

        def with_hooks(a):
            with m.autograd.graph.save_on_cpu():
                return sin_sum(a)

        def with_identity_hooks(a):
            with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                return sin_sum(a)

        calls = {
            "grad": lambda fn: f.grad(fn)(x3), "jacrev": lambda fn: f.jacrev(fn)(x3),
            "grad_and_value": lambda fn: f.grad_and_value(fn)(x3),
            "hessian": lambda fn: f.hessian(fn)(x3), "vjp": lambda fn: f.vjp(fn, x3)[0],
            "jvp": lambda fn: f.jvp(fn, (x3,), (x3,)), "jacfwd": lambda fn: f.jacfwd(fn)(x3),
            "vmap": lambda fn: m.vmap(fn)(x5),
        }
        for name, call in calls.items():
            def outside():
                with m.autograd.graph.save_on_cpu():
                    return call(sin_sum)

            seen.append((name, _outcome(outside)))
            seen.append((name, _outcome(lambda: call(with_hooks))))
            seen.append((name, _outcome(lambda: call(with_identity_hooks))))
        af = m.autograd.functional
        functional = {
            "jacobian": lambda a: af.jacobian(lambda b: b.sin().sum(), a),
            "vjp": lambda a: af.vjp(lambda b: b.sin().sum(), a)[1],
            "jvp": lambda a: af.jvp(lambda b: b.sin().sum(), (a,), (m.ones_like(a),))[1],
            "hessian": lambda a: af.hessian(lambda b: b.sin().sum(), a),
            "hvp": lambda a: af.hvp(lambda b: b.sin().sum(), a, m.ones_like(a))[1],
        }
        for name, fn in functional.items():
            seen.append((name, _outcome(lambda: m.vmap(fn)(x5))))
            seen.append((name, _outcome(lambda: f.grad(fn)(x0))))
        return seen

    _same(program)


def test_stack_module_state_as_torch():
    """stack_module_state (test_eager_transforms.py's TestMakeFunctional): its errors in
    torch's order; each stacked parameter or buffer is a new leaf requiring grad when every
    model's does, refused with torch's message when they differ (leafgrad followed the first
    model and left buffers as plain stacks)."""

    def program(m):
        nn = m.nn
        seen = []

        def stacked(models):
            params, buffers = m.func.stack_module_state(models)
            return [(name, _seen(value), value.is_leaf) for name, value in
                    list(params.items()) + list(buffers.items())]

        seen.append(_outcome(lambda: m.func.stack_module_state([])))
        for case in range(7):
            m.manual_seed(case)
            models = [nn.Linear(2, 2) for _ in range(3)]
            if case == 1:
                models[1].eval()
            elif case == 2:
                models[1] = nn.Conv2d(3, 3, (3, 3))
            elif case == 3:
                models[0].weight.requires_grad_(False)
            elif case == 4:
                for model in models:
                    model.bias.requires_grad_(False)
            elif case == 5:
                models = [nn.BatchNorm1d(2) for _ in range(3)]
            elif case == 6:
                models = [nn.BatchNorm1d(2) for _ in range(3)]
                for model in models:
                    model.running_mean.requires_grad_()
            seen.append((case, _outcome(lambda: stacked(models))))
        return seen

    _same(program)


def test_copy_of_complex_into_real_warns_as_torch():
    """copy_ of complex values into a real tensor (plain and dual): torch's UserWarning text
    (its copy kernel's; torch gives it once per process, so the text is fixed here as in
    tests/test_complex.py), not NumPy's ComplexWarning; the values and tangents as torch's."""
    import warnings

    import leafgrad

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        target = leafgrad.zeros(2)
        target.copy_(leafgrad.tensor([1 + 2j, 3 - 1j]))
    assert [(w.category, str(w.message)) for w in caught] == [
        (UserWarning, "Casting complex values to real discards the imaginary part")]

    def program(m):
        fw = m.autograd.forward_ad
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for dtype in ("float32", "float64", "float16", "bfloat16", "int64", "bool"):
                d = m.zeros(2, dtype=getattr(m, dtype))
                d.copy_(m.tensor([1.5 + 2j, -3 - 1j]))
                seen.append(_seen(d))
            with fw.dual_level():
                s = fw.make_dual(m.tensor([1 + 2j, 3 - 1j]), m.tensor([0.5 + 1j, 1 - 1j]))
                d = m.zeros(2)
                d.copy_(s)
                seen.append(_seen(fw.unpack_dual(d)))
        return seen

    _same(program)
