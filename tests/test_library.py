"""torch.library's Python custom operators (the custom-ops tutorial's ``custom_op``,
``register_autograd``, ``register_fake``, ``opcheck``, ``torch.ops.<ns>.<op>``), each program
run under torch and leafgrad with the same printed transcript: results, schemas, node names,
gradients, version counters, and torch's errors for bad definitions."""

# (no ``from __future__ import annotations``: the ops' annotations must be real types, as the
# tutorial writes them)
from typing import Optional, Sequence

import numpy as np

import leafgrad
from tests._torch import require_torch
from tests._tutorial_harness import first_difference, transcript

torch = require_torch()


def _attempt(function):
    try:
        print("ok", function())
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        line = str(error).splitlines()[0]
        if "(with implementation in" in line:  # (torch's names its module's file)
            line = line.split("): ", 1)[1]
        # (torch's list of valid types includes torch.distributed's GroupName; its list of
        # backends names its dispatch keys)
        line = line.split(" The valid types are:")[0].split(" is only available for these")[0]
        print(type(error).__name__, "|", line)


def _definitions(lib):
    Tensor = lib.Tensor  # noqa: N806

    @lib.library.custom_op("lgtest::numpy_sin", mutates_args=(), device_types="cpu")
    def numpy_sin(x: Tensor) -> Tensor:
        return lib.from_numpy(np.sin(x.numpy()))

    print(repr(numpy_sin))
    x = lib.tensor([0.5, 1.0, 2.0])
    print(numpy_sin(x), lib.ops.lgtest.numpy_sin(x), lib.ops.lgtest.numpy_sin.default(x))
    print(repr(lib.ops.lgtest.numpy_sin), repr(lib.ops.lgtest.numpy_sin.default),
          str(lib.ops.lgtest.numpy_sin.default), lib.ops.lgtest.numpy_sin.default._schema)
    xr = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = numpy_sin(xr)
    print(type(y.grad_fn).__name__, y.requires_grad, y.is_leaf)
    _attempt(lambda: y.sum().backward())

    def setup_context(ctx, inputs, output):
        (value,) = inputs
        ctx.save_for_backward(value)

    def backward(ctx, grad):
        (value,) = ctx.saved_tensors
        return grad * value.cos()

    numpy_sin.register_autograd(backward, setup_context=setup_context)
    y = numpy_sin(xr)
    print(y, y.grad_fn.name())
    y.sum().backward()
    print(xr.grad)
    with lib.no_grad():
        print(numpy_sin(xr).requires_grad)

    @lib.library.custom_op("lgtest::add_", mutates_args=("x",))
    def add_(x: Tensor, y: float) -> None:
        x.numpy()[...] += y

    z = lib.zeros(2)
    before = z._version
    print(add_(z, 1.5), z, z._version - before)

    @lib.library.custom_op("lgtest::two", mutates_args=())
    def two(x: Tensor, n: int = 2, scale: Optional[float] = None,
            dims: Optional[Sequence[int]] = None) -> tuple[Tensor, Tensor]:
        return x * n, x.clone()

    print(two(x), two(x, n=3), lib.ops.lgtest.two.default._schema)

    def kw(x: Tensor, *, alpha: float = 1.0) -> Tensor:
        return x * alpha

    keyword = lib.library.custom_op("lgtest::kw", mutates_args=())(kw)
    print(keyword(x, alpha=2.0), lib.ops.lgtest.kw.default._schema)
    print(lib.library.infer_schema(kw, mutates_args=()),
          lib.library.infer_schema(kw, mutates_args=("x",)),
          lib.library.infer_schema(kw, op_name="foo", mutates_args="unknown"))
    _attempt(lambda: lib.ops.lgtest.nothere)


