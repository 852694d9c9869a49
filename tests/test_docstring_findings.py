"""Differences found by running torch 2.13's own docstring examples (``Example::`` sections)
with leafgrad aliased as torch; each is checked here against torch as a class of inputs."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _same_call(call):
    """Run ``call(lib)`` under both libraries: same result structure and values, or the same
    exception type and first line of message."""
    results = []
    for lib in (torch, leafgrad):
        try:
            results.append(("ok", _describe(call(lib))))
        except Exception as error:  # noqa: BLE001 - the exception is what is compared
            results.append((type(error).__name__, str(error).splitlines()[0]))
    assert results[0] == results[1]


def _describe(value):
    if isinstance(value, (tuple, list)):
        return type(value).__name__, [_describe(item) for item in value]
    if hasattr(value, "detach"):
        data = value.detach().numpy()
        return (str(value.dtype).split(".")[-1], tuple(value.shape), data.tolist(),
                value.requires_grad,
                None if value.grad_fn is None else type(value.grad_fn).__name__)
    return value


# -- atleast_Nd: one tensor, several tensors, a tuple or list of them, nothing -----------------

ATLEAST_ARGS = {
    "nothing": lambda lib, x: (),
    "one tensor": lambda lib, x: (x,),
    "two tensors": lambda lib, x: (x, x.sum()),
    "tuple": lambda lib, x: ((x, x.sum()),),
    "list": lambda lib, x: ([x],),
    "empty tuple": lambda lib, x: ((),),
    "empty list": lambda lib, x: ([],),
    "int": lambda lib, x: (1,),
    "tuple with int": lambda lib, x: ((x, 1),),
    "nested list": lambda lib, x: ([[x]],),
}
ATLEAST_SHAPES = [(), (3,), (2, 3), (2, 1, 3), (0,), (2, 0)]


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("form", sorted(ATLEAST_ARGS))
@pytest.mark.parametrize("shape", ATLEAST_SHAPES)
@pytest.mark.parametrize("requires_grad", [False, True])
def test_atleast_call_forms(name, form, shape, requires_grad):
    def call(lib):
        x = lib.arange(float(np.prod(shape))).reshape(shape).requires_grad_(requires_grad)
        x = x * 1 if requires_grad else x
        return getattr(lib, name)(*ATLEAST_ARGS[form](lib, x))

    _same_call(call)


# -- testing.assert_close: complex dtypes have torch's default tolerances ----------------------

COMPLEX_PAIRS = {
    "within float32 tolerance": (1 + 1j, 1 + 1j + 5e-6j),
    "outside float32 tolerance": (1 + 1j, 1 + 1j + 5e-4j),
    "within float64 tolerance only at 1e-7": (1 + 1j, 1 + 1j + 5e-8),
    "outside": (1 + 1j, 1 + 2j),
    "nan": (complex(float("nan"), 1), complex(float("nan"), 1)),
    "equal": (2 - 3j, 2 - 3j),
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128", None])
@pytest.mark.parametrize("pair", sorted(COMPLEX_PAIRS))
@pytest.mark.parametrize("equal_nan", [False, True])
def test_assert_close_complex_default_tolerances(dtype, pair, equal_nan):
    actual, expected = COMPLEX_PAIRS[pair]

    def call(lib):
        if dtype is None:  # Python complex numbers: compared as complex128
            return lib.testing.assert_close(actual, expected, equal_nan=equal_nan)
        a = lib.tensor([actual, actual], dtype=getattr(lib, dtype))
        b = lib.tensor([expected, expected], dtype=getattr(lib, dtype))
        return lib.testing.assert_close(a, b, equal_nan=equal_nan)

    _same_call(call)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_assert_close_fft2_example(dtype):
    """torch.fft.fft2's docstring: fft2 equals two 1-d transforms within default tolerances."""
    for lib in (torch, leafgrad):
        lib.manual_seed(0)
        x = lib.rand(10, 10, dtype=getattr(lib, dtype))
        lib.testing.assert_close(lib.fft.fft2(x), lib.fft.fft(lib.fft.fft(x, dim=0), dim=1),
                                 check_stride=False)


