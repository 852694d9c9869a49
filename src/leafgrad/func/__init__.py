"""torch.func: composable function transforms (vmap, grad, vjp, jvp, jacrev, jacfwd, hessian,
linearize, functional_call, stack_module_state).

>>> import leafgrad as torch
>>> torch.func.grad(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
tensor([ 3., 12.])
"""

from ._functional_call import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._functionalize import debug_unwrap, functionalize
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._vmap import vmap

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "linearize", "functional_call", "stack_module_state", "replace_all_batch_norm_modules_",
           "functionalize", "debug_unwrap"]
