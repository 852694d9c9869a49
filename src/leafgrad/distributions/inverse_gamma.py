"""torch.distributions.inverse_gamma, where torch defines InverseGamma. leafgrad defines it in a
shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from ._transformed import InverseGamma

__all__ = ["InverseGamma"]

InverseGamma.__module__ = __name__
