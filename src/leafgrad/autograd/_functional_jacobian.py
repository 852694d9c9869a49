"""``jacobian`` and ``hessian`` of ``autograd.functional`` (see functional.py for the shapes).

Reverse mode builds a Jacobian one row per output element; ``vectorize=True`` hands all rows
to ``_batched_vjp`` at once (one batched backward, as torch, unless the Jacobian must be
differentiable: see its note). Forward mode, which
torch allows only with ``vectorize=True``, pushes one tangent per input element through the
function inside a dual level.
"""

from __future__ import annotations

import numpy as np

from . import _functional_utils as fu
from . import forward_ad as fwAD
from .grad_mode import enable_grad

_STRATEGY_HINT = (
    'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
    'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
    'prefer to use "reverse-mode".'
)


def _standard_basis(tensors: tuple, numels: tuple) -> tuple:
    """Rows of the ``sum(numels)``-sized identity, split by columns into one block per tensor.

    Block ``k`` has shape ``(sum(numels), numels[k])`` and the dtype of ``tensors[k]``; row ``r``
    of all blocks together is the ``r``-th unit vector of the concatenated tensors.
    """
    from ..tensor import _wrap

    total = sum(numels)
    identity = np.eye(total)
    blocks, start = [], 0
    for tensor, numel in zip(tensors, numels):
        block = identity[:, start:start + numel].astype(tensor._data.dtype)
        blocks.append(_wrap(np.ascontiguousarray(block)))
        start += numel
    return tuple(blocks)


