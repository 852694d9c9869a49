"""Behaviours found by replaying the second half of PyTorch's test/test_autograd.py as programs
run under torch and leafgrad; each program's observations must be identical."""

from __future__ import annotations

import warnings

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _outcome(fn):
    """What a call gives: ("ok", value) or (exception type, first line of its message)."""
    try:
        return ("ok", fn())
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return (type(error).__name__, str(error).split("\n")[0])


def _same(program):
    got, expected = program(leafgrad), program(torch)
    assert got == expected


# --- gradcheck's undefined-grad check ------------------------------------------------------


def _hook_refusing_none(lib, outputs):
    """A function whose intermediate's hook raises when its grad is undefined (None)."""

    def hook(grad):
        if grad is None:
            raise RuntimeError("grad is undefined")

    def func(x):
        y = x.clone()
        y.register_hook(hook)
        return (y * 2, y.sin()) if outputs == 2 else y * 2

    return func


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("raise_exception", [True, False])
@pytest.mark.parametrize("outputs", [1, 2])
@pytest.mark.parametrize("check_undefined_grad", [True, False])
def test_gradcheck_undefined_grad_reaches_hooks_as_none(fast_mode, raise_exception, outputs,
                                                         check_undefined_grad):
    def program(lib):
        x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _outcome(lambda: lib.autograd.gradcheck(
                _hook_refusing_none(lib, outputs), (x,), fast_mode=fast_mode,
                raise_exception=raise_exception, check_undefined_grad=check_undefined_grad))
        return result, [str(w.message)[:60] for w in caught]

    _same(program)


@pytest.mark.parametrize("undefined_ok", [True, False])
def test_gradcheck_hook_error_other_than_runtime_error_propagates(undefined_ok):
    def program(lib):
        def func(x):
            y = x.clone()
            y.register_hook(lambda g: g if g is not None or undefined_ok else 1 / 0)
            return y.pow(3)

        x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _outcome(lambda: lib.autograd.gradcheck(func, (x,)))

    _same(program)


# --- forward AD of complex tensors ------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_unpack_dual_of_a_complex_dual_tensor(dtype):
    def program(lib):
        forward_ad = lib.autograd.forward_ad
        kind = getattr(lib, dtype)
        with forward_ad.dual_level():
            x = lib.tensor([1 + 2j, 3 - 1j], dtype=kind)
            dual = forward_ad.make_dual(x, lib.tensor([0.5 + 1j, 1j], dtype=kind))
            primal, tangent = forward_ad.unpack_dual(dual)
            out = forward_ad.unpack_dual(dual * dual.conj() + dual.exp()).tangent
            again = forward_ad.make_dual(primal, tangent * 1.5)
            return [primal.tolist(), tangent.tolist(), primal._base is dual,
                    [round(v.real, 4) + 1j * round(v.imag, 4) for v in out.tolist()],
                    forward_ad.unpack_dual(again).tangent.tolist(),
                    forward_ad.unpack_dual(lib.view_as_real(dual)).tangent.tolist()]

    _same(program)


def test_gradcheck_forward_ad_of_complex_inputs():
    def program(lib):
        def func(x, y):
            return x + y, y

        x = lib.tensor([0.5 + 0.25j, -1.0 + 2j], dtype=lib.complex128, requires_grad=True)
        y = lib.tensor([0.75, 0.125], dtype=lib.float64, requires_grad=True)
        return [_outcome(lambda: lib.autograd.gradcheck(func, (x, y), check_forward_ad=True,
                                                        fast_mode=fast))
                for fast in (False, True)]

    _same(program)


# --- Tensor.data assignment -------------------------------------------------------------------

_DATA_DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "int8", "uint8",
                "int64", "bool"]


@pytest.mark.parametrize("dtype", _DATA_DTYPES)
@pytest.mark.parametrize("kind", ["leaf", "non-leaf", "view", "no grad", "parameter"])
def test_data_assignment_needs_a_differentiable_dtype_while_requiring_grad(dtype, kind):
    def program(lib):
        base = lib.ones(2, requires_grad=kind != "no grad")
        target = {"leaf": lambda: base, "non-leaf": lambda: base * 2,
                  "view": lambda: (base * 1)[:1], "no grad": lambda: base,
                  "parameter": lambda: lib.nn.Parameter(lib.ones(2))}[kind]()
        version = target._version

        def assign():
            target.data = lib.zeros(3, dtype=getattr(lib, dtype))

        return [_outcome(assign), str(target.dtype).split(".")[-1], tuple(target.shape),
                target.requires_grad, target._version - version]

    _same(program)


# --- checkpoint recomputes under the forward's autocast state -----------------------------------


