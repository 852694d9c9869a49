"""Behaviours found by replaying PyTorch's own tests (test_autograd.py's last part,
functorch's test_eager_transforms.py) and the open items of earlier suite helpers as programs
run under torch and leafgrad; each program's observations must be identical."""

from __future__ import annotations

import math

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _seen(value):
    """A comparable picture of ``value``: tensors by dtype name, shape and values (NaN-safe)."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        data = value.detach()
        if data.dtype in (torch.bfloat16, leafgrad.bfloat16):
            data = data.float()
        array = np.asarray(data.tolist(), dtype=complex if data.is_complex() else None)
        # values to 10 significant digits: both libraries' float64 kernels differ in the last bit
        text = np.array2string(array, precision=10, floatmode="maxprec", threshold=10**6)
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), text)
    if isinstance(value, (torch.dtype, leafgrad.dtype)):
        return ("dtype", str(value).split(".")[-1])
    if isinstance(value, (tuple, list)):
        return tuple(_seen(v) for v in value)
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _outcome(fn):
    """What a call gives: ("ok", picture) or (exception type, first line of its message)."""
    try:
        return ("ok", _seen(fn()))
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        # (leafgrad's messages name its dtypes "leafgrad.int64" where torch's say "torch.int64")
        return (type(error).__name__, str(error).split("\n")[0].replace("leafgrad.", "torch."))


def _same(program):
    """Run ``program(module)`` under both libraries; the observation lists must be equal."""
    expected, got = program(torch), program(leafgrad)
    assert len(got) == len(expected)
    for index, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"observation {index}: leafgrad {g} != torch {e}"


# --- Python types as dtypes ---------------------------------------------------------------------
# torch reads int/float/bool/complex as int64/float64/bool/complex128 wherever it takes a dtype
# (reductions, scans, softmax, norms, to(), the factories and *_like, out= with dtype=).

def _dtype_calls(m):
    F = m.nn.functional
    t = m.tensor([[1.5, 2.5], [-3.0, 0.5]])
    return {
        "sum": lambda d: t.sum(dtype=d), "sum_dim": lambda d: t.sum(0, dtype=d),
        "torch.sum": lambda d: m.sum(t, 1, dtype=d), "nansum": lambda d: t.nansum(dtype=d),
        "prod": lambda d: t.prod(dtype=d), "prod_dim": lambda d: t.prod(0, dtype=d),
        "mean": lambda d: t.mean(dtype=d), "mean_dim": lambda d: t.mean(0, dtype=d),
        "nanmean": lambda d: t.nanmean(dtype=d), "cumsum": lambda d: t.cumsum(0, dtype=d),
        "cumprod": lambda d: m.cumprod(t, 1, dtype=d),
        "softmax": lambda d: t.softmax(1, dtype=d), "F.softmax": lambda d: F.softmax(t, 1, dtype=d),
        "log_softmax": lambda d: F.log_softmax(t, 1, dtype=d),
        "softmin": lambda d: F.softmin(t, 1, dtype=d),
        "vector_norm": lambda d: m.linalg.vector_norm(t, dtype=d),
        "matrix_norm": lambda d: m.linalg.matrix_norm(t, dtype=d),
        "matrix_norm_nuc": lambda d: m.linalg.matrix_norm(t, "nuc", dtype=d),
        "norm": lambda d: m.linalg.norm(t, dtype=d),
        "to": lambda d: t.to(d), "to_kw": lambda d: t.to(dtype=d),
        "to_device": lambda d: t.to("cpu", d), "to_device_kw": lambda d: t.to("cpu", dtype=d),
        "type": lambda d: t.type(d), "view": lambda d: t.view(d).shape,
        "view_kw": lambda d: m.zeros(2, dtype=m.float64).view(dtype=d),
        "ones_like": lambda d: m.ones_like(t, dtype=d), "zeros_like": lambda d: m.zeros_like(t, dtype=d),
        "full_like": lambda d: m.full_like(t, 1, dtype=d),
        "empty_like": lambda d: m.empty_like(t, dtype=d).dtype,
        "rand_like": lambda d: m.rand_like(t, dtype=d).dtype,
        "randn_like": lambda d: m.randn_like(t, dtype=d).dtype,
        "randint_like": lambda d: m.randint_like(t, 5, dtype=d).dtype,
        "new_zeros": lambda d: t.new_zeros(2, dtype=d), "new_full": lambda d: t.new_full((2,), 1, dtype=d),
        "zeros": lambda d: m.zeros(2, dtype=d), "full": lambda d: m.full((2,), 3.7, dtype=d),
        "arange": lambda d: m.arange(2, dtype=d), "linspace": lambda d: m.linspace(0, 1, 2, dtype=d),
        "logspace": lambda d: m.logspace(0, 1, 2, dtype=d).dtype,
        "range": lambda d: m.range(0, 1, dtype=d),
        "eye": lambda d: m.eye(2, dtype=d), "tensor": lambda d: m.tensor([1.5], dtype=d),
        "rand": lambda d: m.rand(2, dtype=d).dtype, "randn": lambda d: m.randn(2, dtype=d).dtype,
        "randint": lambda d: m.randint(0, 5, (2,), dtype=d).dtype,
        "tril_indices": lambda d: m.tril_indices(2, 2, dtype=d),
        "triu_indices": lambda d: m.triu_indices(2, 2, dtype=d),
        "scalar_tensor": lambda d: m.scalar_tensor(1.5, dtype=d),
        "can_cast": lambda d: m.can_cast(d, m.float32),
        "promote_types": lambda d: m.promote_types(d, m.float32),
        "promote_types_2": lambda d: m.promote_types(m.int8, d),
        "sum_out": lambda d: m.sum(t, 0, dtype=d, out=m.empty(2, dtype=d)),
        "module.to": lambda d: m.nn.Linear(2, 2).to(d).weight.dtype,
        "module.to_kw": lambda d: m.nn.Linear(2, 2).to(dtype=d).weight.dtype,
        "set_default_dtype": lambda d: m.set_default_dtype(d),
    }


def test_python_types_as_dtypes_everywhere_torch_takes_a_dtype():
    import warnings

    def program(m):
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.range's deprecation, complex modules
            for name, call in _dtype_calls(m).items():
                for python_type in (int, float, bool, complex):
                    seen.append((name, python_type.__name__, _outcome(lambda: call(python_type))))
        return seen

    _same(program)


def test_dtype_arguments_torch_refuses_as_torch():
    """The same calls with torch's own dtypes, and the errors of the kernels torch lacks
    (integer mean, bool cumsum, complex nansum / arange / range / randint, norms' dtypes)."""
    import warnings

    def program(m):
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, call in _dtype_calls(m).items():
                if name == "set_default_dtype":
                    continue
                for dtype in (m.int32, m.int64, m.float16, m.float64, m.bool, m.complex64,
                              m.complex128):
                    if dtype is m.float16 and "soft" in name:
                        continue  # (half softmax rounds differently: see the report)
                    seen.append((name, str(dtype).split(".")[-1], _outcome(lambda: call(dtype))))
        integer, flag = m.ones(2, dtype=m.int64), m.ones(2, dtype=m.bool)
        complex_ = m.ones(2, dtype=m.complex64)
        for call in (lambda: integer.mean(dtype=m.float32), lambda: integer.nanmean(),
                     lambda: complex_.nanmean(), lambda: complex_.nansum(),
                     lambda: complex_.nansum(dtype=m.complex128),
                     lambda: flag.cumsum(0), lambda: m.tensor(True).cumsum(0, dtype=m.bool),
                     lambda: m.linalg.vector_norm(complex_, dtype=m.float32),
                     lambda: m.linalg.matrix_norm(complex_.reshape(1, 2), dtype=m.float64),
                     lambda: m.linalg.matrix_norm(m.ones(2, 2), 2, dtype=m.float16),
                     lambda: m.empty(2, dtype=m.complex64).random_(0, 3),
                     lambda: m.empty(2, dtype=m.complex64).random_(3),
                     lambda: m.empty(2, dtype=m.complex64).random_(),
                     lambda: m.randint_like(m.ones(2), 2, dtype=m.bool).shape,
                     lambda: m.randint_like(m.ones(2), 1, 2).tolist(),
                     lambda: m.randint(0, 5, (2,), generator=None).shape):
            seen.append(_outcome(call))
        return seen

    _same(program)


def test_refused_dtype_arguments_name_the_argument_as_torch():
    def program(m):
        t = m.ones(2)
        return [_outcome(call) for call in (
            lambda: m.promote_types("a", m.int64), lambda: m.promote_types(m.int64, 3),
            lambda: m.can_cast("x", m.int64), lambda: m.can_cast(m.int64, None),
            lambda: m.set_default_dtype(m.int64), lambda: m.set_default_dtype("x"),
            lambda: t.type(list), lambda: t.type(3), lambda: t.type(type(None)),
            lambda: t.type("foo"), lambda: t.type(m.float64),
            lambda: m.zeros_like(t, dtype="float"))]

    _same(program)


# --- div with an explicit rounding_mode=None is DivBackward2 ------------------------------------

def _node_picture(y):
    fn = y.grad_fn
    if fn is None:
        return None
    edges = tuple(type(n).__name__ if n is not None else None for n, _ in fn.next_functions)
    mode = fn._saved_rounding_mode if type(fn).__name__ == "DivBackward2" else "-"
    return type(fn).__name__, fn.name(), edges, mode


def test_explicit_none_rounding_mode_records_div_backward2():
    """torch.div(a, b, rounding_mode=None) is the div.Tensor_mode overload: true division with
    DivBackward2 (saving the mode), for every call form, each subset of inputs requiring grad,
    float and complex dtypes, a number divisor, broadcasting and a non-contiguous operand."""

    def program(m):
        seen = []
        forms = {
            "function": lambda a, b: m.div(a, b, rounding_mode=None),
            "divide": lambda a, b: m.divide(a, b, rounding_mode=None),
            "method": lambda a, b: a.div(b, rounding_mode=None),
            "method_divide": lambda a, b: a.divide(b, rounding_mode=None),
            "in_place": lambda a, b: (a * 1).div_(b, rounding_mode=None),
            "number": lambda a, b: m.div(a, 2.5, rounding_mode=None),
            "absent": lambda a, b: m.div(a, b),
            "operator": lambda a, b: a / b,
            "floor": lambda a, b: m.div(a, b, rounding_mode="floor"),
        }
        for dtype in (m.float32, m.float64, m.complex64):
            base_a = m.tensor([[3.0, -4.0, 5.5], [1.0, 2.0, -7.0]], dtype=dtype)
            base_b = m.tensor([[2.0, 3.0, -0.5], [-1.5, 4.0, 0.25]], dtype=dtype)
            for needs in ((True, True), (True, False), (False, True), (False, False)):
                for layout in ("plain", "broadcast", "transposed"):
                    for name, form in forms.items():
                        if dtype.is_complex and name == "floor":
                            continue
                        a = base_a.clone().requires_grad_(needs[0])
                        b = base_b.clone().requires_grad_(needs[1])
                        b_used = {"plain": b, "broadcast": b[:1],
                                  "transposed": b.t().contiguous().t()}[layout]
                        y = form(a, b_used)
                        seen.append((str(dtype).split(".")[-1], needs, layout, name, _node_picture(y),
                                     _seen(y)))
                        if y.requires_grad:
                            grads = m.autograd.grad(y.abs().sum(), [t for t in (a, b)
                                                    if t.requires_grad], allow_unused=True)
                            seen.append(_seen(grads))
        a = m.tensor([3.0, 4.0], requires_grad=True)
        b = m.tensor([2.0, -8.0], requires_grad=True)
        y = m.div(a, b, rounding_mode=None)
        seen.append(_seen((y.grad_fn._saved_self, y.grad_fn._saved_other)))
        (g,) = m.autograd.grad(y.sum(), a, create_graph=True)
        seen.append((_node_picture(g), _seen(m.autograd.grad(g.sum(), b))))
        for dtype in (m.int64, m.uint8, m.bool):
            x = m.tensor([3, 4], dtype=dtype)
            seen.append(_outcome(lambda: m.div(x, x, rounding_mode=None)))
            seen.append(_outcome(lambda: m.div(x, 2, rounding_mode=None)))
        seen.append(_outcome(lambda: m.div(a, b, rounding_mode="x")))
        seen.append(_outcome(lambda: m.div(a, b, rounding_mode=None, out=m.empty(2))))
        seen.append(_outcome(lambda: m.div(a.detach(), b.detach(), rounding_mode=None,
                                           out=m.empty(2))))
        return seen

    _same(program)


# --- number operands converted as torch converts them (clamp, where, pad) -----------------------

def test_number_bounds_and_fills_are_checked_as_torch():
    """A Python number written into an integer (or float16) computation goes through torch's
    checked conversion: out of range is "value cannot be converted to type int8_t without
    overflow"; clamp's and where's negative ints wrap in unsigned types, pad's value (a
    double) does not; clamp of bools has no kernel; clamp_'s cast error names C types."""

    def program(m):
        F = m.nn.functional
        seen = []
        mask = m.tensor([True, False, True])
        for dtype in (m.int8, m.uint8, m.int16, m.int32, m.int64, m.bool, m.float16,
                      m.float32):
            z = m.tensor([0, 1, 5], dtype=dtype)
            for value in (300, -1, -129, -200, 1.5, 2**31, -(2**31) - 1, 1e10, 70000.0,
                          float("inf"), float("nan"), True):
                calls = {
                    "clamp_min": lambda: z.clamp(min=value),
                    "clamp_max": lambda: z.clamp(max=value),
                    "clamp_both": lambda: m.clamp(z, 0 if value != 0 else -1, value),
                    "clamp_": lambda: z.clone().clamp_(min=value),
                    "clip": lambda: z.clip(max=value),
                    "clamp_min_fn": lambda: m.clamp_min(z, value),
                    "clamp_max_": lambda: z.clone().clamp_max_(value),
                    "where": lambda: m.where(mask, z, value),
                    "where_first": lambda: m.where(mask, value, z),
                    "pad": lambda: F.pad(z, (1, 1), value=value),
                    "pad_2d": lambda: F.pad(z.reshape(1, 3), (0, 1, 1, 0), "constant", value),
                    "fill_diagonal_": lambda: m.zeros(2, 2, dtype=dtype).fill_diagonal_(value),
                }
                for name, call in calls.items():
                    seen.append((str(dtype).split(".")[-1], repr(value), name, _outcome(call)))
        # nothing half-modified by a refused clamp_
        z = m.tensor([1, 2], dtype=m.int8)
        seen.append(_outcome(lambda: z.clamp_(min=300)))
        seen.append((_seen(z), z._version))
        # gradients through a checked float16 bound and a wrapped where are unchanged
        x = m.tensor([0.5, -2.0, 3.0], dtype=m.float16, requires_grad=True)
        (g,) = m.autograd.grad(x.clamp(-1, 2.5).float().sum(), x)
        seen.append(_seen(g))
        return seen

    _same(program)


# --- saved values of nodes (test_autograd's saved-variable tests) -------------------------------

def test_optional_saved_tensor_not_given_reads_none():
    def program(m):
        a = m.randn(3, 5, requires_grad=True)
        target = m.tensor([1, 0, 4])
        seen = []
        for weight in (None, m.ones(5), m.arange(5.0)):
            out = m.nn.NLLLoss(weight=weight)(a, target)
            seen.append(_outcome(lambda: out.grad_fn._saved_weight))
            seen.append(_outcome(lambda: out.grad_fn._saved_ignore_index_missing))
            out.backward()
            if weight is not None:  # (torch's None for an absent weight after backward: not
                seen.append(_outcome(lambda: out.grad_fn._saved_weight))  # kept, see report)
        out = m.nn.functional.cross_entropy(a, target)
        seen.append(_outcome(lambda: out.grad_fn._saved_weight))
        return seen

    _same(program)


def test_clear_saved_tensors_on_access():
    """A Function with clear_saved_tensors_on_access = True: its backward may read
    ctx.saved_tensors once (the node lets go of them), a second read is torch's error."""
    import weakref

    def program(m):
        seen = []

        def make(reads, clear):
            class Once(m.autograd.Function):
                clear_saved_tensors_on_access = clear

                @staticmethod
                def forward(ctx, x, y):
                    ctx.save_for_backward(x, y)
                    return x * y

                @staticmethod
                def backward(ctx, grad):
                    for _ in range(reads - 1):
                        ctx.saved_tensors
                    x, y = ctx.saved_tensors
                    held = weakref.ref(x)
                    grads = grad * y, grad * x
                    del x  # (reference counting frees it at once: no collection needed)
                    seen.append(("released", held() is None))
                    return grads

            return Once

        for reads in (1, 2):
            for clear in (True, False):
                x = m.tensor([1.0, 2.0], requires_grad=True)
                y = m.tensor([3.0, -1.0], requires_grad=True)
                out = make(reads, clear).apply(x * 1, y)
                seen.append((reads, clear, _outcome(lambda: out.sum().backward())))
                seen.append(_seen((x.grad, y.grad)))
        return seen

    _same(program)


# --- custom Functions: mark_dirty and forward-mode checks ---------------------------------------

def test_mark_dirty_of_views_as_torch():
    """mark_dirty on a view that is no input is torch's RuntimeError (a non-view: a warning
    only); a dirty input that is an output of a multi-view op (split) gets the multi-view
    error before the view-of-leaf one."""
    import warnings

    def program(m):
        class DirtyView(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x.clone().view_as(x)
                ctx.mark_dirty(out)
                return out

            @staticmethod
            def backward(ctx, grad):
                return grad

        class DirtyTemp(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = 3 * x
                out.add_(1)
                ctx.mark_dirty(out)
                return out

            @staticmethod
            def backward(ctx, grad):
                return 3 * grad

        class AddOne(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad

        seen = []
        a = m.tensor([1.0, 2.0], requires_grad=True)
        seen.append(_outcome(lambda: DirtyView.apply(a.clone())))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = DirtyTemp.apply(a.clone())
        seen.append(([str(w.message).split(" (Triggered")[0] for w in caught], out.grad_fn.name()))
        first, _ = a.split_with_sizes([1, 1], dim=0)
        seen.append(_outcome(lambda: AddOne.apply(first)))
        seen.append(_outcome(lambda: AddOne.apply(a.view_as(a))))
        seen.append(_outcome(lambda: AddOne.apply(a.clone().unbind()[0])))
        seen.append(_seen(a))
        view = a.clone()[:1]
        out = AddOne.apply(view)
        out.sum().backward()
        seen.append((out is view, _seen(a.grad)))
        return seen

    _same(program)


def test_forward_mode_checks_of_custom_functions():
    """A jvp must modify a dirty input's tangent in place, and for a forward returning a view
    of an input must return a view of that input's tangent."""

    def program(m):
        fwAD = m.autograd.forward_ad
        seen = []

        def inplace_fn(mode):
            class InplaceMul(m.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.mark_dirty(x)
                    return x.mul_(2)

                @staticmethod
                def backward(ctx, grad):
                    return 2 * grad

                @staticmethod
                def jvp(ctx, tangent):
                    if mode == "as_is":
                        return tangent
                    if mode == "new":
                        return 2 * tangent
                    return tangent.mul_(2)

            return InplaceMul

        for mode in ("as_is", "new", "in_place"):
            x = m.tensor([1.0, -2.0], dtype=m.float64)
            with fwAD.dual_level():
                tangent = m.tensor([1.0, 0.5], dtype=m.float64)
                dual = fwAD.make_dual(x.clone(), tangent)

                def call():
                    out = inplace_fn(mode).apply(dual)
                    primal, out_tangent = fwAD.unpack_dual(out)
                    return out is dual, out_tangent is tangent, _seen((primal, out_tangent))

                seen.append((mode, _outcome(call)))

        def view_fn(flag):
            class Narrow(m.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.size = x.size()
                    return x.narrow(0, 0, 2)

                @staticmethod
                def vjp(ctx, grad):
                    full = grad.new_zeros(ctx.size)
                    full.narrow(0, 0, 2).copy_(grad)
                    return full

                @staticmethod
                def jvp(ctx, tangent):
                    result = tangent.narrow(0, 0, 2)
                    if flag != "ok":
                        result = result.clone()
                    if flag in ("view_of_other", "view_of_other_base"):
                        result = result.view_as(result)
                    return result

            return Narrow

        inp = m.arange(3.0, dtype=m.float64).reshape(3, 1).requires_grad_()
        for flag in ("ok", "copy", "view_of_other", "view_of_other_base"):
            def check(flag=flag):
                def fn(x):
                    if flag == "view_of_other_base":
                        x = x.view_as(x)
                    return view_fn(flag).apply(x)

                return m.autograd.gradcheck(fn, (inp,), check_forward_ad=True)

            seen.append((flag, _outcome(check)))

        class IntInput(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, count):
                return x * 2, count.clone()

            @staticmethod
            def jvp(ctx, x_tangent, count_tangent):
                seen.append(("integer input's tangent", _seen(count_tangent)))
                return x_tangent * 2, None

        with fwAD.dual_level():
            dual = fwAD.make_dual(m.tensor(2.0), m.tensor(1.0))
            out, count = IntInput.apply(dual, m.tensor(3))
            seen.append(_seen((fwAD.unpack_dual(out).tangent, fwAD.unpack_dual(count).tangent)))
        return seen

    _same(program)


def test_gather_takes_sparse_grad_and_checks_its_arguments():
    """gather's keyword-only sparse_grad (False: the dense gradient; leafgrad's gradient is
    dense for True too, torch's is sparse: not compared), and torch's parser errors."""

    def program(m):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        index = m.tensor([[0, 1], [1, 1]])
        seen = []
        for call in (lambda: m.gather(x, 0, index, sparse_grad=False),
                     lambda: x.gather(1, index, sparse_grad=False),
                     lambda: m.gather(x.t(), 1, index)):
            out = call()
            (grad,) = m.autograd.grad(out.sum(), x)
            seen.append((_seen(out), out.grad_fn.name(), _seen(grad)))
        seen.append(_seen(x.gather(0, index, sparse_grad=True)))
        for call in (lambda: m.gather([1.0], 0, index), lambda: m.gather(x, 0, [[0]]),
                     lambda: x.gather(0, [[0]]), lambda: x.gather(0, index, sparse_grad=1),
                     lambda: m.gather(x, 0, index, sparse_grad=None),
                     lambda: m.gather(x, 0, index, False)):
            seen.append(_outcome(call))
        return seen

    _same(program)


def test_full_backward_hook_does_not_fire_in_a_double_backward():
    """A module's full backward hook runs when the gradient passes the module's outputs; a
    double backward reaching its input node only (grad of a create_graph gradient) runs no
    hook, as torch (its BackwardHook forgets grad_outputs once the hooks ran)."""

    def program(m):
        seen = []
        for loss in (m.nn.MSELoss(), m.nn.Tanh(), m.nn.Linear(2, 2)):
            if isinstance(loss, m.nn.Linear):
                with m.no_grad():
                    loss.weight.copy_(m.tensor([[0.5, -1.0], [2.0, 0.25]]))
                    loss.bias.fill_(0.1)
            calls = []
            loss.register_full_backward_hook(
                lambda module, grad_in, grad_out: calls.append(_seen((grad_in, grad_out))))
            x = m.tensor([0.3, -0.7], requires_grad=True)
            target = m.tensor([1.0, 2.0])
            out = loss(x, target) if isinstance(loss, m.nn.MSELoss) else loss(x).pow(2).sum()
            (grad,) = m.autograd.grad(out, x, create_graph=True)
            seen.append(len(calls))
            (second,) = m.autograd.grad(grad.sum(), x)
            seen.append((len(calls), _seen(second)))
            out2 = loss(x, target) if isinstance(loss, m.nn.MSELoss) else loss(x).sum()
            out2.backward(retain_graph=True)
            out2.backward()
            seen.append((len(calls), calls))
        return seen

    _same(program)


def test_non_tensor_saved_values_stay_readable_after_backward():
    """torch frees a node's saved tensors after the backward, not its other saved values
    (dims, keepdim, alpha, exponents): those still read; saved tensors give torch's error."""

    def program(m):
        a = m.ones(2, 3, requires_grad=True)
        nodes = {
            "sum": (a.sum(1), ("dim", "keepdim")),
            "add": (m.add(a, a, alpha=2), ("alpha",)),
            "sub": (m.sub(a, a * 2, alpha=3), ("alpha",)),
            "pow": (a.pow(2), ("exponent", "self")),
            "clamp": (a.clamp(0.5, 2.0), ("min", "max", "self")),
            "leaky": (m.nn.functional.leaky_relu(a, 0.2), ("negative_slope", "self")),
            "where": (m.where(a > 0, a, 0.0), ("condition",)),
            "transpose": (a.transpose(0, 1), ("dim0", "dim1")),
            "mul": (a * a.detach(), ("other", "self")),
        }
        seen = []
        for phase in ("before", "after"):
            for name, (out, keys) in nodes.items():
                for key in keys:
                    seen.append((phase, name, key,
                                 _outcome(lambda: getattr(out.grad_fn, "_saved_" + key))))
            if phase == "before":
                sum(out.sum() for out, _ in nodes.values()).backward()
        return seen

    _same(program)


def test_saved_reduction_is_torchs_integer():
    """Loss nodes show ``_saved_reduction`` as torch's at::Reduction integer (0 none, 1 mean,
    2 sum), before and after the backward."""

    def program(m):
        F = m.nn.functional
        x = m.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
        target = m.tensor([2, 0])
        y = m.tensor([[0.1, 0.9, 0.4], [0.3, 0.2, 0.8]])
        seen = []
        for reduction in ("none", "mean", "sum"):
            outs = [F.nll_loss(x.log_softmax(1), target, reduction=reduction),
                    F.cross_entropy(x, target, reduction=reduction),
                    F.mse_loss(x, y, reduction=reduction), F.l1_loss(x, y, reduction=reduction),
                    F.binary_cross_entropy(x.sigmoid(), y, reduction=reduction),
                    F.binary_cross_entropy_with_logits(x, y, reduction=reduction),
                    F.smooth_l1_loss(x, y, reduction=reduction),
                    F.huber_loss(x, y, reduction=reduction)]
            for out in outs:
                seen.append((out.grad_fn.name(), _outcome(lambda: out.grad_fn._saved_reduction)))
            sum(out.sum() for out in outs).backward()
            for out in outs:  # (a node without the attribute: not compared after the backward)
                if "Loss" in out.grad_fn.name() or "Entropy" in out.grad_fn.name():
                    seen.append(_outcome(lambda: out.grad_fn._saved_reduction))
        return seen

    _same(program)
