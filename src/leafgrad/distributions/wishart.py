"""torch.distributions.wishart, where torch defines Wishart. leafgrad defines it in a shared file;
this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._matrix import Wishart

__all__ = ["Wishart"]

Wishart.__module__ = __name__
