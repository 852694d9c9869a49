"""torch.distributions.laplace, where torch defines Laplace. leafgrad defines it in a shared file;
this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._univariate import Laplace

__all__ = ["Laplace"]

Laplace.__module__ = __name__
