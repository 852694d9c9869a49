"""torch._foreach_* as torch's test_foreach.py exercises them on the CPU (its slow path: the
per-tensor op for each element), run as programs under torch and leafgrad: values bit for bit,
dtypes, the single node an out-of-place call records and its gradients (create_graph too),
in-place forms, and the list/scalar-list errors."""

from __future__ import annotations

import math

from ._torch import require_torch
from .test_suite7_findings import _same

torch = require_torch()

_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "erf", "erfc", "exp", "expm1", "floor",
          "frac", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt",
          "sign", "sin", "sqrt", "tan", "tanh", "trunc")
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow", "clamp_min", "clamp_max")


def _tensors(m, dtype, shapes=((2,), (3, 2), ())):
    made = []
    for shape in shapes:
        values = m.arange(1, 1 + math.prod(shape), dtype=getattr(m, dtype)).reshape(shape)
        made.append(values * 0.5 if dtype.startswith("float") else values)
    return made


def _inplace(m, name, dtype, *args):
    tensors = _tensors(m, dtype)
    returned = getattr(m, name)(tensors, *args)
    return returned is tensors, tensors


def test_foreach_forms_are_the_per_tensor_ops():
    """Unary, binary (number, number list, tensor list, one tensor), pointwise and lerp forms,
    out of place and in place, over float32/float64/int64/bool/float16 lists: each result is
    the per-tensor op's (dtype, values, promotion and errors: an integer list's exp is float,
    exp_ of it the cast error, bool neg the operator's error); an in-place form returns the
    list it was given. A one-tensor other is a Tensor overload for mul/div (0-d only: torch's
    'scalar tensor expected to be 0 dim'), a number for add, a Number argument (0-d only) for
    the rest; alpha goes with tensor lists only."""
    cases = []
    for dtype in ("float32", "float64", "int64", "bool", "float16"):
        for op in _UNARY:
            cases.append((f"{op} {dtype}", lambda m, op=op, d=dtype: getattr(
                m, f"_foreach_{op}")(_tensors(m, d))))
            cases.append((f"{op}_ {dtype}", lambda m, op=op, d=dtype: _inplace(
                m, f"_foreach_{op}_", d)))
        for op in _BINARY:
            for label, other in (("2", lambda m: 2), ("2.5", lambda m: 2.5),
                                 ("scalars", lambda m: [1, 2.5, 3]),
                                 ("list", lambda m, d=dtype: _tensors(m, d)),
                                 ("float64 list", lambda m: _tensors(m, "float64")),
                                 ("0-d tensor", lambda m: m.tensor(2.5)),
                                 ("1-d tensor", lambda m: m.tensor([2.5])),
                                 ("short list", lambda m, d=dtype: _tensors(m, d)[:2]),
                                 ("short scalars", lambda m: [1, 2])):
                cases.append((f"{op}({dtype}, {label})", lambda m, op=op, d=dtype, o=other:
                              getattr(m, f"_foreach_{op}")(_tensors(m, d), o(m))))
                cases.append((f"{op}_({dtype}, {label})", lambda m, op=op, d=dtype, o=other:
                              _inplace(m, f"_foreach_{op}_", d, o(m))))
        cases += [
            (f"add alpha {dtype}", lambda m, d=dtype: m._foreach_add(
                _tensors(m, d), _tensors(m, d), alpha=2)),
            (f"add number alpha {dtype}", lambda m, d=dtype: m._foreach_add(
                _tensors(m, d), 2, alpha=2)),
            (f"sub_ alpha {dtype}", lambda m, d=dtype: m._foreach_sub_(
                _tensors(m, d), _tensors(m, d), alpha=0.5)),
            (f"addcmul {dtype}", lambda m, d=dtype: m._foreach_addcmul(
                _tensors(m, d), _tensors(m, d), _tensors(m, d), value=2)),
            (f"addcmul scalars {dtype}", lambda m, d=dtype: m._foreach_addcmul(
                _tensors(m, d), _tensors(m, d), _tensors(m, d), [1, 2, 3])),
            (f"addcmul tensor {dtype}", lambda m, d=dtype: m._foreach_addcmul(
                _tensors(m, d), _tensors(m, d), _tensors(m, d), m.tensor([1., 2., 3.]))),
            (f"addcmul short tensor {dtype}", lambda m, d=dtype: m._foreach_addcmul(
                _tensors(m, d), _tensors(m, d), _tensors(m, d), m.tensor([1., 2.]))),
            (f"addcdiv_ {dtype}", lambda m, d=dtype: _inplace(
                m, "_foreach_addcdiv_", d, _tensors(m, d), _tensors(m, d), 0.5)),
            (f"lerp {dtype}", lambda m, d=dtype: m._foreach_lerp(
                _tensors(m, d), _tensors(m, d), 0.5)),
            (f"lerp list {dtype}", lambda m, d=dtype: m._foreach_lerp(
                _tensors(m, d), _tensors(m, d), _tensors(m, d))),
            (f"lerp scalars {dtype}", lambda m, d=dtype: m._foreach_lerp(
                _tensors(m, d), _tensors(m, d), [0.1, 0.2, 0.3])),
            (f"norm {dtype}", lambda m, d=dtype: m._foreach_norm(_tensors(m, d))),
            (f"norm 1 {dtype}", lambda m, d=dtype: m._foreach_norm(_tensors(m, d), 1)),
            (f"norm inf {dtype}", lambda m, d=dtype: m._foreach_norm(_tensors(m, d), math.inf)),
            (f"norm float64 {dtype}", lambda m, d=dtype: m._foreach_norm(
                _tensors(m, d), dtype=m.float64)),
            (f"max {dtype}", lambda m, d=dtype: m._foreach_max(_tensors(m, d))),
            (f"clone {dtype}", lambda m, d=dtype: m._foreach_clone(_tensors(m, d))),
            (f"zero_ {dtype}", lambda m, d=dtype: _inplace(m, "_foreach_zero_", d)),
            (f"copy_ {dtype}", lambda m, d=dtype: _inplace(
                m, "_foreach_copy_", d, _tensors(m, "float64"))),
            (f"pow number base {dtype}", lambda m, d=dtype: m._foreach_pow(2.5, _tensors(m, d))),
        ]
    cases += [
        ("empty list", lambda m: m._foreach_exp([])),
        ("empty lists", lambda m: m._foreach_add([], [])),
        ("not a list", lambda m: m._foreach_add(m.ones(2), 1)),
        ("a number in the list", lambda m: m._foreach_exp([m.ones(2), 1.0])),
        ("a tuple", lambda m: m._foreach_exp((m.ones(2),))),
        ("broadcast list", lambda m: m._foreach_add([m.ones(2, 3)], [m.ones(3)])),
        ("mismatched shapes", lambda m: m._foreach_add([m.ones(2)], [m.ones(3)])),
        ("non-contiguous", lambda m: m._foreach_mul([m.ones(4, 3).t()], [m.ones(3, 4)])),
        ("mixed dtypes", lambda m: m._foreach_mul([m.ones(2), m.ones(2, dtype=m.float64)],
                                                  [m.ones(2, dtype=m.float16),
                                                   m.ones(2, dtype=m.int64)])),
        ("max of empty", lambda m: m._foreach_max([m.ones(0)])),
        ("lerp weights short", lambda m: m._foreach_lerp([m.ones(2)], [m.ones(2)],
                                                         [m.ones(2)] * 2)),
        ("in place on a leaf", lambda m: m._foreach_mul_([m.ones(2, requires_grad=True)], 2)),
    ]
    _same(cases)


