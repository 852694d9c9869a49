"""The compiled loops leafgrad.compile's replays run where numba is installed
(ops/_numba_kernels.py, ops/_numba_loops.py): every bit of the NumPy kernels they stand for, on
every class of float32 input (random bit patterns, the special values, every row length around
the vector width, non-contiguous operands), and replays that use them equal to eager steps.

numba is a test dependency: without it these tests skip locally and fail in CI (CI=1), as for
torch."""

from __future__ import annotations

import os

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import _float_kernels, _isa, _numba_kernels, _softmax_bits

if os.environ.get("CI"):
    import numba  # noqa: F401 - CI installs the test extra; its absence must fail loudly
else:
    pytest.importorskip("numba")

if _isa.CAPABILITY != "avx512":  # pragma: no cover - the loops copy AVX-512's logf form
    pytest.skip("the compiled loops serve AVX-512 machines only", allow_module_level=True)

_RNG = np.random.default_rng(20261129)


def _bits(a) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def assert_same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    nan = np.isnan(got) & np.isnan(want)  # (a NaN's payload is not compared)
    differ = (_bits(got) != _bits(want)) & ~nan
    assert not differ.any(), (got[differ][:5], want[differ][:5])


def test_available_and_switched_on_only_inside_replays():
    assert _numba_kernels.available()
    assert not _numba_kernels.active
    was = _numba_kernels.begin()
    assert _numba_kernels.active and was is False
    _numba_kernels.end(was)
    assert not _numba_kernels.active


def test_expf_every_bit_pattern_class():
    # random non-positive float32 bit patterns (every binade, subnormals, NaNs, -inf), softmax's
    # typical range, and the edges of the kept range
    patterns = _RNG.integers(0, 2 ** 31, 1_000_000, dtype=np.uint32) | np.uint32(2 ** 31)
    typical = -np.abs(_RNG.standard_normal(1_000_000).astype(np.float32) * np.float32(20))
    edges = np.array([0, -0.0, -np.inf, np.nan, -103.97, -104, np.nextafter(-104, 0),
                      np.nextafter(-104, -1), -87.3, -88.72, -1e-30, -1e-45, -0.3465736,
                      -0.3465737], np.float32)
    for x in (patterns.view(np.float32), typical, edges):
        assert_same_bits(_numba_kernels.expf(x), _softmax_bits.expf(x, nonpositive=True))


def test_lane_ordered_row_sums_every_length():
    lanes = _isa.lanes(4)
    for size in sorted({1, 2, lanes - 1, lanes, lanes + 1, 2 * lanes - 1, 2 * lanes,
                        2 * lanes + 3, 100, 1000}):
        for scale in (1e-3, 1.0, 1e30):
            rows = (_RNG.standard_normal((9, size)) * scale).astype(np.float32)
            rows[0] = -0.0  # an all-negative-zero row keeps its sign as the NumPy sum does
            assert_same_bits(_numba_kernels.reduce_all_sum(rows),
                             _float_kernels.reduce_all_sum(rows))


def _outputs(kernel, x) -> tuple:
    result = kernel(x)
    return result if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize("kind", ["log_softmax", "softmax"])
def test_softmax_forward_every_shape_and_special_value(kind):
    numba_kernel = getattr(_numba_kernels, f"{kind}_lastdim")
    numpy_kernel = getattr(_float_kernels, f"{kind}_lastdim")
    inputs = [(_RNG.standard_normal(shape) * scale).astype(np.float32)
              for shape in [(1, 1), (5, 1), (32, 10), (4, 16), (3, 17), (2, 5, 33), (200, 7),
                            (8, 1000)]
              for scale in (1e-2, 1.0, 30.0, 1e3)]
    special = _RNG.standard_normal((8, 12)).astype(np.float32)
    special[0, 3] = np.nan
    special[1] = -np.inf
    special[2, 2] = np.inf
    special[3] = -0.0
    special[4] = 3e38
    special[5, ::2] = -3e38
    special[6] = 0
    inputs.append(special)
    inputs.append(_RNG.standard_normal((12, 6)).astype(np.float32).T)  # non-contiguous
    # enough rows that some rows' logs lie near a float32 midpoint (SLEEF's logf replayed)
    inputs.append((_RNG.standard_normal((100_000, 10)) * 3).astype(np.float32))
    with np.errstate(all="ignore"):
        for x in inputs:
            for got, want in zip(_outputs(numba_kernel, x), _outputs(numpy_kernel, x)):
                assert_same_bits(got, want)


