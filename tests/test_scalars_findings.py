"""Scalar, int, bool and dtype arguments read as torch's argument parser reads them: every kind
of value (Python and NumPy numbers of each dtype, 0-d tensors, tensors requiring grad, None,
lists, arrays, strings, complex numbers) in each argument, against torch."""

from __future__ import annotations

import warnings

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _outcome(call):
    """The result's dtype and values, or the exception's type and first line."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call()
    except Exception as error:  # noqa: BLE001 - compared by type and first line
        return type(error).__name__, (str(error).splitlines() or [""])[0]
    if isinstance(result, tuple):
        return tuple(_value(r) for r in result)
    return _value(result)


def _value(result):
    if hasattr(result, "dtype") and hasattr(result, "tolist"):
        return str(result.dtype).split(".")[-1], repr(result.detach().tolist()), tuple(
            result.shape)
    return repr(result)


# every kind of value an argument may be given: (label, maker of the value for a library)
KINDS = [
    ("None", lambda L: None), ("str", lambda L: "a"), ("list", lambda L: [0.5]),
    ("tuple", lambda L: (1,)), ("ndarray0", lambda L: np.array(0.5)),
    ("ndarray1", lambda L: np.array([0.5])), ("tensor1", lambda L: L.tensor([0.5])),
    ("tensor0", lambda L: L.tensor(0.5)), ("tensor0_int", lambda L: L.tensor(1)),
    ("tensor0_bool", lambda L: L.tensor(True)), ("tensor0_complex", lambda L: L.tensor(0.5j)),
    ("tensor0_grad", lambda L: L.tensor(0.5, requires_grad=True)),
    ("complex", lambda L: 0.5j), ("complex_real", lambda L: 0.5 + 0j),
    ("bool", lambda L: True), ("int", lambda L: 1), ("negative", lambda L: -2),
    ("float", lambda L: 0.5), ("inf", lambda L: float("inf")),
    ("dtype", lambda L: L.float64), ("python_type", lambda L: float),
] + [(f"numpy_{name}", (lambda kind: lambda L: kind(1))(getattr(np, name)))
     for name in ("bool_", "int8", "uint8", "int32", "int64", "float16", "float32", "float64",
                  "complex64", "complex128")] + [
    ("numpy_complex64_imag", lambda L: np.complex64(0.5 + 1j)),
    ("numpy_complex128_imag", lambda L: np.complex128(0.5 + 1j)),
    # integers with an __index__: a SymInt takes them, an int does not
    ("ndarray0_int", lambda L: np.array(1)), ("tensor1_int", lambda L: L.tensor([1]))]


# the numbers among them, complex ones first
NUMBERS = [(label, make) for label, make in KINDS if "complex" in label] + [
    (label, make) for label, make in KINDS if label in ("bool", "int", "negative", "float")
    or label.startswith("numpy_") and "complex" not in label]


def _sweep(calls: dict, dtypes=("float32",), kinds=KINDS) -> int:
    """Compare every call with every kind of value, for inputs of each dtype; an in-place call
    that fails must leave its input as it was."""
    checked = 0
    mismatches = []
    for name, call in calls.items():
        for dtype in dtypes:
            for label, make in kinds:
                found = []
                for lib in (leafgrad, torch):
                    x = lib.tensor([0.25, 0.5, 2.0]).to(getattr(lib, dtype))
                    before = x.clone()
                    outcome = _outcome(lambda: call(lib, x, make(lib)))
                    failed = isinstance(outcome[0], str) and outcome[0].endswith("Error")
                    unchanged = bool((x == before).all()) if failed else True
                    found.append((outcome, unchanged))
                if found[0] != found[1]:
                    mismatches.append((name, dtype, label, found[0], found[1]))
                checked += 1
    assert not mismatches, "\n".join(map(str, mismatches[:20]))
    return checked


def test_softmax_dtype_and_dim_are_parsed():
    """softmax/log_softmax's dtype (torch.dtype or a Python type) and dim (int): a str dtype
    reached Tensor.to and raised a device error, a tensor or bool dtype was taken."""
    calls = {}
    for name in ("softmax", "log_softmax"):
        calls[f"torch.{name} dtype"] = lambda L, x, v, n=name: getattr(L, n)(x, 0, dtype=v)
        calls[f"F.{name} dtype"] = lambda L, x, v, n=name: getattr(L.nn.functional, n)(
            x, 0, dtype=v)
        calls[f"special.{name} dtype"] = lambda L, x, v, n=name: getattr(L.special, n)(
            x, 0, dtype=v)
        calls[f"Tensor.{name} dtype"] = lambda L, x, v, n=name: getattr(x, n)(0, dtype=v)
        calls[f"torch.{name} dim"] = lambda L, x, v, n=name: getattr(L, n)(x, v)
        calls[f"Tensor.{name} dim"] = lambda L, x, v, n=name: getattr(x, n)(v)
        calls[f"special.{name} dim"] = lambda L, x, v, n=name: getattr(L.special, n)(x, v)
    assert _sweep(calls, ("float32", "float64")) == len(calls) * 2 * len(KINDS)


def test_xlogy_other_is_a_tensor_or_a_number():
    """xlogy's other (and self) is a Tensor or a Number: None gave NaNs, lists and arrays
    broadcast; a complex number is xlogy's complex error (it computed with the real part
    when no complex tensor had been made yet); NumPy complex64 is read by its real part."""
    calls = {
        "torch.xlogy other": lambda L, x, v: L.xlogy(x, v),
        "torch.xlogy self": lambda L, x, v: L.xlogy(v, x),
        "Tensor.xlogy": lambda L, x, v: x.xlogy(v),
        "Tensor.xlogy_": lambda L, x, v: x.xlogy_(v),
    }
    assert _sweep(calls, ("float32", "float64", "int64")) == len(calls) * 3 * len(KINDS)


def test_complex_scalars_into_real_kernels():
    """A complex Scalar argument of a real kernel converts as c10's checked conversion does:
    its real part without an imaginary part, else "value cannot be converted to type <C type>
    without overflow" naming the kernel's type (index_add's scalar_t, the activations'
    compute type, clamp-like double/int64_t); index_add(alpha=1j) was accepted."""
    calls = {
        "index_add": lambda L, x, v: x.index_add(0, L.tensor([0]), x[:1].clone(), alpha=v),
        "torch.index_add": lambda L, x, v: L.index_add(x, 0, L.tensor([1]), x[:1], alpha=v),
        "index_add_": lambda L, x, v: x.index_add_(0, L.tensor([0]), x[1:2].clone(), alpha=v),
    }
    for name, call in {
        "elu": lambda f, x, v: f.elu(x, v), "celu": lambda f, x, v: f.celu(x, v),
        "leaky_relu": lambda f, x, v: f.leaky_relu(x, v),
        "softplus": lambda f, x, v: f.softplus(x, v),
        "softplus threshold": lambda f, x, v: f.softplus(x, 1.0, v),
        "hardtanh": lambda f, x, v: f.hardtanh(x, -1.0, v),
        "hardshrink": lambda f, x, v: f.hardshrink(x, v),
        "softshrink": lambda f, x, v: f.softshrink(x, v),
        "threshold": lambda f, x, v: f.threshold(x, v, 0.0),
        "threshold value": lambda f, x, v: f.threshold(x, 1.0, v),
        "threshold_": lambda f, x, v: f.threshold(x, 1.0, v, inplace=True),
        "elu_": lambda f, x, v: f.elu(x, v, inplace=True),
        "celu_": lambda f, x, v: f.celu(x, v, inplace=True),
        "rrelu": lambda f, x, v: f.rrelu(x, v, 0.5),
    }.items():
        calls[name] = lambda L, x, v, call=call: call(L.nn.functional, x, v)
    dtypes = ("float32", "float64", "float16", "int64", "int8", "complex64")
    assert _sweep(calls, dtypes, NUMBERS) == len(calls) * len(dtypes) * len(NUMBERS)


def test_int_float_and_norm_order_arguments():
    """polygamma's n and mvlgamma's p are ints (a NumPy integer or an integer 0-d tensor is
    one; special.polygamma/multigammaln name themselves); bernoulli_'s p is a Tensor or a
    float (None, lists and arrays broadcast); quantile's q is a Tensor or a float (NumPy bools
    and complex numbers too, by their real part); torch.norm/linalg.vector_norm's p/ord is a
    Number (0-d tensors and bools too, complex ones refused by the norm), linalg.norm's a
    Number or a str; renorm's p and maxnorm are real; clamp's complex bound converts into a
    floating tensor's double."""
    calls = {
        "polygamma": lambda L, x, v: L.polygamma(v, x),
        "Tensor.polygamma": lambda L, x, v: x.polygamma(v),
        "Tensor.polygamma_": lambda L, x, v: x.polygamma_(v),
        "special.polygamma": lambda L, x, v: L.special.polygamma(v, x),
        "quantile": lambda L, x, v: L.quantile(x, v),
        "Tensor.nanquantile": lambda L, x, v: x.nanquantile(v),
        "norm": lambda L, x, v: L.norm(x, v),
        "Tensor.norm": lambda L, x, v: x.norm(v),
        "linalg.vector_norm": lambda L, x, v: L.linalg.vector_norm(x, v),
        "linalg.vector_norm dtype": lambda L, x, v: L.linalg.vector_norm(x, dtype=v),
        "linalg.norm": lambda L, x, v: L.linalg.norm(x, v),
        "linalg.norm matrix": lambda L, x, v: L.linalg.norm(x.outer(x), v),
        "linalg.matrix_norm": lambda L, x, v: L.linalg.matrix_norm(x, v),
        "renorm p": lambda L, x, v: x.outer(x).renorm(v, 0, 1.0),
        "renorm maxnorm": lambda L, x, v: x.outer(x).renorm(2, 0, v),
        "clamp": lambda L, x, v: x.clamp(v),
        "clamp_": lambda L, x, v: x.clamp_(None, v),
        "torch.clamp": lambda L, x, v: L.clamp(x, v, 1.0),
    }
    assert _sweep(calls, ("float32", "float64")) == len(calls) * 2 * len(KINDS)
    # (mvlgamma in float32: its float64 values differ from torch's in the last bits, another
    # matter than its argument)
    assert _sweep({
        "mvlgamma": lambda L, x, v: L.mvlgamma(x + 3, v),
        "Tensor.mvlgamma_": lambda L, x, v: (x + 3).mvlgamma_(v),
        "special.multigammaln": lambda L, x, v: L.special.multigammaln(x + 3, v)})
    # clamp of integers with a complex bound: a complex result, which clamp refuses
    assert _sweep({"clamp": calls["clamp"]}, ("int64", "int8", "bool"), NUMBERS)


