"""torch.distributions.transformed_distribution, where torch defines TransformedDistribution.
leafgrad defines it in a shared file; this module is the public home (``__module__``), so reprs,
messages and pickles name it as torch's do."""

from ._composite import TransformedDistribution

__all__ = ["TransformedDistribution"]

TransformedDistribution.__module__ = __name__
