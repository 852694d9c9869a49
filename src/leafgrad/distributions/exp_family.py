"""torch.distributions.exp_family, where torch defines ExponentialFamily. leafgrad defines it in a
shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from .distribution import ExponentialFamily

__all__ = ["ExponentialFamily"]

ExponentialFamily.__module__ = __name__
