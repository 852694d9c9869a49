"""torch.distributions.geometric, where torch defines Geometric. leafgrad defines it in a shared
file; this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._extra import Geometric

__all__ = ["Geometric"]

Geometric.__module__ = __name__