# -- linalg.matrix_rank keeps the imaginary part of complex input ----------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("tolerances", [{}, {"atol": 1.0, "rtol": 0.0}, {"rtol": 0.3},
                                        {"atol": 0.5}, {"tol": 0.7}])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3, 3), (2, 0, 3, 3), (4, 4)])
def test_matrix_rank_complex(dtype, hermitian, tolerances, shape):
    def call(lib):
        lib.manual_seed(0)
        A = lib.randn(*shape, dtype=getattr(lib, dtype))
        if shape == (4, 4):  # rank 2, so the tolerance is what decides
            A = A[:, :2] @ A[:2, :]
        return lib.linalg.matrix_rank(A, hermitian=hermitian, **tolerances)

    _same_call(call)


# -- trapezoid / cumulative_trapezoid: integer samples give the default float dtype -------------

TRAPEZOID_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                    "float64", "complex64"]
SPACINGS = {"none": {}, "dx int": {"dx": 2}, "dx float": {"dx": 2.5}, "x int": "int64",
            "x float64": "float64", "x bool": "bool", "x float32": "float32"}


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid", "trapz"])
@pytest.mark.parametrize("dtype", TRAPEZOID_DTYPES)
@pytest.mark.parametrize("spacing", sorted(SPACINGS))
@pytest.mark.parametrize("shape", [(3,), (2, 3), (0,), (3, 1)])
def test_trapezoid_dtypes(name, dtype, spacing, shape):
    def call(lib):
        y = lib.tensor([[1, 5, 10], [2, 0, 7], [3, 3, 3]])[: shape[0], : shape[-1]]
        y = y.reshape(shape).to(getattr(lib, dtype))
        option = SPACINGS[spacing]
        if isinstance(option, dict):
            return getattr(lib, name)(y, **option)
        x = lib.tensor([1, 3, 6])[: shape[-1]].to(getattr(lib, option))
        return getattr(lib, name)(y, x)

    _same_call(call)


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
@pytest.mark.parametrize("with_x", [False, True])
def test_trapezoid_grads(name, with_x):
    grads = []
    for lib in (torch, leafgrad):
        y = lib.tensor([[1.0, 5.0, 10.0], [2.0, 0.5, 7.0]], dtype=lib.float64,
                       requires_grad=True)
        x = lib.tensor([1.0, 3.0, 6.5], dtype=lib.float64, requires_grad=True)
        out = getattr(lib, name)(y, x) if with_x else getattr(lib, name)(y, dx=1.5)
        out.sum().backward()
        grads.append((type(out.grad_fn).__name__, y.grad.tolist(),
                      None if x.grad is None else x.grad.tolist()))
    assert grads[0] == grads[1]


# -- Generator: get_state returns a uint8 tensor, set_state takes one; torch's repr ------------

def _byte_tensor(lib, kind):
    state = lib.Generator().manual_seed(7).get_state()
    return {
        "state": lambda: state,
        "clone": lambda: state.clone(),
        "numpy": lambda: state.numpy(),
        "int": lambda: 5,
        "list": lambda: state.tolist(),
        "float tensor": lambda: state.float(),
        "short": lambda: state[:100],
        "strided": lambda: lib.cat([state, state]).view(2, -1).t().reshape(-1)[::2],
        "non-contiguous": lambda: state.view(8, 632).t(),
        "int8": lambda: state.to(lib.int8),
    }[kind]()


@pytest.mark.parametrize("kind", ["state", "clone", "numpy", "int", "list", "float tensor",
                                  "short", "strided", "non-contiguous", "int8"])
def test_generator_set_state_forms(kind):
    def call(lib):
        g = lib.Generator().set_state(_byte_tensor(lib, kind))
        return g.get_state(), lib.rand(3, generator=g)

    _same_call(call)