def test_log_softmax_backward_every_shape():
    with np.errstate(all="ignore"):
        for shape in [(1, 1), (32, 10), (3, 17), (64, 1000), (2000, 10)]:
            result = _float_kernels.log_softmax_lastdim(
                (_RNG.standard_normal(shape) * 5).astype(np.float32))[0]
            for grad in (_RNG.standard_normal(shape).astype(np.float32),
                         np.zeros(shape, np.float32), -np.ones(shape, np.float32)):
                assert_same_bits(_numba_kernels.log_softmax_backward_lastdim(grad, result),
                                 _float_kernels.log_softmax_backward_lastdim(grad, result))
        result[0, 0] = np.nan
        grad = _RNG.standard_normal(result.shape).astype(np.float32).T.copy().T  # F-order
        assert_same_bits(_numba_kernels.log_softmax_backward_lastdim(grad, result),
                         _float_kernels.log_softmax_backward_lastdim(grad, result))


def test_fma_update_equals_scaled_update():
    from leafgrad.ops import _blas

    for size in (1, 7, 1280, 200_704):
        for alpha in (-1e-3, 0.5, -3.0, 1e-30):
            p = _RNG.standard_normal(size).astype(np.float32)
            g = (_RNG.standard_normal(size) * 10).astype(np.float32)
            g[:3] = [0, -0.0, np.inf][:size]
            ours, theirs = p.copy(), p.copy()
            assert _numba_kernels.fma_update(ours, g, alpha)
            if _blas._FUSES.get("f", False) or not _float_kernels._mkl.available():
                # where MKL's axpy fuses (or without MKL) the update is not this loop's
                continue
            _float_kernels.scaled_update(np.add, theirs, g, alpha, out=theirs)
            assert_same_bits(ours, theirs)
    # what the loop does not serve, it declines (the caller's NumPy kernel runs)
    p = np.ones(4, np.float64)
    assert not _numba_kernels.fma_update(p, p, 1.0)
    q = np.ones((4, 4), np.float32)
    assert not _numba_kernels.fma_update(q.T, q, 1.0)
    row = np.arange(9, dtype=np.float32)  # overlapping operands: the NumPy steps read g first
    assert not _numba_kernels.fma_update(row[1:], row[:-1], 1.0)
    same = row.copy()
    want = same.copy()
    assert _numba_kernels.fma_update(same, same, 0.5)
    _float_kernels.scaled_update(np.add, want, want, 0.5, out=want)
    assert_same_bits(same, want)


def test_sums_in_torch_order_every_shape():
    """_cascade_sum's outer (a bias gradient: the sum over a leading dim) and inner (over the
    last dim) orders, on every row count around the cascade's chunk sizes and every column
    count around the vector widths, float32 and float64, signed zeros included."""
    from leafgrad.ops import _cascade_sum

    for dtype in (np.float32, np.float64):
        for size in (1, 2, 3, 4, 5, 7, 15, 16, 17, 33, 64, 65, 257, 4097):
            for lead, cols in ((1, 1), (1, 7), (3, 9), (1, 32), (2, 33), (1, 130)):
                block = _RNG.standard_normal((size, lead, cols)).astype(dtype)
                assert_same_bits(_numba_kernels.cascade_outer(block),
                                 _cascade_sum._outer(block))
        for count in (1, 2, 5, 32):
            for n in (1, 3, 4, 7, 8, 9, 15, 16, 17, 33, 1000):
                rows = _RNG.standard_normal((count, n)).astype(dtype)
                assert_same_bits(_numba_kernels.cascade_inner(rows), _cascade_sum._inner(rows))
        zeros = np.full((40, 1, 33), -0.0, dtype)
        assert_same_bits(_numba_kernels.cascade_outer(zeros), _cascade_sum._outer(zeros))
        zeros = np.full((3, 40), -0.0, dtype)
        assert_same_bits(_numba_kernels.cascade_inner(zeros), _cascade_sum._inner(zeros))


def test_convolution_bias_sums_in_order():
    from leafgrad.ops import conv

    for dtype in (np.float32, np.float64):
        for shape in ((1, 1, 1), (2, 3, 4), (32, 16, 8, 8), (3, 5, 1, 7), (4, 2, 3, 3, 3)):
            grad = (_RNG.standard_normal(shape) * 100).astype(dtype)
            assert_same_bits(_numba_kernels.channel_sums(grad),
                             conv._sequential_channel_sums(grad))
        zeros = np.full((3, 2, 5), -0.0, dtype)
        assert_same_bits(_numba_kernels.channel_sums(zeros), conv._sequential_channel_sums(zeros))
    assert _numba_kernels.channel_sums(np.ones((0, 3, 2), np.float32)) is None
    assert _numba_kernels.channel_sums(np.ones((2, 3, 4), np.float32).transpose(0, 2, 1)) is None


