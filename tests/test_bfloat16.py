"""torch.bfloat16 against torch 2.13: the dtype, conversions (bit for bit), printing, promotion,
factories, autograd, nn and optimizers, checkpoints and safetensors, and the NumPy-only install
(without the optional ml_dtypes package)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()
pytest.importorskip("ml_dtypes")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64", "complex64", "complex128"]


def _bits(t) -> np.ndarray:
    """A bfloat16 tensor's 16-bit patterns (torch has no NumPy bfloat16)."""
    int16 = torch.int16 if isinstance(t, torch.Tensor) else leafgrad.int16
    return t.detach().contiguous().view(int16).numpy().view(np.uint16)


def _lg(t):
    """The torch tensor ``t`` rebuilt in leafgrad, bit for bit (bfloat16 through its bits)."""
    if t.dtype == torch.bfloat16:
        return leafgrad.tensor(t.view(torch.int16).numpy()).view(leafgrad.bfloat16)
    return leafgrad.tensor(t.numpy())


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


# -- the dtype ------------------------------------------------------------------------------


def test_dtype_attributes():
    b = leafgrad.bfloat16
    assert repr(b) == "leafgrad.bfloat16" and str(torch.bfloat16) == "torch.bfloat16"
    for attr in ("is_floating_point", "is_complex", "is_signed", "itemsize"):
        assert getattr(b, attr) == getattr(torch.bfloat16, attr), attr
    assert repr(leafgrad.finfo(b)) == repr(torch.finfo(torch.bfloat16))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(leafgrad.finfo(b), attr) == getattr(torch.finfo(torch.bfloat16), attr)
    assert leafgrad.ones(3, dtype=b).element_size() == torch.ones(3, dtype=torch.bfloat16
                                                                  ).element_size()
    assert leafgrad.ones(3, dtype=b).is_floating_point()
    assert leafgrad.ones(2, dtype=b).type() == torch.ones(2, dtype=torch.bfloat16).type()


@pytest.mark.parametrize("other", NAMES)
def test_promote_types(other):
    ours = leafgrad.promote_types(leafgrad.bfloat16, getattr(leafgrad, other))
    theirs = torch.promote_types(torch.bfloat16, getattr(torch, other))
    assert _name(ours) == _name(theirs)
    assert _name(leafgrad.promote_types(getattr(leafgrad, other), leafgrad.bfloat16)) == \
        _name(theirs)


@pytest.mark.parametrize("scalar", [1, 2.5, True, 1j])
@pytest.mark.parametrize("other", ["float16", "float32", "int64", "bool", "bfloat16"])
def test_result_type_and_operators(other, scalar):
    for zero_d in (False, True):
        shape = () if zero_d else (2,)
        outcomes = []
        for m in (torch, leafgrad):
            x = m.ones(2, dtype=m.bfloat16)
            y = m.ones(shape, dtype=getattr(m, other))
            outcomes.append((_name(m.result_type(x, y)), _name(m.result_type(y, x)),
                             _name(m.result_type(x, scalar)), _name((x + y).dtype),
                             _name((y * x).dtype), _name((x * scalar).dtype)))
        assert outcomes[0] == outcomes[1]


# -- conversions ------------------------------------------------------------------------------


def _float32_patterns() -> np.ndarray:
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    edges = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00001,
                      0x7F7FFFFF, 0x00000001, 0x007FFFFF, 0x00800000, 0x3F808000, 0x3F818000,
                      0x3F808001, 0x3F817FFF, 0x7F7F8000], dtype=np.uint32)
    ties = (np.arange(0, 2**16, dtype=np.uint32) << 16) | 0x8000  # every exact halfway case
    return np.concatenate([bits, edges, ties, ties - 1, ties + 1]).view(np.float32)


