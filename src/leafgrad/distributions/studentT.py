"""torch.distributions.studentT, where torch defines StudentT. leafgrad defines it in a shared
file; this module is the public home (``__module__``), so reprs, messages and pickles name it as
torch's do."""

from ._gamma import StudentT

__all__ = ["StudentT"]

StudentT.__module__ = __name__