def test_generator_get_state_is_a_fresh_uint8_tensor():
    results = []
    for lib in (torch, leafgrad):
        g = lib.Generator().manual_seed(3)
        state = g.get_state()
        state.zero_()  # a copy: the generator is unaffected
        results.append((type(state).__name__, str(state.dtype).split(".")[-1], state.shape,
                        g.get_state().tolist(), lib.rand(2, generator=g).tolist()))
        seeded_repr = repr(g.manual_seed(0)).split(" at ")[0].replace("leafgrad", "torch")
        results.append(seeded_repr)
    assert results[:2] == results[2:]


# -- Tensor.dim_order and torch.empty(memory_format=) ------------------------------------------

DIM_ORDER_TENSORS = {
    "0-d": lambda lib: lib.zeros(()),
    "1-d": lambda lib: lib.zeros(5),
    "row-major": lambda lib: lib.zeros(2, 3, 5, 7),
    "transposed": lambda lib: lib.zeros(2, 3, 5, 7).transpose(1, 2),
    "permuted": lambda lib: lib.zeros(2, 3, 5, 7).permute(3, 1, 0, 2),
    "channels_last": lambda lib: lib.zeros(2, 3, 5, 7).contiguous(
        memory_format=lib.channels_last),
    "size-1 dims": lambda lib: lib.zeros(1, 2, 3, 4),
    "size-1 transposed": lambda lib: lib.zeros(1, 2, 1, 4).transpose(0, 3),
    "expanded": lambda lib: lib.zeros(3, 1).expand(3, 4),
    "expanded front": lambda lib: lib.zeros(1, 4).expand(3, 4),
    "sliced": lambda lib: lib.zeros(4, 6)[:, ::2],
    "column of matrix": lambda lib: lib.zeros(4, 6)[:, 1:2],
    "empty": lambda lib: lib.zeros(0, 3),
    "equal strides": lambda lib: lib.zeros(3, 3).as_strided((3, 3), (1, 1)),
    "5-d permuted": lambda lib: lib.zeros(2, 3, 4, 5, 6).permute(0, 2, 1, 4, 3),
    "channels_last_3d": lambda lib: lib.zeros(2, 3, 4, 5, 6).contiguous(
        memory_format=lib.channels_last_3d),
}
AMBIGUITY_CHECKS = {
    "default": lambda lib: {},
    "False": lambda lib: {"ambiguity_check": False},
    "True": lambda lib: {"ambiguity_check": True},
    "formats": lambda lib: {"ambiguity_check": [lib.contiguous_format, lib.channels_last]},
    "channels_last only": lambda lib: {"ambiguity_check": [lib.channels_last]},
    "empty list": lambda lib: {"ambiguity_check": []},
    "string": lambda lib: {"ambiguity_check": "ILLEGAL"},
    "list of strings": lambda lib: {"ambiguity_check": ["contiguous"]},
    "tuple": lambda lib: {"ambiguity_check": (lib.contiguous_format,)},
}


@pytest.mark.parametrize("tensor", sorted(DIM_ORDER_TENSORS))
@pytest.mark.parametrize("check", sorted(AMBIGUITY_CHECKS))
def test_dim_order(tensor, check):
    _same_call(lambda lib: DIM_ORDER_TENSORS[tensor](lib).dim_order(**AMBIGUITY_CHECKS[check](lib)))


@pytest.mark.parametrize("shape", [(), (2, 3), (2, 3, 4, 5), (2, 1, 4, 1), (0, 3, 2, 2),
                                   (2, 3, 4, 5, 6)])
@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last",
                                           "channels_last_3d", "preserve_format", None])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_empty_memory_format(shape, memory_format, dtype):
    def call(lib):
        options = {} if memory_format is None else {
            "memory_format": getattr(lib, memory_format)}
        t = lib.empty(shape, dtype=getattr(lib, dtype), **options)
        return t.shape, t.stride(), t.dtype == getattr(lib, dtype), t.dim_order()

    _same_call(call)


# -- torch.lu (deprecated): lu_factor_ex's results, get_infos, out= ----------------------------

