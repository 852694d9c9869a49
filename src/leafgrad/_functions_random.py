"""torch's sampling functions beyond rand/randn/randint/bernoulli/multinomial: ``poisson`` and
``binomial`` (draws from leafgrad._rng_dists, torch's algorithms and streams)."""

from __future__ import annotations

import numpy as np

from .ops.sampling import Poisson
from .tensor import Tensor, _wrap

__all__ = ["poisson", "binomial"]


def _tensor_arg(function: str, name: str, position: int, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def poisson(input: Tensor, generator=None) -> Tensor:
    """Poisson(rate) draws for each rate in ``input`` (gradient: zero, ``PoissonBackward0``)."""
    from . import _rng_dists

    _tensor_arg("poisson", "input", 1, input)
    samples = _rng_dists.poisson(input._data, generator=generator)
    return Poisson.apply(input, samples=samples)


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Binomial(count, prob) draws, count and prob broadcast together (no gradient)."""
    from . import _rng_dists

    _tensor_arg("binomial", "count", 1, count)
    _tensor_arg("binomial", "prob", 2, prob)
    if count.dtype.is_floating_point is False:
        raise ValueError("binomial only supports floating-point dtypes for count, got: "
                         f"{count.dtype._legacy}")
    if prob.dtype is not count.dtype:
        raise RuntimeError(f"Found dtype {prob.dtype._legacy} but expected {count.dtype._legacy}")
    if count._data.dtype.itemsize == 2:  # torch's CPU kernel is float and double only
        raise NotImplementedError(f"\"binomial_cpu\" not implemented for '{count.dtype._legacy}'")
    result = _rng_dists.binomial(count._data, prob._data, generator=generator)
    if result.shape != count._data.shape and count._data.size:
        # torch allocates the result with count's shape, then its iterator resizes it
        import warnings

        from ._out import RESIZE_WARNING

        warnings.warn(RESIZE_WARNING.format(old=list(count.shape), new=list(result.shape)),
                      UserWarning, stacklevel=2)
    return _wrap(result)
