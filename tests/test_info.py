"""Constants, finfo/iinfo and the global switches of ``leafgrad._info``, against torch."""

from __future__ import annotations

import math
import warnings

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _outcome(lib, code: str):
    namespace = {"lib": lib}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = eval(code, namespace)  # noqa: S307 - the cases below
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            value = (type(error).__name__, str(error).splitlines()[0])
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        value = ("tensor", str(value.dtype).split(".")[-1], value.tolist())
    elif isinstance(value, float) and math.isnan(value):
        value = "nan"
    return value, [str(w.message).split(" (Triggered")[0] for w in caught]


@pytest.mark.parametrize("name", ["pi", "e", "inf", "nan", "newaxis"])
def test_constants(name):
    ours, theirs = getattr(leafgrad, name), getattr(torch, name)
    assert type(ours) is type(theirs)
    assert repr(ours) == repr(theirs)


# Python's number types stand for dtypes too (float is float64 whatever the default), and a
# complex dtype's finfo is its real part's (seen in a PINN script: finfo(float).eps).
DTYPE_ARGUMENTS = [f"lib.{dtype}" for dtype in DTYPES + ["complex64", "complex128"]] + [
    "float", "int", "bool", "complex"]


@pytest.mark.parametrize("dtype", DTYPE_ARGUMENTS)
def test_finfo_iinfo_every_dtype(dtype):
    for info in ("finfo", "iinfo"):
        code = f"lib.{info}({dtype})"
        ours, theirs = _outcome(leafgrad, code), _outcome(torch, code)
        if isinstance(theirs[0], tuple):
            assert ours == theirs
            continue
        assert repr(ours[0]) == repr(theirs[0])
        fields = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")
        for field in fields:
            if hasattr(theirs[0], field):
                mine, reference = getattr(ours[0], field), getattr(theirs[0], field)
                assert type(mine) is type(reference) and mine == reference, field


FINFO_CASES = [
    "repr(lib.finfo())", "lib.finfo(1)", "lib.iinfo()", "lib.finfo(lib.float32) == "
    "lib.finfo(lib.float32)", "lib.finfo(lib.float32) == lib.finfo(lib.float64)",
    "lib.finfo(lib.float32).eps == lib.finfo().eps", "lib.iinfo('int8')",
    "lib.finfo(None)", "lib.iinfo(None)", "repr(lib.finfo(type=float))",
    "repr(lib.iinfo(type=int))", "lib.finfo(type=int)", "lib.iinfo(type=bool)",
    "lib.finfo(float) == lib.finfo(lib.float64)", "lib.finfo(range)", "lib.iinfo(object)",
]


@pytest.mark.parametrize("code", FINFO_CASES)
def test_finfo_call_forms(code):
    assert _outcome(leafgrad, code) == _outcome(torch, code)


def test_finfo_follows_default_dtype():
    for lib in (leafgrad, torch):
        lib.set_default_dtype(lib.float64)
        try:
            assert lib.finfo().dtype == "float64"
        finally:
            lib.set_default_dtype(lib.float32)


