"""torch.distributions.one_hot_categorical, where torch defines OneHotCategorical,
OneHotCategoricalStraightThrough. leafgrad defines them in a shared file; this module is the
public home (``__module__``), so reprs, messages and pickles name it as torch's do."""

from ._discrete import OneHotCategorical, OneHotCategoricalStraightThrough

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]

OneHotCategorical.__module__ = __name__
OneHotCategoricalStraightThrough.__module__ = __name__
