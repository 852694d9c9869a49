"""``torch.backends.*`` as importable modules (``import torch.backends.cudnn as cudnn``), their
flags, setters' checks, ``flags()`` contexts and the CPU-only answers, compared with torch."""

from __future__ import annotations

import importlib
import warnings

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


@pytest.fixture(autouse=True)
def _torch_flags_settable():
    """torch.backends' flags settable, as in a fresh script: importing torch's own test
    utilities (an earlier test in the worker may: the OpInfo databases) calls
    torch.backends.disable_global_flags(), after which torch's flag writes raise."""
    with getattr(torch.backends, "__allow_nonbracketed_mutation")():
        yield

MODULES = ["cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "nnpack", "openmp",
           "opt_einsum", "quantized"]


def _outcome(function):
    try:
        value = function()
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]
    if isinstance(value, tuple):
        return tuple(repr(v) for v in value)
    return repr(value)


@pytest.mark.parametrize("name", MODULES)
def test_every_backend_is_an_importable_module(name):
    theirs = importlib.import_module(f"torch.backends.{name}")
    ours = importlib.import_module(f"leafgrad.backends.{name}")
    assert ours is getattr(leafgrad.backends, name)
    assert type(ours).__mro__[-2].__name__ == "module" or isinstance(ours, type(importlib))
    # the functions a script calls exist in both
    for attribute in ("is_available", "is_built", "get_cpu_capability", "version", "flags",
                      "set_flags", "get_fastpath_enabled", "set_fastpath_enabled",
                      "get_opt_einsum", "verbose", "supported_engines", "matmul"):
        assert hasattr(ours, attribute) == hasattr(theirs, attribute), (name, attribute)


# Expressions read from both libraries, in order (settings changed by one are read by the next);
# ``B`` is the library's backends package. Values that describe the build where leafgrad and
# torch differ (openmp, NNPACK, MKL's presence) are not listed.
READS = [
    "B.cudnn.is_available()", "B.cudnn.version()", "B.cudnn.enabled", "B.cudnn.benchmark",
    "B.cudnn.deterministic", "B.cudnn.allow_tf32", "B.cudnn.benchmark_limit",
    "B.cudnn.fp32_precision", "B.cudnn.is_acceptable(lib.ones(2))",
    "B.mps.is_available()", "B.mps.is_built()", "B.mps.is_macos_or_newer(13, 0)",
    "B.cpu.get_cpu_capability()", "B.mkldnn.is_available()", "B.mkldnn.enabled",
    "B.mkldnn.deterministic", "B.mkldnn.allow_tf32", "B.mkldnn.fp32_precision",
    "B.mha.get_fastpath_enabled()", "B.opt_einsum.is_available()", "B.opt_einsum.enabled",
    "B.opt_einsum.strategy", "B.opt_einsum.get_opt_einsum()", "B.quantized.engine",
    "B.quantized.supported_engines", "B.cuda.is_built()", "B.cuda.matmul.allow_tf32",
    "B.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "B.cuda.matmul.allow_bf16_reduced_precision_reduction", "B.cuda.matmul.fp32_precision",
    "B.cuda.matmul.bogus", "B.cuda.flash_sdp_enabled()", "B.cuda.mem_efficient_sdp_enabled()",
    "B.cuda.math_sdp_enabled()", "B.cuda.cudnn_sdp_enabled()",
    "B.cuda.is_flash_attention_available()", "B.cuda.preferred_linalg_library()",
    "B.cuda.preferred_blas_library()", "B.mkl.VERBOSE_ON", "B.mkl.VERBOSE_OFF",
    "B.mkldnn.VERBOSE_ON", "B.mkldnn.VERBOSE_OFF", "B.mkldnn.matmul.fp32_precision",
    "B.mkldnn.conv.fp32_precision", "B.mkldnn.rnn.fp32_precision", "B.cudnn.conv.bogus",
]
# torch derives these from the legacy allow_tf32 flags once those are set (not modelled): they
# are compared before any write
FIRST_READS = ["B.cudnn.conv.fp32_precision", "B.cudnn.rnn.fp32_precision"]

# Assignments, each valid or not; after each, every READ is compared again.
WRITES = [
    ("cudnn", "deterministic", True), ("cudnn", "benchmark", True), ("cudnn", "enabled", False),
    ("cudnn", "allow_tf32", False), ("cudnn", "benchmark_limit", 3),
    ("mkldnn", "enabled", False), ("mkldnn", "deterministic", True),
    ("mkldnn", "allow_tf32", True), ("opt_einsum", "strategy", "greedy"),
    ("quantized", "engine", "fbgemm"), ("quantized", "engine", "x"),
    ("quantized", "engine", None), ("cudnn.conv", "bogus", "ieee"),
] + [(module, flag, bad) for module, flag in (
    ("cudnn", "deterministic"), ("cudnn", "benchmark"), ("cudnn", "enabled"),
    ("cudnn", "allow_tf32"), ("mkldnn", "enabled"), ("mkldnn", "deterministic"),
    ("mkldnn", "allow_tf32")) for bad in (1, 0, None, "True")]

