"""Findings of the op_db deep replay (tests/opinfo/test_opinfo_deep.py) about forward AD and
graph structure: tangents torch gives and leafgrad did not, nodes torch records, strides of
empty results and errors, each swept over its class against torch 2.13."""

import warnings

import numpy as np

import leafgrad
from tests._torch import require_torch


def _ours(t):
    return None if t is None else leafgrad.tensor(t.detach().resolve_conj().numpy().copy())


def _same(expected, got, where, bitwise=True):
    assert (expected is None) == (got is None), f"{where}: torch {expected is None}, ours {got is None}"
    if expected is None:
        return
    expected, got = expected.detach().resolve_conj().numpy(), got.detach().numpy()
    assert expected.shape == got.shape, f"{where}: {expected.shape} {got.shape}"
    assert str(expected.dtype) == str(got.dtype), where
    if bitwise:
        np.testing.assert_array_equal(got, expected, err_msg=where)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12, err_msg=where)


def _tangents(lib, fn, inputs, tangents):
    """The outputs' tangents of fn at duals (inputs, tangents); None where no tangent."""
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        duals = [x if t is None else fw.make_dual(x, t) for x, t in zip(inputs, tangents)]
        out = fn(lib, *duals)
        out = out if isinstance(out, tuple) else (out,)
        return [fw.unpack_dual(o).tangent for o in out]


def _forward_over_reverse(lib, fn, x, tangent, seed):
    """The tangent of grad(fn(x), x, v) (a backward run on dual tensors)."""
    torch = require_torch()
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        dual = fw.make_dual(x, tangent).requires_grad_()
        out = [o for o in fn(lib, dual) if o.requires_grad] if isinstance(
            fn(lib, dual), tuple) else [fn(lib, dual)]
        torch.manual_seed(seed)
        drawn = [torch.randn(tuple(o.shape), dtype=torch.float64) for o in out]
        v = drawn if lib is torch else [_ours(d) for d in drawn]
        (grad,) = lib.autograd.grad(out, [dual], v, create_graph=True)
        return fw.unpack_dual(grad).tangent


def _lu_forms():
    return {
        "linalg.lu_factor": lambda lib, a: tuple(lib.linalg.lu_factor(a)),
        "linalg.lu_factor_ex": lambda lib, a: tuple(lib.linalg.lu_factor_ex(a)),
        "linalg.lu": lambda lib, a: tuple(lib.linalg.lu(a)),
        "lu": lambda lib, a: tuple(lib.lu(a)),
    }


def test_lu_forward_ad_is_torchs_lu_factor_ex_jvp():
    """lu_factor(_ex), linalg.lu and torch.lu carry tangents (torch's lu_factor_ex_jvp /
    linalg_lu_jvp: dK = L1^-1 P^T dA1 U1^-1 split into dL and dU); leafgrad's custom Function
    had no jvp and raised. Square, wide, tall, batched, empty, transposed and complex inputs,
    tangents bitwise (complex to rounding)."""
    torch = require_torch()
    warnings.filterwarnings("ignore", message="torch.lu is deprecated")
    torch.manual_seed(0)
    shapes = ((3, 3), (2, 4), (4, 2), (2, 3, 3), (2, 3, 5), (2, 5, 3), (0, 3, 3), (3, 0), (1, 1))
    for dtype in (torch.float64, torch.complex128):
        for shape in shapes:
            for transposed in (False, True):
                a = torch.randn(shape, dtype=dtype)
                t = torch.randn(shape, dtype=dtype)
                if transposed and len(shape) >= 2:
                    a = a.mT.contiguous().mT
                for name, fn in _lu_forms().items():
                    where = f"{name} {shape} {dtype} {transposed}"
                    expected = _tangents(torch, fn, [a], [t])
                    got = _tangents(leafgrad, fn, [_ours(a)], [_ours(t)])
                    assert len(expected) == len(got)
                    for index, (e, g) in enumerate(zip(expected, got)):
                        # (complex: torch's complex BLAS last bits, COMPLEX in the deep replay)
                        _same(e, g, f"{where} tangent[{index}]",
                              bitwise=dtype is torch.float64)


