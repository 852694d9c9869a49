"""torch.distributions.lowrank_multivariate_normal, where torch defines LowRankMultivariateNormal.
leafgrad defines it in a shared file; this module is the public home (``__module__``), so reprs,
messages and pickles name it as torch's do."""

from ._lowrank import LowRankMultivariateNormal

__all__ = ["LowRankMultivariateNormal"]

LowRankMultivariateNormal.__module__ = __name__
