"""Finite-difference checks of gradients: ``gradcheck`` and ``gradgradcheck``.

Same signatures, checks, return values and messages as ``torch.autograd.gradcheck`` and
``torch.autograd.gradgradcheck`` for real (non-complex) dense tensors. The numerical Jacobian
comes from central differences: each element of each floating input that requires grad is
moved by ``-eps`` and ``+eps`` in place, through a NumPy view of its storage (so, as with
torch's ``.data``, the version counter is not bumped), and restored afterwards. The analytical
Jacobian is built one row at a time from ``autograd.grad`` with one-hot ``grad_outputs``, twice,
to catch a backward that is not reentrant.

Differences from torch, all deliberate:

- ``fast_mode=True`` runs the slow (full Jacobian) check. It is stricter than torch's random
  projection, so it can only fail where torch's fast mode might pass, never the reverse.
- Batched (vmap) gradients are not supported by leafgrad; asking for them raises
  ``NotImplementedError`` instead of being ignored. ``check_forward_ad`` runs torch's slow
  forward-mode check (``_gradcheck_forward.py``).
- Complex inputs and outputs are checked as torch's convention defines their gradients, by
  checking the real function of the real and imaginary parts: each complex input becomes two
  real inputs (``complex(re, im)``) and each complex output ``view_as_real(out)``. That function's
  gradients are right exactly when the complex ones are (given ``complex`` and ``view_as_real``,
  tested against torch on their own), so the verdict is torch's; a mismatch is reported for the
  real function's inputs and outputs, not in torch's words about real and imaginary parts.
- ``check_undefined_grad`` puts each output whose grad is "undefined" behind a custom
  Function whose backward returns None: the output's own node and hooks then receive None, as
  behind torch's internal ``UndefinedGrad`` node.
- Outputs that are not floating point are skipped wherever they sit among the outputs (torch
  misaligns its Jacobians after an integer output, failing with IndexError, and cannot take
  differences of bool outputs), and a wrong-dtype or wrong-size analytical grad gets the message that names its real
  problem (torch swaps "dtype mismatch" and "incorrect size").
- ``gradgradcheck`` draws its random ``grad_outputs`` as torch's make_tensor does, from the
  default generator (a private fixed-seed generator before: reproducible, but a program that
  draws numbers after a gradgradcheck then printed other values than under torch).
- gradcheck's warnings point at the caller's line, not into this module.
"""

from __future__ import annotations

import sys
import warnings
from typing import Callable, NamedTuple

import numpy as np

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


def _lib():
    """The tensor library gradcheck runs on.

    Always leafgrad at run time; the tests replace this function to run the very same code on
    torch and compare against ``torch.autograd.gradcheck``. Imported lazily because
    ``leafgrad.autograd`` is imported while ``leafgrad`` itself is still loading.
    """
    import leafgrad

    return leafgrad


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

# ---------------------------------------------------------------------------------------------
# Small helpers


def _as_tuple(value) -> tuple:
    if isinstance(value, tuple):
        return value
    if isinstance(value, list):
        return tuple(value)
    return (value,)


def _differentiable_outputs(outputs) -> tuple:
    return tuple(output for output in _as_tuple(outputs) if output.requires_grad)


def _diff_inputs(lib, inputs: tuple) -> list:
    """The top-level inputs gradcheck differentiates: tensors that require grad."""
    return [x for x in inputs if isinstance(x, lib.Tensor) and x.requires_grad]


def _is_float(tensor) -> bool:
    return tensor.dtype.is_floating_point or tensor.dtype.is_complex


def _to_array(tensor) -> np.ndarray:
    """A copy of the tensor's values, detached from any later change to the tensor."""
    return np.array(tensor.detach().numpy(), copy=True)


def _to_tensor(lib, array: np.ndarray):
    # Jacobians are shown in failure messages with the library's own tensor repr.
    return lib.from_numpy(np.array(array, order="C"))


