"""torch.distributions.uniform, where torch defines Uniform. leafgrad defines it in a shared file;
this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._univariate import Uniform

__all__ = ["Uniform"]

Uniform.__module__ = __name__
