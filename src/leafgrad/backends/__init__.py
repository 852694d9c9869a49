"""``leafgrad.backends``: the flags torch code reads, with a CPU-only build's values."""

from __future__ import annotations

from types import SimpleNamespace


class _Flags(SimpleNamespace):
    """A backend's settings: attributes a script may read or set; availability is fixed."""


def _unavailable() -> bool:
    return False


cudnn = _Flags(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
               is_available=_unavailable, version=lambda: None)
mps = _Flags(is_available=_unavailable, is_built=_unavailable)
cuda = _Flags(matmul=_Flags(allow_tf32=False, allow_fp16_reduced_precision_reduction=True),
              is_built=_unavailable)
mkldnn = _Flags(enabled=True, is_available=lambda: True)
openmp = _Flags(is_available=lambda: False)
def _mkl_available() -> bool:
    from ..ops import _mkl

    return _mkl.available()


mkl = _Flags(is_available=_mkl_available)
# leafgrad's own switch (not torch's): True makes float32 sigmoid, silu and pow replay torch's
# SLEEF vector kernels operation by operation, for bit-identical results at 20-100x the cost
# (ops/_float_kernels.py, docs/float32-bits.md), and float32/float16 layer_norm and group_norm
# replay ATen's RowwiseMoments (ops/_norm_kernels.py, 2-10x the cost); mkl_vml: call Intel
# MKL's vector math functions where torch does, when the optional ``mkl`` package is
# installed (ops/_mkl.py)
cpu = _Flags(torch_bits=False, mkl_vml=True)

__all__ = ["cudnn", "mps", "cuda", "mkldnn", "openmp", "mkl", "cpu"]