def _allclose(analytical: np.ndarray, numerical: np.ndarray, rtol: float, atol: float) -> bool:
    # torch.allclose after type promotion: |a - n| <= atol + rtol * |n|, NaN never close.
    dtype = np.result_type(analytical.dtype, numerical.dtype)
    return bool(
        np.allclose(analytical.astype(dtype), numerical.astype(dtype), rtol=rtol, atol=atol)
    )


def _caller_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning point at the first caller outside this module."""
    level = 1
    frame = sys._getframe(1)  # the function about to call warnings.warn
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
        level += 1
    return level


def _mismatch_message(analytical, numerical, output_index: int, input_index: int) -> str:
    return (
        f"Jacobian mismatch for output {output_index:d} with respect to input "
        f"{input_index:d},\nnumerical:{numerical}\nanalytical:{analytical}\n"
    )


def _has_complex(lib, inputs: tuple, outputs: tuple) -> bool:
    tensors = [x for x in inputs if isinstance(x, lib.Tensor) and x.requires_grad]
    tensors += [o for o in outputs if isinstance(o, lib.Tensor)]
    return any(t.dtype.is_complex for t in tensors)


def _as_real_problem(lib, func: Callable, inputs: tuple) -> tuple[Callable, tuple]:
    """The real function of real inputs that a complex ``func`` amounts to (see the module
    docstring): complex inputs split into real and imaginary parts, complex outputs viewed as
    real pairs."""
    real_inputs = []
    split = []
    for x in inputs:
        if isinstance(x, lib.Tensor) and x.requires_grad and x.dtype.is_complex:
            parts = x.detach().resolve_conj()
            real_inputs.append(parts.real.clone().requires_grad_())
            real_inputs.append(parts.imag.clone().requires_grad_())
            split.append(True)
        else:
            real_inputs.append(x)
            split.append(False)

    def real_func(*args):
        rebuilt = []
        position = 0
        for was_split in split:
            if was_split:
                rebuilt.append(lib.complex(args[position], args[position + 1]))
                position += 2
            else:
                rebuilt.append(args[position])
                position += 1
        outputs = func(*rebuilt)
        single = not isinstance(outputs, (tuple, list))
        outputs = (outputs,) if single else tuple(outputs)
        outputs = tuple(
            lib.view_as_real(o.resolve_conj()) if isinstance(o, lib.Tensor) and o.is_complex()
            else o
            for o in outputs
        )
        return outputs[0] if single else outputs

    return real_func, tuple(real_inputs)


# ---------------------------------------------------------------------------------------------
# Input checks


def _as_dense_problem(lib, func: Callable, inputs: tuple, masked) -> tuple[Callable, tuple]:
    """Sparse inputs and outputs as torch's gradcheck sees them. ``masked``: a sparse input's
    variables are its (coalesced) values, perturbed where they are stored; otherwise every
    element of its dense form (so a gradient that keeps only the stored pattern, as
    torch.sparse.mm's, fails the check as in torch)."""
    replaced = []
    builders = []
    for x in inputs:
        if not (getattr(x, "is_sparse", False) and x.requires_grad):
            replaced.append(x)
            builders.append(None)
            continue
        source = x.detach().coalesce()
        if masked:
            leaf = source._values().clone().requires_grad_()
            indices, shape = source._indices(), tuple(x.shape)
            builders.append(lambda v, indices=indices, shape=shape: lib.sparse_coo_tensor(
                indices, v, shape, check_invariants=False))
        else:
            leaf = source.to_dense().requires_grad_()
            builders.append(lambda d: d.to_sparse())
        replaced.append(leaf)

    def dense_func(*args):
        rebuilt = [arg if build is None else build(arg) for arg, build in zip(args, builders)]
        return func(*rebuilt)

    return dense_func, tuple(replaced)


def _check_inputs(lib, inputs: tuple) -> None:
    """torch's checks: warn on non-double inputs, refuse overlapping memory and no grad at all."""
    complex128 = getattr(lib, "complex128", None)
    any_requires_grad = False
    for index, x in enumerate(inputs):
        if not (isinstance(x, lib.Tensor) and x.requires_grad):
            continue
        if not (x.dtype == lib.float64 or (complex128 is not None and x.dtype == complex128)):
            warnings.warn(
                f"Input #{index} requires gradient and "
                "is not a double precision floating point or complex. "
                "This check will likely fail if all the inputs are "
                "not of double precision floating point or complex. ",
                stacklevel=_caller_stacklevel(),
            )
        # Perturbing one element of an expanded tensor would move every element sharing it.
        if not all(st > 0 or sz <= 1 for st, sz in zip(x.stride(), x.shape)):
            raise RuntimeError(
                f"The {index}th input has a dimension with stride 0. gradcheck only "
                "supports inputs that are non-overlapping to be able to "
                "compute the numerical gradients correctly. You should call "
                ".contiguous on the input before passing it to gradcheck."
            )
        any_requires_grad = True
    if not any_requires_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )


