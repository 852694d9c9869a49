"""torch.distributions.half_normal, where torch defines HalfNormal. leafgrad defines it in a shared
file; this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._half import HalfNormal

__all__ = ["HalfNormal"]

HalfNormal.__module__ = __name__
