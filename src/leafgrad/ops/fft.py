"""The three discrete Fourier transform primitives torch.fft is built from (aten's ``_fft_r2c``,
``_fft_c2r`` and ``_fft_c2c``), computed with numpy.fft.

Each takes ``dim`` (a tuple of wrapped dims, in the order given) and ``normalization``, torch's
``fft_norm_mode``: 0 none, 1 divide by sqrt(n), 2 divide by n, where n is the product of the
signal sizes over ``dim`` (for c2r: the output's). The direction is the op's own (r2c forward,
c2r inverse, c2c by its ``forward`` flag); torch.fft's ``norm=`` strings are turned into a mode
by leafgrad/fft.py.

Note: fft precision. numpy.fft computes complex64 in single precision; these ops compute every
transform in double precision and round the result to the result's dtype once (torch's MKL
float transforms agree with that to a few ulps).

Note: fft layout. torch's CPU transforms permute the batch dims (those not transformed) in
front, ordered by the input's strides (largest first; ties keep dim order), followed by the
transformed dims (c2c: sorted by stride too; r2c: all but the halved last one), and allocate
the result contiguous in that order. The results here have the same strides.

Backward formulas are derivatives.yaml's: c2c's is the c2c transform the other way with the
same normalization (the adjoint); r2c's pads a one-sided gradient with zeros to the full
length, takes the inverse c2c and keeps the real part; c2r's is the one-sided r2c of the
gradient with the bins that stand for two conjugate entries doubled. All three are linear, so
their forward-mode formula is the op applied to the tangent.
"""

from __future__ import annotations

import numpy as np

from . import _batching_rules as batch
from ._forward import auto_linear
from .complex import real_part
from .norm import ConstantPadNd
from .registry import Op, register

__all__ = ["FftR2C", "FftC2R", "FftC2C"]

# numpy's norm names for (torch normalization mode, forward direction)
_NUMPY_NORM = {
    (0, True): "backward", (1, True): "ortho", (2, True): "forward",
    (0, False): "forward", (1, False): "ortho", (2, False): "backward",
}
_WIDE = {np.dtype(np.float32): np.float64, np.dtype(np.float64): np.float64,
         np.dtype(np.complex64): np.complex128, np.dtype(np.complex128): np.complex128}


def _order(a: np.ndarray, dims: tuple, sort_count: int) -> list:
    """torch's dim permutation (Note: fft layout): batch dims by stride, then ``dims`` with
    their first ``sort_count`` sorted by stride."""
    strides = a.strides
    transformed = set(dims)
    batch_dims = sorted((d for d in range(a.ndim) if d not in transformed),
                        key=lambda d: -strides[d])
    head = sorted(dims[:sort_count], key=lambda d: -strides[d])
    return batch_dims + head + list(dims[sort_count:])


def _lay_out(result: np.ndarray, order: list, dtype) -> np.ndarray:
    """``result`` rounded to ``dtype`` and laid out contiguously in ``order`` (a view of it in
    the logical dim order)."""
    packed = np.ascontiguousarray(result.transpose(order), dtype=dtype)
    return packed.transpose(np.argsort(order))


def _zero_pad_last(grad, dim: int, size: int):
    """``grad`` extended with zeros to ``size`` entries along ``dim`` (at the end)."""
    missing = size - grad.shape[dim]
    if missing <= 0:
        return grad
    pad = [0] * (2 * (grad.ndim - dim))
    pad[-1] = missing
    return ConstantPadNd.apply(grad, pad=tuple(pad), value=0)


