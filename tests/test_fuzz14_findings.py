"""Differences found by the generated-program comparison (tests/differential, seeds 300000 and
up, and the wide op set's seeds from 10_000_000: programs_wide.py), each fixed and checked here
against torch 2.13 as a class (not the one seed). Each test sweeps its class of inputs in one
loop (the suite's time budget)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()

LIBS = (torch, leafgrad)


def _bits(t) -> tuple:
    """Every bit of a tensor's values (signs of zero and of NaN payloads aside)."""
    a = t.detach().numpy()
    if a.dtype.kind == "c":
        a = np.stack([a.real, a.imag])
    if a.dtype.kind == "f":
        return (a.shape, str(a.dtype), np.isnan(a).tobytes(),
                np.where(np.isnan(a), 0, a).tobytes())
    return (a.shape, str(a.dtype), a.tobytes())


def _outcome(run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return run()
        except Exception as error:  # noqa: BLE001 - the type and first line are compared
            return (type(error).__name__, str(error).splitlines()[0].replace("torch.", ""))


def _chain(t, depth: int = 4) -> list:
    names, node = [], t.grad_fn
    while node is not None and len(names) < depth:
        names.append(node.name())
        following = [n for n, _ in node.next_functions if n is not None]
        node = following[0] if following else None
    return names


# -- reductions over no dims, and dim=None given ----------------------------------------------
# (generated-program seeds 10000112, 10000334: x.sum((), keepdim=True) returned x itself, where
# torch's dim_IntList overload reduces every dim for an empty list; x.sum(None) recorded
# SumBackward0 where the explicit None picks that overload too (SumBackward1); count_nonzero
# with dim=() likewise; logsumexp(x, ()) is torch's shape error unless keepdim or empty)

_NO_DIMS = [
    "x.sum(())", "x.sum([], keepdim=True)", "x.sum((), True)", "x.sum(None)",
    "x.sum(dim=None)", "x.sum(None, keepdim=False)", "x.sum(None, dtype=lib.float64)",
    "lib.sum(x, ())", "lib.sum(x, None)", "lib.sum(x, dim=[], keepdim=True)",
    "lib.sum(x, None, True)", "x.mean(())", "x.mean((), True)", "x.mean(None)",
    "x.mean(None, dtype=lib.float64)", "lib.mean(x, None, False)", "lib.mean(x, dim=())",
    "x.count_nonzero(())", "lib.count_nonzero(x, dim=[])", "lib.logsumexp(x, ())",
    "lib.logsumexp(x, (), keepdim=True)", "x.logsumexp([])", "x.nansum(())", "x.sum()",
    "x.mean()", "x.sum(dtype=lib.float64)",
]


def test_reductions_over_no_dims_and_dim_none():
    failures = []
    for form, shape, dtype in itertools.product(
            _NO_DIMS, [(2, 3), (), (0,), (3,), (1, 1), (2, 0)], ["float32", "int64", "bool"]):
        results = []
        for lib in LIBS:
            def run():
                x = lib.tensor(np.arange(np.prod(shape, dtype=int)).reshape(shape) % 3,
                               dtype=getattr(lib, dtype))
                if dtype == "float32":
                    x.requires_grad_()
                r = eval(form, {"x": x, "lib": lib})
                node = None if r.grad_fn is None else r.grad_fn.name()
                return node, tuple(r.shape), str(r.dtype).split(".")[-1], _bits(r), r._version
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, shape, dtype, results))
    assert not failures, (len(failures), failures[:3])


# -- isclose's version counter ----------------------------------------------------------------
# (generated-program seed 10000259: torch's isclose is a composite that ORs into its first
# result in place, once for equal_nan's NaN pairs (floating or complex input) and once for
# the tolerances (not when both are 0); the result's _version shows those writes, 0 here)


def test_isclose_result_version_counts_the_composites_writes():
    failures = []
    dtypes = ["float32", "float64", "float16", "int64", "bool", "complex64", "uint8"]
    calls = ["lib.isclose(x, y)", "x.isclose(y, rtol=0, atol=0)",
             "x.isclose(y, rtol=0, atol=1e-3, equal_nan=True)", "lib.isclose(x, y, equal_nan=True)",
             "lib.isclose(x, y, 0.1, 0, True)", "x.isclose(y, atol=0.5)"]
    for dtype, call in itertools.product(dtypes, calls):
        results = []
        for lib in LIBS:
            def run():
                x = lib.tensor([1, 0, 2], dtype=getattr(lib, dtype))
                y = lib.tensor([1, 1, 0], dtype=getattr(lib, dtype))
                r = eval(call, {"x": x, "y": y, "lib": lib})
                return r.tolist(), r._version, x._version
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((dtype, call, results))
    assert not failures, failures[:3]