# ---------------------------------------------------------------------------------------------
# Numerical Jacobian


def _storage_view(tensor) -> np.ndarray:
    """A NumPy array sharing memory with ``tensor``: writing to it perturbs the tensor."""
    array = tensor.detach().numpy()
    if array.size and not np.may_share_memory(array, tensor.detach().numpy()):
        raise RuntimeError(
            "gradcheck needs Tensor.detach().numpy() to share memory with the tensor"
        )
    return array


class _Snapshot(NamedTuple):
    """One output of one perturbed call."""

    shape: object
    dtype: object
    values: np.ndarray


def _evaluate(func: Callable, inputs: tuple) -> list[_Snapshot]:
    """Run ``func`` and snapshot every output."""
    # Copies, because an output may alias an input that is about to be restored.
    return [
        _Snapshot(output.shape, output.dtype, _to_array(output))
        for output in _as_tuple(func(*inputs))
    ]


def _check_same_dtype_and_shape(minus: _Snapshot, plus: _Snapshot, index, eps) -> None:
    # Outputs at x - eps and x + eps must be comparable element for element.
    if minus.shape != plus.shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape"
            f" when inputs are perturbed on index {index} by {eps}, but got:"
            f" shapes {minus.shape} and {plus.shape}."
        )
    if minus.dtype != plus.dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype"
            f" when inputs are perturbed on index {index} by {eps}, but got:"
            f" dtypes {minus.dtype} and {plus.dtype}."
        )


def _numerical_jacobians(func: Callable, inputs: tuple, diff_inputs: list, outputs: tuple,
                         eps: float) -> list[list[np.ndarray | None]]:
    """``result[i][k]``: d output k / d diff input i as a (numel in, numel out) array.

    ``None`` for outputs that are not floating point. Row ``c`` holds the central difference
    for element ``c`` (in C order) of input ``i``.
    """
    result = []
    for x in diff_inputs:
        storage = _storage_view(x)
        jacobians = [
            np.zeros((x.numel(), o.numel()), dtype=o.detach().numpy().dtype)
            if _is_float(o) else None
            for o in outputs
        ]
        for flat_index, index in enumerate(np.ndindex(storage.shape)):
            original = storage[index].copy()
            try:
                # Arithmetic on a NumPy scalar of the input's dtype rounds like torch does on
                # a 0-d tensor of that dtype.
                storage[index] = original - eps
                minus = _evaluate(func, inputs)
                storage[index] = original + eps
                plus = _evaluate(func, inputs)
            finally:
                storage[index] = original
            if len(minus) != len(outputs) or len(plus) != len(outputs):
                raise AssertionError(
                    "Expected `func` to return the same number of outputs when inputs are "
                    f"perturbed on index {index} by {eps}"
                )
            for k, (jacobian, a, b) in enumerate(zip(jacobians, minus, plus)):
                _check_same_dtype_and_shape(a, b, index, eps)
                if jacobian is None:
                    continue
                if a.values.size != jacobian.shape[1]:
                    raise AssertionError(
                        f"Expected `func` to return output {k} with {jacobian.shape[1]} "
                        f"elements when inputs are perturbed on index {index} by {eps}, "
                        f"but got {a.values.size}."
                    )
                jacobian[flat_index] = ((b.values - a.values) / (2 * eps)).reshape(-1)
        result.append(jacobians)
    return result


