"""torch.distributions.half_cauchy, where torch defines HalfCauchy. leafgrad defines it in a shared
file; this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._half import HalfCauchy

__all__ = ["HalfCauchy"]

HalfCauchy.__module__ = __name__
