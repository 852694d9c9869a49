"""torch.distributions.dirichlet, where torch defines Dirichlet. leafgrad defines it in a shared
file; this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._gamma import Dirichlet

__all__ = ["Dirichlet"]

Dirichlet.__module__ = __name__
