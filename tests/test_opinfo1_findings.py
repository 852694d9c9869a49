"""Classes of differences found by replaying torch's OpInfo samples (ops a..l, linalg.*, fft.*;
tests/opinfo/sweep_a_l.py), each swept beyond op_db's samples against torch 2.13."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch
from tests.opinfo._harness import differences, to_leafgrad

torch = require_torch()


def _outcome(function):
    try:
        return ("ok", function())
    except Exception as error:  # noqa: BLE001 - type and first line are what is compared
        return ("raised", type(error).__name__, str(error).splitlines()[0])


def _same(theirs, ours, where):
    assert theirs[0] == ours[0], (where, theirs, ours)
    if theirs[0] == "raised":
        assert theirs[1:] == ours[1:], (where, theirs, ours)
    else:
        assert not differences(theirs[1], ours[1], torch), (where, differences(theirs[1], ours[1], torch))


def _layouts(lib):
    """4-d float64 tensors: contiguous, channels_last, a permuted view, a strided slice."""
    base = lib.arange(2 * 3 * 4 * 5, dtype=lib.float64).reshape(2, 3, 4, 5)
    return [base, base.contiguous(memory_format=lib.channels_last), base.permute(3, 1, 0, 2),
            base[:, ::2, 1:, :]]


def test_conversion_methods_take_memory_format():
    # torch's Tensor.long()/.half()/.cfloat()/... take memory_format= (keyword only), like to()
    names = ("float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte",
             "bool", "cfloat", "cdouble")
    formats = (None, "preserve_format", "contiguous_format", "channels_last")
    for name, form in itertools.product(names, formats):
        kwargs_t = {} if form is None else {"memory_format": getattr(torch, form)}
        kwargs_l = {} if form is None else {"memory_format": getattr(leafgrad, form)}
        for index, (x_t, x_l) in enumerate(zip(_layouts(torch), _layouts(leafgrad))):
            _same(_outcome(lambda: getattr(x_t, name)(**kwargs_t)),
                  _outcome(lambda: getattr(x_l, name)(**kwargs_l)), (name, form, index))


def test_as_strided_offsets_count_from_the_storage_of_a_view():
    # torch's as_strided/as_strided_ offsets count from the storage's start (None: the view's
    # own); a view made by as_strided (NumPy hangs it off a DummyArray) reaches back to the
    # storage's start too, and as_strided_ checks bounds before reading any memory
    geometries = [((2, 2), (1, 2)), ((3,), (2,)), ((0, 4), (1, 1)), ((4,), (0,))]
    for start, offset, (size, stride), inplace, via in itertools.product(
            (0, 3, 7), (None, 0, 2, 5, 14, 18, 30), geometries, (False, True),
            ("as_strided", "slice")):
        def run(lib):
            base = lib.arange(20, dtype=lib.float32)
            view = base.as_strided((10,), (1,), start) if via == "as_strided" else base[start:]
            view = view.detach()
            args = (size, stride) if offset is None else (size, stride, offset)
            if inplace:
                out = view.as_strided_(*args)
                return out, view.storage_offset()
            return view.as_strided(*args), lib.as_strided(view, *args)

        _same(_outcome(lambda: run(torch)), _outcome(lambda: run(leafgrad)),
              (start, offset, size, stride, inplace, via))


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_pinv_and_matrix_rank_tolerances_as_tensors():
    # torch's get_atol_rtol: atol/rtol given as tensors broadcast against the batch (one
    # tolerance per matrix), rtol defaults to eps * max(m, n) where atol is not positive
    # (elementwise); Python floats become float64 0-d tensors. Diagonal matrices keep pinv's
    # values exact, so the cutoff is what is compared; matrix_rank also on random matrices.
    values = np.array([[4.0, 2.0, 1e-3, 0.0], [3.0, 1e-9, 0.5, 1e-17]])
    tolerances = [None, 0.0, -1.0, 0.01, 1.0, "t0", "t2", "t21", "neg2"]

    def tolerance(lib, spec, dtype):
        if not isinstance(spec, str):
            return spec
        data = {"t0": [0.25], "t2": [0.01, 2.5], "t21": [[0.01, 0.6]], "neg2": [-1.0, 0.3]}[spec]
        return lib.tensor(data[0] if spec == "t0" else data, dtype=dtype)

    for dtype, hermitian, atol, rtol in itertools.product(
            ("float64", "float32"), (False, True), tolerances, tolerances):
        if {type(atol), type(rtol)} == {float, str} and "t0" not in (atol, rtol):
            continue  # a float with a many-element tensor: torch's TypeError (not replayed)

        def run(lib, which):
            kind = getattr(lib, dtype)
            a = lib.diag_embed(lib.tensor(values, dtype=kind))
            if which == "random":
                a = lib.from_numpy(np.random.default_rng(3).standard_normal((2, 4, 4)).astype(dtype))
                a = a @ a.mT if hermitian else a
                a[1, 3] = a[1, 2]  # rank deficient
            kwargs = {"atol": tolerance(lib, atol, kind), "rtol": tolerance(lib, rtol, kind)}
            rank = lib.linalg.matrix_rank(a, hermitian=hermitian, **kwargs)
            return rank if which == "random" else (rank, lib.linalg.pinv(a, hermitian=hermitian, **kwargs))

        for which in ("diagonal", "random"):
            if which == "random" and rtol in (0.0, -1.0) and (atol is None or atol in (0.0, -1.0)):
                # no tolerance at all: the rank of the rank-deficient matrix is decided by
                # whether LAPACK's smallest singular value comes out 0 or a rounding error
                # (1e-16), which differs between LAPACK builds and processors (MKL gave 0 for
                # torch on one machine, not on another); the diagonal matrices cover the case
                continue
            _same(_outcome(lambda: run(torch, which)), _outcome(lambda: run(leafgrad, which)),
                  (dtype, hermitian, atol, rtol, which))


def test_varargs_size_methods_take_their_keyword():
    # torch's methods taking sizes/dims as varargs also take them by keyword, as one sequence
    # (x.permute(dims=(1, 0)), x.flip(dims=[0]), x.new_zeros(size=(2,)), ...); an int there or
    # positional values with the keyword are TypeErrors
    cases = [("permute", "dims", (1, 0)), ("repeat", "repeats", (2, 1)), ("tile", "dims", (2,)),
             ("flip", "dims", (0,)), ("flip", "dims", (-1, 0)), ("view", "size", (6,)),
             ("view", "size", (3, -1)), ("reshape", "shape", (6,)), ("expand", "size", (2, 3)),
             ("expand", "size", (4, -1, 3)), ("new_zeros", "size", (2,)),
             ("new_ones", "size", (2, 0)), ("new_empty", "size", ()), ("resize_", "size", (3, 2)),
             ("sum_to_size", "size", (1, 3)), ("broadcast_to", "size", (2, 2, 3))]
    for (name, keyword, value), form in itertools.product(
            cases, ("tuple", "list", "size", "int", "with positional", "positional")):
        def run(lib):
            x = lib.arange(6.0).reshape(2, 3)
            given = {"tuple": value, "list": list(value), "size": lib.Size(value), "int": 2,
                     "with positional": value, "positional": value}[form]
            args = (1,) if form == "with positional" else ()
            if form == "positional":
                args, given = value, None
            out = getattr(x, name)(*args, **({} if given is None else {keyword: given}))
            return out if name != "new_empty" else out.shape

        _same(_outcome(lambda: run(torch)), _outcome(lambda: run(leafgrad)), (name, value, form))


def test_diff_order_zero_and_vander_of_a_scalar():
    # torch's diff with n=0 returns a copy of the input, prepend/append unused (diff_helper);
    # linalg.vander treats a 0-d x as one point
    for n, prepend, append, dim in itertools.product((0, 1, 2), (None, "row"), (None, "rows"), (0, -1)):
        def run(lib):
            x = lib.arange(12.0).reshape(3, 4).pow(2).requires_grad_()
            shape = [3, 4]
            shape[dim] = 1
            pre = None if prepend is None else lib.ones(shape)
            shape[dim] = 2
            post = None if append is None else lib.full(shape, 2.0)
            out = lib.diff(x, n, dim, pre, post)
            out.backward(lib.ones_like(out))
            return out, x.grad, out.grad_fn.name()

        _same(_outcome(lambda: run(torch)), _outcome(lambda: run(leafgrad)), (n, prepend, append, dim))
    for value, N, dtype in itertools.product((3.0, -2), (None, 1, 2, 4), ("float64", "int64")):
        _same(_outcome(lambda: torch.linalg.vander(torch.tensor(value, dtype=getattr(torch, dtype)), N=N)),
              _outcome(lambda: leafgrad.linalg.vander(leafgrad.tensor(value, dtype=getattr(leafgrad, dtype)), N=N)),
              (value, N, dtype))


def test_gradient_spacing_none():
    # torch.gradient's first overload has an optional Scalar spacing: spacing=None is 1 there,
    # and a TypeError where only the list-of-dims overloads could match (or edge_order=None)
    forms = [{}, {"spacing": None}, {"spacing": None, "dim": 0}, {"spacing": None, "dim": -1},
             {"spacing": None, "dim": None}, {"spacing": None, "dim": [0, 1]}, {"dim": [0, 1]},
             {"spacing": None, "edge_order": 2}, {"spacing": None, "edge_order": None},
             {"spacing": 2.0, "dim": (1,)}]
    for kwargs, shape in itertools.product(forms, ((3, 4), (5,), (2, 0))):
        def run(lib):
            x = lib.arange(float(np.prod(shape))).reshape(shape).pow(2).requires_grad_()
            return lib.gradient(x, **kwargs)

        _same(_outcome(lambda: run(torch)), _outcome(lambda: run(leafgrad)), (kwargs, shape))


def _chain(node, out=None):
    """The names of a graph's nodes, depth first (AccumulateGrad without torch's prefix)."""
    out = [] if out is None else out
    if node is not None:
        out.append(node.name().replace("torch::autograd::", ""))
        for parent, _ in node.next_functions:
            _chain(parent, out)
    return out


def test_vector_contractions_use_blas_dot():
    # torch computes vdot (and linalg.vecdot of two vectors, VdotBackward0) and dot with BLAS's
    # dot (MKL's ?dot, complex ?dotc/?dotu); a tensordot/inner contracting to one element is a
    # dot of contiguous operands, else a sum of products (never mm): values bitwise, graphs and
    # real gradients as torch's, over layouts
    generator = torch.Generator().manual_seed(0)
    for n, dtype, step in itertools.product((0, 1, 3, 8, 13, 17, 64, 257),
                                            ("float32", "float64", "complex64", "complex128"),
                                            (1, 2)):
        kind = getattr(torch, dtype)
        a_t = torch.randn(n * step, dtype=kind, generator=generator)[::step]
        b_t = torch.randn(n, dtype=kind, generator=generator)
        a_l, b_l = to_leafgrad(a_t, torch), to_leafgrad(b_t, torch)
        for name in ("vdot", "dot", "inner", "linalg.vecdot"):
            if name == "inner" and step == 2 and dtype.startswith("complex"):
                continue  # torch multiplies and sums: complex products' bits differ (not fixed)

            def run(lib, a, b):
                function = lib.linalg.vecdot if name == "linalg.vecdot" else getattr(lib, name)
                return function(a, b)

            _same(_outcome(lambda: run(torch, a_t, b_t)), _outcome(lambda: run(leafgrad, a_l, b_l)),
                  (name, n, dtype, step))
    shapes = [((13,), (13,), ([-1], [-1])), ((1, 13), (13,), ([-1], [0])), ((13,), (1, 13), ([0], [1])),
              ((2, 13), (2, 13), ([0, 1], [0, 1])), ((5, 1), (1, 5), ([0, 1], [1, 0])),
              ((1,), (1,), 0), ((3, 13), (13,), ([-1], [0])), ((13,), (13, 4), ([0], [0])),
              ((2, 7), (4, 7), ([-1], [-1])), ((3, 1, 4), (3, 1, 4), 3), ((3, 4), (4, 3), ([0, 1], [1, 0]))]
    layouts = ("contiguous", "strided", "transposed", "expanded")

    def layout(tensor, how):
        if how == "strided":
            return torch.cat([tensor, tensor], -1)[..., ::2]
        if how == "transposed" and tensor.ndim >= 2:
            return tensor.mT.contiguous().mT
        if how == "expanded":
            return tensor.reshape(-1)[:1].reshape((1,) * tensor.ndim).expand(tensor.shape)
        return tensor
    for (shape_a, shape_b, dims), dtype, how_a, how_b in itertools.product(
            shapes, ("float32", "float64"), layouts, layouts):
        kind = getattr(torch, dtype)
        a_t = layout(torch.randn(shape_a, dtype=kind, generator=generator), how_a).requires_grad_()
        b_t = layout(torch.randn(shape_b, dtype=kind, generator=generator), how_b).requires_grad_()
        a_l, b_l = to_leafgrad(a_t, torch), to_leafgrad(b_t, torch)
        for name in ("tensordot", "inner", "linalg.vecdot"):
            if name != "tensordot" and (shape_a[-1] != shape_b[-1] or len(shape_a) != len(shape_b)):
                continue

            def run(lib, a, b):
                a.grad = b.grad = None
                if name == "tensordot":
                    out = lib.tensordot(a, b, dims)
                else:
                    out = lib.inner(a, b) if name == "inner" else lib.linalg.vecdot(a, b)
                grad = torch.randn(out.shape, dtype=kind, generator=torch.Generator().manual_seed(1))
                out.backward(grad if lib is torch else to_leafgrad(grad, torch))
                return out, a.grad, b.grad, _chain(out.grad_fn)

            _same(_outcome(lambda: run(torch, a_t, b_t)), _outcome(lambda: run(leafgrad, a_l, b_l)),
                  (name, shape_a, shape_b, dims, dtype, how_a, how_b))


def test_cdist_gradients_signed_zeros():
    # torch's cdist backward is zeros for p=0 and computes x2's gradient as _cdist_backward with
    # the operands swapped (sums of negated terms): with integer-valued data (exact sums) every
    # bit, the signs of zeros included, agrees
    for p, shape_a, shape_b, dtype in itertools.product(
            (0.0, 1.0), ((4, 3), (2, 4, 3), (1, 3)), ((5, 3), (2, 5, 3), (0, 3)),
            ("float32", "float64")):
        def run(lib):
            kind = getattr(lib, dtype)
            a = (lib.arange(float(np.prod(shape_a)), dtype=kind).reshape(shape_a) % 3).requires_grad_()
            b = (lib.arange(float(np.prod(shape_b)), dtype=kind).reshape(shape_b) % 2).requires_grad_()
            out = lib.cdist(a, b, p=p)
            grad = (lib.arange(float(out.numel()), dtype=kind).reshape(out.shape) % 5) - 2
            out.backward(grad)
            return out, a.grad, b.grad

        _same(_outcome(lambda: run(torch)), _outcome(lambda: run(leafgrad)), (p, shape_a, shape_b, dtype))


def test_cross_rounds_as_torchs_kernel():
    # torch's cross kernel computes a[i] * b[j] - a[j] * b[i], contracted to one fma for
    # float32/float64 and rounded per operation in bfloat16/float16 arithmetic: every bit of
    # values and gradients, over broadcasting, dims and layouts
    generator = torch.Generator().manual_seed(0)
    cases = [((64, 3), (64, 3), -1), ((3, 7), (3, 1), 0), ((2, 3, 4), (3, 4), 1), ((5, 3), (3,), -1),
             ((4, 3), (4, 3), 1)]
    for (shape_a, shape_b, dim), dtype, transposed in itertools.product(
            cases, ("float32", "float64", "float16", "bfloat16", "int64"), (False, True)):
        kind = getattr(torch, dtype)
        a_t = (torch.randn(shape_a, generator=generator) * 10).to(kind)
        b_t = (torch.randn(shape_b, generator=generator) * 10).to(kind)
        if transposed:
            a_t = a_t.mT.contiguous().mT if a_t.ndim > 1 else a_t
        a_t.requires_grad_(kind.is_floating_point)
        grad = torch.randn(torch.broadcast_shapes(shape_a, shape_b), generator=generator).to(kind)

        def run(lib, a, b, g):
            a.grad = None
            out = lib.linalg.cross(a, b.expand(a.shape) if b.ndim < a.ndim else b, dim=dim)
            if a.requires_grad:
                out.backward(g)
            return out, a.grad

        _same(_outcome(lambda: run(torch, a_t, b_t, grad)),
              _outcome(lambda: run(leafgrad, to_leafgrad(a_t, torch), to_leafgrad(b_t, torch),
                                   to_leafgrad(grad, torch))), (shape_a, shape_b, dim, dtype, transposed))


def test_ldexp_float32_uses_torchs_pow_kernel():
    # torch's ldexp is self * pow(2, other): for float32 the pow is the tensor-tensor kernel on
    # a wrapped 0-d base (NumPy's float32 power was an ulp off, and every product with it)
    generator = torch.Generator().manual_seed(0)
    for shape_x, shape_o, other in itertools.product(
            ((5,), (300,), (7, 3)), ((), (3,)), ("float32", "int64", "int16")):
        if shape_o and shape_x[-1] != shape_o[-1]:
            continue
        x = torch.randn(shape_x, generator=generator) * 10
        o = (torch.randn(shape_o, generator=generator) * 5).to(getattr(torch, other))
        _same(_outcome(lambda: torch.ldexp(x, o)),
              _outcome(lambda: leafgrad.ldexp(to_leafgrad(x, torch), to_leafgrad(o, torch))),
              (shape_x, shape_o, other))


@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
def test_deprecated_cholesky_of_empty_matrices_is_contiguous():
    # torch.cholesky (not linalg.cholesky) returns an empty tensor in the input's contiguous
    # layout when there is nothing to factor; non-empty batches stay column-major per matrix
    for shape, upper in itertools.product(((0, 4, 4), (3, 0, 0), (0, 0), (2, 3, 3), (3, 3)),
                                          (False, True)):
        def run(lib):
            eye = lib.eye(shape[-1], dtype=lib.float64) * 2
            a = (lib.ones(shape, dtype=lib.float64) + eye).requires_grad_()
            out = lib.cholesky(a, upper=upper)
            out.sum().backward()
            return out, out.stride(), out.grad_fn.name(), a.grad

        _same(_outcome(lambda: run(torch)), _outcome(lambda: run(leafgrad)), (shape, upper))


def test_float_power_computes_complex_in_complex128():
    # torch's float_power computes in complex128 when the base or the exponent is complex (a
    # tensor or a Python complex), float64 otherwise; float_power_ requires self to have that
    # dtype. (leafgrad took float64 always, dropping the imaginary parts.) Dtypes, shapes and
    # errors exactly; values to 1e-12 only: complex pow's own last bits and signed zeros
    # differ (a separate class, pow of complex tensors)
    dtypes = ("complex64", "complex128", "float32", "float64", "int64", "bool")
    scalars = (2, 0.5, 1j, 2 + 1j, True)

    def make(lib, dtype):
        if dtype.startswith("complex"):
            return lib.tensor([1 + 2j, 3 - 1j, 0.5 + 0.25j]).to(getattr(lib, dtype))
        return lib.tensor([1.5, 3.0, 0.5]).to(getattr(lib, dtype))

    forms = [("tensor", d) for d in dtypes] + [("scalar", s) for s in scalars]
    for base_dtype, (kind, other), form in itertools.product(dtypes, forms, ("fn", "rev", "inplace")):
        if form == "rev" and kind == "scalar" and isinstance(other, bool):
            continue

        def run(lib):
            a = make(lib, base_dtype)
            b = make(lib, other) if kind == "tensor" else other
            if form == "fn":
                return lib.float_power(a, b)
            if form == "rev":
                return lib.float_power(b, a)
            return a.float_power_(b)

        theirs, ours = _outcome(lambda: run(torch)), _outcome(lambda: run(leafgrad))
        where = (base_dtype, kind, other, form)
        assert theirs[0] == ours[0], (where, theirs, ours)
        if theirs[0] == "raised":
            assert theirs[1:] == ours[1:], (where, theirs, ours)
            continue
        assert str(theirs[1].dtype) == str(ours[1].dtype).replace("leafgrad", "torch"), where
        assert np.allclose(theirs[1].numpy(), ours[1].numpy(), rtol=1e-12, atol=1e-12,
                           equal_nan=True), where


def test_lstsq_outputs_of_complex_input_are_real():
    # torch.linalg.lstsq's residuals and singular_values are real for complex input, also when
    # empty (leafgrad's empty ones had the input's complex dtype): every output's dtype and shape
    for dtype, (shape_a, shape_b), driver in itertools.product(
            ("complex128", "complex64", "float64", "float32"),
            (((2, 3), (2, 3)), ((4, 3), (4, 2)), ((3, 3), (3,)), ((2, 4, 3), (2, 4, 1))),
            (None, "gels", "gelsy", "gelsd", "gelss")):
        generator = torch.Generator().manual_seed(0)
        a = torch.randn(shape_a, dtype=getattr(torch, dtype), generator=generator)
        b = torch.randn(shape_b, dtype=getattr(torch, dtype), generator=generator)
        theirs = torch.linalg.lstsq(a, b, driver=driver)
        ours = leafgrad.linalg.lstsq(to_leafgrad(a, torch), to_leafgrad(b, torch), driver=driver)
        assert [(str(t.dtype), tuple(t.shape)) for t in theirs] == \
            [(str(t.dtype).replace("leafgrad", "torch"), tuple(t.shape)) for t in ours], \
            (dtype, shape_a, shape_b, driver)


def test_addr_inplace_requires_a_matrix_self():
    # torch's addr_ checks vec1/vec2 are vectors, then that self (the output) is 2-D ('2D tensor
    # expected, got 0D tensor for input'), then its size; nothing is written when it raises
    for self_shape, vec1_shape, vec2_shape in itertools.product(
            ((), (5,), (1, 4), (5, 4), (3, 5, 4), (5, 1)), ((5,), (5, 1)), ((4,), (4, 2))):
        def run(lib):
            target = lib.ones(self_shape)
            before = target.clone()
            result = _outcome(lambda: target.addr_(lib.ones(vec1_shape), lib.ones(vec2_shape)))
            return result if result[0] == "raised" else result[1], lib.equal(target, before) or result[0] == "ok"

        _same(_outcome(lambda: run(torch)), _outcome(lambda: run(leafgrad)), (self_shape, vec1_shape, vec2_shape))


def test_cholesky_solve_and_inverse_of_empty_matrices_keep_torchs_node():
    # empty factors or right-hand sides: torch still records CholeskySolveBackward0 /
    # CholeskyInverseBackward0 over an empty column-major result (leafgrad fell back to its
    # triangular-solve composite); shapes, strides, nodes and gradients
    cases = [((0, 0), (0, 0)), ((0, 3, 3), (0, 3, 2)), ((2, 0, 0), (2, 0, 4)), ((3, 3), (3, 0)),
             ((2, 3, 3), (3, 0)), ((3, 3), (3, 2))]
    for (shape_l, shape_b), dtype, upper in itertools.product(cases, ("float32", "float64"), (False, True)):
        def run(lib):
            kind = getattr(lib, dtype)
            factor = (lib.eye(shape_l[-1], dtype=kind) * 2).expand(shape_l).clone().requires_grad_()
            b = lib.ones(shape_b, dtype=kind, requires_grad=True)
            x = lib.cholesky_solve(b, factor, upper)
            inverse = lib.cholesky_inverse(factor, upper)
            (x.sum() + inverse.sum()).backward()
            return x, x.stride(), x.grad_fn.name(), inverse.stride(), inverse.grad_fn.name(), factor.grad, b.grad

        _same(_outcome(lambda: run(torch)), _outcome(lambda: run(leafgrad)), (shape_l, shape_b, dtype, upper))
