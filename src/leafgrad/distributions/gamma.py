"""torch.distributions.gamma, where torch defines Gamma. leafgrad defines it in a shared file; this
module is the public home (``__module__``), so reprs, messages and pickles name it as torch's
do."""

from ._gamma import Gamma

__all__ = ["Gamma"]

Gamma.__module__ = __name__