# -- complex neg: signs of zero in the vector lanes ---------------------------------------------
# (generated-program seed 10000204: -sin(z) of an expanded complex64 tensor printed -0.j where
# torch prints 0.j: torch's vectorised complex neg is 0 - z, its scalar tail -z)


def test_complex_neg_zero_signs_follow_the_vector_lanes():
    failures = []
    for n, dtype, layout, form in itertools.product(
            (1, 3, 4, 5, 8, 9, 17, 33), ("complex64", "complex128"),
            ("plain", "t", "expand", "step", "column"), ("neg", "-", "negative", "neg_")):
        results = []
        for lib in LIBS:
            values = np.zeros(n)
            values[::3] = -1.5
            values[1::4] = -0.0
            values[2::5] = 2.25
            x = lib.tensor(values, dtype=getattr(lib, dtype))
            x = {"plain": lambda: x, "t": lambda: x.reshape(-1, 1).expand(-1, 3).t(),
                 "expand": lambda: x.unsqueeze(0).expand(2, -1), "step": lambda: x[::2],
                 "column": lambda: x.reshape(1, -1).t()}[layout]()
            if form == "neg_":
                x = x.clone()
                x.neg_()
                r = x
            else:
                r = {"neg": lambda: x.neg(), "-": lambda: -x,
                     "negative": lambda: lib.negative(x)}[form]()
            a = r.numpy()
            results.append((np.signbit(a.real).tolist(), np.signbit(a.imag).tolist(),
                            repr(r).replace("torch.", "").replace("leafgrad.", "")))
        if results[0] != results[1]:
            failures.append((n, dtype, layout, form, results))
    assert not failures, (len(failures), failures[:2])


# -- index_copy / index_add: the source's gradient as derivatives.yaml writes it; alpha fused --
# (generated-program seed 10000689: under create_graph the source's gradient of index_copy_
# was a ViewBackward0 of the index_select, torch's is expand_as(source) (ExpandBackward0), a
# 0-d source's the engine's sum (SumBackward0), index_add's alpha a mul.Scalar (MulBackward1);
# and index_add with an alpha into a tensor of 2+ dims adds self + alpha * source rounded
# once, as torch's add kernel does: leafgrad rounded the product first)

_INDEX_CASES = [((1,), [0], (1,), 0), ((3,), [0, 2], (2,), 0), ((3, 2), [1], (1, 2), 0),
                ((3, 2), [1, 0], (2, 2), 0), ((3, 2), [1, 0, 2], (3, 2), 0), ((), [0], (), 0),
                ((2,), [1], (), 0), ((2, 3), [2, 0], (2, 2), -1), ((2, 3), [2, 0, 2], (2, 3), 1),
                ((3,), [2, 2, 0], (3,), 0), ((4, 2, 3), [1, 1, 3], (3, 2, 3), 0)]


def test_index_copy_and_index_add_source_gradients_and_alpha():
    failures = []
    ops = ["index_copy", "index_copy_", "index_add", "index_add_", "index_add_alpha",
           "index_add_alpha_", "torch_index_add_alpha"]
    for (shape, idx, source_shape, dim), op, create, dtype in itertools.product(
            _INDEX_CASES, ops, (True, False), ("float32", "float64")):
        if op.startswith("index_copy") and len(set(idx)) != len(idx):
            continue  # (which copy wins is torch's unspecified order)
        results = []
        for lib in LIBS:
            def run():
                src = lib.tensor(np.linspace(-1, 1, int(np.prod(source_shape)))
                                 .reshape(source_shape).astype(dtype), requires_grad=True)
                x = lib.tensor(np.linspace(0.3, 2.1, int(np.prod(shape))).reshape(shape)
                               .astype(dtype), requires_grad=True)
                y, i, s = x * 1, lib.tensor(idx), src * 1
                if op == "index_copy":
                    y = y.index_copy(dim, i, s)
                elif op == "index_copy_":
                    y.index_copy_(dim, i, s)
                elif op == "index_add":
                    y = y.index_add(dim, i, s)
                elif op == "index_add_":
                    y.index_add_(dim, i, s)
                elif op == "index_add_alpha":
                    y = y.index_add(dim, i, s, alpha=0.3)
                elif op == "index_add_alpha_":
                    y.index_add_(dim, i, s, alpha=-1.7)
                else:
                    y = lib.index_add(y, dim, i, s, alpha=2.5)
                grads = lib.autograd.grad((y * y).sum(), (x, src), create_graph=create)
                return _bits(y), [(_chain(g), _bits(g)) for g in grads]
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((shape, idx, source_shape, dim, op, create, dtype))
    assert not failures, (len(failures), failures[:4])


