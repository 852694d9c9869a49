"""``leafgrad.cuda.amp``: torch's deprecated CUDA spellings of ``torch.amp``.

Scripts written before torch 2.4 (nanoGPT's ``torch.cuda.amp.GradScaler(enabled=...)``) still
use them; torch keeps them with a FutureWarning naming the ``torch.amp`` form, and so does
leafgrad. Without CUDA, an enabled scaler or autocast region disables itself as torch's does.
"""

from __future__ import annotations

import functools
import warnings

from .. import _dtype
from .. import amp as _amp
from .. import cuda as _cuda

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd", "GradScaler"]


def amp_definitely_not_available() -> bool:
    return not _cuda.is_available()


class GradScaler(_amp.GradScaler):
    """``torch.amp.GradScaler("cuda", ...)`` under its old name."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


class autocast(_amp.autocast):
    """``torch.amp.autocast("cuda", ...)`` under its old name (disabled: there is no CUDA)."""

    def __init__(self, enabled: bool = True, dtype=_dtype.float16, cache_enabled: bool = True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_amp.custom_bwd, device_type="cuda")(bwd)