@pytest.mark.parametrize("shape", ["1-d", "0-d"])
def test_float32_to_bfloat16_bits(shape):
    """Round to nearest even, overflow to inf, subnormals kept; NaN is 0xFFFF from torch's
    vectorized conversion (tensors of one or more dims) and 0x7FC0 from its scalar one (0-d)."""
    values = _float32_patterns()
    if shape == "0-d":
        values = values[::997]
        for v in values:
            t = torch.tensor(v).to(torch.bfloat16)
            ours = leafgrad.tensor(v).to(leafgrad.bfloat16)
            assert _bits(ours)[()] == _bits(t)[()], v
        return
    theirs = _bits(torch.from_numpy(values.copy()).to(torch.bfloat16))
    for call in (lambda x: x.to(leafgrad.bfloat16), lambda x: x.bfloat16(),
                 lambda x: x.type(leafgrad.bfloat16)):
        assert np.array_equal(_bits(call(leafgrad.from_numpy(values.copy()))), theirs)


@pytest.mark.parametrize("source", ["float64", "float16", "int64", "int32", "uint8", "bool"])
def test_other_dtypes_to_bfloat16_bits(source):
    rng = np.random.default_rng(1)
    if source == "float64":
        data = rng.standard_normal(5000) * 10.0 ** rng.integers(-45, 39, 5000)
        data = np.concatenate([data, [np.inf, -np.inf, 1 + 2**-8, 1 + 2**-8 + 2**-40, 5e-324]])
    elif source == "float16":
        data = np.arange(2**16, dtype=np.uint16).view(np.float16)
        data = data[~np.isnan(data)]
    elif source == "bool":
        data = np.array([True, False])
    else:
        info = np.iinfo(source)
        data = np.concatenate([rng.integers(info.min, info.max, 5000, dtype=source, endpoint=True),
                               np.array([info.min, info.max, 257, 16777217], dtype=np.int64
                                        ).astype(source)])
    data = np.asarray(data, dtype=source)
    theirs = _bits(torch.from_numpy(data.copy()).to(torch.bfloat16))
    assert np.array_equal(_bits(leafgrad.from_numpy(data.copy()).to(leafgrad.bfloat16)), theirs)
    assert np.array_equal(_bits(leafgrad.tensor(data, dtype=leafgrad.bfloat16)),
                          _bits(torch.tensor(data, dtype=torch.bfloat16)))


@pytest.mark.parametrize("target", ["float32", "float64", "float16", "int64", "int32", "int8",
                                    "uint8", "bool", "complex64"])
def test_bfloat16_to_other_dtypes(target):
    patterns = np.arange(2**16, dtype=np.uint16).view(np.int16)
    theirs = torch.from_numpy(patterns.copy()).view(torch.bfloat16)
    ours = leafgrad.from_numpy(patterns.copy()).view(leafgrad.bfloat16)
    if target not in ("float32", "float64", "float16", "complex64", "bool"):
        finite = torch.isfinite(theirs) & (theirs.abs() < 100)  # C++ leaves out-of-range casts
        theirs, ours = theirs[finite], ours[leafgrad.from_numpy(finite.numpy())]
    want = theirs.to(getattr(torch, target)).numpy()
    got = ours.to(getattr(leafgrad, target)).numpy()
    if want.dtype.kind in "fc":
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)) or \
            np.array_equal(got, want, equal_nan=True)
    else:
        assert np.array_equal(got, want)


@pytest.mark.parametrize("data", [[float("nan"), -float("nan"), 1e40, -1e-45, 3, True],
                                  -float("nan"), [[1.1, 2], [3, 4.7]], [2**60 + 1, -7]])
