"""torch.distributions.negative_binomial, where torch defines NegativeBinomial. leafgrad defines it
in a shared file; this module is the public home (``__module__``), so reprs, messages and
pickles name it as torch's do."""

from ._counts import NegativeBinomial

__all__ = ["NegativeBinomial"]

NegativeBinomial.__module__ = __name__
