"""torch.distributions.generalized_pareto, where torch defines GeneralizedPareto. leafgrad defines
it in a shared file; this module is the public home (``__module__``), so reprs, messages and
pickles name it as torch's do."""

from ._continuous import GeneralizedPareto

__all__ = ["GeneralizedPareto"]

GeneralizedPareto.__module__ = __name__
