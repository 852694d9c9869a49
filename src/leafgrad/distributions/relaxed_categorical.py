"""torch.distributions.relaxed_categorical, where torch defines ExpRelaxedCategorical,
RelaxedOneHotCategorical. leafgrad defines them in a shared file; this module is the public home
(``__module__``), so reprs, messages and pickles name it as torch's do."""

from ._extra import ExpRelaxedCategorical, RelaxedOneHotCategorical

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]

ExpRelaxedCategorical.__module__ = __name__
RelaxedOneHotCategorical.__module__ = __name__
