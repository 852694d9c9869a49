"""torch.distributions.multinomial, where torch defines Multinomial. leafgrad defines it in a
shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from ._counts import Multinomial

__all__ = ["Multinomial"]

Multinomial.__module__ = __name__
