"""torch.distributions.weibull, where torch defines Weibull. leafgrad defines it in a shared file;
this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._transformed import Weibull

__all__ = ["Weibull"]

Weibull.__module__ = __name__
