"""Differences from torch 2.13 found by review (the 'left2' list): each test compares leafgrad
with torch over the class of inputs around the finding."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _outcome(function):
    try:
        result = function()
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, (str(error).splitlines() or [""])[0]
    return "ok", repr(result)


# -- batch norm's running statistics keep their version counters -------------------------------
# torch's batch-norm kernel writes running_mean/running_var without bumping their versions
# (num_batches_tracked is bumped by its add_); instance_norm's average back into the module's
# buffers is a copy_ (one bump).

def _bn_versions(T, module_name, shape, momentum, affine, track, steps, eval_after):
    kwargs = dict(momentum=momentum, affine=affine, track_running_stats=track)
    module = getattr(T.nn, module_name)(3, **kwargs)
    buffers = lambda: tuple(None if b is None else b._version for b in (  # noqa: E731
        module.running_mean, module.running_var, getattr(module, "num_batches_tracked", None)))
    seen = [buffers()]
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    for _ in range(steps):
        module(T.tensor(data, requires_grad=affine))
        seen.append(buffers())
    if eval_after:
        module.eval()
        module(T.tensor(data))
        seen.append(buffers())
    return seen


@pytest.mark.parametrize("module_name,shape", [
    ("BatchNorm1d", (4, 3)), ("BatchNorm1d", (4, 3, 5)), ("BatchNorm2d", (2, 3, 2, 2)),
    ("BatchNorm3d", (2, 3, 2, 1, 2)), ("InstanceNorm1d", (2, 3, 5)),
    ("InstanceNorm2d", (2, 3, 2, 3)), ("InstanceNorm3d", (1, 3, 2, 2, 2))])
@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize("affine,track", [(True, True), (False, True), (True, False)])
def test_norm_module_running_stat_versions(module_name, shape, momentum, affine, track):
    for steps, eval_after in ((1, False), (2, True)):
        expected = _bn_versions(torch, module_name, shape, momentum, affine, track, steps,
                                eval_after)
        assert _bn_versions(lg, module_name, shape, momentum, affine, track, steps,
                            eval_after) == expected


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("through_view", [False, True])
def test_functional_batch_norm_running_versions(training, through_view):
    def run(T):
        mean, var = T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)
        target = mean[:] if through_view else mean
        x = T.tensor(np.arange(24.0).reshape(4, 3, 2) % 5, requires_grad=True)
        out = T.nn.functional.batch_norm(x, target, var, training=training, momentum=0.3)
        T.nn.functional.instance_norm(x.detach(), mean, var)
        return mean._version, target._version, var._version, mean.tolist(), var.tolist(), \
            out.detach().tolist()

    expected = run(torch)
    got = run(lg)
    assert got[:3] == expected[:3]
    np.testing.assert_allclose(np.array(got[3:5]), np.array(expected[3:5]), rtol=1e-12)
    np.testing.assert_allclose(np.array(got[5]), np.array(expected[5]), rtol=1e-10, atol=1e-12)


# -- p-norms: torch's accumulation order and precision, bit for bit -----------------------------
# ord other than 0, 1, 2, inf: |x|^p in the input's float type, summed in index order, then
# sum^(1/p) with 1/p in that type (ATen's NormOps); ord 2 over the last dims: ATen's vectorised
# lanes, then its tail (four-element blocks, then fused multiply-adds).

_NORM_CALLS = {
    "linalg.vector_norm": lambda T, x, p, dim, keepdim: T.linalg.vector_norm(x, p, dim, keepdim),
    "linalg.norm": lambda T, x, p, dim, keepdim: T.linalg.norm(
        x, p, dim if dim is not None else (None if x.ndim != 1 else 0), keepdim),
    "norm": lambda T, x, p, dim, keepdim: T.norm(x, p=p, dim=dim, keepdim=keepdim),
    "Tensor.norm": lambda T, x, p, dim, keepdim: x.norm(p, dim, keepdim),
}
_NORM_SHAPES = [((3,), None), ((3,), 0), ((), None), ((10, 7), 1), ((10, 7), 0), ((10, 7), -1),
                ((4, 5, 6), (0, 2)), ((4, 5, 6), (1, 2)), ((3, 45), -1), ((150,), None),
                ((0, 3), 1), ((2, 0), 1), ((5, 9), None)]


def _bits(T, dtype, shape, dim, p, keepdim, call, transposed, seed):
    data = np.random.default_rng(seed).standard_normal(shape) * 3
    x = T.tensor(data, dtype=getattr(T, dtype))
    if transposed and x.ndim == 2:
        x = x.t().contiguous().t()  # same values, column-major
    try:
        return _NORM_CALLS[call](T, x, p, dim, keepdim).numpy().tolist()
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]


@pytest.mark.parametrize("p", [3, 0.5, 1.5, 4, -1, 2.5, 0.3, -2.7, 7, 2, 1, float("inf"), 0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call", sorted(_NORM_CALLS))
def test_vector_norm_bits(p, dtype, call):
    for (shape, dim), keepdim, transposed in itertools.product(_NORM_SHAPES, (False, True),
                                                                 (False, True)):
        if call == "linalg.norm" and (dim is None and len(shape) > 1
                                      or isinstance(dim, tuple) and p == 2):
            continue  # a matrix norm (the 2-norm: the largest singular value; not this list)
        outer = len(shape) == 2 and (dim == 0 and not transposed or dim in (1, -1) and transposed)
        if p == 1 and not outer or p == 2 and dim == (0, 2):
            # not this list: ATen's vectorised 1-norm over memory's last dim, and its 2-norm
            # over dims that are not adjacent (NumPy's pairwise sums there)
            continue
        for seed in range(3):
            args = (dtype, shape, dim, p, keepdim, call, transposed, seed)
            assert _bits(lg, *args) == _bits(torch, *args), args


def test_three_norm_of_the_report():
    for T in (lg,):
        x = T.tensor([0.0, 3.0, 0.0])
        assert T.norm(x, p=3).item() == 3.0 == torch.norm(torch.tensor([0.0, 3.0, 0.0]), p=3).item()
        assert T.linalg.vector_norm(x.view(1, 3), 3, dim=1).item() == 3.0


def test_two_norm_rows_bits():
    """Every row length 1..79, float32 and float64, as rows of a matrix and of a 3-d tensor
    reduced over its last two dims."""
    rng = np.random.default_rng(5)
    for dtype, n in itertools.product((np.float32, np.float64), range(1, 80)):
        data = rng.standard_normal((60, n)).astype(dtype)
        for dim, view in ((1, data), (-1, data), ((1, 2), data.reshape(6, 10, n))):
            expected = torch.linalg.vector_norm(torch.tensor(view), 2, dim).numpy()
            got = lg.linalg.vector_norm(lg.tensor(view), 2, dim).numpy()
            np.testing.assert_array_equal(got, expected, err_msg=f"{dtype} {n} {dim}")
        expected = torch.linalg.vector_norm(torch.tensor(data[:3])).numpy()
        np.testing.assert_array_equal(lg.linalg.vector_norm(lg.tensor(data[:3])).numpy(),
                                      expected)


@pytest.mark.parametrize("p", [3, 0.5, 1.5, -1, 2])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_p_norm_grads(p, dim):
    data = np.random.default_rng(1).standard_normal((4, 5))
    data[0, 0] = 0.0
    results = []
    for T in (torch, lg):
        x = T.tensor(data, requires_grad=True)
        out = T.linalg.vector_norm(x, p, dim)
        out.backward(T.ones_like(out))
        results.append((out.detach().numpy(), x.grad.numpy(), out.grad_fn.name()))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-10, atol=1e-12)
    assert results[1][2] == results[0][2]


def test_batch_norm_versions_inference_mode_and_meta():
    def run(T):
        with T.inference_mode():
            made_inside = T.nn.BatchNorm1d(3)
            made_inside(T.randn(4, 3))
        outside = T.nn.BatchNorm1d(3)
        with T.inference_mode():
            outside(T.randn(4, 3))
        meta = T.nn.BatchNorm1d(3).to("meta")
        meta(T.randn(4, 3, device="meta"))
        return (made_inside.running_mean.is_inference(), outside.running_mean._version,
                outside.num_batches_tracked._version, meta.running_mean._version,
                meta.num_batches_tracked._version)

    assert run(lg) == run(torch)


# -- factories called with missing or wrong arguments: torch's parser errors --------------------

_T = object()  # stands for a (2, 3) float tensor in the cases below
_FACTORY_CASES = [
    ("full", ()), ("full", ("a",)), ("full", ((2,),)), ("full", ("a", 1)), ("full", ((2,), "a")),
    ("full", ((2,), 1), {"foo": 1}), ("full", ((2,), 1, 3)), ("full", ((2.5,), 1)),
    ("full", (None, 1)), ("full", ((2,), 1), {"dtype": "x"}), ("full", ([2, 3], 1.5)),
    ("eye", ()), ("eye", ("a",)), ("eye", (2.5,)), ("eye", (2, "a")), ("eye", (2, 3, 4)),
    ("eye", (None,)), ("eye", (3,), {"foo": 1}), ("eye", (3,), {"device": 1.5}), ("eye", (2, 3)),
    ("arange", ()), ("arange", ("a",)), ("arange", (0, "a")), ("arange", (0, 5, "a")),
    ("arange", (None,)), ("arange", (0, 5, 1, 2)), ("arange", ((1, 2),)),
    ("arange", (3,), {"requires_grad": 1}), ("arange", (1, 4, 0.5)),
    ("randint", ()), ("randint", (3,)), ("randint", (0, "a", (2,))), ("randint", (5, (2,), 3)),
    ("randint", (5.5, (2,))), ("randint", (5, "a")), ("randint", (0, 5, (2,)), {"foo": 1}),
    ("randint", (0, 5.0, (2,))), ("randint", (1, 5, (2, 2))), ("randint", (10,), {"size": (3,)}),
    ("randint", (), {"high": 4, "size": (1,)}), ("randint", (), {"low": 2, "high": 5, "size": (2,)}),
    ("randint", (np.int64(5), (2,))), ("randint", (5, (2,)), {"dtype": "x"}),
    ("randint", (5, (2,)), {"generator": 1}), ("randint", (5, [2, 3])),
    ("randperm", ()), ("randperm", (2.5,)), ("randperm", ("a",)), ("randperm", (None,)),
    ("randperm", (3, 4)), ("randperm", (3,), {"generator": 1}), ("randperm", (True,)),
    ("randperm", (np.int64(3),)),
    ("linspace", ()), ("linspace", (0, 1)), ("linspace", ("a", 1, 3)), ("linspace", (0, 1, 2.5)),
    ("linspace", (0, 1, "a")), ("linspace", (0, 1, None)), ("linspace", (0, 1, 4)),
    ("logspace", ()), ("logspace", (0, 1)), ("logspace", (0, 1, 2.5)),
    ("logspace", (0, 1, 3, "a")), ("logspace", (0, 1, 3)),
    ("normal", ()), ("normal", (0,)), ("normal", ("a", 1)), ("normal", (0, 1, "a")),
    ("normal", (0.0, 1.0)), ("normal", (_T, "a")), ("normal", (0.0, 1.0, (2,))),
    ("empty_strided", ()), ("empty_strided", ((2,),)), ("empty_strided", ("a", (1,))),
    ("empty_strided", ((2,), "a")),
    ("tensor", ()), ("tensor", ([1],), {"foo": 1}), ("tensor", ([1], 2)), ("as_tensor", ()),
    ("zeros_like", ()), ("zeros_like", (1,)), ("ones_like", ()), ("empty_like", ()),
    ("full_like", ()), ("full_like", (_T,)), ("full_like", (_T, "a")),
    ("rand_like", ()), ("rand_like", (1,)), ("randn_like", ()), ("randint_like", ()),
    ("randint_like", (_T,)), ("randint_like", (_T, "a")),
    ("tril_indices", ()), ("tril_indices", (3,)), ("tril_indices", ("a", 3)),
    ("triu_indices", ()), ("triu_indices", (3, 2.5)), ("tril_indices", (3, 3)),
    ("complex", ()), ("complex", (_T,)), ("complex", (1, 2)), ("polar", ()), ("polar", (_T, 1)),
    ("from_numpy", ()), ("from_numpy", ([1],)), ("from_numpy", (np.ones(2), 1)),
    ("from_numpy", (), {"array": np.ones(2)}),
]


@pytest.mark.parametrize("case", _FACTORY_CASES,
                         ids=lambda c: f"{c[0]}{c[1:]!r}"[:60].replace(repr(_T), "T"))
def test_factory_argument_errors(case):
    name, args = case[0], case[1]
    kwargs = case[2] if len(case) > 2 else {}

    def call(T):
        values = tuple(T.ones(2, 3) if a is _T else a for a in args)
        result = getattr(T, name)(*values, **kwargs)
        return "shape", tuple(result.shape), str(result.dtype).split(".")[-1]

    assert _outcome(lambda: call(lg)) == _outcome(lambda: call(torch))


def test_randint_randperm_draw_nothing_on_bad_arguments():
    """torch's parser raises before any draw: the generator's stream is untouched."""
    lg.manual_seed(3)
    for bad in ((lambda: lg.randperm(2.5)), (lambda: lg.randint(5.5, (2,))),
                (lambda: lg.normal(0.0, 1.0, "a"))):
        with pytest.raises(TypeError):
            bad()
    after = lg.rand(3)
    lg.manual_seed(3)
    assert lg.equal(after, lg.rand(3))


# -- warnings point at the user's line when torch's do ------------------------------------------
# torch's C++ warnings are attributed to the innermost Python frame: the user's line, or a line
# of torch's own Python code (torch/functional.py, nn/modules) when that made the call; a
# leafgrad warning must point at the same user line, or into leafgrad where torch's points into
# torch.

_WARNING_SCRIPT = '''
import os, sys, importlib, warnings
T = importlib.import_module(sys.argv[1])
F = T.nn.functional
LIBRARY = os.path.dirname(T.__file__)
x = T.ones(3, requires_grad=True)
y = x * 2
CASES = [
    ("grad of a non-leaf", lambda: y.grad),
    ("mse size", lambda: F.mse_loss(T.ones(3, 1), T.ones(3))),
    ("l1 size", lambda: F.l1_loss(T.ones(3, 1), T.ones(3))),
    ("smooth_l1 size", lambda: F.smooth_l1_loss(T.ones(3, 1), T.ones(3))),
    ("MSELoss size", lambda: T.nn.MSELoss()(T.ones(3, 1), T.ones(3))),
    ("softmax dim", lambda: F.softmax(T.ones(2, 3))),
    ("log_softmax dim", lambda: F.log_softmax(T.ones(2, 3))),
    ("softmin dim", lambda: F.softmin(T.ones(2, 3))),
    ("Softmax module dim", lambda: T.nn.Softmax()(T.ones(2, 3))),
    ("Softmin module dim", lambda: T.nn.Softmin()(T.ones(2, 3))),
    ("size_average", lambda: F.mse_loss(T.ones(3), T.ones(3), size_average=True)),
    ("reduce", lambda: F.l1_loss(T.ones(3), T.ones(3), reduce=False)),
    ("nll size_average", lambda: F.nll_loss(T.zeros(2, 3), T.tensor([0, 1]), size_average=False)),
    ("cross_entropy reduce", lambda: F.cross_entropy(T.zeros(2, 3), T.tensor([0, 1]),
                                                     reduce=False)),
    ("bce logits size_average", lambda: F.binary_cross_entropy_with_logits(
        T.zeros(2), T.zeros(2), size_average=True)),
    ("MSELoss size_average", lambda: T.nn.MSELoss(size_average=False)),
    ("MSELoss reduce", lambda: T.nn.MSELoss(reduce=False)),
    ("tensor of a tensor", lambda: T.tensor(T.ones(2))),
    ("tensor of a tensor, dtype", lambda: T.tensor(T.ones(2), dtype=T.float64)),
    ("new_tensor of a tensor", lambda: T.ones(3).new_tensor(T.ones(2))),
    ("var dof", lambda: T.ones(1).var()),
    ("std dof", lambda: T.std(T.ones(1))),
    ("var_mean dof", lambda: T.var_mean(T.ones(1))),
    ("cov dof", lambda: T.cov(T.ones(1, 1))),
    ("x.T of 3-d", lambda: T.ones(2, 3, 4).T),
    ("range", lambda: T.range(0, 3)),
    ("out resized", lambda: T.add(T.ones(3), 1, out=T.ones(2))),
    ("storage", lambda: T.ones(2).storage()),
    ("kl_div mean", lambda: F.kl_div(T.zeros(2, 3), T.zeros(2, 3))),
    ("lu", lambda: T.lu(T.eye(2))),
    ("lu_solve", lambda: T.lu_solve(T.ones(2, 1), *T.linalg.lu_factor(T.eye(2)))),
    ("meshgrid", lambda: T.meshgrid(T.ones(2), T.ones(3))),
    ("stft window", lambda: T.stft(T.ones(64), 16, return_complex=True)),
    ("float of a tensor requiring grad", lambda: float(T.ones(1, requires_grad=True))),
    ("clip_grad_norm", lambda: T.nn.utils.clip_grad_norm(T.nn.Linear(2, 2).parameters(), 1.0)),
    ("init.normal", lambda: T.nn.init.normal(T.ones(2))),
    ("upsample", lambda: F.upsample(T.ones(1, 1, 2), scale_factor=2)),
    ("Dropout2d of 2-d", lambda: T.nn.Dropout2d(0.5)(T.ones(2, 3))),
]
for label, case in CASES:
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        case()
    for w in records:
        where = ("user line %d" % w.lineno if w.filename == __file__ else
                 "library" if w.filename.startswith(LIBRARY) else w.filename)
        print(label, "|", w.category.__name__, "|", str(w.message).splitlines()[0], "|",
              where)
'''


def test_warnings_point_at_the_callers_line(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "user_script.py"
    script.write_text(_WARNING_SCRIPT)
    import os

    source = os.path.dirname(os.path.dirname(lg.__file__))
    env = dict(os.environ, PYTHONPATH=source + os.pathsep + os.environ.get("PYTHONPATH", ""))

    def run(module):
        done = subprocess.run([sys.executable, str(script), module], capture_output=True,
                              text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    # torch's C++ warnings end "(Triggered internally at <ATen file>:<line>.)"
    expected = [re.sub(r" \(Triggered internally at [^)]*\)", "", line) for line in run("torch")]
    got = [line.replace("leafgrad.", "torch.") for line in run("leafgrad")]  # torch.Size
    assert any("user line" in line for line in expected)
    assert got == expected


# -- torch.ctc_loss (ATen's form: integer reduction) ---------------------------------------------

def _ctc_inputs(T, dtype, batched, lengths_as):
    rng = np.random.default_rng(4)
    shape = (6, 2, 5) if batched else (6, 5)
    log_probs = T.tensor(rng.standard_normal(shape), dtype=getattr(T, dtype))
    log_probs = log_probs.log_softmax(-1).detach().requires_grad_()
    targets = T.tensor([[1, 2, 2], [3, 1, 0]] if batched else [1, 2, 2])
    inputs, sizes = ([6, 5], [3, 2]) if batched else ([6], [3])
    if lengths_as == "tensor":
        inputs, sizes = T.tensor(inputs), T.tensor(sizes)
    elif lengths_as == "tuple":
        inputs, sizes = tuple(inputs), tuple(sizes)
    if not batched and lengths_as == "tensor":
        inputs, sizes = inputs[0], sizes[0]
    return log_probs, targets, inputs, sizes


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("lengths_as", ["tensor", "list", "tuple"])
@pytest.mark.parametrize("call", [(), (0,), (0, 1), (0, 2), (0, 0, True), (1, 1),
                                  {"reduction": 2}, {"zero_infinity": True}, (0, 3),
                                  {"blank": 4, "reduction": 1}, (0, "mean"), (0.5,),
                                  {"reduction": "sum"}])
def test_top_level_ctc_loss(dtype, batched, lengths_as, call):
    def run(T):
        log_probs, targets, inputs, sizes = _ctc_inputs(T, dtype, batched, lengths_as)
        args, kwargs = (call, {}) if isinstance(call, tuple) else ((), call)
        loss = T.ctc_loss(log_probs, targets, inputs, sizes, *args, **kwargs)
        loss.sum().backward()
        return (loss.grad_fn.name(), tuple(loss.shape), str(loss.dtype).split(".")[-1],
                np.round(loss.detach().numpy().astype(np.float64), 4).tolist(),
                np.round(log_probs.grad.numpy().astype(np.float64), 4).tolist())

    expected = _outcome(lambda: run(torch))
    assert _outcome(lambda: run(lg)) == expected


def test_top_level_ctc_loss_missing_arguments():
    for args in ((), (1,)):
        assert _outcome(lambda: lg.ctc_loss(*args)) == _outcome(lambda: torch.ctc_loss(*args))


# -- Tensor.set_ and Tensor.as_subclass ------------------------------------------------------------

def _set_program(T):
    lines = []

    def show(label, f):
        try:
            r = f()
            lines.append((label, repr(r).replace("leafgrad.", "torch."),
                          getattr(r, "_version", None)))
        except Exception as e:  # noqa: BLE001 - the type and first line are compared
            lines.append((label, type(e).__name__, str(e).splitlines()[0]))

    for dtype in (T.float32, T.float64, T.int64):
        a, b = T.zeros(3, dtype=dtype), T.arange(4).to(dtype)
        show("set_(tensor)", lambda: a.set_(b))
        b.add_(1)
        show("shares memory, own version", lambda: (a, a._version, b._version))
        show("set_()", lambda: (T.zeros(2, dtype=dtype).set_(),
                                T.zeros(2, dtype=dtype).set_().shape,
                                T.zeros(2, dtype=dtype).set_().stride()))
        show("storage", lambda: T.zeros(2, dtype=dtype).set_(b.untyped_storage(), 1, (2,), (1,)))
        show("storage 2-d", lambda: T.zeros(2, dtype=dtype).set_(b.untyped_storage(), 0, (2, 2),
                                                                  (2, 1)))
        show("storage, no stride", lambda: T.zeros(2, dtype=dtype).set_(b.untyped_storage(), 0,
                                                                         (2, 2)))
        show("storage, transposed", lambda: T.zeros(2, dtype=dtype).set_(
            b.untyped_storage(), 0, (2, 2), (1, 2)))
        show("storage, empty size", lambda: T.zeros(2, dtype=dtype).set_(
            b.untyped_storage(), 0, (0, 3)).shape)
        show("tensor, offset", lambda: T.zeros(2, dtype=dtype).set_(b, 2, (2,)))
        show("tensor, offset, 2-d", lambda: T.zeros(2, dtype=dtype).set_(b, 1, (1, 3), (3, 1)))
        show("non-contiguous source", lambda: T.zeros(1, dtype=dtype).set_(
            T.arange(6).to(dtype).view(2, 3).t()).stride())
    show("other dtype", lambda: T.zeros(2, dtype=T.float64).set_(T.ones(2)))
    show("other dtype, int", lambda: T.zeros(2).set_(T.ones(2, dtype=T.int64)))
    show("leaf requiring grad", lambda: T.zeros(2, requires_grad=True).set_(T.ones(2)))
    show("a number", lambda: T.zeros(2).set_(1))
    show("keyword source", lambda: T.zeros(1).set_(source=T.ones(3)))
    x = T.ones(3, requires_grad=True)
    with T.no_grad():
        x.set_(T.zeros(3))
    show("under no_grad", lambda: (x, x.is_leaf, x.requires_grad, x._version))
    y = T.zeros(2)
    view = y[:1]
    y.set_(T.ones(5))
    show("an older view", lambda: (view, y, view._version, y._version))
    y.add_(1)
    show("writes after set_", lambda: (view, y))

    class Sub(T.Tensor):
        pass

    for dtype in (T.float32, T.float64):
        x = T.ones(2, dtype=dtype, requires_grad=True)
        y = x * 2
        z = y.as_subclass(Sub)
        show("as_subclass", lambda: (type(z).__name__, z.grad_fn.name(), z.requires_grad,
                                     z.is_leaf, z.dtype))
        show("repr", lambda: z)
        w = x.as_subclass(Sub)
        show("of a leaf", lambda: (w.grad_fn.name(), w.is_leaf, w.requires_grad, w is x))
        z.sum().backward()
        show("backward", lambda: x.grad)
        y2 = x * 3
        z2 = y2.as_subclass(Sub)
        y2.mul_(2)
        show("shares version", lambda: (z2._version, y2._version, z2.grad_fn.name(), z2))
    show("not a Tensor class", lambda: T.ones(2).as_subclass(int))
    show("no class", lambda: T.ones(2).as_subclass())
    show("no grad", lambda: (type(T.tensor([1.0, 2.0]).as_subclass(Sub)).__name__,
                             isinstance(T.tensor([1.0]).as_subclass(Sub), T.Tensor)))
    show("0-d", lambda: T.tensor(3.0).as_subclass(Sub))
    return lines


def test_set_and_as_subclass():
    expected = _set_program(torch)
    got = _set_program(lg)
    assert len(got) == len(expected)
    for line, want in zip(got, expected):
        assert line == want


# -- hardswish's gradient at a NaN input ------------------------------------------------------------
# torch's scalar loop gives the incoming gradient there, its vectorised loop NaN: which one an
# element gets depends on its position in a contiguous float32/float64 tensor.

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", [1, 3, 8, 9, 16, 17, 33, 40])
@pytest.mark.parametrize("layout", ["contiguous", "2-d", "transposed"])
def test_hardswish_grad_at_nan(dtype, size, layout):
    data = np.linspace(-5, 5, size)
    data[::3] = np.nan
    data[1::7] = np.inf

    def run(T):
        x = T.tensor(data, dtype=getattr(T, dtype))
        if layout == "2-d" and size % 2 == 0:
            x = x.view(2, -1)
        elif layout == "transposed" and size % 2 == 0:
            x = x.view(2, -1).t().contiguous()
        x.requires_grad_()
        y = T.nn.functional.hardswish(x)
        (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        upstream = T.full_like(x, 2.0)
        (g2,) = T.autograd.grad(y, x, upstream)
        return [np.asarray(t.detach().numpy(), dtype=np.float64).tolist()
                for t in (y, g, gg, g2)]

    expected, got = run(torch), run(lg)
    np.testing.assert_array_equal(np.array(got[0]), np.array(expected[0]))
    for index in (1, 2, 3):
        np.testing.assert_array_equal(np.array(got[index]), np.array(expected[index]))


# -- torch.conv_tbc ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pad", [0, 1, 3])
@pytest.mark.parametrize("shapes", [((5, 2, 3), (2, 3, 4)), ((4, 1, 1), (4, 1, 2)),
                                    ((3, 2, 2), (1, 2, 3)), ((0, 2, 3), (1, 3, 2))])
@pytest.mark.parametrize("needs", list(itertools.product((False, True), repeat=3)))
def test_conv_tbc(dtype, pad, shapes, needs):
    rng = np.random.default_rng(2)
    (x_shape, w_shape) = shapes
    arrays = [rng.standard_normal(x_shape), rng.standard_normal(w_shape),
              rng.standard_normal(w_shape[2])]

    def run(T):
        tensors = [T.tensor(a, dtype=getattr(T, dtype), requires_grad=n)
                   for a, n in zip(arrays, needs)]
        out = T.conv_tbc(*tensors, pad)
        result = [out.grad_fn.name() if out.grad_fn else None, tuple(out.shape),
                  out.detach().numpy().astype(np.float64)]
        wanted = [t for t in tensors if t.requires_grad]
        if wanted and out.numel():
            grads = T.autograd.grad((out * out).sum(), wanted, create_graph=True)
            result += [g.detach().numpy().astype(np.float64) for g in grads]
            again = [g for g in grads if g.requires_grad]
            if again and x_shape[0]:  # (an empty input's second order: not compared)
                result += [g.numpy().astype(np.float64) for g in T.autograd.grad(
                    sum((g * g).sum() for g in again), wanted, allow_unused=True,
                    materialize_grads=True)]
        return result

    expected, got = run(torch), run(lg)
    assert got[:2] == expected[:2]
    assert len(got) == len(expected)
    for a, b in zip(got[2:], expected[2:]):
        np.testing.assert_allclose(a, b, rtol=1e-4 if dtype == "float32" else 1e-10,
                                   atol=1e-4 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("call", [
    lambda T: T.conv_tbc(T.ones(5, 2, 3), T.ones(2, 3, 4)),
    lambda T: T.conv_tbc(T.ones(2, 3), T.ones(2, 3, 4), T.ones(4)),
    lambda T: T.conv_tbc(T.ones(5, 2, 3), T.ones(3, 4), T.ones(4)),
    lambda T: T.conv_tbc(T.ones(5, 2, 3), T.ones(2, 3, 4), T.ones(2)),
    lambda T: T.conv_tbc(T.ones(5, 2, 3), T.ones(2, 4, 4), T.ones(4)),
    lambda T: T.conv_tbc(T.ones(5, 2, 3), T.ones(2, 3, 4), T.ones(4), 1.5),
    lambda T: T.conv_tbc(T.ones(5, 2, 3), T.ones(9, 3, 4), T.ones(4)),
    lambda T: T.conv_tbc(T.ones(5, 2, 3), T.ones(2, 3, 4), T.ones(4), pad=True),
    lambda T: T.nn.functional.conv_tbc(T.ones(5, 2, 3), T.ones(2, 3, 4), T.ones(4), 1).shape,
])
def test_conv_tbc_errors(call):
    def run(T):
        return _outcome(lambda: call(T))

    assert run(lg) == run(torch).__class__(x.replace("torch.", "leafgrad.")
                                         if isinstance(x, str) else x for x in run(torch))