# ---------------------------------------------------------------------------------------------
# Analytical Jacobian


def _jacobian_rows(lib, diff_inputs: list, output) -> tuple[list[np.ndarray], bool, bool]:
    """d output / d input for each diff input, one one-hot backward per output element.

    Returns the Jacobians (input's dtype, shape (numel in, numel out)), whether every grad had
    its input's shape, and whether every grad had its input's dtype.
    """
    jacobians = [
        np.zeros((x.numel(), output.numel()), dtype=x.detach().numpy().dtype)
        for x in diff_inputs
    ]
    sizes_ok = True
    dtypes_ok = True
    out_dtype = output.detach().numpy().dtype
    for row in range(output.numel()):
        one_hot = np.zeros(tuple(output.shape), dtype=out_dtype)
        one_hot.reshape(-1)[row] = 1
        grads = lib.autograd.grad(
            output, diff_inputs, _to_tensor(lib, one_hot), retain_graph=True, allow_unused=True
        )
        for jacobian, x, grad in zip(jacobians, diff_inputs, grads):
            if grad is None:
                continue  # an unused input: its entries in this column stay zero
            if grad.shape != x.shape:
                sizes_ok = False
            elif grad.dtype != x.dtype:
                dtypes_ok = False
            # (a gradient may carry the negative bit: torch's at::imag of a conjugate view)
            values = grad.detach().resolve_neg().numpy().reshape(-1)
            if values.size != jacobian.shape[0]:
                sizes_ok = False
                continue
            jacobian[:, row] = values
    return jacobians, sizes_ok, dtypes_ok


def _analytical_jacobians(lib, diff_inputs: list, output, nondet_tol: float,
                          check_grad_dtypes: bool) -> list[np.ndarray]:
    """The analytical Jacobians of one output, computed twice to check reentrancy."""
    first, sizes_ok, dtypes_ok = _jacobian_rows(lib, diff_inputs, output)
    second, _, _ = _jacobian_rows(lib, diff_inputs, output)
    reentrant = all(
        a.size == 0 or not np.abs(a - b).max() > nondet_tol for a, b in zip(first, second)
    )
    if not dtypes_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with "
            "same input and grad_output multiple times gives different values, "
            "although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG
        )
    return first


# ---------------------------------------------------------------------------------------------
# The checks gradcheck runs


def _slow_gradcheck(lib, func, func_out: tuple, inputs: tuple, outputs: tuple, eps: float,
                    rtol: float, atol: float, check_grad_dtypes: bool,
                    nondet_tol: float) -> None:
    """Compare the full numerical and analytical Jacobians of every (output, input) pair."""
    diff_inputs = _diff_inputs(lib, inputs)
    numerical = _numerical_jacobians(func, inputs, diff_inputs, func_out, eps)
    if not outputs:
        # Nothing is differentiable, so the function must not depend on its inputs at all.
        for per_input in numerical:
            for jacobian in per_input:
                if jacobian is not None and np.any(jacobian != 0):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    # Keep the Jacobians of the outputs that require grad, in their order.
    diff_positions = [k for k, o in enumerate(func_out) if o.requires_grad]
    for output_index, (position, output) in enumerate(zip(diff_positions, outputs)):
        analytical = _analytical_jacobians(
            lib, diff_inputs, output, nondet_tol, check_grad_dtypes
        )
        for input_index, a in enumerate(analytical):
            n = numerical[input_index][position]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(
                    _mismatch_message(
                        _to_tensor(lib, a), _to_tensor(lib, n), output_index, input_index
                    )
                )


def _zeros_like(lib, tensor):
    return _to_tensor(lib, np.zeros(tuple(tensor.shape), dtype=tensor.detach().numpy().dtype))


