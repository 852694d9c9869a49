"""``leafgrad.autograd.functional``: derivatives of a whole function, as torch's.

>>> def f(x):
...     return (x ** 3).sum()
>>> leafgrad.autograd.functional.hessian(f, leafgrad.tensor([1., 2.]))
tensor([[ 6.,  0.],
        [ 0., 12.]])

Each function calls ``func`` on new tensor objects that require grad (see
``_functional_utils.prepare_inputs``), differentiates with ``autograd.grad`` and returns
results shaped like its arguments: a Tensor for a Tensor, a tuple for a tuple; a Jacobian of
output ``i`` with respect to input ``j`` has shape ``outputs[i].shape + inputs[j].shape``, and
for tuples the results nest as ``result[i][j]``. Results are detached unless
``create_graph=True``, in which case they carry the graph back to the given inputs.
"""

from __future__ import annotations

from . import _functional_utils as fu
from ._functional_jacobian import hessian, jacobian
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _construct_standard_basis_for(tensors, tensor_numels):
    """torch's private helper (its tests call it): block ``k`` of the ``sum(tensor_numels)``
    identity's columns, shape ``(sum(tensor_numels), tensor_numels[k])``, in ``tensors[k]``'s
    dtype."""
    assert len(tensors) == len(tensor_numels)
    assert len(tensors) > 0
    from ._functional_jacobian import _standard_basis

    return _standard_basis(tuple(tensors), tuple(tensor_numels))


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``.

    >>> vjp(lambda x: x * 2, leafgrad.ones(2), leafgrad.tensor([1., 3.]))[1]
    tensor([2., 6.])
    """
    with enable_grad():
        inputs_were_tuple, inputs = fu.as_tuple(inputs, "inputs", "vjp")
        inputs = fu.prepare_inputs(inputs, create_graph, need_graph=True)
        outputs_were_tuple, outputs = fu.as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        fu.check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = fu.as_tuple(v, "v", "vjp")
            v = fu.prepare_inputs(v, create_graph, need_graph=False)
            fu.validate_v(v, outputs, outputs_were_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = fu.grad_of(outputs, inputs, v, create_graph=create_graph)
        result = fu.fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (
        fu.unpack(fu.finish(outputs, create_graph), outputs_were_tuple),
        fu.unpack(fu.finish(result, create_graph), inputs_were_tuple),
    )


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)``: the Jacobian-vector product at ``inputs``.

    Computed as torch does, with the double-backward trick: ``g -> v^T J^T g`` is linear in a
    dummy ``g`` that requires grad, and its gradient with respect to ``g`` is ``J v``.

    >>> jvp(lambda x: x ** 2, leafgrad.tensor([1., 2.]), leafgrad.ones(2))[1]
    tensor([2., 4.])
    """
    from .._creation import zeros_like

    with enable_grad():
        inputs_were_tuple, inputs = fu.as_tuple(inputs, "inputs", "jvp")
        inputs = fu.prepare_inputs(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = fu.as_tuple(v, "v", "jvp")
            v = fu.prepare_inputs(v, create_graph, need_graph=False)
            fu.validate_v(v, inputs, inputs_were_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element."
            )
        outputs_were_tuple, outputs = fu.as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        fu.check_requires_grad(outputs, "outputs", strict)
        # The dummy grad_outputs' values never reach the result (the backward is linear in
        # them); zeros are safe because they hold no inf or nan.
        dummies = tuple(zeros_like(output, requires_grad=True) for output in outputs)
        grad_inputs = fu.grad_of(outputs, inputs, dummies, create_graph=True)
        fu.check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = fu.grad_of(grad_inputs, dummies, v, create_graph=create_graph)
        result = fu.fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (
        fu.unpack(fu.finish(outputs, create_graph), outputs_were_tuple),
        fu.unpack(fu.finish(result, create_graph), outputs_were_tuple),
    )


def _scalar_function_setup(func, inputs, v, create_graph, strict, name):
    """The shared start of vhp and hvp: checked inputs, v, the output and its gradient."""
    inputs_were_tuple, inputs = fu.as_tuple(inputs, "inputs", name)
    inputs = fu.prepare_inputs(inputs, create_graph, need_graph=True)
    if v is not None:
        _, v = fu.as_tuple(v, "v", name)
        v = fu.prepare_inputs(v, create_graph, need_graph=False)
        fu.validate_v(v, inputs, inputs_were_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    outputs_were_tuple, outputs = fu.as_tuple(
        func(*inputs), "outputs of the user-provided function", name
    )
    fu.check_requires_grad(outputs, "outputs", strict)
    if outputs_were_tuple:
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )
    jac = fu.grad_of(outputs, inputs, create_graph=True)
    fu.check_requires_grad(jac, "jacobian", strict)
    return inputs_were_tuple, inputs, v, outputs, jac


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T H)`` for a scalar ``func``.

    >>> vhp(lambda x: (x ** 3).sum(), leafgrad.tensor([1., 2.]), leafgrad.ones(2))[1]
    tensor([ 6., 12.])
    """
    with enable_grad():
        inputs_were_tuple, inputs, v, outputs, jac = _scalar_function_setup(
            func, inputs, v, create_graph, strict, "vhp"
        )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = fu.grad_of(jac, inputs, v, create_graph=create_graph)
        result = fu.fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return (
        fu.finish(outputs, create_graph)[0],
        fu.unpack(fu.finish(result, create_graph), inputs_were_tuple),
    )


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H v)`` for a scalar ``func``, by the double-backward trick (torch's
    note: slower than ``vhp``, equal to it when ``func`` is twice continuously differentiable).

    >>> hvp(lambda x: (x ** 3).sum(), leafgrad.tensor([1., 2.]), leafgrad.ones(2))[1]
    tensor([ 6., 12.])
    """
    from .._creation import zeros_like

    with enable_grad():
        inputs_were_tuple, inputs, v, outputs, jac = _scalar_function_setup(
            func, inputs, v, create_graph, strict, "hvp"
        )
        grad_jac = tuple(zeros_like(tensor, requires_grad=True) for tensor in inputs)
        double_back = fu.grad_of(jac, inputs, grad_jac, create_graph=True)
        # torch checks ``jac`` again here (not ``double_back``), so its "hessian" message
        # cannot fire after the "jacobian" check above passed; kept for identical behaviour.
        fu.check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = fu.grad_of(double_back, grad_jac, v, create_graph=create_graph)
        result = fu.fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return (
        fu.finish(outputs, create_graph)[0],
        fu.unpack(fu.finish(result, create_graph), inputs_were_tuple),
    )