# torch's fp32_precision settings form a hierarchy (a backend's "all" sets its ops'; not
# modelled): only each assignment's outcome is compared, after the reads above
PRECISION_WRITES = [
    ("cudnn", "ieee"), ("cudnn", "x"), ("cudnn", 2), ("mkldnn", "bf16"), ("mkldnn", None),
    ("mkldnn.matmul", "bf16"), ("mkldnn.conv", "x"), ("mkldnn.rnn", 3), ("cudnn.conv", "ieee"),
    ("cudnn.rnn", None), ("cuda.matmul", "tf32"), ("cuda.matmul", "bogus"),
    ("cuda.matmul", None),
]

MATMUL_WRITES = [
    ("allow_tf32", True), ("allow_tf32", False), ("allow_tf32", 1), ("allow_tf32", "x"),
    ("allow_fp16_reduced_precision_reduction", False),
    ("allow_fp16_reduced_precision_reduction", (True, False)),
    ("allow_fp16_reduced_precision_reduction", [False]),
    ("allow_fp16_reduced_precision_reduction", ()),
    ("allow_fp16_reduced_precision_reduction", (True, True, True)),
    ("allow_fp16_reduced_precision_reduction", (1,)),
    ("allow_bf16_reduced_precision_reduction", "yes"),
    ("allow_bf16_reduced_precision_reduction", False), ("bogus", True),
]

CALLS = [
    "B.cuda.enable_flash_sdp(False)", "B.cuda.enable_math_sdp(1)",
    "B.cuda.enable_mem_efficient_sdp(False)", "B.cuda.enable_cudnn_sdp(False)",
    "B.cuda.enable_flash_sdp(True)", "B.cuda.enable_mem_efficient_sdp(True)",
    "B.cuda.enable_cudnn_sdp(True)", "B.cuda.preferred_linalg_library('magma')",
    "B.cuda.preferred_linalg_library('cusolver')", "B.cuda.preferred_linalg_library(3)",
    "B.cuda.preferred_linalg_library('bogus')", "B.cuda.preferred_linalg_library('default')",
    "B.cuda.preferred_blas_library('cublaslt')", "B.cuda.preferred_blas_library('x')",
    "B.cuda.preferred_blas_library(2)", "B.cuda.preferred_blas_library('cublas')",
    "B.cuda.preferred_blas_library()",
    "B.mha.set_fastpath_enabled(False)", "B.mha.get_fastpath_enabled()",
    "B.mha.set_fastpath_enabled(True)",
    "B.cudnn.set_flags(True, False, None, True)", "B.cudnn.set_flags(_deterministic=False)",
    "B.mkldnn.set_flags(False)", "B.mkldnn.set_flags(True)",
    "B.nnpack.set_flags(False)", "B.nnpack.set_flags(True)", "B.nnpack.set_flags(1)",
    "B.opt_einsum.set_flags(False)", "B.opt_einsum.set_flags(True)",
    "B.opt_einsum.set_flags(None, 'greedy')", "B.opt_einsum.enabled",
]


def _owner(lib, dotted):
    owner = lib.backends
    for part in dotted.split("."):
        owner = getattr(owner, part)
    return owner


def _snapshot(lib, reads=READS):
    namespace = {"B": lib.backends, "lib": lib}
    return [_outcome(lambda code=code: eval(code, namespace)) for code in reads]  # noqa: S307


class _Restore:
    """Put both libraries' backend settings back after a test."""

    NAMES = {"cudnn": ("enabled", "benchmark", "deterministic", "allow_tf32", "benchmark_limit",
                       "fp32_precision"),
             "mkldnn": ("enabled", "deterministic", "allow_tf32", "fp32_precision"),
             "opt_einsum": ("enabled", "strategy"), "quantized": ("engine",)}

    def __enter__(self):
        self.saved = []
        for lib in (torch, leafgrad):
            for module, names in self.NAMES.items():
                backend = getattr(lib.backends, module)
                for name in names:
                    self.saved.append((backend, name, getattr(backend, name)))
            for dotted in ("mkldnn.matmul", "mkldnn.conv", "mkldnn.rnn", "cudnn.conv",
                           "cudnn.rnn"):
                owner = _owner(lib, dotted)
                self.saved.append((owner, "fp32_precision", owner.fp32_precision))
            matmul = lib.backends.cuda.matmul
            for name in ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                         "allow_bf16_reduced_precision_reduction"):
                self.saved.append((matmul, name, getattr(matmul, name)))
        self.precisions = (torch.get_float32_matmul_precision(),
                           leafgrad.get_float32_matmul_precision())
        return self

    def __exit__(self, *exc):
        for owner, name, value in self.saved:
            try:
                setattr(owner, name, value)
            except (RuntimeError, TypeError):  # e.g. mkldnn.allow_tf32's None
                pass
        for lib in (torch, leafgrad):
            lib.backends.cuda.matmul.fp32_precision = "ieee" if lib is torch else "none"
            for backend in ("flash", "math", "mem_efficient", "cudnn"):
                getattr(lib.backends.cuda, f"enable_{backend}_sdp")(True)
            lib.backends.mha.set_fastpath_enabled(True)
        torch.set_float32_matmul_precision(self.precisions[0])
        leafgrad.set_float32_matmul_precision(self.precisions[1])
        return False


