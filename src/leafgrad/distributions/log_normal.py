"""torch.distributions.log_normal, where torch defines LogNormal. leafgrad defines it in a shared
file; this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._composite import LogNormal

__all__ = ["LogNormal"]

LogNormal.__module__ = __name__
