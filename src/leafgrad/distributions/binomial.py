"""torch.distributions.binomial, where torch defines Binomial. leafgrad defines it in a shared
file; this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._counts import Binomial

__all__ = ["Binomial"]

Binomial.__module__ = __name__