def test_bernoulli_p_is_a_tensor_or_a_float():
    """bernoulli_'s p, every kind, drawing from the same seed: the same draws or error."""
    mismatches = []
    for label, make in KINDS:
        found = []
        for lib in (leafgrad, torch):
            lib.manual_seed(0)
            x = lib.zeros(3)
            found.append(_outcome(lambda: x.bernoulli_(make(lib))))
        if found[0] != found[1]:
            mismatches.append((label, *found))
    assert not mismatches, mismatches


# the kinds a bool argument may be given (Python bools are its only good kind)
FLAGS = [(label, make) for label, make in KINDS
         if label in ("None", "str", "list", "ndarray0", "tensor0", "tensor0_bool", "int",
                      "float", "bool", "numpy_bool_", "numpy_int64", "complex")]


def test_keepdim_is_a_bool():
    """keepdim is a bool: 1, None, NumPy bools, 0-d tensors were taken for their truth (torch
    2.13 refuses even np.bool_), in every reduction that has one (keyword form)."""
    calls = {}
    for name in ("sum", "mean", "nansum", "amax", "amin", "argmax", "argmin", "max", "min",
                 "median", "nanmedian", "mode", "logsumexp", "prod", "all", "any"):
        calls[f"torch.{name}"] = lambda L, x, v, n=name: getattr(L, n)(x, 0, keepdim=v)
        calls[f"Tensor.{name}"] = lambda L, x, v, n=name: getattr(x, n)(0, keepdim=v)
    calls["kthvalue"] = lambda L, x, v: L.kthvalue(x, 1, 0, keepdim=v)
    assert _sweep(calls, ("float32",), FLAGS) == len(calls) * len(FLAGS)


