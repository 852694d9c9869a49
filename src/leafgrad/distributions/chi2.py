"""torch.distributions.chi2, where torch defines Chi2. leafgrad defines it in a shared file; this
module is the public home (``__module__``), so reprs, messages and pickles name it as torch's
do."""

from ._gamma import Chi2

__all__ = ["Chi2"]

Chi2.__module__ = __name__