def _check_backward_mul_by_grad_output(lib, outputs: tuple, inputs: tuple, masked) -> None:
    """Zero grad_outputs must give zero input grads of the inputs' dtype, device and shape."""
    diff_inputs = _diff_inputs(lib, inputs)
    if not outputs:
        return  # no output to backpropagate from: every input grad is None
    grads = lib.autograd.grad(
        outputs, diff_inputs, [_zeros_like(lib, o) for o in outputs], allow_unused=True
    )
    for grad, x in zip(grads, diff_inputs):
        if grad is None:
            continue
        values = grad.detach().resolve_neg().numpy()
        if masked:
            is_zero = np.allclose(values, 0)
        else:
            is_zero = bool(np.all(values == 0))
        if not is_zero:
            raise GradcheckError("backward not multiplied by grad_output")
        if grad.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if grad.device != x.device:
            raise GradcheckError("grad is incorrect device")
        if grad.shape != x.shape:
            raise GradcheckError("grad is incorrect size")


def _warn_bc_breaking() -> None:
    warnings.warn(
        "Backwards compatibility: New undefined gradient support checking "
        "feature is enabled by default, but it may break existing callers "
        "of this function. If this is true for you, you can call this "
        'function with "check_undefined_grad=False" to disable the feature',
        stacklevel=_caller_stacklevel(),
    )


def _undefined_grad(lib, tensor):
    """``tensor`` behind a node whose backward gives no grad (torch's internal ``UndefinedGrad``
    node): what reaches ``tensor``'s own node is an undefined grad, so its hooks see None."""

    class UndefinedGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return None

    return UndefinedGrad.apply(tensor)


def _check_undefined_grad(lib, func, inputs: tuple, num_outputs: int) -> None:
    """Backward must treat undefined output grads as zeros: all undefined, then one at a time."""
    diff_inputs = _diff_inputs(lib, inputs)
    undefined_sets = [None]  # None: every output's grad is undefined
    if num_outputs > 1:
        undefined_sets += list(range(num_outputs))
    for undefined in undefined_sets:
        outputs = _differentiable_outputs(func(*inputs))
        if not outputs:
            continue  # nothing flows back: every input grad is undefined, which is correct
        outputs = [_undefined_grad(lib, o) if undefined in (None, k) else o
                   for k, o in enumerate(outputs)]
        try:
            grads = lib.autograd.grad(
                outputs, diff_inputs, [_zeros_like(lib, o) for o in outputs], allow_unused=True
            )
        except RuntimeError as error:
            _warn_bc_breaking()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. "
                'Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"'
            ) from error
        for grad in grads:
            if grad is not None and not np.all(grad.detach().resolve_neg().numpy() == 0):
                _warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    'are undefined or zero. Please look at "Notes about undefined output '
                    'gradients" in "tools/autograd/derivatives.yaml"'
                )


def _check_batched_grad(lib, inputs: tuple, output, output_index: int) -> None:
    """torch's _test_batched_grad: the gradients for two random grad_outputs (drawn with
    randn_like, as torch, from the default generator) computed in one batched call
    (``is_grads_batched``) must equal the two computed one at a time."""
    diff_inputs = [t for t in inputs if isinstance(t, lib.Tensor) and t.requires_grad]

    def vjp(grad_output, batched=False):
        grads = lib.autograd.grad(output, diff_inputs, grad_output, retain_graph=True,
                                  allow_unused=True, is_grads_batched=batched)
        return tuple(
            grad if grad is not None else lib.zeros(
                (grad_output.shape[0],) * batched + tuple(inp.shape), dtype=inp.dtype)
            for grad, inp in zip(grads, diff_inputs))

    grad_outputs = [lib.randn_like(output) for _ in range(2)]
    expected = [lib.stack(shards) for shards in zip(*[vjp(g) for g in grad_outputs])]
    try:
        result = vjp(lib.stack(grad_outputs), batched=True)
    except RuntimeError as error:
        raise GradcheckError(f"While computing batched gradients, got: {error}") from error
    for input_index, (got, want) in enumerate(zip(result, expected)):
        if not lib.allclose(got, want):
            raise GradcheckError(
                f"For output {output_index} and input {input_index}:\n\nGradcheck failed "
                f"while testing batched gradient computation.\n\nGot:\n{got}\n\n"
                f"Expected:\n{want}")