def test_construction_bits(data):
    """torch converts Python values on its scalar path: every NaN is 0x7FC0."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = leafgrad.tensor(data, dtype=leafgrad.bfloat16)
    assert np.array_equal(_bits(ours), _bits(torch.tensor(data, dtype=torch.bfloat16)))


def test_python_values_item_tolist():
    t = torch.tensor([1.1, -2.5, 3e38, 1e-40, float("inf")], dtype=torch.bfloat16)
    ours = _lg(t)
    assert ours.tolist() == t.tolist()
    assert [type(v) for v in ours.tolist()] == [type(v) for v in t.tolist()]
    assert ours[0].item() == t[0].item() and type(ours[0].item()) is float
    assert float(ours[1]) == float(t[1]) and int(ours[1]) == int(t[1])
    assert leafgrad.tensor(1.0, dtype=leafgrad.bfloat16).tolist() == 1.0


def test_numpy_and_numpy_sources_refused_as_torch():
    import ml_dtypes

    for m in (torch, leafgrad):
        with pytest.raises(TypeError, match="^Got unsupported ScalarType BFloat16$"):
            m.ones(2, dtype=m.bfloat16).numpy()
    array = np.array([1.5, 2.0], dtype=ml_dtypes.bfloat16)
    for call in ("from_numpy", "tensor", "as_tensor", "asarray"):
        errors = []
        for m in (torch, leafgrad):
            with pytest.raises(TypeError) as info:
                getattr(m, call)(array)
            errors.append(str(info.value))
        assert errors[0] == errors[1], call


# -- printing ---------------------------------------------------------------------------------

REPRS = [
    [1.0, 2.0], [1.0, 2.5, -3.14159, 1e-3, 300.7], 1.5, [1e10, 1.0, 3e-5],
    [float("nan"), float("inf"), -1.0], [], [[1.1, 2.2], [3.3, 4.4]], [0.1] * 1200,
    [1e-8, 2e-9], [123456.0, 1.0], -0.0,
]


@pytest.mark.parametrize("values", REPRS, ids=range(len(REPRS)))
def test_repr(values):
    t = torch.tensor(values, dtype=torch.bfloat16)
    assert repr(_lg(t)) == repr(t).replace("torch.", "leafgrad.")
    grad = torch.tensor(values, dtype=torch.bfloat16, requires_grad=True)
    if grad.numel():
        ours = leafgrad.tensor(values, dtype=leafgrad.bfloat16, requires_grad=True)
        assert repr(ours * 2) == repr(grad * 2).replace("torch.", "leafgrad.")


# -- factories --------------------------------------------------------------------------------

FACTORIES = {
    "zeros": lambda m: m.zeros(2, 3, dtype=m.bfloat16),
    "ones": lambda m: m.ones(5, dtype=m.bfloat16),
    "full": lambda m: m.full((4,), 1.1, dtype=m.bfloat16),
    "arange": lambda m: m.arange(-5, 100, 0.7, dtype=m.bfloat16),
    "arange_int": lambda m: m.arange(0, 1000, dtype=m.bfloat16),
    "linspace": lambda m: m.linspace(-3, 7.3, 33, dtype=m.bfloat16),
    "linspace_small": lambda m: m.linspace(0, 1, 7, dtype=m.bfloat16),
    "eye": lambda m: m.eye(3, dtype=m.bfloat16),
    "randn": lambda m: (m.manual_seed(3), m.randn(37, dtype=m.bfloat16))[1],
    "randn_small": lambda m: (m.manual_seed(3), m.randn(5, dtype=m.bfloat16))[1],
    "rand": lambda m: (m.manual_seed(4), m.rand(2, 17, dtype=m.bfloat16))[1],
    "normal_": lambda m: (m.manual_seed(5), m.empty(40, dtype=m.bfloat16).normal_(2, 3))[1],
    "uniform_": lambda m: (m.manual_seed(6), m.empty(40, dtype=m.bfloat16).uniform_(-2, 3))[1],
    "randn_like": lambda m: (m.manual_seed(7), m.randn_like(m.ones(20, dtype=m.bfloat16)))[1],
    "randint": lambda m: (m.manual_seed(8), m.randint(0, 9, (6,), dtype=m.bfloat16))[1],
    "zeros_like": lambda m: m.zeros_like(m.ones(2, dtype=m.bfloat16)),
    "empty": lambda m: m.empty(3, dtype=m.bfloat16).zero_(),
    "tensor": lambda m: m.tensor([[1, 2], [3, 4]], dtype=m.bfloat16),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factories_bit_exact(name):
    theirs, ours = FACTORIES[name](torch), FACTORIES[name](leafgrad)
    assert _name(ours.dtype) == _name(theirs.dtype) == "bfloat16"
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert np.array_equal(_bits(ours), _bits(theirs))
    # the generator moved as far as torch's
    if name.startswith("rand") or name.endswith("_"):
        assert np.array_equal(leafgrad.rand(3).numpy(), torch.rand(3).numpy())


# -- arithmetic and autograd ------------------------------------------------------------------

BINARY = {
    "add": lambda a, b, s: a + s, "sub": lambda a, b, s: a - s, "rsub": lambda a, b, s: s - a,
    "mul": lambda a, b, s: a * s, "div": lambda a, b, s: a / s,
    "pow": lambda a, b, s: a.abs() ** s, "add_t": lambda a, b, s: a + b,
    "mul_t": lambda a, b, s: a * b, "alpha": lambda a, b, s: a.add(b, alpha=s),
    "alpha_sub": lambda a, b, s: a.sub(b, alpha=s), "add_": lambda a, b, s: a.clone().add_(s),
    "mul_": lambda a, b, s: a.clone().mul_(s), "pow_m2": lambda a, b, s: a.abs() ** -2,
    "fmod": lambda a, b, s: a.fmod(s), "remainder": lambda a, b, s: a.remainder(s),
    "zero_d_float32": lambda a, b, s: a + a.new_tensor(s).float(),
    "exp": lambda a, b, s: a.exp(), "tanh": lambda a, b, s: a.tanh(),
    "sigmoid": lambda a, b, s: a.sigmoid(), "sqrt": lambda a, b, s: a.abs().sqrt(),
    "softmax": lambda a, b, s: a.reshape(50, -1).softmax(1),
    "sum": lambda a, b, s: a.reshape(50, -1).sum(1), "mean": lambda a, b, s: a.mean(),
    "matmul": lambda a, b, s: a.reshape(50, -1) @ b.reshape(-1, 50),
    "where": lambda a, b, s: a.where(a > 0, b), "clamp": lambda a, b, s: a.clamp(-0.5, s),
}


@pytest.mark.parametrize("size", [1000, 1003, 50 * 21])
@pytest.mark.parametrize("name", list(BINARY))
def test_ops_bit_exact(name, size):
    """Computed in float32 and rounded once, Python numbers cast as torch's kernels do."""
    rng = np.random.default_rng(size)
    size = size - size % 50
    a = torch.from_numpy(rng.standard_normal(size).astype(np.float32)).bfloat16()
    b = torch.from_numpy(rng.standard_normal(size).astype(np.float32)).bfloat16()
    for scalar in (2.7001, -0.1, 3):
        theirs = BINARY[name](a, b, scalar)
        ours = BINARY[name](_lg(a), _lg(b), scalar)
        assert _name(ours.dtype) == _name(theirs.dtype) == "bfloat16"
        assert np.array_equal(_bits(ours), _bits(theirs)), scalar


