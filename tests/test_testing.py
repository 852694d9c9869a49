"""leafgrad.testing against torch.testing: same verdicts, same exception type and message."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

NAN, INF = float("nan"), float("inf")

CASES = [
    (lambda m: m.tensor([1., 2., 3.]), lambda m: m.tensor([1., 2.1, 3.]), {}),
    (lambda m: m.tensor([1., 2., 3.]), lambda m: m.tensor([1., 2., 3.]), {}),
    (lambda m: m.tensor([[1, 2], [3, 4]]), lambda m: m.tensor([[1, 2], [3, 5]]), {}),
    (lambda m: m.tensor([[1, 2], [3, 4]]), lambda m: m.tensor([[1, 2], [3, 5]]),
     dict(rtol=0.1, atol=0.)),
    (lambda m: m.tensor(1.), lambda m: m.tensor(1.5), {}),
    (lambda m: m.tensor(3), lambda m: m.tensor(0), {}),
    (lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1., 2.], dtype=m.float64), {}),
    (lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1., 2.5], dtype=m.float64),
     dict(check_dtype=False)),
    (lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1., 2., 3.]), {}),
    (lambda m: m.zeros(0, 3), lambda m: m.zeros(0, 3), {}),
    (lambda m: [m.tensor([1., 2.]), 1.0], lambda m: [m.tensor([1., 2.]), 1.1], {}),
    (lambda m: [m.tensor([1., 2.]), 1.0], lambda m: [m.tensor([1., 2.])], {}),
    (lambda m: (m.tensor([1., 3.]), [2.0]), lambda m: (m.tensor([1., 2.]), [2.0]),
     dict(msg=lambda s: "H\n" + s)),
    (lambda m: {"a": m.tensor([1., NAN])}, lambda m: {"a": m.tensor([1., NAN])}, {}),
    (lambda m: {"a": m.tensor([1., NAN])}, lambda m: {"a": m.tensor([1., NAN])},
     dict(equal_nan=True)),
    (lambda m: {"a": 1}, lambda m: {"b": 1}, {}),
    (lambda m: {"b": 1, "a": m.tensor([2.])}, lambda m: {"a": m.tensor([3.]), "b": 2}, {}),
    (lambda m: m.tensor([1., 2.]), lambda m: np.array([1., 2.]), {}),
    (lambda m: np.array([1., 2.]), lambda m: np.array([1., 2.5]), {}),
    (lambda m: np.array([1., 2.]), lambda m: np.array([1., 2.], dtype=np.float32), {}),
    (lambda m: 1, lambda m: 1.0, {}),
    (lambda m: 1, lambda m: 1.0, dict(check_dtype=False)),
    (lambda m: 1, lambda m: 2, {}),
    (lambda m: 1.0, lambda m: 1.0 + 1e-9, {}),
    (lambda m: 0.0, lambda m: 1e-9, dict(rtol=0., atol=0.)),
    (lambda m: np.float32(1.0), lambda m: 1.5, {}),
    (lambda m: True, lambda m: False, {}),
    (lambda m: None, lambda m: 1, {}),
    (lambda m: None, lambda m: None, {}),
    (lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1., 3.]), dict(msg="custom")),
    (lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1., 3.]), dict(rtol=0.1)),
    (lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1., 3.]), dict(rtol=0.1, atol=1.)),
    (lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1., 3.]), dict(rtol=0., atol=0.)),
    (lambda m: m.tensor([0., 2.]), lambda m: m.tensor([1., 0.]), {}),
    (lambda m: m.tensor([True, False]), lambda m: m.tensor([True, True]), {}),
    (lambda m: m.ones(2, 3).t(), lambda m: m.ones(3, 2), dict(check_stride=True)),
    (lambda m: m.ones(2, 3).t(), lambda m: m.ones(3, 2), {}),
    (lambda m: m.tensor([1., 2.], dtype=m.float16), lambda m: m.tensor([1., 2.01], dtype=m.float16),
     {}),
    (lambda m: m.tensor([1., INF]), lambda m: m.tensor([1., INF]), {}),
    (lambda m: m.tensor([1., INF]), lambda m: m.tensor([1., -INF]), {}),
    (lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1., NAN]), {}),
    (lambda m: m.tensor([[1., 2.], [3., 4.]]), lambda m: m.tensor([[1.5, 2.], [3., 4.9]]), {}),
    (lambda m: m.tensor([1, 2], dtype=m.uint8), lambda m: m.tensor([3, 2], dtype=m.uint8), {}),
    (lambda m: [1, [2, 3]], lambda m: [1, [2, 4]], {}),
    (lambda m: "ab", lambda m: "ab", {}),
    (lambda m: m.tensor([1, 2]), lambda m: [1, 2], {}),
    (lambda m: m.tensor([1., 2.], requires_grad=True), lambda m: m.tensor([1., 2.]), {}),
    # complex: torch's tolerances per complex dtype, distances as magnitudes
    (lambda m: m.tensor([1 + 1j, 2j]), lambda m: m.tensor([1 + 2j, 2j]), {}),
    (lambda m: m.tensor([1 + 1j, 2j]), lambda m: m.tensor([1 + 1.000001j, 2j]), {}),
    (lambda m: m.tensor([1 + 1j], dtype=m.complex128),
     lambda m: m.tensor([1 + 1.000001j], dtype=m.complex128), {}),
    (lambda m: m.tensor(1 + 1j), lambda m: m.tensor(1 - 1j), {}),
    (lambda m: m.tensor([1 + 1j, complex(NAN, 0)]), lambda m: m.tensor([1 + 1j, complex(0, NAN)]),
     dict(equal_nan=True)),
    (lambda m: m.tensor([1 + 1j, complex(NAN, 0)]), lambda m: m.tensor([1 + 1j, complex(0, NAN)]),
     {}),
    (lambda m: m.tensor([1 + 1j]), lambda m: m.tensor([1 + 1j], dtype=m.complex128), {}),
    (lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1 + 0j, 2]), dict(check_dtype=False)),
    (lambda m: 1 + 2j, lambda m: 1 + 2.1j, {}),
    (lambda m: 1 + 2j, lambda m: 1 + 2j, {}),
    (lambda m: 1 + 2j, lambda m: 1.0, {}),
    (lambda m: np.complex64(1 + 2j), lambda m: 1 + 2.5j, {}),
    (lambda m: m.tensor([1., 2.], dtype=m.bfloat16), lambda m: m.tensor([1., 2.02], dtype=m.bfloat16),
     {}),
    (lambda m: m.tensor([1., 2.], dtype=m.bfloat16), lambda m: m.tensor([1., 2.1], dtype=m.bfloat16),
     {}),
]


def _outcome(module, actual, expected, kwargs):
    try:
        module.testing.assert_close(actual, expected, **kwargs)
    except Exception as error:  # noqa: BLE001 - the outcome is what is compared
        return type(error).__name__, str(error)
    return None


def _same_text(text: str) -> str:
    return text.replace("leafgrad.tensor.Tensor", "torch.Tensor").replace("leafgrad.", "torch.")


@pytest.mark.parametrize("index", range(len(CASES)))
def test_assert_close_matches_torch(index):
    actual, expected, kwargs = CASES[index]
    want = _outcome(torch, actual(torch), expected(torch), kwargs)
    got = _outcome(lg, actual(lg), expected(lg), kwargs)
    if got is not None:
        got = (got[0], _same_text(got[1]))
    assert got == want


def test_assert_close_tolerance_needs_both():
    for module in (torch, lg):
        with pytest.raises(ValueError, match="Both 'rtol' and 'atol' must be either specified"):
            module.testing.assert_close(module.tensor([1.]), module.tensor([1.]), atol=1.)


def test_assert_allclose_is_deprecated_and_loose():
    for module in (torch, lg):
        with pytest.warns(FutureWarning, match="assert_allclose"):
            module.testing.assert_allclose(module.tensor([1., 2.]), [1., 2.00001])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(AssertionError, match="Tensor-likes are not close!"):
                module.testing.assert_allclose(module.tensor([1., 2.]), [1., 2.1])


MAKE = [
    dict(dtype="float32"), dict(dtype="float64", low=-1, high=1), dict(dtype="int64"),
    dict(dtype="uint8"), dict(dtype="bool"), dict(dtype="int8", low=-500, high=500),
    dict(dtype="float32", noncontiguous=True), dict(dtype="int32", exclude_zero=True),
    dict(dtype="float16"), dict(dtype="float32", requires_grad=True, low=0, high=1e39),
    dict(dtype="float64", low=0.5, high=0.75, exclude_zero=True),
]


@pytest.mark.parametrize("shape", [(3, 4), (5,), (), (0, 2), ((2, 3),)])
@pytest.mark.parametrize("index", range(len(MAKE)))
def test_make_tensor_same_draws(index, shape):
    results = []
    for module in (torch, lg):
        module.manual_seed(3)
        kwargs = dict(MAKE[index])
        kwargs["dtype"] = getattr(module, kwargs["dtype"])
        t = module.testing.make_tensor(*shape, device="cpu", **kwargs)
        results.append((t.detach().numpy().copy(), t.is_contiguous(), t.requires_grad,
                        tuple(t.shape), t.stride(), str(t.dtype).split(".")[1]))
        results.append(module.rand(2).numpy())  # the stream continues in step
    np.testing.assert_array_equal(results[0][0], results[2][0])
    assert results[0][1:] == results[2][1:]
    np.testing.assert_array_equal(results[1], results[3])


@pytest.mark.parametrize("kwargs", [dict(low=3, high=1), dict(low=NAN), dict(low=1e40),
                                    dict(requires_grad=True, dtype="int64"),
                                    dict(dtype="uint8", high=-1),
                                    dict(noncontiguous=True, memory_format="contiguous_format")])
def test_make_tensor_errors(kwargs):
    outcomes = []
    for module in (torch, lg):
        k = dict(kwargs)
        k["dtype"] = getattr(module, k.get("dtype", "float32"))
        if "memory_format" in k:
            k["memory_format"] = getattr(module, k["memory_format"])
        with pytest.raises(Exception) as info:
            module.testing.make_tensor((2,), device="cpu", **k)
        outcomes.append((info.type, _same_text(str(info.value))))
    assert outcomes[0] == outcomes[1]
