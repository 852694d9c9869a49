"""``F.interpolate`` and the deprecated ``F.upsample*`` forms: torch's argument checks in
torch's order, then the upsampling op of the mode and number of spatial dims
(``_upsample_ops.py``) or adaptive average pooling for ``mode="area"``."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ..ops.elementwise import _legacy_name
from ._upsample_ops import UPSAMPLE

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = ("nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact")
_WRONG_DIMS = {("bilinear", 3): 4, ("trilinear", 3): 5, ("linear", 4): 3, ("trilinear", 4): 5,
               ("linear", 5): 3, ("bilinear", 5): 4}
# the ATen op of each mode and its kernel's name in "not implemented for" errors
_ATEN = {"nearest": ("upsample_nearest{}d", "compute_indices_weights_nearest"),
         "nearest-exact": ("_upsample_nearest_exact{}d", "compute_indices_weights_nearest"),
         "linear": ("upsample_linear1d", "compute_indices_weights_linear"),
         "bilinear": ("upsample_bilinear2d", "compute_indices_weights_linear"),
         "trilinear": ("upsample_trilinear3d", "compute_indices_weights_linear"),
         "bicubic": ("upsample_bicubic2d", "compute_indices_weights_cubic"),
         "bilinear_aa": ("_upsample_bilinear2d_aa", "compute_index_ranges_weights"),
         "bicubic_aa": ("_upsample_bicubic2d_aa", "compute_index_ranges_weights")}
_DIM_NAMES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _is_integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) or (
        hasattr(value, "dim") and value.dim() == 0 and not value.dtype.is_floating_point)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize ``input`` (N, C, *spatial) to ``size`` or by ``scale_factor``.

    >>> F.interpolate(torch.ones(1, 1, 2), scale_factor=2, mode="linear").shape
    torch.Size([1, 1, 4])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                    "size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    "Tuple[int, int, int], but got size with types "
                    f"{[type(x) for x in size]}")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {spatial} and scale_factor of "
                    f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, "
                    "...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias and mode == "lanczos":
        raise NotImplementedError(
            "leafgrad: interpolate(mode='lanczos', antialias=True) is not implemented")
    if mode == "area" and 3 <= input.dim() <= 5:
        from . import functional as F

        pool = {3: F.adaptive_avg_pool1d, 4: F.adaptive_avg_pool2d,
                5: getattr(F, "adaptive_avg_pool3d", None)}[input.dim()]
        if pool is None:
            raise NotImplementedError("leafgrad: interpolate(mode='area') of 5-D input needs "
                                      "adaptive_avg_pool3d, which is not implemented")
        return pool(input, output_size)
    if (mode, dim) in {(m, d) for m, dims in
                       (("nearest", (1, 2, 3)), ("nearest-exact", (1, 2, 3)), ("linear", (1,)),
                        ("bilinear", (2,)), ("bicubic", (2,)), ("trilinear", (3,)))
                       for d in dims}:
        return _upsample(input, mode + "_aa" if antialias else mode, dim, output_size,
                         scale_factors, align_corners)
    if (mode, input.dim()) in _WRONG_DIMS:
        raise NotImplementedError(
            f"Got {input.dim()}D input, but {mode} mode needs {_WRONG_DIMS[mode, input.dim()]}D "
            "input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
        f"modes: {_MODES} (got {mode})")


def _upsample(input, mode: str, dim: int, output_size, scale_factors, align_corners):
    """The ATen op's own checks (sizes, then emptiness, then dtype), then the op."""
    aten, kernel = _ATEN[mode]
    aten = aten.format(dim)
    if output_size is not None and not all(_is_integer(s) for s in output_size):
        kinds = ["Tensor", "list"] + (["bool"] if "nearest" not in mode else []) + ["NoneType"]
        raise TypeError(f"{aten}() received an invalid combination of arguments - got "
                        f"({', '.join(kinds)}), but expected one of:")
    spatial = list(input.shape[2:])
    if output_size is None:
        for factor in scale_factors:
            if not isinstance(factor, numbers.Real) or isinstance(factor, bool):
                kinds = ["Tensor", "NoneType"] + (["bool"] if "nearest" not in mode else []) \
                    + ["list"]
                raise TypeError(f"{aten}() received an invalid combination of arguments - got "
                                f"({', '.join(kinds)}), but expected one of:")
        output_size = [_output_size(n, s) for n, s in zip(spatial, scale_factors)]
        scales = tuple(float(s) for s in scale_factors)
    else:
        output_size = [int(s) for s in output_size]
        scales = None
    if min(spatial) <= 0 or min(output_size) <= 0:
        names = _DIM_NAMES[dim]
        given = ", ".join(f"{n}: {s}" for n, s in zip(names, spatial))
        wanted = ", ".join(f"{n}: {s}" for n, s in zip(names, output_size))
        joint = " and" if dim == 1 else ""  # the 2-d and 3-d checks lack the word
        raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                           f"({given}){joint} output ({wanted})")
    if input.shape[1] == 0:
        raise RuntimeError(f"Non-empty {dim + 2}D data tensor expected but got a tensor with "
                           f"sizes {list(input.shape)}")
    byte = input._data.dtype == np.uint8
    if mode.endswith("_aa"):
        if byte:
            raise NotImplementedError(f"leafgrad: interpolate(mode={mode[:-3]!r}, "
                                      "antialias=True) of uint8 input is not implemented")
        if input._data.dtype not in (np.float32, np.float64):  # ATen's FLOATING_TYPES only
            raise NotImplementedError(
                f'"{kernel}" not implemented for \'{_legacy_name(input._data)}\'')
        if output_size[-1] == 1 != spatial[-1] and output_size[0] not in (1, spatial[0]):
            # torch's separable kernel gives other values here (its vertical pass over the
            # one-column intermediate), not replayed
            raise NotImplementedError(f"leafgrad: interpolate(mode={mode[:-3]!r}, "
                                      "antialias=True) to a width of 1 that also resizes the "
                                      "height is not implemented")
    if not (input.dtype.is_floating_point
            or byte and mode in ("nearest", "nearest-exact", "bilinear", "bicubic")):
        if dim == 2 and mode != "bicubic":  # torch's 2-d nearest/bilinear kernels check first
            kernel = f"upsample_{'bilinear' if mode == 'bilinear' else 'nearest'}2d_channels_last"
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{_legacy_name(input._data)}\'')
    if byte and mode in ("bilinear", "bicubic"):
        # torch rounds the float result back to uint8 (its own kernels); not written here
        raise NotImplementedError(f"leafgrad: interpolate(mode={mode!r}) of uint8 input is not "
                                  "implemented")
    params = dict(output_size=tuple(output_size), scales=scales)
    if "nearest" not in mode:
        params["align_corners"] = bool(align_corners)
    return UPSAMPLE[mode, dim].apply(input, **params)


def _output_size(size: int, factor: float) -> int:
    value = size * factor
    if math.isnan(value) or math.isinf(value):
        return 0
    return int(value)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
