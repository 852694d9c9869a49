"""``torch.backends.cudnn``: cuDNN's switches. No cuDNN runs on a CPU-only build:
``is_available()`` is False and the flags are recorded (checked as torch checks them), which
is what reproducibility boilerplate (``cudnn.deterministic = True``) needs."""

from __future__ import annotations

import sys

from . import _module

enabled = True
benchmark = False
benchmark_limit = None  # torch leaves it unset without cuDNN
deterministic = False
allow_tf32 = True
fp32_precision = "none"
conv = _module.FP32Precision("cuda", "conv", "tf32")
rnn = _module.FP32Precision("cuda", "rnn", "tf32")


def is_available() -> bool:
    return False


def version():
    """cuDNN's version: None without cuDNN, as on torch's CPU builds."""
    return None


def is_acceptable(tensor) -> bool:
    return False


_NAMES = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32",
          "fp32_precision")
_depthwise_kernel_choice = ["auto"]  # torch's choice of depthwise convolution kernel


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None,
              _allow_tf32=None, _fp32_precision="none", _depthwise_kernel=None):
    """Set the given flags; returns the previous ones in torch's order. The benchmark limit is
    cuDNN's own (None and left alone without cuDNN, as torch does)."""
    module = sys.modules[__name__]
    previous = (module.enabled, module.benchmark, None, module.deterministic, module.allow_tf32,
                module.fp32_precision, _depthwise_kernel_choice[0])
    for name, value in (("enabled", _enabled), ("benchmark", _benchmark),
                        ("deterministic", _deterministic), ("allow_tf32", _allow_tf32),
                        ("fp32_precision", _fp32_precision)):
        if value is not None:
            setattr(module, name, value)
    if _depthwise_kernel is not None:
        _depthwise_kernel_choice[0] = _depthwise_kernel
    return previous


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    """Within the block, the given flags (torch's defaults for those not given)."""
    return _module.flags_context(
        sys.modules[__name__], _NAMES,
        (enabled, benchmark, None, deterministic, allow_tf32, fp32_precision))


class _CudnnModule(_module.FlagModule):
    CHECKED = {"enabled": "set_enabled_cudnn", "benchmark": "set_benchmark_cudnn",
               "deterministic": "set_deterministic_cudnn",
               # torch 2.13's message for this one names the cuBLAS setter
               "allow_tf32": "set_allow_tf32_cublas"}
    _PRECISION_BACKEND = "cuda"


_module.install(__name__, _CudnnModule)
