"""F.ctc_loss and nn.CTCLoss against torch: losses, gradients (through log_softmax) and node
names for padded and concatenated targets, repeated labels, impossible alignments (inf, NaN
gradients, zero_infinity), empty targets and inputs, blank elsewhere than 0, every reduction,
float32/float64, unbatched input, lengths as tensors/lists/tuples; create_graph gives torch's
NotImplemented node; reprs; torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [
    ([[1, 2, 2], [3, 1, 0], [4, 4, 4]], [7, 5, 7], [3, 2, 3]),
    ([[1, 2, 2], [3, 1, 0], [4, 4, 4]], [7, 5, 3], [3, 2, 3]),  # the last cannot align
    ([1, 2, 2, 3, 1, 4], [7, 6, 1], [3, 2, 1]),  # concatenated
    ([[1, 2], [3, 3], [0, 0]], [7, 0, 4], [2, 0, 0]),  # empty input / target
]


def _run(lib, dtype, logits, targets, input_lengths, target_lengths, **options):
    x = lib.tensor(logits, dtype=getattr(lib, dtype), requires_grad=True)
    loss = lib.nn.functional.ctc_loss(x.log_softmax(-1), lib.tensor(targets),
                                      lib.tensor(input_lengths), lib.tensor(target_lengths),
                                      **options)
    loss.sum().backward()
    return loss.detach().numpy(), x.grad.numpy(), loss.grad_fn.name()


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ctc_loss_matches_torch(case, dtype):
    targets, input_lengths, target_lengths = CASES[case]
    rng = np.random.default_rng(case)
    tol = 1e-4 if dtype == "float32" else 1e-10
    for reduction in ("none", "mean", "sum"):
        for zero_infinity in (False, True):
            for blank in (0, 2):
                labels = np.array(targets)
                labels = np.where(labels == blank, 0 if blank else 1, labels).tolist()
                logits = rng.normal(size=(7, 3, 5))
                options = dict(reduction=reduction, zero_infinity=zero_infinity, blank=blank)
                ours = _run(leafgrad, dtype, logits, labels, input_lengths, target_lengths,
                            **options)
                theirs = _run(torch, dtype, logits, labels, input_lengths, target_lengths,
                              **options)
                assert ours[2] == theirs[2]
                for a, b in zip(ours[:2], theirs[:2]):
                    assert a.shape == b.shape
                    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True,
                                               err_msg=str(options))


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_unbatched_and_length_forms(reduction):
    logits = np.random.default_rng(5).normal(size=(6, 4))

    def run(lib):
        x = lib.tensor(logits, requires_grad=True)
        lp = x.log_softmax(-1)
        single = lib.nn.functional.ctc_loss(lp, lib.tensor([1, 3, 3]), lib.tensor(6),
                                            lib.tensor(3), reduction=reduction)
        single.backward()
        batched = lp.detach().unsqueeze(1).expand(6, 2, 4)
        lists = lib.nn.functional.ctc_loss(batched, lib.tensor([[1, 3, 3], [2, 1, 0]]), [6, 4],
                                           (3, 2), reduction=reduction)
        return (single.detach().numpy(), single.grad_fn.name(), x.grad.numpy(),
                lists.numpy())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[:1] + ours[2:], theirs[:1] + theirs[2:]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_second_derivative_is_not_implemented_as_torch():
    def run(lib):
        x = lib.randn(5, 2, 4, dtype=lib.float64, requires_grad=True)
        loss = lib.nn.functional.ctc_loss(x.log_softmax(2), lib.tensor([[1, 2], [3, 3]]),
                                          lib.tensor([5, 5]), lib.tensor([2, 2]))
        grad, = lib.autograd.grad(loss, x, create_graph=True)
        try:
            lib.autograd.grad(grad.sum(), x)
        except RuntimeError as error:
            return grad.requires_grad, str(error).splitlines()[0]
        return grad.requires_grad, None

    assert run(leafgrad) == run(torch)


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return None


BAD = ["F.ctc_loss(lp, tg, lib.tensor([7, 5]), tl)",
       "F.ctc_loss(lp, tg, il, lib.tensor([4, 2]))",
       "F.ctc_loss(lp, tg, il, lib.tensor([3]))",
       "F.ctc_loss(lp, tg, lib.tensor([6]), tl)",
       "F.ctc_loss(lp, tg, il.float(), tl)",
       "F.ctc_loss(lp, tg, il, tl.float())",
       "F.ctc_loss(lp, tg, il, tl, blank=4)",
       "F.ctc_loss(lp, tg, il, tl, blank=-1)",
       "F.ctc_loss(lp, tg, il, tl, reduction='foo')",
       "F.ctc_loss(lp, tg, il, lib.tensor([-1, 2]))",
       "F.ctc_loss(lp, tg, lib.tensor([-1, 2]), tl)",
       "F.ctc_loss(lp, lib.tensor([1, 2, 2, 3]), il, tl)"]


@pytest.mark.parametrize("code", BAD)
def test_errors_match_torch(code):
    def run(lib):
        scope = {"lib": lib, "F": lib.nn.functional,
                 "lp": lib.randn(6, 2, 4).log_softmax(2), "tg": lib.tensor([[1, 2, 2], [3, 1, 0]]),
                 "il": lib.tensor([6, 5]), "tl": lib.tensor([3, 2])}
        return _error(lambda: eval(code, scope))

    assert run(torch) is not None
    assert run(leafgrad) == run(torch)


def test_module_matches_torch():
    logits = np.random.default_rng(7).normal(size=(6, 2, 4))

    def run(lib):
        modules = [lib.nn.CTCLoss(), lib.nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True)]
        found = []
        for module in modules:
            x = lib.tensor(logits, requires_grad=True)
            loss = module(x.log_softmax(2), lib.tensor([[1, 2, 2], [1, 1, 0]]),
                          lib.tensor([6, 2]), lib.tensor([3, 2]))
            loss.backward()
            found += [repr(module), module.blank, module.zero_infinity, module.reduction,
                      float(loss), x.grad.numpy()]
        return found

    ours, theirs = run(leafgrad), run(torch)
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True)
        elif isinstance(a, float):
            assert a == pytest.approx(b, rel=1e-10)
        else:
            assert a == b
