"""Tensor methods for complex numbers (the ops are in ops/complex.py)."""

from __future__ import annotations

from . import lazy_ops as _ops
from .. import _dtype


def _complex_ops():
    global _MODULE
    if _MODULE is None:  # (ops/complex.py imports tensor.py, which imports this module)
        from ..ops import complex as module

        _MODULE = module
    return _MODULE


_MODULE = None


class ComplexMethods:
    __slots__ = ()

    # (torch's Tensor.stft and istft are Python functions with these signatures: a bad argument
    # is reported by "Tensor.stft()", see tensor.py's _PYTHON_METHODS)
    def stft(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
             pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
             align_to_window=None):
        """torch.stft of this tensor (leafgrad/_stft.py)."""
        from .._stft import stft

        return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
                    onesided, return_complex, align_to_window)

    def istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
              normalized=False, onesided=None, length=None, return_complex=False):
        """torch.istft of this spectrogram (leafgrad/_stft.py)."""
        from .._stft import istft

        return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided,
                     length, return_complex)

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def is_conj(self) -> bool:
        """Whether torch would hold this tensor with its conjugate bit set (after ``conj()``)."""
        return _complex_ops().is_conj(self)

    @property
    def real(self):
        """The real parts as a view (a real tensor's ``real`` is itself)."""
        if self._data.dtype.kind != "c":
            return self
        return _complex_ops().real_part(self)

    @real.setter
    def real(self, value):
        self.real.copy_(value)

    @property
    def imag(self):
        """The imaginary parts as a view; real tensors have none (torch's error)."""
        if self._data.dtype.kind != "c":
            raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
        return _complex_ops().real_part(self, imaginary=True)

    @imag.setter
    def imag(self, value):
        self.imag.copy_(value)

    def conj(self):
        """The complex conjugate; torch marks it lazily (``is_conj()``), leafgrad computes it."""
        if self._data.dtype.kind != "c":
            return self
        module = _complex_ops()
        result = module.Conj.apply(self)
        return result if module.is_conj(self) else module.mark_conj(result)

    def conj_physical(self):
        """The conjugate as a new tensor (a real tensor itself, as in torch)."""
        if self._data.dtype.kind != "c":
            return self
        return _complex_ops().ConjPhysical.apply(self)

    def conj_physical_(self):
        """The conjugate written into this tensor (real tensors: values unchanged, the version
        still moves, as torch's)."""
        from ..ops.extra_forms import ConjPhysicalInplace
        from ..ops.inplace import inplace

        return inplace(ConjPhysicalInplace, self)

    def resolve_conj(self):
        """A tensor without the conjugate bit: a copy if it is set, else the tensor itself."""
        if not _complex_ops().is_conj(self):
            return self
        return _ops.Clone.apply(self)

    def resolve_neg(self):
        """A tensor without the negative bit: a copy if it is set, else the tensor itself."""
        if not _complex_ops().is_neg(self):
            return self
        return _ops.Clone.apply(self)

    def is_neg(self) -> bool:
        """Whether torch would hold this tensor with its negative bit set (``z.conj().imag``)."""
        return _complex_ops().is_neg(self)

    @property
    def mH(self):  # noqa: N802 - torch's name
        """The conjugate transpose of the last two dims (a 0-d tensor: its conjugate)."""
        if self._data.ndim == 0:
            return self.conj()
        if self._data.ndim < 2:
            raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                               f"Got {self._data.ndim}-D tensor.")
        return self.transpose(-2, -1).conj()

    @property
    def H(self):  # noqa: N802 - torch's name
        """The conjugate transpose of a matrix (a 0-d tensor: its conjugate)."""
        if self._data.ndim == 0:
            return self.conj()
        if self._data.ndim != 2:
            extra = (" For batches of matrices, consider using tensor.mH"
                     if self._data.ndim > 2 else "")
            raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                               f"{self._data.ndim}-D tensor.{extra}")
        return self.transpose(0, 1).conj()

    def cfloat(self, *, memory_format=None):
        return self.to(_dtypes().complex64, memory_format=memory_format)

    def cdouble(self, *, memory_format=None):
        return self.to(_dtypes().complex128, memory_format=memory_format)

    def chalf(self, *, memory_format=None):
        return self.to(_dtypes().complex32, memory_format=memory_format)  # raises: see _dtype's Note: complex32

    def adjoint(self):
        if self._data.ndim == 0:
            return self.conj()
        if self._data.ndim < 2:
            raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                               f"matrices. Got {self._data.ndim}-D tensor.")
        return self.mH

    def angle(self):
        return _complex_ops().Angle.apply(self)

    def vdot(self, other):
        from ..ops.linalg import Vdot

        return Vdot.apply(self, other)

    def isreal(self):
        if self._data.dtype.kind != "c":
            return self.new_ones(self.shape, dtype=_bool())
        return self.imag == 0


def _dtypes():
    return _dtype


def _bool():
    return _dtypes().bool
