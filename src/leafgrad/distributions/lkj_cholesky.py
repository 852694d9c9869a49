"""torch.distributions.lkj_cholesky, where torch defines LKJCholesky. leafgrad defines it in a
shared file; this module is the public home (``__module__``), so reprs, messages and pickles
name it as torch's do."""

from ._matrix import LKJCholesky

__all__ = ["LKJCholesky"]

LKJCholesky.__module__ = __name__