def _check_batched_forward_grad(lib, func, inputs: tuple) -> None:
    """torch's _test_batched_grad_forward_ad: per floating input requiring grad, the tangents
    of the outputs for two random input tangents (randn_like, from the default generator)
    computed in one vmap call must equal the two computed one at a time."""
    from ..func import vmap
    from . import forward_ad as fwAD

    for input_index, current in enumerate(inputs):
        if not (isinstance(current, lib.Tensor) and current.requires_grad):
            continue

        def jvp(tangent, input_index=input_index, current=current):
            with fwAD.dual_level():
                dual = fwAD.make_dual(current.detach(), tangent)
                args = tuple(dual if index == input_index else (
                    value.detach() if isinstance(value, lib.Tensor) else value)
                    for index, value in enumerate(inputs))
                result = []
                for output in _as_tuple(func(*args)):
                    if output is None:
                        continue
                    primal, tangent_out = fwAD.unpack_dual(output)
                    result.append(tangent_out if tangent_out is not None else lib.zeros(
                        [], dtype=primal.dtype).expand(primal.shape))
                return tuple(result)

        if not (current.is_floating_point() or current.is_complex()):
            continue
        tangents = [lib.randn_like(current) for _ in range(2)]
        expected = [lib.stack(shards) for shards in zip(*[jvp(t) for t in tangents])]
        try:
            result = vmap(jvp)(lib.stack(tangents))
        except RuntimeError as error:
            raise GradcheckError(
                f"While computing batched gradients, got: {error}") from error
        for output_index, (got, want) in enumerate(zip(result, expected)):
            if not lib.allclose(got, want):
                raise GradcheckError(
                    f"For output {output_index} and input {input_index}:\n\nGradcheck "
                    f"failed while testing batched gradient computation with forward-mode "
                    f"AD.\n\nGot:\n{got}\n\nExpected:\n{want}")


def _gradcheck(func, inputs, *, eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_grad_dtypes, masked, check_forward_ad, check_backward_ad,
               check_batched_grad=False, check_batched_forward_grad=False) -> bool:
    lib = _lib()
    inputs = _as_tuple(inputs)
    if any(getattr(o, "is_sparse", False) for o in _as_tuple(func(*inputs))):
        raise ValueError("Sparse output is not supported at gradcheck yet. Please call "
                         "to_dense(masked_grad=...) on the output of fn for gradcheck.")
    if any(getattr(x, "is_sparse", False) for x in inputs):
        func, inputs = _as_dense_problem(lib, func, inputs, masked)
    _check_inputs(lib, inputs)
    func_out = _as_tuple(func(*inputs))
    if _has_complex(lib, inputs, func_out):
        func, inputs = _as_real_problem(lib, func, inputs)
        func_out = _as_tuple(func(*inputs))
    outputs = _differentiable_outputs(func_out)
    if check_backward_ad:
        _slow_gradcheck(
            lib, func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol
        )
    if check_forward_ad:
        from ._gradcheck_forward import forward_gradcheck

        forward_gradcheck(lib, func, func_out, inputs, outputs, eps, rtol, atol,
                          check_grad_dtypes)
    if check_batched_forward_grad:  # (torch's order of the checks: the same random draws)
        _check_batched_forward_grad(lib, func, inputs)
    if not check_backward_ad:
        return True  # the remaining checks are of backward mode
    if check_batched_grad:
        for index, output in enumerate(outputs):
            _check_batched_grad(lib, inputs, output, index)
    _check_backward_mul_by_grad_output(lib, outputs, inputs, masked)
    if check_undefined_grad:
        _check_undefined_grad(lib, func, inputs, len(outputs))
    return True


