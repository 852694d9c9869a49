"""Legacy constructors (``torch.FloatTensor(...)``, ``Tensor.new``), ``empty_strided``,
``resize_``/``resize`` and ``set_default_tensor_type``, against torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

TYPES = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
         "CharTensor", "ByteTensor", "BoolTensor"]


def _plain(value):
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        fn = value.grad_fn.name() if value.grad_fn is not None else None
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), fn,
                value.requires_grad)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if type(value).__name__ == "Size":
        return tuple(value)
    return value


def _outcome(lib, code: str, values: bool = False):
    namespace = {"lib": lib, "np": np, "a": lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
                 "b": lib.tensor([1, 2]), "g": lib.tensor([1.0, 2.0], requires_grad=True)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = eval(code, namespace)  # noqa: S307 - the cases below
            plain = _plain(result)
            if values and hasattr(result, "tolist"):
                plain = (plain, result.tolist())
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            plain = (type(error).__name__,
                     str(error).splitlines()[0].replace("leafgrad", "torch"))
    return plain, [str(w.message).split(" (Triggered")[0] for w in caught]


CALLS = ["()", "(2, 3)", "([1, 2])", "([1.5, -2.0])", "((2, 3))", "(lib.Size([2]))",
         "(size=(2,))", "(0)", "(2, 0)", "(-1)", "(2, -1)", "(2.5)", "('a')", "(True)",
         "([True, False])", "([[1, 2], [3]])", "(2, dtype=lib.float64)", "([1], [2])",
         "(2, 3.0)", "(size=2)", "(2, device='cpu')", "([1], device='cpu')",
         "(np.zeros(2))", "(np.float32(2))", "(np.int64(2))", "([lib.tensor(1.0)])",
         "(a)", "(b)", "(a, 2)", "(a, device='cpu')", "(g)", "(g * 2)"]
VALUE_CALLS = {"()", "([1, 2])", "([1.5, -2.0])", "((2, 3))", "([True, False])",
               "(np.zeros(2))", "([lib.tensor(1.0)])", "(a)", "(b)"}


@pytest.mark.parametrize("name", TYPES + ["Tensor"])
@pytest.mark.parametrize("call", CALLS)
def test_legacy_constructor_forms(name, call):
    code = f"lib.{name}{call}"
    values = call in VALUE_CALLS
    assert _outcome(leafgrad, code, values) == _outcome(torch, code, values)


@pytest.mark.parametrize("call", CALLS)
def test_tensor_new_forms(call):
    for receiver in ("a", "b"):
        code = f"{receiver}.new{call}"
        values = call in VALUE_CALLS
        assert _outcome(leafgrad, code, values) == _outcome(torch, code, values)


def test_new_aliases_storage():
    for lib in (leafgrad, torch):
        a = lib.tensor([1.0, 2.0])
        assert lib.FloatTensor(a).data_ptr() == a.data_ptr()
        assert a.new(a) is not a


@pytest.mark.parametrize("name", TYPES)
def test_isinstance_follows_dtype(name):
    for dtype in ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                  "bool"]:
        ours = isinstance(leafgrad.zeros(1, dtype=getattr(leafgrad, dtype)),
                          getattr(leafgrad, name))
        theirs = isinstance(torch.zeros(1, dtype=getattr(torch, dtype)), getattr(torch, name))
        assert ours == theirs, dtype
    assert isinstance(leafgrad.nn.Parameter(leafgrad.zeros(1)), leafgrad.FloatTensor)
    assert not isinstance([1.0], getattr(leafgrad, name))
    assert issubclass(getattr(leafgrad, name), leafgrad.Tensor) is \
        issubclass(getattr(torch, name), torch.Tensor)
    assert getattr(leafgrad, name).dtype.name == str(getattr(torch, name).dtype).split(".")[1]


TYPE_METHOD = ["a.type()", "b.type()", "a.type(lib.LongTensor)", "a.type(lib.LongTensor).type()",
               "b.type('torch.DoubleTensor')", "lib.LongTensor([1]).type()",
               "type(lib.FloatTensor([1])) is lib.Tensor"]


@pytest.mark.parametrize("code", TYPE_METHOD)
def test_type_method(code):
    assert _outcome(leafgrad, code, True) == _outcome(torch, code, True)


STRIDED = ["lib.empty_strided((2, 3), (1, 2)).stride()",
           "lib.empty_strided((2, 3), (1, 2)).is_contiguous()",
           "lib.empty_strided((2, 3), (1,))", "lib.empty_strided((2, -3), (1, 2))",
           "lib.empty_strided((2, 3), (0, 0)).stride()", "lib.empty_strided(2, 1)",
           "lib.empty_strided([2, 3], [3, 1], dtype=lib.int64)",
           "lib.empty_strided((2, 3), (1, 2), requires_grad=True)",
           "a.new_empty_strided((2, 3), (1, 2))",
           "a.new_empty_strided((2, 3), (1, 2), dtype=lib.int32)",
           "a.new_empty_strided((3,), (2,)).stride()"]


@pytest.mark.parametrize("code", STRIDED)
def test_empty_strided(code):
    assert _outcome(leafgrad, code) == _outcome(torch, code)


RESIZE = ["a.clone().resize_(3, 2)", "a.clone().resize_(2, 2)", "a.clone().resize_((6,))",
          "a.clone().resize_(-1)", "a.clone().requires_grad_().resize_(3, 2)",
          "a.clone().resize_as_(lib.zeros(3, 2))", "a[:, :2].clone().t().resize_(2, 2)",
          "a.clone().t().resize_(6)", "a.t().clone().resize_(3, 2).stride()",
          "a.clone().t().resize_(6).stride()", "a[1].resize_(2)", "a.clone().resize(3, 2)",
          "a.clone().resize(2, 2)", "a.clone().resize_as(lib.zeros(6))",
          "a.clone().requires_grad_().resize(3, 2)", "lib.resize_as_(a.clone(), lib.zeros(1))",
          "a.clone().resize_(2, 3)", "a.clone().resize_(0)"]


@pytest.mark.parametrize("code", RESIZE)
def test_resize(code):
    values = "stride" not in code
    assert _outcome(leafgrad, code, values) == _outcome(torch, code, values)


def test_resize_grows_keeping_leading_values():
    ours = leafgrad.arange(6.0).resize_(3, 3)
    theirs = torch.arange(6.0).resize_(3, 3)
    assert ours.shape == theirs.shape
    assert ours.reshape(-1)[:6].tolist() == theirs.reshape(-1)[:6].tolist()


def test_resize_backward():
    results = []
    for lib in (leafgrad, torch):
        x = lib.arange(6.0).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = x.resize(2, 3)
        (y * lib.arange(6.0).reshape(2, 3)).sum().backward()
        results.append((type(y.grad_fn).__name__, x.grad.tolist()))
    assert results[0] == results[1]


DEFAULT_TYPE = ["lib.set_warn_always(True)", "lib.set_default_tensor_type(lib.DoubleTensor)", "lib.get_default_dtype()",
                "lib.tensor([1.0]).dtype", "lib.set_default_tensor_type('torch.FloatTensor')",
                "lib.get_default_dtype()", "lib.set_default_tensor_type(lib.LongTensor)",
                "lib.set_default_tensor_type('x')", "lib.set_default_tensor_type(lib.float64)",
                "lib.set_default_tensor_type('torch.cuda.FloatTensor')",
                "lib.set_default_tensor_type('torch.IntTensor')", "lib.get_default_dtype()"]


def test_set_default_tensor_type():
    try:
        ours = [_outcome(leafgrad, code) for code in DEFAULT_TYPE]
        theirs = [_outcome(torch, code) for code in DEFAULT_TYPE]
    finally:
        for lib in (leafgrad, torch):
            lib.set_default_dtype(lib.float32)
            lib.set_warn_always(False)
    ours = [(str(v).replace("leafgrad", "torch"), w) for v, w in ours]
    theirs = [(str(v), w) for v, w in theirs]
    assert ours == theirs