def test_factory_requires_grad_is_a_bool():
    """A factory's requires_grad is a bool or None: zeros(3, requires_grad=1) made a leaf
    requiring grad (and np.bool_, which torch refuses, was taken)."""
    calls = {
        "zeros": lambda L, x, v: L.zeros(3, requires_grad=v),
        "ones": lambda L, x, v: L.ones(2, 2, requires_grad=v),
        "full": lambda L, x, v: L.full((2,), 1.5, requires_grad=v),
        "eye": lambda L, x, v: L.eye(2, requires_grad=v),
        "zeros_like": lambda L, x, v: L.zeros_like(x, requires_grad=v),
        "full_like": lambda L, x, v: L.full_like(x, 2.0, requires_grad=v),
        "arange": lambda L, x, v: L.arange(3.0, requires_grad=v),
        "linspace": lambda L, x, v: L.linspace(0, 1, 3, requires_grad=v),
        "logspace": lambda L, x, v: L.logspace(0, 1, 3, requires_grad=v),
        "empty": lambda L, x, v: L.empty(0, requires_grad=v),
        "scalar_tensor": lambda L, x, v: L.scalar_tensor(2.0, requires_grad=v),
        "tril_indices": lambda L, x, v: L.tril_indices(2, 2, requires_grad=v),
    }
    assert _sweep(calls, ("float32",), FLAGS) == len(calls) * len(FLAGS)
    # pin_memory: a bool or None, True refused on a CPU-only build (pin_memory=False was
    # "an unexpected keyword argument" of most factories)
    pinned = {
        "zeros": lambda L, x, v: L.zeros(3, pin_memory=v),
        "ones": lambda L, x, v: L.ones(2, 2, pin_memory=v),
        "empty": lambda L, x, v: L.empty(0, pin_memory=v),
        "full": lambda L, x, v: L.full((2,), 1.5, pin_memory=v),
        "eye": lambda L, x, v: L.eye(2, pin_memory=v),
        "arange": lambda L, x, v: L.arange(3, pin_memory=v),
        "linspace": lambda L, x, v: L.linspace(0, 1, 3, pin_memory=v),
        "zeros_like": lambda L, x, v: L.zeros_like(x, pin_memory=v),
        "full_like": lambda L, x, v: L.full_like(x, 2.0, pin_memory=v),
        "randperm": lambda L, x, v: L.randperm(0, pin_memory=v),
    }
    assert _sweep(pinned, ("float32",), FLAGS) == len(pinned) * len(FLAGS)
    # scalar_tensor's s: a Number (a 0-d tensor not requiring grad is one)
    assert _sweep({"scalar_tensor s": lambda L, x, v: L.scalar_tensor(v)})


