"""gradcheck's forward-mode check (``check_forward_ad=True``), as torch's slow mode runs it.

The analytical Jacobian is built column by column: each input that requires grad enters a dual
level with a zero tangent, one element of which is set to 1 per call of ``func``; the tangents
of the outputs are that column. It is compared with the same central differences the backward
check uses (``gradcheck._numerical_jacobians``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["forward_gradcheck"]


def _forward_jacobians(lib, func, inputs: tuple, check_grad_dtypes: bool) -> list:
    """``result[i][k]``: d output k / d diff input i, shape (numel in, numel out), None for
    outputs that are not floating point (torch's _get_analytical_jacobian_forward_ad)."""
    from .gradcheck import GradcheckError, _as_tuple, _is_float

    forward_ad = lib.autograd.forward_ad
    result = []
    with forward_ad.dual_level():
        duals = list(inputs)
        tangents = []
        for position, x in enumerate(inputs):
            if isinstance(x, lib.Tensor) and x.requires_grad:
                duals[position] = forward_ad.make_dual(x.detach(), lib.zeros_like(x))
                # read back: the dual's tangent is not the given one for a differentiable view
                tangents.append(forward_ad.unpack_dual(duals[position])[1])
        for tangent in tangents:
            columns = tangent.detach().numpy()  # writes set the tangent in place
            jacobians = None
            for column, index in enumerate(np.ndindex(columns.shape)):
                columns[index] = 1
                try:
                    outputs = _as_tuple(func(*duals))
                    if jacobians is None:
                        jacobians = [
                            np.zeros((tangent.numel(), o.numel()),
                                     dtype=o.detach().numpy(force=True).dtype)
                            if _is_float(o) else None
                            for o in outputs
                        ]
                    for jacobian, output in zip(jacobians, outputs):
                        if jacobian is None:
                            continue
                        primal, output_tangent = forward_ad.unpack_dual(output)
                        if (check_grad_dtypes and output_tangent is not None
                                and primal.dtype != output_tangent.dtype):
                            raise GradcheckError("Forward AD gradient has dtype mismatch.")
                        if output_tangent is not None:
                            values = output_tangent.detach().numpy(force=True).reshape(-1)
                            jacobian[column] = values
                finally:
                    columns[index] = 0
            if jacobians is None:  # an empty input: no column, one (0, numel) block per output
                jacobians = [np.zeros((0, o.numel()), dtype=o.detach().numpy(force=True).dtype)
                             if _is_float(o) else None for o in _as_tuple(func(*duals))]
            result.append(jacobians)
    return result


def forward_gradcheck(lib, func, func_out: tuple, inputs: tuple, outputs: tuple, eps: float,
                      rtol: float, atol: float, check_grad_dtypes: bool) -> None:
    """Compare forward-mode Jacobians with numerical ones for every (output, input) pair."""
    from .gradcheck import (
        GradcheckError, _allclose, _diff_inputs, _numerical_jacobians, _to_tensor,
    )

    diff_inputs = _diff_inputs(lib, inputs)
    numerical = _numerical_jacobians(func, inputs, diff_inputs, func_out, eps)
    if not outputs:
        for per_input in numerical:
            for jacobian in per_input:
                if jacobian is not None and np.any(jacobian != 0):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    analytical = _forward_jacobians(lib, func, inputs, check_grad_dtypes)
    diff_positions = [k for k, o in enumerate(func_out) if o.requires_grad]
    for output_index, position in enumerate(diff_positions):
        for input_index, per_output in enumerate(analytical):
            a, n = per_output[position], numerical[input_index][position]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(
                    f"Jacobian computed with forward mode mismatch for output {output_index:d} "
                    f"with respect to input {input_index:d},\nnumerical:{_to_tensor(lib, n)}\n"
                    f"analytical:{_to_tensor(lib, a)}\n"
                )
