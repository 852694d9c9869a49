"""What the MKL bit-exactness tests share (tests/ops/test_mkl_bits.py, test_blas_bits.py)."""

from __future__ import annotations

import os

import pytest

import leafgrad
from leafgrad.ops import _mkl


def require_mkl():
    """Turn MKL on; without the mkl package skip with a message, or fail under ``CI=1``."""
    leafgrad.backends.cpu.mkl_vml = True
    if _mkl.available():
        return
    message = "the mkl package is not installed (pip install -e '.[mkl]')"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def one_thread_and_defaults(torch):
    """A fixture body: torch and leafgrad (its MKL: Note: MKL's threads, ops/_mkl.py) on one
    thread; leafgrad's switches back to their defaults."""
    previous = torch.get_num_threads(), leafgrad.get_num_threads()
    torch.set_num_threads(1)
    leafgrad.set_num_threads(1)
    yield
    leafgrad.backends.cpu.mkl_vml = True
    leafgrad.backends.cpu.torch_bits = False
    torch.set_num_threads(previous[0])
    leafgrad.set_num_threads(previous[1])