def test_autograd_through_bfloat16():
    outcomes = []
    for m in (torch, leafgrad):
        a = m.tensor([1.0, 2.0, 3.0, -0.5], dtype=m.bfloat16, requires_grad=True)
        w = m.tensor([0.3, -1.7, 2.2, 0.9], dtype=m.bfloat16, requires_grad=True)
        y = ((a * w).sin() + a.exp() / w).sum()
        y.backward()
        z = m.autograd.grad((a * a).sum(), a, create_graph=True)[0]
        (second,) = m.autograd.grad(z.sum(), a)
        outcomes.append((_name(a.grad.dtype), _name(w.grad.dtype), y.grad_fn.name(),
                         _bits(a.grad).tolist(), _bits(w.grad).tolist(), _bits(y).tolist(),
                         _bits(second).tolist(), z.grad_fn.name()))
    assert outcomes[0] == outcomes[1]


def test_float32_leaf_through_a_bfloat16_cast():
    outcomes = []
    for m in (torch, leafgrad):
        x = m.tensor([1.1, -2.3, 0.7], requires_grad=True)
        y = x.bfloat16()
        (y * y).sum().backward()
        outcomes.append((y.grad_fn.name(), _name(x.grad.dtype), x.grad.tolist()))
    assert outcomes[0] == outcomes[1]


