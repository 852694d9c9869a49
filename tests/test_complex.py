"""Complex tensors against torch 2.13: dtypes and promotion, creation, printing, conversions,
conjugation, views, errors and gradients (the op-by-op checks are in ops/test_complex_table.py).

Each case is an expression evaluated with ``lib`` bound to torch and to leafgrad: the reprs
must be equal (``leafgrad.`` read as ``torch.``), or both must raise the same exception type
with the same first line.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _outcome(lib, expression: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = eval(expression, {"lib": lib, "np": np})  # noqa: S307 - test expressions
        except Exception as error:  # noqa: BLE001 - the outcome is the exception
            text = str(error).replace("leafgrad.", "torch.")
            return ("raise", type(error).__name__, text.splitlines()[0] if text else "")
    return ("value", repr(value).replace("leafgrad.", "torch."))


def _z(lib, values, dtype=None):
    return lib.tensor(values, dtype=dtype or lib.complex64)


DTYPES = [
    "lib.complex64, lib.complex128, lib.cfloat, lib.cdouble, lib.chalf, lib.complex32",
    "lib.complex64.is_complex, lib.complex64.is_floating_point, lib.complex128.itemsize",
    "lib.complex64.to_real(), lib.complex128.to_real(), lib.float64.to_complex()",
    "lib.float32.to_complex(), lib.float16.to_complex(), lib.float32.to_real()",
    "lib.int64.to_complex()",
    "lib.promote_types(lib.int64, lib.complex64), lib.promote_types(lib.float64, lib.complex64)",
    "lib.promote_types(lib.bool, lib.complex128), lib.promote_types(lib.complex64, lib.uint8)",
    "lib.result_type(lib.tensor(2j), 1.0), lib.result_type(lib.tensor(2., dtype=lib.float64), 1j)",
    "lib.result_type(lib.tensor([1, 2]), 1j), lib.result_type(lib.tensor([True]), 1j)",
    "lib.can_cast(lib.complex64, lib.float64), lib.can_cast(lib.float64, lib.complex64)",
    "(lib.ones(2) * 1j).dtype, (lib.ones(2, dtype=lib.float64) * 1j).dtype",
    "(lib.ones(2, dtype=lib.int32) + 1j).dtype, (lib.ones(2) * lib.tensor(1j, dtype=lib.complex128)).dtype",
    "(lib.ones(2, dtype=lib.float64) * lib.tensor(1j)).dtype, (lib.tensor(1.) * lib.ones(2, dtype=lib.complex64)).dtype",
    "(lib.tensor([1, 2]) * lib.tensor(1j, dtype=lib.complex128)).dtype",
    "lib.tensor([1+2j]).dtype, lib.tensor([1, 2.5j]).dtype, lib.tensor(np.array([1j], np.complex128)).dtype",
    "lib.tensor([1, 2], dtype=lib.cfloat), lib.tensor([True, 1j])",
]

CREATION = [
    "lib.tensor([1+2j, 3-4j])",
    "lib.tensor(1j), lib.tensor(-0.5-0j), lib.tensor(3+0j, dtype=lib.complex128)",
    "lib.tensor([[1e-5+2j, 3-4j]])",
    "lib.tensor([[1+2j, 3], [4.5, -1e-3j]])",
    "lib.tensor(1e10+1j), lib.tensor([1e-10+1j, 5])",
    "lib.tensor([float('nan')+1j, float('inf')*1j, -float('inf')+0j])",
    "lib.tensor([1+2j], dtype=lib.complex128)",
    "lib.tensor([0.1+0.2j, 123.456-7.5j], dtype=lib.complex128)",
    "lib.zeros(2, dtype=lib.cfloat), lib.ones(2, 2, dtype=lib.complex128)",
    "lib.full((2,), 1+2j), lib.full((2,), 3, dtype=lib.cfloat)",
    "lib.empty(0, dtype=lib.cfloat), lib.zeros(0, 3, dtype=lib.cdouble)",
    "lib.zeros_like(lib.tensor([1j])), lib.ones_like(lib.tensor([1j]), dtype=lib.complex128)",
    "lib.randn(2, 2, dtype=lib.cfloat, generator=lib.Generator().manual_seed(0))",
    "lib.randn(3, dtype=lib.cdouble, generator=lib.Generator().manual_seed(5))",
    "lib.rand(2, dtype=lib.cfloat, generator=lib.Generator().manual_seed(0))",
    "lib.arange(6.).reshape(2, 3) * (1-2j)",
    "lib.tensor(range(1000)) * (1+1j)",
    "lib.tensor(np.arange(30.).reshape(5, 6)) * 1j + 1e4",
    "lib.complex(lib.tensor([1., -2.]), lib.tensor([0.5, 3.]))",
    "lib.complex(lib.tensor([1.], dtype=lib.float64), lib.tensor([[2.], [3.]], dtype=lib.float64))",
    "lib.complex(lib.tensor([1.]), lib.tensor([2.], dtype=lib.float64))",
    "lib.complex(lib.tensor([1]), lib.tensor([2]))",
    "lib.complex(lib.tensor([1.]), lib.tensor([float('inf')]))",
    "lib.polar(lib.tensor([2., 1.]), lib.tensor([0.5, -3.]))",
    "lib.polar(lib.tensor([1.]), lib.tensor([2.], dtype=lib.float64))",
    "lib.view_as_complex(lib.tensor([[1., 2.], [3., 4.]]))",
    "lib.view_as_complex(lib.tensor([1, 2]))",
    "lib.view_as_complex(lib.zeros(3))",
    "lib.view_as_complex(lib.zeros(2, 3).t())",
    "lib.view_as_complex(lib.zeros(3, 4)[:, :2])",
    "lib.view_as_real(lib.tensor([1+2j, 3-4j]))",
    "lib.view_as_real(lib.tensor([1.]))",
    "lib.view_as_real(lib.tensor([1+2j]).conj())",
    "lib.tensor([1+2j, 3], dtype=lib.float32)",
    "lib.tensor([1+2j, 3], dtype=lib.int64)",
    "lib.tensor([1+2j, 0j], dtype=lib.bool)",
]

PRINTING = [
    "lib.tensor([1+2j, -3+0.5j], requires_grad=True)",
    "lib.tensor([1+2j, -3+0.5j], requires_grad=True) * 2",
    "lib.tensor([[1.5+2j, -3+0.25j], [0, 1e3j]], dtype=lib.complex128)",
    "lib.tensor([1e-5+1j, 1e5-1j])",
    "lib.tensor([-0.0-0.0j, 0.0+0.0j])",
    "lib.tensor(np.arange(2000.).reshape(40, 50)) * (1-1j)",
    "str(lib.tensor([1+1j]) / 3)",
    "lib.tensor([[[1+1j, 2], [3, 4j]]]) * 1.5",
]

METHODS = [
    "lib.tensor([1+2j, 3-4j]).real, lib.tensor([1+2j, 3-4j]).imag",
    "lib.tensor([1.5, -2.]).real, lib.real(lib.tensor([1+2j]))",
    "lib.tensor([1.]).imag",
    "lib.tensor([1+2j]).conj(), lib.tensor([1+2j]).conj().is_conj(), lib.tensor([1.]).conj().is_conj()",
    "lib.tensor([1+2j]).conj().resolve_conj().is_conj(), (lib.tensor([1+2j]).conj() + 0).is_conj()",
    "lib.conj_physical(lib.tensor([1+2j])), lib.tensor([1+2j]).conj_physical().is_conj()",
    "lib.tensor([1+2j]).is_complex(), lib.is_complex(lib.tensor([1.])), lib.tensor([1.]).is_complex()",
    "lib.tensor([1j, 1, 0]).isreal(), lib.tensor([1., 2.]).isreal(), lib.isreal(lib.tensor([2+0j]))",
    "lib.tensor([1+2j, -3+0j, 0j]).abs(), lib.tensor([1+2j, -3+0j, 0j]).angle()",
    "lib.tensor([-1., 0., 2., -0.]).angle(), lib.tensor([-1, 2]).angle()",
    "lib.tensor([3+4j, 0j, -2j]).sgn()",
    "lib.tensor(1+2j).item(), lib.tensor([1+2j]).tolist(), lib.tensor(2+1j).numpy()",
    "lib.tensor([1j]).conj().numpy()",
    "float(lib.tensor(1+0j)), int(lib.tensor(2.5+0j))",
    "float(lib.tensor(1+1j))",
    "int(lib.tensor(1+1j))",
    "lib.tensor([1+2j]).to(lib.float32), lib.tensor([1.5+2j]).long(), lib.tensor([1.5+2j]).bool()",
    "lib.tensor([1.5, 2]).to(lib.cfloat), lib.tensor([1, 2]).to(lib.complex128)",
    "lib.tensor([1+2j]).double()",
    "lib.tensor([1., 2.]).cfloat(), lib.tensor([1j]).cdouble(), lib.tensor([1, 2]).cfloat()",
    "lib.tensor([1+2j, 3j]) == lib.tensor([1+2j, 3]), lib.tensor([1+2j]) != 1+2j",
    "lib.tensor([[1+1j, 2], [3, 4j]]) @ lib.tensor([[1j], [2]])",
    "lib.tensor([[1+1j, 2], [3, 4j]]).mm(lib.tensor([[1+0j, 2], [0, 1j]]))",
    "lib.tensor([1+1j, 2]).dot(lib.tensor([3j, 1])), lib.vdot(lib.tensor([1+1j, 2]), lib.tensor([3j, 1]))",
    "lib.tensor([[1+1j, 2]]).matmul(lib.tensor([[1.], [2.]]))",
    "lib.tensor([1+1j, 2j]).sum(), lib.tensor([1+1j, 2j]).mean(), lib.tensor([1+1j, 2j]).prod()",
    "lib.tensor([[1+1j, 2j], [3, 4]]).sum(0), lib.tensor([[1+1j, 2j], [3, 4]]).mean(1)",
    "lib.tensor([1+1j, 2j]).exp(), lib.tensor([1+1j, 2j]).log(), lib.tensor([1+1j, -2j]).sqrt()",
    "lib.tensor([1+1j, 2j]).sin(), lib.tensor([1+1j, 2j]).cos(), lib.tensor([1+1j, 2j]).tanh()",
    "lib.tensor([1+1j, 2j]).sigmoid(), lib.tensor([1+1j, 2j]).reciprocal(), -lib.tensor([1+1j])",
    "lib.tensor([1+1j, 2j]) ** 2, lib.tensor([1+1j, 2j]) ** 0.5, 2 ** lib.tensor([1+1j])",
    "lib.tensor([1+1j, 2j]) / lib.tensor([2, 1j]), lib.tensor([1, 2]) / lib.tensor([1j, 1])",
    "lib.tensor([1+1j]) - 1j, 1j - lib.tensor([1.]), lib.tensor([2.]) * (1 + 1j)",
    "lib.linalg.vector_norm(lib.tensor([3+4j, 1j])), lib.linalg.vector_norm(lib.tensor([3+4j]), 1)",
    "lib.linalg.vector_norm(lib.tensor([3+4j]), dtype=lib.float32)",
    "lib.tensor([[1j, 2]]).mH, lib.tensor([[1j, 2]]).H, lib.tensor([[1j, 2]]).adjoint()",
    "lib.tensor([[1j, 2]]).mH.is_conj(), lib.ones(2, 2, requires_grad=True).mH",
    "lib.ones(3).H",
    "lib.ones(3).mH",
    "lib.ones(3, 2, 2, dtype=lib.cfloat).H",
    "(lambda z: (z.add_(1j), z.mul_(2-1j), z.sub_(lib.tensor([1j, 2])), z.div_(1j), z))(lib.tensor([1+2j, 3]))",
    "(lambda x: x.add_(1j))(lib.tensor([1., 2.]))",
    "(lambda z: z.copy_(lib.tensor([1., 2.])))(lib.tensor([1j, 2j]))",
    "(lambda x: x.copy_(lib.tensor([1j, 2j])))(lib.zeros(2))",
    "lib.cat([lib.tensor([1j]), lib.tensor([1.])]), lib.stack([lib.tensor([1j]), lib.tensor([2j])])",
    "lib.tensor([1j, 2, 3j])[lib.tensor([0, 2])], lib.tensor([1j, 2, 3j]).flip(0)",
    "lib.tensor([1j, 2]).masked_fill(lib.tensor([True, False]), 0), lib.tensor([1j, 2]).cumsum(0)",
    "lib.tensor([1j]).view(lib.float32), lib.tensor([1j]) + lib.tensor([1], dtype=lib.uint8)",
    "lib.nn.functional.linear(lib.ones(2, 2, dtype=lib.cfloat), lib.ones(2, 2, dtype=lib.cfloat))",
]

ERRORS = [
    "lib.tensor([1+2j]) < 1",
    "lib.tensor([1+2j]) >= lib.tensor([1j])",
    "lib.tensor([1+2j]).max()",
    "lib.tensor([1+2j]).max(0)",
    "lib.tensor([1+2j]).min()",
    "lib.tensor([1+2j]).argmax()",
    "lib.tensor([1+2j]).clamp(0, 1)",
    "lib.relu(lib.tensor([1+2j]))",
    "lib.tensor([1+2j]).floor()",
    "lib.tensor([1+2j]).sign()",
    "lib.tensor([1+2j]).sort()",
    "lib.maximum(lib.tensor([1+2j]), lib.tensor([1j]))",
    "lib.tensor([1+2j]).erf()",
    "lib.tensor([1+2j]).softmax(0)",
    "lib.tensor([1+2j]) % 2",
    "lib.tensor([1+2j]) // 2",
    "lib.atan2(lib.tensor([1+2j]), lib.tensor([1j]))",
    "lib.tensor([1+2j]).topk(1)",
    "lib.tensor([1+2j]).amax()",
    "lib.nn.functional.mse_loss(lib.tensor([1+2j]), lib.tensor([1j]))",
    "lib.tensor([1+2j], requires_grad=True).sum().backward()",
    "lib.tensor([1+2j], requires_grad=True).abs().backward()",
    "lib.tensor([1], dtype=lib.int64).requires_grad_()",
    "lib.tensor([1+2j]).requires_grad_().requires_grad",
    "lib.mm(lib.tensor([[1+2j]]), lib.tensor([[1.]]))",
]


@pytest.mark.parametrize("expression", DTYPES + CREATION + PRINTING + METHODS + ERRORS)
def test_matches_torch(expression):
    assert _outcome(leafgrad, expression) == _outcome(torch, expression)


def test_cast_to_real_warns_as_torch():
    # torch's C++ warning is emitted once per process (so an earlier test may have used it
    # up); its text, checked by hand against torch 2.13, is this one.
    with pytest.warns(UserWarning, match="^Casting complex values to real discards the "
                                         "imaginary part"):
        leafgrad.tensor([1 + 2j]).float()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        leafgrad.tensor([1 + 2j]).bool()  # torch casts to bool without a warning
        torch.tensor([1 + 2j]).bool()


def test_complex32_is_named_but_not_stored():
    """Known difference: NumPy has no complex half type, so leafgrad refuses to make a
    complex32 tensor (torch makes one, with an 'experimental' warning)."""
    assert repr(leafgrad.complex32) == "leafgrad.complex32"
    assert leafgrad.float16.to_complex() is leafgrad.complex32
    with pytest.raises(TypeError, match="no complex32"):
        leafgrad.ones(2, dtype=leafgrad.complex32)
    with pytest.raises(TypeError, match="no complex32"):
        leafgrad.ones(2, dtype=leafgrad.float16) * 1j


# -- gradients ------------------------------------------------------------------------------------


def _grads(lib, program, count=2, seed=0):
    rng = np.random.default_rng(seed)
    leaves = [lib.tensor(rng.normal(size=(2, 3)) + 1j * rng.normal(size=(2, 3)),
                         dtype=lib.complex128, requires_grad=True) for _ in range(count)]
    loss = program(lib, *leaves)
    loss.backward()
    return [leaf.grad.resolve_conj().numpy() for leaf in leaves], loss.detach().numpy()


PROGRAMS = {
    "abs of product": lambda lib, a, b: (a * b).abs().sum(),
    "real of exp": lambda lib, a, b: (a.exp() * b.conj()).real.sum(),
    "imag of matmul": lambda lib, a, b: (a @ b.t()).imag.sum(),
    "norm squared": lambda lib, a, b: (a * a.conj()).real.sum() + (b.abs() ** 2).sum(),
    "angle": lambda lib, a, b: (a.angle() * b.abs()).sum(),
    "view_as_real": lambda lib, a, b: (lib.view_as_real(a / b) ** 2).sum(),
    "mixed real leaf": lambda lib, a, b: (a.real * b).abs().mean(),
    "sigmoid tanh": lambda lib, a, b: (a.sigmoid() + b.tanh()).abs().sum(),
    "sgn log sqrt": lambda lib, a, b: (a.sgn() * b.log() + a.sqrt()).abs().sum(),
    "pow and vdot": lambda lib, a, b: lib.vdot(a.reshape(-1) ** 3, b.reshape(-1)).abs(),
    "polar": lambda lib, a, b: lib.polar(a.abs(), b.real).imag.sum(),
    "complex": lambda lib, a, b: lib.complex(a.real, b.imag).abs().sum(),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_backward_matches_torch(name):
    ours, our_loss = _grads(leafgrad, PROGRAMS[name])
    theirs, their_loss = _grads(torch, PROGRAMS[name])
    np.testing.assert_allclose(our_loss, their_loss, rtol=1e-12)
    for got, want in zip(ours, theirs):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_real_leaf_of_complex_op_gets_real_grad():
    for lib in (torch, leafgrad):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        (x * (2 - 3j)).abs().sum().backward()
        assert x.grad.dtype == lib.float64
    ours = leafgrad.tensor([1.0, -2.0], dtype=leafgrad.float64, requires_grad=True)
    theirs = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    for lib, x in ((leafgrad, ours), (torch, theirs)):
        ((x * (2 - 3j)).exp() * 1j).real.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def test_create_graph_second_derivative_matches_torch():
    def second(lib):
        z = lib.tensor([0.3 + 0.7j, -1.2 + 0.1j], dtype=lib.complex128, requires_grad=True)
        loss = (z.sin() * z.conj()).abs().sum()
        (g,) = lib.autograd.grad(loss, z, create_graph=True)
        (gg,) = lib.autograd.grad((g * g.conj()).real.sum(), z)
        return g.detach().numpy(), gg.numpy()

    for got, want in zip(second(leafgrad), second(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_gradcheck_complex_passes_and_catches_a_wrong_formula():
    z = leafgrad.tensor([0.5 + 1j, -1 + 0.25j], dtype=leafgrad.complex128, requires_grad=True)
    w = leafgrad.tensor([2 - 1j, 0.5j], dtype=leafgrad.complex128, requires_grad=True)
    assert leafgrad.autograd.gradcheck(lambda a, b: a * b.exp(), (z, w))
    assert leafgrad.autograd.gradgradcheck(lambda a, b: a * b.exp(), (z, w))
    assert leafgrad.autograd.gradcheck(lambda a: a.abs(), (z,))

    class WrongConj(leafgrad.autograd.Function):  # backward without derivatives.yaml's .conj()
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            return grad * 2 * a

    assert not leafgrad.autograd.gradcheck(WrongConj.apply, (z,), raise_exception=False)
    # torch's own gradcheck agrees on both
    tz = torch.tensor(z.detach().numpy(), requires_grad=True)
    assert torch.autograd.gradcheck(lambda a: a.abs(), (tz,))


def test_views_share_memory_and_setters_write_through():
    for lib in (torch, leafgrad):
        z = lib.tensor([1 + 1j, 2 - 2j])
        z.real[0] = 5.0
        z.imag = lib.tensor([7.0, 8.0])
        pairs = lib.view_as_real(z)
        pairs[1, 0] = -1.0
        back = lib.view_as_complex(pairs)
        back[0] = 3j
        assert z.tolist() == [3j, -1 + 8j]
        assert z._version == pairs._version


def test_real_only_programs_do_not_install_the_complex_check():
    """The check on ops without complex support is installed only once the process made a
    complex tensor (ops/complex.py): a fresh interpreter doing real work has Op.apply as is."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import leafgrad as torch\n"
        "from leafgrad.ops.registry import Op\n"
        "plain = Op.__dict__['apply']\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "(x * 2).relu().sum().backward()\n"
        "print(Op.__dict__['apply'] is plain)\n"
        "torch.tensor([1j])\n"
        "print(Op.__dict__['apply'] is plain)\n"
    )
    src = Path(__file__).resolve().parent.parent / "src"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={"PYTHONPATH": str(src)}, check=True)
    assert result.stdout.split() == ["True", "False"]


def test_save_load_with_torch_both_ways(tmp_path):
    """Complex tensors in torch's checkpoint format (ComplexFloatStorage/ComplexDoubleStorage)."""
    ours = {"z": leafgrad.tensor([1 + 2j, 3 - 4j]),
            "w": leafgrad.tensor([[1j, 2]], dtype=leafgrad.complex128).t()}
    leafgrad.save(ours, tmp_path / "ours.pt")
    loaded = torch.load(tmp_path / "ours.pt", weights_only=True)
    for key in ours:
        assert repr(loaded[key]) == repr(ours[key]).replace("leafgrad.", "torch.")
    theirs = {"z": torch.tensor([1 + 2j, 3 - 4j]),
              "w": torch.tensor([[1j, 2]], dtype=torch.complex128).t()}
    torch.save(theirs, tmp_path / "theirs.pt")
    loaded = leafgrad.load(tmp_path / "theirs.pt", weights_only=True)
    for key in theirs:
        assert repr(loaded[key]).replace("leafgrad.", "torch.") == repr(theirs[key])
        assert loaded[key].stride() == theirs[key].stride()