def _batched_vjp(outputs: tuple, inputs: tuple, batched_grad_outputs: tuple,
                 create_graph: bool, retain_graph: bool | None) -> tuple:
    """Vector-Jacobian products for a batch of grad_outputs (dimension 0 of each is the batch).

    Returns one tensor per input, shape ``(batch, *input.shape)``; an input the outputs do not
    depend on gets None.

    As torch does, this is one ``autograd.grad(..., is_grads_batched=True)``: the backward runs
    once over the whole batch, through vmap's batching rules (func/, ops/_batching*.py).

    Note: with ``create_graph=True`` the rows still run one backward each. The graph a batched
    backward records is not yet differentiable again (a node recorded under vmap reports its
    batched gradient against its input's unbatched shape), so a Jacobian that must itself be
    differentiated, such as the inner one of ``hessian``, is built row by row.
    """
    if not create_graph:
        return fu.grad_of(outputs, inputs, batched_grad_outputs, create_graph=False,
                          retain_graph=retain_graph, is_grads_batched=True)
    from .._creation import zeros_like
    from ..ops import stack

    batch = batched_grad_outputs[0].shape[0]
    unbound = [grad.unbind(0) for grad in batched_grad_outputs]
    rows = []
    for index in range(batch):
        row_grads = tuple(grads[index] for grads in unbound)
        last = index == batch - 1
        rows.append(fu.grad_of(
            outputs, inputs, row_grads, create_graph=True,
            retain_graph=retain_graph if last else True,
        ))
    results = []
    for position, tensor in enumerate(inputs):
        column = [row[position] for row in rows]
        if all(grad is None for grad in column):
            results.append(None)
            continue
        column = [zeros_like(tensor) if grad is None else grad for grad in column]
        results.append(stack(column))
    return tuple(results)


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``.

    Shape ``out.shape + in.shape``; for tuple outputs/inputs, ``result[i][j]`` is the Jacobian
    of output ``i`` with respect to input ``j``.

    >>> jacobian(lambda x: x ** 2, leafgrad.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(_STRATEGY_HINT)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacobian_forward(func, inputs, strict, vectorize)

    with enable_grad():
        inputs_were_tuple, inputs = fu.as_tuple(inputs, "inputs", "jacobian")
        inputs = fu.prepare_inputs(inputs, create_graph, need_graph=True)
        outputs_were_tuple, outputs = fu.as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        fu.check_requires_grad(outputs, "outputs", strict)
        if vectorize:
            if strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` "
                    "are not supported together. Please either set `strict=False` or "
                    "`vectorize=False`."
                )
            rows = _jacobian_vectorized(outputs, inputs, create_graph)
        else:
            rows = _jacobian_by_rows(outputs, inputs, create_graph, strict)
        rows = fu.finish(rows, create_graph)
        return fu.unpack(rows, (outputs_were_tuple, inputs_were_tuple))


def _jacobian_by_rows(outputs, inputs, create_graph, strict) -> tuple:
    """One ``autograd.grad`` per output element (torch's ``vectorize=False``)."""
    from ..ops import stack
    from .._creation import zeros_like

    result = []
    for i, output in enumerate(outputs):
        columns = tuple([] for _ in inputs)
        # Note: one-hot grad_outputs instead of selecting elements
        # torch differentiates ``output.reshape(-1)[element]``; giving the output itself a
        # one-hot grad_output is the same vector-Jacobian product without recording a reshape
        # and a select per row and running their backwards (bench_functional.py, hessian
        # vectorize=False: 14.4 ms -> 12.6 ms).
        one_hots = _standard_basis((output,), (output.nelement(),))[0]
        one_hots = one_hots.view((output.nelement(),) + tuple(output.shape)).unbind(0)
        for element in range(output.nelement()):
            grads = fu.grad_of((output,), inputs, (one_hots[element],), retain_graph=True,
                               create_graph=create_graph)
            for j, (grad, tensor) in enumerate(zip(grads, inputs)):
                if grad is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of "
                            f"input {j}. This is not allowed in strict mode."
                        )
                    grad = zeros_like(tensor)
                elif strict and create_graph and not grad.requires_grad:
                    # (torch names the output's index here, not the input's)
                    raise RuntimeError(
                        "The jacobian of the user-provided function is independent of input "
                        f"{i}. This is not allowed in strict mode when create_graph=True."
                    )
                columns[j].append(grad)
        if output.nelement() == 0:
            # Note: empty outputs have an empty Jacobian
            # torch 2.13 fails here ("stack expects a non-empty TensorList", or an IndexError
            # when vectorized); the Jacobian of an output with no elements is simply empty.
            result.append(tuple(
                _zeros(tensor, tuple(output.shape) + tuple(tensor.shape)) for tensor in inputs
            ))
            continue
        result.append(tuple(
            stack(column, dim=0).view(output.shape + tensor.shape)
            for column, tensor in zip(columns, inputs)
        ))
    return tuple(result)


def _jacobian_vectorized(outputs, inputs, create_graph) -> tuple:
    """All output elements' rows in one batched vjp, split back per output."""
    numels = tuple(output.nelement() for output in outputs)
    if sum(numels) == 0:  # see Note: empty outputs have an empty Jacobian
        return _jacobian_by_rows(outputs, inputs, create_graph, strict=False)
    basis = _standard_basis(outputs, numels)
    # (see Note: one-hot grad_outputs instead of selecting elements: torch reshapes each output
    # to a vector and gives it the basis; the basis reshaped to each output is the same)
    basis = tuple(block.reshape((sum(numels),) + tuple(output.shape))
                  for block, output in zip(basis, outputs))
    per_input = list(_batched_vjp(outputs, inputs, basis, create_graph, None))
    for j, rows in enumerate(per_input):
        if rows is None:
            per_input[j] = _zeros(inputs[j], (sum(numels),) + tuple(inputs[j].shape))
    # torch splits each input's rows by the outputs' sizes (SplitWithSizesBackward0)
    pieces = [rows.split(list(numels), dim=0) for rows in per_input]
    return tuple(
        tuple(split[i].view(output.shape + tensor.shape) for split, tensor in zip(pieces, inputs))
        for i, output in enumerate(outputs))


def _zeros(like, shape):
    from .._creation import zeros_like

    # torch expands one zeros_like(input) to the batch: a stride-0 view, not a full block.
    return zeros_like(like).expand(shape)


def _jacobian_forward(func, inputs, strict, vectorize):
    """Forward mode: column ``k`` of the Jacobian is the tangent of the outputs when the
    inputs carry the ``k``-th unit tangent. torch requires ``vectorize=True`` here."""
    from ..ops import stack
    from .._creation import zeros_like

    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` "
            "are not supported together (yet). Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    inputs_were_tuple, inputs = fu.as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        # (torch's message lacks the space before "only")
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )
    numels = tuple(tensor.nelement() for tensor in inputs)
    basis = _standard_basis(inputs, numels)
    outputs_were_tuple = None
    primals = None
    tangents_by_column = []
    # Note: one dual level per unit tangent
    # torch runs these columns at once under vmap; here each is its own pass through func.
    # Inputs with no elements at all give no column; one pass with (empty) zero tangents still
    # finds the outputs' shapes, as torch's vmap over a batch of 0 does.
    columns = sum(numels)
    for column in range(max(columns, 1)):
        with fwAD.dual_level():
            duals = tuple(
                fwAD.make_dual(tensor, block[column].view_as(tensor) if columns else
                               zeros_like(tensor))
                for tensor, block in zip(inputs, basis)
            )
            outputs_were_tuple, outputs = fu.as_tuple(func(*duals), "outputs", None)
            primals, tangents = [], []
            for output in outputs:
                primal, tangent = fwAD.unpack_dual(output)
                primals.append(primal)
                tangents.append(tangent)
            tangents_by_column.append(tangents)
    result = []
    if not columns:
        return fu.unpack(
            [[_zeros(primal, tuple(primal.shape) + tuple(tensor.shape)) for tensor in inputs]
             for primal in primals],
            (outputs_were_tuple, inputs_were_tuple),
        )
    for i, primal in enumerate(primals):
        column_tangents = [tangents[i] for tangents in tangents_by_column]
        if all(tangent is None for tangent in column_tangents):
            # an output with no tangent is vmap's unbatched zeros_like(primal), which leaves
            # vmap expanded over the batch (stride 0), not one block of zeros per column
            stacked = zeros_like(primal).expand((columns,) + tuple(primal.shape))
        else:
            stacked = stack([zeros_like(primal) if tangent is None else tangent
                             for tangent in column_tangents])
        row = []
        # torch splits the stacked columns by the inputs' sizes (SplitWithSizesBackward0 in the
        # result's history when it has one: generated-program seed 55040)
        for tensor, block in zip(inputs, stacked.split(list(numels), dim=0)):
            # the column (input) index is the batch dimension: move it last, then reshape
            block = block.permute(*range(1, block.ndim), 0)
            row.append(block.reshape(tuple(primal.shape) + tuple(tensor.shape)))
        result.append(row)
    return fu.unpack(result, (outputs_were_tuple, inputs_were_tuple))


def hessian(func, inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar ``func``: the Jacobian of its gradient.

    For tuple inputs, ``result[i][j]`` has shape ``inputs[i].shape + inputs[j].shape``.

    >>> hessian(lambda x: (x ** 3).sum(), leafgrad.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    Tensor = fu.tensor_cls()
    inputs_were_tuple, inputs = fu.as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_function(*args):
        output = func(*args)
        output_was_tuple, outputs = fu.as_tuple(
            output, "outputs of the user-provided function", "hessian"
        )
        fu.check_requires_grad(outputs, "outputs", strict)
        if output_was_tuple or not isinstance(output, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if output.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return output.squeeze()

    def gradient(*args):
        if outer_jacobian_strategy == "forward-mode":
            # the inner reverse-mode jacobian keeps a graph only to inputs requiring grad
            args = tuple(arg._set_requires_grad(True) for arg in args)
        grads = jacobian(scalar_function, args, create_graph=True)
        fu.check_requires_grad(grads, "jacobian", strict)
        return grads

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return fu.unpack(result, (inputs_were_tuple, inputs_were_tuple))
