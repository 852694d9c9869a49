"""torch.distributions.independent, where torch defines Independent. leafgrad defines it in a
shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from ._composite import Independent

__all__ = ["Independent"]

Independent.__module__ = __name__
