"""torch.distributions.kumaraswamy, where torch defines Kumaraswamy. leafgrad defines it in a
shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from ._transformed import Kumaraswamy

__all__ = ["Kumaraswamy"]

Kumaraswamy.__module__ = __name__
