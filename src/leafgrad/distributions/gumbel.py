"""torch.distributions.gumbel, where torch defines Gumbel. leafgrad defines it in a shared file;
this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._half import Gumbel

__all__ = ["Gumbel"]

Gumbel.__module__ = __name__
