"""``einsum`` and ``tensordot``: contractions lowered to views, ``sum``, ``mul`` and ``bmm``/``mm``.

Both follow ATen's lowering (aten/src/ATen/native/Linear.cpp) step by step, so the recorded
graph has torch's nodes: ``einsum('ij,jk->ik')`` ends in ``ViewBackward0`` over
``PermuteBackward0`` over ``ViewBackward0`` over ``BmmBackward0``, ``einsum('ii->i')`` in
``PermuteBackward0`` over ``DiagonalBackward0``, ``tensordot`` in ``ViewBackward0`` over
``MmBackward0``. torch 2.13 without opt_einsum contracts operands left to right; so do we.
"""

from __future__ import annotations

from ..tensor import Tensor
from .shape import _wrap_dim

_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS  # the label code of "..."


def _label_code(char: str) -> int:
    # torch orders labels A-Z then a-z; implicit outputs and contraction dims use this order.
    return ord(char) - ord("A") if char.isupper() else ord(char) - ord("a") + _LETTERS


def _code_label(code: int) -> str:
    return chr(ord("A") + code) if code < _LETTERS else chr(ord("a") + code - _LETTERS)


def _sublist_equation(args: tuple) -> tuple:
    """``einsum(op1, [0, 1], op2, [1, 2], [0, 2])`` to ``("AB,BC->AC", [op1, op2])``."""

    def subscripts(sublist) -> str:
        out = []
        for item in sublist:
            if item is Ellipsis:
                out.append("...")
            elif 0 <= item < 2 * _LETTERS:
                out.append(_code_label(item))
            else:
                raise ValueError(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)"
                )
        return "".join(out)

    operands = list(args[0::2])
    sublists = list(args[1::2])
    output = None
    if len(operands) > len(sublists):  # the trailing item is the output sublist
        output = operands.pop()
    equation = ",".join(subscripts(s) for s in sublists)
    if output is not None:
        equation += "->" + subscripts(output)
    return equation, operands