def test_lu_backward_records_torchs_nodes():
    """lu_factor_ex's backward is torch's linalg_lu_backward ending in P @ grad: its double
    backward records MmBackward0 (BmmBackward0/UnsafeViewBackward0 batched) where leafgrad's
    row gather recorded GatherBackward0; grads, gradgrads and forward-over-reverse tangents
    bitwise."""
    torch = require_torch()
    warnings.filterwarnings("ignore", message="torch.lu is deprecated")
    torch.manual_seed(1)
    for shape in ((3, 3), (2, 4), (4, 2), (2, 3, 3), (2, 2, 4), (2, 4, 2)):
        a = torch.randn(shape, dtype=torch.float64)
        t = torch.randn(shape, dtype=torch.float64)
        for name, fn in _lu_forms().items():
            where = f"{name} {shape}"
            results = []
            for lib, x in ((torch, a), (leafgrad, _ours(a))):
                x = x.clone().requires_grad_()
                out = [o for o in fn(lib, x) if o.requires_grad]
                torch.manual_seed(3)
                drawn = [torch.randn(tuple(o.shape), dtype=torch.float64) for o in out]
                v = drawn if lib is torch else [_ours(d) for d in drawn]
                (grad,) = lib.autograd.grad(out, [x], v, create_graph=True)
                w = torch.randn(tuple(grad.shape), dtype=torch.float64)
                (second,) = lib.autograd.grad([grad], [x], [w if lib is torch else _ours(w)])
                results.append((type(grad.grad_fn).__name__, grad, second))
            assert results[0][0] == results[1][0], where
            _same(results[0][1], results[1][1], f"{where} grad")
            _same(results[0][2], results[1][2], f"{where} gradgrad")
            expected = _forward_over_reverse(torch, fn, a, t, 4)
            got = _forward_over_reverse(leafgrad, fn, _ours(a), _ours(t), 4)
            _same(expected, got, f"{where} forward-over-reverse")


def test_matrix_exp_forward_ad():
    """linalg.matrix_exp's tangent is torch's linalg_matrix_exp_differential (the top-right
    block of exp([[A, dA], [0, A]])); leafgrad's Function had no jvp. Real and complex (a
    custom Function's complex output takes a tangent, as torch's), batched, empty, 1 x 1,
    forward-over-reverse; values to rounding (leafgrad's Pade approximant is not torch's
    Taylor polynomial: docs)."""
    torch = require_torch()
    torch.manual_seed(2)

    def fn(lib, a):
        return lib.linalg.matrix_exp(a)

    for dtype in (torch.float64, torch.complex128):
        for shape in ((3, 3), (2, 4, 4), (0, 3, 3), (1, 1), (2, 1, 1), (5, 5)):
            a = torch.randn(shape, dtype=dtype) / 2
            t = torch.randn(shape, dtype=dtype)
            where = f"matrix_exp {shape} {dtype}"
            (expected,) = _tangents(torch, fn, [a], [t])
            (got,) = _tangents(leafgrad, fn, [_ours(a)], [_ours(t)])
            _same(expected, got, where, bitwise=False)
            if dtype is torch.float64:
                expected = _forward_over_reverse(torch, fn, a, t, 5)
                got = _forward_over_reverse(leafgrad, fn, _ours(a), _ours(t), 5)
                _same(expected, got, where + " forward-over-reverse", bitwise=False)