# ---------------------------------------------------------------------------------------------
# Public API


def gradcheck(
    func: Callable,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the analytical gradients of ``func`` against central finite differences.

    Every floating input that requires grad is checked against every output that requires
    grad; non-tensor inputs are passed through unchanged. Returns True, or on a mismatch
    raises :class:`GradcheckError` (``raise_exception=True``) or returns False. The default
    tolerances are meant for float64 inputs. ``fast_mode`` runs the full (slow) check.
    ``check_forward_ad`` checks forward mode (jvp formulas) the same way; ``check_backward_ad``
    may turn the backward checks off.

    >>> x = leafgrad.randn(3, dtype=leafgrad.float64, requires_grad=True)
    >>> gradcheck(lambda x: x.sin() * x, (x,))
    True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )
    try:
        return _gradcheck(
            func,
            inputs,
            eps=eps,
            atol=atol,
            rtol=rtol,
            nondet_tol=nondet_tol,
            check_undefined_grad=check_undefined_grad,
            check_grad_dtypes=check_grad_dtypes,
            masked=masked,
            check_forward_ad=check_forward_ad,
            check_backward_ad=check_backward_ad,
            check_batched_grad=check_batched_grad,
            check_batched_forward_grad=check_batched_forward_grad,
        )
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _random_grad_outputs(lib, outputs: tuple, noncontiguous: bool) -> tuple:
    """Uniform [-1, 1) grad_outputs shaped like the outputs, drawn as torch's make_tensor
    draws them: ``empty(...).uniform_(-1, 1)`` from the default generator (real and imaginary
    parts interleaved for complex), so gradgradcheck sees torch's values and leaves the
    generator where torch leaves it; non-contiguous: every other element of a copy with
    each element repeated along the last dim."""
    result = []
    for output in outputs:
        kind = output.dtype
        dtype = kind if kind.is_floating_point or kind.is_complex else lib.float64
        values = lib.empty(tuple(output.shape), dtype=dtype)
        (lib.view_as_real(values) if dtype.is_complex else values).uniform_(-1, 1)
        if noncontiguous and values.numel() > 1:
            values = lib.repeat_interleave(values, 2, dim=-1)[..., ::2]
        result.append(values.requires_grad_())
    return tuple(result)


def gradgradcheck(
    func: Callable,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: run :func:`gradcheck` on the backward pass of ``func``.

    The checked function maps ``(*inputs, *grad_outputs)`` to
    ``autograd.grad(func(*inputs), inputs, grad_outputs, create_graph=True)``. Without
    ``grad_outputs``, uniform [-1, 1) ones are drawn from the default generator, as torch.

    >>> x = leafgrad.randn(3, dtype=leafgrad.float64, requires_grad=True)
    >>> gradgradcheck(lambda x: (x ** 3).sum(), (x,))
    True
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    lib = _lib()
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*inputs))
        grad_outputs = _random_grad_outputs(lib, outputs, gen_non_contig_grad_outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(grad_outputs)
    num_inputs = len(inputs)

    # gradcheck hands back the same tensors, but the requires_grad flags are read here once so
    # that the function below differentiates exactly the arguments that required grad.
    diff_input_indices = {
        i for i, x in enumerate(inputs) if isinstance(x, lib.Tensor) and x.requires_grad
    }
    diff_grad_output_indices = {i for i, g in enumerate(grad_outputs) if g.requires_grad}

    def backward_of_func(*args):
        input_args = tuple(
            x.requires_grad_() if i in diff_input_indices else x
            for i, x in enumerate(args[:num_inputs])
        )
        outputs = _differentiable_outputs(func(*input_args))
        grads = tuple(
            g.requires_grad_() if i in diff_grad_output_indices else g
            for i, g in enumerate(args[num_inputs:])
        )
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_indices)
        grad_inputs = lib.autograd.grad(
            outputs, diff_input_args, grads, create_graph=True, allow_unused=True
        )
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(
        backward_of_func,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        fast_mode=fast_mode,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        masked=masked,
    )
