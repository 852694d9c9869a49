"""torch.func: composable function transforms (vmap, grad, vjp, jvp, jacrev, jacfwd, hessian,
functional_call).

>>> import leafgrad as torch
>>> torch.func.grad(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
tensor([ 3., 12.])
"""

from ._vmap import vmap

__all__ = ["vmap"]
