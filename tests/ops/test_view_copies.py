"""The ``*_copy`` forms of the views and ``split_with_sizes`` (ops/shape_copy.py,
_functions_copies.py) against torch 2.13: values, dtypes and errors for every call form, fresh
memory, node names and requires_grad, gradients, out=. Gradchecks: the op table."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [
    # alias / detach / diagonal
    "lib.alias_copy(y)", "lib.alias_copy(input=y)", "lib.detach_copy(y)",
    "lib.diagonal_copy(y)", "lib.diagonal_copy(y, 1, -1, 0)", "lib.diagonal_copy(y, offset=-1)",
    "lib.diagonal_copy(y, 0, 1, 1)", "lib.diagonal_copy(y, 0, 0, 3)", "lib.diagonal_copy(z)",
    "lib.diagonal_copy(y, 1.0)",
    # expand
    "lib.expand_copy(y[:, :1], (2, 3, 4))", "lib.expand_copy(y, [3, 2, 3, 4])",
    "lib.expand_copy(z, (3,))", "lib.expand_copy(y, (2, 4))", "lib.expand_copy(y, (2, 5, 4))",
    "lib.expand_copy(y, (-1, 3, -1))", "lib.expand_copy(y, size=(2, 3, 4))",
    "lib.expand_copy(y, (2, 3, 4), implicit=True)", "lib.expand_copy(y, 2.0)",
    # permute / t / transpose
    "lib.permute_copy(y, (2, 0, 1))", "lib.permute_copy(y, [-1, 0, 1])",
    "lib.permute_copy(y, (0, 1))", "lib.permute_copy(y, (0, 0, 1))", "lib.permute_copy(z, ())",
    "lib.permute_copy(y, dims=(1, 2, 0))", "lib.permute_copy(y, (0, 1, 3))",
    "lib.t_copy(y[0])", "lib.t_copy(y)", "lib.t_copy(z)", "lib.t_copy(y[0, 0])",
    "lib.transpose_copy(y, 0, -1)", "lib.transpose_copy(y, 0, 3)", "lib.transpose_copy(z, 0, -1)",
    "lib.transpose_copy(y, dim0=1, dim1=2)", "lib.transpose_copy(y, 0, 1.0)",
    # select / slice
    "lib.select_copy(y, 1, -1)", "lib.select_copy(y, 1, 3)", "lib.select_copy(y, -3, 0)",
    "lib.select_copy(z, 0, 0)", "lib.select_copy(y, 3, 0)", "lib.select_copy(y, dim=2, index=1)",
    "lib.slice_copy(y)", "lib.slice_copy(y, 2, 1, None, 2)", "lib.slice_copy(y, -1, -3, -1)",
    "lib.slice_copy(y, 1, 5, 9)", "lib.slice_copy(y, 1, 2, 1)", "lib.slice_copy(y, 1, 0, 2, 0)",
    "lib.slice_copy(y, 1, 0, 2, -1)", "lib.slice_copy(z)", "lib.slice_copy(y, 3)",
    "lib.slice_copy(y, dim=2, start=1, end=3, step=1)", "lib.slice_copy(y, 1, 0.0)",
    # split / split_with_sizes / unbind
    "lib.split_copy(y, 2, -1)", "lib.split_copy(y, 5)", "lib.split_copy(y, 0)",
    "lib.split_copy(y[:, :0], 0, 1)", "lib.split_copy(z, 1)", "lib.split_copy(y, [1, 2], 1)",
    "lib.split_copy(y, split_size=1, dim=1)", "lib.split_copy(y, 2, 3)",
    "lib.split_with_sizes_copy(y, [1, 2], 1)", "lib.split_with_sizes_copy(y, (4,), -1)",
    "lib.split_with_sizes_copy(y, [1, 1], 1)", "lib.split_with_sizes_copy(y, 3, 1)",
    "lib.split_with_sizes_copy(y, [0, 3], 1)", "lib.split_with_sizes_copy(z, [1])",
    "lib.split_with_sizes(y, [1, 2], 1)", "lib.split_with_sizes(y, [2])",
    "lib.split_with_sizes(y, [1, 1], 0)", "y.split_with_sizes([3, 1], -1)",
    "y.split_with_sizes([1, 2], dim=1)", "y.split_with_sizes(split_sizes=[2], dim=0)",
    "lib.unbind_copy(y)", "lib.unbind_copy(y, -1)", "lib.unbind_copy(z)", "lib.unbind_copy(y, 3)",
    "lib.unbind_copy(y[:0])", "lib.unbind_copy(y, dim=1)",
    # squeeze / unsqueeze
    "lib.squeeze_copy(w)", "lib.squeeze_copy(w, 0)", "lib.squeeze_copy(w, 1)",
    "lib.squeeze_copy(w, (0, 2))", "lib.squeeze_copy(w, [0, 1, 2])", "lib.squeeze_copy(w, 3)",
    "lib.squeeze_copy(z)", "lib.squeeze_copy(z, 0)", "lib.squeeze_copy(w, dim=-1)",
    "lib.unsqueeze_copy(y, -1)", "lib.unsqueeze_copy(y, 0)", "lib.unsqueeze_copy(z, 0)",
    "lib.unsqueeze_copy(y, 4)", "lib.unsqueeze_copy(y, dim=2)",
    # unfold
    "lib.unfold_copy(y, 2, 2, 1)", "lib.unfold_copy(y, -1, 3, 2)", "lib.unfold_copy(y, 2, 5, 1)",
    "lib.unfold_copy(y, 2, 2, 0)", "lib.unfold_copy(z, 0, 1, 1)", "lib.unfold_copy(y, 1, -1, 1)",
    # view / view_as_real / view_as_complex / as_strided
    "lib.view_copy(y, (4, -1))", "lib.view_copy(y, [24])", "lib.view_copy(y.transpose(0, 2), (-1,))",
    "lib.view_copy(y, (5, -1))", "lib.view_copy(y, (-1, -1))", "lib.view_copy(z, ())",
    "lib.view_copy(y, lib.int32)", "lib.view_copy(y, lib.float16)", "lib.view_copy(y, size=(6, 4))",
    "lib.view_as_real_copy(lib.complex(y, -y))", "lib.view_as_real_copy(y)",
    "lib.view_as_complex_copy(y[..., :2].contiguous())", "lib.view_as_complex_copy(y)",
    "lib.as_strided_copy(y, (2, 2), (1, 2))", "lib.as_strided_copy(y, (3, 2), (1, 1), 1)",
    "lib.as_strided_copy(y, [2], [3], storage_offset=2)", "lib.as_strided_copy(z, (), ())",
    # sparse-only accessors refuse dense tensors
    "lib.indices_copy(y)", "lib.values_copy(y)",
    # not a tensor
    "lib.permute_copy([1.0], (0,))", "lib.t_copy(None)",
]


def _outcome(lib, code, dtype="float32"):
    y = lib.arange(24.0).reshape(2, 3, 4).to(getattr(lib, dtype))
    z = lib.tensor(5.0).to(getattr(lib, dtype))
    w = lib.arange(6.0).reshape(1, 6, 1).to(getattr(lib, dtype))
    try:
        value = eval(code, {"lib": lib, "y": y, "z": z, "w": w})  # noqa: S307 - the table's calls
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0]
    values = value if isinstance(value, (tuple, list)) else (value,)
    facts = []
    for v in values:
        shares = any(np.shares_memory(v.numpy(), t.numpy()) for t in (y, z, w)) if (
            lib is leafgrad) else any(v.untyped_storage().data_ptr() ==
                                      t.untyped_storage().data_ptr() for t in (y, z, w))
        facts.append((str(v.dtype).split(".")[-1], v.resolve_conj().numpy().tolist(),
                      v.is_contiguous(), shares, v._base is not None))
    return type(value).__name__, facts


@pytest.mark.parametrize("code", CASES)
def test_values_memory_and_errors_match_torch(code):
    assert _outcome(leafgrad, code) == _outcome(torch, code)


DTYPES = ["float64", "float16", "int64", "int32", "uint8", "int8", "bool", "complex64"]
EVERY_DTYPE = ["lib.alias_copy(y)", "lib.permute_copy(y, (2, 0, 1))", "lib.select_copy(y, 1, 1)",
               "lib.slice_copy(y, 2, 1)", "lib.split_copy(y, 2, 2)", "lib.unbind_copy(y, 1)",
               "lib.squeeze_copy(w)", "lib.t_copy(y[0])", "lib.transpose_copy(y, 0, 1)",
               "lib.unfold_copy(y, 2, 2, 2)", "lib.unsqueeze_copy(y, 1)",
               "lib.view_copy(y, (6, 4))", "lib.expand_copy(y[:1], (2, 3, 4))",
               "lib.diagonal_copy(y)", "lib.as_strided_copy(y, (2,), (3,))",
               "lib.split_with_sizes_copy(y, [3, 1], 2)", "lib.detach_copy(y)",
               "lib.view_as_real_copy(y)"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("code", EVERY_DTYPE)
def test_every_dtype_as_torch(code, dtype):
    assert _outcome(leafgrad, code, dtype) == _outcome(torch, code, dtype)


GRAD_CASES = [
    "lib.alias_copy(x)", "lib.detach_copy(x)", "lib.diagonal_copy(x, -1)",
    "lib.expand_copy(x[:1], (2, 3, 4))", "lib.permute_copy(x, (1, 2, 0))",
    "lib.select_copy(x, 2, 0)", "lib.slice_copy(x, 1, 1)", "lib.split_copy(x, 2, 2)",
    "lib.split_copy(x, 2, 2)[1:]", "lib.split_with_sizes_copy(x, [2, 1], 1)",
    "lib.split_with_sizes_copy(x, [2, 1], 1)[:1]", "lib.split_with_sizes(x, [2, 1], 1)",
    "lib.squeeze_copy(x[:1])", "lib.squeeze_copy(x[:1], 0)", "lib.squeeze_copy(x[:1], (0, 1))",
    "lib.t_copy(x[0])", "lib.transpose_copy(x, 1, 2)", "lib.unbind_copy(x, 1)",
    "lib.unbind_copy(x)[0]", "lib.unfold_copy(x, 2, 3, 1)", "lib.unsqueeze_copy(x, 1)",
    "lib.view_copy(x, (6, 4))", "lib.view_copy(x.transpose(0, 1), (-1,))",
    "lib.view_copy(x, lib.float32)", "lib.view_copy(x, lib.int32)",
    "lib.view_as_real_copy(lib.complex(x, x * 2))", "lib.view_as_complex_copy(x[..., :2])",
    "lib.as_strided_copy(x, (3, 2), (1, 1), 1)", "lib.t_copy(x[0, 0])",
    "lib.permute_copy(x[0, 0], ())",
]


def _grads(lib, code, grad_mode=True):
    x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
    with lib.set_grad_enabled(grad_mode):
        try:
            value = eval(code, {"lib": lib, "x": x})  # noqa: S307
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0]
    values = value if isinstance(value, (tuple, list)) else (value,)
    facts = [(v.requires_grad, v.is_leaf, v.grad_fn and v.grad_fn.name(),
              v.grad_fn and [n and n.name() for n, _ in v.grad_fn.next_functions])
             for v in values]
    wanted = [v for v in values if v.requires_grad]
    if wanted:
        total = sum(((v.real if v.is_complex() else v) * lib.arange(1.0, v.numel() + 1)
                     .reshape(v.shape)).sum() for v in wanted)
        try:
            total.backward()
            facts.append(x.grad.numpy().tolist())
        except Exception as error:  # noqa: BLE001
            facts.append((type(error).__name__, str(error).splitlines()[0]))
    return facts


@pytest.mark.parametrize("code", GRAD_CASES)
def test_nodes_and_gradients_match_torch(code):
    assert _grads(leafgrad, code) == _grads(torch, code)


@pytest.mark.parametrize("code", GRAD_CASES[::4])
def test_nothing_recorded_without_grad_mode(code):
    assert _grads(leafgrad, code, False) == _grads(torch, code, False)


def test_copies_do_not_share_version_counters():
    def run(lib):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        y = x * 1
        c = lib.permute_copy(y, (1, 0))
        before = (y._version, c._version)
        c.mul_(2)
        after = (y._version, c._version)
        y.add_(1)  # the copy saved nothing of y: backward still works
        c.sum().backward()
        return before, after, y.tolist(), c.tolist(), x.grad.tolist()

    assert run(leafgrad) == run(torch)


OUT_CASES = [
    ("lib.permute_copy(y, (1, 0), out=o)", "float32", (3, 2)),
    ("lib.permute_copy(y, (1, 0), out=o)", "float32", (2,)),
    ("lib.permute_copy(y, (1, 0), out=o)", "float32", (0,)),
    ("lib.permute_copy(y, (1, 0), out=o)", "float64", (3, 2)),
    ("lib.t_copy(y, out=o)", "int64", (3, 2)),
    ("lib.view_copy(y, (6,), out=o)", "float32", (6,)),
    ("lib.select_copy(y, 0, 1, out=o)", "float32", (7,)),
    ("lib.expand_copy(y[:1], (2, 3), out=o)", "float32", (2, 3)),
    ("lib.alias_copy(y, out=o)", "float32", (2, 3)),
    ("lib.diagonal_copy(y, out=o)", "float32", (2,)),
    ("lib.permute_copy(y, (0, 0), out=o)", "float32", (2,)),
    ("lib.permute_copy(y.requires_grad_(), (1, 0), out=o)", "float32", (3, 2)),
]


def _out(lib, code, dtype, shape):
    y = lib.arange(6.0).reshape(2, 3)
    o = lib.zeros(shape, dtype=getattr(lib, dtype))
    version = o._version
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = eval(code, {"lib": lib, "y": y, "o": o})  # noqa: S307
            outcome = (result is o, result.requires_grad, result.grad_fn and result.grad_fn.name())
            if result.requires_grad:
                try:
                    result.sum().backward()
                except RuntimeError as error:  # torch: no derivative for the out= forms
                    outcome += (str(error),)
        except Exception as error:  # noqa: BLE001
            outcome = type(error).__name__, str(error).splitlines()[0]
    return (outcome, o.tolist(), list(o.shape), o._version > version,
            [str(w.message)[:60] for w in caught])


@pytest.mark.parametrize("code,dtype,shape", OUT_CASES)
def test_out_as_torch(code, dtype, shape):
    assert _out(leafgrad, code, dtype, shape) == _out(torch, code, dtype, shape)


@pytest.mark.parametrize("code", ["lib.permute_copy(y, (0, 1.0))", "lib.permute_copy(y, (0.0, 1))",
                                  "lib.expand_copy(y, [2, 'a'])", "lib.view_copy(y, (6, 4.0))",
                                  "lib.split_with_sizes_copy(y, [1, 2.0], 1)"])
def test_int_list_errors_as_torch(code):
    assert _outcome(leafgrad, code) == _outcome(torch, code)


# the multi-output copies' out=: a list of tensors (torch returns None); "call|outs"
PIECES_OUT = [
    'torch.split_copy(x,2,out=o)|[torch.zeros(2,2),torch.zeros(1,2)]',
    'torch.split_copy(x,2,out=o)|[torch.zeros(2,2,dtype=torch.int64),torch.zeros(1,2)]',
    'torch.split_copy(x,2,out=o)|[torch.zeros(2),torch.zeros(1,2)]',
    'torch.split_copy(x,2,out=o)|[torch.zeros(0),torch.zeros(1,2)]',
    'torch.split_copy(x,2,out=o)|[torch.zeros(2,2)]',
    'torch.split_copy(x,2,out=o)|[torch.zeros(2,2,requires_grad=True),torch.zeros(1,2)]',
    'torch.split_copy(x.requires_grad_(),2,out=o)|[torch.zeros(2,2),torch.zeros(1,2)]',
    'torch.split_copy(x,2,1,out=o)|[torch.zeros(3,2)]',
    'torch.split_with_sizes_copy(x,[1,2],out=o)|[torch.zeros(1,2),torch.zeros(2,2)]',
    'torch.split_with_sizes_copy(x,[1,2],out=o)|[torch.zeros(5),torch.zeros(2,2)]',
    'torch.split_with_sizes_copy(x,[1,2],out=o)|[torch.zeros(0),torch.zeros(2,2)]',
    'torch.split_with_sizes_copy(x,[1,2],out=o)|[torch.zeros(1,2,dtype=torch.int64),torch.zeros(2,2)]',
    'torch.split_with_sizes_copy(x,[1,2],out=o)|[torch.zeros(1,2,requires_grad=True),torch.zeros(2,2)]',
    'torch.split_with_sizes_copy(x.detach().requires_grad_(),[1,2],out=o)|[torch.zeros(1,2),torch.zeros(2,2)]',
    'torch.split_with_sizes_copy(x,[1,2],out=o)|[torch.zeros(1,2)]',
    'torch.unbind_copy(x,out=o)|[torch.zeros(2),torch.zeros(2),torch.zeros(2)]',
    'torch.unbind_copy(x,out=o)|[torch.zeros(5),torch.zeros(2),torch.zeros(2)]',
    'torch.unbind_copy(x,out=o)|[torch.zeros(0),torch.zeros(2),torch.zeros(2)]',
    'torch.unbind_copy(x,out=o)|[torch.zeros(2,dtype=torch.int64),torch.zeros(2),torch.zeros(2)]',
    'torch.unbind_copy(x,out=o)|[torch.zeros(2,requires_grad=True),torch.zeros(2),torch.zeros(2)]',
    'torch.unbind_copy(x.detach().requires_grad_(),out=o)|[torch.zeros(2),torch.zeros(2),torch.zeros(2)]',
    'torch.unbind_copy(x,1,out=o)|[torch.zeros(3),torch.zeros(3)]',
    'torch.unbind_copy(x,out=o)|[torch.zeros(2),torch.zeros(2)]',
]


def _pieces_out(lib, case):
    call, outs = case.split("|")
    x = lib.arange(6.0).reshape(3, 2)
    outs = eval(outs, {"torch": lib})  # noqa: S307 - the table's out tensors
    versions = [o._version for o in outs]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = eval(call, {"torch": lib, "x": x, "o": outs})  # noqa: S307
        except Exception as error:  # noqa: BLE001
            outcome = type(error).__name__, str(error).splitlines()[0]
    return (outcome, [(o.tolist(), str(o.dtype).split(".")[-1], o._version - v, o.requires_grad,
                       o.grad_fn) for o, v in zip(outs, versions)],
            [str(w.message).split(" (Triggered")[0] for w in caught])


@pytest.mark.parametrize("case", PIECES_OUT)
def test_multi_output_out_as_torch(case):
    assert _pieces_out(leafgrad, case) == _pieces_out(torch, case)