def test_reads_writes_and_calls_match_torch():
    with _Restore():
        assert _snapshot(leafgrad, FIRST_READS) == _snapshot(torch, FIRST_READS)
        assert _snapshot(leafgrad) == _snapshot(torch)
        for module, flag, value in WRITES:
            outcomes = [_outcome(lambda lib=lib: setattr(_owner(lib, module), flag, value))
                        for lib in (torch, leafgrad)]
            assert outcomes[0] == outcomes[1], (module, flag, value)
            assert _snapshot(leafgrad) == _snapshot(torch), (module, flag, value)
        for flag, value in MATMUL_WRITES:
            outcomes = [_outcome(lambda lib=lib: setattr(lib.backends.cuda.matmul, flag, value))
                        for lib in (torch, leafgrad)]
            assert outcomes[0] == outcomes[1], (flag, value)
            assert _snapshot(leafgrad) == _snapshot(torch), (flag, value)
        for code in CALLS:
            outcomes = [_outcome(lambda lib=lib: eval(code, {"B": lib.backends}))  # noqa: S307
                        for lib in (torch, leafgrad)]
            assert outcomes[0] == outcomes[1], code
        for dotted, value in PRECISION_WRITES:
            outcomes = [_outcome(lambda lib=lib: setattr(_owner(lib, dotted), "fp32_precision",
                                                         value)) for lib in (torch, leafgrad)]
            assert outcomes[0] == outcomes[1], (dotted, value)


def test_flags_contexts_set_and_restore():
    with _Restore():
        for lib in (torch, leafgrad):
            lib.backends.cudnn.deterministic = True
        seen = []
        for lib in (torch, leafgrad):
            cudnn, mkldnn, nnpack = lib.backends.cudnn, lib.backends.mkldnn, lib.backends.nnpack
            record = []
            with cudnn.flags(enabled=False, benchmark=True):
                record.append((cudnn.enabled, cudnn.benchmark, cudnn.deterministic))
            record.append((cudnn.enabled, cudnn.benchmark, cudnn.deterministic))
            with mkldnn.flags(enabled=False):
                record.append((mkldnn.enabled, mkldnn.deterministic))
            record.append((mkldnn.enabled, mkldnn.deterministic))
            with nnpack.flags(enabled=True):
                record.append(nnpack.set_flags(True))
            record.append(nnpack.set_flags(True))
            try:
                with cudnn.flags(deterministic=False):
                    raise KeyError("inside")
            except KeyError:
                record.append(cudnn.deterministic)
            seen.append(record)
        assert seen[0] == seen[1]


def test_sdp_switches_are_the_attention_backends_choice():
    seen = []
    for lib in (torch, leafgrad):
        attention = lib.nn.attention
        record = []
        with attention.sdpa_kernel([attention.SDPBackend.MATH]):
            record.append([lib.backends.cuda.flash_sdp_enabled(),
                           lib.backends.cuda.math_sdp_enabled(),
                           lib.backends.cuda.mem_efficient_sdp_enabled()])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False):
                record.append([lib.backends.cuda.flash_sdp_enabled(),
                               lib.backends.cuda.math_sdp_enabled(),
                               lib.backends.cuda.cudnn_sdp_enabled()])
        record.append([(w.category.__name__, str(w.message)) for w in caught])
        record.append(lib.backends.cuda.flash_sdp_enabled())
        seen.append(record)
    assert seen[0] == seen[1]
    assert leafgrad.backends.cuda.SDPBackend is leafgrad.nn.attention.SDPBackend


def test_matmul_allow_tf32_is_the_float32_matmul_precision():
    with _Restore():
        seen = []
        for lib in (torch, leafgrad):
            record = []
            for precision in ("highest", "high", "medium", "highest"):
                lib.set_float32_matmul_precision(precision)
                record.append(lib.backends.cuda.matmul.allow_tf32)
            seen.append(record)
        assert seen[0] == seen[1]
