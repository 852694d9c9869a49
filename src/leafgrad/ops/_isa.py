"""The vector width of torch's CPU kernels on this machine (ATen's CPU capability).

torch 2.13's x86 wheel carries each vectorised kernel three times (DEFAULT, AVX2, AVX512) and
runs the widest one the processor supports (AVX-512 needs the F, BW, VL and DQ extensions, as
ATen's cpuinfo check asks; ``ATEN_CPU_CAPABILITY`` overrides it). The width decides which
elements a ``cpu_kernel_vec`` loop leaves to its scalar op (those after the last pair of full
vectors) and how many lanes a vectorised reduction keeps, so the replays of those kernels
(ops/_float_kernels.py, ops/_sleef_unary.py) take it from here: 64-byte vectors under AVX512,
32-byte ones otherwise (AVX2, and the DEFAULT build's generic ``Vectorized``).
"""

from __future__ import annotations

import os
import platform

__all__ = ["CAPABILITY", "ONEDNN_AVX2", "ONEDNN_AVX512", "ONEDNN_BF16", "VECTOR_BYTES", "lanes", "pair"]


def _features() -> dict:
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy 1.x
        try:
            from numpy.core._multiarray_umath import __cpu_features__ as features
        except ImportError:
            return {}
    return features


def _capability() -> str:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "default"
    requested = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if requested in ("default", "avx2", "avx512"):
        return requested
    features = _features()
    if all(features.get(name) for name in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")):
        return "avx512"
    if features.get("AVX2") and features.get("FMA3"):
        return "avx2"
    return "default"


CAPABILITY = _capability()
VECTOR_BYTES = 64 if CAPABILITY == "avx512" else 32


def _onednn_bf16() -> bool:
    """ATen's ``mkldnn_bf16_device_check``: x86 with AVX-512 BW, VL and DQ (the processor's,
    whatever ``ATEN_CPU_CAPABILITY`` says). Where it holds, torch hands bfloat16 matrix
    products of more than 16 * 16 * 16 multiply-adds to oneDNN (one float32 accumulation,
    rounded once) instead of its own loops."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    features = _features()
    return all(features.get(name) for name in ("AVX512BW", "AVX512VL", "AVX512DQ"))


ONEDNN_BF16 = _onednn_bf16()


def _onednn_avx2() -> bool:
    """Whether oneDNN (which picks its own instruction set from the processor, whatever
    ``ATEN_CPU_CAPABILITY`` says) runs its AVX2 code here: x86 with AVX2 and FMA, without
    AVX-512 (F, BW, VL, DQ: its avx512_core)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    features = _features()
    if all(features.get(name) for name in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")):
        return False
    return bool(features.get("AVX2") and features.get("FMA3"))


ONEDNN_AVX2 = _onednn_avx2()


def _onednn_avx512() -> bool:
    """Whether oneDNN runs its avx512_core code here: x86 with AVX-512 F, BW, VL and DQ."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    features = _features()
    return all(features.get(name) for name in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ"))


ONEDNN_AVX512 = _onednn_avx512()
ONEDNN_MIN_PRODUCTS = 16 * 16 * 16  # Blas.cpp's mkldnn_gemm_min_size (checksize: more than)


def lanes(itemsize: int) -> int:
    """Elements of one ``Vectorized`` of items of ``itemsize`` bytes."""
    return VECTOR_BYTES // itemsize


def pair(itemsize: int) -> int:
    """Elements of the two vectors ``vectorized_loop`` (ATen's Loops.h) takes per step."""
    return 2 * VECTOR_BYTES // itemsize