LU_INPUTS = {
    "square": lambda lib: lib.tensor([[2.0, 1.0, 0.5], [4.0, 3.0, 1.0], [1.0, 0.0, 2.0]]),
    "batch": lambda lib: lib.arange(18.0).reshape(2, 3, 3).sin() + 3 * lib.eye(3),
    "wide": lambda lib: lib.arange(6.0).reshape(2, 3).cos(),
    "tall": lambda lib: lib.arange(6.0).reshape(3, 2).cos(),
    "singular": lambda lib: lib.zeros(2, 2),
    "float64": lambda lib: lib.tensor([[4.0, 1, 2], [1, 5, 1], [2, 1, 6]], dtype=lib.float64),
    "complex": lambda lib: lib.tensor([[1.0, 2.0], [3.0, 5.0]]) * (1 + 2j),
    "non-contiguous": lambda lib: lib.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 10]]).mT,
    "empty": lambda lib: lib.zeros(0, 3, 3),
    "1-d": lambda lib: lib.ones(3),
    "int": lambda lib: lib.ones(3, 3, dtype=lib.int64),
}
LU_OPTIONS = {
    "default": lambda lib: ((), {}),
    "get_infos": lambda lib: ((), {"get_infos": True}),
    "positional": lambda lib: ((True, True), {}),
    "no pivot": lambda lib: ((), {"pivot": False}),
    "out": lambda lib: ((), {"out": (lib.empty(0), lib.empty(0, dtype=lib.int32))}),
    "out list": lambda lib: ((), {"out": [lib.empty(0), lib.empty(0, dtype=lib.int32)]}),
    "out infos": lambda lib: ((), {"get_infos": True, "out": (
        lib.empty(0), lib.empty(0, dtype=lib.int32), lib.empty(0, dtype=lib.int32))}),
    "out too short": lambda lib: ((), {"out": (lib.empty(0),)}),
    "out float pivots": lambda lib: ((), {"out": (lib.empty(0), lib.empty(0))}),
    "method": "method",
    "method get_infos": "method get_infos",
}


@pytest.mark.filterwarnings("ignore:torch.lu is deprecated")
@pytest.mark.parametrize("inputs", sorted(LU_INPUTS))
@pytest.mark.parametrize("options", sorted(LU_OPTIONS))
def test_lu_legacy(inputs, options):
    def call(lib):
        if options.startswith("method"):
            out = None
            result = LU_INPUTS[inputs](lib).lu(get_infos=options.endswith("infos"))
        else:
            args, kwargs = LU_OPTIONS[options](lib)
            out = kwargs.get("out")
            result = lib.lu(LU_INPUTS[inputs](lib), *args, **kwargs)
        return (type(result).__name__, result is out,
                [(str(r.dtype).split(".")[-1], tuple(r.shape)) for r in result],
                None if out is None else [item.dtype == value.dtype
                                          for item, value in zip(out, result)],
                [np.round(r.numpy(), 5).tolist() for r in result])

    _same_call(call)


def test_lu_legacy_grads_and_warning():
    results = []
    for lib in (torch, leafgrad):
        A = lib.tensor([[2.0, 1.0], [4.0, 3.5]], dtype=lib.float64, requires_grad=True)
        with pytest.warns(UserWarning, match="torch.lu is deprecated in favor of"):
            lib.set_warn_always(True)
            try:
                LU, pivots = lib.lu(A)
            finally:
                lib.set_warn_always(False)
        LU.sum().backward()
        results.append((type(LU.grad_fn).__name__, A.grad.tolist(), pivots.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("name", ["lu_factor_ex", "lu_factor", "lu"])
@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 3), (3, 0), (0, 0), (2, 2)])
@pytest.mark.parametrize("pivot", [False, True])
def test_lu_of_empty_matrices_ignores_pivot(name, shape, pivot):
    _same_call(lambda lib: getattr(lib.linalg, name)(lib.ones(shape), pivot=pivot))


# -- nonzero_static of a 0-d tensor ------------------------------------------------------------

@pytest.mark.parametrize("value", [0, 10, 2.5, True, False])
@pytest.mark.parametrize("size", [0, 1, 2])
@pytest.mark.parametrize("form", ["function", "method"])
def test_nonzero_static_0d(value, size, form):
    def call(lib):
        x = lib.tensor(value)
        if form == "method":
            return x.nonzero_static(size=size, fill_value=-3)
        return lib.nonzero_static(x, size=size)

    _same_call(call)