def _graph(m, outputs, inputs):
    names = [y.grad_fn.name() if y.grad_fn is not None else None for y in outputs]
    edges = [[(f.name() if f is not None else None, k) for f, k in y.grad_fn.next_functions]
             if y.grad_fn is not None else None for y in outputs]
    loss = sum((y * (i + 1.5)).sum() for i, y in enumerate(outputs))
    wanted = [x for x in inputs if x.requires_grad]
    grads = m.autograd.grad(loss, wanted, create_graph=True, allow_unused=True)
    twice = [g for g in grads if g is not None and g.requires_grad]
    second = m.autograd.grad(sum(g.sum() for g in twice), wanted, allow_unused=True) \
        if twice else None
    return names, edges, [y.requires_grad for y in outputs], outputs, grads, second


def test_foreach_autograd_records_one_node():
    """An out-of-place foreach call that needs grad records one node (torch's generated name:
    ForeachMulBackward1Scalar, ForeachAddBackward0List, ForeachPowBackward2, ...) with an edge
    per tensor of every list in order, every result requiring grad; its gradients and second
    derivatives are the per-tensor ops' (a tensor given in two lists counted once per use);
    an unused result gives its inputs no grad; in-place forms record per-tensor nodes."""

    def inputs(m, needs=(True, False, True)):
        return [m.tensor([0.5, 1.5], requires_grad=needs[0]),
                m.tensor([[2.0, -1.0]], requires_grad=needs[1]),
                m.tensor(0.75, requires_grad=needs[2])]

    def others(m):
        return [m.tensor([1.5, 0.5], requires_grad=True), m.tensor([[1.0, 3.0]]),
                m.tensor(0.25)]

    forms = {
        "exp": lambda m, xs: m._foreach_exp(xs), "sqrt": lambda m, xs: m._foreach_sqrt(xs),
        "sigmoid": lambda m, xs: m._foreach_sigmoid(xs),
        "log1p": lambda m, xs: m._foreach_log1p(xs), "clone": lambda m, xs: m._foreach_clone(xs),
        "mul number": lambda m, xs: m._foreach_mul(xs, 2.5),
        "mul numbers": lambda m, xs: m._foreach_mul(xs, [1, 2.5, -1]),
        "mul list": lambda m, xs: m._foreach_mul(xs, others(m)),
        "mul tensor": lambda m, xs: m._foreach_mul(xs, m.tensor(2.5, requires_grad=True)),
        "add alpha": lambda m, xs: m._foreach_add(xs, others(m), alpha=2),
        "sub list": lambda m, xs: m._foreach_sub(xs, others(m)),
        "div list": lambda m, xs: m._foreach_div(xs, others(m)),
        "pow number": lambda m, xs: m._foreach_pow(xs, 2.0),
        "pow list": lambda m, xs: m._foreach_pow(xs, others(m)),
        "pow base": lambda m, xs: m._foreach_pow(2.0, xs),
        "max": lambda m, xs: m._foreach_max(xs), "norm": lambda m, xs: m._foreach_norm(xs),
        "maximum list": lambda m, xs: m._foreach_maximum(xs, others(m)),
        "clamp_min": lambda m, xs: m._foreach_clamp_min(xs, 0.6),
        "addcmul": lambda m, xs: m._foreach_addcmul(xs, others(m), xs, value=0.5),
        "addcdiv": lambda m, xs: m._foreach_addcdiv(xs, others(m), others(m), [1, 2, 3]),
        "lerp": lambda m, xs: m._foreach_lerp(xs, others(m), 0.3),
        "lerp list": lambda m, xs: m._foreach_lerp(xs, others(m), others(m)),
    }
    cases = []
    for label, form in forms.items():
        for needs in ((True, False, True), (False, False, False)):
            cases.append((f"{label} {needs}", lambda m, f=form, n=needs: (
                lambda xs: _graph(m, f(m, xs), xs))(inputs(m, n))))

    def inplace(m, name, *args):
        tensors = [t.clone() for t in inputs(m)]
        returned = getattr(m, name)(tensors, *args)
        return returned is tensors, [t.grad_fn.name() for t in tensors], tensors

    for name, args in (("_foreach_mul_", (2,)), ("_foreach_add_", (1.5,)),
                       ("_foreach_exp_", ()), ("_foreach_zero_", ()),
                       ("_foreach_lerp_", (others, 0.5)), ("_foreach_pow_", (2,)),
                       ("_foreach_addcmul_", (others, others)),
                       ("_foreach_maximum_", (others,)), ("_foreach_clamp_max_", (1.0,))):
        cases.append((name, lambda m, n=name, a=args: inplace(
            m, n, *[value(m) if callable(value) else value for value in a])))

    def unused(m):
        tensors = [m.ones(2, requires_grad=True), m.ones(3, requires_grad=True)]
        m._foreach_mul(tensors, 2)[0].sum().backward()
        return [t.grad for t in tensors]

    def no_grad(m):
        with m.no_grad():
            return [y.requires_grad for y in m._foreach_exp([m.ones(2, requires_grad=True)])]

    cases += [("an unused result", unused), ("no_grad", no_grad)]
    _same(cases)
