"""torch.distributions.categorical, where torch defines Categorical. leafgrad defines it in a
shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from ._discrete import Categorical

__all__ = ["Categorical"]

Categorical.__module__ = __name__