def _bad_definitions(lib):
    Tensor = lib.Tensor  # noqa: N806

    def no_annotation(x):
        return x

    def no_return(x: Tensor):
        return x

    def bad_type(x: Tensor, d: dict) -> Tensor:
        return x

    def tuple_input(x: tuple[int, int]) -> Tensor:
        return lib.zeros(x)

    def bad_default(x: Tensor, dims: Sequence[int] = (0,)) -> Tensor:
        return x

    def fine(x: Tensor) -> Tensor:
        return x.clone()

    def mutated_int(x: Tensor, n: int) -> Tensor:
        return x.clone()

    def varargs(*xs: Tensor) -> Tensor:
        return xs[0]

    def bad_return(x: Tensor) -> dict:
        return {}

    for name, function, mutates in [
            ("lgtest::a", no_annotation, ()), ("lgtest::b", no_return, ()),
            ("lgtest::c", bad_type, ()), ("lgtest::d", tuple_input, ()),
            ("lgtest::e", bad_default, ()), ("lgtest::f", fine, ("y",)),
            ("lgtest::g", fine, "everything"), ("lgtest::h", mutated_int, ("n",)),
            ("lgtest::i", varargs, ()), ("lgtest::j", bad_return, ()),
            ("nonamespace", fine, ()), ("lgtest::k.l", fine, ())]:
        _attempt(lambda: lib.library.custom_op(name, mutates_args=mutates)(function))
    _attempt(lambda: lib.library.custom_op("lgtest::m")(fine))


def _autograd_and_outputs(lib):
    Tensor = lib.Tensor  # noqa: N806

    @lib.library.custom_op("lgtest::split", mutates_args=())
    def split(x: Tensor, k: float) -> tuple[Tensor, Tensor]:
        return x * k, x + k

    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    def backward(ctx, ga, gb):
        return ga * ctx.k + gb, None

    split.register_autograd(backward, setup_context=setup_context)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a, b = split(x, 3.0)
    print(a, b, type(a.grad_fn).__name__, a.grad_fn is b.grad_fn)
    (a.sum() + b.sum()).backward()
    print(x.grad)
    x.grad = None
    a, b = split(x, 3.0)
    a.sum().backward()
    print(x.grad)

    @split.register_fake
    def _(x, k):
        return lib.empty_like(x), lib.empty_like(x)

    fake = split(lib.empty(4, device="meta"), 2.0)
    print(fake[0].shape, fake[0].device)

    @lib.library.custom_op("lgtest::lst", mutates_args=())
    def lst(x: Tensor) -> list[Tensor]:
        return [x * 2, x * 3]

    @lib.library.custom_op("lgtest::num", mutates_args=())
    def num(x: Tensor) -> float:
        return float(x.sum())

    @lib.library.custom_op("lgtest::mut", mutates_args=("out",))
    def mut(x: Tensor, out: Tensor) -> None:
        out.copy_(x * 2)

    @lib.library.custom_op("lgtest::lst_in", mutates_args=())
    def lst_in(xs: list[Tensor], w: Tensor) -> Tensor:
        return xs[0] * w + xs[1]

    print(lst(lib.ones(2)), num(lib.ones(3)))
    out = lib.zeros(2)
    before = out._version
    mut(lib.ones(2), out)
    print(out, out._version - before)
    print(lst_in([lib.ones(2), lib.ones(2)], lib.full((2,), 2.0)))
    print(lib.ops.lgtest.lst_in.default._schema, lib.ops.lgtest.mut.default._schema,
          lib.ops.lgtest.split.default._schema, lib.ops.lgtest.num.default._schema)

    @lib.library.custom_op("lgtest::alias", mutates_args=())
    def alias(x: Tensor) -> Tensor:
        return x

    _attempt(lambda: alias(lib.ones(2)))

    @lib.library.custom_op("lgtest::twoin", mutates_args=())
    def twoin(a: Tensor, b: Tensor, c: float) -> Tensor:
        return a * b * c

    def backward2(ctx, grad):
        return grad * ctx.b, None, None

    def setup2(ctx, inputs, output):
        ctx.b = inputs[1]

    twoin.register_autograd(backward2, setup_context=setup2)
    a = lib.ones(2, requires_grad=True)
    b = lib.full((2,), 3.0, requires_grad=True)
    twoin(a, b, 2.0).sum().backward()
    print(a.grad, b.grad)
    lib.library.register_autograd("lgtest::twoin", lambda ctx, g: g, setup_context=setup2)
    _attempt(lambda: twoin(a, b, 2.0).sum().backward())
    checks = lib.library.opcheck(split, (lib.randn(3, requires_grad=True, dtype=lib.float64),
                                         2.0),
                                 test_utils=("test_schema", "test_autograd_registration"))
    print(checks)