def test_native_group_norm_statistics_tangents():
    """native_group_norm's mean and rstd outputs carry torch's group_norm_mean_jvp and
    group_norm_invstd_jvp tangents (leafgrad gave None): mean bitwise, rstd bitwise from the
    same statistics (leafgrad's statistics differ from torch's in the last bits: NORM in
    tests/opinfo/test_opinfo_deep.py), checked here against the formula run in torch on
    torch's statistics and against torch's tangent to rounding."""
    torch = require_torch()
    torch.manual_seed(4)
    for shape, groups in (((2, 6, 3), 3), ((1, 4, 2, 2), 2), ((3, 2), 1), ((0, 4, 3), 2),
                          ((2, 4), 4), ((2, 4, 5), 1)):
        n, c, hxw = shape[0], shape[1], int(np.prod(shape[2:]))
        for subset in ("x", "w", "b", "xwb"):
            x, w, b = (torch.randn(s, dtype=torch.float64) for s in (shape, (c,), (c,)))
            tangents = [torch.randn_like(v) if name in subset else None
                        for name, v in zip("xwb", (x, w, b))]

            def fn(lib, *args):
                return tuple(lib.native_group_norm(*args, n, c, hxw, groups, 1e-5))

            expected = _tangents(torch, fn, [x, w, b], tangents)
            got = _tangents(leafgrad, fn, [_ours(x), _ours(w), _ours(b)],
                            [_ours(t) for t in tangents])
            where = f"native_group_norm {shape} {groups} {subset}"
            _same(expected[1], got[1], where + " mean")
            for index in (0, 2):
                _same(expected[index], got[index], f"{where} [{index}]", bitwise=False)
            if tangents[0] is not None:
                _, mean, rstd = torch.native_group_norm(x, w, b, n, c, hxw, groups, 1e-5)
                view = (1, n * groups, -1 if n else 1)
                formula = (x.reshape(view) - x.reshape(view).mean((2,), True)) * (
                    tangents[0].reshape(view) - mean.reshape(view))
                formula = (formula * -rstd.reshape(view).pow(3)).sum((2,)) / formula.shape[2]
                _same(expected[2], _ours(formula.view_as(rstd)), where + " formula")


def test_lstsq_solution_and_residuals_tangents():
    """linalg.lstsq under forward AD: the solution keeps its tangent (leafgrad rebuilt it in
    torch's column-major layout, dropping it) and empty residuals get an empty tangent
    (torch's linalg_lstsq_residuals_jvp), rank and singular values none; every driver, tall,
    wide, vector and batched right-hand sides, every subset of inputs with a tangent."""
    torch = require_torch()
    torch.manual_seed(5)
    cases = (((5, 3), (5, 2)), ((3, 5), (3, 2)), ((5, 3), (5,)), ((2, 5, 3), (2, 5, 4)),
             ((4, 4), (4, 1)))
    for shape_a, shape_b in cases:
        a, b = torch.randn(shape_a, dtype=torch.float64), torch.randn(shape_b, dtype=torch.float64)
        for driver in (None, "gels", "gelsy", "gelsd", "gelss"):
            for subset in ((True, False), (False, True), (True, True)):
                tangents = [torch.randn_like(v) if on else None for v, on in zip((a, b), subset)]

                def fn(lib, x, y):
                    return tuple(lib.linalg.lstsq(x, y, driver=driver))

                expected = _tangents(torch, fn, [a, b], tangents)
                got = _tangents(leafgrad, fn, [_ours(a), _ours(b)], [_ours(t) for t in tangents])
                where = f"lstsq {shape_a} {shape_b} {driver} {subset}"
                for index, (e, g) in enumerate(zip(expected, got)):
                    _same(e, g, f"{where} [{index}]", bitwise=False)


def _outcome(lib, fn):
    """('ok', values as a list) or ('raised', type name, first line)."""
    try:
        result = fn(lib)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return ("raised", type(error).__name__, str(error).splitlines()[0] if str(error) else "")
    return ("ok", str(result.dtype).split(".")[-1], result.tolist())


def _same_outcomes(cases):
    torch = require_torch()
    for label, fn in cases:
        expected, got = _outcome(torch, fn), _outcome(leafgrad, fn)
        assert expected == got, f"{label}: torch {expected}, leafgrad {got}"