# -- float16 activations: computed in float32, rounded once -------------------------------------
# (generated-program seed 10002968: sigmoid of a float16 tensor printed 1.2305 where torch
# prints 1.2295: torch's kernels convert float16 to float32, compute there and round the result
# once; leafgrad computed in float16, rounding every step; silu, mish, hardswish, logsigmoid
# and the elu family likewise: seed 10006536)

_HALF_FORMS = ["x.sigmoid()", "lib.sigmoid(x)", "x.clone().sigmoid_()", "F.silu(x)",
               "F.silu(x.clone(), inplace=True)", "F.mish(x)", "F.hardswish(x)",
               "F.logsigmoid(x)", "lib.nn.SiLU()(x)", "lib.nn.Hardswish()(x)", "F.elu(x)",
               "F.selu(x)", "F.celu(x, 0.7)", "F.elu(x.clone(), 1.5, inplace=True)"]


def test_float16_activations_round_once_from_float32():
    failures = []
    values = np.linspace(-6, 6, 961).astype(np.float16)
    for form, layout in itertools.product(_HALF_FORMS, ("plain", "t", "step", "expand")):
        results = []
        for lib in LIBS:
            x = lib.tensor(values.reshape(31, 31))
            x = {"plain": lambda: x, "t": lambda: x.t(), "step": lambda: x[:, ::2],
                 "expand": lambda: x[0].expand(3, -1)}[layout]()
            results.append(_outcome(lambda: _bits(eval(form, {"x": x, "lib": lib,
                                                              "F": lib.nn.functional}))))
        if results[0] != results[1]:
            failures.append((form, layout))
    assert not failures, failures


# -- copy_ from another dtype: the source's gradient is cast, then summed ---------------------
# (generated-program seed 10002708: a float64 (1, 2, 3) source copied into a float32 view:
# torch's CopyBackwards casts the gradient to the source's dtype and the engine then sums it to
# the source's shape (SumBackward1 of ToCopyBackward0, the sum in float64); leafgrad summed in
# float32 and cast after)


def test_copy_from_another_dtype_casts_the_gradient_before_summing():
    failures = []
    cases = [((3, 2), (3, 2)), ((1, 2), (3, 2)), ((2,), (3, 2)), ((1,), (3, 2)),
             ((2, 1), (3, 2, 1)), ((), (4,)), ((5, 1), (5, 7))]
    dtypes = ["float32", "float64", "float16"]
    for (src_shape, dst_shape), src_dtype, dst_dtype, form, create in itertools.product(
            cases, dtypes, dtypes, ("copy_", "setitem", "view copy_"), (True, False)):
        results = []
        for lib in LIBS:
            def run():
                values = np.linspace(-1.3, 2.9, int(np.prod(src_shape))).reshape(src_shape)
                s = lib.tensor(values, dtype=getattr(lib, src_dtype), requires_grad=True)
                m = s * 1.1
                d = lib.zeros(dst_shape, dtype=getattr(lib, dst_dtype))
                if form == "copy_":
                    d.copy_(m)
                elif form == "setitem":
                    d[...] = m
                else:
                    d.t().t().copy_(m)
                weight = lib.tensor(np.linspace(0.1, 3.7, int(np.prod(dst_shape)))
                                    .reshape(dst_shape), dtype=getattr(lib, dst_dtype))
                g, = lib.autograd.grad((d * weight).sum(), s, create_graph=create)
                return _chain(g), _bits(g)
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((src_shape, dst_shape, src_dtype, dst_dtype, form, create))
    assert not failures, (len(failures), failures[:4])


# -- backward formulas' number * tensor: mul.Scalar / div.Scalar nodes -------------------------
# (generated-program seeds 10003900, 10004506: under create_graph erf's gradient recorded
# 2/sqrt(pi) * exp(-x^2) as MulBackward0 where torch's C++ formula makes a mul.Scalar
# (MulBackward1), likewise erfc and erfinv; var_mean/std_mean's mean gradient divided by the
# count as DivBackward0 where torch's mean_backward records DivBackward1)


def _edges(node, depth=3):
    if node is None or depth == 0:
        return None
    return node.name(), tuple(_edges(child, depth - 1) for child, _ in node.next_functions)


