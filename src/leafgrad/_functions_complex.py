"""torch's functions for complex tensors (the ops are in ops/complex.py)."""

from __future__ import annotations

from . import _argparse

from . import _dtype
from .tensor import Tensor

__all__ = [
    "complex", "polar", "real", "imag", "conj", "conj_physical", "resolve_conj", "resolve_neg",
    "is_conj", "is_complex", "isreal", "angle", "view_as_real", "view_as_complex", "vdot",
    "complex64", "complex128", "complex32", "cfloat", "cdouble", "chalf",
]

complex64, complex128, complex32 = _dtype.complex64, _dtype.complex128, _dtype.complex32
cfloat, cdouble, chalf = complex64, complex128, complex32


def _ops():
    from .ops import complex as module

    return module


def _check_tensor(value, function: str, argument: str, position: int) -> None:
    if not isinstance(value, Tensor):
        from ._argparse import typename

        raise TypeError(f"{function}(): argument '{argument}' (position {position}) must be "
                        f"Tensor, not {typename(value)}")


def _check_pair(first: Tensor, second: Tensor, function: str, names: tuple) -> None:
    """torch's checks on complex()/polar() inputs: two floating tensors of one dtype."""
    a, b = first._data.dtype, second._data.dtype
    if a.kind != "f" or b.kind != "f" or a == "float16" and b == "float16":
        if a == b == "float16":
            _dtype.check_storable(_dtype.complex32)
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got "
            f"{first.dtype._legacy} and {second.dtype._legacy}"
        )
    if a != b:
        raise RuntimeError(
            f"Expected object of scalar type {first.dtype._legacy} but got scalar type "
            f"{second.dtype._legacy} for second argument"
        )


@_argparse.parsed("complex")
def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001 - torch's name
    """A complex tensor from its real and imaginary parts.

    >>> complex(leafgrad.tensor([1.]), leafgrad.tensor([2.]))
    tensor([1.+2.j])
    """
    _check_tensor(real, "complex", "real", 1)
    _check_tensor(imag, "complex", "imag", 2)
    _check_pair(real, imag, "complex", ("real", "imag"))
    return _ops().Complex.apply(real, imag)


@_argparse.parsed("polar")
def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002 - torch's argument names
    """``abs * (cos(angle) + i sin(angle))``."""
    _check_tensor(abs, "polar", "abs", 1)
    _check_tensor(angle, "polar", "angle", 2)
    _check_pair(abs, angle, "polar", ("abs", "angle"))
    return _ops().Polar.apply(abs, angle)


def real(input: Tensor) -> Tensor:  # noqa: A002
    return input.real


def imag(input: Tensor) -> Tensor:  # noqa: A002
    return input.imag


def conj(input: Tensor) -> Tensor:  # noqa: A002
    return input.conj()


def conj_physical(input: Tensor) -> Tensor:  # noqa: A002
    return input.conj_physical()


def resolve_conj(input: Tensor) -> Tensor:  # noqa: A002
    return input.resolve_conj()


def resolve_neg(input: Tensor) -> Tensor:  # noqa: A002
    return input.resolve_neg()


def is_conj(input: Tensor) -> bool:  # noqa: A002
    return input.is_conj()


def is_complex(input: Tensor) -> bool:  # noqa: A002
    _check_tensor(input, "is_complex", "input", 1)
    return input.is_complex()


def isreal(input: Tensor) -> Tensor:  # noqa: A002
    return input.isreal()


def angle(input: Tensor) -> Tensor:  # noqa: A002
    return input.angle()


def vdot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return input.vdot(other)


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002
    """The complex tensor's memory as a real tensor with a trailing dimension of 2."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if input.is_conj():
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
            "conjugate tensor so you can view it as real, use self.resolve_conj(); however, be "
            "warned that the resulting tensor will NOT alias the original."
        )
    return _ops().ViewAsReal.apply(input)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002
    """A real tensor with a last dimension of 2 (stride 1) read as complex numbers."""
    _ops().check_view_as_complex(input)
    return _ops().ViewAsComplex.apply(input)