SETTING_SEQUENCES = [
    ["lib.set_num_threads(0)", "lib.set_num_threads(-1)", "lib.set_num_threads(1.5)",
     "lib.set_num_threads('a')", "lib.set_num_threads(True)", "lib.set_num_threads(3)",
     "lib.get_num_threads()", "lib.set_num_threads(1)", "lib.get_num_threads()"],
    ["lib.set_num_interop_threads(0)", "lib.set_num_interop_threads(1.0)"],
    ["lib.use_deterministic_algorithms(True)", "lib.are_deterministic_algorithms_enabled()",
     "lib.get_deterministic_debug_mode()", "lib.is_deterministic_algorithms_warn_only_enabled()",
     "lib.use_deterministic_algorithms(True, warn_only=True)",
     "lib.is_deterministic_algorithms_warn_only_enabled()", "lib.get_deterministic_debug_mode()",
     "lib.use_deterministic_algorithms(1)", "lib.use_deterministic_algorithms(True, warn_only=1)",
     "lib.use_deterministic_algorithms(False)", "lib.get_deterministic_debug_mode()",
     "lib.is_deterministic_algorithms_warn_only_enabled()",
     "lib.set_deterministic_debug_mode('warn')", "lib.get_deterministic_debug_mode()",
     "lib.are_deterministic_algorithms_enabled()",
     "lib.is_deterministic_algorithms_warn_only_enabled()",
     "lib.set_deterministic_debug_mode('error')", "lib.get_deterministic_debug_mode()",
     "lib.set_deterministic_debug_mode('x')", "lib.set_deterministic_debug_mode(3)",
     "lib.set_deterministic_debug_mode(1.0)", "lib.set_deterministic_debug_mode(1)",
     "lib.get_deterministic_debug_mode()", "lib.set_deterministic_debug_mode('default')",
     "lib.are_deterministic_algorithms_enabled()", "lib.set_deterministic_debug_mode(0)"],
    ["lib.get_float32_matmul_precision()", "lib.set_float32_matmul_precision('high')",
     "lib.get_float32_matmul_precision()", "lib.set_float32_matmul_precision('low')",
     "lib.get_float32_matmul_precision()", "lib.set_float32_matmul_precision(1)",
     "lib.set_float32_matmul_precision('medium')", "lib.get_float32_matmul_precision()",
     "lib.set_float32_matmul_precision('highest')"],
    ["lib.is_warn_always_enabled()", "lib.set_warn_always(True)", "lib.is_warn_always_enabled()",
     "lib.set_warn_always(1)", "lib.set_warn_always(False)", "lib.is_warn_always_enabled()"],
    ["lib.set_flush_denormal(True)", "lib.set_flush_denormal(1)", "lib.set_flush_denormal(False)"],
]


@pytest.mark.parametrize("sequence", SETTING_SEQUENCES, ids=lambda s: s[0].split("(")[0])
def test_settings_sequences(sequence):
    threads = torch.get_num_threads(), leafgrad.get_num_threads()
    try:
        ours = [_outcome(leafgrad, code) for code in sequence]
        theirs = [_outcome(torch, code) for code in sequence]
    finally:
        torch.set_num_threads(threads[0])
        leafgrad.set_num_threads(threads[1])
    assert ours == theirs


def test_set_num_threads_limits_blas():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = leafgrad.get_num_threads()
    try:
        leafgrad.set_num_threads(1)
        pools = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
        assert pools and all(p["num_threads"] == 1 for p in pools)
    finally:
        leafgrad.set_num_threads(before)


TYPE_CASES = [
    "lib.typename(lib.zeros(1))", "lib.typename(1)", "lib.typename('a')", "lib.typename(None)",
    "lib.typename(int)", "lib.typename(len)", "lib.typename(lib.float32)",
    "lib.is_complex(lib.zeros(1))", "lib.is_complex(1)", "lib.is_complex(input=lib.zeros(1))",
    "lib.is_signed(1)", "lib.zeros(1).is_complex()",
] + [f"lib.typename(lib.zeros(1, dtype=lib.{d}))" for d in DTYPES] + [
    f"lib.is_signed(lib.zeros(1, dtype=lib.{d}))" for d in DTYPES] + [
    f"lib.zeros(1, dtype=lib.{d}).is_signed()" for d in DTYPES] + [
    f"lib.is_complex(lib.zeros(1, dtype=lib.{d}))" for d in DTYPES]


@pytest.mark.parametrize("code", TYPE_CASES)
def test_type_questions(code):
    assert _outcome(leafgrad, code) == _outcome(torch, code)


@pytest.mark.parametrize("name", ["has_lapack", "has_mkl", "has_openmp", "has_spectral"])
def test_build_flags_are_bools(name):
    assert type(getattr(leafgrad, name)) is bool
    assert name in dir(torch)
