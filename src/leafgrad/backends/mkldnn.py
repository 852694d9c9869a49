"""``torch.backends.mkldnn``: oneDNN's switches. leafgrad replays oneDNN's arithmetic where
torch's CPU kernels call it (ops/_isa.py), so ``is_available()`` is True; the flags are
recorded and checked as torch checks them."""

from __future__ import annotations

import sys
import warnings

from . import _module

enabled = True
deterministic = False
allow_tf32 = None
fp32_precision = "none"
matmul = _module.FP32Precision("mkldnn", "matmul", "none")
conv = _module.FP32Precision("mkldnn", "conv", "none")
rnn = _module.FP32Precision("mkldnn", "rnn", "none")
VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2


def is_available() -> bool:
    return True


class verbose:  # noqa: N801 - torch's name
    """oneDNN's verbose mode as a context manager (leafgrad has no oneDNN log to switch on)."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NAMES = ("enabled", "deterministic", "allow_tf32", "fp32_precision")


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    module = sys.modules[__name__]
    previous = tuple(getattr(module, name) for name in _NAMES)
    for name, value in zip(_NAMES, (_enabled, _deterministic, _allow_tf32, _fp32_precision)):
        if value is not None:
            setattr(module, name, value)
    return previous


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    return _module.flags_context(sys.modules[__name__], _NAMES,
                                 (enabled, deterministic, allow_tf32, fp32_precision))


class _MkldnnModule(_module.FlagModule):
    CHECKED = {"enabled": "set_enabled_mkldnn", "deterministic": "set_deterministic_mkldnn",
               "allow_tf32": "_set_onednn_allow_tf32"}
    _PRECISION_BACKEND = "generic"

    def __setattr__(self, name, value):
        if name == "allow_tf32":  # TF32 on oneDNN is an Intel-GPU feature: refused, stays None
            _module.check_bool(self.CHECKED[name], value)
            warnings.warn("TF32 acceleration on top of oneDNN is available for Intel GPUs. The "
                          "current Torch version does not have Intel GPU Support.", UserWarning,
                          stacklevel=2)
            return
        super().__setattr__(name, value)


_module.install(__name__, _MkldnnModule)