def _schema_ops(lib):
    """torch.library.Library / define / impl: operators from schema strings."""
    library = lib.library.Library("lgtestlib", "DEF")
    print(repr(library), repr(lib.library.Library("lgtestlib", "IMPL", "CPU")))
    library.define("mysin(Tensor x) -> Tensor")
    library.define("scale(Tensor x, float k=2.0, *, bool neg=False) -> Tensor")

    def mysin_cpu(x):
        return lib.from_numpy(np.sin(x.detach().numpy()))

    library.impl("mysin", mysin_cpu, "CPU")
    library.impl("scale", lambda x, k=2.0, neg=False: -x * k if neg else x * k,
                 "CompositeImplicitAutograd")
    ops = lib.ops.lgtestlib
    x = lib.tensor([0.5, 1.0])
    print(ops.mysin(x), ops.scale(x), ops.scale(x, 3.0, neg=True), ops.scale.default._schema)
    xr = lib.tensor([0.5, 1.0], requires_grad=True)
    y = ops.mysin(xr)
    print(y.requires_grad, type(y.grad_fn).__name__)
    y.sum().backward()
    print(xr.grad)
    z = ops.scale(xr, 3.0)
    print(type(z.grad_fn).__name__)
    z.sum().backward()
    print(xr.grad)
    lib.library.define("lgtestlib::cube", "(Tensor x) -> Tensor", lib=library)

    @lib.library.impl("lgtestlib::cube", "cpu", lib=library)
    def cube(x):
        return x * x * x

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (value,) = ctx.saved_tensors
        return grad * 3 * value * value

    lib.library.register_autograd("lgtestlib::cube", backward, setup_context=setup_context)
    xr.grad = None
    w = ops.cube(xr)
    print(ops.cube(x), type(w.grad_fn).__name__)
    w.sum().backward()
    print(xr.grad)
    for bad in ["g(Tensor x", "h Tensor x) -> Tensor", "i(Tensor) -> Tensor",
                "j(Foo x) -> Tensor", "k(Tensor x) ->"]:
        _attempt(lambda: library.define(bad))
    _attempt(lambda: lib.library.Library("lgtestlib2", "WRONG"))
    library.define("f(Tensor x) -> Tensor")
    _attempt(lambda: ops.f(lib.ones(2)))
    library.define("m(Tensor(a!) x, Scalar s) -> ()")

    def add_in_place(x, s):
        x.add_(s)

    library.impl("m", add_in_place, "CompositeExplicitAutograd")
    out = lib.zeros(2)
    before = out._version
    print(ops.m(out, 2), out, out._version - before)
    _attempt(lambda: ops.m(out, "x"))
    _attempt(lambda: ops.m(1, 2))
    _attempt(lambda: ops.m(out))
    _attempt(lambda: ops.m(out, 2, bad=1))
    library.define('n(Tensor x, int[] dims, int? k=None, str mode="a") -> Tensor')
    library.impl("n", lambda x, dims, k=None, mode="a": x.sum(dims), "CPU")
    print(ops.n(lib.ones(2, 3), [1]), ops.n.default._schema)
    _attempt(lambda: ops.n(lib.ones(2, 3), 1.5))
    library.define("ret(Tensor x) -> ()")
    library.impl("ret", lambda x: x, "CPU")
    _attempt(lambda: ops.ret(x))
    library._destroy()


def _same_as_torch(snippet, lines: int) -> None:
    ours = transcript(snippet, leafgrad)
    assert len(ours) >= lines and not any(line.startswith("raised") for line in ours), ours
    assert first_difference(snippet, leafgrad, torch) is None


def test_custom_op_definitions_match_torch():
    _same_as_torch(_definitions, 14)


def test_bad_definitions_raise_torchs_errors():
    _same_as_torch(_bad_definitions, 13)


def test_autograd_outputs_and_mutation_match_torch():
    _same_as_torch(_autograd_and_outputs, 12)


def test_library_define_impl_match_torch():
    _same_as_torch(_schema_ops, 20)