def test_scalar_products_in_backward_formulas_are_scalar_nodes():
    failures = []
    forms = ["x.erf()", "lib.erfc(x)", "(x * 0.5).erfinv()", "lib.special.erf(x)",
             "lib.var_mean(x, 0)[1]", "lib.std_mean(x, 1, keepdim=True)[1]",
             "lib.var_mean(x)[1]", "lib.var_mean(x, 0, correction=0)",
             "lib.std_mean(x, (0, 1))"]
    for form, dtype in itertools.product(forms, ("float32", "float64")):
        results = []
        for lib in LIBS:
            def run():
                x = lib.tensor(np.array([[0.4, -1.3], [-1.1, 0.25]]), dtype=getattr(lib, dtype),
                               requires_grad=True)
                r = eval(form, {"x": x, "lib": lib})
                total = r.sum() if not isinstance(r, tuple) else r[0].sum() * r[1].sum()
                g, = lib.autograd.grad(total * 1.5, x, create_graph=True)
                if not g.requires_grad:
                    return _edges(g.grad_fn), _bits(g)
                h, = lib.autograd.grad((g * g).sum(), x)
                return _edges(g.grad_fn), _bits(g), _bits(h)
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, dtype, results))
    assert not failures, failures[:2]


# -- nansum with dtype=: the gradient is cast before the mask ---------------------------------
# (generated-program seed 10004867: x.nansum(-1, keepdim=True, dtype=float32) of a float64 x:
# torch's formula is nansum_backward(grad.to(self's dtype), ...), so under create_graph the
# cast sits below the mask's product (MulBackward0 of ExpandBackward0 of ToCopyBackward0);
# leafgrad cast the product (ToCopyBackward0 on top) and masked in float32; and the forward
# with dtype= summed in NumPy's order (the last bits of a float32 sum), where torch loads the
# input in that dtype and sums in its own order)


def test_nansum_with_dtype_casts_the_gradient_first():
    failures = []
    # (a full reduction without dims is left: torch expands its 0-d gradient directly,
    # leafgrad unsqueezes it first: UnsqueezeBackward0 nodes under create_graph)
    forms = ["x.nansum(-1, keepdim=True, dtype=lib.float32)", "x.nansum((0, 1), dtype=lib.float64)",
             "x.nansum(0)", "lib.nansum(x, 1, dtype=lib.float16)",
             "lib.nansum(x, (1, 0), True, dtype=lib.float32)"]
    for form, dtype in itertools.product(forms, ("float32", "float64")):
        results = []
        for lib in LIBS:
            def run():
                values = np.array([[0.4, np.nan, -1.3], [0.1, 2.2, np.nan]])
                x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
                r = eval(form, {"x": x, "lib": lib})
                g, = lib.autograd.grad((r * r).sum(), x, create_graph=True)
                return _edges(g.grad_fn, 4), _bits(g)
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, dtype, results))
    assert not failures, failures[:2]


# -- in-place writes into empty expanded tensors ----------------------------------------------
# (generated-program seed 10007996: a hook's g.mul_(3) on the empty gradient of an empty slice
# of an expanded leaf raised leafgrad's internal-overlap error; torch's has_internal_overlap
# answers No for an empty tensor, which is contiguous whatever its strides)

_EMPTY_WRITES = ["b.mul_(3)", "b.add_(1)", "b.zero_()", "b.fill_(2)",
                 "b.copy_(lib.ones(b.shape))", "b.clamp_(0, 1)", "b.exp_()",
                 "b.index_fill_(1, lib.tensor([0]), 1.)",
                 "b.masked_fill_(lib.ones(b.shape, dtype=lib.bool), 1.)", "b.neg_()", "b += 1",
                 "b[...] = 2"]
_EXPANDED = ["lib.zeros(()).expand(0, 3)", "lib.zeros(1, 3).expand(0, 3)",
             "lib.zeros(3).expand(2, 0, 3)", "lib.zeros(2, 1).expand(2, 0)",
             "lib.zeros(1, 3).expand(2, 3)"]


def test_writes_into_empty_expanded_tensors_do_not_overlap():
    failures = []
    for form, make in itertools.product(_EMPTY_WRITES, _EXPANDED):
        results = []
        for lib in LIBS:
            def run():
                b = eval(make, {"lib": lib})
                exec(form, {"b": b, "lib": lib})
                return tuple(b.shape), b._version
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, make, results))
    hooked = []
    for lib in LIBS:  # the generated program's hook
        def run():
            x = lib.tensor([[-0.58, 0.76, -0.76]], requires_grad=True)
            y = x.expand(2, 1, 3)[1:1].exp()
            y.register_hook(lambda g: g.mul_(3))
            y.sum().backward()
            return _bits(x.grad)
        hooked.append(_outcome(run))
    if hooked[0] != hooked[1]:
        failures.append(("hook", hooked))
    assert not failures, failures[:3]
