"""torch.distributions.bernoulli, where torch defines Bernoulli. leafgrad defines it in a shared
file; this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._discrete import Bernoulli

__all__ = ["Bernoulli"]

Bernoulli.__module__ = __name__
