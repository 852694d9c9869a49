"""torch.distributions.multivariate_normal, where torch defines MultivariateNormal. leafgrad
defines it in a shared file; this module is the public home (``__module__``), so reprs, messages
and pickles name it as torch's do."""

from ._mvn import MultivariateNormal

__all__ = ["MultivariateNormal"]

MultivariateNormal.__module__ = __name__