def test_alias_argument_errors_are_torchs():
    """multiply, subtract and divide (functions and methods, in place too) are torch functions
    of their own: a keyword none of their overloads takes is their parser's error, naming them
    and listing the overloads where several take that many arguments (subtract(t, 3,
    rounding_mode=...), div(t, 3, alpha=...)); leafgrad's aliases gave Python's error naming
    mul/sub/div. Valid calls keep working."""
    warnings.filterwarnings("ignore")

    def t(lib):
        return lib.ones(3)

    def alias_calls():
        # (mul and sub themselves still give Python's unknown-keyword error before the type
        # error torch's parser finds first: mul(t, 'a', alpha=2); not swept here)
        for name in ("div", "divide", "subtract", "multiply", "true_divide"):
            for other in (3, 2.5, "t", "a", None):
                for keywords in ({}, {"alpha": 2}, {"rounding_mode": "floor"},
                                 {"rounding_mode": None}, {"bad": 1}, {"alpha": "x"}):
                    def call(lib, name=name, other=other, keywords=keywords):
                        x = t(lib)
                        value = x if other == "t" else other
                        return getattr(lib, name)(x, value, **keywords)

                    def method(lib, name=name, other=other, keywords=keywords, suffix=""):
                        x = t(lib)
                        value = x.clone() if other == "t" else other
                        return getattr(x, name + suffix)(value, **keywords)

                    label = f"{name}(t, {other!r}, {keywords})"
                    yield label, call
                    yield "Tensor." + label, method
                    if name not in ("true_divide",):
                        yield "Tensor." + label + " in place", \
                            lambda lib, method=method: method(lib, suffix="_")

    _same_outcomes(list(alias_calls()))


def test_abs_of_complex_into_out():
    """abs of a complex input writes a complex out of the input's dtype (the complex kernel's
    result) or a real out the real result can be cast to (torch's
    unary_op_impl_with_complex_to_float_out); leafgrad required the real result's dtype."""
    dtypes = ("float16", "float32", "float64", "int64", "complex64", "complex128")
    cases = []
    for source in ("float32", "float64", "complex64", "complex128"):
        for target in dtypes:
            for name in ("abs", "absolute"):
                def call(lib, source=source, target=target, name=name):
                    x = lib.tensor([3 + 4j, -1j, 2]) if "complex" in source else \
                        lib.tensor([-3., 0., 2.])
                    x = x.to(getattr(lib, source))
                    out = lib.empty(2, dtype=getattr(lib, target))
                    result = getattr(lib, name)(x, out=out)
                    assert result is out
                    return out

                cases.append((f"{name} {source} -> {target}", call))

    def into_itself(lib):
        x = lib.tensor([3 + 4j, -1j]).to(lib.complex64)
        lib.abs(x, out=x)
        return x

    cases.append(("abs(c, out=c)", into_itself))
    _same_outcomes(cases)


def test_index_add_checks_in_torchs_order():
    """index_add's checks in torch's order (index_func_meta_impl): the indexing dim against the
    source's dims, the count of indices (a 0-d source's message reads source.size(dim), which
    raises IndexError 'Dimension specified as 0 but tensor has no dimensions'), then the
    shapes but dim, whole shapes when either is 0-d (a 0-d self took a 1-d source)."""
    cases = []
    for self_shape in ((), (3,), (2, 3)):
        for source_shape in ((), (1,), (2,), (3,), (1, 3), (2, 3), (2, 1)):
            for index in ([0], [0, 1], []):
                for dim in (0, -1):
                    for form in ("index_add", "index_add_"):
                        def call(lib, self_shape=self_shape, source_shape=source_shape,
                                 index=index, dim=dim, form=form):
                            x = lib.ones(self_shape)
                            return getattr(x, form)(dim, lib.tensor(index, dtype=lib.long),
                                                    lib.ones(source_shape) * 2, alpha=3)

                        cases.append((f"{form} {self_shape} {source_shape} {index} {dim}", call))
    _same_outcomes(cases)