# -- repeat_interleave: output_size=, and the counts-only form -------------------------------

RI_CALLS = {
    "tensor repeats": lambda lib, x, n: lib.repeat_interleave(x, lib.tensor([1, 2]), 0,
                                                              output_size=n),
    "tensor repeats method": lambda lib, x, n: x.repeat_interleave(lib.tensor([1, 2]), dim=0,
                                                                   output_size=n),
    "int repeats": lambda lib, x, n: lib.repeat_interleave(x, 2, output_size=n),
    "int repeats dim 1": lambda lib, x, n: x.repeat_interleave(2, 1, output_size=n),
    "0-d tensor repeats": lambda lib, x, n: lib.repeat_interleave(x, lib.tensor(2), dim=1,
                                                                  output_size=n),
    "counts": lambda lib, x, n: lib.repeat_interleave(lib.tensor([1, 2]), output_size=n),
    "counts keyword": lambda lib, x, n: lib.repeat_interleave(repeats=lib.tensor([0, 3]),
                                                              output_size=n),
    "counts int32": lambda lib, x, n: lib.repeat_interleave(
        lib.tensor([2, 1], dtype=lib.int32), output_size=n),
}


@pytest.mark.parametrize("call", sorted(RI_CALLS))
@pytest.mark.parametrize("output_size", [None, 3, 4, 8, 0, -1])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_repeat_interleave_output_size(call, output_size, requires_grad):
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=requires_grad)
        return RI_CALLS[call](lib, x * 1, output_size)

    _same_call(run)


@pytest.mark.parametrize("counts", ["float", "2-d", "0-d", "negative", "empty", "int32",
                                    "none"])
@pytest.mark.parametrize("form", ["function", "method"])
def test_repeat_interleave_counts_only(counts, form):
    def run(lib):
        values = {"float": lambda: lib.tensor([1.0, 2.0]), "2-d": lambda: lib.tensor([[1, 2]]),
                  "0-d": lambda: lib.tensor(2), "negative": lambda: lib.tensor([-1, 2]),
                  "empty": lambda: lib.tensor([], dtype=lib.int64),
                  "int32": lambda: lib.tensor([1, 0, 3], dtype=lib.int32),
                  "none": lambda: lib.tensor([1, 2])}[counts]()
        if form == "method":
            return values.repeat_interleave() if counts == "none" else \
                values.repeat_interleave(values.abs().long())
        return lib.repeat_interleave(values)

    _same_call(run)


@pytest.mark.parametrize("repeats", ["[[2]]", "[1, 2, 3]", "[2]", "2", "[1., 2.]", "[-1, 2]",
                                     "[0, 3]"])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_repeat_interleave_tensor_repeats_grads(repeats, dim):
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        y = x.repeat_interleave(lib.tensor(eval(repeats)), dim=dim)
        (y * lib.arange(float(y.numel()), dtype=lib.float64).reshape(y.shape)).sum().backward()
        return y, x.grad

    _same_call(run)


# -- func.vjp: the structure error writes both trees as torch's treespec_pprint ----------------

import collections  # noqa: E402

_Pair = collections.namedtuple("_Pair", "x y")
VJP_TREES = {
    "leaf": lambda lib, t: t,
    "tuple": lambda lib, t: (t, t),
    "one-tuple": lambda lib, t: (t,),
    "list": lambda lib, t: [t, (t, t)],
    "dict": lambda lib, t: {"first": t, "second": [t, t]},
    "nested dict": lambda lib, t: {"a": {"b": t}},
    "namedtuple": lambda lib, t: _Pair(t, t),
    "OrderedDict": lambda lib, t: collections.OrderedDict(a=t, b=(t,)),
}


@pytest.mark.parametrize("output", sorted(VJP_TREES))
@pytest.mark.parametrize("cotangent", sorted(VJP_TREES))
def test_vjp_structure_error(output, cotangent):
    def run(lib):
        x = lib.ones(3)
        _, vjp_fn = lib.func.vjp(lambda x: VJP_TREES[output](lib, x.sin()), x)
        return vjp_fn(VJP_TREES[cotangent](lib, lib.ones(3)))

    _same_call(run)


