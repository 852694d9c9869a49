"""Differences from torch 2.13 found in the left7 review, each checked against torch itself.

1. ``tensordot`` (and ``inner``, which is tensordot over the last dims) with nothing left free
   on either side is torch's dot of the two flattened operands when both are contiguous as
   permuted, else the sum of their product: torch's graph (DotBackward0 or SumBackward0 over
   MulBackward0), its bits, and its error for bool ("dot" not implemented). Size-1 contracted
   dims are summed in the operand's own dtype (a bool stays bool).
2. ``scaled_dot_product_attention``'s node keeps the ``scale`` argument as given: torch's
   ``_saved_scale`` is None by default.
3. ``linalg.lu_solve`` is one LinalgLuSolveBackward0 node with torch's formulas (it was the
   composite's last triangular solve), its values MKL's getrs as torch calls it, with torch's
   strides, checks (in torch's order) and ``out=``.
4. Real torch asking leafgrad's ``__torch_function__`` about a leafgrad tensor (a script that
   mixes the two libraries: ``torch.ones(2) + leafgrad.ones(2)``) gets NotImplemented, so torch
   raises its TypeError; leafgrad called torch back until RecursionError.
"""

from __future__ import annotations

import itertools
import warnings

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _chain(fn):
    if fn is None:
        return None
    return type(fn).__name__, tuple(_chain(n) for n, _ in fn.next_functions)


def _observe(lib, call):
    try:
        r = call()
    except Exception as error:  # noqa: BLE001 - type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]
    return ("ok", str(r.dtype).split(".")[1], tuple(r.shape), r.detach().numpy().tobytes(),
            _chain(r.grad_fn))


_CONTRACTIONS = [
    ((5,), (5,), 1), ((1, 7), (7, 1), 1), ((3, 4), (3, 4), 2), ((1, 5), (5,), 1),
    ((5,), (5, 1), 1), ((0,), (0,), 1), ((2, 3), (3,), 1), ((3,), (3, 2), 1),
    ((2, 2), (2, 2), ([0, 1], [1, 0])), ((2, 2), (2, 2), ([1, 0], [1, 0])),
    ((4,), (4,), ([0], [0])), ((6,), (6,), 0), ((1, 2, 3), (3, 2), ([2, 1], [0, 1])),
    ((1, 2, 3), (2, 3), ([1, 2], [0, 1])), ((2, 1, 3), (3, 2, 1), ([0, 2], [1, 0])),
    ((1, 1), (1, 1), 2), ((), (), 0), ((3, 1), (1, 3), ([0, 1], [1, 0])),
]


def test_full_contractions_are_torchs_dot_or_product_sum():
    checked = 0
    for name in ("float32", "float64", "int64", "int32", "uint8", "bool"):
        for shape_a, shape_b, dims in _CONTRACTIONS:
            seen = []
            for lib in (torch, leafgrad):
                lib.manual_seed(0)
                dtype = getattr(lib, name)
                a = (lib.randn(shape_a, dtype=lib.float64) * 3).to(dtype)
                b = (lib.randn(shape_b, dtype=lib.float64) * 3).to(dtype)
                if dtype.is_floating_point:
                    a.requires_grad_()
                    b.requires_grad_()
                calls = [lambda: lib.tensordot(a, b, dims=dims), lambda: lib.inner(a, b),
                         lambda: lib.tensordot(a, b.t() if b.ndim == 2 else b, dims=dims)]
                seen.append([_observe(lib, call) for call in calls])
            assert seen[0] == seen[1], (name, shape_a, shape_b, dims, seen)
            checked += 1
    assert checked == 6 * len(_CONTRACTIONS)


def test_full_contraction_gradients_are_torchs():
    for shape_a, shape_b, dims in _CONTRACTIONS:
        grads = []
        for lib in (torch, leafgrad):
            lib.manual_seed(1)
            a = lib.randn(shape_a, dtype=lib.float32, requires_grad=True)
            b = lib.randn(shape_b, dtype=lib.float32, requires_grad=True)
            try:
                out = lib.tensordot(a, b, dims=dims)
            except RuntimeError as error:
                grads.append(str(error))
                continue
            out.backward(lib.ones_like(out) * 1.5)
            grads.append((a.grad.numpy().tobytes(), b.grad.numpy().tobytes()))
        assert grads[0] == grads[1], (shape_a, shape_b, dims)