def test_inplace_integer_kernels_check_the_shape_first():
    """An in-place bitwise/shift/gcd op whose other operand broadcasts beyond self is
    TensorIterator's shape error before its dtype dispatch (leafgrad: 'bitwise_and_cpu not
    implemented for Float' first), for every self dtype and operand shape."""
    cases = []
    for name in ("bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_",
                 "bitwise_right_shift_", "gcd_", "lcm_", "__iand__", "__ior__", "__ixor__"):
        for self_dtype in ("float32", "int64", "bool", "int32"):
            for other_dtype in ("int64", "float32", "bool"):
                for other_shape in ((3,), (2, 3), (1, 3), (2, 1)):
                    def call(lib, name=name, self_dtype=self_dtype, other_dtype=other_dtype,
                             other_shape=other_shape):
                        x = lib.ones(3, dtype=getattr(lib, self_dtype))
                        other = lib.ones(other_shape, dtype=getattr(lib, other_dtype))
                        return getattr(x, name)(other)

                    cases.append((f"{name} {self_dtype} {other_dtype} {other_shape}", call))
    _same_outcomes(cases)


def test_triangular_solve_is_torchs_one_node():
    """torch.triangular_solve records one TriangularSolveBackward0 for both outputs (leafgrad:
    LinalgSolveTriangularBackward0 and a CloneBackward0), with torch's formulas: its jvp takes
    dA whole and untransposed (triangular_solve(db - dA X, A, ...), generic_solve_jvp: leafgrad's
    composite gave the triangle's true derivative, far from torch's), the coefficient is
    broadcast to the solution's batch and column-major. Every flag, batched and broadcast
    shapes, every subset of inputs requiring grad: names, strides, values, grads, gradgrads,
    tangents (to rounding: LAPACK's trtrs against leafgrad's solve)."""
    torch = require_torch()
    warnings.filterwarnings("ignore", message="torch.triangular_solve is deprecated")
    torch.manual_seed(6)
    shapes = (((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 4)), ((3, 3), (2, 3, 1)), ((0, 3, 3), (0, 3, 2)))
    for shape_a, shape_b in shapes:
        a = torch.randn(shape_a, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
        b = torch.randn(shape_b, dtype=torch.float64)
        ta, tb = torch.randn_like(a), torch.randn_like(b)
        for upper in (True, False):
            for transpose in (False, True):
                for unit in (False, True):
                    for needs in ((True, False), (False, True), (True, True)):
                        where = f"{shape_a} {shape_b} {upper} {transpose} {unit} {needs}"
                        results = []
                        for lib, conv in ((torch, lambda t: t), (leafgrad, _ours)):
                            x = conv(a).requires_grad_(needs[0])
                            y = conv(b).requires_grad_(needs[1])
                            out = lib.triangular_solve(y, x, upper, transpose, unit)
                            torch.manual_seed(7)
                            v = [torch.randn(tuple(o.shape), dtype=torch.float64) for o in out]
                            inputs = [t for t, need in zip((x, y), needs) if need]
                            grads = lib.autograd.grad(list(out), inputs, [conv(t) for t in v],
                                                      create_graph=True)
                            names = [type(o.grad_fn).__name__ for o in out] + [
                                type(g.grad_fn).__name__ for g in grads]
                            strides = [tuple(o.stride()) for o in out]
                            results.append((names, strides, out, grads))
                        assert results[0][:2] == results[1][:2], where
                        for e, g in zip(results[0][2] + results[0][3],
                                        results[1][2] + results[1][3]):
                            _same(e, g, where, bitwise=False)
                        tangents = [ta if needs[0] else None, tb if needs[1] else None]

                        def fn(lib, x, y, flags=(upper, transpose, unit)):
                            return tuple(lib.triangular_solve(y, x, *flags))

                        try:
                            expected = _tangents(torch, fn, [a, b], tangents)
                        except RuntimeError as error:  # (A's tangent on a broadcast A)
                            expected = str(error)
                        try:
                            got = _tangents(leafgrad, fn, [_ours(a), _ours(b)],
                                            [_ours(t) for t in tangents])
                        except RuntimeError as error:
                            got = str(error)
                        assert isinstance(expected, str) == isinstance(got, str), where
                        if isinstance(expected, str):
                            assert expected == got, where
                            continue
                        for index, (e, g) in enumerate(zip(expected, got)):
                            _same(e, g, f"{where} tangent[{index}]", bitwise=False)


def test_native_group_norm_statistics_gradients_reach_the_input():
    """Gradients flowing into native_group_norm's mean and rstd outputs reach the input (torch
    takes infinitely_differentiable_native_group_norm_backward whenever they are defined: their
    var_mean backward, when both have one); leafgrad dropped them ('appears to not have been
    used in the graph' for mean.sum() + rstd.sum()). Every subset of the three outputs used, with and without weight and
    bias, create_graph or not, values to rounding."""
    torch = require_torch()
    torch.manual_seed(8)
    for shape, groups in (((2, 6, 3), 3), ((1, 4, 2, 2), 2), ((3, 2), 1)):
        n, c, hxw = shape[0], shape[1], int(np.prod(shape[2:]))
        x, w, b = (torch.randn(s, dtype=torch.float64) for s in (shape, (c,), (c,)))
        for affine in (False, True):
            for used in ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)):
                for create in ((False, True) if len(used) > 1 else (False,)):
                    results = []
                    for lib, conv in ((torch, lambda t: t), (leafgrad, _ours)):
                        inputs = [conv(t).requires_grad_() for t in ((x, w, b) if affine else (x,))]
                        args = inputs if affine else inputs + [None, None]
                        out = lib.native_group_norm(*args, n, c, hxw, groups, 1e-5)
                        torch.manual_seed(9)
                        v = [torch.randn(tuple(out[i].shape), dtype=torch.float64) for i in used]
                        grads = lib.autograd.grad([out[i] for i in used], inputs,
                                                  [conv(t) for t in v], create_graph=create,
                                                  allow_unused=True)
                        results.append(grads)
                    where = f"{shape} {groups} {affine} {used} {create}"
                    for e, g in zip(*results):
                        _same(e, g, where, bitwise=False)


