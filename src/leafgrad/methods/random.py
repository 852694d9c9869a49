"""Tensor's random in-place fills beyond uniform_/normal_/bernoulli_/random_ (those live in
tensor.py), and the out-of-place ``bernoulli``/``multinomial`` methods."""

from __future__ import annotations


class RandomMethods:
    __slots__ = ()

    def exponential_(self, lambd=1.0, *, generator=None):
        """Fill with Exponential(lambd) draws (torch's stream)."""
        from .. import _rng_dists

        return self._random_fill(_rng_dists.exponential(self._random_shape(), self._data.dtype,
                                                        lambd, generator=generator))

    def geometric_(self, p, *, generator=None):
        """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
        from .. import _rng_dists

        return self._random_fill(_rng_dists.geometric(self._random_shape(), self._data.dtype, p,
                                                      generator=generator))

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """Fill with exp(Normal(mean, std)) draws."""
        from .. import _rng_dists

        return self._random_fill(_rng_dists.log_normal(self._random_shape(), self._data.dtype,
                                                       mean, std, generator=generator))

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Fill with Cauchy(median, sigma) draws."""
        from .. import _rng_dists

        return self._random_fill(_rng_dists.cauchy(self._random_shape(), self._data.dtype, median,
                                                   sigma, generator=generator))

    def bernoulli(self, p=None, *, generator=None):
        """0/1 draws with probabilities ``self`` (or ``p``), as torch.bernoulli."""
        from .. import bernoulli

        if p is None:
            return bernoulli(self, generator=generator)
        return bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """Indices drawn from the rows of ``self`` taken as weights, as torch.multinomial."""
        from .. import multinomial

        return multinomial(self, num_samples, replacement, generator=generator)