def test_sdpa_saves_the_scale_as_given():
    for scale in (None, 0.25, -1.5):
        saved = []
        for lib in (torch, leafgrad):
            q = lib.ones(1, 2, 3, 4, requires_grad=True)
            out = lib.nn.functional.scaled_dot_product_attention(q, q, q, scale=scale)
            saved.append((type(out.grad_fn).__name__, out.grad_fn._saved_scale))
        assert saved[0] == saved[1], saved


def _lu_solve_runs(lib):
    out = []
    cases = [((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((4, 4), (2, 4, 3)), ((2, 3, 3), (3, 2)),
             ((3, 3), (3, 0)), ((0, 3, 3), (0, 3, 2)), ((1, 1), (1, 5))]
    for dtype, (shape_a, shape_b), left, adjoint, wanted in itertools.product(
            (lib.float64, lib.float32), cases, (True, False), (True, False),
            ((True, True), (True, False), (False, True))):
        lib.manual_seed(3)
        a = lib.randn(shape_a, dtype=dtype) + 3 * lib.eye(shape_a[-1], dtype=dtype)
        b = lib.randn(shape_b, dtype=dtype)
        if not left:
            b = b.mT.contiguous()
        packed, pivots = lib.linalg.lu_factor(a)
        packed = packed.detach().requires_grad_(wanted[0])
        b.requires_grad_(wanted[1])
        x = lib.linalg.lu_solve(packed, pivots, b, left=left, adjoint=adjoint)
        record = [tuple(x.shape), x.stride(), x.detach().numpy().tobytes(), _chain(x.grad_fn)]
        x.backward(lib.randn(tuple(x.shape), dtype=dtype))
        record += [None if t.grad is None else t.grad.numpy().tobytes() for t in (packed, b)]
        out.append(record)
    return out


def test_lu_solve_is_torchs_node_values_and_gradients():
    theirs, ours = _lu_solve_runs(torch), _lu_solve_runs(leafgrad)
    assert len(theirs) == 168
    for index, (a, b) in enumerate(zip(theirs, ours)):
        assert a == b, index


def test_lu_solve_gradients_check_twice():
    from leafgrad.autograd import gradcheck, gradgradcheck

    for left, adjoint, dtype in itertools.product((True, False), (True, False),
                                                  (leafgrad.float64, leafgrad.complex128)):
        leafgrad.manual_seed(0)
        a = leafgrad.randn(2, 3, 3, dtype=dtype) + 3 * leafgrad.eye(3, dtype=dtype)
        packed, pivots = leafgrad.linalg.lu_factor(a)
        b = leafgrad.randn(2, 3, 2, dtype=dtype) if left else leafgrad.randn(2, 2, 3, dtype=dtype)
        packed.requires_grad_()
        b.requires_grad_()

        def solve(lu, rhs, left=left, adjoint=adjoint):
            return leafgrad.linalg.lu_solve(lu, pivots, rhs, left=left, adjoint=adjoint)

        assert gradcheck(solve, (packed, b))
        assert gradgradcheck(solve, (packed, b))


def _lu_solve_misuse(lib):
    d = lib.float64
    lib.manual_seed(0)
    a = lib.randn(2, 3, 3, dtype=d) + 3 * lib.eye(3, dtype=d)
    lu, p = lib.linalg.lu_factor(a)
    calls = [
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(3)),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(3, dtype=d)),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(4, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(2, 4, dtype=d), left=False),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(2, 3, dtype=d), left=False),
        lambda: lib.linalg.lu_solve(lu, p.long(), lib.randn(3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu[:, :2], p, lib.randn(3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu[0, 0], p, lib.randn(3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu.long(), p, lib.randn(3, 2).long()),
        lambda: lib.linalg.lu_solve(lu, p[:, :2], lib.randn(3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu, p[0], lib.randn(3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(3, 3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu[0], p[0], lib.randn(3, 3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(1, 3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu.float(), p, lib.randn(3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu, p.float(), lib.randn(3, 2, dtype=d)),
        lambda: lib.linalg.lu_solve(lu[:, :0, :0], p[:, :0], lib.randn(2, 0, 2, dtype=d)),
        lambda: lib.lu_solve(lib.randn(3, 2, dtype=d), lu[0], p[0]),
        lambda: lib.linalg.lu_solve(lu, p, B=lib.randn(3, 2, dtype=d), adjoint=True),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(3, 2, dtype=d), out=lib.empty(0, dtype=d)),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(3, 2, dtype=d), out=lib.empty(0)),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(3, 2, dtype=d, requires_grad=True),
                                    out=lib.empty(0, dtype=d)),
        lambda: lib.linalg.lu_solve(lu, p, lib.randn(3, 2, dtype=d),
                                    out=lib.empty(2, 3, 2, dtype=d)),
    ]
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in calls:
            try:
                r = call()
            except Exception as error:  # noqa: BLE001 - type and first line are compared
                seen.append((type(error).__name__, str(error).splitlines()[0]))
            else:
                seen.append((tuple(r.shape), r.stride(), r.detach().numpy().tobytes()))
    return seen


def test_lu_solve_checks_and_out_are_torchs():
    assert _lu_solve_misuse(torch) == _lu_solve_misuse(leafgrad)


def test_mixing_with_real_torch_raises_type_error_not_recursion():
    calls = [lambda a, b: a + b, lambda a, b: b + a, lambda a, b: torch.add(a, b),
             lambda a, b: torch.nn.functional.relu(b), lambda a, b: a * b, lambda a, b: a @ b]
    for call in calls:
        try:
            call(torch.ones(2), leafgrad.ones(2))
        except TypeError:
            continue
        raise AssertionError("mixing torch and leafgrad tensors did not raise TypeError")


def test_grid_sample_mode_tables_are_torchs():
    for name in ("GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"):
        assert getattr(leafgrad.nn.functional, name) == getattr(torch.nn.functional, name)


def test_functions_removed_in_1_9_raise_torchs_pointers():
    """torch 2.13 keeps torch.solve/symeig/lstsq/matrix_rank/eig (and the methods) to raise
    a message pointing to torch.linalg: old tutorials get that, not an AttributeError."""
    def calls(lib):
        a = lib.eye(2)
        return [lambda: lib.solve(a, a), lambda: lib.symeig(a), lambda: lib.symeig(a, True),
                lambda: lib.lstsq(a, a), lambda: lib.matrix_rank(a), lambda: lib.eig(a),
                lambda: a.solve(a), lambda: a.symeig(eigenvectors=True), lambda: a.lstsq(a),
                lambda: a.eig()]

    seen = []
    for lib in (torch, leafgrad):
        messages = []
        for call in calls(lib):
            try:
                call()
            except RuntimeError as error:
                messages.append(str(error))
        seen.append(messages)
    assert len(seen[0]) == 10 and seen[0] == seen[1]


def _named_composites(lib):
    lib.manual_seed(0)
    a = lib.randn(3, 3, dtype=lib.float64, requires_grad=True)
    seen = []
    p, lower, upper = lib.linalg.lu(a)
    seen.append([_chain(t.grad_fn) for t in (p, lower, upper)])
    (lower.sum() + upper.sum()).backward()
    seen.append(a.grad.numpy().round(10).tolist())
    a.grad = None
    packed, pivots = lib.linalg.lu_factor(a)
    p, lower, upper = lib.lu_unpack(packed, pivots)
    seen.append([_chain(t.grad_fn) for t in (p, lower, upper)])
    tall = lib.randn(4, 3, dtype=lib.float64, requires_grad=True)
    rhs = lib.randn(4, 2, dtype=lib.float64, requires_grad=True)
    for driver in (None, "gelsd", "gels"):
        result = lib.linalg.lstsq(tall, rhs, driver=driver)
        seen.append([_chain(getattr(t, "grad_fn", None)) for t in result])
        result.solution.sum().backward()
        seen.append((tall.grad.numpy().round(8).tolist(), rhs.grad.numpy().round(8).tolist()))
        tall.grad = rhs.grad = None
    tau = lib.rand(2, dtype=lib.float64, requires_grad=True)
    product = lib.linalg.householder_product(tall[:, :2], tau)
    seen.append(_chain(product.grad_fn))
    with lib.no_grad():
        seen.append(lib.linalg.lu(a)[1].grad_fn)
    return seen


def test_lu_lstsq_householder_are_one_node_as_torchs():
    """linalg.lu, lu_unpack, linalg.lstsq and householder_product hang their outputs from
    torch's single node (they showed their composites' last ops: AddBackward0, MmBackward0...),
    with the same gradients, differentiable twice."""
    assert _named_composites(leafgrad) == _named_composites(torch)
    from leafgrad.autograd import gradcheck, gradgradcheck

    leafgrad.manual_seed(1)
    a = leafgrad.randn(3, 3, dtype=leafgrad.float64, requires_grad=True)
    b = leafgrad.randn(3, 2, dtype=leafgrad.float64, requires_grad=True)
    tau = leafgrad.rand(2, dtype=leafgrad.float64, requires_grad=True)
    for function, inputs in [(lambda x: leafgrad.linalg.lu(x)[1:], (a,)),
                             (lambda x, y: leafgrad.linalg.lstsq(x, y).solution, (a, b)),
                             (lambda x, t: leafgrad.linalg.householder_product(x, t),
                              (a[:, :2].detach().requires_grad_(), tau))]:
        assert gradcheck(function, inputs)
        assert gradgradcheck(function, inputs)


def test_histc_takes_reduced_float_types():
    """histc takes bfloat16, and puts values near bin edges where torch's kernel does: its
    (elt - left) * bins / (right - left) in the input's type."""
    for name, seed in itertools.product(("bfloat16", "float16", "float32", "float64"), range(6)):
        seen = []
        for lib in (torch, leafgrad):
            lib.manual_seed(seed)
            x = lib.randn(200).to(getattr(lib, name))
            if seed % 2:  # values on the edges
                x = (lib.arange(60) / 7).to(getattr(lib, name))
            seen.append([(str(r.dtype).split(".")[1], r.float().tolist()) for r in (
                lib.histc(x, 3), lib.histc(x, 4, -1, 1), x.histc(7), lib.histc(x[:0], 2))])
        assert seen[0] == seen[1], (name, seed)


def test_lstsq_layouts_are_torchs():
    """The solution is the first n rows of a column-major (..., max(m, n), k) buffer and a
    vector B's residuals keep their length-1 dim, as torch's gelsy/gelsd/gels results."""
    def run(lib):
        lib.manual_seed(0)
        out = []
        for shape_a, shape_b in [((3, 3), (3, 2)), ((4, 3), (4, 2)), ((2, 4, 3), (2, 4, 1)),
                                 ((4, 3), (4,)), ((3, 4), (3, 2)), ((2, 4, 3), (2, 4))]:
            for grad, driver in itertools.product((False, True), (None, "gelsd", "gels")):
                a = lib.randn(shape_a, dtype=lib.float64, requires_grad=grad)
                r = lib.linalg.lstsq(a, lib.randn(shape_b, dtype=lib.float64), driver=driver)
                out.append((tuple(r.solution.shape), r.solution.stride(),
                            tuple(r.residuals.shape), r.residuals.stride()))
        return out

    assert run(leafgrad) == run(torch)


def test_isin_and_out_forms_as_torch():
    """isin's few-test-elements kernel views them flat (a layout that cannot be viewed raises
    view's error in torch, the sorting kernel for many does not); isin, diff, histc and inner
    take out= (tests/out_cases.py checks them over dtypes)."""
    def run(lib):
        seen = []
        a = lib.arange(6.0).reshape(2, 3) / 2
        for count in (4, 6, 12, 13, 40):
            base = lib.arange(float(count * 2)).reshape(2, count) / 2
            for test in (base, base.t().contiguous().t(), base[:, ::2], base.t()):
                try:
                    seen.append(lib.isin(a, test).tolist())
                except RuntimeError as error:
                    seen.append(str(error))
        out = lib.empty(0)
        seen.append((lib.diff(a, out=out) is out, out.tolist(),
                     lib.histc(a, 3, out=lib.empty(0)).tolist(),
                     lib.inner(a, a, out=lib.empty(0)).tolist(),
                     lib.isin(a, a[0], out=lib.empty(0, dtype=lib.bool)).tolist()))
        return seen

    assert run(leafgrad) == run(torch)


def test_searchsorted_and_bucketize_out_as_torch():
    def run(lib):
        seen = []
        x, s = lib.tensor([1.0, 3.0, 6.0]), lib.tensor([1.0, 2.0, 4.0, 8.0])
        for flag, dtype in itertools.product((False, True), ("int64", "int32", "float32")):
            for call in (lambda out: lib.searchsorted(s, x, out_int32=flag, out=out),
                         lambda out: lib.bucketize(x, s, out_int32=flag, out=out)):
                out = lib.empty(0, dtype=getattr(lib, dtype))
                try:
                    seen.append((call(out) is out, out.tolist()))
                except RuntimeError as error:
                    seen.append(str(error))
        return seen

    assert run(leafgrad) == run(torch)