def test_tensor_or_number_and_number_arguments():
    """Arguments torch types Tensor-or-Number (rsub's, float_power's, the bitwise ops',
    copysign's, special.zeta's other) or Number (full/full_like/new_full's fill_value,
    std/var's correction) or float/bool (isclose/allclose's rtol, atol, equal_nan): None,
    lists, arrays and tensors requiring grad were broadcast or gave NaNs; NumPy scalars are
    read as torch reads them (np.bool_ a float, np.complex64 its real part)."""
    calls = {
        "rsub": lambda L, x, v: L.rsub(x, v),
        "rsub alpha": lambda L, x, v: L.rsub(x, 2, alpha=v),
        "copysign": lambda L, x, v: L.copysign(x, v),
        "Tensor.copysign_": lambda L, x, v: x.copysign_(v),
        "special.zeta": lambda L, x, v: L.special.zeta(x + 1, v),
        "special.zeta self": lambda L, x, v: L.special.zeta(v, x + 1),
        "full": lambda L, x, v: L.full((2,), v),
        "full_like": lambda L, x, v: L.full_like(x, v),
        "new_full": lambda L, x, v: x.new_full((2,), v),
        "std correction": lambda L, x, v: L.std(x, correction=v),
        "Tensor.var correction": lambda L, x, v: x.var(0, correction=v),
        "isclose rtol": lambda L, x, v: L.isclose(x, x, rtol=v),
        "Tensor.allclose atol": lambda L, x, v: x.allclose(x, atol=v),
        "isclose equal_nan": lambda L, x, v: L.isclose(x, x, equal_nan=v),
    }
    assert _sweep(calls, ("float32", "float64")) == len(calls) * 2 * len(KINDS)
    # (float_power with complex numbers: complex pow's last bits differ from torch's, another
    # matter than the argument's parsing)
    real = [(label, make) for label, make in KINDS if "complex" not in label]
    assert _sweep({
        "float_power": lambda L, x, v: L.float_power(x, v),
        "float_power self": lambda L, x, v: L.float_power(v, x),
        "Tensor.float_power": lambda L, x, v: x.float_power(v),
    }, ("float32", "float64"), real)
    bitwise = {}
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                 "bitwise_right_shift"):
        bitwise[name] = lambda L, x, v, n=name: getattr(L, n)(x, v)
        bitwise[f"Tensor.{name}"] = lambda L, x, v, n=name: getattr(x, n)(v)
    assert _sweep(bitwise, ("int64", "uint8")) == len(bitwise) * 2 * len(KINDS)


