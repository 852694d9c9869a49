"""torch.distributions.mixture_same_family, where torch defines MixtureSameFamily. leafgrad defines
it in a shared file; this module is the public home (``__module__``), so reprs, messages and
pickles name it as torch's do."""

from ._extra import MixtureSameFamily

__all__ = ["MixtureSameFamily"]

MixtureSameFamily.__module__ = __name__