def _parse_inputs(lhs: str, count: int) -> list:
    labels: list[list[int]] = [[] for _ in range(count)]
    current = 0
    seen_ellipsis = False
    i = 0
    while i < len(lhs):
        char = lhs[i]
        if char == " ":
            pass
        elif char == ".":
            if seen_ellipsis:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {current} for which an ellipsis was "
                    "already found"
                )
            if lhs[i:i + 3] != "...":
                raise RuntimeError(
                    f"einsum(): found '.' for operand {current} that is not part of any ellipsis"
                )
            labels[current].append(_ELLIPSIS)
            seen_ellipsis = True
            i += 2
        elif char == ",":
            current += 1
            if current >= count:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
            seen_ellipsis = False
        elif char.isascii() and char.isalpha():
            labels[current].append(_label_code(char))
        else:
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {i} in the equation string, "
                "subscripts must be in [a-zA-Z]"
            )
        i += 1
    if current != count - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def einsum(*args):
    """torch.einsum(equation, *operands), also with a list of operands or the sublist form."""
    if not args or (isinstance(args[0], str) and len(args) == 1):
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least "
            "one operand and its subscripts list"
        )
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_inputs(lhs, len(operands))

    label_count = [0] * (2 * _LETTERS)
    ell_num_dim = 0
    for i, (operand, labels) in enumerate(zip(operands, op_labels)):
        named = [code for code in labels if code != _ELLIPSIS]
        has_ellipsis = len(named) != len(labels)
        for code in named:
            label_count[code] += 1
        if has_ellipsis:
            ell_num_dim = max(ell_num_dim, operand.ndim - len(named))
        if (len(named) > operand.ndim) if has_ellipsis else (len(named) != operand.ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(named)}) "
                + ("is more than the number of dimensions (" if has_ellipsis
                   else "does not match the number of dimensions (")
                + f"{operand.ndim}) for operand {i}"
                + ("" if has_ellipsis else " and no ellipsis was given")
            )

    # Every operand is aligned to the dims (output dims..., contraction dims...).
    perm_of_label = [-1] * (2 * _LETTERS)
    perm_index = ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for code in range(2 * _LETTERS):
            if label_count[code] == 1:
                perm_of_label[code] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            char = rhs[i]
            if char == ".":
                if ell_in_output:
                    raise RuntimeError(
                        "einsum(): found '.' for output but an ellipsis (...) was already found"
                    )
                if rhs[i:i + 3] != "...":
                    raise RuntimeError(
                        "einsum(): found '.' for output that is not part of any ellipsis (...)"
                    )
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
                i += 2
            elif char != " ":
                if not (char.isascii() and char.isalpha()):
                    raise RuntimeError(
                        f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                        "equation string, subscripts must be in [a-zA-Z]"
                    )
                code = _label_code(char)
                if label_count[code] == 0 or perm_of_label[code] != -1:
                    problem = ("appears more than once in the output" if perm_of_label[code] != -1
                               else "does not appear in the equation for any input operand")
                    raise RuntimeError(f"einsum(): output subscript {char} {problem}")
                perm_of_label[code] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for code in range(2 * _LETTERS):
        if label_count[code] > 0 and perm_of_label[code] == -1:
            perm_of_label[code] = perm_index
            perm_index += 1

    # Check sizes, take diagonals for repeated labels, unsqueeze missing dims and permute.
    label_size = [1] * (2 * _LETTERS)
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index  # operands in which each aligned dim has size != 1
    ops = []
    for i, (operand, labels) in enumerate(zip(operands, op_labels)):
        op = operand
        permutation = [-1] * perm_index
        dim = 0
        for code in labels:
            if code == _ELLIPSIS:
                covered = operand.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - covered, ell_num_dim):
                    size = op.shape[dim]
                    if size != 1:
                        if ell_sizes[j] not in (1, size):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has "
                                f"size {size} which does not broadcast with previously seen "
                                f"ellipsis with size {ell_sizes[j]} for the respective dimension"
                            )
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_of_label[code]] == -1:
                size = op.shape[dim]
                if size != 1:
                    if label_size[code] not in (1, size):
                        raise RuntimeError(
                            f"einsum(): subscript {_code_label(code)} has size {size} for "
                            f"operand {i} which does not broadcast with previously seen size "
                            f"{label_size[code]}"
                        )
                    label_size[code] = size
                    dim_counts[perm_of_label[code]] += 1
                permutation[perm_of_label[code]] = dim
                dim += 1
            else:
                previous = permutation[perm_of_label[code]]
                if op.shape[dim] != op.shape[previous]:
                    raise RuntimeError(
                        f"einsum(): subscript {_code_label(code)} is repeated for operand {i} but "
                        f"the sizes don't match, {op.shape[dim]} != {op.shape[previous]}"
                    )
                op = op.diagonal(0, previous, dim).movedim(-1, previous)
        for position, source in enumerate(permutation):
            if source == -1:
                op = op.unsqueeze(dim)
                permutation[position] = dim
                dim += 1
        ops.append(op.permute(permutation))

    # Contract left to right, summing each contraction dim as soon as one operand holds it.
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_dims, b_dims = [], [], []
        for dim in range(out_num_dim, perm_index):
            if a.shape[dim] != 1 and b.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a.shape[dim] != 1:
                    a_dims.append(dim)
                    dim_counts[dim] = 0
                elif b.shape[dim] != 1:
                    b_dims.append(dim)
                    dim_counts[dim] = 0
        if a_dims:
            a = a.sum(a_dims, keepdim=True)
        if b_dims:
            b = b.sum(b_dims, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    result = ops[0]
    if perm_index > out_num_dim:
        if len(operands) > 1:
            # The contraction dims are all size 1 by now: a view drops them.
            return result.view(tuple(result.shape[:out_num_dim]))
        return result.sum(list(range(out_num_dim, perm_index)))
    return result


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` through one ``bmm`` (ATen's recipe)."""
    from . import reshape

    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left.ndim):
        in_left, in_right = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if in_left and in_right:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif in_left:
                left = left.sum(i, keepdim=True)
            elif in_right:
                right = right.sum(i, keepdim=True)
        elif in_left and in_right:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif in_left:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    if left.dtype != right.dtype:
        raise RuntimeError(
            f"expected scalar type {left.dtype._legacy} but found {right.dtype._legacy}"
        )
    out_size = ([left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right.shape[d] for d in ro])
    left_order = lro + lo + sum_dims + ro
    right_order = lro + sum_dims + ro + lo
    out_order = [0] * len(out_size)
    for position, dim in enumerate(lro + lo + sum_dims + ro):
        out_order[dim] = position
    left = reshape(left.permute(left_order), (lro_size, lo_size, sum_size))
    right = reshape(right.permute(right_order), (lro_size, sum_size, ro_size))
    return left.bmm(right).view(tuple(out_size)).permute(out_order)


def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    """torch.tensordot: contract ``dims`` of ``a`` with ``dims`` of ``b`` via one ``mm``."""
    from . import reshape

    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    else:
        count = int(dims)
        if count < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if count > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-count, 0)), list(range(count))
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    contracted = 1
    for dim_a, dim_b in zip(dims_a, dims_b):
        size_a, size_b = a.shape[dim_a], b.shape[dim_b]
        if size_b == 1:  # broadcast dims are summed away first (in their own dtype)
            a = a.sum(dim_a, keepdim=True, dtype=a.dtype)
        elif size_a == 1:
            b = b.sum(dim_b, keepdim=True, dtype=b.dtype)
        elif size_a != size_b:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {size_a} in dim "
                f"{dim_a} and second has size {size_b} in dim {dim_b}"
            )
        else:
            contracted *= size_a
    wrapped_a = [_wrap_dim(d, a.ndim) for d in dims_a]
    wrapped_b = [_wrap_dim(d, b.ndim) for d in dims_b]
    free_a = [d for d in range(a.ndim) if d not in wrapped_a]
    free_b = [d for d in range(b.ndim) if d not in wrapped_b]
    size_a = size_b = 1
    for d in free_a:
        size_a *= a.shape[d]
    for d in free_b:
        size_b *= b.shape[d]
    result_shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    if size_a == 1 and size_b == 1:
        # nothing left free on either side: torch's dot of the two flattened when both are
        # contiguous as permuted, else the sum of their product (without copying either)
        left, right = a.permute(free_a + wrapped_a), b.permute(wrapped_b + free_b)
        if left.is_contiguous() and right.is_contiguous():
            left, right = (t if t.ndim == 1 else t.reshape(contracted) for t in (left, right))
            return reshape(left.dot(right), result_shape)
        return reshape((left.squeeze() * right.squeeze()).sum(dtype=left.dtype), result_shape)
    left = reshape(a.permute(free_a + wrapped_a), (size_a, contracted))
    right = reshape(b.permute(wrapped_b + free_b), (contracted, size_b))
    return reshape(left.mm(right), result_shape)
