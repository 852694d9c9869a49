"""Tensor's random in-place fills beyond uniform_/normal_/bernoulli_/random_ (those live in
tensor.py), and the out-of-place ``bernoulli``/``multinomial`` methods."""

from __future__ import annotations

from .. import _argparse


class RandomMethods:
    __slots__ = ()

    @_argparse.parsed("Tensor.exponential_", method=True)
    def exponential_(self, lambd=1.0, *, generator=None):
        """Fill with Exponential(lambd) draws (torch's stream)."""
        from .. import _rng_dists

        lambd, = _argparse.fill_doubles("exponential_", lambd)
        return self._random_fill(_rng_dists.exponential(self._random_shape(), self._data.dtype,
                                                        lambd, generator=generator))

    @_argparse.parsed("Tensor.geometric_", method=True)
    def geometric_(self, p, *, generator=None):
        """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
        from .. import _rng_dists

        p, = _argparse.fill_doubles("geometric_", p)
        return self._random_fill(_rng_dists.geometric(self._random_shape(), self._data.dtype, p,
                                                      generator=generator))

    @_argparse.parsed("Tensor.log_normal_", method=True)
    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """Fill with exp(Normal(mean, std)) draws."""
        from .. import _rng_dists

        mean, std = _argparse.fill_doubles("log_normal_", mean, std)
        return self._random_fill(_rng_dists.log_normal(self._random_shape(), self._data.dtype,
                                                       mean, std, generator=generator))

    @_argparse.parsed("Tensor.cauchy_", method=True)
    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Fill with Cauchy(median, sigma) draws."""
        from .. import _rng_dists

        median, sigma = _argparse.fill_doubles("cauchy_", median, sigma)
        return self._random_fill(_rng_dists.cauchy(self._random_shape(), self._data.dtype, median,
                                                   sigma, generator=generator))

    @_argparse.parsed("Tensor.bernoulli", method=True)
    def bernoulli(self, p=_argparse.NOT_GIVEN, *, generator=None):
        """0/1 draws with probabilities ``self`` (or ``p``), as torch.bernoulli."""
        from .. import bernoulli

        if p is not _argparse.NOT_GIVEN:  # (a C double; no None)
            p, = _argparse.fill_doubles("bernoulli", p)
        if p is _argparse.NOT_GIVEN:
            return bernoulli(self, generator=generator)
        return bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """Indices drawn from the rows of ``self`` taken as weights, as torch.multinomial."""
        from .. import multinomial

        return multinomial(self, num_samples, replacement, generator=generator)