def test_nll_loss_sums_and_gradient_every_batch_size():
    """nll_loss without weights: the loss (torch's eight partial sums) and its gradient equal
    the NumPy steps for batch sizes around the levels' chunk sizes; an ignored or
    out-of-range target is declined (the NumPy steps then keep the kept targets or raise)."""
    from leafgrad.ops import loss

    for dtype in (np.float32, np.float64):
        for n in (1, 2, 15, 16, 17, 255, 256, 257, 4097, 70_000):
            a = (_RNG.standard_normal((n, 7)) * 10).astype(dtype)
            target = _RNG.integers(0, 7, n)
            for reduction in ("mean", "sum"):
                assert_same_bits(_numba_kernels.nll_loss(a, target, reduction, -100),
                                 loss.NllLoss.forward(None, a, None, target, reduction, -100))
                grad = np.asarray(_RNG.standard_normal(), dtype)
                assert_same_bits(
                    _numba_kernels.nll_loss_backward(grad, (n, 7), target, reduction, -100),
                    loss.NllLossBackward.forward(None, grad, input_sizes=(n, 7), target=target,
                                                 reduction=reduction, ignore_index=-100,
                                                 weight=None))
    a = np.ones((3, 4), np.float32)
    for target in (np.array([0, -100, 1]), np.array([0, 4, 1]), np.array([0, -1, 1])):
        assert _numba_kernels.nll_loss(a, target, "mean", -100) is None
        assert _numba_kernels.nll_loss_backward(np.asarray(1.0, np.float32), (3, 4), target,
                                                "mean", -100) is None
    assert _numba_kernels.nll_loss(a, np.array([0, 1, 2]), "none", -100) is None


def test_relu_and_its_backward_every_special_value():
    from leafgrad.ops import elementwise

    for dtype in (np.float32, np.float64):
        specials = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45,
                             3.0, -3.0], dtype)
        a = np.concatenate([specials, _RNG.standard_normal(1000).astype(dtype)])
        grad = np.concatenate([specials[::-1], _RNG.standard_normal(1000).astype(dtype)])
        want = elementwise.Relu.capture_kernel(a, np.empty_like(a))
        assert_same_bits(_numba_kernels.relu(a, np.empty_like(a)), want)
        assert_same_bits(_numba_kernels.relu(a, None), want)
        for threshold in (0, 0.0, 0.5, -1):
            want = elementwise._threshold_grad(grad, a, threshold, np.empty_like(grad))
            assert_same_bits(_numba_kernels.threshold_grad(grad, a, threshold,
                                                           np.empty_like(grad)), want)
            assert_same_bits(_numba_kernels.threshold_grad(grad, a, threshold, None), want)
    # not served (the NumPy steps run): broadcast operands, a strided one, an output that
    # overlaps an operand
    a = np.ones((4, 4), np.float32)
    assert _numba_kernels.threshold_grad(np.ones(4, np.float32), a, 0, None) is None
    assert _numba_kernels.relu(a.T, None) is None
    assert _numba_kernels.relu(a, a) is None


@pytest.mark.parametrize("options", [
    {}, {"betas": (0.3, 0.5)}, {"amsgrad": True}, {"weight_decay": 0.1}, {"maximize": True},
    {"weight_decay": 0.1, "decoupled_weight_decay": True}, {"lr": 0.5, "eps": 1e-3}])
def test_adam_update_loops_equal_numpy_steps(options):
    """optim.Adam's update with the loops switched on (as in a replay) and off: the same
    parameters and state, bit for bit, over 30 steps (float32 parameters of several shapes,
    one transposed so the loops decline it, and a float64 one they do not serve)."""
    results = []
    for loops in (False, True):
        rng = np.random.default_rng(7)
        params = [leafgrad.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
                  for shape, dtype in (((4, 5), np.float32), ((7,), np.float32),
                                       ((3, 3), np.float64))]
        params.append(leafgrad.tensor(rng.standard_normal((5, 4)).astype(np.float32)).t()
                      .detach().requires_grad_())
        optimizer = leafgrad.optim.Adam(params, **options)
        for _ in range(30):
            for p in params:
                p.grad = leafgrad.tensor(rng.standard_normal(tuple(p.shape)).astype(
                    p.detach().numpy().dtype) * 10)
            was = _numba_kernels.begin() if loops else None
            try:
                optimizer.step()
            finally:
                if loops:
                    _numba_kernels.end(was)
        state = [optimizer.state[p][name].detach().numpy().copy()
                 for p in params for name in sorted(optimizer.state[p])]
        results.append([p.detach().numpy().copy() for p in params] + state)
    for got, want in zip(results[1], results[0]):
        assert_same_bits(got, want)


