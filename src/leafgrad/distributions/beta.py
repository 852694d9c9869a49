"""torch.distributions.beta, where torch defines Beta. leafgrad defines it in a shared file; this
module is the public home (``__module__``), so reprs, messages and pickles name it as torch's
do."""

from ._gamma import Beta

__all__ = ["Beta"]

Beta.__module__ = __name__