@pytest.mark.parametrize("use_reentrant", [False, True])
@pytest.mark.parametrize("forward_autocast", [False, True])
@pytest.mark.parametrize("backward_autocast", [False, True])
def test_checkpoint_recomputes_under_the_forwards_autocast(use_reentrant, forward_autocast,
                                                           backward_autocast):
    def program(lib):
        checkpoint = lib.utils.checkpoint.checkpoint
        seen = []

        def body(x, y, z):
            x = lib.mm(x, y)
            product = lib.mm(x, z)
            seen.append(str(product.dtype).split(".")[-1])
            return product

        values = [[[0.5, -1.0], [2.0, 0.25]], [[1.5, 0.5], [-0.75, 1.0]], [[1.0, 2.0], [3.0, -1.0]]]
        x, y, z = (lib.tensor(v, requires_grad=True) for v in values)
        with lib.autocast("cpu", dtype=lib.bfloat16, enabled=forward_autocast):
            loss = checkpoint(body, x, y, z, use_reentrant=use_reentrant).float().sum()
        with lib.autocast("cpu", dtype=lib.bfloat16, enabled=backward_autocast):
            loss.backward()
        return seen, [str(t.grad.dtype).split(".")[-1] for t in (x, y, z)], [t.grad.tolist() for t in (x, y, z)]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(program)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_checkpoint_recompute_hands_back_a_saved_input_itself_when_it_needs_no_grad(
        requires_grad):
    def program(lib):
        seen = []

        class SaveSecond(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(y)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                (saved,) = ctx.saved_tensors
                seen.append(saved)
                return grad * 2, None

        a = lib.tensor(1.5, requires_grad=True)
        b = lib.tensor(0.5, requires_grad=requires_grad)
        lib.utils.checkpoint.checkpoint(SaveSecond.apply, a, b, use_reentrant=False).backward()
        return [seen[0] is b, seen[0].requires_grad, seen[0].tolist(), a.grad.tolist()]

    _same(program)


# --- hooks of multi-output nodes see one grad per output ----------------------------------------

_MULTI_OUTPUT = {
    "unbind": lambda lib, x: x.unbind(0),
    "split": lambda lib, x: x.split(1, dim=1),
    "split_with_sizes": lambda lib, x: x.split([2, 1], dim=1),
    "chunk": lambda lib, x: x.chunk(3, dim=1),
    "unsafe_split": lambda lib, x: x.unsafe_split(1, dim=1),
    "svdvals_and_factors": lambda lib, x: lib.linalg.svd(x, full_matrices=False),
    "qr": lambda lib, x: lib.linalg.qr(x.mT),
    "max_dim": lambda lib, x: x.max(dim=1),
    "sort": lambda lib, x: x.sort(dim=1),
    "frexp": lambda lib, x: lib.frexp(x),
}


def _grads(grads, values=True):
    """Each grad as None, or its shape (and values, rounded: float32 sums may differ in order)."""
    return [None if g is None else (tuple(g.shape), [round(v, 4) for v in g.flatten().tolist()]
                                    if values else None) for g in grads]


@pytest.mark.parametrize("maker", sorted(_MULTI_OUTPUT))
@pytest.mark.parametrize("used", [(0,), (-1,), (0, -1), "all"])
def test_multi_output_node_hooks_see_none_for_outputs_without_grad(maker, used):
    def program(lib):
        x = lib.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], requires_grad=True)
        outputs = [o for o in _MULTI_OUTPUT[maker](lib, x) if o.requires_grad]
        seen = []
        node = outputs[0].grad_fn
        # (the factors' signs differ between LAPACKs, and so do the grads reaching them)
        values = maker not in ("svdvals_and_factors", "qr")
        node.register_prehook(lambda grads: seen.append(("pre", _grads(grads, values))))
        node.register_hook(lambda grads_in, grads_out: seen.append(
            ("post", _grads(grads_out, values))))
        chosen = range(len(outputs)) if used == "all" else sorted({u % len(outputs) for u in used})
        loss = sum((outputs[k] * outputs[k]).sum() * (k + 1) for k in chosen)
        loss.backward()
        return seen

    _same(program)


@pytest.mark.parametrize("replacement", ["none", "tensor"])
def test_multi_output_prehook_cannot_fill_a_missing_grad(replacement):
    def program(lib):
        x = lib.tensor([[3.0, 1.0], [0.5, 4.0]], requires_grad=True)
        first, _ = x.unbind(0)

        def prehook(grads):
            return (grads[0] * 2, None if replacement == "none" else lib.ones(2))

        first.grad_fn.register_prehook(prehook)
        result = _outcome(lambda: first.sum().backward())
        return result, None if x.grad is None else x.grad.tolist()

    _same(program)


def test_multi_output_node_reached_without_grad_runs_hooks_with_none():
    def program(lib):
        seen = []

        class NoGrad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 1

            @staticmethod
            def backward(ctx, grad):
                return None

        x = lib.tensor([[3.0, 1.0], [0.5, 4.0]], requires_grad=True)
        parts = x.split(1)
        parts[0].grad_fn.register_prehook(lambda grads: seen.append(_grads(grads)))
        (NoGrad.apply(parts[1]).sum() + x.sum()).backward()
        return seen, x.grad.tolist()

    _same(program)