def _classifier_step(lib, batch, features, classes, softmax_head):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, classes))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    x = lib.randn(batch, features)
    y = lib.randint(0, classes, (batch,))

    def step():
        optimizer.zero_grad()
        logits = model(x)
        if softmax_head:  # softmax's kernel too: a probability-weighted loss
            loss = (lib.softmax(logits, 1) * logits).sum() / batch
        else:
            loss = lib.nn.functional.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()
        return loss

    return model, step


@pytest.mark.parametrize("softmax_head", [False, True])
@pytest.mark.parametrize("loops", [True, False])
def test_replayed_training_equals_eager(loops, softmax_head):
    """20 compiled steps (loops on, and off: the NumPy kernels) give eager's weights and
    losses bit for bit."""
    leafgrad.backends.cpu.compiled_loops = loops
    try:
        eager_model, eager_step = _classifier_step(leafgrad, 24, 20, 10, softmax_head)
        model, step = _classifier_step(leafgrad, 24, 20, 10, softmax_head)
        compiled = leafgrad.compile(step)
        for _ in range(20):
            assert_same_bits(compiled().detach().numpy(), eager_step().detach().numpy())
        assert ("loops_begin()" in compiled.code) is loops
    finally:
        leafgrad.backends.cpu.compiled_loops = True
    for ours, theirs in zip(model.parameters(), eager_model.parameters()):
        assert_same_bits(ours.detach().numpy(), theirs.detach().numpy())
    assert not _numba_kernels.active


def _eager_losses_and_weights(lib, optimizer_name, convolution):
    lib.manual_seed(3)
    nn = lib.nn
    if convolution:
        model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(144, 10))
        x = lib.randn(16, 1, 8, 8)
    else:
        model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 10))
        x = lib.randn(16, 20)
    y = lib.randint(0, 10, (16,))
    optimizer = getattr(lib.optim, optimizer_name)(model.parameters(), lr=0.01)
    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        logits = model(x)
        loss = lib.nn.functional.cross_entropy(logits, y) + \
            (lib.softmax(logits, 1) * logits).sum() / 16
        loss.backward()
        optimizer.step()
        losses.append(loss.detach().numpy().copy())
    return losses + [p.detach().numpy().copy() for p in model.parameters()]


def test_eager_ops_with_the_loops():
    """compiled_loops = "eager": eager training steps (cross-entropy, softmax, SGD and Adam)
    give torch's losses and weights bit for bit, and with a convolution (whose float32 last
    bits are oneDNN's, not leafgrad's) those of the NumPy kernels; the switch's values are
    checked, and turning it back leaves the loops to replays."""
    from tests._torch import require_torch

    torch = require_torch()
    with pytest.raises(ValueError, match="compiled_loops must be True, False or 'eager'"):
        leafgrad.backends.cpu.compiled_loops = "yes"
    assert leafgrad.backends.cpu.compiled_loops is True
    for optimizer_name in ("SGD", "Adam"):
        numpy_kernels = _eager_losses_and_weights(leafgrad, optimizer_name, True)
        leafgrad.backends.cpu.compiled_loops = "eager"
        try:
            assert _numba_kernels.active
            looped = _eager_losses_and_weights(leafgrad, optimizer_name, True)
            mlp = _eager_losses_and_weights(leafgrad, optimizer_name, False)
        finally:
            leafgrad.backends.cpu.compiled_loops = True
        assert not _numba_kernels.active
        for got, want in zip(looped, numpy_kernels):
            assert_same_bits(got, want)
        for got, want in zip(mlp, _eager_losses_and_weights(torch, optimizer_name, False)):
            assert_same_bits(got, want)


def test_environment_variable_sets_the_switch():
    import subprocess
    import sys

    code = ("import leafgrad; from leafgrad.ops import _numba_kernels as k; "
            "print(leafgrad.backends.cpu.compiled_loops, k.active)")
    for value, expected in (("eager", "eager True"), ("0", "False False"), ("", "True False")):
        env = dict(os.environ, LEAFGRAD_COMPILED_LOOPS=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
        assert " ".join(out) == expected, (value, out)
