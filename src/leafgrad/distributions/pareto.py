"""torch.distributions.pareto, where torch defines Pareto. leafgrad defines it in a shared file;
this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._transformed import Pareto

__all__ = ["Pareto"]

Pareto.__module__ = __name__
