"""``torch.backends.openmp``: leafgrad links no OpenMP (NumPy's BLAS has its own threads)."""

from __future__ import annotations


def is_available() -> bool:
    return False