# -- take_along_dim: dim=None (flat), broadcasting of input and indices, torch's checks --------

# In range along every dim: torch's take_along_dim does not bound-check a broadcast index
# (it reads past the row), which is not behaviour to copy; the flat form does check.
TAD_INDICES = {
    "same shape": [[0, 1, 1], [1, 1, 0]],
    "column": [[0], [1]],
    "row": [[0, 1, 1]],
    "1x1": [[1]],
    "3-d": [[[0]], [[1]]],
    "flat": [5, 0, 3],
    "empty": [[]],
    "too wide": [[0, 1], [1, 0], [0, 0]],
}
TAD_CASES = [(indices, dim) for indices in sorted(TAD_INDICES) for dim in [None, 0, 1, -1, 2]]
TAD_CASES += [("flat out of range", None)]
TAD_INDICES["flat out of range"] = [[7]]


@pytest.mark.parametrize(("indices", "dim"), TAD_CASES)
@pytest.mark.parametrize("index_dtype", ["int64", "int32", "float32"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "0-d"])
@pytest.mark.parametrize("form", ["function", "method"])
def test_take_along_dim(indices, dim, index_dtype, layout, form):
    def run(lib):
        source = {"contiguous": lambda: lib.arange(6.0).reshape(2, 3),
                  "transposed": lambda: lib.arange(6.0).reshape(3, 2).t(),
                  "0-d": lambda: lib.tensor(5.0)}[layout]().requires_grad_()
        x = source * 1
        index = lib.tensor(TAD_INDICES[indices], dtype=getattr(lib, index_dtype))
        if layout == "0-d":
            index = index.reshape(-1)[:1].reshape(()) if index.numel() else index
        call = x.take_along_dim if form == "method" else (
            lambda *a, **k: lib.take_along_dim(x, *a, **k))
        out = call(index) if dim is None else call(index, dim=dim)
        out.sum().backward()
        return out, source.grad

    _same_call(run)


@pytest.mark.parametrize("name", ["gather", "scatter", "scatter_add", "scatter_", "index_select",
                                  "take", "index_add"])
@pytest.mark.parametrize("index_dtype", ["float32", "bool", "uint8", "int32"])
def test_empty_index_dtype_checks(name, index_dtype):
    def run(lib):
        x = lib.arange(6.0).reshape(2, 3)
        dtype = getattr(lib, index_dtype)
        two_d, one_d = lib.zeros(0, 3, dtype=dtype), lib.zeros(0, dtype=dtype)
        return {"gather": lambda: lib.gather(x, 0, two_d),
                "scatter": lambda: x.scatter(0, two_d, 1.0),
                "scatter_": lambda: x.clone().scatter_(1, two_d, x),
                "scatter_add": lambda: x.scatter_add(0, two_d, x),
                "index_select": lambda: x.index_select(0, one_d),
                "take": lambda: x.take(one_d),
                "index_add": lambda: x.index_add(0, one_d, x[:0])}[name]()

    _same_call(run)


# -- torch.autograd.graph's classes name that module ------------------------------------------

@pytest.mark.parametrize("name", ["GradientEdge", "allow_mutation_on_saved_tensors",
                                  "disable_saved_tensors_hooks", "save_on_cpu",
                                  "saved_tensors_hooks", "_MultiHandle"])
def test_autograd_graph_module_names(name):
    ours = getattr(leafgrad.autograd.graph, name)
    theirs = getattr(torch.autograd.graph, name)
    assert ours.__module__.replace("leafgrad", "torch") == theirs.__module__
    assert isinstance(ours, type) == isinstance(theirs, type)


def test_multi_grad_hook_handle_repr():
    texts = []
    for lib in (torch, leafgrad):
        a = lib.ones(2, requires_grad=True)
        handle = lib.autograd.graph.register_multi_grad_hook((a,), lambda grads: None)
        texts.append(repr(handle).split(" at ")[0].replace("leafgrad", "torch"))
        handle.remove()
    assert texts[0] == texts[1]
