"""torch.distributions.von_mises, where torch defines VonMises. leafgrad defines it in a shared
file; this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._continuous import VonMises

__all__ = ["VonMises"]

VonMises.__module__ = __name__
