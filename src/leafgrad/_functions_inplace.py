"""torch's top-level in-place functions (``torch.sin_(x)``): each calls the tensor's method."""

from __future__ import annotations

_NAMES = (
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "cos_", "cosh_", "detach_", "erf_", "erfc_", "exp2_", "exp_",
    "expm1_", "fill_", "fix_", "floor_", "frac_", "index_put_", "log10_", "log1p_", "log2_",
    "log_", "nan_to_num_", "neg_", "reciprocal_", "round_", "rsqrt_", "sigmoid_", "sin_",
    "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
)

__all__ = list(_NAMES)


def _inplace_function(name: str):
    def function(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(...)``: in place, returns ``input``."
    return function


globals().update({name: _inplace_function(name) for name in _NAMES})