def test_empty_elementwise_results_take_tensoriterators_strides():
    """An empty elementwise result with a number among its operands (x.add(1), isinf as
    abs(x) == inf, where(c, x, 0.)) gets TensorIterator's strides: when its order of dims is not
    the reversed one, compatible_stride's products of the sizes, so 0 after a 0-size dim
    (torch.empty(0, 1, 3).add(1) is (3, 0, 1)-strided; leafgrad gave row-major); operands all
    of the result's shape take the fast setup (row-major: every empty tensor is contiguous)."""
    torch = require_torch()
    shapes = ((0, 1, 3), (0, 3), (1, 0), (2, 0, 1), (0, 1, 1), (1, 1, 0), (3, 0, 2), (0,),
              (1, 0, 1, 3), (0, 1), (2, 1, 0, 1))
    forms = {
        "add number": lambda lib, x: x.add(1),
        "mul number": lambda lib, x: x * 2,
        "sub number": lambda lib, x: x - 2,
        "isinf": lambda lib, x: lib.isinf(x),
        "where": lambda lib, x: lib.where(x > 0, x, 0.),
        "x + x": lambda lib, x: x + x,
        "exp": lambda lib, x: x.exp(),
        "gt": lambda lib, x: x > 0,
        "broadcast": lambda lib, x: x + lib.ones(x.shape[-1:]),
    }
    for shape in shapes:
        for name, fn in forms.items():
            for transposed in (False, True) if len(shape) >= 2 else (False,):
                results = []
                for lib in (torch, leafgrad):
                    x = lib.empty(shape)
                    x = x.transpose(0, 1) if transposed else x
                    result = fn(lib, x)
                    results.append((tuple(result.shape), tuple(result.stride())))
                assert results[0] == results[1], f"{name} {shape} {transposed}: {results}"
