"""torch names that tutorials use, compared with torch: top-level aliases of nn.functional,
autograd.Variable, the CPU-only answers of cuda/accelerator/backends, devices, NumPy-style
keywords, user attributes on tensors, unique/cross/bitwise/in-place functions, in-place shape
methods, messages of common misuse, and the profiler."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _plain(value):
    if hasattr(value, "detach") and hasattr(value, "dtype"):
        fn = value.grad_fn.name() if value.grad_fn is not None else None
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape),
                np.round(value.detach().numpy().astype(float), 4).tolist(), fn)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if type(value).__name__ == "Size":
        return tuple(value)
    if type(value).__name__ == "device":
        return str(value)
    return value


def _evaluate(lib, code):
    x = lib.tensor([[1.0, -2.0, 3.0], [0.5, 0.0, -1.0]], requires_grad=True)
    i = lib.tensor([3, 1, 1, 2, 2, 2, 5])
    v = lib.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    w = lib.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    namespace = {"lib": lib, "x": x, "i": i, "v": v, "w": w, "F": lib.nn.functional}
    try:
        return _plain(eval(code, namespace))  # noqa: S307 - the cases below
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0].replace("leafgrad", "torch")


CASES = [
    "lib.softmax(x, 1)", "lib.log_softmax(x, dim=0)", "lib.relu_(w.clone())", "lib.selu(x)",
    "lib.celu(x, 0.5)", "lib.dropout(x, 0.5, False)",
    "lib.layer_norm(x, (3,))", "lib.group_norm(x.reshape(1, 2, 3), 2)",
    "lib.embedding(w, lib.tensor([1, 0]))",
    "lib.conv1d(x.reshape(1, 2, 3), lib.ones(1, 2, 2))", "lib.max_pool1d(x.reshape(1, 2, 3), 2)",
    "lib.cosine_similarity(x, w)",
    "lib.autograd.Variable(v, requires_grad=True)", "lib.autograd.Variable(v) is v",
    "isinstance(v, lib.autograd.Variable)",
    "lib.cuda.is_available()", "lib.cuda.device_count()", "lib.cuda.current_device()",
    "lib.cuda.manual_seed(0)", "lib.cuda.manual_seed_all(1)",
    "lib.accelerator.is_available()", "lib.accelerator.current_accelerator()",
    "lib.backends.mps.is_available()", "lib.backends.mps.is_built()",
    "lib.backends.cudnn.enabled", "lib.backends.cudnn.deterministic",
    "lib.backends.cudnn.is_available()", "lib.get_default_device()",
    "lib.set_default_device('cpu')", "lib.device('cuda')", "lib.device('cuda', 1)",
    "lib.device('cuda:0').type", "lib.device('mps').index", "lib.device('bogus')",
    "lib.ones(2, device='cuda')", "lib.ones(2).to('cuda')", "lib.ones(2).cuda()",
    "lib.ones(2).to(lib.device('cpu'))", "lib.zeros(2, device=lib.device('cpu'))",
    "x.sum(axis=0)", "x.sum(1, keepdims=True)", "lib.mean(x, axis=1)",
    "x.max(axis=1, keepdims=True)[0]", "lib.softmax(x, axis=1)", "x.std(axis=0)",
    "x.sum(axis=0, dim=1)",
    "lib.randn(size=(2, 3)).shape", "lib.zeros(size=[2]).shape", "lib.ones(size=(1, 2)).shape",
    "lib.rand(size=(3,)).shape", "lib.empty(size=(0,)).shape",
    "lib.unique(i)", "lib.unique(i, return_counts=True)",
    "lib.unique(i, return_inverse=True, return_counts=True)",
    "lib.unique(lib.tensor([[1, 2], [1, 2], [0, 1]]), dim=0)",
    "i.unique(return_inverse=True)", "lib.unique_consecutive(i)",
    "lib.unique_consecutive(i, return_inverse=True, return_counts=True)",
    "lib.cross(x, w, dim=1)", "lib.linalg.cross(x, w)", "x.cross(w, dim=1)",
    "lib.linalg.cross(x, lib.ones(2, 2))",
    "lib.bitwise_xor(i, 3)", "lib.bitwise_and(i, lib.tensor(6))", "lib.bitwise_or(i, i)",
    "lib.bitwise_not(lib.tensor([True, False]))", "i.bitwise_xor(1)", "i.clone().bitwise_and_(2)",
    "lib.sin_(w.clone())", "lib.exp_(w.clone())", "lib.clamp_(w.clone(), 1, 3)",
    "lib.zero_(w.clone())", "lib.sigmoid_(w.clone())",
    "w.clone().unsqueeze_(0)", "w.clone().unsqueeze_(-1).shape",
    "lib.ones(2, 1).squeeze_(1)", "w.clone().t_()", "w.clone().reshape(1, 2, 3).transpose_(0, 2)",
    "x.unsqueeze_(0)", "(x * 2).unsqueeze_(0).shape",
    "float(x)", "int(w)", "float(lib.tensor([2.5]))", "lib.tensor(1.0)[0]",
    "lib.tensor(1.0)[:]", "lib.tensor(1.0)[None]", "lib.tensor(1.0)[...]",
    "lib.autograd.backward([x.sum(), x.sum()], [lib.tensor(1.0)])",
    "lib.autograd.grad([x.sum(), x.sum()], [x], [lib.tensor(1.0)])",
    "(x * 2).requires_grad_(False)", "x.T", "x.mT", "x[0, 0:]", "x[:]", "x[:, :]",
    "x.type_as(i)", "x.itemsize", "i.nbytes", "x.is_cpu", "x.ravel()", "w.storage_offset()",
    "w[1].storage_offset()", "i.is_signed()", "lib.is_nonzero(lib.tensor([1]))",
    "lib.is_same_size(x, w)", "x.get_device()",
    "F.cross_entropy(x, lib.softmax(w, 1), label_smoothing=0.1, reduction='sum')",
    "F.cross_entropy(x, lib.softmax(w, 1), reduction='mean')",
]


@pytest.mark.parametrize("code", CASES)
def test_matches_torch(code):
    try:
        assert _evaluate(leafgrad, code) == _evaluate(torch, code)
    finally:
        if "set_default_device" in code:
            # torch keeps a global TorchFunctionMode once a default device is set; it changes
            # later calls (chain_matmul then drops its out=), so the process gets it undone
            torch.set_default_device(None)


def test_tensors_accept_attributes_like_torch():
    def run(lib):
        t = lib.ones(2)
        t.note = "weights"
        t.step = 3
        return t.note, t.step, hasattr(lib.ones(1), "note"), (t * 2).__dict__ if hasattr(
            t * 2, "__dict__") else {}

    assert run(leafgrad) == run(torch)


def test_profiler_records_each_op_with_counts():
    with leafgrad.autograd.profiler.profile() as prof:
        x = leafgrad.ones(3, requires_grad=True)
        for _ in range(4):
            y = (x * 2 + 1).sum()
        with leafgrad.autograd.profiler.record_function("my_block"):
            y.backward()
    counts = {e.key: e.count for e in prof.key_averages()}
    assert counts["aten::mul"] >= 4 and counts["aten::add"] == 4 and counts["aten::sum"] == 4
    assert counts["my_block"] == 1
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3)
    assert table.splitlines()[1].split()[:3] == ["Name", "Self", "CPU"]
    assert "Self CPU time total:" in table
    # outside a profile, nothing is timed: the op entry is the original again
    assert leafgrad.ops.Op.__dict__["apply"] is leafgrad.ops.registry.Op.__dict__["apply"]
    with leafgrad.profiler.profile(activities=[leafgrad.profiler.ProfilerActivity.CPU]) as p2:
        leafgrad.ones(2).exp()
    assert any(e.key == "aten::exp" for e in p2.key_averages())


def test_x_T_warns_like_torch_for_other_ranks():
    import warnings

    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = lib.ones(3, requires_grad=True).T
        return y.grad_fn.name(), [str(w.message)[:60] for w in caught]

    leafgrad.tensor_module = None
    ours, theirs = run(leafgrad), run(torch)
    assert ours[0] == theirs[0]