def test_int_and_bool_arguments_of_shape_and_order_functions():
    """tril/triu's diagonal, matrix_power's n, rot90's k, round's decimals, topk's k are ints;
    sort/argsort's descending and stable, topk's largest and sorted are bools: floats, None,
    arrays and bools were taken (round(x, decimals=1.5) rounded, argsort(descending=None)
    sorted ascending, tril(x, True) kept a diagonal more)."""
    calls = {
        "tril": lambda L, x, v: L.tril(x.outer(x), v),
        "Tensor.tril": lambda L, x, v: x.outer(x).tril(v),
        "Tensor.triu": lambda L, x, v: x.outer(x).triu(v),
        "matrix_power": lambda L, x, v: L.matrix_power(x.outer(x), v),
        "Tensor.matrix_power": lambda L, x, v: x.outer(x).matrix_power(v),
        "rot90": lambda L, x, v: L.rot90(x.outer(x), v),
        "Tensor.rot90": lambda L, x, v: x.outer(x).rot90(v),
        "round": lambda L, x, v: L.round(x, decimals=v) if v is not None else L.round(x),
        "Tensor.round": lambda L, x, v: x.round(decimals=v) if v is not None else x.round(),
        "topk k": lambda L, x, v: L.topk(x, v).values,
        "Tensor.topk largest": lambda L, x, v: x.topk(1, largest=v).values,
        "topk sorted": lambda L, x, v: L.topk(x, 2, sorted=v).values,
        "sort descending": lambda L, x, v: L.sort(x, descending=v).values,
        "Tensor.sort stable": lambda L, x, v: x.sort(stable=v).values,
        "argsort descending": lambda L, x, v: L.argsort(x, descending=v),
        "Tensor.argsort descending": lambda L, x, v: x.argsort(descending=v),
    }
    # (a 0-d bool tensor for an int trips an internal assert in torch 2.13's parser
    # (pybind.cpp, "scalar.isIntegral"): leafgrad gives the TypeError a user can act on)
    kinds = [(label, make) for label, make in KINDS if label != "tensor0_bool"]
    assert _sweep(calls, ("float32",), kinds) == len(calls) * len(kinds)


def test_dims_and_shifts_take_numpy_and_tensor_integers():
    """A reduction's dim and roll's shifts/dims: torch's parser takes NumPy integers and
    integer 0-d tensors as ints (x.sum(np.int64(1)) raised "'numpy.int64' object is not
    iterable"); roll's shifts refuse bools, floats, arrays and None (roll(x, True) rolled
    by one)."""
    calls = {
        "Tensor.sum dim": lambda L, x, v: x.outer(x).sum(v),
        "Tensor.mean dims": lambda L, x, v: x.outer(x).mean((v, 0)),
        "torch.amax": lambda L, x, v: L.amax(x.outer(x), v),
        "Tensor.logsumexp": lambda L, x, v: x.outer(x).logsumexp(v),
        "Tensor.std": lambda L, x, v: x.outer(x).std(v),
        "roll": lambda L, x, v: L.roll(x, v),
        "Tensor.roll": lambda L, x, v: x.roll(v),
        "roll dims": lambda L, x, v: L.roll(x.outer(x), 1, v),
    }
    kinds = [(label, make) for label, make in KINDS if label in (
        "int", "numpy_int8", "numpy_uint8", "numpy_int32", "numpy_int64", "tensor0_int",
        "negative")] + [("roll kinds", make) for label, make in KINDS if label in (
            "bool", "float", "ndarray1", "None", "list", "tuple")]
    assert _sweep({name: call for name, call in calls.items() if "roll" not in name},
                  ("float32",), kinds[:7])
    assert _sweep({name: call for name, call in calls.items() if "roll" in name},
                  ("float32",), kinds)


