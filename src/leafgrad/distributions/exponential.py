"""torch.distributions.exponential, where torch defines Exponential. leafgrad defines it in a
shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from ._univariate import Exponential

__all__ = ["Exponential"]

Exponential.__module__ = __name__