def test_not_differentiable_kernel_warns_at_backward():
    """A CPU kernel without an autograd formula: the outputs hang from torch's CppFunction
    node, and backward warns and gives no gradient (torch's autograd fallback)."""
    import warnings

    seen = []
    for lib in (torch, leafgrad):
        library = lib.library.Library("lgtestwarn", "DEF")
        library.define("double(Tensor x) -> Tensor")
        library.impl("double", lambda x: x.detach() * 2, "CPU")
        x = lib.ones(3, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.ops.lgtestwarn.double(x).sum().backward()
        seen.append((x.grad, [str(w.message).split(": an autograd kernel")[0]
                              for w in caught]))
        library._destroy()
    assert seen[0] == seen[1] and seen[0][1] == ["lgtestwarn::double"]


def test_opcheck_finds_what_is_wrong():
    """leafgrad's opcheck (torch's needs its compiler stack): every check passes on a correct
    op and the right one fails on a wrong one."""
    Tensor = leafgrad.Tensor  # noqa: N806

    @leafgrad.library.custom_op("lgcheck::scale", mutates_args=())
    def scale(x: Tensor, k: float) -> Tensor:
        return x * k

    scale.register_autograd(lambda ctx, g: (g * ctx.k, None),
                            setup_context=lambda ctx, inputs, output: setattr(ctx, "k",
                                                                              inputs[1]))
    scale.register_fake(lambda x, k: leafgrad.empty_like(x))
    args = (leafgrad.randn(4, dtype=leafgrad.float64, requires_grad=True), 2.0)
    assert set(leafgrad.library.opcheck(scale, args).values()) == {"SUCCESS"}

    @leafgrad.library.custom_op("lgcheck::sneaky", mutates_args=())
    def sneaky(x: Tensor, y: Tensor) -> Tensor:
        y.add_(1)
        return x * 2

    result = leafgrad.library.opcheck(sneaky, (leafgrad.ones(2), leafgrad.ones(2)),
                                      raise_exception=False)
    assert isinstance(result["test_schema"], Exception)
    assert isinstance(result["test_faketensor"], Exception)  # (no fake registered)

    @leafgrad.library.custom_op("lgcheck::wrong", mutates_args=())
    def wrong(x: Tensor) -> Tensor:
        return x * x

    wrong.register_autograd(lambda ctx, g: g, setup_context=lambda ctx, inputs, output: None)
    wrong.register_fake(lambda x: leafgrad.empty(3))
    args = (leafgrad.randn(4, dtype=leafgrad.float64, requires_grad=True),)
    result = leafgrad.library.opcheck(wrong, args, raise_exception=False)
    assert result["test_schema"] == "SUCCESS"
    assert isinstance(result["test_faketensor"], Exception)  # (shape 3, not 4)
    assert isinstance(result["test_aot_dispatch_dynamic"], Exception)  # (gradient g, not 2xg)


def _kernel_switching(lib):
    Tensor = lib.Tensor  # noqa: N806

    @lib.library.custom_op("lgswitch::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x * 2

    @f.register_kernel("cpu")
    def _(x):
        return x * 3

    x = lib.ones(2)
    print(f(x))
    with f.set_kernel_enabled("cpu", enabled=False):
        print(f(x))
        with f.set_kernel_enabled("cpu", enabled=True):
            print(f(x))
        print(f(x))
    print(f(x))


def test_set_kernel_enabled_switches_the_registered_kernel():
    _same_as_torch(_kernel_switching, 5)


def test_unsupported_registrations_refuse_rather_than_ignore():
    """register_vmap and register_torch_dispatch need layers leafgrad does not have: they
    raise instead of accepting a rule that would never run."""
    @leafgrad.library.custom_op("lgrefuse::f", mutates_args=())
    def f(x: leafgrad.Tensor) -> leafgrad.Tensor:
        return x * 2

    for register in (lambda: f.register_vmap(lambda info, in_dims, x: (x * 2, 0)),
                     lambda: f.register_torch_dispatch(object, lambda *a: None)):
        try:
            register()
        except NotImplementedError as error:
            assert "lgrefuse::f" in str(error)
        else:
            raise AssertionError("an unsupported registration was accepted")
