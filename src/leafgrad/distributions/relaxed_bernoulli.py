"""torch.distributions.relaxed_bernoulli, where torch defines LogitRelaxedBernoulli,
RelaxedBernoulli. leafgrad defines them in a shared file; this module is the public home
(``__module__``), so reprs, messages and pickles name it as torch's do."""

from ._extra import LogitRelaxedBernoulli, RelaxedBernoulli

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]

LogitRelaxedBernoulli.__module__ = __name__
RelaxedBernoulli.__module__ = __name__