def test_requires_grad_and_errors():
    for m in (torch, leafgrad):
        t = m.ones(2, dtype=m.bfloat16, requires_grad=True)
        assert t.requires_grad and m.zeros(2, dtype=m.bfloat16).requires_grad_().requires_grad
    errors = []
    for m in (torch, leafgrad):
        with pytest.raises(NotImplementedError) as info:
            m.linalg.svd(m.ones(3, 3, dtype=m.bfloat16))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


# -- nn and optimizers ------------------------------------------------------------------------

OPTIMIZERS = [("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}),
              ("Adam", {"lr": 0.1}), ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1}),
              ("AdamW", {"lr": 0.1}), ("RMSprop", {"lr": 0.01}), ("Adagrad", {"lr": 0.1})]


@pytest.mark.parametrize("convert", ["bfloat16", "to"])
@pytest.mark.parametrize("name,options", OPTIMIZERS)
def test_module_and_optimizer_step_bit_exact(name, options, convert):
    results = []
    for m in (torch, leafgrad):
        m.manual_seed(0)
        layer = m.nn.Linear(4, 3)
        layer = layer.bfloat16() if convert == "bfloat16" else layer.to(m.bfloat16)
        optimizer = getattr(m.optim, name)(layer.parameters(), **options)
        x = m.linspace(-1, 1, 24).reshape(6, 4).to(m.bfloat16)
        out = layer(x)
        out.pow(2).sum().backward()
        optimizer.step()
        results.append((_name(layer.weight.dtype), _name(layer.weight.grad.dtype),
                        out.grad_fn.name(), _bits(out).tolist(),
                        [_bits(p).tolist() for p in layer.parameters()]))
    assert results[0] == results[1]


def test_training_steps_close():
    """Several steps: each step's products accumulate in float32 in both, but torch's bf16
    matmul sums in a different order, so a parameter may move by a unit in the last place."""
    results = []
    for m in (torch, leafgrad):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(4, 8), m.nn.Tanh(), m.nn.Linear(8, 1)).bfloat16()
        optimizer = m.optim.Adam(model.parameters(), lr=0.05)
        x = m.linspace(-1, 1, 40).reshape(10, 4).bfloat16()
        for _ in range(5):
            optimizer.zero_grad()
            loss = m.nn.functional.mse_loss(model(x), x[:, :1])
            loss.backward()
            optimizer.step()
        results.append([p.detach().double().numpy() for p in model.parameters()])
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1.6e-2, atol=2e-2)


# -- checkpoints and safetensors ---------------------------------------------------------------


def test_checkpoints_both_ways(tmp_path):
    torch.manual_seed(0)
    source = torch.randn(4, 6).bfloat16()
    special = torch.tensor([float("nan"), 1.0, float("inf"), -0.0, 1e-40]).bfloat16()
    for legacy in (False, True):
        path = tmp_path / f"torch{legacy}.pt"
        torch.save({"a": source, "b": source[:, ::2], "n": special, "dtype": torch.bfloat16,
                    "p": torch.nn.Parameter(source.clone())}, path,
                   _use_new_zipfile_serialization=not legacy)
        got = leafgrad.load(path)
        assert got["dtype"] is leafgrad.bfloat16 and type(got["p"]).__name__ == "Parameter"
        for key, want in (("a", source), ("b", source[:, ::2]), ("n", special)):
            assert np.array_equal(_bits(got[key]), _bits(want)), key
        ours = _lg(source)
        path = tmp_path / f"leafgrad{legacy}.pt"
        leafgrad.save({"a": ours, "b": ours[:, 1::2], "dtype": leafgrad.bfloat16,
                       "p": leafgrad.nn.Parameter(ours.clone())}, path,
                      _use_new_zipfile_serialization=not legacy)
        back = torch.load(path)
        assert back["dtype"] is torch.bfloat16 and back["p"].requires_grad
        assert torch.equal(back["a"], source) and torch.equal(back["b"], source[:, 1::2])
        assert back["p"].dtype is torch.bfloat16