def test_in_place_products_comparison_aliases_and_int_methods():
    """The in-place matrix products' beta/alpha (addmm_, baddbmm_, addbmm_, addr_: lists and
    arrays were broadcast), the comparison aliases' and floor_divide's other (greater(None)
    compared with NaN), round_'s decimals, tril_/triu_'s diagonal, chunk's chunks and dim,
    movedim's source/destination: as torch's parser reads them."""
    m = lambda L: L.tensor([[0.25, 0.5], [0.75, 0.125]])  # noqa: E731
    calls = {
        "addmm_ beta": lambda L, x, v: m(L).addmm_(m(L), m(L), beta=v),
        "addmm_ alpha": lambda L, x, v: m(L).addmm_(m(L), m(L), alpha=v),
        "baddbmm_ beta": lambda L, x, v: m(L)[None].baddbmm_(m(L)[None], m(L)[None], beta=v),
        "addbmm_ alpha": lambda L, x, v: m(L).addbmm_(m(L)[None], m(L)[None], alpha=v),
        "addr_ alpha": lambda L, x, v: m(L).addr_(x[:2], x[:2], alpha=v),
        "greater": lambda L, x, v: x.greater(v),
        "less_equal": lambda L, x, v: x.less_equal(v),
        "not_equal": lambda L, x, v: x.not_equal(v),
        "floor_divide": lambda L, x, v: x.floor_divide(v),
        "floor_divide_": lambda L, x, v: x.floor_divide_(v),
        "round_": lambda L, x, v: x.round_(decimals=v) if v is not None else x.round_(),
        "tril_": lambda L, x, v: m(L).tril_(v),
        "Tensor.tril": lambda L, x, v: m(L).tril(v),
        "torch.triu": lambda L, x, v: L.triu(m(L), v),
        "Tensor.topk": lambda L, x, v: x.topk(v).values,
        "chunk": lambda L, x, v: x.chunk(v),
        "chunk dim": lambda L, x, v: m(L).chunk(2, v),
        "movedim": lambda L, x, v: m(L).movedim(v, 0),
        "movedim destination": lambda L, x, v: m(L).movedim(0, v),
    }
    # (a 0-d bool tensor for an int trips an internal assert in torch 2.13's parser)
    kinds = [(label, make) for label, make in KINDS if label != "tensor0_bool"]
    assert _sweep(calls, ("float32",), kinds) == len(calls) * len(kinds)


def test_float_p_and_keyword_flags():
    """dropout's, cdist's and pdist's p are doubles (a 1-element tensor or an array was taken;
    pdist's error named position 3), isin's assume_unique/invert and searchsorted's/
    bucketize's right/out_int32 are bools (isin(x, y, invert=1) inverted)."""
    s = lambda L: L.tensor([0.25, 0.5, 2.0])  # noqa: E731
    calls = {
        "dropout": lambda L, x, v: L.nn.functional.dropout(x, v, training=False),
        "cdist": lambda L, x, v: L.cdist(x[None], x[None], v),
        "pdist": lambda L, x, v: L.pdist(x[:, None], v),
        "isin invert": lambda L, x, v: L.isin(x, s(L), invert=v),
        "isin assume_unique": lambda L, x, v: L.isin(x, s(L), assume_unique=v),
        "searchsorted right": lambda L, x, v: L.searchsorted(s(L), x, right=v),
        "searchsorted out_int32": lambda L, x, v: L.searchsorted(s(L), x, out_int32=v),
        "bucketize right": lambda L, x, v: L.bucketize(x, s(L), right=v),
    }
    # (dropout compares p with 0 and 1 in Python first: a dtype's name differs there)
    kinds = [(label, make) for label, make in KINDS if label != "dtype"]
    assert _sweep(calls, ("float32",), kinds) == len(calls) * len(kinds)


def test_dims_of_view_functions_are_ints():
    """unsqueeze/transpose/select's dims, select's index, diag's diagonal and diff's n are ints
    (x.unsqueeze(True) unsqueezed dim 1, x.transpose(True, 0) swapped 1 and 0); NumPy and
    tensor integers are ints there too."""
    calls = {
        "unsqueeze": lambda L, x, v: L.unsqueeze(x, v),
        "Tensor.unsqueeze": lambda L, x, v: x.unsqueeze(v),
        "transpose": lambda L, x, v: L.transpose(x.outer(x), v, 0),
        "Tensor.transpose": lambda L, x, v: x.outer(x).transpose(0, v),
        "select": lambda L, x, v: L.select(x.outer(x), v, 0),
        "Tensor.select index": lambda L, x, v: x.outer(x).select(0, v),
        "diag": lambda L, x, v: L.diag(x, v),
        "Tensor.diag": lambda L, x, v: x.diag(v),
        "diff": lambda L, x, v: L.diff(x, v),
        "Tensor.diff": lambda L, x, v: x.diff(v),
    }
    # (a 0-d bool tensor for an int trips an internal assert in torch 2.13's parser)
    kinds = [(label, make) for label, make in KINDS if label != "tensor0_bool"]
    assert _sweep(calls, ("float32",), kinds) == len(calls) * len(kinds)
