"""torch.distributions.fishersnedecor, where torch defines FisherSnedecor. leafgrad defines it in a
shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from ._continuous import FisherSnedecor

__all__ = ["FisherSnedecor"]

FisherSnedecor.__module__ = __name__
