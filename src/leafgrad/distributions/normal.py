"""torch.distributions.normal, where torch defines Normal. leafgrad defines it in a shared file;
this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._univariate import Normal

__all__ = ["Normal"]

Normal.__module__ = __name__
