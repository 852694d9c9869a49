"""torch.distributions.logistic_normal, where torch defines LogisticNormal. leafgrad defines it in
a shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from ._transformed import LogisticNormal

__all__ = ["LogisticNormal"]

LogisticNormal.__module__ = __name__