def test_safetensors_both_ways(tmp_path):
    pytest.importorskip("safetensors")
    from safetensors.torch import load_file, save_file

    from leafgrad import safetensors as lg_safetensors

    torch.manual_seed(1)
    source = torch.randn(3, 5).bfloat16()
    save_file({"w": source}, tmp_path / "t.safetensors")
    got = lg_safetensors.load_file(tmp_path / "t.safetensors")["w"]
    assert got.dtype is leafgrad.bfloat16 and np.array_equal(_bits(got), _bits(source))
    lg_safetensors.save_file({"w": _lg(source)}, tmp_path / "l.safetensors")
    assert torch.equal(load_file(tmp_path / "l.safetensors")["w"], source)


# -- without ml_dtypes ------------------------------------------------------------------------

_WITHOUT_ML_DTYPES = """
import sys
sys.modules["ml_dtypes"] = None  # hidden: importing it raises ImportError
import leafgrad
b = leafgrad.bfloat16
print(repr(b), b.is_floating_point, b.itemsize, leafgrad.finfo(b).eps,
      leafgrad.promote_types(b, leafgrad.float16), leafgrad.get_autocast_dtype("cpu"))
x = leafgrad.ones(2) + 1  # float32 work is untouched
print(x.dtype, x.tolist())
for call in (lambda: leafgrad.ones(2, dtype=b), lambda: leafgrad.tensor([1.0]).bfloat16(),
             lambda: leafgrad.tensor([1.0], dtype=b), lambda: leafgrad.randn(2, dtype=b),
             lambda: leafgrad.nn.Linear(2, 2).bfloat16()):
    try:
        call()
    except RuntimeError as error:
        print(type(error).__name__, error)
"""


def test_numpy_only_install():
    """The dtype exists without ml_dtypes; making a bfloat16 tensor says how to get it."""
    done = subprocess.run([sys.executable, "-c", _WITHOUT_ML_DTYPES], capture_output=True,
                          text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == ("leafgrad.bfloat16 True 2 0.0078125 leafgrad.float32 "
                        "leafgrad.bfloat16")
    assert lines[1] == "leafgrad.float32 [2.0, 2.0]"
    message = ("RuntimeError bfloat16 tensors need the ml_dtypes package (NumPy has no bfloat16 "
               "type): pip install 'leafgrad[bfloat16]'")
    assert lines[2:] == [message] * 5


def test_float32_programs_do_not_install_the_bfloat16_path():
    """The op wrapping happens on the first bfloat16 tensor, not before (Note: bfloat16)."""
    code = ("import leafgrad\n"
            "from leafgrad.ops import OPS\n"
            "f = OPS['Add'].forward\n"
            "(leafgrad.ones(2) + 1).sum()\n"
            "print(OPS['Add'].forward is f)\n"
            "leafgrad.ones(1, dtype=leafgrad.bfloat16)\n"
            "print(OPS['Add'].forward is f)\n")
    with warnings.catch_warnings():
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True)
    assert done.stdout.split() == ["True", "False"]


def test_transforms_after_bfloat16_was_used():
    """Wrapping the forwards (on the first bfloat16 tensor) keeps what transforms read from
    them: vmap's rule for batched reductions looks up a forward's keepdim parameter."""
    leafgrad.ones(1, dtype=leafgrad.bfloat16)
    results = []
    for m in (torch, leafgrad):
        x = m.arange(12.0).reshape(3, 4)
        results.append([
            m.func.vmap(m.func.hessian(lambda v: (v.tanh() ** 2).sum()))(x / 10).tolist(),
            m.func.grad(lambda v: m.func.vmap(lambda row: (row.sin() * row.sum()).sum())(v)
                        .sum())(x).tolist(),
            m.func.vmap(lambda row: row.bfloat16().mean(0))(x).float().tolist()])
    np.testing.assert_allclose(np.array(results[1][0]), np.array(results[0][0]), rtol=1e-6,
                               atol=1e-7)
    np.testing.assert_allclose(np.array(results[1][1]), np.array(results[0][1]), rtol=1e-6,
                               atol=1e-6)
    assert results[1][2] == results[0][2]
