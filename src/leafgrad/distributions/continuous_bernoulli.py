"""torch.distributions.continuous_bernoulli, where torch defines ContinuousBernoulli. leafgrad
defines it in a shared file; this module is the public home (``__module__``), so reprs, messages
and pickles name it as torch's do."""

from ._continuous import ContinuousBernoulli

__all__ = ["ContinuousBernoulli"]

ContinuousBernoulli.__module__ = __name__