@register
class FftC2C(Op):
    """``_fft_c2c(self, dim, normalization, forward)``: complex to complex over ``dim``."""

    node = "FftC2CBackward0"
    complex_ok = True
    vmap = batch.dims("dim")
    torch_names = ("fft.fft", "fft.ifft", "fft.fft2", "fft.ifft2", "fft.fftn", "fft.ifftn")

    @staticmethod
    def forward(ctx, a, dim, normalization, forward):
        if not dim:
            return a.copy(order="K")  # torch: a clone
        order = _order(a, dim, len(dim))
        wide = a.astype(_WIDE[a.dtype], copy=False)
        transform = np.fft.fftn if forward else np.fft.ifftn
        result = transform(wide, axes=dim, norm=_NUMPY_NORM[normalization, forward])
        return _lay_out(result, order, a.dtype)

    def backward(self, grad):
        p = self._params
        return FftC2C.apply(grad, dim=p["dim"], normalization=p["normalization"],
                            forward=not p["forward"])

    jvp = auto_linear


@register
class FftR2C(Op):
    """``_fft_r2c(self, dim, normalization, onesided)``: real to complex, forward direction;
    ``onesided`` keeps the first n // 2 + 1 bins of the last dim (the rest are conjugates)."""

    node = "FftR2CBackward0"
    complex_ok = True
    vmap = batch.dims("dim")
    torch_names = ("fft.fft", "fft.ifft", "fft.rfft", "fft.ihfft", "fft.rfft2", "fft.rfftn",
                   "fft.ihfft2", "fft.ihfftn")

    @staticmethod
    def forward(ctx, a, dim, normalization, onesided):
        order = _order(a, dim, len(dim) - 1)
        wide = a.astype(_WIDE[a.dtype], copy=False)
        norm = _NUMPY_NORM[normalization, True]
        if onesided:
            result = np.fft.rfftn(wide, axes=dim, norm=norm)
        else:
            result = np.fft.fftn(wide, axes=dim, norm=norm)
        return _lay_out(result, order, np.result_type(a.dtype, np.complex64))

    def backward(self, grad):
        p = self._params
        dim = p["dim"]
        if p["onesided"]:
            grad = _zero_pad_last(grad, dim[-1], self.input_shape(0)[dim[-1]])
        full = FftC2C.apply(grad, dim=dim, normalization=p["normalization"], forward=False)
        return real_part(full)

    jvp = auto_linear


@register
class FftC2R(Op):
    """``_fft_c2r(self, dim, normalization, last_dim_size)``: a one-sided Hermitian spectrum to
    its real signal (inverse direction); the last dim of the result has ``last_dim_size``
    entries and the input's last dim has last_dim_size // 2 + 1."""

    node = "FftC2RBackward0"
    complex_ok = True
    vmap = batch.dims("dim")
    torch_names = ("fft.irfft", "fft.hfft", "fft.irfft2", "fft.irfftn", "fft.hfft2",
                   "fft.hfftn")

    @staticmethod
    def forward(ctx, a, dim, normalization, last_dim_size):
        real_dtype = a.real.dtype
        norm = _NUMPY_NORM[normalization, False]
        wide = a.astype(_WIDE[a.dtype], copy=False)
        if len(dim) > 1:  # torch: a c2c over the leading dims, then a one-dim c2r
            head = dim[:-1]
            order = _order(a, head, len(head))
            wide = _lay_out(np.fft.ifftn(wide, axes=head, norm=norm), order, wide.dtype)
        last = dim[-1]
        order = _order(wide, (last,), 1)
        result = np.fft.irfft(wide, n=last_dim_size, axis=last, norm=norm)
        return _lay_out(result, order, real_dtype)

    def backward(self, grad):
        p = self._params
        dim = p["dim"]
        last = dim[-1]
        result = FftR2C.apply(grad, dim=dim, normalization=p["normalization"], onesided=True)
        # bins 1 .. n - (n // 2 + 1) stand for two entries of the full spectrum each
        doubled = grad.shape[last] - result.shape[last]
        if doubled > 0:  # in place on a slice, as torch (a CopySlices node under create_graph)
            result.narrow(last, 1, doubled).mul_(2)
        return result

    jvp = auto_linear
