"""``torch.backends.quantized``: the quantized engine's name (leafgrad has no quantized
tensors; the choice is recorded and checked as torch checks it)."""

from __future__ import annotations

import sys
import types

supported_engines = ["qnnpack", "onednn", "x86", "fbgemm"]


class _QuantizedModule(types.ModuleType):
    def __setattr__(self, name, value):
        if name == "engine" and value not in supported_engines:
            if value is None:
                raise RuntimeError("quantized engine NoQEngine is not supported")
            raise RuntimeError(f"{value} is not a valid value for quantized engine")
        super().__setattr__(name, value)


engine = "x86"
sys.modules[__name__].__class__ = _QuantizedModule
