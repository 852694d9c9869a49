"""torch.distributions.poisson, where torch defines Poisson. leafgrad defines it in a shared file;
this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._counts import Poisson

__all__ = ["Poisson"]

Poisson.__module__ = __name__
