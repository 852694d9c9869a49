"""The meta device against torch (Note: meta tensors, _meta.py): factories, views and their
strides, shape inference of ops, errors of the conversions that need data, in-place ops,
autograd, and nn modules built on meta then materialised."""

from __future__ import annotations

import warnings

import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128"]
SHAPES = [(), (0,), (3,), (2, 3), (2, 0, 4)]


def describe(value):
    """What a program shows about ``value``: reprs, and for tensors also stride, device and
    flags (leafgrad's names spelled as torch's)."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        return (repr(value).replace("leafgrad", "torch"), tuple(value.shape), value.stride(),
                str(value.device), value.is_meta, str(value.dtype).replace("leafgrad", "torch"),
                value.requires_grad)
    if isinstance(value, (tuple, list)):
        return [describe(item) for item in value]
    return repr(value).replace("leafgrad", "torch")


def outcome(lib, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return describe(fn(lib))
    except Exception as exc:  # noqa: BLE001 - the type and first line are compared
        return type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ""


def same(fn):
    expected = outcome(torch, fn)
    assert outcome(leafgrad, fn) == expected
    return expected


# -- factories ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("factory", ["empty", "zeros", "ones"])
def test_factories(factory, shape, dtype):
    same(lambda lib: getattr(lib, factory)(shape, dtype=getattr(lib, dtype), device="meta"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_factory_forms(dtype):
    for fn in [
        lambda lib: lib.full((2, 3), 1, dtype=getattr(lib, dtype), device="meta"),
        lambda lib: lib.tensor([1, 0], dtype=getattr(lib, dtype), device="meta"),
        lambda lib: lib.empty(2, 3, dtype=getattr(lib, dtype), device=lib.device("meta")),
        lambda lib: lib.zeros_like(lib.empty(2, 3, dtype=getattr(lib, dtype), device="meta")),
        lambda lib: lib.empty_like(lib.empty(3, 2, dtype=getattr(lib, dtype),
                                             device="meta").t()),
        lambda lib: lib.empty(2, 3, dtype=getattr(lib, dtype), device="meta").new_zeros(4),
        lambda lib: lib.empty(2, 3, dtype=getattr(lib, dtype), device="meta").new_empty(1, 2),
        lambda lib: lib.empty(2, 3, dtype=getattr(lib, dtype), device="meta").new_ones(1),
        lambda lib: lib.empty(2, dtype=getattr(lib, dtype), device="meta").new_zeros(
            2, device="cpu"),
        lambda lib: lib.zeros_like(lib.empty(2, dtype=getattr(lib, dtype), device="meta"),
                                   device="cpu"),
        lambda lib: lib.ones(2, 3, dtype=getattr(lib, dtype)).to("meta"),
        lambda lib: lib.ones(2, 3, dtype=getattr(lib, dtype)).to(device="meta"),
        lambda lib: lib.ones(3, 2, dtype=getattr(lib, dtype)).t().to("meta"),
    ]:
        same(fn)


def test_float_only_factories():
    for fn in [
        lambda lib: lib.randn(2, 3, device="meta"),
        lambda lib: lib.rand(4, device="meta", dtype=lib.float64),
        lambda lib: lib.arange(5, device="meta"),
        lambda lib: lib.arange(0.0, 1.0, 0.25, device="meta"),
        lambda lib: lib.empty(2, 3, device="meta", requires_grad=True),
        lambda lib: lib.zeros(2, device="meta", dtype=lib.float64, requires_grad=True),
        lambda lib: lib.empty(1, 2, 3, 4, device="meta", memory_format=lib.channels_last),
        lambda lib: lib.empty_strided((2, 3), (1, 2), device="meta"),
        lambda lib: lib.ones(2, 3, requires_grad=True).to("meta"),
        lambda lib: lib.ones(2, 3).to("meta", lib.float64),
        lambda lib: lib.ones(2, 3).to(lib.empty(1, device="meta")),
        lambda lib: lib.empty(2, device="meta").to("meta"),
        lambda lib: lib.empty(2, device="meta").to(lib.float16),
        lambda lib: lib.device("meta"),
        lambda lib: lib.empty(2, device="meta").device,
        lambda lib: lib.empty(2, device="meta").data_ptr(),
        lambda lib: lib.ones(2).is_meta,
        lambda lib: lib.empty(2, 3, device="meta").is_contiguous(),
        lambda lib: lib.empty(2, 3, device="meta").t().is_contiguous(),
        lambda lib: lib.empty(2, 3, device="meta").numel(),
        lambda lib: lib.empty(2, 3, device="meta").element_size(),
    ]:
        same(fn)


def test_default_device_block():
    def fn(lib):
        with lib.device("meta"):
            inside = [lib.empty(2), lib.zeros(2, 3, dtype=lib.int64), lib.ones(()),
                      lib.full((2,), 3.0), lib.tensor([1.0, 2.0])]
        return inside + [lib.zeros(2)]

    same(fn)


# -- views keep torch's strides -------------------------------------------------------------
VIEWS = {
    "t": lambda x: x.t(),
    "permute": lambda x: x.unsqueeze(0).permute(2, 0, 1),
    "expand": lambda x: x.expand(4, 3, 5),
    "slice": lambda x: x[:, 1::2],
    "select": lambda x: x[1],
    "view": lambda x: x.view(5, 3),
    "reshape_view": lambda x: x.reshape(15),
    "reshape_copy": lambda x: x.t().reshape(15),
    "contiguous": lambda x: x.t().contiguous(),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "narrow": lambda x: x.narrow(1, 1, 3),
    "diagonal": lambda x: x.diagonal(),
    "chunk": lambda x: x.chunk(2, 1),
    "split": lambda x: x.split([1, 2]),
    "unbind": lambda x: x.unbind(0),
    "flatten": lambda x: x.flatten(),
    "transpose": lambda x: x.transpose(0, 1),
    "squeeze": lambda x: x[:1].squeeze(0),
    "as_strided": lambda x: x.as_strided((2, 2), (1, 2), 1),
    "view_dtype": lambda x: x.view(x.dtype),
    "detach": lambda x: x.detach(),
    "clone": lambda x: x.t().clone(),
}


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views(name, requires_grad):
    same(lambda lib: VIEWS[name](lib.empty(3, 5, device="meta", requires_grad=requires_grad)))


# -- shape inference --------------------------------------------------------------------------
OPS = {
    "add": lambda lib, x: x + 1,
    "add_int": lambda lib, x: lib.empty(3, 5, dtype=lib.int32, device="meta") + 1.5,
    "mul_broadcast": lambda lib, x: x * lib.empty(5, device="meta"),
    "cpu_scalar_tensor": lambda lib, x: x * lib.tensor(2.0),
    "transposed_layout": lambda lib, x: x.t().exp(),
    "compare": lambda lib, x: x > 0,
    "where": lambda lib, x: lib.where(x > 0, x, 0.0),
    "sum": lambda lib, x: x.sum(),
    "sum_dim": lambda lib, x: x.sum(1, keepdim=True),
    "mean": lambda lib, x: x.mean(0),
    "max_dim": lambda lib, x: x.max(1),
    "argmax": lambda lib, x: x.argmax(),
    "softmax": lambda lib, x: lib.softmax(x, -1),
    "matmul": lambda lib, x: x @ lib.empty(5, 2, device="meta"),
    "bmm": lambda lib, x: lib.empty(4, 3, 5, device="meta") @ lib.empty(5, 2, device="meta"),
    "linear": lambda lib, x: lib.nn.functional.linear(x, lib.empty(7, 5, device="meta"),
                                                      lib.empty(7, device="meta")),
    "conv2d": lambda lib, x: lib.nn.functional.conv2d(
        lib.empty(2, 3, 8, 8, device="meta"), lib.empty(4, 3, 3, 3, device="meta"), padding=1,
        stride=2),
    "conv1d": lambda lib, x: lib.nn.functional.conv1d(
        lib.empty(2, 3, 8, device="meta"), lib.empty(4, 3, 3, device="meta")),
    "cat": lambda lib, x: lib.cat([x, x], 0),
    "stack": lambda lib, x: lib.stack([x, x]),
    "sort": lambda lib, x: x.sort(1),
    "topk": lambda lib, x: x.topk(2),
    "cumsum": lambda lib, x: x.cumsum(0),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, (5,)),
    "relu": lambda lib, x: lib.relu(x),
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "index": lambda lib, x: x[lib.tensor([0, 2])],
    "gather": lambda lib, x: x.gather(1, lib.zeros(3, 2, dtype=lib.int64, device="meta")),
    "to_float64": lambda lib, x: x.double(),
    "pad": lambda lib, x: lib.nn.functional.pad(x, (1, 2)),
    "cross_entropy": lambda lib, x: lib.nn.functional.cross_entropy(
        x, lib.zeros(3, dtype=lib.int64, device="meta")),
}


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", sorted(OPS))
def test_shape_inference(name, requires_grad):
    same(lambda lib: OPS[name](lib, lib.empty(3, 5, device="meta",
                                              requires_grad=requires_grad)))


# -- what needs data raises torch's errors ------------------------------------------------------
ERRORS = {
    "item": lambda x: x[0].item(),
    "item_many": lambda x: x.item(),
    "numpy": lambda x: x.numpy(),
    "tolist": lambda x: x.tolist(),
    "float": lambda x: float(x[0]),
    "int": lambda x: int(x[0]),
    "bool": lambda x: bool(x[0]),
    "bool_many": lambda x: bool(x),
    "cpu": lambda x: x.cpu(),
    "to_cpu": lambda x: x.to("cpu"),
    "nonzero": lambda x: x.nonzero(),
    "mask_index": lambda x: x[x > 0],
    "masked_select": lambda x: x.masked_select(x > 0),
    "unique": lambda x: x.unique(),
    "unique_consecutive": lambda x: x.unique_consecutive(),
    "meta_plus_cpu": lambda x: x + leafgrad_or_torch(x).ones(3),
    "cpu_plus_meta": lambda x: leafgrad_or_torch(x).ones(3) + x,
    "cpu_copy_from_meta": lambda x: leafgrad_or_torch(x).ones(3).copy_(x),
}


def leafgrad_or_torch(x):
    return torch if isinstance(x, torch.Tensor) else leafgrad


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    result = same(lambda lib: ERRORS[name](lib.empty(3, device="meta")))
    assert isinstance(result, tuple) and result[0].endswith("Error")


# -- in-place ops check and write nothing -------------------------------------------------------
INPLACE = {
    "fill_": lambda lib, x: x.fill_(2),
    "zero_": lambda lib, x: x.zero_(),
    "add_": lambda lib, x: x.add_(1),
    "add_meta": lambda lib, x: x.add_(lib.empty(3, device="meta"), alpha=2),
    "add_cpu": lambda lib, x: x.add_(lib.ones(3)),
    "copy_cpu": lambda lib, x: x.copy_(lib.ones(3)),
    "mul_bad_dtype": lambda lib, x: lib.empty(3, dtype=lib.int64, device="meta").mul_(1.5),
    "uniform_": lambda lib, x: x.uniform_(),
    "normal_": lambda lib, x: x.normal_(),
    "exp_": lambda lib, x: x.exp_(),
    "setitem": lambda lib, x: x.__setitem__(0, 1.0),
    "kaiming": lambda lib, x: lib.nn.init.kaiming_uniform_(lib.empty(4, 3, device="meta")),
    "leaf": lambda lib, x: lib.empty(3, device="meta", requires_grad=True).add_(1),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace(name):
    def fn(lib):
        x = lib.empty(3, device="meta")
        result = INPLACE[name](lib, x)
        return result, x, x._version

    same(fn)


def test_random_fills_draw_nothing():
    def fn(lib):
        lib.manual_seed(0)
        lib.empty(50, device="meta").normal_()
        lib.nn.Linear(30, 20, device="meta")
        return lib.randn(3).tolist()

    assert fn(leafgrad) == fn(torch)


# -- autograd ---------------------------------------------------------------------------------
def test_backward_gives_meta_grads():
    def fn(lib):
        x = lib.empty(2, 3, device="meta", requires_grad=True)
        weight = lib.empty(4, 3, device="meta", requires_grad=True)
        loss = (x @ weight.t()).relu().sum()
        loss.backward()
        first = (x.grad, weight.grad)
        (x * 2).sum().backward()
        return loss, first, x.grad

    same(fn)


# -- nn modules -------------------------------------------------------------------------------
def _model(lib):
    return lib.nn.Sequential(
        lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.LayerNorm(4), lib.nn.Linear(4, 2, bias=False))


def test_module_construction():
    def fn(lib):
        with lib.device("meta"):
            model = _model(lib)
            conv = lib.nn.Conv2d(3, 4, 3)
            embedding = lib.nn.Embedding(10, 3)
            norm = lib.nn.BatchNorm1d(3)
        direct = lib.nn.Linear(3, 4, device="meta", dtype=lib.float64)
        return (list(model.state_dict().items()), conv.weight, embedding.weight,
                list(norm.state_dict().items()), direct.weight,
                model(lib.empty(5, 3, device="meta")))

    same(fn)


def test_to_empty_and_assign():
    def fn(lib):
        with lib.device("meta"):
            model = _model(lib)
        model.to_empty(device="cpu")
        shapes = [(name, tuple(p.shape), str(p.device), type(p).__name__, p.requires_grad)
                  for name, p in model.named_parameters()]
        lib.manual_seed(0)
        source = _model(lib)
        with lib.device("meta"):
            target = _model(lib)
        keys = target.load_state_dict(source.state_dict(), assign=True)
        params = [(name, p.tolist(), str(p.device), type(p).__name__, p.requires_grad)
                  for name, p in target.named_parameters()]
        return shapes, repr(keys), params, target(lib.ones(2, 3)).tolist()

    assert outcome(leafgrad, fn) == outcome(torch, fn)


def test_module_to_meta_and_back():
    def fn(lib):
        model = _model(lib)
        model.to("meta")
        state = list(model.state_dict().items())
        try:
            model.to("cpu")
            error = None
        except NotImplementedError as exc:
            error = str(exc)
        return state, error

    same(fn)


def test_load_into_meta_without_assign_warns():
    def fn(lib):
        with lib.device("meta"):
            target = lib.nn.Linear(3, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            target.load_state_dict(lib.nn.Linear(3, 2).state_dict())
        return [str(w.message) for w in caught], target.weight

    same(fn)
