"""torch.distributions.cauchy, where torch defines Cauchy. leafgrad defines it in a shared file;
this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._extra import Cauchy

__all__ = ["Cauchy"]

Cauchy.__module__ = __name__
